// nearest_interp_v2 / bilinear_interp_v2 against plain-loop baselines, and
// Paddle's output-size rules (scale list, out_h/out_w, OutSize, SizeTensor, Scale).
#include "litegraph/ops/nearest_interp_v2.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_nearest_interp_v2_test {

namespace {

struct interp_case {
    std::string type = "nearest_interp_v2";
    int out_h = -1, out_w = -1;
    std::vector<float> scale{};
    bool align_corners = false;
    int align_mode = 1;
};

attr_map attrs_of(const interp_case& c) {
    attr_map a;
    a.set("out_d", std::int32_t(-1));
    a.set("out_h", std::int32_t(c.out_h));
    a.set("out_w", std::int32_t(c.out_w));
    a.set("scale", c.scale);
    a.set("align_corners", c.align_corners);
    a.set("align_mode", std::int32_t(c.align_mode));
    a.set("data_layout", std::string("NCHW"));
    a.set("interp_method", std::string(c.type == "nearest_interp_v2" ? "nearest" : "bilinear"));
    return a;
}

tensor run(const interp_case& c, named_tensors in) {
    return invoke(c.type, attrs_of(c), in, {{"Out", 1}}).get("Out");
}

// Paddle's ratio for one axis: 1/scale if a scale decided the size, in/out
// otherwise, (in-1)/(out-1) with align_corners; 0 for a 1-wide output.
float ratio_of(bool align, std::int64_t in, std::int64_t out, float scale) {
    if (out <= 1) return 0.f;
    if (align) return float(in - 1) / float(out - 1);
    return scale > 0 ? float(1.0 / scale) : float(in) / float(out);
}

tensor nearest_baseline(const tensor& x, std::int64_t OH, std::int64_t OW, bool align, float sh,
                        float sw) {
    const auto N = x.shape()[0], C = x.shape()[1], H = x.shape()[2], W = x.shape()[3];
    tensor y(dtype::f32, {N, C, OH, OW});
    const float rh = ratio_of(align, H, OH, sh), rw = ratio_of(align, W, OW, sw);
    auto xs = x.span<float>();
    auto ys = y.span<float>();
    for (std::int64_t p = 0; p < N * C; ++p)
        for (std::int64_t k = 0; k < OH; ++k)
            for (std::int64_t l = 0; l < OW; ++l) {
                // nearest: truncate, or round half up with align_corners
                std::int64_t ik = align ? std::int64_t(rh * k + 0.5) : std::int64_t(rh * k);
                std::int64_t il = align ? std::int64_t(rw * l + 0.5) : std::int64_t(rw * l);
                ys[(p * OH + k) * OW + l] = xs[(p * H + ik) * W + il];
            }
    return y;
}

// Bilinear: source coordinate s = r*(o+0.5)-0.5 (half-pixel, align_mode 0) or
// r*o; blend the two neighbours floor(s), floor(s)+1 (clamped) by frac(s).
tensor bilinear_baseline(const tensor& x, std::int64_t OH, std::int64_t OW, bool align,
                         int align_mode) {
    const auto N = x.shape()[0], C = x.shape()[1], H = x.shape()[2], W = x.shape()[3];
    tensor y(dtype::f32, {N, C, OH, OW});
    const float rh = ratio_of(align, H, OH, -1), rw = ratio_of(align, W, OW, -1);
    const bool half = align_mode == 0 && !align;
    auto src = [&](float r, std::int64_t o) {
        double s = half ? r * (o + 0.5) - 0.5 : double(r) * o;
        return s < 0 ? 0.0 : s;
    };
    auto xs = x.span<float>();
    auto ys = y.span<float>();
    for (std::int64_t p = 0; p < N * C; ++p)
        for (std::int64_t k = 0; k < OH; ++k)
            for (std::int64_t l = 0; l < OW; ++l) {
                double sy = src(rh, k), sx = src(rw, l);
                auto y0 = std::int64_t(sy), x0 = std::int64_t(sx);
                auto y1 = std::min(y0 + 1, H - 1), x1 = std::min(x0 + 1, W - 1);
                double fy = sy - y0, fx = sx - x0;
                auto at = [&](std::int64_t i, std::int64_t j) {
                    return double(xs[(p * H + i) * W + j]);
                };
                ys[(p * OH + k) * OW + l] =
                    float(at(y0, x0) * (1 - fy) * (1 - fx) + at(y1, x0) * fy * (1 - fx) +
                          at(y0, x1) * (1 - fy) * fx + at(y1, x1) * fy * fx);
            }
    return y;
}

named_tensors with_x(const tensor& x) {
    named_tensors in;
    in.add("X", x);
    return in;
}

tensor ints32(std::vector<std::int32_t> v) {
    return tensor::from<std::int32_t>({std::int64_t(v.size())}, v);
}

}  // namespace

