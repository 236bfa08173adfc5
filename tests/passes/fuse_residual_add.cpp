// fuse_residual_add: conv (no activation) -> elementwise_add(activation of
// the same shape) becomes terminal add_with.
#include "litegraph/passes/fuse_residual_add.hpp"

#include "passes/support_passes.hpp"

using namespace litegraph;

namespace passes_fuse_residual_add_test {

namespace {

graph::graph residual(const std::string& conv_type, const std::string& act, bool conv_is_x,
                      const shape_t& shortcut_shape = {-1, 4, 6, 6}) {
    graph::graph g;
    graph::builder b(g);
    b.declare("x", {-1, 4, 6, 6});
    b.declare("shortcut", shortcut_shape);
    for (const char* n : {"c", "y"}) b.declare(n, {-1, 4, 6, 6});
    test::param(b, "w", test::random_tensor({4, 4, 3, 3}, 1));
    test::param(b, "fb", test::random_tensor({4}, 2));
    b.feed("x", 0);
    b.add_op("tanh", {{"X", {"x"}}}, {{"Out", {"shortcut"}}}, {});
    graph::named_slots in = {{"Input", {"x"}}, {"Filter", {"w"}}};
    auto ca = test::conv_attrs();
    if (conv_type == "fused_conv2d") {
        in.push_back({"Bias", {"fb"}});
        ca.set("stages", test::conv_stages(act));
    }
    b.add_op(conv_type, in, {{"Output", {"c"}}}, ca);
    graph::named_slots add_in = {{"X", {conv_is_x ? "c" : "shortcut"}},
                                 {"Y", {conv_is_x ? "shortcut" : "c"}}};
    b.add_op("elementwise_add", add_in, {{"Out", {"y"}}}, {});
    b.fetch("y", 0);
    b.finish();
    return g;
}

}  // namespace

TEST_CASE("conv + shortcut becomes a fused conv with terminal add_with") {
    for (std::string conv_type : {"fused_conv2d", "conv2d"})
        for (bool conv_is_x : {true, false}) {
            INFO(conv_type << (conv_is_x ? " conv=X" : " conv=Y"));
            auto g = residual(conv_type, "", conv_is_x);
            auto before = g;
            CHECK(passes::fuse_residual_add(g) == 1);
            CHECK(test::count_ops(g, "elementwise_add") == 0);
            int f = test::only_op(g, "fused_conv2d");
            CHECK(test::stages_of(g.ops[f]) == std::vector<std::string>{"bias", "add_with"});
            CHECK(test::in_name(g, f, "Other") == "shortcut");
            CHECK(test::out_name(g, f, "Output") == "y");
            CHECK(graph::input_var(g.ops[f], "Bias") >= 0);
            test::check_same_outputs(before, g, {{"x", test::random_tensor({2, 4, 6, 6}, 3)}});
        }
}

TEST_CASE("no add_with after an activation (not in the kernel list) or for another shape") {
    CHECK_FALSE(passes::fused_conv_exists({"bias", "relu", "add_with"}));
    auto act = residual("fused_conv2d", "relu", true);
    CHECK(passes::fuse_residual_add(act) == 0);
    auto broadcast = residual("fused_conv2d", "", true, {-1, 4, 1, 1});
    CHECK(passes::fuse_residual_add(broadcast) == 0);
}

}  // namespace passes_fuse_residual_add_test
