// fold_batch_norm: conv -> batch_norm becomes one fused_conv2d with new
// scale and bias parameters and the filter as it was; its outputs are those
// of conv -> batch_norm, bit for bit when the conv has no bias.
#include "litegraph/passes/fold_batch_norm.hpp"

#include <cmath>

#include "passes/support_passes.hpp"

using namespace litegraph;

namespace passes_fold_batch_norm_test {

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

// The fused and unfused graphs perform the same float operations in the same
// order; a compiler that contracts x * k + b into one FMA may do so in one of
// them and not in the other.
#if defined(__FMA__) || defined(__ARM_FEATURE_FMA) || defined(__aarch64__)
constexpr double exact_unless_fma = 1e-5;
#else
constexpr double exact_unless_fma = 0;
#endif

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
        CHECK(test::stages_of(node) == std::vector<std::string>{"bias"});
        CHECK(node.attrs.get<std::int64_t>("groups", 0) == (dw ? c : 1));
        CHECK(test::out_name(g, f, "Output") == "y");
        CHECK(test::in_name(g, f, "Input") == "x");
        // The filter as trained; new scale and bias; the statistics and the
        // conv output are gone.
        int wv = graph::input_var(node, "Filter"), kv = graph::input_var(node, "Scale"),
            bv = graph::input_var(node, "Bias");
        REQUIRE(wv >= 0);
        REQUIRE(kv >= 0);
        REQUIRE(bv >= 0);
        CHECK(g.vars[wv].name == "w");
        CHECK(test::max_abs_diff(g.vars[wv].value->span<float>(),
                                 before.vars[before.find_var("w")].value->span<float>()) == 0);
        CHECK(g.vars[kv].persistable);
        CHECK(g.vars[kv].value->shape() == shape_t{oc});
        CHECK(g.vars[bv].value->shape() == shape_t{oc});
        for (const char* gone : {"conv", "bn.scale", "bn.mean", "bn.var", "bn.bias"})
            CHECK(g.find_var(gone) < 0);
        // The folded values, by the formula, computed as batch_norm computes them.
        auto stat = [&](const char* s, std::int64_t k) {
            return before.vars[before.find_var(std::string("bn.") + s)].value->span<float>()[k];
        };
        for (std::int64_t k = 0; k < oc; ++k) {
            const float s = stat("scale", k) * (1.f / std::sqrt(stat("var", k) + 1e-3f));
            CHECK(g.vars[kv].value->span<float>()[k] == s);
            CHECK(g.vars[bv].value->span<float>()[k] == stat("bias", k) - stat("mean", k) * s);
        }
        // Bit for bit: the epilogue's v * k + b' is batch_norm's x * k + b.
        for (const char* kernel : {"fast", "reference"}) {
            INFO(kernel);
            auto unfused = before;
            auto fused = g;
            for (auto* gr : {&unfused, &fused})
                for (auto& op : gr->ops)
                    if (op.type.find("conv2d") != std::string::npos)
                        op.attrs.set("litegraph_kernel", std::string(kernel));
            const auto x = test::random_tensor({2, c, 7, 9}, 5);
            runtime::program pu(std::move(unfused)), pf(std::move(fused));
            pu.set_input("x", x);
            pf.set_input("x", x);
            pu.run();
            pf.run();
            CHECK(test::max_abs_diff(pf.output(0).span<float>(), pu.output(0).span<float>()) <=
                  exact_unless_fma);
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

TEST_CASE("a shared filter stays shared and unchanged") {
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
    CHECK(test::in_name(g, test::only_op(g, "fused_conv2d"), "Filter") == "w");
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
    fa.set("stages", test::conv_stages("relu"));
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

TEST_CASE("batch norm after batch norm: the second scale multiplies the first") {
    graph::graph g;
    graph::builder b(g);
    b.declare("x", {1, 3, 6, 6});
    for (const char* n : {"c1", "y1", "y2"}) b.declare(n, {1, 4, 6, 6});
    test::param(b, "w", test::random_tensor({4, 3, 3, 3}, 1));
    bn_params(b, "bn1", 4, 60);
    bn_params(b, "bn2", 4, 70);
    b.feed("x", 0);
    b.add_op("conv2d", {{"Input", {"x"}}, {"Filter", {"w"}}}, {{"Output", {"c1"}}},
             test::conv_attrs());
    add_bn(b, "c1", "bn1", "y1");
    add_bn(b, "y1", "bn2", "y2");
    b.fetch("y2", 0);
    b.finish();
    auto before = g;
    CHECK(passes::fold_batch_norm(g) == 2);
    REQUIRE(g.ops.size() == 1);
    const auto& n = g.ops[0];
    CHECK(n.type == "fused_conv2d");
    CHECK(test::in_name(g, 0, "Filter") == "w");
    auto k = [&](const char* p, std::int64_t c) {
        auto stat = [&](const char* s) {
            return before.vars[before.find_var(std::string(p) + "." + s)].value->span<float>()[c];
        };
        return stat("scale") * (1.f / std::sqrt(stat("var") + 1e-5f));
    };
    const auto scale = g.vars[graph::input_var(n, "Scale")].value->span<float>();
    for (std::int64_t c = 0; c < 4; ++c) CHECK(scale[c] == k("bn1", c) * k("bn2", c));
    test::check_same_outputs(before, g, {{"x", test::random_tensor({1, 3, 6, 6}, 8)}});
}

TEST_CASE("fold_scale_into_filter moves a folded batch norm's scale into a new filter") {
    graph::graph g;
    graph::builder b(g);
    b.declare("x", {1, 3, 6, 6});
    for (const char* n : {"c1", "y1"}) b.declare(n, {1, 4, 6, 6});
    test::param(b, "w", test::random_tensor({4, 3, 3, 3}, 1));
    bn_params(b, "bn", 4, 80);
    b.feed("x", 0);
    b.add_op("conv2d", {{"Input", {"x"}}, {"Filter", {"w"}}}, {{"Output", {"c1"}}},
             test::conv_attrs());
    add_bn(b, "c1", "bn", "y1");
    b.fetch("y1", 0);
    b.finish();
    auto before = g;
    REQUIRE(passes::fold_batch_norm(g) == 1);
    auto folded = g;
    CHECK(passes::fold_scale_into_filter(g, 0));
    const auto& n = g.ops[0];
    CHECK(graph::input_var(n, "Scale") < 0);
    const int wv = graph::input_var(n, "Filter");
    REQUIRE(wv >= 0);
    CHECK(g.vars[wv].name != "w");
    const auto k = folded.vars[graph::input_var(folded.ops[0], "Scale")].value->span<float>();
    const auto w0 = before.vars[before.find_var("w")].value->span<float>();
    const auto w1 = g.vars[wv].value->span<float>();
    for (std::size_t i = 0; i < w1.size(); ++i) CHECK(w1[i] == w0[i] * k[i / 27]);
    test::check_same_outputs(before, g, {{"x", test::random_tensor({1, 3, 6, 6}, 9)}});
    CHECK(passes::fold_scale_into_filter(g, 0));  // no Scale: nothing to do
    CHECK(g.vars[graph::input_var(g.ops[0], "Filter")].name == g.vars[wv].name);
}

}  // namespace passes_fold_batch_norm_test
