// Channels-last ops (passes/nhwc_to_nchw.hpp) and the transposes between
// them (passes/cancel_transposes.hpp): every op with a data_format /
// data_layout attribute that the layout pass rewrites runs NHWC (NDHWC) and
// gives what a plain loop gives: conv2d and pool2d against loops written in
// channels-last indexing here; the others as transpose(NCHW op(transpose(x))),
// the transposes being plain loops here and the NCHW op the one tests/ops
// checks against its own plain loop.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "litegraph/loader/paddle/pir.hpp"
#include "litegraph/loader/paddle/writer.hpp"
#include "litegraph/passes/cancel_transposes.hpp"
#include "litegraph/passes/nhwc_to_nchw.hpp"
#include "litegraph/session.hpp"
#include "passes/support_passes.hpp"
#include "pir_json.hpp"

using namespace litegraph;

namespace {

/// `t` with its dims permuted: out dim i is t's dim perm[i] (a plain loop).
tensor permuted(const tensor& t, const std::vector<std::size_t>& perm) {
    const auto& s = t.shape();
    const std::size_t r = s.size();
    shape_t os(r);
    for (std::size_t i = 0; i < r; ++i) os[i] = s[perm[i]];
    std::vector<std::int64_t> stride(r, 1);
    for (std::size_t i = r - 1; i > 0; --i) stride[i - 1] = stride[i] * s[i];
    tensor out(dtype::f32, os);
    auto src = t.span<float>();
    auto dst = out.span<float>();
    std::vector<std::int64_t> idx(r, 0);
    for (std::size_t o = 0; o < dst.size(); ++o) {
        std::int64_t off = 0;
        for (std::size_t i = 0; i < r; ++i) off += idx[i] * stride[perm[i]];
        dst[o] = src[static_cast<std::size_t>(off)];
        for (std::size_t i = r; i-- > 0;) {
            if (++idx[i] < os[i]) break;
            idx[i] = 0;
        }
    }
    return out;
}
tensor to_last(const tensor& t) {
    return t.shape().size() == 4 ? permuted(t, {0, 2, 3, 1}) : permuted(t, {0, 2, 3, 4, 1});
}
tensor to_first(const tensor& t) {
    return t.shape().size() == 4 ? permuted(t, {0, 3, 1, 2}) : permuted(t, {0, 4, 1, 2, 3});
}

struct one_op {
    explicit one_op(std::string t, std::string i = "X", std::string o = "Out",
                    std::string l = "data_format")
        : type(std::move(t)), in(std::move(i)), out(std::move(o)), layout_attr(std::move(l)) {}
    std::string type, in, out, layout_attr;
    attr_map attrs;
    std::vector<std::pair<std::string, tensor>> params;  // slot -> value
};

/// x -> op -> y with the op's layout attribute set to `layout`.
graph::graph graph_of(const one_op& c, const std::string& layout, std::size_t rank) {
    graph::graph g;
    graph::builder b(g);
    b.declare("x", shape_t(rank, -1));
    b.declare("y", shape_t(rank, -1));
    graph::named_slots in = {{c.in, {"x"}}};
    for (auto& [slot, value] : c.params) {
        test::param(b, "p_" + slot, value);
        in.push_back({slot, {"p_" + slot}});
    }
    auto a = c.attrs;
    a.set(c.layout_attr, layout);
    b.feed("x", 0);
    b.add_op(c.type, in, {{c.out, {"y"}}}, a);
    b.fetch("y", 0);
    b.finish();
    return g;
}

tensor run1(graph::graph g, const tensor& x) {
    return test::run_graph(g, {{"x", x}}).at(0);
}

/// The NHWC form of `c` (through the layout pass) on x_nhwc against the NCHW
/// form on the transposed input, transposed back.  `native`: the op runs
/// channels last itself (the pass leaves it; its own kernel must agree with
/// the NCHW one to `tolerance`); else the pass rewrites it and the result
/// is the NCHW kernel's, bit for bit.
void check_both_layouts(const one_op& c, const tensor& x_nchw, bool native = false,
                        double tolerance = 0.0) {
    const std::size_t rank = x_nchw.shape().size();
    const std::string last = rank == 4 ? "NHWC" : "NDHWC", first = rank == 4 ? "NCHW" : "NCDHW";
    auto gl = graph_of(c, last, rank);
    CHECK(passes::nhwc_to_nchw(gl) == (native ? 0 : 1));
    CHECK(test::count_ops(gl, "transpose2") == (native ? 0 : 2));
    CHECK(passes::nhwc_to_nchw(gl) == 0);  // nothing channels last is left
    const tensor y_last = run1(gl, to_last(x_nchw));
    const tensor y_first = run1(graph_of(c, first, rank), x_nchw);
    const tensor want = to_last(y_first);
    REQUIRE(y_last.shape() == want.shape());
    CHECK(test::max_rel_diff(y_last.span<float>(), want.span<float>()) <= tolerance);
}

attr_map conv_attrs(std::vector<std::int32_t> strides, std::vector<std::int32_t> pads,
                    std::vector<std::int32_t> dil, int groups) {
    attr_map a;
    a.set("strides", strides);
    a.set("paddings", pads);
    a.set("dilations", dil);
    a.set("groups", std::int32_t{groups});
    return a;
}

attr_map pool_attrs(const std::string& type, std::vector<std::int32_t> k,
                    std::vector<std::int32_t> s, std::vector<std::int32_t> p, bool global = false,
                    bool adaptive = false) {
    attr_map a;
    a.set("pooling_type", type);
    a.set("ksize", k);
    a.set("strides", s);
    a.set("paddings", p);
    a.set("global_pooling", global);
    a.set("adaptive", adaptive);
    a.set("exclusive", true);
    a.set("ceil_mode", false);
    return a;
}

}  // namespace

