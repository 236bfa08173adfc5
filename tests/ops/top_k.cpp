// top_k and top_k_v2 against a plain selection loop: every axis, k from 1 to
// the dim and from the K input, largest and smallest, sorted or not, ties
// (lower index first), NaN (the largest value), int32/int64/float64 data,
// 0-D X; bad k and axes are named.
#include <cmath>
#include <limits>

#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_top_k_test {

namespace {
// The k best of `row` by repeated selection: the best remaining value (NaN
// beats everything when largest, loses when smallest), the lower index on ties.
template <class T>
std::vector<std::pair<T, std::int64_t>> select(const std::vector<T>& row, std::int64_t k,
                                               bool largest) {
    std::vector<bool> used(row.size(), false);
    std::vector<std::pair<T, std::int64_t>> out;
    for (std::int64_t n = 0; n < k; ++n) {
        std::int64_t best = -1;
        for (std::size_t j = 0; j < row.size(); ++j) {
            if (used[j]) continue;
            if (best < 0) {
                best = static_cast<std::int64_t>(j);
                continue;
            }
            const T a = row[j], b = row[static_cast<std::size_t>(best)];
            const bool an = std::isnan(static_cast<double>(a)),
                       bn = std::isnan(static_cast<double>(b));
            bool better;
            if (an || bn)
                better = largest ? an && !bn : bn && !an;
            else
                better = largest ? a > b : a < b;
            if (better) best = static_cast<std::int64_t>(j);
        }
        used[static_cast<std::size_t>(best)] = true;
        out.push_back({row[static_cast<std::size_t>(best)], best});
    }
    return out;
}

template <class T>
void check_top_k(const tensor& x, std::int64_t axis, std::int64_t k, bool largest,
                 const named_tensors& r) {
    const auto& s = x.shape();
    std::int64_t outer = 1, inner = 1, n = s.empty() ? 1 : s[static_cast<std::size_t>(axis)];
    for (std::int64_t d = 0; d < static_cast<std::int64_t>(s.size()); ++d)
        if (d != axis) (d < axis ? outer : inner) *= s[static_cast<std::size_t>(d)];
    shape_t e = s;
    if (!e.empty()) e[static_cast<std::size_t>(axis)] = k;
    REQUIRE(r.get("Out").shape() == e);
    REQUIRE(r.get("Indices").shape() == e);
    REQUIRE(r.get("Indices").type() == dtype::i64);
    auto xv = x.span<T>();
    auto ov = r.get("Out").span<T>();
    auto iv = r.get("Indices").span<std::int64_t>();
    for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t i = 0; i < inner; ++i) {
            std::vector<T> row;
            for (std::int64_t j = 0; j < n; ++j) row.push_back(xv[(o * n + j) * inner + i]);
            auto best = select(row, k, largest);
            for (std::int64_t j = 0; j < k; ++j) {
                const auto at = static_cast<std::size_t>((o * k + j) * inner + i);
                const T got = ov[at], want = best[static_cast<std::size_t>(j)].first;
                CHECK((got == want || (std::isnan(static_cast<double>(got)) &&
                                       std::isnan(static_cast<double>(want)))));
                CHECK(iv[at] == best[static_cast<std::size_t>(j)].second);
            }
        }
}

// Values in {-2, ..., 2}: many ties.
tensor tied(const shape_t& s, std::uint32_t seed) {
    auto t = test::random_tensor(s, seed, -2.5f, 2.5f);
    for (auto& v : t.span<float>()) v = std::round(v);
    return t;
}
}  // namespace

TEST_CASE("top_k_v2 matches the selection loop") {
    std::uint32_t seed = 1;
    for (const shape_t& s : {shape_t{7}, shape_t{3, 5}, shape_t{2, 4, 3}, shape_t{2, 1}})
        for (std::int64_t axis = -static_cast<std::int64_t>(s.size());
             axis < static_cast<std::int64_t>(s.size()); ++axis) {
            const auto ax = axis < 0 ? axis + static_cast<std::int64_t>(s.size()) : axis;
            const auto dim = s[static_cast<std::size_t>(ax)];
            for (std::int64_t k = 1; k <= dim; ++k)
                for (bool largest : {true, false})
                    for (bool sorted : {true, false})
                        for (bool k_input : {false, true}) {
                            CAPTURE(to_string(s));
                            CAPTURE(axis);
                            CAPTURE(k);
                            CAPTURE(largest);
                            auto x = tied(s, seed++);
                            attr_map a;
                            a.set("axis", axis);
                            a.set("largest", largest);
                            a.set("sorted", sorted);
                            named_tensors in;
                            in.add("X", x);
                            if (k_input) {
                                a.set("k", 99);
                                in.add("K", tensor::from<std::int32_t>(
                                                {1}, std::vector<std::int32_t>{
                                                         static_cast<std::int32_t>(k)}));
                            } else {
                                a.set("k", k);
                            }
                            auto r = invoke("top_k_v2", a, in, {{"Out", 1}, {"Indices", 1}});
                            check_top_k<float>(x, ax, k, largest, r);
                        }
        }
}

