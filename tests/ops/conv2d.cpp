// conv2d / depthwise_conv2d against a plain-loop baseline over shapes and attributes.
#include "litegraph/ops/conv2d.hpp"

#include <string>
#include <vector>

#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_conv2d_test {

namespace {

using ints = std::vector<std::int32_t>;

struct conv_case {
    std::string type = "conv2d";
    shape_t x, w;
    ints strides{1, 1}, paddings{0, 0}, dilations{1, 1};
    int groups = 1;
    std::string algorithm = "EXPLICIT";
    bool bias = false;
};

// The textbook definition: out[n][oc][oh][ow] = sum over the group's input
// channels and the window of x (zero outside) * w, with pads [t, b, l, r].
tensor baseline(const tensor& x, const tensor& w, const float* bias, int sh, int sw, int pt, int pb,
                int pl, int pr, int dh, int dw, int groups) {
    const auto N = x.shape()[0], C = x.shape()[1], H = x.shape()[2], W = x.shape()[3];
    const auto OC = w.shape()[0], CG = w.shape()[1], KH = w.shape()[2], KW = w.shape()[3];
    // C-style division, as Paddle does.
    const std::int64_t OH = (H + pt + pb - (dh * (KH - 1) + 1)) / sh + 1;
    const std::int64_t OW = (W + pl + pr - (dw * (KW - 1) + 1)) / sw + 1;
    tensor y(dtype::f32, {N, OC, OH, OW});
    auto xs = x.span<float>();
    auto ws = w.span<float>();
    auto ys = y.span<float>();
    const auto OCG = OC / groups;
    for (std::int64_t n = 0; n < N; ++n)
        for (std::int64_t oc = 0; oc < OC; ++oc)
            for (std::int64_t oh = 0; oh < OH; ++oh)
                for (std::int64_t ow = 0; ow < OW; ++ow) {
                    double acc = bias ? bias[oc] : 0.0;
                    const auto g = oc / OCG;
                    for (std::int64_t ic = 0; ic < CG; ++ic)
                        for (std::int64_t i = 0; i < KH; ++i)
                            for (std::int64_t j = 0; j < KW; ++j) {
                                const auto ih = oh * sh - pt + i * dh;
                                const auto iw = ow * sw - pl + j * dw;
                                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                                const auto c = g * CG + ic;
                                acc += double(xs[((n * C + c) * H + ih) * W + iw]) *
                                       ws[((oc * CG + ic) * KH + i) * KW + j];
                            }
                    ys[((n * OC + oc) * OH + oh) * OW + ow] = float(acc);
                }
    (void)C;
    return y;
}

attr_map attrs_of(const conv_case& c) {
    attr_map a;
    a.set("strides", c.strides);
    a.set("paddings", c.paddings);
    a.set("dilations", c.dilations);
    a.set("groups", std::int32_t(c.groups));
    a.set("padding_algorithm", c.algorithm);
    a.set("data_format", std::string("NCHW"));
    return a;
}

named_tensors inputs_of(const conv_case& c, tensor& x, tensor& w, tensor& b) {
    x = test::random_tensor(c.x, 1);
    w = test::random_tensor(c.w, 2);
    named_tensors in;
    in.add("Input", x).add("Filter", w);
    if (c.bias) {
        b = test::random_tensor({c.w[0]}, 3);
        in.add("Bias", b);
    }
    return in;
}

void check_case(const conv_case& c, int pt, int pb, int pl, int pr, int dh, int dw) {
    CAPTURE(c.type);
    CAPTURE(to_string(c.x));
    CAPTURE(to_string(c.w));
    tensor x, w, b;
    auto in = inputs_of(c, x, w, b);
    auto out = invoke(c.type, attrs_of(c), in, {{"Output", 1}});
    auto expect = baseline(x, w, c.bias ? b.span<float>().data() : nullptr, c.strides[0],
                           c.strides[1], pt, pb, pl, pr, dh, dw, c.groups);
    const auto& y = out.get("Output");
    REQUIRE(y.shape() == expect.shape());
    CHECK(test::max_rel_diff(y.span<float>(), expect.span<float>()) < 1e-5);
}

void check_explicit(const conv_case& c) {
    int pt, pb, pl, pr;
    if (c.paddings.size() == 2)
        pt = pb = c.paddings[0], pl = pr = c.paddings[1];
    else
        pt = c.paddings[0], pb = c.paddings[1], pl = c.paddings[2], pr = c.paddings[3];
    check_case(c, pt, pb, pl, pr, c.dilations[0], c.dilations[1]);
}

}  // namespace

