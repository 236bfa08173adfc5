// quantize_int8: convs, fused convs, mul and matmul whose input comes from a
// per-tensor 8-bit fake quant-dequant op and whose weight is a parameter
// become int8 ops (fused_conv2d_int8, mul_int8) behind one quantize_int8 per
// fake op; int8 producers of a quantized value write int8 themselves; pools
// and SE gates of fake-quantized inputs read int8 (pool2d_int8, mul_plane_int8).
#include <algorithm>
#include <cmath>

#include "litegraph/passes/quantize_int8.hpp"
#include "passes/support_passes.hpp"

using namespace litegraph;

namespace passes_quantize_int8_test {

namespace {

constexpr std::int64_t ic = 4, oc = 5, hw = 6;
constexpr float sx = 1.5f;  // the input's abs-max range (InScale)

attr_map fake_attrs(int bits = 8) {
    attr_map a;
    a.set("bit_length", std::int32_t{bits});
    a.set("round_type", std::int32_t{1});
    return a;
}

// Adds `out` = fake quant-dequant(`in`) with InScale parameter `scale` = s.
void fake(graph::builder& b, const std::string& in, const std::string& out,
          const std::string& scale, float s, int bits = 8) {
    test::param(b, scale, tensor::from<float>({1}, std::vector<float>{s}));
    b.add_op("fake_quantize_dequantize_moving_average_abs_max", {{"X", {in}}, {"InScale", {scale}}},
             {{"Out", {out}}}, fake_attrs(bits));
}

struct conv_options {
    bool fake_input = true;        // the input comes from the fake op
    int bits = 8;                  // the fake op's bit_length
    bool weight_is_input = false;  // the filter is a program input
    float scale = sx;              // InScale's value
    std::string act;               // a fused conv: bias, then this activation
};

// x -> fake(sx) -> xf -> conv2d (or fused_conv2d with bias and act) -> y.
graph::graph conv_graph(const conv_options& o = {}) {
    graph::graph g;
    graph::builder b(g);
    b.declare("x", {-1, ic, hw, hw});
    b.declare("xf", {-1, ic, hw, hw});
    b.declare("wi", {oc, ic, 3, 3});
    b.declare("y", {-1, oc, hw, hw});
    test::param(b, "w", test::random_tensor({oc, ic, 3, 3}, 41));
    test::param(b, "bias", test::random_tensor({oc}, 42));
    b.feed("x", 0);
    if (o.weight_is_input) b.feed("wi", 1);
    if (o.fake_input) fake(b, "x", "xf", "sx", o.scale, o.bits);
    graph::named_slots in = {{"Input", {o.fake_input ? "xf" : "x"}},
                             {"Filter", {o.weight_is_input ? "wi" : "w"}}};
    if (o.act.empty()) {
        b.add_op("conv2d", in, {{"Output", {"y"}}}, test::conv_attrs());
    } else {
        in.push_back({"Bias", {"bias"}});
        auto a = test::conv_attrs();
        a.set("stages", test::conv_stages(o.act));
        b.add_op("fused_conv2d", in, {{"Output", {"y"}}}, a);
    }
    b.fetch("y", 0);
    b.finish();
    return g;
}

// The int8 arithmetic written out: q = sat8(round(v / step)), half away from
// zero; an activation times the inverse step (as quantize_int8 computes it), a
// weight divided by its step (as the pass quantizes it).
std::int32_t sat8(float r) {
    return static_cast<std::int32_t>(std::min(127.f, std::max(-128.f, std::round(r))));
}
std::int32_t q8(float v, float step) {
    return sat8(v * (1.f / step));
}
std::int32_t q8w(float v, float step) {
    return sat8(v / step);
}

// Per-channel steps of a weight (channel = dim `axis` of [d0, d1, ...]).
std::vector<float> weight_steps(const tensor& w, int axis) {
    const auto& s = w.shape();
    const std::int64_t channels = s[static_cast<std::size_t>(axis)];
    std::int64_t inner = 1;
    for (std::size_t i = static_cast<std::size_t>(axis) + 1; i < s.size(); ++i) inner *= s[i];
    std::vector<float> m(static_cast<std::size_t>(channels), 0.f);
    const auto v = w.span<float>();
    for (std::int64_t i = 0; i < w.numel(); ++i) {
        auto& mc = m[static_cast<std::size_t>((i / inner) % channels)];
        mc = std::max(mc, std::abs(v[static_cast<std::size_t>(i)]));
    }
    for (auto& x : m) x = x > 0.f ? x / 127.f : 1.f;
    return m;
}

// A 3x3 conv, stride 1, padding 1, of x [N, ic, hw, hw] by w [oc, ic, 3, 3],
// computed twice: on int8 (q8 of x and of the weights, int32 sums, then
// sum * in_step * step[c] + bias[c], then `act`), and on the float values.
struct conv_reference {
    std::vector<float> int8, fp;
    double tap_abs_max = 0;  // the largest sum over an output's taps of |x|
};
conv_reference reference_conv(const tensor& x, const tensor& w, const std::vector<float>& bias,
                              float in_step, const std::string& act) {
    const auto n = x.shape()[0];
    const auto steps = weight_steps(w, 0);
    const auto xs = x.span<float>(), ws = w.span<float>();
    auto apply = [&](float v) { return act == "relu" ? std::max(v, 0.f) : v; };
    conv_reference r;
    for (std::int64_t b = 0; b < n; ++b)
        for (std::int64_t o = 0; o < oc; ++o)
            for (std::int64_t i = 0; i < hw; ++i)
                for (std::int64_t j = 0; j < hw; ++j) {
                    std::int32_t acc = 0;
                    double facc = 0, taps = 0;
                    for (std::int64_t c = 0; c < ic; ++c)
                        for (std::int64_t di = 0; di < 3; ++di)
                            for (std::int64_t dj = 0; dj < 3; ++dj) {
                                const auto y = i + di - 1, xx = j + dj - 1;
                                if (y < 0 || y >= hw || xx < 0 || xx >= hw) continue;
                                const float xv =
                                    xs[static_cast<std::size_t>(((b * ic + c) * hw + y) * hw + xx)];
                                const float wv =
                                    ws[static_cast<std::size_t>(((o * ic + c) * 3 + di) * 3 + dj)];
                                acc += q8(xv, in_step) * q8w(wv, steps[o]);
                                // The float simulation's dequantized input.
                                const float xd = static_cast<float>(q8(xv, in_step)) * in_step;
                                facc += double(xd) * wv;
                                taps += std::abs(xd);
                            }
                    const float m = in_step * steps[o];
                    r.int8.push_back(apply(static_cast<float>(acc) * m + bias[o]));
                    r.fp.push_back(apply(static_cast<float>(facc + bias[o])));
                    r.tap_abs_max = std::max(r.tap_abs_max, taps);
                }
    return r;
}

double max_step(const tensor& w, int axis) {
    const auto s = weight_steps(w, axis);
    return *std::max_element(s.begin(), s.end());
}

const tensor& value_of(const graph::graph& g, const std::string& name) {
    const int v = g.find_var(name);
    REQUIRE(v >= 0);
    REQUIRE(g.vars[v].value.has_value());
    return *g.vars[v].value;
}

}  // namespace

TEST_CASE("a fake-quantized conv becomes fused_conv2d_int8 behind one quantize_int8") {
    for (std::string act : {"", "relu"}) {
        INFO("act '" << act << "'");
        conv_options o;
        o.act = act;
        auto g = conv_graph(o);
        auto before = g;
        CHECK(passes::quantize_int8(g) == 1);
        CHECK(test::count_ops(g, "fake_quantize_dequantize_moving_average_abs_max") == 0);
        CHECK(test::count_ops(g, "conv2d") == 0);
        CHECK(test::count_ops(g, "fused_conv2d") == 0);
        CHECK(g.ops.size() == 2);
        const int q = test::only_op(g, "quantize_int8");
        CHECK(test::in_name(g, q, "X") == "x");
        CHECK(g.ops[q].attrs.get<float>("step", 0.f) == sx / 127.f);
        const int c = test::only_op(g, "fused_conv2d_int8");
        CHECK(test::stages_of(g.ops[c]) == test::conv_stages(act, "store", true));
        CHECK(test::in_name(g, c, "Input") == test::out_name(g, q, "Out"));
        CHECK(g.vars[graph::input_var(g.ops[c], "Input")].type == dtype::i8);
        CHECK(test::out_name(g, c, "Output") == "y");
        CHECK(g.vars[graph::output_var(g.ops[c], "Output")].type == dtype::f32);
        // Per output channel int8 filter and multiplier = input step x filter step.
        const auto& wq = value_of(g, test::in_name(g, c, "Filter"));
        CHECK(wq.type() == dtype::i8);
        CHECK(wq.shape() == shape_t{oc, ic, 3, 3});
        const auto& mult = value_of(g, test::in_name(g, c, "Multiplier"));
        const auto steps = weight_steps(value_of(before, "w"), 0);
        REQUIRE(mult.numel() == oc);
        for (std::int64_t k = 0; k < oc; ++k)
            CHECK(mult.span<float>()[k] == (sx / 127.f) * steps[k]);
        // The bias: the fused conv's own, or zeros for a plain conv.
        const auto& bias = value_of(g, test::in_name(g, c, "Bias"));
        std::vector<float> bv(bias.span<float>().begin(), bias.span<float>().end());
        if (act.empty())
            CHECK(std::all_of(bv.begin(), bv.end(), [](float v) { return v == 0.f; }));
        else
            CHECK(test::in_name(g, c, "Bias") == "bias");

        // Against the int8 arithmetic written out, on an input of which some
        // values saturate: the same int32 sums, the rescale rounded in float
        // (a few ulp).
        const auto xs = test::random_tensor({2, ic, hw, hw}, 43, -2.f, 2.f);
        const auto got_s = test::run_graph(g, {{"x", xs}})[0];
        const auto ref_s = reference_conv(xs, value_of(before, "w"), bv, sx / 127.f, act);
        CHECK(test::max_rel_diff(got_s.span<float>(), ref_s.int8) < 1e-5);

        // Within the input's range (the fake op clips at -127 steps, the int8
        // path saturates at -128: below -sx they differ by a step).
        const auto x = test::random_tensor({2, ic, hw, hw}, 49, -sx, sx);
        const auto got = test::run_graph(g, {{"x", x}})[0];
        const auto sim = test::run_graph(before, {{"x", x}})[0];
        const auto ref = reference_conv(x, value_of(before, "w"), bv, sx / 127.f, act);
        CHECK(test::max_rel_diff(got.span<float>(), ref.int8) < 1e-5);
        // Against the float simulation: the activations are the same q (but for
        // an ulp at a rounding tie), each weight moves at most half its
        // channel's step, so |diff| <= sum |x_dq| * max step / 2 (+ one input
        // step times max |w| for a tie).
        const double bound =
            ref.tap_abs_max * max_step(value_of(before, "w"), 0) / 2 + sx / 127.0 * 1.0 + 1e-5;
        const double d = test::max_abs_diff(got.span<float>(), sim.span<float>());
        MESSAGE("int8 vs float simulation: " << d << " (bound " << bound << ")");
        CHECK(d <= bound);
        CHECK(test::max_abs_diff(sim.span<float>(), ref.fp) < 1e-4);
    }
}

TEST_CASE("convs it leaves float") {
    auto refuse = [](conv_options o, const char* why) {
        INFO(why);
        auto g = conv_graph(o);
        const auto ops = g.ops.size();
        CHECK(passes::quantize_int8(g) == 0);
        CHECK(g.ops.size() == ops);
        CHECK(test::count_ops(g, "fused_conv2d_int8") == 0);
        CHECK(test::count_ops(g, "quantize_int8") == 0);
    };
    conv_options o;
    o.fake_input = false;
    refuse(o, "an activation without a fake quant op");
    o = {};
    o.bits = 4;
    refuse(o, "a 4-bit fake quant op");
    o = {};
    o.weight_is_input = true;
    refuse(o, "a filter that is not a parameter");
    o = {};
    o.scale = 0.f;
    refuse(o, "an InScale of 0");
}

namespace {

// x [.., k] -> fake(sx) -> xf -> `type` (Y = w [k, n]) -> y.
graph::graph fc_graph(const std::string& type, const shape_t& xshape, const attr_map& attrs) {
    const auto k = xshape.back();
    graph::graph g;
    graph::builder b(g);
    b.declare("x", xshape);
    b.declare("xf", xshape);
    shape_t ys = xshape;
    ys.back() = 7;
    b.declare("y", ys);
    test::param(b, "w", test::random_tensor({k, 7}, 44));
    b.feed("x", 0);
    fake(b, "x", "xf", "sx", sx);
    b.add_op(type, {{"X", {"xf"}}, {"Y", {"w"}}}, {{"Out", {"y"}}}, attrs);
    b.fetch("y", 0);
    b.finish();
    return g;
}

// out[r, j] = (sum_k q8(x[r, k]) q8(w[k, j])) * (in_step * step[j] * alpha).
std::vector<float> reference_fc(const tensor& x, const tensor& w, float alpha) {
    const auto k = w.shape()[0], n = w.shape()[1], rows = x.numel() / k;
    const auto steps = weight_steps(w, 1);
    const float in_step = sx / 127.f;
    std::vector<float> out;
    for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t j = 0; j < n; ++j) {
            std::int32_t acc = 0;
            for (std::int64_t i = 0; i < k; ++i)
                acc += q8(x.span<float>()[static_cast<std::size_t>(r * k + i)], in_step) *
                       q8w(w.span<float>()[static_cast<std::size_t>(i * n + j)], steps[j]);
            out.push_back(static_cast<float>(acc) * (in_step * steps[j] * alpha));
        }
    return out;
}

}  // namespace