TEST_CASE("conv2d NHWC equals a channels-last plain loop") {
    // x [N, H, W, C], w [OC, C/g, KH, KW], stride 2, pads [1, 0, 2, 1], dilation [1, 2], groups 2.
    const std::int64_t N = 2, H = 7, W = 9, C = 4, OC = 6, G = 2, KH = 3, KW = 2;
    const std::int64_t sh = 2, sw = 1, pt = 1, pb = 0, pl = 2, pr = 1, dh = 1, dw = 2;
    const tensor x = test::random_tensor({N, H, W, C}, 1);
    const tensor w = test::random_tensor({OC, C / G, KH, KW}, 2);
    one_op c("conv2d", "Input", "Output");
    c.attrs = conv_attrs({2, 1}, {1, 0, 2, 1}, {1, 2}, 2);
    c.params = {{"Filter", w}};
    auto g = graph_of(c, "NHWC", 4);
    passes::nhwc_to_nchw(g);
    const tensor y = run1(g, x);
    const std::int64_t OH = (H + pt + pb - (dh * (KH - 1) + 1)) / sh + 1;
    const std::int64_t OW = (W + pl + pr - (dw * (KW - 1) + 1)) / sw + 1;
    REQUIRE(y.shape() == shape_t{N, OH, OW, OC});
    auto xs = x.span<float>();
    auto ws = w.span<float>();
    std::vector<float> want(static_cast<std::size_t>(N * OH * OW * OC));
    const std::int64_t cg = C / G, og = OC / G;
    for (std::int64_t n = 0; n < N; ++n)
        for (std::int64_t oh = 0; oh < OH; ++oh)
            for (std::int64_t ow = 0; ow < OW; ++ow)
                for (std::int64_t oc = 0; oc < OC; ++oc) {
                    double s = 0;
                    const std::int64_t gi = oc / og;
                    for (std::int64_t ci = 0; ci < cg; ++ci)
                        for (std::int64_t kh = 0; kh < KH; ++kh)
                            for (std::int64_t kw = 0; kw < KW; ++kw) {
                                const std::int64_t ih = oh * sh - pt + kh * dh;
                                const std::int64_t iw = ow * sw - pl + kw * dw;
                                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                                s += double(xs[((n * H + ih) * W + iw) * C + gi * cg + ci]) *
                                     ws[((oc * cg + ci) * KH + kh) * KW + kw];
                            }
                    want[((n * OH + oh) * OW + ow) * OC + oc] = static_cast<float>(s);
                }
    CHECK(test::max_rel_diff(y.span<float>(), want) < 1e-5);
}

