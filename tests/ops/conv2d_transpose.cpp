// conv2d_transpose against a plain-loop baseline over shapes and attributes.
#include "litegraph/ops/conv2d_transpose.hpp"

#include <cstring>
#include <string>
#include <vector>

#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_conv2d_transpose_test {

namespace {

using ints = std::vector<std::int32_t>;

struct tconv_case {
    shape_t x, w;
    ints strides{1, 1}, paddings{0, 0}, dilations{1, 1}, output_padding{}, output_size{};
    int groups = 1;
    std::string algorithm = "EXPLICIT";
    bool bias = false;
};

// The textbook scatter: each input pixel adds x * w[kh][kw] at
// (ih * s - pad_top + kh * d, iw * s - pad_left + kw * d) when that is inside.
tensor baseline(const tensor& x, const tensor& w, const float* bias, const tconv_case& c,
                std::int64_t OH, std::int64_t OW, int pt, int pl, int dh, int dw) {
    const auto N = x.shape()[0], C = x.shape()[1], H = x.shape()[2], W = x.shape()[3];
    const auto OCG = w.shape()[1], KH = w.shape()[2], KW = w.shape()[3];
    const auto OC = OCG * c.groups, CG = C / c.groups;
    const int sh = c.strides[0], sw = c.strides[1];
    std::vector<double> acc(N * OC * OH * OW, 0.0);
    auto xs = x.span<float>();
    auto ws = w.span<float>();
    for (std::int64_t n = 0; n < N; ++n)
        for (std::int64_t ci = 0; ci < C; ++ci)
            for (std::int64_t ih = 0; ih < H; ++ih)
                for (std::int64_t iw = 0; iw < W; ++iw)
                    for (std::int64_t o = 0; o < OCG; ++o)
                        for (std::int64_t i = 0; i < KH; ++i)
                            for (std::int64_t j = 0; j < KW; ++j) {
                                const auto oh = ih * sh - pt + i * dh;
                                const auto ow = iw * sw - pl + j * dw;
                                if (oh < 0 || oh >= OH || ow < 0 || ow >= OW) continue;
                                const auto oc = (ci / CG) * OCG + o;
                                acc[((n * OC + oc) * OH + oh) * OW + ow] +=
                                    double(xs[((n * C + ci) * H + ih) * W + iw]) *
                                    ws[((ci * OCG + o) * KH + i) * KW + j];
                            }
    tensor y(dtype::f32, {N, OC, OH, OW});
    auto ys = y.span<float>();
    for (std::size_t k = 0; k < ys.size(); ++k)
        ys[k] = float(acc[k] + (bias ? bias[(k / (OH * OW)) % OC] : 0.0));
    return y;
}

attr_map attrs_of(const tconv_case& c) {
    attr_map a;
    a.set("strides", c.strides);
    a.set("paddings", c.paddings);
    a.set("dilations", c.dilations);
    a.set("output_padding", c.output_padding);
    a.set("output_size", c.output_size);
    a.set("groups", std::int32_t(c.groups));
    a.set("padding_algorithm", c.algorithm);
    a.set("data_format", std::string("NCHW"));
    return a;
}

named_tensors inputs_of(const tconv_case& c, tensor& x, tensor& w, tensor& b) {
    x = test::random_tensor(c.x, 11);
    w = test::random_tensor(c.w, 12);
    named_tensors in;
    in.add("Input", x).add("Filter", w);
    if (c.bias) {
        b = test::random_tensor({c.w[1] * c.groups}, 13);
        in.add("Bias", b);
    }
    return in;
}

void check_case(const tconv_case& c, std::int64_t OH, std::int64_t OW, int pt, int pl, int dh,
                int dw) {
    CAPTURE(to_string(c.x));
    CAPTURE(to_string(c.w));
    tensor x, w, b;
    auto in = inputs_of(c, x, w, b);
    auto out = invoke("conv2d_transpose", attrs_of(c), in, {{"Output", 1}});
    auto expect =
        baseline(x, w, c.bias ? b.span<float>().data() : nullptr, c, OH, OW, pt, pl, dh, dw);
    const auto& y = out.get("Output");
    REQUIRE(y.shape() == expect.shape());
    CHECK(test::max_rel_diff(y.span<float>(), expect.span<float>()) < 1e-5);
}

// Output size per Paddle: (in - 1) * s - pads + d * (k - 1) + 1 (+ output_padding).
void check_explicit(const tconv_case& c) {
    int pt, pb, pl, pr;
    if (c.paddings.size() == 2)
        pt = pb = c.paddings[0], pl = pr = c.paddings[1];
    else
        pt = c.paddings[0], pb = c.paddings[1], pl = c.paddings[2], pr = c.paddings[3];
    std::int64_t OH = (c.x[2] - 1) * c.strides[0] - pt - pb + c.dilations[0] * (c.w[2] - 1) + 1;
    std::int64_t OW = (c.x[3] - 1) * c.strides[1] - pl - pr + c.dilations[1] * (c.w[3] - 1) + 1;
    if (!c.output_size.empty())
        OH = c.output_size[0], OW = c.output_size[1];
    else if (!c.output_padding.empty())
        OH += c.output_padding[0], OW += c.output_padding[1];
    check_case(c, OH, OW, pt, pl, c.dilations[0], c.dilations[1]);
}

}  // namespace