TEST_CASE("a fake-quantized mul / matmul becomes mul_int8") {
    struct case_t {
        std::string type;
        shape_t x;
        float alpha;
        int xcols;
    };
    for (auto& c : {case_t{"mul", {-1, 16}, 1.f, 1}, case_t{"matmul_v2", {-1, 3, 16}, 1.f, 2},
                    case_t{"matmul", {-1, 3, 16}, 0.5f, 2}}) {
        INFO(c.type);
        attr_map a;
        if (c.type == "matmul") a.set("alpha", c.alpha);
        auto g = fc_graph(c.type, c.x, a);
        auto before = g;
        CHECK(passes::quantize_int8(g) == 1);
        CHECK(test::count_ops(g, c.type) == 0);
        CHECK(g.ops.size() == 2);
        const int m = test::only_op(g, "mul_int8");
        CHECK(g.ops[m].attrs.get<int>("x_num_col_dims", 0) == c.xcols);
        CHECK(!g.ops[m].attrs.has("alpha"));
        const int q = test::only_op(g, "quantize_int8");
        CHECK(test::in_name(g, m, "X") == test::out_name(g, q, "Out"));
        CHECK(test::out_name(g, m, "Out") == "y");
        const auto& w = value_of(before, "w");
        CHECK(value_of(g, test::in_name(g, m, "Y")).type() == dtype::i8);
        // alpha goes into the per-column multiplier.
        const auto steps = weight_steps(w, 1);
        const auto& mult = value_of(g, test::in_name(g, m, "Multiplier"));
        REQUIRE(mult.numel() == 7);
        for (std::size_t j = 0; j < steps.size(); ++j)
            CHECK(mult.span<float>()[j] == (sx / 127.f) * steps[j] * c.alpha);
        shape_t xs = c.x;
        xs[0] = 2;
        const auto x_sat = test::random_tensor(xs, 45, -2.f, 2.f);
        const auto got_sat = test::run_graph(g, {{"x", x_sat}})[0];
        CHECK(test::max_rel_diff(got_sat.span<float>(), reference_fc(x_sat, w, c.alpha)) < 1e-5);
        const auto x = test::random_tensor(xs, 46, -sx, sx);
        const auto got = test::run_graph(g, {{"x", x}})[0];
        CHECK(test::max_rel_diff(got.span<float>(), reference_fc(x, w, c.alpha)) < 1e-5);
        // The float simulation: 16 taps of |x_dq| <= 1.5, half a column step each.
        const auto sim = test::run_graph(before, {{"x", x}})[0];
        const double bound = 16 * 1.5 * max_step(w, 1) / 2 * c.alpha + sx / 127.0 + 1e-5;
        CHECK(test::max_abs_diff(got.span<float>(), sim.span<float>()) <= bound);
    }
}