TEST_CASE("pool2d NHWC (max, avg, global, adaptive) equals a channels-last plain loop") {
    const std::int64_t N = 2, H = 7, W = 6, C = 3;
    const tensor x = test::random_tensor({N, H, W, C}, 3);
    auto xs = x.span<float>();
    for (std::string type : {"max", "avg"}) {
        INFO(type);
        // ksize 3, stride 2, pads 1: exclusive average (padding not counted).
        one_op c("pool2d");
        c.attrs = pool_attrs(type, {3, 3}, {2, 2}, {1, 1});
        auto g = graph_of(c, "NHWC", 4);
        passes::nhwc_to_nchw(g);
        const tensor y = run1(g, x);
        const std::int64_t OH = (H + 2 - 3) / 2 + 1, OW = (W + 2 - 3) / 2 + 1;
        REQUIRE(y.shape() == shape_t{N, OH, OW, C});
        std::vector<float> want;
        for (std::int64_t n = 0; n < N; ++n)
            for (std::int64_t oh = 0; oh < OH; ++oh)
                for (std::int64_t ow = 0; ow < OW; ++ow)
                    for (std::int64_t ch = 0; ch < C; ++ch) {
                        float m = -std::numeric_limits<float>::infinity();
                        double s = 0;
                        int cnt = 0;
                        for (std::int64_t ih = oh * 2 - 1; ih < oh * 2 + 2; ++ih)
                            for (std::int64_t iw = ow * 2 - 1; iw < ow * 2 + 2; ++iw) {
                                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                                const float v = xs[((n * H + ih) * W + iw) * C + ch];
                                m = std::max(m, v);
                                s += v;
                                ++cnt;
                            }
                        want.push_back(type == "max" ? m : static_cast<float>(s / cnt));
                    }
        CHECK(test::max_rel_diff(y.span<float>(), want) < 1e-6);
    }
    // Global average and adaptive max to 2 x 2: the mean / max of each
    // channel over the whole plane / over Paddle's adaptive bins.
    one_op gl("pool2d");
    gl.attrs = pool_attrs("avg", {1, 1}, {1, 1}, {0, 0}, true);
    auto g = graph_of(gl, "NHWC", 4);
    passes::nhwc_to_nchw(g);
    const tensor y = run1(g, x);
    REQUIRE(y.shape() == shape_t{N, 1, 1, C});
    one_op ad("pool2d");
    ad.attrs = pool_attrs("max", {2, 2}, {1, 1}, {0, 0}, false, true);
    auto ga = graph_of(ad, "NHWC", 4);
    passes::nhwc_to_nchw(ga);
    const tensor ya = run1(ga, x);
    REQUIRE(ya.shape() == shape_t{N, 2, 2, C});
    for (std::int64_t n = 0; n < N; ++n)
        for (std::int64_t ch = 0; ch < C; ++ch) {
            double s = 0;
            for (std::int64_t i = 0; i < H * W; ++i) s += xs[(n * H * W + i) * C + ch];
            CHECK(y.span<float>()[n * C + ch] == doctest::Approx(s / (H * W)).epsilon(1e-6));
            for (std::int64_t bh = 0; bh < 2; ++bh)
                for (std::int64_t bw = 0; bw < 2; ++bw) {
                    // Paddle's adaptive bin: [floor(i*H/O), ceil((i+1)*H/O)).
                    const std::int64_t h0 = bh * H / 2, h1 = ((bh + 1) * H + 1) / 2;
                    const std::int64_t w0 = bw * W / 2, w1 = ((bw + 1) * W + 1) / 2;
                    float m = -std::numeric_limits<float>::infinity();
                    for (std::int64_t ih = h0; ih < h1; ++ih)
                        for (std::int64_t iw = w0; iw < w1; ++iw)
                            m = std::max(m, xs[((n * H + ih) * W + iw) * C + ch]);
                    CHECK(ya.span<float>()[((n * 2 + bh) * 2 + bw) * C + ch] == m);
                }
        }
}

