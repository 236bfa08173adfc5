// fuse_gate: sigmoid/hard_sigmoid conv -> elementwise_mul writes the product
// (mul_with for equal shapes, mul_plane for the SE gate [N,C,1,1] x [N,C,H,W]).
#include "litegraph/passes/fuse_gate.hpp"

#include "passes/support_passes.hpp"

using namespace litegraph;

namespace passes_fuse_gate_test {

namespace {

// other = relu(x) [N,C,H,W]; gate = act(conv(src) + b) where src is x (mul_with,
// same shape) or pool(x) [N,C,1,1] (SE, mul_plane); y = mul(...).
graph::graph gate_graph(const std::string& act, bool se, bool gate_is_x) {
    graph::graph g;
    graph::builder b(g);
    const std::int64_t c = 6;
    b.declare("x", {-1, c, 5, 7});
    b.declare("other", {-1, c, 5, 7});
    const shape_t gs = se ? shape_t{-1, c, 1, 1} : shape_t{-1, c, 5, 7};
    b.declare("pooled", {-1, c, 1, 1});
    b.declare("gate", gs);
    b.declare("y", {-1, c, 5, 7});
    test::param(b, "w", test::random_tensor({c, c, se ? 1 : 3, se ? 1 : 3}, 1));
    test::param(b, "fb", test::random_tensor({c}, 2));
    b.feed("x", 0);
    b.add_op("relu", {{"X", {"x"}}}, {{"Out", {"other"}}}, {});
    if (se) {
        attr_map pa;
        pa.set("pooling_type", std::string("avg"));
        pa.set("adaptive", true);
        pa.set("ksize", std::vector<std::int32_t>{1, 1});
        b.add_op("pool2d", {{"X", {"x"}}}, {{"Out", {"pooled"}}}, pa);
    }
    auto fa = test::conv_attrs(1, se ? 0 : 1);
    fa.set("stages", test::conv_stages(act));
    b.add_op("fused_conv2d",
             {{"Input", {se ? "pooled" : "x"}}, {"Filter", {"w"}}, {"Bias", {"fb"}}},
             {{"Output", {"gate"}}}, fa);
    attr_map ma;
    ma.set("axis", std::int32_t{-1});
    if (gate_is_x)
        b.add_op("elementwise_mul", {{"X", {"gate"}}, {"Y", {"other"}}}, {{"Out", {"y"}}}, ma);
    else
        b.add_op("elementwise_mul", {{"X", {"other"}}, {"Y", {"gate"}}}, {{"Out", {"y"}}}, ma);
    b.fetch("y", 0);
    b.finish();
    return g;
}

}  // namespace

TEST_CASE("a gate conv and its mul become one fused conv with a mul terminal") {
    for (std::string act : {"sigmoid", "hard_sigmoid"})
        for (bool se : {false, true})
            for (bool gate_is_x : {false, true}) {
                INFO(act << (se ? " SE" : " same shape") << (gate_is_x ? " gate=X" : " gate=Y"));
                auto g = gate_graph(act, se, gate_is_x);
                auto before = g;
                CHECK(passes::fuse_gate(g) == 1);
                CHECK(test::count_ops(g, "elementwise_mul") == 0);
                int f = test::only_op(g, "fused_conv2d");
                CHECK(test::stages_of(g.ops[f]) ==
                      test::conv_stages(act, se ? "mul_plane" : "mul_with"));
                CHECK(test::in_name(g, f, "Other") == "other");
                CHECK(test::out_name(g, f, "Output") == "y");
                CHECK(g.find_var("gate") < 0);
                test::check_same_outputs(before, g, {{"x", test::random_tensor({2, 6, 5, 7}, 4)}});
            }
}

TEST_CASE("no gate for other activations, a fetched gate, or mismatched channels") {
    auto relu = gate_graph("relu", true, false);
    CHECK(passes::fuse_gate(relu) == 0);

    auto fetched = gate_graph("sigmoid", true, false);
    fetched.fetches.push_back({fetched.find_var("gate"), 1});
    CHECK(passes::fuse_gate(fetched) == 0);

    auto wrong = gate_graph("sigmoid", true, false);
    wrong.vars[wrong.find_var("other")].shape = {-1, 3, 5, 7};
    CHECK(passes::fuse_gate(wrong) == 0);

    auto unknown = gate_graph("sigmoid", true, false);
    unknown.vars[unknown.find_var("gate")].shape = {-1, -1, 1, 1};
    CHECK(passes::fuse_gate(unknown) == 0);
}

TEST_CASE("gate_terminal compares what the declared shapes know") {
    CHECK(passes::gate_terminal({-1, 8, 1, 1}, {-1, 8, 20, 30}) == "mul_plane");
    CHECK(passes::gate_terminal({-1, 8, 1, 1}, {-1, 8, -1, -1}) == "mul_plane");
    CHECK(passes::gate_terminal({-1, 8, 4, 4}, {-1, 8, 4, 4}) == "mul_with");
    CHECK(passes::gate_terminal({-1, 8, 1, 1}, {-1, 8, 1, 1}) == "mul_with");
    CHECK(passes::gate_terminal({-1, 8, 4, 4}, {-1, 8, 1, 1}) == "");  // the gate broadcasts
    CHECK(passes::gate_terminal({1, 8, 1, 1}, {-1, 8, 4, 4}) == "");   // batch may differ
    CHECK(passes::gate_terminal({-1, 8, 1, 1}, {-1, 4, 4, 4}) == "");
    CHECK(passes::gate_terminal({8, 1, 1}, {8, 4, 4}) == "");
}

}  // namespace passes_fuse_gate_test
