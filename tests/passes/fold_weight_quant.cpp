// fold_weight_quant: a fake quant-dequant op on a parameter is computed once
// into a new parameter, exactly as the float simulation computes it.
#include <cmath>

#include "litegraph/passes/quantize_int8.hpp"
#include "passes/support_passes.hpp"

using namespace litegraph;

namespace passes_fold_weight_quant_test {

namespace {

constexpr std::int64_t ic = 4, oc = 5, k = 12, n = 7;

struct weight_options {
    std::string fake = "fake_channel_wise_quantize_dequantize_abs_max";
    bool values = true;  // the weight holds data (else a topology)
    bool weight_is_input = false;
    bool fetch_out = false;    // the quant-dequantized weight is fetched
    bool read_scale = false;   // a relu reads OutScale
    bool int8_weight = false;  // the parameter holds int8, not float32
};

// x -> conv2d(Filter = fake(w)) -> y, OutScale declared beside the op's Out.
graph::graph conv_weight(const weight_options& o = {}) {
    graph::graph g;
    graph::builder b(g);
    b.declare("x", {-1, ic, 6, 6});
    b.declare("y", {-1, oc, 6, 6});
    b.declare("wd", {oc, ic, 3, 3});
    b.declare("ws", {oc});
    b.declare("sr", {oc});
    if (o.weight_is_input) {
        b.declare("w", {oc, ic, 3, 3});
    } else if (!o.values) {
        graph::var_node v;
        v.name = "w";
        v.shape = {oc, ic, 3, 3};
        v.persistable = true;
        b.declare(std::move(v));
    } else if (o.int8_weight) {
        test::param(b, "w", tensor(dtype::i8, {oc, ic, 3, 3}));
    } else {
        test::param(b, "w", test::random_tensor({oc, ic, 3, 3}, 31));
    }
    b.feed("x", 0);
    if (o.weight_is_input) b.feed("w", 1);
    attr_map a;
    a.set("bit_length", std::int32_t{8});
    a.set("quant_axis", std::int32_t{0});
    b.add_op(o.fake, {{"X", {"w"}}}, {{"Out", {"wd"}}, {"OutScale", {"ws"}}}, a);
    b.add_op("conv2d", {{"Input", {"x"}}, {"Filter", {"wd"}}}, {{"Output", {"y"}}},
             test::conv_attrs());
    if (o.read_scale) b.add_op("relu", {{"X", {"ws"}}}, {{"Out", {"sr"}}}, {});
    b.fetch("y", 0);
    if (o.fetch_out) b.fetch("wd", 1);
    if (o.read_scale) b.fetch("sr", 2);
    b.finish();
    return g;
}

// x [N, k] -> mul(Y = fake(w [k, n]), per column: quant_axis 1) -> y.
graph::graph mul_weight(const std::string& fake) {
    graph::graph g;
    graph::builder b(g);
    b.declare("x", {-1, k});
    b.declare("y", {-1, n});
    b.declare("wd", {k, n});
    test::param(b, "w", test::random_tensor({k, n}, 32));
    b.feed("x", 0);
    attr_map a;
    a.set("bit_length", std::int32_t{8});
    a.set("quant_axis", std::int32_t{1});
    b.add_op(fake, {{"X", {"w"}}}, {{"Out", {"wd"}}}, a);
    b.add_op("mul", {{"X", {"x"}}, {"Y", {"wd"}}}, {{"Out", {"y"}}}, {});
    b.fetch("y", 0);
    b.finish();
    return g;
}

// Every value of the folded weight lies on its channel's grid (abs max / 127,
// `axis` the channel dim of a [d0, d1, ...] weight; -1: one grid) within half
// a step of the original, and the channel's extreme value is kept exactly.
void check_on_grid(const tensor& folded, const tensor& orig, int axis) {
    const auto& s = orig.shape();
    REQUIRE(folded.shape() == s);
    const std::int64_t channels = axis < 0 ? 1 : s[static_cast<std::size_t>(axis)];
    std::int64_t inner = 1;
    for (std::size_t i = static_cast<std::size_t>(std::max(axis, 0)) + 1; i < s.size(); ++i)
        inner *= s[i];
    if (axis < 0) inner = orig.numel();
    auto channel_of = [&](std::int64_t i) { return (i / inner) % channels; };
    std::vector<float> m(static_cast<std::size_t>(channels), 0.f);
    const auto w = orig.span<float>(), f = folded.span<float>();
    for (std::int64_t i = 0; i < orig.numel(); ++i) {
        auto& mc = m[static_cast<std::size_t>(channel_of(i))];
        mc = std::max(mc, std::abs(w[i]));
    }
    int off_grid = 0, far = 0;
    std::vector<float> fm(m.size(), 0.f);
    for (std::int64_t i = 0; i < orig.numel(); ++i) {
        const auto c = static_cast<std::size_t>(channel_of(i));
        const float step = m[c] / 127.f;
        off_grid += std::abs(f[i] / step - std::round(f[i] / step)) > 1e-3f;
        far += std::abs(f[i] - w[i]) > step * 0.5f + 1e-6f;
        fm[c] = std::max(fm[c], std::abs(f[i]));
    }
    CHECK(off_grid == 0);
    CHECK(far == 0);
    for (std::size_t c = 0; c < m.size(); ++c) CHECK(std::abs(fm[c] - m[c]) <= 1e-6f * m[c]);
}

test::feeds_t conv_input() {
    return {{"x", test::random_tensor({2, ic, 6, 6}, 33)}};
}

}  // namespace

TEST_CASE("a per-channel fake quant-dequant on a conv filter is computed into a parameter") {
    auto g = conv_weight();
    auto before = g;
    CHECK(passes::fold_weight_quant(g) == 1);
    CHECK(test::count_ops(g, "fake_channel_wise_quantize_dequantize_abs_max") == 0);
    CHECK(g.ops.size() == 1);
    const int conv = test::only_op(g, "conv2d");
    CHECK(test::in_name(g, conv, "Filter") == "wd.folded");
    const int f = graph::input_var(g.ops[conv], "Filter");
    REQUIRE(g.vars[f].value.has_value());
    check_on_grid(*g.vars[f].value, *before.vars[before.find_var("w")].value, 0);
    // The op ran once at fold time as the graph ran it: the same bits.
    test::check_identical_outputs(before, g, conv_input());
}

TEST_CASE("per-tensor and per-column fake weights of an fc fold the same way") {
    for (std::string fake :
         {"fake_quantize_dequantize_abs_max", "fake_channel_wise_quantize_dequantize_abs_max"}) {
        INFO(fake);
        auto g = mul_weight(fake);
        auto before = g;
        CHECK(passes::fold_weight_quant(g) == 1);
        CHECK(test::count_ops(g, fake) == 0);
        const int m = test::only_op(g, "mul");
        CHECK(test::in_name(g, m, "Y") == "wd.folded");
        const int f = graph::input_var(g.ops[m], "Y");
        REQUIRE(g.vars[f].value.has_value());
        const bool per_tensor = fake == "fake_quantize_dequantize_abs_max";
        check_on_grid(*g.vars[f].value, *before.vars[before.find_var("w")].value,
                      per_tensor ? -1 : 1);
        test::check_identical_outputs(before, g, {{"x", test::random_tensor({3, k}, 34)}});
    }
}

TEST_CASE("a topology's fake weight folds to a declared parameter") {
    weight_options o;
    o.values = false;
    auto g = conv_weight(o);
    CHECK(passes::fold_weight_quant(g) == 1);
    const int conv = test::only_op(g, "conv2d");
    const int f = graph::input_var(g.ops[conv], "Filter");
    CHECK(g.vars[f].name == "wd.folded");
    CHECK(g.vars[f].persistable);
    CHECK(!g.vars[f].value.has_value());
    CHECK(g.vars[f].shape == shape_t{oc, ic, 3, 3});
}

TEST_CASE("fake weights it leaves alone") {
    auto refuse = [](weight_options o, const char* why) {
        INFO(why);
        auto g = conv_weight(o);
        CHECK(passes::fold_weight_quant(g) == 0);
        CHECK(test::count_ops(g, o.fake) == 1);
        CHECK(test::in_name(g, test::only_op(g, "conv2d"), "Filter") == "wd");
    };
    weight_options o;
    o.weight_is_input = true;
    refuse(o, "the quantized tensor is a program input, not a parameter");
    o = {};
    o.fetch_out = true;
    refuse(o, "the quant-dequantized weight is fetched");
    o = {};
    o.read_scale = true;
    refuse(o, "OutScale has a reader");
    o = {};
    o.int8_weight = true;
    refuse(o, "the parameter is not float32");
    // The activation op is not a weight op.
    o = {};
    o.fake = "fake_quantize_dequantize_moving_average_abs_max";
    auto g = conv_weight(o);
    CHECK(passes::fold_weight_quant(g) == 0);
}

}  // namespace passes_fold_weight_quant_test