TEST_CASE("every rewritten op runs both layouts: NHWC = transpose(NCHW op(transpose(x)))") {
    const tensor x4 = test::random_tensor({2, 4, 6, 5}, 4);
    {
        INFO("depthwise_conv2d");
        one_op c("depthwise_conv2d", "Input", "Output");
        c.attrs = conv_attrs({1, 1}, {1, 1}, {1, 1}, 4);
        c.params = {{"Filter", test::random_tensor({8, 1, 3, 3}, 5)}};
        check_both_layouts(c, x4);
    }
    {
        INFO("conv2d_transpose");
        one_op c("conv2d_transpose", "Input", "Output");
        c.attrs = conv_attrs({2, 2}, {1, 0}, {1, 1}, 2);
        c.attrs.set("output_padding", std::vector<std::int32_t>{});
        c.attrs.set("output_size", std::vector<std::int32_t>{});
        c.params = {{"Filter", test::random_tensor({4, 3, 3, 2}, 6)}};
        check_both_layouts(c, x4);
    }
    for (std::string type :
         {"nearest_interp_v2", "bilinear_interp_v2", "nearest_interp", "bilinear_interp"}) {
        INFO(type);
        one_op c(type, "X", "Out", "data_layout");
        c.attrs.set("out_h", std::int32_t{9});
        c.attrs.set("out_w", std::int32_t{7});
        c.attrs.set("align_corners", false);
        c.attrs.set("align_mode", std::int32_t{0});
        c.attrs.set("interp_method",
                    std::string(type.find("nearest") == 0 ? "nearest" : "bilinear"));
        check_both_layouts(c, x4);
    }
    {
        INFO("pool2d avg with padding counted, ceil mode");
        one_op c("pool2d");
        c.attrs = pool_attrs("avg", {3, 2}, {2, 2}, {1, 0});
        c.attrs.set("exclusive", false);
        c.attrs.set("ceil_mode", true);
        check_both_layouts(c, x4);
    }
    {
        INFO("batch_norm (4-D: rewritten so that it folds into its conv)");
        one_op c("batch_norm", "X", "Y", "data_layout");
        c.attrs.set("epsilon", 1e-5f);
        c.attrs.set("is_test", true);
        c.params = {{"Scale", test::random_tensor({4}, 32)},
                    {"Bias", test::random_tensor({4}, 33)},
                    {"Mean", test::random_tensor({4}, 34)},
                    {"Variance", test::random_tensor({4}, 35, 0.5f, 2.f)}};
        check_both_layouts(c, x4);
    }
    const tensor x5 = test::random_tensor({1, 3, 4, 5, 6}, 7);
    {
        INFO("conv3d");
        one_op c("conv3d", "Input", "Output");
        c.attrs.set("strides", std::vector<std::int32_t>{1, 2, 1});
        c.attrs.set("paddings", std::vector<std::int32_t>{1, 0, 1});
        c.attrs.set("dilations", std::vector<std::int32_t>{1, 1, 1});
        c.attrs.set("groups", std::int32_t{1});
        c.params = {{"Filter", test::random_tensor({2, 3, 2, 3, 3}, 8)}};
        check_both_layouts(c, x5);
    }
    for (std::string type : {"max", "avg"}) {
        INFO("pool3d " << type);
        one_op c("pool3d");
        c.attrs.set("pooling_type", type);
        c.attrs.set("ksize", std::vector<std::int32_t>{2, 2, 3});
        c.attrs.set("strides", std::vector<std::int32_t>{1, 2, 2});
        c.attrs.set("paddings", std::vector<std::int32_t>{0, 1, 1});
        c.attrs.set("exclusive", true);
        c.attrs.set("ceil_mode", false);
        c.attrs.set("global_pooling", false);
        c.attrs.set("adaptive", false);
        check_both_layouts(c, x5);
    }
}

TEST_CASE("the layout pass leaves channels-first ops and refused layouts alone") {
    one_op c("pool2d");
    c.attrs = pool_attrs("max", {2, 2}, {2, 2}, {0, 0});
    auto g = graph_of(c, "NCHW", 4);
    auto before = g;
    CHECK(passes::nhwc_to_nchw(g) == 0);
    CHECK(g.ops.size() == before.ops.size());
    // A layout the op does not know stays for the op to refuse by name.
    auto bad = graph_of(c, "NDHWC", 4);
    CHECK(passes::nhwc_to_nchw(bad) == 0);
    CHECK_THROWS_WITH_AS(test::run_graph(bad, {{"x", test::random_tensor({1, 2, 4, 4}, 1)}}),
                         doctest::Contains("data_format 'NDHWC' is not supported"),
                         unsupported_error);
}