TEST_CASE("conv2d matches the baseline over shapes and attributes") {
    std::vector<conv_case> cases = {
        {.x = {1, 3, 7, 9}, .w = {4, 3, 3, 3}, .paddings = {1, 1}},
        {.x = {2, 3, 8, 8}, .w = {5, 3, 3, 3}, .strides = {2, 2}, .paddings = {1, 1}},
        {.x = {1, 2, 9, 7}, .w = {3, 2, 3, 2}, .strides = {2, 1}, .paddings = {0, 2, 1, 0}},
        {.x = {1, 2, 10, 11}, .w = {2, 2, 3, 3}, .paddings = {2, 2}, .dilations = {2, 2}},
        {.x = {1, 2, 10, 11}, .w = {2, 2, 3, 3}, .strides = {3, 2}, .dilations = {1, 3}},
        {.x = {2, 4, 6, 5}, .w = {6, 2, 3, 3}, .paddings = {1, 1}, .groups = 2},
        {.x = {1, 8, 5, 6}, .w = {4, 8, 1, 1}},  // pointwise
        {.x = {1, 3, 6, 6}, .w = {2, 3, 3, 3}, .paddings = {1, 1}, .bias = true},
        {.x = {1, 3, 5, 5}, .w = {2, 3, 5, 5}, .paddings = {4, 4}, .bias = true},
        // Height 1 with a 2-high window and stride 2: truncating division gives 1 row.
        {.x = {1, 2, 1, 6}, .w = {3, 2, 2, 2}, .strides = {2, 2}},
    };
    for (auto& c : cases) check_explicit(c);
}

TEST_CASE("depthwise_conv2d is conv2d with groups == channels") {
    std::vector<conv_case> cases = {
        {.type = "depthwise_conv2d",
         .x = {1, 6, 9, 8},
         .w = {6, 1, 3, 3},
         .paddings = {1, 1},
         .groups = 6},
        {.type = "depthwise_conv2d",
         .x = {2, 4, 11, 12},
         .w = {4, 1, 5, 5},
         .strides = {2, 1},
         .paddings = {2, 2},
         .groups = 4},
        // channel multiplier 2
        {.type = "depthwise_conv2d",
         .x = {1, 3, 7, 7},
         .w = {6, 1, 3, 3},
         .strides = {2, 2},
         .paddings = {1, 1},
         .groups = 3},
    };
    for (auto& c : cases) check_explicit(c);
}

TEST_CASE("padding_algorithm SAME computes pads and resets dilation; VALID zeroes pads") {
    // SAME: out = ceil(in / stride); pad_sum = (out-1)*s + k - in split top/bottom.
    conv_case same{.x = {1, 2, 7, 8},
                   .w = {3, 2, 3, 3},
                   .strides = {2, 2},
                   .paddings = {5, 5},
                   .dilations = {2, 2},
                   .algorithm = "SAME"};
    // H: out 4, pad_sum = 3*2+3-7 = 2 -> 1,1.  W: out 4, pad_sum = 3*2+3-8 = 1 -> 0,1.
    check_case(same, 1, 1, 0, 1, 1, 1);
    conv_case valid{
        .x = {1, 2, 7, 8}, .w = {3, 2, 3, 3}, .paddings = {2, 1, 1, 3}, .algorithm = "VALID"};
    check_case(valid, 0, 0, 0, 0, 1, 1);
}

TEST_CASE("conv2d shape errors name the op") {
    conv_case bad{.x = {1, 4, 6, 6}, .w = {4, 3, 3, 3}};
    tensor x, w, b;
    auto in = inputs_of(bad, x, w, b);
    CHECK_THROWS_WITH_AS(invoke("conv2d", attrs_of(bad), in, {{"Output", 1}}),
                         doctest::Contains("op conv2d"), shape_error);
    CHECK_THROWS_WITH_AS(invoke("conv2d", attrs_of(bad), in, {{"Output", 1}}),
                         doctest::Contains("Input channels 4"), shape_error);

    conv_case groups{.x = {1, 4, 6, 6}, .w = {3, 2, 3, 3}, .groups = 2};  // 3 % 2 != 0
    auto in2 = inputs_of(groups, x, w, b);
    CHECK_THROWS_WITH_AS(invoke("depthwise_conv2d", attrs_of(groups), in2, {{"Output", 1}}),
                         doctest::Contains("op depthwise_conv2d"), shape_error);

    conv_case tiny{.x = {1, 2, 2, 2}, .w = {1, 2, 5, 5}};  // window larger than the input
    auto in3 = inputs_of(tiny, x, w, b);
    CHECK_THROWS_AS(invoke("conv2d", attrs_of(tiny), in3, {{"Output", 1}}), shape_error);

    conv_case nhwc{.x = {1, 4, 6, 6}, .w = {4, 4, 3, 3}};
    auto a = attrs_of(nhwc);
    a.set("data_format", std::string("NHWC"));
    auto in4 = inputs_of(nhwc, x, w, b);
    CHECK_THROWS_AS(invoke("conv2d", a, in4, {{"Output", 1}}), unsupported_error);
}