TEST_CASE("matrix products it leaves float") {
    attr_map ty;
    ty.set("transpose_Y", true);
    auto t = fc_graph("matmul", {-1, 16, 16}, ty);
    CHECK(passes::quantize_int8(t) == 0);
    attr_map tx;
    tx.set("trans_x", true);
    auto t2 = fc_graph("matmul_v2", {-1, 16, 16}, tx);
    CHECK(passes::quantize_int8(t2) == 0);
    attr_map yc;
    yc.set("y_num_col_dims", std::int32_t{2});
    auto m = fc_graph("mul", {-1, 16}, yc);
    CHECK(passes::quantize_int8(m) == 0);
    CHECK(test::count_ops(m, "mul_int8") == 0);
}

namespace {

// x -> fake(sx) -> conv1 -> c1 -> max pool 2x2 -> p -> fake(sp) -> pf -> conv2 -> y.
// `fetch_c1`: c1 is fetched too, which keeps conv1 writing float.
graph::graph chain_graph(bool fetch_c1) {
    graph::graph g;
    graph::builder b(g);
    b.declare("x", {-1, ic, hw, hw});
    b.declare("xf", {-1, ic, hw, hw});
    b.declare("c1", {-1, oc, hw, hw});
    b.declare("p", {-1, oc, hw / 2, hw / 2});
    b.declare("pf", {-1, oc, hw / 2, hw / 2});
    b.declare("y", {-1, 3, hw / 2, hw / 2});
    test::param(b, "w1", test::random_tensor({oc, ic, 3, 3}, 46));
    test::param(b, "w2", test::random_tensor({3, oc, 3, 3}, 47));
    b.feed("x", 0);
    fake(b, "x", "xf", "sx", sx);
    b.add_op("conv2d", {{"Input", {"xf"}}, {"Filter", {"w1"}}}, {{"Output", {"c1"}}},
             test::conv_attrs());
    attr_map pa;
    pa.set("pooling_type", std::string("max"));
    pa.set("ksize", std::vector<std::int32_t>{2, 2});
    pa.set("strides", std::vector<std::int32_t>{2, 2});
    pa.set("paddings", std::vector<std::int32_t>{0, 0});
    b.add_op("pool2d", {{"X", {"c1"}}}, {{"Out", {"p"}}}, pa);
    fake(b, "p", "pf", "sp", 2.5f);
    b.add_op("conv2d", {{"Input", {"pf"}}, {"Filter", {"w2"}}}, {{"Output", {"y"}}},
             test::conv_attrs());
    b.fetch("y", 0);
    if (fetch_c1) b.fetch("c1", 1);
    b.finish();
    return g;
}

}  // namespace

