// crf_decoding against a brute-force baseline written here: every tag
// sequence of each (short) sequence is scored, and the best one wins; among
// equals the one with the smallest last tag, then the smallest tag before it,
// and so on (what Paddle's first-index tie rule gives when the scores are
// exact: small integers here).  LoD and
// padded (Length) forms, empty and one-row sequences, ties, and the Label
// form (1 where the path equals the label); bad shapes and LoDs are named.
#include <algorithm>
#include <functional>

#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_crf_decoding_test {

namespace {
// Integer-valued floats in [lo, hi]: sums are exact, so ties are real ties.
tensor int_tensor(const shape_t& shape, std::uint32_t seed, int lo, int hi) {
    tensor t(dtype::f32, shape);
    std::uint32_t s = seed * 2654435761u + 1;
    for (auto& v : t.span<float>()) {
        s = s * 1664525u + 1013904223u;
        v = static_cast<float>(
            lo + static_cast<int>((s >> 8) % static_cast<std::uint32_t>(hi - lo + 1)));
    }
    return t;
}

// Best tag sequence of x [len, d] by enumeration.
std::vector<std::int64_t> brute_force(const float* x, const float* w, std::int64_t len,
                                      std::int64_t d) {
    std::vector<std::int64_t> cur(static_cast<std::size_t>(len), 0), best;
    double best_score = 0;
    std::function<void(std::int64_t)> rec = [&](std::int64_t k) {
        if (k == len) {
            double s = w[cur[0]] + w[d + cur[static_cast<std::size_t>(len - 1)]];
            for (std::int64_t i = 0; i < len; ++i) s += x[i * d + cur[static_cast<std::size_t>(i)]];
            for (std::int64_t i = 1; i < len; ++i)
                s += w[(2 + cur[static_cast<std::size_t>(i - 1)]) * d +
                       cur[static_cast<std::size_t>(i)]];
            // Among equal scores the smallest last tag, then the smallest one
            // before it, ...: the first-index rule of Viterbi's backtrace.
            const bool earlier =
                !best.empty() && s == best_score &&
                std::lexicographical_compare(cur.rbegin(), cur.rend(), best.rbegin(), best.rend());
            if (best.empty() || s > best_score || earlier) {
                best = cur;
                best_score = s;
            }
            return;
        }
        for (std::int64_t t = 0; t < d; ++t) {
            cur[static_cast<std::size_t>(k)] = t;
            rec(k + 1);
        }
    };
    if (len > 0) rec(0);
    return best;
}
}  // namespace

TEST_CASE("crf_decoding matches brute force over LoD sequences") {
    const std::vector<std::vector<std::int64_t>> lods{
        {0, 3, 3, 4, 8}, {0, 1}, {0, 0}, {0, 5}, {0, 0, 2, 2, 6}};
    std::uint32_t seed = 1;
    for (std::int64_t d : {1, 2, 3, 4})
        for (const auto& off : lods)
            for (int range : {1, 3, 20}) {  // 1: many ties
                CAPTURE(d);
                CAPTURE(range);
                CAPTURE(lod_to_string({off}));
                auto x = int_tensor({off.back(), d}, seed++, -range, range);
                x.set_lod({off});
                auto w = int_tensor({d + 2, d}, seed++, -range, range);
                auto r = invoke("crf_decoding", {},
                                named_tensors{}.add("Emission", x).add("Transition", w),
                                {{"ViterbiPath", 1}});
                const auto& path = r.get("ViterbiPath");
                REQUIRE(path.shape() == shape_t{off.back(), 1});
                CHECK(path.lod() == lod_t{off});
                std::vector<std::int64_t> expected;
                for (std::size_t s = 0; s + 1 < off.size(); ++s) {
                    auto b = brute_force(x.span<float>().data() + off[s] * d,
                                         w.span<float>().data(), off[s + 1] - off[s], d);
                    expected.insert(expected.end(), b.begin(), b.end());
                }
                CHECK(std::vector<std::int64_t>(path.span<std::int64_t>().begin(),
                                                path.span<std::int64_t>().end()) == expected);

                // With Label: 1 where the decoded tag equals it.
                tensor label(dtype::i64, {off.back(), 1});
                for (std::int64_t i = 0; i < off.back(); ++i)
                    label.span<std::int64_t>()[static_cast<std::size_t>(i)] = (i * 7 + seed) % d;
                label.set_lod({off});
                auto rl = invoke(
                    "crf_decoding", {},
                    named_tensors{}.add("Emission", x).add("Transition", w).add("Label", label),
                    {{"ViterbiPath", 1}});
                for (std::int64_t i = 0; i < off.back(); ++i) {
                    const auto k = static_cast<std::size_t>(i);
                    CHECK(rl.get("ViterbiPath").span<std::int64_t>()[k] ==
                          (label.span<std::int64_t>()[k] == expected[k] ? 1 : 0));
                }
            }
}