namespace {

// x NHWC -> conv(w1) + bias (axis -1) -> relu -> conv(w2) -> pool -> y, all NHWC.
graph::graph nhwc_region() {
    graph::graph g;
    graph::builder b(g);
    b.declare("x", {-1, 8, 8, 3});
    b.declare("c1", {-1, 8, 8, 4});
    b.declare("a1", {-1, 8, 8, 4});
    b.declare("r1", {-1, 8, 8, 4});
    b.declare("c2", {-1, 8, 8, 5});
    b.declare("y", {-1, 4, 4, 5});
    test::param(b, "w1", test::random_tensor({4, 3, 3, 3}, 11));
    test::param(b, "b1", test::random_tensor({4}, 12));
    test::param(b, "w2", test::random_tensor({5, 4, 3, 3}, 13));
    b.feed("x", 0);
    auto conv = conv_attrs({1, 1}, {1, 1}, {1, 1}, 1);
    conv.set("data_format", std::string("NHWC"));
    b.add_op("conv2d", {{"Input", {"x"}}, {"Filter", {"w1"}}}, {{"Output", {"c1"}}}, conv);
    attr_map add;
    add.set("axis", std::int32_t{-1});
    b.add_op("elementwise_add", {{"X", {"c1"}}, {"Y", {"b1"}}}, {{"Out", {"a1"}}}, add);
    b.add_op("relu", {{"X", {"a1"}}}, {{"Out", {"r1"}}}, {});
    b.add_op("conv2d", {{"Input", {"r1"}}, {"Filter", {"w2"}}}, {{"Output", {"c2"}}}, conv);
    auto pool = pool_attrs("max", {2, 2}, {2, 2}, {0, 0});
    pool.set("data_format", std::string("NHWC"));
    b.add_op("pool2d", {{"X", {"c2"}}}, {{"Out", {"y"}}}, pool);
    b.fetch("y", 0);
    b.finish();
    return g;
}

}  // namespace

TEST_CASE("cancel_transposes leaves one transpose at each border of an NHWC region") {
    auto g = nhwc_region();
    CHECK(passes::nhwc_to_nchw(g) == 3);
    CHECK(test::count_ops(g, "transpose2") == 6);
    const auto unoptimized = g;
    CHECK(passes::cancel_transposes(g) > 0);
    CHECK(test::count_ops(g, "transpose2") == 2);
    // The first op transposes the feed, the last writes the fetched y.
    const auto order = g.topo_order();
    CHECK(g.ops[order.front()].type == "transpose2");
    CHECK(graph::input_var(g.ops[order.front()], "X") == g.find_var("x"));
    CHECK(g.ops[order.back()].type == "transpose2");
    CHECK(graph::output_var(g.ops[order.back()], "Out") == g.find_var("y"));
    // The bias add now meets the channels at dim 1.
    const int add = test::only_op(g, "elementwise_add");
    CHECK(g.ops[add].attrs.get<std::int64_t>("axis", -1) == 1);
    const test::feeds_t in = {{"x", test::random_tensor({2, 8, 8, 3}, 14)}};
    test::check_identical_outputs(unoptimized, g, in);
    // The whole pipeline then fuses the conv's bias and relu as for NCHW.
    auto fused = unoptimized;
    passes::run_passes(fused);
    CHECK(test::count_ops(fused, "transpose2") == 2);
    CHECK(test::count_ops(fused, "elementwise_add") == 0);
    CHECK(test::count_ops(fused, "relu") == 0);
    test::check_same_outputs(unoptimized, fused, in);
}