TEST_CASE("an int8 conv read (through a max pool) only by a quantize writes int8 itself") {
    auto g = chain_graph(false);
    auto sim = g;
    CHECK(passes::quantize_int8(g) == 2);
    CHECK(test::count_ops(g, "fused_conv2d_int8") == 2);
    CHECK(test::count_ops(g, "fake_quantize_dequantize_moving_average_abs_max") == 0);
    const int q = test::only_op(g, "quantize_int8");  // the input's only
    CHECK(test::in_name(g, q, "X") == "x");
    const int pool = test::only_op(g, "pool2d_int8");
    const int c1 = g.vars[graph::input_var(g.ops[pool], "X")].producer;
    REQUIRE(c1 >= 0);
    CHECK(g.ops[c1].type == "fused_conv2d_int8");
    CHECK(test::stages_of(g.ops[c1]) == test::conv_stages("", "quantize_store", true));
    CHECK(g.ops[c1].attrs.get<float>("output_step", 0.f) == 2.5f / 127.f);
    CHECK(g.vars[graph::output_var(g.ops[c1], "Output")].type == dtype::i8);
    CHECK(g.vars[graph::output_var(g.ops[pool], "Out")].type == dtype::i8);

    // With c1 fetched, conv1 writes float, the pool stays float and a
    // quantize_int8 quantizes its output: the merged chain must give the
    // same bytes (max commutes with the monotone quantization).
    auto unmerged = chain_graph(true);
    CHECK(passes::quantize_int8(unmerged) == 2);
    CHECK(test::count_ops(unmerged, "quantize_int8") == 2);
    CHECK(test::count_ops(unmerged, "pool2d") == 1);
    CHECK(test::count_ops(unmerged, "pool2d_int8") == 0);
    const auto x = test::random_tensor({2, ic, hw, hw}, 48, -1.5f, 1.5f);
    const auto merged_y = test::run_graph(g, {{"x", x}})[0];
    const auto unmerged_y = test::run_graph(unmerged, {{"x", x}})[0];
    REQUIRE(merged_y.bytes() == unmerged_y.bytes());
    CHECK(std::memcmp(merged_y.data(), unmerged_y.data(), merged_y.bytes()) == 0);

    // And near the float simulation: a loose bound (two quantized convs), 5%
    // of the output's range; a wrong step or multiplier is off by far more.
    const auto sim_y = test::run_graph(sim, {{"x", x}})[0];
    double range = 0;
    for (float v : sim_y.span<float>()) range = std::max(range, double(std::abs(v)));
    const double d = test::max_abs_diff(merged_y.span<float>(), sim_y.span<float>());
    MESSAGE("chain int8 vs float simulation: " << d << " of range " << range);
    CHECK(d <= 0.05 * range);
}

