// fold_batch_norm: conv -> batch_norm becomes one fused_conv2d with new
// filter and bias parameters; shared weights stay untouched.
#include "litegraph/passes/fold_batch_norm.hpp"

#include <cmath>

#include "passes/support_passes.hpp"

using namespace litegraph;

namespace {

// Declares batch norm statistics `p`.scale/.bias/.mean/.var for `c` channels.
void bn_params(graph::builder& b, const std::string& p, std::int64_t c, std::uint32_t seed) {
    test::param(b, p + ".scale", test::random_tensor({c}, seed, 0.5f, 1.5f));
    test::param(b, p + ".bias", test::random_tensor({c}, seed + 1));
    test::param(b, p + ".mean", test::random_tensor({c}, seed + 2));
    test::param(b, p + ".var", test::random_tensor({c}, seed + 3, 0.1f, 2.f));
}

attr_map bn_attrs(float eps = 1e-5f) {
    attr_map a;
    a.set("epsilon", eps);
    a.set("data_layout", std::string("NCHW"));
    a.set("is_test", true);
    return a;
}

void add_bn(graph::builder& b, const std::string& x, const std::string& p, const std::string& y,
            float eps = 1e-5f) {
    b.add_op("batch_norm",
             {{"X", {x}},
              {"Scale", {p + ".scale"}},
              {"Bias", {p + ".bias"}},
              {"Mean", {p + ".mean"}},
              {"Variance", {p + ".var"}}},
             {{"Y", {y}}}, bn_attrs(eps));
}

}  // namespace

TEST_CASE("conv2d -> batch_norm folds into a fused_conv2d writing the batch norm's Y") {
    for (std::string conv_type : {"conv2d", "depthwise_conv2d"}) {
        INFO(conv_type);
        const bool dw = conv_type == "depthwise_conv2d";
        const std::int64_t c = 4, oc = dw ? 4 : 6;
        graph::graph g;
        graph::builder b(g);
        b.declare("x", {-1, c, 7, 9});
        b.declare("conv", {-1, oc, 7, 9});
        b.declare("y", {-1, oc, 7, 9});
        b.declare("z", {-1, oc, 7, 9});
        test::param(b, "w", test::random_tensor({oc, dw ? 1 : c, 3, 3}, 3));
        bn_params(b, "bn", oc, 10);
        b.feed("x", 0);
        b.add_op(conv_type, {{"Input", {"x"}}, {"Filter", {"w"}}}, {{"Output", {"conv"}}},
                 test::conv_attrs(1, 1, dw ? int(c) : 1));
        add_bn(b, "conv", "bn", "y", 1e-3f);
        b.add_op("relu", {{"X", {"y"}}}, {{"Out", {"z"}}}, {});
        b.fetch("z", 0);
        b.finish();
        auto before = g;
        CHECK(passes::fold_batch_norm(g) == 1);
        CHECK(test::count_ops(g, "batch_norm") == 0);
        int f = test::only_op(g, "fused_conv2d");
        const auto& node = g.ops[f];
        CHECK(node.attrs.get<std::string>("activation", "?") == "");
        CHECK(node.attrs.get<std::string>("terminal", "?") == "store");
        CHECK(node.attrs.get<std::int64_t>("groups", 0) == (dw ? c : 1));
        CHECK(test::out_name(g, f, "Output") == "y");
        CHECK(test::in_name(g, f, "Input") == "x");
        // New parameters; the originals and the conv output are gone.
        int wv = graph::input_var(node, "Filter"), bv = graph::input_var(node, "Bias");
        REQUIRE(wv >= 0);
        REQUIRE(bv >= 0);
        CHECK(g.vars[wv].name != "w");
        CHECK(g.vars[wv].persistable);
        CHECK(g.vars[bv].value->shape() == shape_t{oc});
        for (const char* gone : {"w", "conv", "bn.scale", "bn.mean"}) CHECK(g.find_var(gone) < 0);
        // The folded values, by the formula.
        const auto& w0 = *before.vars[before.find_var("w")].value;
        auto stat = [&](const char* s, std::int64_t k) {
            return before.vars[before.find_var(std::string("bn.") + s)].value->span<float>()[k];
        };
        const std::int64_t per = w0.numel() / oc;
        for (std::int64_t k = 0; k < oc; ++k) {
            const float s = stat("scale", k) / std::sqrt(stat("var", k) + 1e-3f);
            CHECK(g.vars[wv].value->span<float>()[k * per] ==
                  doctest::Approx(w0.span<float>()[k * per] * s).epsilon(1e-6));
            CHECK(g.vars[bv].value->span<float>()[k] ==
                  doctest::Approx(-stat("mean", k) * s + stat("bias", k)).epsilon(1e-6));
        }
        test::check_same_outputs(before, g, {{"x", test::random_tensor({2, c, 7, 9}, 5)}});
        CHECK(passes::fold_batch_norm(g) == 0);
    }
}