TEST_CASE("one variable read by several channels-last ops is transposed once") {
    // x NHWC -> pool max, pool avg (both NHWC) -> y = max + avg.
    graph::graph g;
    graph::builder b(g);
    b.declare("x", {-1, 8, 8, 3});
    for (const char* n : {"m", "a", "y"}) b.declare(n, {-1, 4, 4, 3});
    b.feed("x", 0);
    for (auto [type, out] : {std::pair{"max", "m"}, std::pair{"avg", "a"}}) {
        auto pool = pool_attrs(type, {2, 2}, {2, 2}, {0, 0});
        pool.set("data_format", std::string("NHWC"));
        b.add_op("pool2d", {{"X", {"x"}}}, {{"Out", {out}}}, pool);
    }
    b.add_op("elementwise_add", {{"X", {"m"}}, {"Y", {"a"}}}, {{"Out", {"y"}}}, {});
    b.fetch("y", 0);
    b.finish();
    CHECK(passes::nhwc_to_nchw(g) == 2);
    CHECK(test::count_ops(g, "transpose2") == 4);  // in and out of each pool
    const auto unoptimized = g;
    CHECK(passes::cancel_transposes(g) > 0);
    // One transpose of x feeds both pools; the two outputs' stay (the add
    // between them and y is no single-reader chain).
    int of_x = 0;
    for (auto& op : g.ops)
        if (op.type == "transpose2" && graph::input_var(op, "X") == g.find_var("x")) ++of_x;
    CHECK(of_x == 1);
    CHECK(test::count_ops(g, "transpose2") == 3);
    test::check_identical_outputs(unoptimized, g, {{"x", test::random_tensor({2, 8, 8, 3}, 17)}});
}

TEST_CASE("a transpose that meets no inverse stays; a fetched pair stays") {
    graph::graph g;
    graph::builder b(g);
    b.declare("x", {2, 3, 4, 5});
    b.declare("t", {2, 4, 5, 3});
    b.declare("r", {2, 4, 5, 3});
    b.declare("u", {2, 3, 4, 5});
    b.feed("x", 0);
    attr_map p1, p2;
    p1.set("axis", std::vector<std::int32_t>{0, 2, 3, 1});
    p2.set("axis", std::vector<std::int32_t>{0, 2, 1, 3});  // not the inverse
    b.add_op("transpose2", {{"X", {"x"}}}, {{"Out", {"t"}}}, p1);
    b.add_op("relu", {{"X", {"t"}}}, {{"Out", {"r"}}}, {});
    b.add_op("transpose2", {{"X", {"r"}}}, {{"Out", {"u"}}}, p2);
    b.fetch("u", 0);
    b.finish();
    auto before = g;
    CHECK(passes::cancel_transposes(g) == 0);
    CHECK(g.ops.size() == before.ops.size());
    // An inverse whose output is fetched keeps its variable: the pair stays,
    // though the transpose moves up to it.
    graph::graph h;
    graph::builder hb(h);
    hb.declare("x", {2, 3, 4, 5});
    hb.declare("t", {2, 4, 5, 3});
    hb.declare("r", {2, 4, 5, 3});
    hb.declare("u", {2, 3, 4, 5});
    hb.feed("x", 0);
    p2.set("axis", std::vector<std::int32_t>{0, 3, 1, 2});
    hb.add_op("transpose2", {{"X", {"x"}}}, {{"Out", {"t"}}}, p1);
    hb.add_op("relu", {{"X", {"t"}}}, {{"Out", {"r"}}}, {});
    hb.add_op("transpose2", {{"X", {"r"}}}, {{"Out", {"u"}}}, p2);
    hb.fetch("u", 0);
    hb.finish();
    auto h0 = h;
    passes::cancel_transposes(h);
    CHECK(test::count_ops(h, "transpose2") == 2);
    test::check_identical_outputs(h0, h, {{"x", test::random_tensor({2, 3, 4, 5}, 15)}});
}

TEST_CASE("a session prepares a graph built NHWC with or without fusion") {
    for (bool fuse : {true, false}) {
        INFO("fuse " << fuse);
        auto g = nhwc_region();
        session_options o;
        o.fuse = fuse;
        prepare(g, o);
        CHECK(test::count_ops(g, "transpose2") == (fuse ? 2 : 6));
        const tensor x = test::random_tensor({1, 8, 8, 3}, 16);
        const tensor y = run1(g, x);
        // The same region built NCHW, on the transposed input.
        auto n = nhwc_region();
        for (auto& op : n.ops) {
            if (op.attrs.has("data_format")) op.attrs.set("data_format", std::string("NCHW"));
            if (op.type == "elementwise_add") op.attrs.set("axis", std::int32_t{1});
        }
        n.vars[static_cast<std::size_t>(n.find_var("x"))].shape = {-1, 3, 8, 8};
        const tensor want = to_last(run1(n, to_first(x)));
        REQUIRE(y.shape() == want.shape());
        CHECK(test::max_rel_diff(y.span<float>(), want.span<float>()) < 1e-5);
    }
}