namespace {

// A squeeze-and-excite block as the fp32 fusions leave it:
// x -> fake(sx) -> xf; pool2d avg adaptive 1x1 (xf) -> p -> fake(sp) -> pf;
// fused conv 1x1 bias relu (pf) -> h -> fake(sh) -> hf;
// fused conv 1x1 bias hard_sigmoid mul_plane (hf, Other xf) -> y.
graph::graph se_graph() {
    const std::int64_t c = 8, mid = 4;
    graph::graph g;
    graph::builder b(g);
    b.declare("x", {-1, c, 5, 7});
    b.declare("xf", {-1, c, 5, 7});
    for (const char* v : {"p", "pf"}) b.declare(v, {-1, c, 1, 1});
    for (const char* v : {"h", "hf"}) b.declare(v, {-1, mid, 1, 1});
    b.declare("y", {-1, c, 5, 7});
    test::param(b, "w1", test::random_tensor({mid, c, 1, 1}, 51));
    test::param(b, "b1", test::random_tensor({mid}, 52));
    test::param(b, "w2", test::random_tensor({c, mid, 1, 1}, 53));
    test::param(b, "b2", test::random_tensor({c}, 54));
    b.feed("x", 0);
    fake(b, "x", "xf", "sx", sx);
    attr_map pa;
    pa.set("pooling_type", std::string("avg"));
    pa.set("adaptive", true);
    pa.set("ksize", std::vector<std::int32_t>{1, 1});
    b.add_op("pool2d", {{"X", {"xf"}}}, {{"Out", {"p"}}}, pa);
    fake(b, "p", "pf", "sp", 1.f);
    auto a1 = test::conv_attrs(1, 0);
    a1.set("stages", test::conv_stages("relu"));
    b.add_op("fused_conv2d", {{"Input", {"pf"}}, {"Filter", {"w1"}}, {"Bias", {"b1"}}},
             {{"Output", {"h"}}}, a1);
    fake(b, "h", "hf", "sh", 2.f);
    auto a2 = test::conv_attrs(1, 0);
    a2.set("stages", test::conv_stages("hard_sigmoid", "mul_plane"));
    b.add_op("fused_conv2d",
             {{"Input", {"hf"}}, {"Filter", {"w2"}}, {"Bias", {"b2"}}, {"Other", {"xf"}}},
             {{"Output", {"y"}}}, a2);
    b.fetch("y", 0);
    b.finish();
    return g;
}

}  // namespace

