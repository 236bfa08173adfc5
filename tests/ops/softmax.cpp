#include "litegraph/ops/softmax.hpp"

#include <cmath>

#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace {
// Plain softmax in double along one axis (no max subtraction: inputs are small).
std::vector<float> baseline(const tensor& x, int axis) {
    const auto& s = x.shape();
    const int rank = static_cast<int>(s.size());
    const auto ax = static_cast<std::size_t>(axis < 0 ? axis + rank : axis);
    std::int64_t outer = 1, inner = 1;
    for (std::size_t i = 0; i < ax; ++i) outer *= s[i];
    for (std::size_t i = ax + 1; i < s.size(); ++i) inner *= s[i];
    const std::int64_t n = s[ax];
    auto xs = x.span<float>();
    std::vector<float> out(xs.size());
    for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t k = 0; k < inner; ++k) {
            double sum = 0;
            for (std::int64_t j = 0; j < n; ++j)
                sum += std::exp(double(xs[static_cast<std::size_t>((o * n + j) * inner + k)]));
            for (std::int64_t j = 0; j < n; ++j) {
                auto i = static_cast<std::size_t>((o * n + j) * inner + k);
                out[i] = static_cast<float>(std::exp(double(xs[i])) / sum);
            }
        }
    return out;
}
named_tensors run(const tensor& x, int axis) {
    attr_map a;
    a.set("axis", axis);
    return invoke("softmax", a, named_tensors{}.add("X", x), {{"Out", 1}});
}
}  // namespace

TEST_CASE("softmax matches the baseline over shapes and axes") {
    std::uint32_t seed = 11;
    for (const shape_t& s : {shape_t{5}, shape_t{3, 7}, shape_t{2, 3, 4}, shape_t{2, 3, 4, 5}})
        for (int axis = -static_cast<int>(s.size()); axis < static_cast<int>(s.size()); ++axis) {
            CAPTURE(to_string(s));
            CAPTURE(axis);
            auto x = test::random_tensor(s, seed++, -4.f, 4.f);
            auto out = run(x, axis).get("Out");
            REQUIRE(out.shape() == s);
            CHECK(test::max_abs_diff(out.span<float>(), baseline(x, axis)) < 1e-6);
        }
}

TEST_CASE("softmax is numerically stable and defaults to the last axis") {
    auto x = tensor::from<float>({2, 2}, std::vector<float>{1000.f, 1001.f, -1000.f, -1000.f});
    auto out = invoke("softmax", {}, named_tensors{}.add("X", x), {{"Out", 1}}).get("Out");
    auto o = out.span<float>();
    CHECK(o[0] == doctest::Approx(1 / (1 + std::exp(1.0))));
    CHECK(o[1] == doctest::Approx(1 / (1 + std::exp(-1.0))));
    CHECK(o[2] == doctest::Approx(0.5));
    CHECK(o[3] == doctest::Approx(0.5));
}

TEST_CASE("softmax names a bad axis") {
    CHECK_THROWS_WITH_AS(run(test::random_tensor({2, 3}, 1), 2), doctest::Contains("axis 2"),
                         shape_error);
}
