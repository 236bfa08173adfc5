// pool2d against a plain-loop baseline: max/avg, exclusive or not, ceil_mode,
// global, adaptive, SAME/VALID, Paddle's top/left-only window clipping.
#include "litegraph/ops/pool2d.hpp"

#include <cfloat>
#include <string>
#include <vector>

#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_pool2d_test {

namespace {

using ints = std::vector<std::int32_t>;

struct pool_case {
    shape_t x;
    std::string type = "max";
    ints ksize{2, 2}, strides{2, 2}, paddings{0, 0};
    bool ceil_mode = false, exclusive = true, adaptive = false, global = false;
    std::string algorithm = "EXPLICIT";
};

attr_map attrs_of(const pool_case& c) {
    attr_map a;
    a.set("pooling_type", c.type);
    a.set("ksize", c.ksize);
    a.set("strides", c.strides);
    a.set("paddings", c.paddings);
    a.set("ceil_mode", c.ceil_mode);
    a.set("exclusive", c.exclusive);
    a.set("adaptive", c.adaptive);
    a.set("global_pooling", c.global);
    a.set("padding_algorithm", c.algorithm);
    a.set("data_format", std::string("NCHW"));
    return a;
}

// Window positions o*s - pad + i for i < k.  A position counts as "in the
// padded input" when it lies in [-pad_before, size + pad_before): Paddle clips
// with the leading pad on both ends.  Max and exclusive average use the
// positions inside the image.
tensor baseline(const tensor& x, const pool_case& c, std::int64_t OH, std::int64_t OW, int kh,
                int kw, int sh, int sw, int pt, int pl) {
    const auto N = x.shape()[0], C = x.shape()[1], H = x.shape()[2], W = x.shape()[3];
    tensor y(dtype::f32, {N, C, OH, OW});
    auto xs = x.span<float>();
    auto ys = y.span<float>();
    for (std::int64_t nc = 0; nc < N * C; ++nc)
        for (std::int64_t oh = 0; oh < OH; ++oh)
            for (std::int64_t ow = 0; ow < OW; ++ow) {
                double sum = 0, best = -FLT_MAX;
                int inside = 0, padded = 0;
                for (int i = 0; i < kh; ++i)
                    for (int j = 0; j < kw; ++j) {
                        const std::int64_t h = oh * sh - pt + i, w = ow * sw - pl + j;
                        if (h < H + pt && w < W + pl) ++padded;
                        if (h < 0 || h >= H || w < 0 || w >= W) continue;
                        ++inside;
                        const double v = xs[(nc * H + h) * W + w];
                        sum += v;
                        best = std::max(best, v);
                    }
                double r = c.type == "max" ? best : sum / (c.exclusive ? inside : padded);
                ys[(nc * OH + oh) * OW + ow] = float(r);
            }
    return y;
}

tensor adaptive_baseline(const tensor& x, const pool_case& c) {
    const auto N = x.shape()[0], C = x.shape()[1], H = x.shape()[2], W = x.shape()[3];
    const std::int64_t OH = c.ksize[0], OW = c.ksize[1];
    tensor y(dtype::f32, {N, C, OH, OW});
    auto xs = x.span<float>();
    auto ys = y.span<float>();
    for (std::int64_t nc = 0; nc < N * C; ++nc)
        for (std::int64_t oh = 0; oh < OH; ++oh)
            for (std::int64_t ow = 0; ow < OW; ++ow) {
                auto h0 = std::int64_t(std::floor(double(oh * H) / OH));
                auto h1 = std::int64_t(std::ceil(double((oh + 1) * H) / OH));
                auto w0 = std::int64_t(std::floor(double(ow * W) / OW));
                auto w1 = std::int64_t(std::ceil(double((ow + 1) * W) / OW));
                double sum = 0, best = -FLT_MAX;
                for (auto h = h0; h < h1; ++h)
                    for (auto w = w0; w < w1; ++w) {
                        sum += xs[(nc * H + h) * W + w];
                        best = std::max(best, double(xs[(nc * H + h) * W + w]));
                    }
                ys[(nc * OH + oh) * OW + ow] =
                    float(c.type == "max" ? best : sum / double((h1 - h0) * (w1 - w0)));
            }
    return y;
}

tensor run_pool(const pool_case& c, const tensor& x) {
    named_tensors in;
    in.add("X", x);
    return invoke("pool2d", attrs_of(c), in, {{"Out", 1}}).get("Out");
}

void check(const pool_case& c, const tensor& expect) {
    CAPTURE(to_string(c.x));
    CAPTURE(c.type);
    auto x = test::random_tensor(c.x, 21);
    auto y = run_pool(c, x);
    REQUIRE(y.shape() == expect.shape());
    CHECK(test::max_rel_diff(y.span<float>(), expect.span<float>()) < 1e-6);
}

void check_explicit(const pool_case& c) {
    int pt, pb, pl, pr;
    if (c.paddings.size() == 2)
        pt = pb = c.paddings[0], pl = pr = c.paddings[1];
    else
        pt = c.paddings[0], pb = c.paddings[1], pl = c.paddings[2], pr = c.paddings[3];
    const int kh = c.ksize[0], kw = c.ksize[1], sh = c.strides[0], sw = c.strides[1];
    const int up_h = c.ceil_mode ? sh - 1 : 0, up_w = c.ceil_mode ? sw - 1 : 0;
    // C-style (truncating) division, as Paddle does.
    const std::int64_t OH = (c.x[2] - kh + pt + pb + up_h) / sh + 1;
    const std::int64_t OW = (c.x[3] - kw + pl + pr + up_w) / sw + 1;
    auto x = test::random_tensor(c.x, 21);
    CAPTURE(to_string(c.x));
    CAPTURE(c.type);
    auto y = run_pool(c, x);
    auto expect = baseline(x, c, OH, OW, kh, kw, sh, sw, pt, pl);
    REQUIRE(y.shape() == expect.shape());
    CHECK(test::max_rel_diff(y.span<float>(), expect.span<float>()) < 1e-6);
}

}  // namespace

