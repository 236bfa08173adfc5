// fold_quant_dequant_split: the older QAT export, fake_quantize_moving_average_abs_max
// (scale s) -> conv / mul with integer weights Wq -> fake_dequantize_max_abs
// (Scale s, max_range), becomes one fake_quantize_dequantize_moving_average_abs_max
// and the weight Wq * 127 / max_range.
#include <cmath>

#include "litegraph/passes/quantize_int8.hpp"
#include "passes/support_passes.hpp"

using namespace litegraph;

namespace passes_fold_quant_dequant_split_test {

namespace {

constexpr std::int64_t ic = 4, oc = 5, k = 16, n = 6;
constexpr float weight_scale = 0.5f;                       // the weight's abs-max range
constexpr float max_range = 127.f * 127.f / weight_scale;  // as the export writes it

// Integer weights in [-127, 127] (kept in float32, as the export keeps them).
tensor integer_weights(const shape_t& shape, std::uint32_t seed) {
    auto t = test::random_tensor(shape, seed);
    for (auto& v : t.span<float>()) v = std::round(v * 127.f);
    return t;
}

attr_map dequant_attrs() {
    attr_map a;
    a.set("max_range", max_range);
    return a;
}

struct split_options {
    bool two_convs = false;        // a second conv reads the quantized input (its own pair)
    bool out_scale = false;        // the dequantize's Scale is the quantize op's OutScale
    bool out_scale_read = false;   // ... and a relu reads OutScale too
    bool also_relu = false;        // a relu reads the quantized values
    bool conv_relu = false;        // the conv's output goes to a relu, not the dequantize
    bool weight_is_input = false;  // the conv's Filter is a program input
    bool other_scale = false;      // the dequantize reads a different scale
    bool fetch_q = false;          // the quantized values are fetched
};

// x -> fake_quantize_moving_average_abs_max(s) -> q -> conv2d(Wq) -> c ->
// fake_dequantize_max_abs(s, max_range) -> y  (a second conv: q -> c2 -> y2).
graph::graph conv_split(const split_options& o = {}) {
    graph::graph g;
    graph::builder b(g);
    for (const char* v : {"x", "q", "r"}) b.declare(v, {-1, ic, 6, 6});
    for (const char* v : {"c", "y", "c2", "y2", "r2"}) b.declare(v, {-1, oc, 6, 6});
    b.declare("wi", {oc, ic, 3, 3});
    b.declare("s_out", {1});
    b.declare("sr", {1});
    test::param(b, "s", tensor::from<float>({1}, std::vector<float>{1.f}));
    test::param(b, "s_other", tensor::from<float>({1}, std::vector<float>{0.5f}));
    test::param(b, "w", integer_weights({oc, ic, 3, 3}, 21));
    test::param(b, "w2", integer_weights({oc, ic, 3, 3}, 22));
    b.feed("x", 0);
    if (o.weight_is_input) b.feed("wi", 1);
    graph::named_slots fq_out = {{"Out", {"q"}}};
    if (o.out_scale) fq_out.push_back({"OutScale", {"s_out"}});
    b.add_op("fake_quantize_moving_average_abs_max", {{"X", {"x"}}, {"InScale", {"s"}}}, fq_out,
             {});
    b.add_op("conv2d", {{"Input", {"q"}}, {"Filter", {o.weight_is_input ? "wi" : "w"}}},
             {{"Output", {"c"}}}, test::conv_attrs());
    const char* scale = o.other_scale ? "s_other" : (o.out_scale ? "s_out" : "s");
    if (o.conv_relu)
        b.add_op("relu", {{"X", {"c"}}}, {{"Out", {"y"}}}, {});
    else
        b.add_op("fake_dequantize_max_abs", {{"X", {"c"}}, {"Scale", {scale}}}, {{"Out", {"y"}}},
                 dequant_attrs());
    if (o.two_convs) {
        b.add_op("conv2d", {{"Input", {"q"}}, {"Filter", {"w2"}}}, {{"Output", {"c2"}}},
                 test::conv_attrs());
        b.add_op("fake_dequantize_max_abs", {{"X", {"c2"}}, {"Scale", {scale}}}, {{"Out", {"y2"}}},
                 dequant_attrs());
    }
    if (o.also_relu) b.add_op("relu", {{"X", {"q"}}}, {{"Out", {"r"}}}, {});
    if (o.out_scale_read) b.add_op("relu", {{"X", {"s_out"}}}, {{"Out", {"sr"}}}, {});
    b.fetch("y", 0);
    if (o.two_convs) b.fetch("y2", 1);
    if (o.also_relu) b.fetch("r", 2);
    if (o.out_scale_read) b.fetch("sr", 3);
    if (o.fetch_q) b.fetch("q", 4);
    b.finish();
    return g;
}

// The same with an fc: x [N, k] -> fake quantize -> q -> mul(Wq [k, n]) -> c -> dequantize -> y.
graph::graph mul_split() {
    graph::graph g;
    graph::builder b(g);
    b.declare("x", {-1, k});
    b.declare("q", {-1, k});
    b.declare("c", {-1, n});
    b.declare("y", {-1, n});
    test::param(b, "s", tensor::from<float>({1}, std::vector<float>{1.f}));
    test::param(b, "w", integer_weights({k, n}, 23));
    b.feed("x", 0);
    b.add_op("fake_quantize_moving_average_abs_max", {{"X", {"x"}}, {"InScale", {"s"}}},
             {{"Out", {"q"}}}, {});
    b.add_op("mul", {{"X", {"q"}}, {"Y", {"w"}}}, {{"Out", {"c"}}}, {});
    b.add_op("fake_dequantize_max_abs", {{"X", {"c"}}, {"Scale", {"s"}}}, {{"Out", {"y"}}},
             dequant_attrs());
    b.fetch("y", 0);
    b.finish();
    return g;
}

// The rewritten weight `name` holds Wq * 127 / max_range, as float32 computes it.
void check_dequantized_weight(const graph::graph& after, const graph::graph& before,
                              const std::string& wq, const std::string& name) {
    const int v = after.find_var(name);
    REQUIRE(v >= 0);
    REQUIRE(after.vars[v].value.has_value());
    const auto got = after.vars[v].value->span<float>();
    const auto orig = before.vars[before.find_var(wq)].value->span<float>();
    REQUIRE(got.size() == orig.size());
    const float kf = 127.f / max_range;
    int mismatches = 0;
    for (std::size_t i = 0; i < got.size(); ++i) mismatches += got[i] != orig[i] * kf;
    CHECK(mismatches == 0);
}

// Before the pass the conv sums integers exactly (|q|, |Wq| <= 127, 36 taps:
// below 2^24) and scales once; after it, it sums the float products of
// q * s / 127 and Wq * s_w / 127.  The dot product's rounding error is at
// most K * u * sum |terms| (u = 2^-24): 36 * 6e-8 * 36 * 0.5 = 3.9e-5 here,
// under the 1e-4 (mixed absolute / relative) checked.
constexpr double split_tolerance = 1e-4;

}  // namespace

TEST_CASE("fake quantize -> conv -> fake dequantize becomes the quant-dequant form") {
    auto g = conv_split();
    auto before = g;
    CHECK(passes::fold_quant_dequant_split(g) == 1);
    CHECK(test::count_ops(g, "fake_quantize_moving_average_abs_max") == 0);
    CHECK(test::count_ops(g, "fake_dequantize_max_abs") == 0);
    CHECK(g.ops.size() == 2);
    const int f = test::only_op(g, "fake_quantize_dequantize_moving_average_abs_max");
    CHECK(test::in_name(g, f, "X") == "x");
    CHECK(test::in_name(g, f, "InScale") == "s");
    CHECK(test::out_name(g, f, "Out") == "q");
    const int conv = test::only_op(g, "conv2d");
    CHECK(test::in_name(g, conv, "Input") == "q");
    CHECK(test::in_name(g, conv, "Filter") == "w.dequantized");
    CHECK(test::out_name(g, conv, "Output") == "y");
    CHECK(g.find_var("c") < 0);
    check_dequantized_weight(g, before, "w", "w.dequantized");
    test::check_same_outputs(before, g, {{"x", test::random_tensor({2, ic, 6, 6}, 24)}},
                             split_tolerance);
}

TEST_CASE("every reader of the quantized input is folded with its own weight") {
    split_options o;
    o.two_convs = true;
    auto g = conv_split(o);
    auto before = g;
    CHECK(passes::fold_quant_dequant_split(g) == 1);  // one fake quantize op
    CHECK(test::count_ops(g, "fake_dequantize_max_abs") == 0);
    CHECK(test::count_ops(g, "conv2d") == 2);
    CHECK(test::count_ops(g, "fake_quantize_dequantize_moving_average_abs_max") == 1);
    check_dequantized_weight(g, before, "w", "w.dequantized");
    check_dequantized_weight(g, before, "w2", "w2.dequantized");
    test::check_same_outputs(before, g, {{"x", test::random_tensor({2, ic, 6, 6}, 25)}},
                             split_tolerance);
}

TEST_CASE("an fc (mul) pair becomes the quant-dequant form") {
    auto g = mul_split();
    auto before = g;
    CHECK(passes::fold_quant_dequant_split(g) == 1);
    CHECK(test::count_ops(g, "fake_dequantize_max_abs") == 0);
    const int m = test::only_op(g, "mul");
    CHECK(test::in_name(g, m, "Y") == "w.dequantized");
    CHECK(test::out_name(g, m, "Out") == "y");
    check_dequantized_weight(g, before, "w", "w.dequantized");
    // 16 taps of |q s / 127| <= 1 and |w| <= 0.5: a bound of 16 * 6e-8 * 8.
    test::check_same_outputs(before, g, {{"x", test::random_tensor({3, k}, 26)}}, 1e-5);
}

TEST_CASE("the dequantize may read the quantize op's OutScale when nothing else does") {
    split_options o;
    o.out_scale = true;
    auto g = conv_split(o);
    CHECK(passes::fold_quant_dequant_split(g) == 1);
    const int f = test::only_op(g, "fake_quantize_dequantize_moving_average_abs_max");
    CHECK(test::in_name(g, f, "InScale") == "s");
    CHECK(g.ops[f].outputs.size() == 1);  // OutScale is gone with the pairs
    CHECK(test::count_ops(g, "fake_dequantize_max_abs") == 0);

    o.out_scale_read = true;
    auto read = conv_split(o);
    CHECK(passes::fold_quant_dequant_split(read) == 0);
}

TEST_CASE("split forms it refuses") {
    auto refuse = [](split_options o, const char* why) {
        INFO(why);
        auto g = conv_split(o);
        const auto ops = g.ops.size();
        CHECK(passes::fold_quant_dequant_split(g) == 0);
        CHECK(g.ops.size() == ops);
        CHECK(test::count_ops(g, "fake_quantize_moving_average_abs_max") == 1);
        CHECK(test::count_ops(g, "fake_quantize_dequantize_moving_average_abs_max") == 0);
    };
    split_options o;
    o.also_relu = true;
    refuse(o, "a relu reads the integer values");
    o = {};
    o.conv_relu = true;
    refuse(o, "the conv's output is not dequantized");
    o = {};
    o.weight_is_input = true;
    refuse(o, "the filter is not a parameter");
    o = {};
    o.other_scale = true;
    refuse(o, "the dequantize reads another scale");
    o = {};
    o.fetch_q = true;
    refuse(o, "the integer values are fetched");
}

}  // namespace passes_fold_quant_dequant_split_test