TEST_CASE("a conv's existing bias is folded too") {
    graph::graph g;
    graph::builder b(g);
    b.declare("x", {1, 3, 5, 5});
    b.declare("conv", {1, 5, 5, 5});
    b.declare("y", {1, 5, 5, 5});
    test::param(b, "w", test::random_tensor({5, 3, 3, 3}, 1));
    test::param(b, "cb", test::random_tensor({5}, 2));
    bn_params(b, "bn", 5, 20);
    b.feed("x", 0);
    b.add_op("conv2d", {{"Input", {"x"}}, {"Filter", {"w"}}, {"Bias", {"cb"}}},
             {{"Output", {"conv"}}}, test::conv_attrs());
    add_bn(b, "conv", "bn", "y");
    b.fetch("y", 0);
    b.finish();
    auto before = g;
    CHECK(passes::fold_batch_norm(g) == 1);
    CHECK(g.ops.size() == 1);
    CHECK(g.ops[0].type == "fused_conv2d");
    CHECK(g.find_var("cb") < 0);
    test::check_same_outputs(before, g, {{"x", test::random_tensor({1, 3, 5, 5}, 6)}});
}

TEST_CASE("a shared filter is never changed in place") {
    graph::graph g;
    graph::builder b(g);
    b.declare("x", {1, 3, 6, 6});
    for (const char* n : {"c1", "c2", "y1"}) b.declare(n, {1, 4, 6, 6});
    test::param(b, "w", test::random_tensor({4, 3, 3, 3}, 1));
    bn_params(b, "bn", 4, 30);
    b.feed("x", 0);
    b.add_op("conv2d", {{"Input", {"x"}}, {"Filter", {"w"}}}, {{"Output", {"c1"}}},
             test::conv_attrs());
    add_bn(b, "c1", "bn", "y1");
    b.add_op("conv2d", {{"Input", {"x"}}, {"Filter", {"w"}}}, {{"Output", {"c2"}}},
             test::conv_attrs());
    b.fetch("y1", 0);
    b.fetch("c2", 1);
    b.finish();
    auto before = g;
    CHECK(passes::fold_batch_norm(g) == 1);
    int w = g.find_var("w");
    REQUIRE(w >= 0);
    CHECK(test::max_abs_diff(g.vars[w].value->span<float>(),
                             before.vars[before.find_var("w")].value->span<float>()) == 0);
    int conv = test::only_op(g, "conv2d");
    CHECK(test::in_name(g, conv, "Filter") == "w");
    CHECK(test::in_name(g, test::only_op(g, "fused_conv2d"), "Filter") != "w");
    test::check_same_outputs(before, g, {{"x", test::random_tensor({1, 3, 6, 6}, 7)}});
}

TEST_CASE("no fold when the conv output has other readers, or after an activation") {
    graph::graph g;
    graph::builder b(g);
    b.declare("x", {1, 3, 6, 6});
    for (const char* n : {"c1", "y1", "r1", "c2", "y2"}) b.declare(n, {1, 4, 6, 6});
    test::param(b, "w", test::random_tensor({4, 3, 3, 3}, 1));
    test::param(b, "fb", test::random_tensor({4}, 2));
    bn_params(b, "bn", 4, 40);
    b.feed("x", 0);
    b.add_op("conv2d", {{"Input", {"x"}}, {"Filter", {"w"}}}, {{"Output", {"c1"}}},
             test::conv_attrs());
    add_bn(b, "c1", "bn", "y1");
    b.add_op("relu", {{"X", {"c1"}}}, {{"Out", {"r1"}}}, {});  // a second reader of c1
    attr_map fa = test::conv_attrs();
    fa.set("activation", std::string("relu"));
    fa.set("terminal", std::string("store"));
    b.add_op("fused_conv2d", {{"Input", {"x"}}, {"Filter", {"w"}}, {"Bias", {"fb"}}},
             {{"Output", {"c2"}}}, fa);
    add_bn(b, "c2", "bn", "y2");
    b.fetch("y1", 0);
    b.fetch("r1", 1);
    b.fetch("y2", 2);
    b.finish();
    CHECK(passes::fold_batch_norm(g) == 0);
    CHECK(test::count_ops(g, "batch_norm") == 2);
}

TEST_CASE("the batch norm's unread training outputs go with it") {
    graph::graph g;
    graph::builder b(g);
    b.declare("x", {1, 3, 6, 6});
    for (const char* n : {"c1", "y1"}) b.declare(n, {1, 4, 6, 6});
    test::param(b, "w", test::random_tensor({4, 3, 3, 3}, 1));
    bn_params(b, "bn", 4, 50);
    b.declare("saved_mean", {4});
    b.feed("x", 0);
    b.add_op("conv2d", {{"Input", {"x"}}, {"Filter", {"w"}}}, {{"Output", {"c1"}}},
             test::conv_attrs());
    b.add_op("batch_norm",
             {{"X", {"c1"}},
              {"Scale", {"bn.scale"}},
              {"Bias", {"bn.bias"}},
              {"Mean", {"bn.mean"}},
              {"Variance", {"bn.var"}}},
             {{"Y", {"y1"}},
              {"MeanOut", {"bn.mean"}},
              {"VarianceOut", {"bn.var"}},
              {"SavedMean", {"saved_mean"}}},
             bn_attrs());
    b.fetch("y1", 0);
    b.finish();
    CHECK(passes::fold_batch_norm(g) == 1);
    CHECK(g.ops.size() == 1);
    for (const char* gone : {"bn.mean@1", "bn.var@1", "saved_mean", "bn.mean"})
        CHECK(g.find_var(gone) < 0);
}