TEST_CASE("pool2d matches the baseline over shapes and attributes") {
    std::vector<pool_case> cases = {
        {.x = {2, 3, 8, 8}},   // LeNet
        {.x = {1, 2, 1, 10}},  // height 1, 2x2/2: truncation gives 1 row (PP-OCR cls)
        {.x = {1, 2, 7, 9}, .ksize = {3, 3}, .strides = {2, 2}, .ceil_mode = true},
        {.x = {1, 2, 7, 8}, .type = "avg", .ksize = {3, 3}, .strides = {1, 1}, .paddings = {1, 1}},
        {.x = {1, 2, 7, 8},
         .type = "avg",
         .ksize = {3, 3},
         .strides = {1, 1},
         .paddings = {1, 1},
         .exclusive = false},
        // Asymmetric pads: windows clip with the top/left pad on both ends.
        {.x = {1, 2, 9, 7},
         .type = "avg",
         .ksize = {3, 3},
         .strides = {2, 2},
         .paddings = {0, 2, 1, 2},
         .exclusive = false},
        {.x = {1, 2, 9, 7},
         .type = "avg",
         .ksize = {3, 3},
         .strides = {2, 2},
         .paddings = {2, 0, 1, 2},
         .exclusive = false},
        {.x = {1, 2, 9, 7},
         .type = "max",
         .ksize = {3, 2},
         .strides = {2, 1},
         .paddings = {1, 2, 0, 1}},
        {.x = {1, 3, 6, 7},
         .type = "avg",
         .ksize = {2, 3},
         .strides = {2, 2},
         .paddings = {1, 1},
         .ceil_mode = true,
         .exclusive = false},
    };
    for (auto& c : cases) check_explicit(c);
}

TEST_CASE("pool2d global and adaptive pooling") {
    for (const char* type : {"max", "avg"}) {
        pool_case g{.x = {2, 3, 5, 6},
                    .type = type,
                    .ksize = {1, 1},
                    .strides = {1, 1},
                    .paddings = {1, 1},
                    .global = true};
        auto x = test::random_tensor(g.x, 21);
        pool_case as_window{.x = g.x, .type = type, .ksize = {5, 6}, .strides = {1, 1}};
        check(g, baseline(x, as_window, 1, 1, 5, 6, 1, 1, 0, 0));

        // PP-OCR's SE blocks: adaptive avg to 1x1.
        pool_case a1{
            .x = {1, 4, 7, 5}, .type = type, .ksize = {1, 1}, .strides = {1, 1}, .adaptive = true};
        check(a1, adaptive_baseline(x = test::random_tensor(a1.x, 21), a1));
        pool_case a2{
            .x = {2, 3, 7, 5}, .type = type, .ksize = {3, 2}, .paddings = {1, 1}, .adaptive = true};
        check(a2, adaptive_baseline(x = test::random_tensor(a2.x, 21), a2));
    }
}

TEST_CASE("pool2d SAME and VALID padding") {
    // SAME, in 7, k 3, s 2: out 4, pad_sum = 3*2+3-7 = 2 -> 1,1; in 8: pad_sum 1 -> 0,1.
    pool_case same{.x = {1, 2, 7, 8},
                   .type = "avg",
                   .ksize = {3, 3},
                   .paddings = {4, 4},
                   .exclusive = false,
                   .algorithm = "SAME"};
    auto x = test::random_tensor(same.x, 21);
    check(same, baseline(x, same, 4, 4, 3, 3, 2, 2, 1, 0));
    pool_case valid{.x = {1, 2, 7, 8}, .ksize = {3, 3}, .paddings = {2, 2}, .algorithm = "VALID"};
    check(valid, baseline(x, valid, 3, 3, 3, 3, 2, 2, 0, 0));
}

TEST_CASE("pool2d shape errors name the op") {
    pool_case rank3{.x = {2, 8, 8}};
    CHECK_THROWS_WITH_AS(run_pool(rank3, test::random_tensor(rank3.x, 1)),
                         doctest::Contains("op pool2d"), shape_error);
    pool_case k1{.x = {1, 1, 8, 8}, .ksize = {2}};
    CHECK_THROWS_WITH_AS(run_pool(k1, test::random_tensor(k1.x, 1)), doctest::Contains("ksize"),
                         shape_error);
    pool_case big{.x = {1, 1, 2, 2}, .ksize = {5, 5}, .strides = {1, 1}};
    CHECK_THROWS_AS(run_pool(big, test::random_tensor(big.x, 1)), shape_error);
    pool_case lp{.x = {1, 1, 4, 4}, .type = "lp"};
    CHECK_THROWS_AS(run_pool(lp, test::random_tensor(lp.x, 1)), unsupported_error);
}

}  // namespace ops_pool2d_test
