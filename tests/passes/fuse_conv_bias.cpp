// fuse_conv_bias: conv -> elementwise_add(per-channel parameter) -> Bias.
#include "litegraph/passes/fuse_conv_bias.hpp"

#include "passes/support_passes.hpp"

using namespace litegraph;

namespace passes_fuse_conv_bias_test {

namespace {

attr_map axis(int a) {
    attr_map m;
    m.set("axis", std::int32_t{a});
    return m;
}

// x [1,3,6,6] -> conv(w) -> c -> elementwise_add(c, bias) -> y -> relu -> z
graph::graph conv_add(const std::string& conv_type, shape_t bias_shape, int add_axis,
                      bool conv_has_bias = false) {
    graph::graph g;
    graph::builder b(g);
    b.declare("x", {-1, 4, 6, 6});
    for (const char* n : {"c", "y", "z"}) b.declare(n, {-1, 4, 6, 6});
    const bool dw = conv_type == "depthwise_conv2d";
    test::param(b, "w", test::random_tensor({4, dw ? 1 : 4, 3, 3}, 1));
    test::param(b, "b", test::random_tensor(bias_shape, 2));
    test::param(b, "cb", test::random_tensor({4}, 3));
    b.feed("x", 0);
    graph::named_slots in = {{"Input", {"x"}}, {"Filter", {"w"}}};
    if (conv_has_bias) in.push_back({"Bias", {"cb"}});
    b.add_op(conv_type, in, {{"Output", {"c"}}}, test::conv_attrs(1, 1, dw ? 4 : 1));
    b.add_op("elementwise_add", {{"X", {"c"}}, {"Y", {"b"}}}, {{"Out", {"y"}}}, axis(add_axis));
    b.add_op("relu", {{"X", {"y"}}}, {{"Out", {"z"}}}, {});
    b.fetch("z", 0);
    b.finish();
    return g;
}

}  // namespace

TEST_CASE("a per-channel add after a conv becomes the fused conv's Bias") {
    struct case_t {
        std::string conv;
        shape_t bias;
        int axis;
        bool has_bias;
    };
    for (auto& c : {case_t{"conv2d", {4}, 1, false}, case_t{"depthwise_conv2d", {4}, 1, false},
                    case_t{"conv2d", {1, 4, 1, 1}, -1, false}, case_t{"conv2d", {4}, 1, true}}) {
        INFO(c.conv << " bias " << to_string(c.bias) << " axis " << c.axis);
        auto g = conv_add(c.conv, c.bias, c.axis, c.has_bias);
        auto before = g;
        CHECK(passes::fuse_conv_bias(g) == 1);
        CHECK(test::count_ops(g, "elementwise_add") == 0);
        int f = test::only_op(g, "fused_conv2d");
        CHECK(test::out_name(g, f, "Output") == "y");
        CHECK(test::stages_of(g.ops[f]) == std::vector<std::string>{"bias"});
        int bv = graph::input_var(g.ops[f], "Bias");
        REQUIRE(bv >= 0);
        CHECK(g.vars[bv].value->shape() == shape_t{4});
        CHECK(g.find_var("c") < 0);
        test::check_same_outputs(before, g, {{"x", test::random_tensor({2, 4, 6, 6}, 9)}});
    }
}

TEST_CASE("adds that are not a per-channel bias stay") {
    // Y [4] with the default axis broadcasts along W, not the channels.
    auto g = conv_add("conv2d", {6}, -1);
    CHECK(passes::fuse_conv_bias(g) == 0);
    // Y [1,4,6,6] is a full tensor.
    auto g2 = conv_add("conv2d", {1, 4, 6, 6}, -1);
    CHECK(passes::fuse_conv_bias(g2) == 0);
    CHECK(test::count_ops(g2, "elementwise_add") == 1);
}

TEST_CASE("an add of an activation is not a bias") {
    graph::graph g;
    graph::builder b(g);
    b.declare("x", {-1, 4, 6, 6});
    b.declare("s", {4});
    for (const char* n : {"c", "y"}) b.declare(n, {-1, 4, 6, 6});
    test::param(b, "w", test::random_tensor({4, 4, 3, 3}, 1));
    b.feed("x", 0);
    b.feed("s", 1);
    b.add_op("conv2d", {{"Input", {"x"}}, {"Filter", {"w"}}}, {{"Output", {"c"}}},
             test::conv_attrs());
    b.add_op("elementwise_add", {{"X", {"c"}}, {"Y", {"s"}}}, {{"Out", {"y"}}}, axis(1));
    b.fetch("y", 0);
    b.finish();
    CHECK(passes::fuse_conv_bias(g) == 0);
}

}  // namespace passes_fuse_conv_bias_test
