// The v1 ops nearest_interp / bilinear_interp against plain-loop baselines:
// the size from out_h/out_w, the float `scale` attribute, the Scale input,
// OutSize and SizeTensor (in Paddle's order of precedence); the sampling
// ratio is in/out (or (in-1)/(out-1) with align_corners, v1's default) even
// when a scale decided the size, unlike v2.
#include <cmath>
#include <string>
#include <vector>

#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_interp_v1_test {

namespace {
float ratio(bool align, std::int64_t in, std::int64_t out) {
    if (out <= 1) return 0.f;
    return align ? float(in - 1) / float(out - 1) : float(in) / float(out);
}

std::vector<float> nearest(const tensor& x, std::int64_t OH, std::int64_t OW, bool align) {
    const auto P = x.shape()[0] * x.shape()[1], H = x.shape()[2], W = x.shape()[3];
    const float rh = ratio(align, H, OH), rw = ratio(align, W, OW);
    std::vector<float> y;
    for (std::int64_t p = 0; p < P; ++p)
        for (std::int64_t k = 0; k < OH; ++k)
            for (std::int64_t l = 0; l < OW; ++l) {
                auto ik = align ? std::int64_t(rh * k + 0.5) : std::int64_t(rh * k);
                auto il = align ? std::int64_t(rw * l + 0.5) : std::int64_t(rw * l);
                y.push_back(
                    x.span<float>()[(p * H + std::min(ik, H - 1)) * W + std::min(il, W - 1)]);
            }
    return y;
}

std::vector<float> bilinear(const tensor& x, std::int64_t OH, std::int64_t OW, bool align,
                            int align_mode) {
    const auto P = x.shape()[0] * x.shape()[1], H = x.shape()[2], W = x.shape()[3];
    const float rh = ratio(align, H, OH), rw = ratio(align, W, OW);
    const bool half = align_mode == 0 && !align;
    auto src = [&](float r, std::int64_t o) {
        double s = half ? r * (o + 0.5) - 0.5 : double(r) * o;
        return s < 0 ? 0.0 : s;
    };
    std::vector<float> y;
    for (std::int64_t p = 0; p < P; ++p)
        for (std::int64_t k = 0; k < OH; ++k)
            for (std::int64_t l = 0; l < OW; ++l) {
                double sy = src(rh, k), sx = src(rw, l);
                auto y0 = std::int64_t(sy), x0 = std::int64_t(sx);
                auto y1 = std::min(y0 + 1, H - 1), x1 = std::min(x0 + 1, W - 1);
                double fy = sy - y0, fx = sx - x0;
                auto at = [&](std::int64_t i, std::int64_t j) {
                    return double(x.span<float>()[(p * H + i) * W + j]);
                };
                y.push_back(float(at(y0, x0) * (1 - fy) * (1 - fx) + at(y1, x0) * fy * (1 - fx) +
                                  at(y0, x1) * (1 - fy) * fx + at(y1, x1) * fy * fx));
            }
    return y;
}

struct size_case {
    const char* what;
    attr_map attrs;
    named_tensors extra;
    std::int64_t oh, ow;
};
}  // namespace

