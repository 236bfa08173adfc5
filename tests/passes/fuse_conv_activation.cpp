// fuse_conv_activation: conv -> activation sets the fused conv's activation.
#include "litegraph/passes/fuse_conv_activation.hpp"

#include "passes/support_passes.hpp"

using namespace litegraph;

namespace passes_fuse_conv_activation_test {

namespace {

attr_map act_attrs(const std::string& type) {
    attr_map a;
    if (type == "leaky_relu") a.set("alpha", 0.1f);
    if (type == "relu6") a.set("threshold", 4.f);
    if (type == "hard_sigmoid") {
        a.set("slope", 0.25f);
        a.set("offset", 0.4f);
    }
    if (type == "hard_swish") {
        a.set("threshold", 5.f);
        a.set("scale", 5.5f);
        a.set("offset", 2.5f);
    }
    a.set("op_callstack", std::vector<std::string>{"from the activation"});
    return a;
}

}  // namespace

TEST_CASE("every fusable activation after a conv fuses, attributes copied") {
    const auto types = ops::functor_names(ops::fusable_activations{});
    const std::vector<std::string> fusable(types.begin(), types.end());
    CHECK(fusable.size() >= 7);
    for (const std::string& act : fusable) {
        for (bool already_fused : {false, true}) {
            INFO(act << (already_fused ? " after fused_conv2d" : " after conv2d"));
            graph::graph g;
            graph::builder b(g);
            b.declare("x", {-1, 3, 8, 8});
            for (const char* n : {"c", "y"}) b.declare(n, {-1, 5, 8, 8});
            test::param(b, "w", test::random_tensor({5, 3, 3, 3}, 1, -2.f, 2.f));
            test::param(b, "fb", test::random_tensor({5}, 2));
            b.feed("x", 0);
            auto ca = test::conv_attrs();
            ca.set("op_callstack", std::vector<std::string>{"from the conv"});
            graph::named_slots in = {{"Input", {"x"}}, {"Filter", {"w"}}};
            if (already_fused) {
                ca.set("stages", test::conv_stages(""));
                in.push_back({"Bias", {"fb"}});
            }
            b.add_op(already_fused ? "fused_conv2d" : "conv2d", in, {{"Output", {"c"}}}, ca);
            b.add_op(act, {{"X", {"c"}}}, {{"Out", {"y"}}}, act_attrs(act));
            b.fetch("y", 0);
            b.finish();
            auto before = g;
            CHECK(passes::fuse_conv_activation(g) == 1);
            REQUIRE(g.ops.size() == 1);
            const auto& f = g.ops[0];
            CHECK(f.type == "fused_conv2d");
            CHECK(test::stages_of(f) == test::conv_stages(act));
            CHECK(test::out_name(g, 0, "Output") == "y");
            const auto expect_attrs = act_attrs(act);
            for (auto& [name, value] : expect_attrs.all())
                if (name != "op_callstack")
                    CHECK(f.attrs.get<float>(name, -1.f) == std::get<float>(value));
            CHECK(f.attrs.get<std::vector<std::string>>("op_callstack", {}).at(0) ==
                  "from the conv");
            // Every fused conv has a Bias: zeros for a conv that had none.
            int bv = graph::input_var(f, "Bias");
            REQUIRE(bv >= 0);
            if (!already_fused)
                for (float v : g.vars[bv].value->span<float>()) CHECK(v == 0.f);
            test::check_same_outputs(before, g, {{"x", test::random_tensor({2, 3, 8, 8}, 3)}});
        }
    }
}

TEST_CASE("no fusion across a second reader, a fetched conv output, or an existing activation") {
    graph::graph g;
    graph::builder b(g);
    b.declare("x", {1, 3, 8, 8});
    for (const char* n : {"c1", "y1", "y1b", "c2", "y2", "c3", "y3"}) b.declare(n, {1, 5, 8, 8});
    test::param(b, "w", test::random_tensor({5, 3, 3, 3}, 1));
    test::param(b, "fb", test::random_tensor({5}, 2));
    b.feed("x", 0);
    b.add_op("conv2d", {{"Input", {"x"}}, {"Filter", {"w"}}}, {{"Output", {"c1"}}},
             test::conv_attrs());
    b.add_op("relu", {{"X", {"c1"}}}, {{"Out", {"y1"}}}, {});
    b.add_op("sigmoid", {{"X", {"c1"}}}, {{"Out", {"y1b"}}}, {});
    b.add_op("conv2d", {{"Input", {"x"}}, {"Filter", {"w"}}}, {{"Output", {"c2"}}},
             test::conv_attrs());
    b.add_op("relu", {{"X", {"c2"}}}, {{"Out", {"y2"}}}, {});
    auto fa = test::conv_attrs();
    fa.set("stages", test::conv_stages("relu"));
    b.add_op("fused_conv2d", {{"Input", {"x"}}, {"Filter", {"w"}}, {"Bias", {"fb"}}},
             {{"Output", {"c3"}}}, fa);
    b.add_op("tanh", {{"X", {"c3"}}}, {{"Out", {"y3"}}}, {});
    int col = 0;
    for (const char* n : {"y1", "y1b", "c2", "y2", "y3"}) b.fetch(n, col++);
    b.finish();
    CHECK(passes::fuse_conv_activation(g) == 0);
}

TEST_CASE("fused_conv_exists answers from the closed kernel list") {
    CHECK(passes::fused_conv_exists({"bias", "relu"}));
    CHECK(passes::fused_conv_exists({"bias"}));
    CHECK(passes::fused_conv_exists({"bias", "hard_sigmoid", "mul_plane"}));
    CHECK(passes::fused_conv_exists({"bias", "sigmoid", "mul_with"}));
    CHECK(passes::fused_conv_exists({"bias", "add_with"}));
    CHECK_FALSE(passes::fused_conv_exists({}));
    CHECK_FALSE(passes::fused_conv_exists({"relu"}));  // every fused conv has its bias
    CHECK_FALSE(passes::fused_conv_exists({"bias", "relu", "add_with"}));
    CHECK_FALSE(passes::fused_conv_exists({"bias", "relu", "mul_plane"}));
    CHECK_FALSE(passes::fused_conv_exists({"bias", "swish"}));
    CHECK_FALSE(passes::fused_conv_exists({"relu", "bias"}));  // the order is the chain's
}

}  // namespace passes_fuse_conv_activation_test
