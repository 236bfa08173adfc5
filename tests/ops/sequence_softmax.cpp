// sequence_softmax against a loop written here (exp(x) / sum exp(x) in
// double per sequence): [N] and [N, 1] inputs, LoDs with empty and
// one-row sequences, two-level LoDs (the last level counts), float64, and
// large inputs that stay finite; bad shapes and a missing LoD are named.
#include <cmath>

#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_sequence_softmax_test {

TEST_CASE("sequence_softmax matches the baseline") {
    const std::vector<lod_t> lods{{{0, 3, 3, 4, 9}}, {{0, 1}}, {{0, 0}}, {{0, 2, 3}, {0, 2, 2, 6}}};
    std::uint32_t seed = 1;
    for (const auto& lod : lods)
        for (bool flat : {true, false}) {
            CAPTURE(lod_to_string(lod));
            const auto rows = lod.back().back();
            auto x = flat ? test::random_tensor({rows}, seed++, -3.f, 3.f)
                          : test::random_tensor({rows, 1}, seed++, -3.f, 3.f);
            x.set_lod(lod);
            auto r = invoke("sequence_softmax", {}, named_tensors{}.add("X", x), {{"Out", 1}});
            CHECK(r.get("Out").shape() == x.shape());
            CHECK(r.get("Out").lod() == lod);
            std::vector<float> expect(static_cast<std::size_t>(rows));
            const auto& off = lod.back();
            for (std::size_t s = 0; s + 1 < off.size(); ++s) {
                double sum = 0;
                for (auto i = off[s]; i < off[s + 1]; ++i)
                    sum += std::exp(double(x.span<float>()[static_cast<std::size_t>(i)]));
                for (auto i = off[s]; i < off[s + 1]; ++i)
                    expect[static_cast<std::size_t>(i)] =
                        float(std::exp(double(x.span<float>()[static_cast<std::size_t>(i)])) / sum);
            }
            CHECK(test::max_abs_diff(r.get("Out").span<float>(), expect) < 1e-6);
        }
}

TEST_CASE("sequence_softmax in float64 and with large inputs") {
    tensor x(dtype::f64, {4});
    const double v[] = {1000.0, 1000.0, -5.0, 7.0};
    for (int i = 0; i < 4; ++i) x.span<double>()[static_cast<std::size_t>(i)] = v[i];
    x.set_lod({{0, 2, 4}});
    auto r = invoke("sequence_softmax", {}, named_tensors{}.add("X", x), {{"Out", 1}});
    auto o = r.get("Out").span<double>();
    CHECK(o[0] == doctest::Approx(0.5));
    CHECK(o[1] == doctest::Approx(0.5));
    CHECK(o[2] == doctest::Approx(std::exp(-5.0) / (std::exp(-5.0) + std::exp(7.0))));
    CHECK(o[3] == doctest::Approx(std::exp(7.0) / (std::exp(-5.0) + std::exp(7.0))));
}

TEST_CASE("sequence_softmax names bad inputs") {
    auto x = test::random_tensor({4, 2}, 1);
    x.set_lod({{0, 4}});
    CHECK_THROWS_WITH_AS(invoke("sequence_softmax", {}, named_tensors{}.add("X", x), {{"Out", 1}}),
                         doctest::Contains("X must be [N] or [N, 1]"), shape_error);
    auto y = test::random_tensor({4, 1}, 1);
    CHECK_THROWS_WITH_AS(invoke("sequence_softmax", {}, named_tensors{}.add("X", y), {{"Out", 1}}),
                         doctest::Contains("has no LoD"), shape_error);
    tensor i(dtype::i32, {4, 1});
    i.set_lod({{0, 4}});
    CHECK_THROWS_WITH_AS(invoke("sequence_softmax", {}, named_tensors{}.add("X", i), {{"Out", 1}}),
                         doctest::Contains("X must be float32 or float64"), shape_error);
}

}  // namespace ops_sequence_softmax_test