TEST_CASE("v1 interp: the output size rules and in/out sampling") {
    auto x = test::random_tensor({2, 3, 5, 6}, 11);
    std::vector<size_case> cases;
    {
        attr_map a;
        a.set("out_h", 7);
        a.set("out_w", 4);
        cases.push_back({"out_h/out_w", a, {}, 7, 4});
    }
    {
        attr_map a;
        a.set("out_h", 7);
        a.set("out_w", 4);
        a.set("scale", 1.5f);  // the scale wins over out_h/out_w: int(5*1.5), int(6*1.5)
        cases.push_back({"scale attribute", a, {}, 7, 9});
    }
    {
        attr_map a;
        a.set("scale", 1.5f);
        named_tensors e;
        e.add("Scale", tensor::from<float>({1}, std::vector<float>{0.5f}));  // the input wins
        cases.push_back({"Scale input", a, e, 2, 3});
    }
    {
        attr_map a;
        a.set("scale", 2.f);
        named_tensors e;
        e.add("OutSize", tensor::from<std::int32_t>({2}, std::vector<std::int32_t>{3, 8}));
        cases.push_back({"OutSize over scale", a, e, 3, 8});
    }
    {
        attr_map a;
        a.set("scale", 2.f);
        named_tensors e;
        e.add("OutSize", tensor::from<std::int32_t>({2}, std::vector<std::int32_t>{3, 8}));
        e.add("SizeTensor", tensor::from<std::int32_t>({1}, std::vector<std::int32_t>{4}));
        e.add("SizeTensor", tensor::from<std::int64_t>({1}, std::vector<std::int64_t>{1}));
        cases.push_back({"SizeTensor over all", a, e, 4, 1});
    }
    {
        attr_map a;
        a.set("out_h", 5);
        a.set("out_w", 6);
        cases.push_back({"same size", a, {}, 5, 6});
    }
    for (const auto& c : cases)
        for (const char* type : {"nearest_interp", "bilinear_interp"})
            for (int align : {-1, 0, 1})  // -1: the default (align_corners true)
                for (int mode : {0, 1}) {
                    CAPTURE(c.what);
                    CAPTURE(type);
                    CAPTURE(align);
                    CAPTURE(mode);
                    attr_map a = c.attrs;
                    if (align >= 0) a.set("align_corners", align == 1);
                    a.set("align_mode", mode);
                    named_tensors in = c.extra;
                    in.add("X", x);
                    auto y = invoke(type, a, in, {{"Out", 1}}).get("Out");
                    REQUIRE(y.shape() == shape_t{2, 3, c.oh, c.ow});
                    const bool ac = align != 0;
                    auto expect = std::string(type) == "nearest_interp"
                                      ? nearest(x, c.oh, c.ow, ac)
                                      : bilinear(x, c.oh, c.ow, ac, mode);
                    CHECK(test::max_abs_diff(y.span<float>(), expect) < 1e-5);
                }
}

TEST_CASE("v1 and v2 differ in the ratio when a scale decides the size") {
    auto x = test::random_tensor({1, 1, 5, 5}, 3);
    attr_map v1;
    v1.set("scale", 1.5f);
    v1.set("align_corners", false);
    attr_map v2;
    v2.set("scale", std::vector<float>{1.5f, 1.5f});
    v2.set("align_corners", false);
    auto a = invoke("nearest_interp", v1, named_tensors{}.add("X", x), {{"Out", 1}}).get("Out");
    auto b = invoke("nearest_interp_v2", v2, named_tensors{}.add("X", x), {{"Out", 1}}).get("Out");
    REQUIRE(a.shape() == shape_t{1, 1, 7, 7});
    REQUIRE(b.shape() == shape_t{1, 1, 7, 7});
    // v1 samples at 5/7, v2 at 1/1.5: output column 4 reads input 2 against 2.
    // Column 6: int(6 * 5/7) = 4 against int(6 / 1.5) = 4; column 5: 3 against 3;
    // row/col 3: int(3 * 5/7) = 2 against int(3/1.5) = 2; col 1: 0 against 0.
    CHECK(test::max_abs_diff(a.span<float>(), nearest(x, 7, 7, false)) == 0);
    auto bil1 = invoke("bilinear_interp", v1, named_tensors{}.add("X", x), {{"Out", 1}}).get("Out");
    auto bil2 =
        invoke("bilinear_interp_v2", v2, named_tensors{}.add("X", x), {{"Out", 1}}).get("Out");
    CHECK(test::max_abs_diff(bil1.span<float>(), bilinear(x, 7, 7, false, 1)) < 1e-5);
    CHECK(test::max_abs_diff(bil1.span<float>(), bil2.span<float>()) > 1e-3);
}

TEST_CASE("v1 interp names bad input") {
    auto x = test::random_tensor({1, 1, 4, 4}, 1);
    CHECK_THROWS_WITH_AS(invoke("bilinear_interp", {}, named_tensors{}.add("X", x), {{"Out", 1}}),
                         doctest::Contains("output size [-1, -1] must be positive"), shape_error);
    attr_map a;
    a.set("interp_method", std::string("bicubic"));
    CHECK_THROWS_WITH_AS(invoke("nearest_interp", a, named_tensors{}.add("X", x), {{"Out", 1}}),
                         doctest::Contains("interp_method 'bicubic' is not supported"),
                         unsupported_error);
    attr_map b;
    b.set("data_layout", std::string("NHWC"));
    CHECK_THROWS_WITH_AS(invoke("nearest_interp", b, named_tensors{}.add("X", x), {{"Out", 1}}),
                         doctest::Contains("data_layout 'NHWC' is not supported"),
                         unsupported_error);
}

}  // namespace ops_interp_v1_test