TEST_CASE("nearest_interp_v2: a two-value scale decides the size (PP-OCRv3 FPN)") {
    auto x = test::random_tensor({1, 3, 5, 6}, 41);
    for (float s : {2.f, 4.f, 8.f}) {
        auto y = run({.scale = {s, s}}, with_x(x));
        REQUIRE(y.shape() == shape_t{1, 3, std::int64_t(5 * s), std::int64_t(6 * s)});
        // Integer upsampling repeats each pixel s x s times.
        auto xs = x.span<const float>();
        auto ys = y.span<const float>();
        const auto OW = y.shape()[3];
        bool same = true;
        for (std::int64_t i = 0; i < y.numel(); ++i) {
            auto p = i / (y.shape()[2] * OW), k = i / OW % y.shape()[2], l = i % OW;
            same = same && ys[i] == xs[(p * 5 + k / std::int64_t(s)) * 6 + l / std::int64_t(s)];
        }
        CHECK(same);
    }
    // Non-integer scale: OH = int(H * scale); ratio 1/scale.
    auto y = run({.scale = {1.5f, 0.5f}}, with_x(x));
    auto expect = nearest_baseline(x, 7, 3, false, 1.5f, 0.5f);
    REQUIRE(y.shape() == expect.shape());
    CHECK(test::max_abs_diff(y.span<float>(), expect.span<float>()) == 0);
}

TEST_CASE("nearest_interp_v2: integer and mixed scales (repeated rows, repeated columns)") {
    // The fast forms (a repeated row copied, an integer width scale written
    // without an index table) against the plain loop, on odd shapes, with
    // the integer scale on one axis only and non-integer ones.
    struct scase {
        shape_t x;
        float sh, sw;
        bool align = false;
    };
    std::uint32_t seed = 51;
    for (const scase& c : {scase{{1, 3, 5, 7}, 2.f, 2.f}, scase{{2, 1, 3, 5}, 3.f, 3.f},
                           scase{{1, 2, 4, 3}, 2.f, 1.f}, scase{{1, 2, 3, 9}, 1.f, 2.f},
                           scase{{1, 1, 7, 5}, 2.5f, 2.f}, scase{{1, 2, 5, 7}, 2.f, 1.5f},
                           scase{{1, 1, 1, 1}, 4.f, 4.f}, scase{{1, 3, 6, 6}, 0.5f, 2.f},
                           scase{{1, 2, 5, 6}, 2.f, 2.f, true}}) {
        CAPTURE(to_string(c.x));
        CAPTURE(c.sh);
        CAPTURE(c.sw);
        CAPTURE(c.align);
        auto x = test::random_tensor(c.x, seed++);
        auto y = run({.scale = {c.sh, c.sw}, .align_corners = c.align}, with_x(x));
        const auto OH = std::int64_t(float(c.x[2]) * c.sh), OW = std::int64_t(float(c.x[3]) * c.sw);
        auto expect = nearest_baseline(x, OH, OW, c.align, c.sh, c.sw);
        REQUIRE(y.shape() == expect.shape());
        CHECK(test::max_abs_diff(y.span<float>(), expect.span<float>()) == 0);
    }
}

TEST_CASE("nearest_interp_v2: out_h/out_w, align_corners, and a one-element scale ignored") {
    auto x = test::random_tensor({2, 2, 4, 7}, 42);
    for (bool align : {false, true})
        for (auto hw : {std::pair{9, 5}, std::pair{3, 14}, std::pair{1, 1}}) {
            const int oh = hw.first, ow = hw.second;  // (clang 14 captures no binding)
            CAPTURE(align);
            CAPTURE(oh);
            CAPTURE(ow);
            auto y =
                run({.out_h = oh, .out_w = ow, .scale = {3.f}, .align_corners = align}, with_x(x));
            auto expect = nearest_baseline(x, oh, ow, align, -1, -1);
            REQUIRE(y.shape() == expect.shape());
            CHECK(test::max_abs_diff(y.span<float>(), expect.span<float>()) == 0);
        }
    // Same size: a copy.
    auto y = run({.out_h = 4, .out_w = 7}, with_x(x));
    CHECK(test::max_abs_diff(y.span<float>(), x.span<float>()) == 0);
}