TEST_CASE("top_k (v1) is the last axis, largest first") {
    std::uint32_t seed = 100;
    for (const shape_t& s : {shape_t{6}, shape_t{4, 5}, shape_t{2, 3, 4}})
        for (std::int64_t k = 1; k <= s.back(); ++k) {
            auto x = tied(s, seed++);
            attr_map a;
            a.set("k", k);
            auto r = invoke("top_k", a, named_tensors{}.add("X", x), {{"Out", 1}, {"Indices", 1}});
            check_top_k<float>(x, static_cast<std::int64_t>(s.size()) - 1, k, true, r);
        }
    // The default k is 1.
    auto x = tied({3, 4}, 7);
    auto r = invoke("top_k", {}, named_tensors{}.add("X", x), {{"Out", 1}, {"Indices", 1}});
    check_top_k<float>(x, 1, 1, true, r);
}

TEST_CASE("top_k_v2 on NaN, int and double data, and a 0-D X") {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    auto x = tensor::from<float>({6}, std::vector<float>{1, nan, 3, nan, 3, -1});
    for (bool largest : {true, false}) {
        attr_map a;
        a.set("k", 4);
        a.set("largest", largest);
        auto r = invoke("top_k_v2", a, named_tensors{}.add("X", x), {{"Out", 1}, {"Indices", 1}});
        check_top_k<float>(x, 0, 4, largest, r);
        auto iv = r.get("Indices").span<std::int64_t>();
        CHECK(std::vector<std::int64_t>(iv.begin(), iv.end()) ==
              (largest ? std::vector<std::int64_t>{1, 3, 2, 4}
                       : std::vector<std::int64_t>{5, 0, 2, 4}));
    }
    auto xi = tensor::from<std::int32_t>({2, 3}, std::vector<std::int32_t>{5, 7, 5, 1, 1, 0});
    attr_map a;
    a.set("k", 2);
    auto r = invoke("top_k_v2", a, named_tensors{}.add("X", xi), {{"Out", 1}, {"Indices", 1}});
    check_top_k<std::int32_t>(xi, 1, 2, true, r);
    auto xl = tensor::from<std::int64_t>({4}, std::vector<std::int64_t>{2, 9, 9, 2});
    r = invoke("top_k_v2", a, named_tensors{}.add("X", xl), {{"Out", 1}, {"Indices", 1}});
    check_top_k<std::int64_t>(xl, 0, 2, true, r);
    auto xd = tensor::from<double>({3}, std::vector<double>{0.5, -0.5, 0.25});
    a.set("largest", false);
    r = invoke("top_k_v2", a, named_tensors{}.add("X", xd), {{"Out", 1}, {"Indices", 1}});
    check_top_k<double>(xd, 0, 2, false, r);
    auto x0 = tensor::from<float>({}, std::vector<float>{4.f});
    attr_map one;
    one.set("k", 1);
    r = invoke("top_k_v2", one, named_tensors{}.add("X", x0), {{"Out", 1}, {"Indices", 1}});
    CHECK(r.get("Out").shape() == shape_t{});
    CHECK(r.get("Out").span<float>()[0] == 4.f);
    CHECK(r.get("Indices").span<std::int64_t>()[0] == 0);
}

TEST_CASE("top_k names bad input") {
    auto x = test::random_tensor({2, 3}, 1);
    auto run = [&](const char* type, attr_map a) {
        return invoke(type, a, named_tensors{}.add("X", x), {{"Out", 1}, {"Indices", 1}});
    };
    attr_map a;
    a.set("k", 4);
    CHECK_THROWS_WITH_AS(
        run("top_k_v2", a),
        doctest::Contains("k 4 is out of range [1, 3] (the dim of X along axis 1)"), shape_error);
    a.set("k", 0);
    CHECK_THROWS_WITH_AS(run("top_k", a), doctest::Contains("k 0 is out of range"), shape_error);
    a.set("k", 1);
    a.set("axis", 2);
    CHECK_THROWS_WITH_AS(run("top_k_v2", a), doctest::Contains("axis 2 is out of range for rank 2"),
                         shape_error);
    CHECK_THROWS_WITH_AS(invoke("top_k_v2", {},
                                named_tensors{}.add("X", tensor::from<std::uint8_t>(
                                                             {2}, std::vector<std::uint8_t>{1, 2})),
                                {{"Out", 1}, {"Indices", 1}}),
                         doctest::Contains("X of dtype uint8 is not supported"), shape_error);
    CHECK_THROWS_WITH_AS(
        invoke("top_k", {},
               named_tensors{}.add("X", x).add(
                   "K", tensor::from<std::int32_t>({2}, std::vector<std::int32_t>{1, 2})),
               {{"Out", 1}, {"Indices", 1}}),
        doctest::Contains("K must hold one value, holds 2"), shape_error);
}

}  // namespace ops_top_k_test