TEST_CASE("conv2d_transpose matches the baseline over shapes and attributes") {
    std::vector<tconv_case> cases = {
        // The PP-OCRv3 detector's upsampling: k2 s2 p0.
        {.x = {1, 4, 5, 6}, .w = {4, 3, 2, 2}, .strides = {2, 2}},
        {.x = {2, 3, 4, 4}, .w = {3, 2, 3, 3}, .paddings = {1, 1}},
        {.x = {1, 3, 4, 5},
         .w = {3, 2, 3, 3},
         .strides = {2, 2},
         .paddings = {1, 1},
         .output_padding = {1, 0}},
        {.x = {1, 2, 4, 5},
         .w = {2, 2, 3, 3},
         .strides = {2, 3},
         .paddings = {1, 1},
         .output_size = {8, 14}},
        {.x = {1, 2, 5, 4}, .w = {2, 3, 3, 2}, .strides = {1, 2}, .paddings = {0, 2, 1, 0}},
        {.x = {1, 2, 5, 5}, .w = {2, 2, 3, 3}, .paddings = {1, 1}, .dilations = {2, 2}},
        {.x = {2, 4, 3, 4}, .w = {4, 3, 3, 3}, .strides = {2, 2}, .groups = 2, .bias = true},
        {.x = {1, 3, 3, 3}, .w = {3, 1, 4, 4}, .strides = {2, 2}, .paddings = {1, 1}, .groups = 3},
    };
    for (auto& c : cases) check_explicit(c);
}

TEST_CASE("conv2d_transpose with disjoint windows (the SGEMM form) matches the baseline") {
    // Windows no wider than the stride: the SGEMM form (run_gemm), planes of
    // several SGEMM column blocks, groups, pads, output padding and sizes.
    std::vector<tconv_case> cases = {
        {.x = {1, 24, 40, 40}, .w = {24, 6, 2, 2}, .strides = {2, 2}, .bias = true},
        {.x = {2, 6, 7, 9}, .w = {6, 2, 2, 3}, .strides = {2, 3}, .groups = 3, .bias = true},
        {.x = {1, 5, 6, 6}, .w = {5, 3, 3, 3}, .strides = {3, 3}, .paddings = {1, 1}},
        {.x = {1, 4, 5, 5}, .w = {4, 3, 1, 1}, .output_padding = {0, 0}, .bias = true},
        {.x = {1, 3, 4, 5}, .w = {3, 2, 2, 2}, .strides = {3, 2}, .output_padding = {2, 1}},
        {.x = {1, 300, 3, 50}, .w = {300, 2, 2, 2}, .strides = {2, 2}},  // K over one block
    };
    for (auto& c : cases) check_explicit(c);
}

TEST_CASE("conv2d_transpose with windows that tile the output matches the baseline") {
    // Window == stride, no padding, one group (run_tiles): odd sizes, blocks
    // of several input rows and rows wider than an SGEMM column block, K over
    // one block, KW other than 2, a 1x1 window, bias or not.
    std::vector<tconv_case> cases = {
        {.x = {1, 24, 7, 9}, .w = {24, 6, 2, 2}, .strides = {2, 2}, .bias = true},
        {.x = {2, 5, 3, 11}, .w = {5, 1, 2, 2}, .strides = {2, 2}},
        {.x = {1, 3, 5, 4}, .w = {3, 2, 3, 2}, .strides = {3, 2}, .bias = true},
        {.x = {1, 300, 3, 7}, .w = {300, 2, 2, 2}, .strides = {2, 2}},
        {.x = {1, 4, 3, 600}, .w = {4, 2, 2, 2}, .strides = {2, 2}, .bias = true},
        {.x = {2, 3, 40, 30}, .w = {3, 3, 2, 2}, .strides = {2, 2}},
        {.x = {1, 3, 4, 5}, .w = {3, 2, 1, 1}, .bias = true},
        {.x = {1, 2, 3, 3}, .w = {2, 1, 2, 3}, .strides = {2, 3}},
    };
    for (auto& c : cases) check_explicit(c);
}