TEST_CASE("the ops that run channels last themselves agree with their NCHW form") {
    const tensor x4 = test::random_tensor({2, 4, 6, 5}, 31);
    {
        INFO("group_norm");
        one_op c("group_norm", "X", "Y", "data_layout");
        c.attrs.set("groups", std::int32_t{2});
        c.attrs.set("epsilon", 1e-5f);
        c.params = {{"Scale", test::random_tensor({4}, 36)},
                    {"Bias", test::random_tensor({4}, 37)}};
        check_both_layouts(c, x4, true, 1e-5);
    }
    {
        INFO("prelu channel");
        one_op c("prelu");
        c.attrs.set("mode", std::string("channel"));
        c.params = {{"Alpha", test::random_tensor({4}, 38)}};
        check_both_layouts(c, x4, true);
    }
    {
        INFO("pad2d reflect");
        one_op c("pad2d");
        c.attrs.set("paddings", std::vector<std::int32_t>{1, 2, 2, 1});
        c.attrs.set("mode", std::string("reflect"));
        check_both_layouts(c, x4, true);
    }
    {
        INFO("pixel_shuffle");
        one_op c("pixel_shuffle");
        c.attrs.set("upscale_factor", std::int32_t{2});
        check_both_layouts(c, x4, true);
    }
    {
        INFO("channel_shuffle");
        one_op c("channel_shuffle");
        c.attrs.set("groups", std::int32_t{2});
        check_both_layouts(c, x4, true);
    }
    {
        INFO("affine_channel");
        one_op c("affine_channel", "X", "Out", "data_layout");
        c.params = {{"Scale", test::random_tensor({4}, 39)},
                    {"Bias", test::random_tensor({4}, 40)}};
        check_both_layouts(c, x4, true, 1e-6);
    }
    {
        INFO("pad3d replicate");
        one_op c("pad3d");
        c.attrs.set("paddings", std::vector<std::int32_t>{1, 0, 0, 2, 1, 1});
        c.attrs.set("mode", std::string("replicate"));
        check_both_layouts(c, test::random_tensor({1, 3, 4, 5, 6}, 41), true);
    }
}

TEST_CASE("conv NHWC -> batch_norm NHWC -> relu folds and fuses as in NCHW") {
    graph::graph g;
    graph::builder b(g);
    b.declare("x", {-1, 6, 6, 3});
    b.declare("c", {-1, 6, 6, 4});
    b.declare("n", {-1, 6, 6, 4});
    b.declare("y", {-1, 6, 6, 4});
    test::param(b, "w", test::random_tensor({4, 3, 3, 3}, 51));
    test::param(b, "scale", test::random_tensor({4}, 52));
    test::param(b, "bias", test::random_tensor({4}, 53));
    test::param(b, "mean", test::random_tensor({4}, 54));
    test::param(b, "var", test::random_tensor({4}, 55, 0.5f, 2.f));
    b.feed("x", 0);
    auto conv = conv_attrs({1, 1}, {1, 1}, {1, 1}, 1);
    conv.set("data_format", std::string("NHWC"));
    b.add_op("conv2d", {{"Input", {"x"}}, {"Filter", {"w"}}}, {{"Output", {"c"}}}, conv);
    attr_map bn;
    bn.set("epsilon", 1e-5f);
    bn.set("is_test", true);
    bn.set("data_layout", std::string("NHWC"));
    b.add_op("batch_norm",
             {{"X", {"c"}},
              {"Scale", {"scale"}},
              {"Bias", {"bias"}},
              {"Mean", {"mean"}},
              {"Variance", {"var"}}},
             {{"Y", {"n"}}}, bn);
    b.add_op("relu", {{"X", {"n"}}}, {{"Out", {"y"}}}, {});
    b.fetch("y", 0);
    b.finish();
    CHECK(passes::nhwc_to_nchw(g) == 2);  // the conv and the batch norm
    CHECK(test::count_ops(g, "transpose2") == 4);
    auto prepared = g;
    session_options o;
    prepare(prepared, o);
    CHECK(test::count_ops(prepared, "transpose2") == 2);
    CHECK(test::count_ops(prepared, "batch_norm") == 0);
    CHECK(test::count_ops(prepared, "relu") == 0);
    test::check_same_outputs(g, prepared, {{"x", test::random_tensor({2, 6, 6, 3}, 56)}});
}

