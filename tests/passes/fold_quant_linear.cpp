// fold_quant_linear: quantize_linear -> dequantize_linear pairs of one Scale
// become a folded weight parameter (on a parameter) or one
// fake_quantize_dequantize_moving_average_abs_max (on an activation).
#include <cmath>

#include "litegraph/passes/quantize_int8.hpp"
#include "passes/support_passes.hpp"

using namespace litegraph;

namespace passes_fold_quant_linear_test {

namespace {

constexpr std::int64_t ic = 4, oc = 5;

attr_map linear_attrs(int quant_axis, int round_type = -1, int bits = 8) {
    attr_map a;
    a.set("quant_axis", std::int32_t{quant_axis});
    a.set("bit_length", std::int32_t{bits});
    if (round_type >= 0) a.set("round_type", std::int32_t{round_type});
    return a;
}

// Per output channel abs max of a [oc, ...] weight (the Scale an export writes).
tensor channel_abs_max(const tensor& w) {
    const auto n = w.shape()[0], per = w.numel() / n;
    tensor s(dtype::f32, {n});
    auto src = w.span<float>();
    auto dst = s.span<float>();
    for (std::int64_t c = 0; c < n; ++c) {
        float m = 0.f;
        for (std::int64_t i = 0; i < per; ++i) m = std::max(m, std::abs(src[c * per + i]));
        dst[c] = m;
    }
    return s;
}

// A weight pair: x -> conv2d(Filter = dequantize_linear(quantize_linear(w, ws), ws)) -> y.
// `values`: the weight and scale hold data (else a topology: shapes only).
graph::graph weight_pair(bool values = true) {
    graph::graph g;
    graph::builder b(g);
    b.declare("x", {-1, ic, 6, 6});
    b.declare("wq", {oc, ic, 3, 3});
    b.declare("wd", {oc, ic, 3, 3});
    b.declare("y", {-1, oc, 6, 6});
    auto w = test::random_tensor({oc, ic, 3, 3}, 11);
    if (values) {
        test::param(b, "ws", channel_abs_max(w));
        test::param(b, "w", std::move(w));
    } else {
        graph::var_node wv;
        wv.name = "w";
        wv.shape = {oc, ic, 3, 3};
        wv.persistable = true;
        b.declare(std::move(wv));
        graph::var_node sv;
        sv.name = "ws";
        sv.shape = {oc};
        sv.persistable = true;
        b.declare(std::move(sv));
    }
    b.feed("x", 0);
    b.add_op("quantize_linear", {{"X", {"w"}}, {"Scale", {"ws"}}}, {{"Y", {"wq"}}},
             linear_attrs(0));
    b.add_op("dequantize_linear", {{"X", {"wq"}}, {"Scale", {"ws"}}}, {{"Y", {"wd"}}},
             linear_attrs(0));
    b.add_op("conv2d", {{"Input", {"x"}}, {"Filter", {"wd"}}}, {{"Output", {"y"}}},
             test::conv_attrs());
    b.fetch("y", 0);
    b.finish();
    return g;
}

struct act_options {
    int round_type = -1;       // -1: the attribute absent (quantize_linear's default 0)
    int dq_bits = 8;           // dequantize_linear's bit_length
    bool other_scale = false;  // dequantize_linear reads a second parameter of equal value
    bool per_channel = false;  // Scale [ic], quant_axis 1
    bool also_read = false;    // a relu reads the quantized values too (fetched)
};

// An activation pair: x -> quantize_linear(s) -> xq -> dequantize_linear(s) -> xd -> conv -> y.
graph::graph activation_pair(const act_options& o = {}) {
    graph::graph g;
    graph::builder b(g);
    for (const char* n : {"x", "xq", "xd", "r"}) b.declare(n, {-1, ic, 6, 6});
    b.declare("y", {-1, oc, 6, 6});
    test::param(b, "w", test::random_tensor({oc, ic, 3, 3}, 12));
    if (o.per_channel)
        test::param(b, "s", tensor::from<float>({ic}, std::vector<float>{0.5f, 0.75f, 1.f, 0.25f}));
    else
        test::param(b, "s", tensor::from<float>({1}, std::vector<float>{0.75f}));
    test::param(b, "s2", tensor::from<float>({1}, std::vector<float>{0.75f}));
    b.feed("x", 0);
    const int axis = o.per_channel ? 1 : -1;
    b.add_op("quantize_linear", {{"X", {"x"}}, {"Scale", {"s"}}}, {{"Y", {"xq"}}},
             linear_attrs(axis, o.round_type));
    b.add_op("dequantize_linear", {{"X", {"xq"}}, {"Scale", {o.other_scale ? "s2" : "s"}}},
             {{"Y", {"xd"}}}, linear_attrs(axis, o.round_type, o.dq_bits));
    b.add_op("conv2d", {{"Input", {"xd"}}, {"Filter", {"w"}}}, {{"Output", {"y"}}},
             test::conv_attrs());
    if (o.also_read) b.add_op("relu", {{"X", {"xq"}}}, {{"Out", {"r"}}}, {});
    b.fetch("y", 0);
    if (o.also_read) b.fetch("r", 1);
    b.finish();
    return g;
}

test::feeds_t input() {
    return {{"x", test::random_tensor({2, ic, 6, 6}, 13, -1.2f, 1.2f)}};
}

}  // namespace

TEST_CASE("a quantize/dequantize pair on a weight becomes one folded parameter") {
    auto g = weight_pair();
    auto before = g;
    CHECK(passes::fold_quant_linear(g) == 1);
    CHECK(test::count_ops(g, "quantize_linear") == 0);
    CHECK(test::count_ops(g, "dequantize_linear") == 0);
    CHECK(g.ops.size() == 1);
    const int conv = test::only_op(g, "conv2d");
    CHECK(test::in_name(g, conv, "Input") == "x");
    CHECK(test::in_name(g, conv, "Filter") == "wd.folded");
    const int f = graph::input_var(g.ops[conv], "Filter");
    REQUIRE(f >= 0);
    REQUIRE(g.vars[f].value.has_value());
    CHECK(g.vars[f].value->shape() == shape_t{oc, ic, 3, 3});
    // The folded values are the weight on its per-channel grid: step ws[c] / 127.
    const auto w = *before.vars[before.find_var("w")].value;
    const auto ws = channel_abs_max(w);
    const auto folded = g.vars[f].value->span<float>();
    const std::int64_t per = ic * 9;
    for (std::int64_t c = 0; c < oc; ++c)
        for (std::int64_t i = 0; i < per; ++i) {
            const float step = ws.span<float>()[c] / 127.f;
            const float v = folded[c * per + i], orig = w.span<float>()[c * per + i];
            CHECK(std::abs(v - orig) <= step * 0.5f + 1e-6f);
            CHECK(std::abs(v / step - std::round(v / step)) < 1e-3f);
        }
    // The two float ops ran once at fold time, as the graph ran them: the same bits.
    test::check_identical_outputs(before, g, input());
}

TEST_CASE("a weight pair of a topology (no values) folds to a declared parameter") {
    auto g = weight_pair(false);
    CHECK(passes::fold_quant_linear(g) == 1);
    const int conv = test::only_op(g, "conv2d");
    const int f = graph::input_var(g.ops[conv], "Filter");
    REQUIRE(f >= 0);
    CHECK(g.vars[f].name == "wd.folded");
    CHECK(g.vars[f].persistable);
    CHECK(!g.vars[f].value.has_value());
    CHECK(g.vars[f].shape == shape_t{oc, ic, 3, 3});
}

TEST_CASE("a weight whose Scale has no value is not folded") {
    auto g = weight_pair();
    g.vars[g.find_var("ws")].value.reset();
    CHECK(passes::fold_quant_linear(g) == 0);
    CHECK(test::count_ops(g, "quantize_linear") == 1);
    CHECK(test::count_ops(g, "dequantize_linear") == 1);
}

TEST_CASE("a quantize/dequantize pair on an activation becomes one fake quant-dequant op") {
    for (int rt : {-1, 0, 1}) {
        INFO("round_type " << rt);
        act_options o;
        o.round_type = rt;
        auto g = activation_pair(o);
        auto before = g;
        CHECK(passes::fold_quant_linear(g) == 1);
        CHECK(test::count_ops(g, "quantize_linear") == 0);
        CHECK(test::count_ops(g, "dequantize_linear") == 0);
        const int f = test::only_op(g, "fake_quantize_dequantize_moving_average_abs_max");
        CHECK(test::in_name(g, f, "X") == "x");
        CHECK(test::in_name(g, f, "InScale") == "s");
        CHECK(test::out_name(g, f, "Out") == "xd");
        CHECK(g.find_var("xq") < 0);
        // The rounding of quantize_linear (default 0: half to even) carries over.
        CHECK(g.ops[f].attrs.get<int>("round_type", -1) == (rt < 0 ? 0 : rt));
        const int conv = test::only_op(g, "conv2d");
        CHECK(test::in_name(g, conv, "Input") == "xd");
        // The same integer q; only the dequantisation's float rounding differs
        // (q * s / 127 against q * (s / 127): within 2 ulp of each value), which a
        // 36-tap conv of weights in [-1, 1) keeps far below 1e-5.
        test::check_same_outputs(before, g, input(), 1e-5);
    }
}

TEST_CASE("activation pairs it refuses") {
    act_options per_channel;
    per_channel.per_channel = true;  // an activation takes one scale only
    act_options other_scale;
    other_scale.other_scale = true;  // the dequantize reads another Scale
    act_options bits;
    bits.dq_bits = 4;  // the two ops disagree on bit_length
    act_options shared;
    shared.also_read = true;  // the quantized values have another reader
    for (auto* o : {&per_channel, &other_scale, &bits, &shared}) {
        auto g = activation_pair(*o);
        const auto ops = g.ops.size();
        CHECK(passes::fold_quant_linear(g) == 0);
        CHECK(g.ops.size() == ops);
        CHECK(test::count_ops(g, "fake_quantize_dequantize_moving_average_abs_max") == 0);
    }
}

}  // namespace passes_fold_quant_linear_test