TEST_CASE("conv2d_transpose: tiling windows give the SGEMM scatter's bits") {
    // run_tiles and run_gemm compute the same SGEMM elements plus the bias.
    for (const tconv_case& c :
         {tconv_case{.x = {1, 24, 7, 9}, .w = {24, 6, 2, 2}, .strides = {2, 2}, .bias = true},
          tconv_case{.x = {2, 5, 13, 50}, .w = {5, 1, 2, 2}, .strides = {2, 2}},
          tconv_case{.x = {1, 3, 5, 4}, .w = {3, 2, 3, 2}, .strides = {3, 2}, .bias = true}}) {
        CAPTURE(to_string(c.x));
        CAPTURE(to_string(c.w));
        tensor x, w, b;
        inputs_of(c, x, w, b);
        using op = ops::conv2d_transpose;
        op::geometry g{};
        g.n = c.x[0], g.c = c.x[1], g.h = c.x[2], g.w = c.x[3];
        g.oc = c.w[1], g.kh = c.w[2], g.kw = c.w[3];
        g.sh = c.strides[0], g.sw = c.strides[1], g.dh = 1, g.dw = 1, g.pt = 0, g.pl = 0;
        g.oh = g.h * g.sh, g.ow = g.w * g.sw, g.groups = 1;
        REQUIRE(op::windows_tile(g));
        std::vector<std::int64_t> lo(g.kw, 0), hi(g.kw, g.w), off(g.kw);
        for (std::int64_t j = 0; j < g.kw; ++j) off[j] = j;
        const float* bias = c.bias ? b.span<float>().data() : nullptr;
        std::vector<float> tiles(std::size_t(g.n * g.oc * g.oh * g.ow), -1.f);
        std::vector<float> scatter(tiles.size(), -2.f);
        op::run_tiles(g, x.span<float>().data(), w.span<float>().data(), bias, tiles.data(),
                      nullptr);
        op::run_gemm(g, x.span<float>().data(), w.span<float>().data(), bias, scatter.data(),
                     nullptr, lo, hi, off);
        CHECK(std::memcmp(tiles.data(), scatter.data(), tiles.size() * sizeof(float)) == 0);
    }
}

TEST_CASE("conv2d_transpose gives the same bits on 1, 2 and 3 threads") {
    for (const tconv_case& c :
         {tconv_case{.x = {1, 24, 40, 40}, .w = {24, 6, 2, 2}, .strides = {2, 2}, .bias = true},
          tconv_case{.x = {1, 8, 30, 30}, .w = {8, 1, 2, 2}, .strides = {2, 2}},
          tconv_case{.x = {3, 4, 50, 20}, .w = {4, 3, 2, 2}, .strides = {2, 2}, .bias = true},
          tconv_case{
              .x = {2, 4, 9, 9}, .w = {4, 3, 3, 3}, .strides = {2, 2}, .paddings = {1, 1}}}) {
        CAPTURE(to_string(c.x));
        tensor x, w, b;
        auto in = inputs_of(c, x, w, b);
        std::vector<tensor> outs;
        for (unsigned t : {1u, 2u, 3u}) {
            thread_pool pool(t);
            op_instance_of<ops::conv2d_transpose> k(attrs_of(c), "conv2d_transpose");
            outs.push_back(invoke(k, "conv2d_transpose", in, {{"Output", 1}}, &pool).get("Output"));
        }
        for (std::size_t i = 1; i < outs.size(); ++i) {
            const auto a = outs[0].span<float>(), o = outs[i].span<float>();
            REQUIRE(a.size() == o.size());
            CHECK(std::memcmp(a.data(), o.data(), a.size() * sizeof(float)) == 0);
        }
    }
}

TEST_CASE("conv2d_transpose SAME computes pads from the input and resets dilation") {
    // in 5, s 2: out_same = 3, pad_sum = 2*2 + 3 - 5 = 2 -> 1,1; natural = 4*2 - 2 + 3 = 9.
    tconv_case same{.x = {1, 2, 5, 5},
                    .w = {2, 2, 3, 3},
                    .strides = {2, 2},
                    .paddings = {3, 3},
                    .dilations = {2, 2},
                    .algorithm = "SAME"};
    check_case(same, 9, 9, 1, 1, 1, 1);
}

TEST_CASE("conv2d_transpose shape errors name the op") {
    tconv_case bad{.x = {1, 3, 4, 4}, .w = {4, 2, 3, 3}};
    tensor x, w, b;
    auto in = inputs_of(bad, x, w, b);
    CHECK_THROWS_WITH_AS(invoke("conv2d_transpose", attrs_of(bad), in, {{"Output", 1}}),
                         doctest::Contains("op conv2d_transpose"), shape_error);
    CHECK_THROWS_WITH_AS(invoke("conv2d_transpose", attrs_of(bad), in, {{"Output", 1}}),
                         doctest::Contains("Input channels 3"), shape_error);

    tconv_case size{.x = {1, 2, 4, 4},
                    .w = {2, 2, 3, 3},
                    .strides = {2, 2},
                    .output_size = {12, 9}};  // natural 9: 12 is outside [9, 11)
    auto in2 = inputs_of(size, x, w, b);
    CHECK_THROWS_WITH_AS(invoke("conv2d_transpose", attrs_of(size), in2, {{"Output", 1}}),
                         doctest::Contains("output_size"), shape_error);
}

}  // namespace ops_conv2d_transpose_test
