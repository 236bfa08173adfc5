// sequence_pool against a plain loop over the sequences: every pooltype, with
// empty and one-row sequences, pad_value, MaxIndex; a two-level LoD drops its
// last level; a missing or wrong LoD and unknown pooltypes are named.
#include <cmath>

#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_sequence_pool_test {

namespace {
attr_map attrs(const std::string& type, float pad = 0.f, bool is_test = true) {
    attr_map a;
    a.set("pooltype", type);
    a.set("pad_value", pad);
    a.set("is_test", is_test);
    return a;
}

std::vector<float> baseline(const std::string& type, const tensor& x,
                            const std::vector<std::int64_t>& off, float pad) {
    std::int64_t d = 1;
    for (std::size_t i = 1; i < x.shape().size(); ++i) d *= x.shape()[i];
    const auto X = x.span<float>();
    std::vector<float> out;
    for (std::size_t s = 0; s + 1 < off.size(); ++s) {
        const auto len = off[s + 1] - off[s];
        for (std::int64_t k = 0; k < d; ++k) {
            auto at = [&](std::int64_t t) {
                return X[static_cast<std::size_t>((off[s] + t) * d + k)];
            };
            if (len == 0) {
                out.push_back(pad);
                continue;
            }
            double acc = 0;
            for (std::int64_t t = 0; t < len; ++t) acc += at(t);
            float v = 0;
            if (type == "SUM") v = static_cast<float>(acc);
            if (type == "AVERAGE") v = static_cast<float>(acc / double(len));
            if (type == "SQRT") v = static_cast<float>(acc / std::sqrt(double(len)));
            if (type == "FIRST") v = at(0);
            if (type == "LAST") v = at(len - 1);
            if (type == "MAX") {
                v = at(0);
                for (std::int64_t t = 1; t < len; ++t) v = std::max(v, at(t));
            }
            out.push_back(v);
        }
    }
    return out;
}
}  // namespace

TEST_CASE("sequence_pool matches the baseline for every pooltype") {
    const std::vector<std::vector<std::int64_t>> lods{
        {0, 3, 3, 4, 9}, {0, 1}, {0, 0, 2}, {0, 5}, {0, 0}};
    for (const char* type : {"AVERAGE", "SUM", "SQRT", "MAX", "LAST", "FIRST"})
        for (const auto& off : lods)
            for (const shape_t& tail : {shape_t{3}, shape_t{2, 2}}) {
                CAPTURE(type);
                CAPTURE(lod_to_string({off}));
                shape_t s{off.back()};
                s.insert(s.end(), tail.begin(), tail.end());
                auto x = test::random_tensor(s, 17);
                x.set_lod({off});
                auto r = invoke("sequence_pool", attrs(type, 0.5f), named_tensors{}.add("X", x),
                                {{"Out", 1}, {"MaxIndex", 1}});
                const auto& out = r.get("Out");
                shape_t expect_shape{static_cast<std::int64_t>(off.size()) - 1};
                expect_shape.insert(expect_shape.end(), tail.begin(), tail.end());
                CHECK(out.shape() == expect_shape);
                CHECK(out.lod().empty());
                CHECK(test::max_rel_diff(out.span<float>(), baseline(type, x, off, 0.5f)) < 1e-6);
            }
}

TEST_CASE("sequence_pool MAX fills MaxIndex with rows of X (first max on ties) unless is_test") {
    auto x = tensor::from<float>({5, 2}, std::vector<float>{1, 7, 3, 7, 3, 0, 9, 9, 2, 1});
    x.set_lod({{0, 3, 3, 5}});
    auto r = invoke("sequence_pool", attrs("MAX", -1.f, false), named_tensors{}.add("X", x),
                    {{"Out", 1}, {"MaxIndex", 1}});
    CHECK(test::max_abs_diff(r.get("Out").span<float>(), std::vector<float>{3, 7, -1, -1, 9, 9}) ==
          0);
    auto idx = r.get("MaxIndex").span<std::int32_t>();
    CHECK(std::vector<std::int32_t>(idx.begin(), idx.end()) ==
          std::vector<std::int32_t>{1, 0, -1, -1, 3, 3});
}

TEST_CASE("sequence_pool on a two-level LoD pools the last level and keeps the first") {
    auto x = test::random_tensor({6, 2}, 3);
    x.set_lod({{0, 2, 3}, {0, 1, 4, 6}});
    auto r = invoke("sequence_pool", attrs("SUM"), named_tensors{}.add("X", x), {{"Out", 1}});
    CHECK(r.get("Out").shape() == shape_t{3, 2});
    CHECK(r.get("Out").lod() == lod_t{{0, 2, 3}});
    CHECK(test::max_rel_diff(r.get("Out").span<float>(), baseline("SUM", x, {0, 1, 4, 6}, 0)) <
          1e-6);
}

TEST_CASE("sequence_pool names a missing or wrong LoD and an unknown pooltype") {
    auto x = test::random_tensor({4, 2}, 3);
    CHECK_THROWS_WITH_AS(
        invoke("sequence_pool", attrs("SUM"), named_tensors{}.add("X", x), {{"Out", 1}}),
        doctest::Contains("has no LoD"), shape_error);
    CHECK_THROWS_WITH_AS(
        invoke("sequence_pool", attrs("MEDIAN"), named_tensors{}.add("X", x), {{"Out", 1}}),
        doctest::Contains("pooltype 'MEDIAN' is not supported"), unsupported_error);
    CHECK_THROWS_WITH_AS(x.set_lod({{0, 2, 5}}),
                         doctest::Contains("ends at 5 but the tensor has 4 rows"), shape_error);
    CHECK_THROWS_WITH_AS(x.set_lod({{0, 3, 2, 4}}), doctest::Contains("decreases"), shape_error);
    CHECK_THROWS_WITH_AS(x.set_lod({{1, 4}}), doctest::Contains("must start at 0"), shape_error);
    auto deep = test::random_tensor({4, 2}, 3);
    deep.set_lod({{0, 1}, {0, 2}, {0, 1, 4}});
    CHECK_THROWS_WITH_AS(
        invoke("sequence_pool", attrs("SUM"), named_tensors{}.add("X", deep), {{"Out", 1}}),
        doctest::Contains("at most 2"), shape_error);
    CHECK_THROWS_WITH_AS(x.set_lod({{0, 1, 2}, {0, 4}}), doctest::Contains("level 1 has 1 entries"),
                         shape_error);
}

}  // namespace ops_sequence_pool_test