TEST_CASE("a fake-quantized squeeze-and-excite block is int8 end to end") {
    auto g = se_graph();
    auto sim = g;
    CHECK(passes::quantize_int8(g) == 2);
    CHECK(test::count_ops(g, "fake_quantize_dequantize_moving_average_abs_max") == 0);
    CHECK(test::count_ops(g, "dequantize_int8") == 0);
    CHECK(test::count_ops(g, "pool2d") == 0);
    CHECK(g.ops.size() == 4);
    const int q = test::only_op(g, "quantize_int8");
    CHECK(test::in_name(g, q, "X") == "x");
    const std::string xq = test::out_name(g, q, "Out");
    // The pool reads the quantized input and writes the next conv's step.
    const int pool = test::only_op(g, "pool2d_int8");
    CHECK(test::in_name(g, pool, "X") == xq);
    CHECK(g.ops[pool].attrs.get<float>("input_step", 0.f) == sx / 127.f);
    CHECK(g.ops[pool].attrs.get<float>("output_step", 0.f) == 1.f / 127.f);
    int squeeze = -1, gate = -1;
    for (int i = 0; i < static_cast<int>(g.ops.size()); ++i)
        if (g.ops[i].type == "fused_conv2d_int8")
            (test::in_name(g, i, "Input") == test::out_name(g, pool, "Out") ? squeeze : gate) = i;
    REQUIRE(squeeze >= 0);
    REQUIRE(gate >= 0);
    // The squeeze conv writes int8 in the gate conv's input step.
    CHECK(test::stages_of(g.ops[squeeze]) == test::conv_stages("relu", "quantize_store", true));
    CHECK(g.ops[squeeze].attrs.get<float>("output_step", 0.f) == 2.f / 127.f);
    CHECK(test::in_name(g, gate, "Input") == test::out_name(g, squeeze, "Output"));
    // The gate reads its plane as int8: the input's quantize_int8, other_step its step.
    CHECK(test::stages_of(g.ops[gate]) ==
          test::conv_stages("hard_sigmoid", "mul_plane_int8", true));
    CHECK(test::in_name(g, gate, "Other") == xq);
    CHECK(g.ops[gate].attrs.get<float>("other_step", 0.f) == sx / 127.f);
    CHECK(test::out_name(g, gate, "Output") == "y");

    // Against the float simulation: y = x_dq * gate, gate in [0, 1]; x_dq is
    // the same in both (q * step), the gate differs by the int8 rounding of
    // the pooled mean, of h and of both 1x1 filters (half a step each, through
    // hard_sigmoid's slope 0.2): 2% of sx bounds it.
    const auto x = test::random_tensor({2, 8, 5, 7}, 55, -1.5f, 1.5f);
    const auto got = test::run_graph(g, {{"x", x}})[0];
    const auto want = test::run_graph(sim, {{"x", x}})[0];
    const double d = test::max_abs_diff(got.span<float>(), want.span<float>());
    MESSAGE("SE int8 vs float simulation: " << d);
    CHECK(d <= 0.02 * sx);
}

}  // namespace passes_quantize_int8_test