TEST_CASE("the fast kernels match the reference row loop (litegraph_kernel)") {
    std::vector<conv_case> cases = {
        {.x = {2, 16, 12, 20}, .w = {24, 16, 1, 1}, .bias = true},
        {.x = {1, 3, 24, 48}, .w = {8, 3, 3, 3}, .strides = {2, 2}, .paddings = {1, 1}},
        {.x = {2, 12, 10, 15}, .w = {18, 4, 3, 3}, .paddings = {1, 0, 0, 1}, .groups = 3},
        {.type = "depthwise_conv2d",
         .x = {2, 8, 12, 48},
         .w = {8, 1, 3, 3},
         .strides = {2, 2},
         .paddings = {1, 1},
         .groups = 8,
         .bias = true},
        {.type = "depthwise_conv2d",
         .x = {1, 6, 11, 23},
         .w = {6, 1, 5, 5},
         .paddings = {2, 2},
         .groups = 6},
    };
    for (auto& c : cases) {
        CAPTURE(to_string(c.x));
        CAPTURE(to_string(c.w));
        tensor x, w, b;
        auto in = inputs_of(c, x, w, b);
        auto ref_attrs = attrs_of(c);
        ref_attrs.set("litegraph_kernel", std::string("reference"));
        auto fast = invoke(c.type, attrs_of(c), in, {{"Output", 1}});
        auto ref = invoke(c.type, ref_attrs, in, {{"Output", 1}});
        CHECK(test::max_rel_diff(fast.get("Output").span<float>(),
                                 ref.get("Output").span<float>()) < 1e-4);
    }
    auto bad = attrs_of({.x = {1, 1, 3, 3}, .w = {1, 1, 1, 1}});
    bad.set("litegraph_kernel", std::string("turbo"));
    CHECK_THROWS_AS(make_instance("conv2d", bad), unsupported_error);
}

TEST_CASE("one op node keeps its packed filter and repacks when the filter changes") {
    conv_case c{.x = {1, 8, 6, 7}, .w = {12, 8, 3, 3}, .paddings = {1, 1}};
    tensor x, w, b;
    auto in = inputs_of(c, x, w, b);
    const auto k = make_instance("conv2d", attrs_of(c));
    auto expect_for = [&](const tensor& filter) {
        return baseline(x, filter, nullptr, 1, 1, 1, 1, 1, 1, 1, 1, 1);
    };
    // Twice on the same filter (the second run uses the packed copy).
    for (int i = 0; i < 2; ++i) {
        auto y = invoke(*k, "conv2d", in, {{"Output", 1}});
        CHECK(test::max_rel_diff(y.get("Output").span<float>(), expect_for(w).span<float>()) <
              1e-5);
    }
    // New values: shape inference (every invoke runs it) drops the packed copy.
    auto w2 = test::random_tensor(c.w, 9);
    named_tensors in2;
    in2.add("Input", x).add("Filter", w2);
    auto y2 = invoke(*k, "conv2d", in2, {{"Output", 1}});
    CHECK(test::max_rel_diff(y2.get("Output").span<float>(), expect_for(w2).span<float>()) < 1e-5);

    // A filter unknown at shape inference (computed at run time) is packed per
    // call: run with a filter the inference did not see.
    auto p = ops::conv2d::parse(attrs_of(c), "conv2d");
    tensor_ref xr = x.ref("x"), fr = w.ref("f"), yr;
    yr.name = "y";
    op_io io;
    io.type = "conv2d";
    io.inputs = {{"Input", {&xr}}, {"Filter", {&fr}}};
    io.outputs = {{"Output", {&yr}}};
    fr.data = nullptr;      // not known yet
    ops::conv2d::state st;  // what the op node would own
    ops::conv2d::infer(p, st, io);
    tensor y(dtype::f32, yr.shape);
    yr.data = reinterpret_cast<std::byte*>(y.span<float>().data());
    for (const tensor* f : {&w, &w2, &w}) {
        fr.data = reinterpret_cast<std::byte*>(const_cast<float*>(f->span<float>().data()));
        ops::conv2d::run(p, st, io);
        CHECK(test::max_rel_diff(y.span<float>(), expect_for(*f).span<float>()) < 1e-5);
    }
}

}  // namespace ops_conv2d_test