TEST_CASE("crf_decoding with all-equal scores picks tag 0 everywhere") {
    tensor x(dtype::f32, {4, 3}), w(dtype::f32, {5, 3});
    x.set_lod({{0, 4}});
    auto r = invoke("crf_decoding", {}, named_tensors{}.add("Emission", x).add("Transition", w),
                    {{"ViterbiPath", 1}});
    for (auto v : r.get("ViterbiPath").span<std::int64_t>()) CHECK(v == 0);
}

TEST_CASE("crf_decoding padded form with Length") {
    const std::int64_t b = 3, s = 4, d = 3;
    auto x = int_tensor({b, s, d}, 5, -3, 3);
    auto w = int_tensor({d + 2, d}, 6, -3, 3);
    tensor len(dtype::i64, {b});
    const std::int64_t lens[] = {4, 0, 2};
    for (std::int64_t i = 0; i < b; ++i)
        len.span<std::int64_t>()[static_cast<std::size_t>(i)] = lens[i];
    tensor label(dtype::i64, {b, s});
    for (std::int64_t i = 0; i < b * s; ++i)
        label.span<std::int64_t>()[static_cast<std::size_t>(i)] = i % d;
    auto in = named_tensors{}.add("Emission", x).add("Transition", w).add("Length", len);
    auto r = invoke("crf_decoding", {}, in, {{"ViterbiPath", 1}});
    in.add("Label", label);
    auto rl = invoke("crf_decoding", {}, in, {{"ViterbiPath", 1}});
    REQUIRE(r.get("ViterbiPath").shape() == shape_t{b, s});
    for (std::int64_t i = 0; i < b; ++i) {
        auto best =
            brute_force(x.span<float>().data() + i * s * d, w.span<float>().data(), lens[i], d);
        for (std::int64_t k = 0; k < s; ++k) {
            const auto at = static_cast<std::size_t>(i * s + k);
            const std::int64_t want = k < lens[i] ? best[static_cast<std::size_t>(k)] : 0;
            CHECK(r.get("ViterbiPath").span<std::int64_t>()[at] == want);
            CHECK(rl.get("ViterbiPath").span<std::int64_t>()[at] ==
                  (k < lens[i] && label.span<std::int64_t>()[at] == want ? 1 : 0));
        }
    }
}

TEST_CASE("crf_decoding names bad inputs") {
    auto x = int_tensor({4, 3}, 1, -2, 2);
    auto w = int_tensor({5, 3}, 2, -2, 2);
    auto run = [](const named_tensors& in) {
        return invoke("crf_decoding", {}, in, {{"ViterbiPath", 1}});
    };
    CHECK_THROWS_WITH_AS(run(named_tensors{}.add("Emission", x).add("Transition", w)),
                         doctest::Contains("Emission must have a LoD of one level, has 0"),
                         shape_error);
    x.set_lod({{0, 1}, {0, 4}});
    CHECK_THROWS_WITH_AS(run(named_tensors{}.add("Emission", x).add("Transition", w)),
                         doctest::Contains("Emission must have a LoD of one level, has 2"),
                         shape_error);
    x.set_lod({{0, 4}});
    CHECK_THROWS_WITH_AS(
        run(named_tensors{}.add("Emission", x).add("Transition", int_tensor({3, 3}, 2, 0, 1))),
        doctest::Contains("Transition must be [D + 2, D] = [5, 3]"), shape_error);
    tensor label(dtype::i64, {3, 1});
    CHECK_THROWS_WITH_AS(
        run(named_tensors{}.add("Emission", x).add("Transition", w).add("Label", label)),
        doctest::Contains("Label must be [N, 1]"), shape_error);
    tensor len(dtype::i64, {2});
    len.span<std::int64_t>()[0] = 2;
    len.span<std::int64_t>()[1] = 5;
    auto x3 = int_tensor({2, 4, 3}, 3, -1, 1);
    CHECK_THROWS_WITH_AS(
        run(named_tensors{}.add("Emission", x3).add("Transition", w).add("Length", len)),
        doctest::Contains("Length[1] = 5 is outside [0, 4]"), shape_error);
    len.span<std::int64_t>()[1] = -1;
    CHECK_THROWS_WITH_AS(
        run(named_tensors{}.add("Emission", x3).add("Transition", w).add("Length", len)),
        doctest::Contains("Length[1] = -1 is outside"), shape_error);
}

}  // namespace ops_crf_decoding_test
