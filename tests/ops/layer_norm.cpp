// layer_norm against a plain-loop baseline: odd shapes, every begin_norm_axis
// (also negative), with and without Scale / Bias, several epsilons, the Mean
// and Variance outputs; bad shapes and axes are named.
#include <cmath>

#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_layer_norm_test {

namespace {
struct expected {
    std::vector<float> y, mean, var;
};

// Row by row over [left, right]: mean, biased variance, normalise, affine.
expected baseline(const tensor& x, std::size_t begin, const tensor* scale, const tensor* bias,
                  double eps) {
    std::size_t left = 1, right = 1;
    for (std::size_t d = 0; d < x.shape().size(); ++d)
        (d < begin ? left : right) *= static_cast<std::size_t>(x.shape()[d]);
    auto xs = x.span<float>();
    expected e;
    for (std::size_t r = 0; r < left; ++r) {
        double m = 0;
        for (std::size_t i = 0; i < right; ++i) m += xs[r * right + i];
        m = right ? m / double(right) : 0.0;  // an empty row: mean and variance 0
        double v = 0;
        for (std::size_t i = 0; i < right; ++i) {
            const double d = xs[r * right + i] - m;
            v += d * d;
        }
        v = right ? v / double(right) : 0.0;
        for (std::size_t i = 0; i < right; ++i) {
            double y = (xs[r * right + i] - m) / std::sqrt(v + eps);
            if (scale) y = y * scale->span<float>()[i];
            if (bias) y = y + bias->span<float>()[i];
            e.y.push_back(float(y));
        }
        e.mean.push_back(float(m));
        e.var.push_back(float(v));
    }
    return e;
}

std::int64_t tail(const shape_t& s, std::size_t begin) {
    std::int64_t n = 1;
    for (std::size_t d = begin; d < s.size(); ++d) n *= s[d];
    return n;
}
}  // namespace

TEST_CASE("layer_norm matches the baseline") {
    std::uint32_t seed = 1;
    for (const shape_t& s : {shape_t{5}, shape_t{3, 7}, shape_t{2, 5, 3}, shape_t{2, 3, 4, 5},
                             shape_t{1, 1, 120}, shape_t{0, 4}}) {
        const auto rank = static_cast<int>(s.size());
        for (int axis = -rank; axis < rank; ++axis) {
            const auto begin = static_cast<std::size_t>(axis < 0 ? axis + rank : axis);
            for (int affine = 0; affine < 4; ++affine) {
                for (float eps : {1e-5f, 1e-3f}) {
                    CAPTURE(to_string(s));
                    CAPTURE(axis);
                    CAPTURE(affine);
                    CAPTURE(eps);
                    // An offset and a spread, so that the mean and variance matter.
                    auto x = test::random_tensor(s, seed++, 2.f, 9.f);
                    const shape_t ps{tail(s, begin)};
                    auto scale = test::random_tensor(ps, seed++, 0.5f, 2.f);
                    auto bias = test::random_tensor(ps, seed++);
                    attr_map a;
                    a.set("begin_norm_axis", axis);
                    a.set("epsilon", eps);
                    named_tensors in;
                    in.add("X", x);
                    if (affine & 1) in.add("Scale", scale);
                    if (affine & 2) in.add("Bias", bias);
                    auto r = invoke("layer_norm", a, in, {{"Y", 1}, {"Mean", 1}, {"Variance", 1}});
                    auto e = baseline(x, begin, affine & 1 ? &scale : nullptr,
                                      affine & 2 ? &bias : nullptr, eps);
                    REQUIRE(r.get("Y").shape() == s);
                    const shape_t stat(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(begin));
                    CHECK(r.get("Mean").shape() == stat);
                    CHECK(r.get("Variance").shape() == stat);
                    CHECK(test::max_rel_diff(r.get("Y").span<float>(), e.y) <= 1e-5);
                    CHECK(test::max_rel_diff(r.get("Mean").span<float>(), e.mean) <= 1e-6);
                    CHECK(test::max_rel_diff(r.get("Variance").span<float>(), e.var) <= 1e-5);
                }
            }
        }
    }
}

TEST_CASE("layer_norm: Y alone, the default axis 1, a constant row is the bias") {
    // X [2, 3, 2] with begin_norm_axis 1 by default: rows of 6.  Row 1 is constant,
    // so its normalised values are 0 and Y is the bias.
    auto x = tensor::from<float>({2, 3, 2}, std::vector<float>{1, 2, 3, 4, 5, 6,  //
                                                               7, 7, 7, 7, 7, 7});
    auto bias = test::random_tensor({6}, 4);
    auto scale = test::random_tensor({6}, 5);
    auto r = invoke("layer_norm", {},
                    named_tensors{}.add("X", x).add("Scale", scale).add("Bias", bias), {{"Y", 1}});
    auto e = baseline(x, 1, &scale, &bias, 1e-5);
    CHECK(test::max_rel_diff(r.get("Y").span<float>(), e.y) <= 1e-5);
    for (std::size_t i = 0; i < 6; ++i)
        CHECK(r.get("Y").span<float>()[6 + i] == bias.span<float>()[i]);
}

TEST_CASE("layer_norm names bad input") {
    auto x = test::random_tensor({2, 3, 4}, 1);
    attr_map a;
    a.set("begin_norm_axis", 2);
    CHECK_THROWS_WITH_AS(
        invoke("layer_norm", a,
               named_tensors{}.add("X", x).add("Scale", test::random_tensor({3}, 2)), {{"Y", 1}}),
        doctest::Contains("Scale has shape [3] (3 values), the normalised dims hold 4"),
        shape_error);
    CHECK_THROWS_WITH_AS(
        invoke("layer_norm", a,
               named_tensors{}.add("X", x).add("Bias", test::random_tensor({12}, 2)), {{"Y", 1}}),
        doctest::Contains("Bias has shape [12]"), shape_error);
    a.set("begin_norm_axis", 3);
    CHECK_THROWS_WITH_AS(invoke("layer_norm", a, named_tensors{}.add("X", x), {{"Y", 1}}),
                         doctest::Contains("begin_norm_axis 3 is out of range for rank 3"),
                         shape_error);
    auto xi = tensor::from<std::int32_t>({2}, std::vector<std::int32_t>{1, 2});
    CHECK_THROWS_WITH_AS(invoke("layer_norm", {}, named_tensors{}.add("X", xi), {{"Y", 1}}),
                         doctest::Contains("X must be float32, got int32"), shape_error);
}

}  // namespace ops_layer_norm_test