TEST_CASE("PIR: a program written channels last loads through the same pass and agrees") {
    // conv2d (data_format NHWC, filter OIHW as Paddle keeps it) -> relu ->
    // pool2d NHWC (kernel from full_int_array), written as Paddle 3.x PIR JSON
    // both ways; the NHWC one on x, the NCHW one on x transposed.
    using namespace test::pir_json;
    constexpr std::int64_t N = 2, H = 6, W = 7, C = 3, OC = 4;
    auto text = [&](bool nhwc) {
        const auto dims = [&](std::int64_t c, std::int64_t h, std::int64_t w) {
            return nhwc ? std::vector<std::int64_t>{N, h, w, c}
                        : std::vector<std::int64_t>{N, c, h, w};
        };
        const auto f32 = [](std::vector<std::int64_t> d) { return tensor_type("0.t_f32", d); };
        auto ints = [](std::vector<std::int64_t> v) {
            json a = json::array();
            for (auto i : v) a.push_back({{"#", "0.a_i32"}, {"D", i}});
            return a;
        };
        const std::string layout = nhwc ? "NHWC" : "NCHW";
        return program(
                   json::array({param("f", 1, f32({OC, C, 3, 3})), data("x", 2, dims(C, H, W)),
                                op("1.conv2d", {2, 1}, {{3, f32(dims(OC, H, W))}},
                                   json::array({attr("strides", "0.a_array", ints({1, 1})),
                                                attr("paddings", "0.a_array", ints({1, 1})),
                                                attr("padding_algorithm", "0.a_str", "EXPLICIT"),
                                                attr("groups", "0.a_i32", 1),
                                                attr("dilations", "0.a_array", ints({1, 1})),
                                                attr("data_format", "0.a_str", layout)})),
                                op("1.relu", {3}, {{4, f32(dims(OC, H, W))}}),
                                op("1.full_int_array", {}, {{5, tensor_type("0.t_i64", {2})}},
                                   json::array({attr("value", "1.a_intarray", json::array({2, 2})),
                                                attr("dtype", "1.a_dtype", "int64")})),
                                op("1.pool2d", {4, 5}, {{6, f32(dims(OC, H / 2, W / 2))}},
                                   json::array({attr("strides", "0.a_array", ints({2, 2})),
                                                attr("paddings", "0.a_array", ints({0, 0})),
                                                attr("ceil_mode", "0.a_bool", false),
                                                attr("exclusive", "0.a_bool", true),
                                                attr("data_format", "0.a_str", layout),
                                                attr("pooling_type", "0.a_str", "max"),
                                                attr("global_pooling", "0.a_bool", false),
                                                attr("adaptive", "0.a_bool", false),
                                                attr("padding_algorithm", "0.a_str", "EXPLICIT")})),
                                fetch(6, 7, 0)}))
            .dump();
    };
    std::string params;
    paddle::append_record(params, test::random_tensor({OC, C, 3, 3}, 61));
    paddle::load_options lo;
    lo.require_params = true;
    auto nhwc = paddle::load_pir_from_memory(text(true), params, lo);
    auto nchw = paddle::load_pir_from_memory(text(false), params, lo);
    // The loader rewrote the channels-last ops between transposes.
    for (auto& op : nhwc.graph.ops)
        if (op.attrs.has("data_format"))
            CHECK(op.attrs.get<std::string>("data_format", "") == "NCHW");
    CHECK(test::count_ops(nhwc.graph, "transpose2") >= 2);
    CHECK(test::count_ops(nchw.graph, "transpose2") == 0);
    const tensor x = test::random_tensor({N, H, W, C}, 62);
    const tensor want = to_last(run1(nchw.graph, to_first(x)));
    REQUIRE(want.shape() == shape_t{N, H / 2, W / 2, OC});
    for (bool fuse : {true, false}) {
        INFO("fuse " << fuse);
        auto g = nhwc.graph;
        session_options o;
        o.fuse = fuse;
        prepare(g, o);
        // Fused, the region keeps one transpose at each border only.
        if (fuse) CHECK(test::count_ops(g, "transpose2") == 2);
        const tensor y = run1(g, x);
        REQUIRE(y.shape() == want.shape());
        CHECK(test::max_rel_diff(y.span<float>(), want.span<float>()) < 1e-5);
    }
}