TEST_CASE("nearest_interp_v2: size inputs OutSize, SizeTensor and Scale") {
    auto x = test::random_tensor({1, 2, 4, 5}, 43);
    // OutSize overrides out_h/out_w.
    auto in = with_x(x);
    in.add("OutSize", ints32({6, 3}));
    auto y = run({.out_h = 2, .out_w = 2}, in);
    auto expect = nearest_baseline(x, 6, 3, false, -1, -1);
    REQUIRE(y.shape() == expect.shape());
    CHECK(test::max_abs_diff(y.span<float>(), expect.span<float>()) == 0);
    // OutSize overrides the size from a scale, but the ratio stays 1/scale (Paddle).
    y = run({.scale = {2.f, 2.f}}, in);
    expect = nearest_baseline(x, 6, 3, false, 2.f, 2.f);
    REQUIRE(y.shape() == expect.shape());
    CHECK(test::max_abs_diff(y.span<float>(), expect.span<float>()) == 0);

    // SizeTensor (one int64 and one int32 tensor) comes first of all.
    auto in2 = with_x(x);
    in2.add("SizeTensor", tensor::from<std::int64_t>({1}, std::vector<std::int64_t>{7}));
    in2.add("SizeTensor", ints32({2}));
    in2.add("OutSize", ints32({6, 3}));
    y = run({.scale = {2.f, 2.f}}, in2);
    expect = nearest_baseline(x, 7, 2, false, -1, -1);
    REQUIRE(y.shape() == expect.shape());
    CHECK(test::max_abs_diff(y.span<float>(), expect.span<float>()) == 0);

    // A one-element Scale tensor scales both axes (unlike the attribute).
    auto in3 = with_x(x);
    in3.add("Scale", tensor::from<float>({1}, std::vector<float>{2.5f}));
    y = run({.out_h = 3, .out_w = 3}, in3);
    expect = nearest_baseline(x, 10, 12, false, 2.5f, 2.5f);
    REQUIRE(y.shape() == expect.shape());
    CHECK(test::max_abs_diff(y.span<float>(), expect.span<float>()) == 0);
}

TEST_CASE("bilinear_interp_v2 matches the baseline") {
    auto x = test::random_tensor({1, 3, 5, 6}, 44);
    for (bool align : {false, true})
        for (int mode : {0, 1})
            for (auto hw : {std::pair{10, 12}, std::pair{3, 4}, std::pair{7, 13}}) {
                const int oh = hw.first, ow = hw.second;
                CAPTURE(align);
                CAPTURE(mode);
                CAPTURE(oh);
                auto y = run({.type = "bilinear_interp_v2",
                              .out_h = oh,
                              .out_w = ow,
                              .align_corners = align,
                              .align_mode = mode},
                             with_x(x));
                auto expect = bilinear_baseline(x, oh, ow, align, mode);
                REQUIRE(y.shape() == expect.shape());
                CHECK(test::max_abs_diff(y.span<float>(), expect.span<float>()) < 1e-5);
            }
}

TEST_CASE("nearest_interp_v2 errors name the op") {
    auto x = test::random_tensor({1, 2, 4, 5}, 45);
    CHECK_THROWS_WITH_AS(run({.scale = {2.f}}, with_x(x)),
                         doctest::Contains("op nearest_interp_v2"), shape_error);
    auto in = with_x(x);
    in.add("OutSize", ints32({6, 3, 2}));
    CHECK_THROWS_WITH_AS(run({}, in), doctest::Contains("OutSize"), shape_error);
    auto x3 = test::random_tensor({1, 2, 4}, 45);
    CHECK_THROWS_AS(run({.out_h = 2, .out_w = 2}, with_x(x3)), unsupported_error);
    attr_map a = attrs_of({});
    a.set("interp_method", std::string("bicubic"));
    CHECK_THROWS_AS(make_instance("nearest_interp_v2", a), unsupported_error);
}

}  // namespace ops_nearest_interp_v2_test
