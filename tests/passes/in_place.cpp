// in_place: which ops may write over a dying input, by slot.
#include "litegraph/passes/in_place.hpp"

#include "passes/support_passes.hpp"

using namespace litegraph;

namespace passes_in_place_test {

namespace {

std::string marked(const graph::graph& g, const std::string& out_var) {
    int v = g.find_var(out_var);
    REQUIRE(v >= 0);
    int op = g.vars[v].producer;
    REQUIRE(op >= 0);
    return g.ops[op].attrs.get<std::string>("in_place", "");
}

attr_map axis(int a) {
    attr_map m;
    m.set("axis", std::int32_t{a});
    return m;
}

}  // namespace

TEST_CASE("element-wise ops, aliases, gates, depthwise convs and concats are marked") {
    const std::int64_t c = 4;
    graph::graph g;
    graph::builder b(g);
    const shape_t full{-1, c, 6, 6};
    b.declare("x", full);
    for (const char* n : {"r", "s", "t", "dw", "pw", "gated", "h", "m", "k1", "k2"})
        b.declare(n, full);
    b.declare("pooled", {-1, c, 1, 1});
    b.declare("gp", {-1, c, 1, 1});
    b.declare("cat", {-1, 2 * c, 6, 6});
    b.declare("flat", {-1, 2 * c * 36});
    test::param(b, "bias", test::random_tensor({c}, 1));
    test::param(b, "wdw", test::random_tensor({c, 1, 3, 3}, 2));
    test::param(b, "wpw", test::random_tensor({c, c, 1, 1}, 3));
    test::param(b, "b0", test::random_tensor({c}, 4));
    b.feed("x", 0);
    // relu reads the feed: never in place.
    b.add_op("relu", {{"X", {"x"}}}, {{"Out", {"r"}}}, {});
    // add with a broadcast parameter Y: X.
    b.add_op("elementwise_add", {{"X", {"r"}}, {"Y", {"bias"}}}, {{"Out", {"s"}}}, axis(1));
    // scale: X.
    attr_map sa;
    sa.set("scale", 2.f);
    b.add_op("scale", {{"X", {"s"}}}, {{"Out", {"t"}}}, sa);
    // depthwise fused conv, store: Input.
    auto dwa = test::conv_attrs(1, 1, int(c));
    dwa.set("stages", test::conv_stages("relu"));
    b.add_op("fused_conv2d", {{"Input", {"t"}}, {"Filter", {"wdw"}}, {"Bias", {"b0"}}},
             {{"Output", {"dw"}}}, dwa);
    // pointwise conv, not depthwise: no mark.  dw is also read by the pool.
    auto pwa = test::conv_attrs(1, 0, 1);
    pwa.set("stages", test::conv_stages(""));
    b.add_op("fused_conv2d", {{"Input", {"dw"}}, {"Filter", {"wpw"}}, {"Bias", {"b0"}}},
             {{"Output", {"pw"}}}, pwa);
    attr_map pa;
    pa.set("pooling_type", std::string("avg"));
    pa.set("global_pooling", true);
    pa.set("ksize", std::vector<std::int32_t>{1, 1});
    b.add_op("pool2d", {{"X", {"pw"}}}, {{"Out", {"pooled"}}}, pa);
    // SE gate over pw: pw dies at the gate -> Other.
    auto ga = test::conv_attrs(1, 0, 1);
    ga.set("stages", test::conv_stages("hard_sigmoid", "mul_plane"));
    b.add_op("fused_conv2d",
             {{"Input", {"pooled"}}, {"Filter", {"wpw"}}, {"Bias", {"b0"}}, {"Other", {"pw"}}},
             {{"Output", {"gated"}}}, ga);
    // mul(small X, full Y): Y.
    b.add_op("sigmoid", {{"X", {"pooled"}}}, {{"Out", {"gp"}}}, {});
    b.add_op("elementwise_mul", {{"X", {"gp"}}, {"Y", {"gated"}}}, {{"Out", {"m"}}}, {});
    // hard_swish: X.
    b.add_op("hard_swish", {{"X", {"m"}}}, {{"Out", {"h"}}}, {});
    // two producers feeding a concat only: X.
    b.add_op("relu", {{"X", {"h"}}}, {{"Out", {"k1"}}}, {});
    b.add_op("tanh", {{"X", {"dw"}}}, {{"Out", {"k2"}}}, {});
    b.add_op("concat", {{"X", {"k1", "k2"}}}, {{"Out", {"cat"}}}, axis(1));
    attr_map fl;
    fl.set("axis", std::int32_t{1});
    b.add_op("flatten2", {{"X", {"cat"}}}, {{"Out", {"flat"}}}, fl);
    b.fetch("flat", 0);
    b.finish();
    auto before = g;
    const int n = passes::mark_in_place(g);
    CHECK(marked(g, "r") == "");  // reads the feed
    CHECK(marked(g, "s") == "X");
    CHECK(marked(g, "t") == "X");
    CHECK(marked(g, "dw") == "Input");
    CHECK(marked(g, "pw") == "");          // not depthwise
    CHECK(marked(g, "gated") == "Other");  // pw's last reader (after the pool)
    CHECK(marked(g, "gp") == "X");         // pooled: the gate read it first
    CHECK(marked(g, "m") == "Y");
    CHECK(marked(g, "h") == "X");
    CHECK(marked(g, "k1") == "X");
    CHECK(marked(g, "k2") == "X");  // dw's last reader (pw read it first)
    CHECK(marked(g, "cat") == "X");
    CHECK(marked(g, "flat") == "X");
    CHECK(n == 11);
    CHECK(passes::mark_in_place(g) == 0);  // already marked
    test::check_same_outputs(before, g, {{"x", test::random_tensor({2, c, 6, 6}, 9)}});
}

TEST_CASE("each op's own in_place rule decides: v1 reshapes alias, every broadcasting op") {
    // The rules come from the ops' headers (ops/op.hpp: in_place_rule).
    CHECK(passes::in_place_rule_of("relu") == in_place_rule::unary);
    CHECK(passes::in_place_rule_of("mish") == in_place_rule::unary);
    CHECK(passes::in_place_rule_of("scale") == in_place_rule::unary);
    CHECK(passes::in_place_rule_of("reshape") == in_place_rule::alias);
    CHECK(passes::in_place_rule_of("unsqueeze2") == in_place_rule::alias);
    CHECK(passes::in_place_rule_of("elementwise_max") == in_place_rule::elementwise);
    CHECK(passes::in_place_rule_of("fused_conv2d") == in_place_rule::epilogue);
    CHECK(passes::in_place_rule_of("concat") == in_place_rule::slices);
    CHECK(passes::in_place_rule_of("conv2d") == in_place_rule::none);
    CHECK(passes::in_place_rule_of("softmax") == in_place_rule::none);
    CHECK(passes::in_place_rule_of("no_such_op") == in_place_rule::none);

    graph::graph g;
    graph::builder b(g);
    b.declare("x", {2, 3, 4});
    for (const char* n : {"r", "m", "p"}) b.declare(n, {2, 3, 4});
    b.declare("rs", {6, 4});
    b.declare("y", {6, 4});
    test::param(b, "lo", test::random_tensor({4}, 1));
    test::param(b, "e", test::random_tensor({4}, 2, 0.5f, 1.5f));
    b.feed("x", 0);
    b.add_op("relu", {{"X", {"x"}}}, {{"Out", {"r"}}}, {});
    b.add_op("elementwise_max", {{"X", {"r"}}, {"Y", {"lo"}}}, {{"Out", {"m"}}}, axis(2));
    attr_map ra;
    ra.set("shape", std::vector<std::int32_t>{6, 4});
    b.add_op("reshape", {{"X", {"m"}}}, {{"Out", {"rs"}}}, ra);
    b.add_op("elementwise_pow", {{"X", {"e"}}, {"Y", {"rs"}}}, {{"Out", {"y"}}}, {});
    b.fetch("y", 0);
    b.finish();
    auto before = g;
    CHECK(passes::mark_in_place(g) == 3);
    CHECK(marked(g, "r") == "");    // reads the feed
    CHECK(marked(g, "m") == "X");   // elementwise_max
    CHECK(marked(g, "rs") == "X");  // reshape (v1) aliases X
    CHECK(marked(g, "y") == "Y");   // X broadcasts: Y has the output's shape
    test::check_same_outputs(before, g, {{"x", test::random_tensor({2, 3, 4}, 9)}});

    // A unary op with a second input (scale's ScaleTensor) is not marked.
    graph::graph h;
    graph::builder c(h);
    for (const char* n : {"x", "a", "s"}) c.declare(n, {2, 3});
    c.declare("k", {1});
    c.feed("x", 0);
    c.feed("k", 1);
    c.add_op("relu", {{"X", {"x"}}}, {{"Out", {"a"}}}, {});
    c.add_op("scale", {{"X", {"a"}}, {"ScaleTensor", {"k"}}}, {{"Out", {"s"}}}, {});
    c.fetch("s", 0);
    c.finish();
    passes::mark_in_place(h);
    CHECK(marked(h, "s") == "");
}

TEST_CASE("a depthwise conv whose input dies there runs in place of it") {
    graph::graph g;
    graph::builder b(g);
    b.declare("x", {1, 3, 8, 8});
    for (const char* n : {"a", "d"}) b.declare(n, {1, 3, 8, 8});
    b.declare("e", {1, 3, 4, 4});
    test::param(b, "w", test::random_tensor({3, 1, 3, 3}, 1));
    test::param(b, "b0", test::random_tensor({3}, 2));
    b.feed("x", 0);
    b.add_op("relu6", {{"X", {"x"}}}, {{"Out", {"a"}}}, {});
    auto fa = test::conv_attrs(1, 1, 3);
    fa.set("stages", test::conv_stages("hard_swish"));
    b.add_op("fused_conv2d", {{"Input", {"a"}}, {"Filter", {"w"}}, {"Bias", {"b0"}}},
             {{"Output", {"d"}}}, fa);
    auto fs = test::conv_attrs(2, 1, 3);  // stride 2: a smaller output, still in place
    fs.set("stages", test::conv_stages(""));
    b.add_op("fused_conv2d", {{"Input", {"d"}}, {"Filter", {"w"}}, {"Bias", {"b0"}}},
             {{"Output", {"e"}}}, fs);
    b.fetch("e", 0);
    b.finish();
    auto before = g;
    CHECK(passes::mark_in_place(g) == 2);
    CHECK(marked(g, "d") == "Input");
    CHECK(marked(g, "e") == "Input");
    test::check_same_outputs(before, g, {{"x", test::random_tensor({1, 3, 8, 8}, 5, -8.f, 8.f)}});
}

TEST_CASE("concat is not marked when an input is a feed, a parameter or read elsewhere") {
    for (int variant = 0; variant < 3; ++variant) {
        INFO("variant " << variant);
        graph::graph g;
        graph::builder b(g);
        for (const char* n : {"x", "a", "r"}) b.declare(n, {1, 2});
        b.declare("cat", {1, 4});
        test::param(b, "p", test::random_tensor({1, 2}, 1));
        b.feed("x", 0);
        b.add_op("relu", {{"X", {"x"}}}, {{"Out", {"a"}}}, {});
        std::string second = variant == 0 ? "x" : variant == 1 ? "p" : "a";
        if (variant == 2) b.add_op("tanh", {{"X", {"a"}}}, {{"Out", {"r"}}}, {});
        b.add_op("concat", {{"X", {"a", second}}}, {{"Out", {"cat"}}}, axis(1));
        b.fetch("cat", 0);
        if (variant == 2) b.fetch("r", 1);
        b.finish();
        passes::mark_in_place(g);
        CHECK(marked(g, "cat") == "");
    }
}

TEST_CASE("a fetched input or a broadcast X is never overwritten") {
    graph::graph g;
    graph::builder b(g);
    b.declare("x", {2, 3});
    b.declare("a", {2, 3});
    b.declare("small", {1, 3});
    b.declare("y", {2, 3});
    b.declare("z", {2, 3});
    b.feed("x", 0);
    b.add_op("relu", {{"X", {"x"}}}, {{"Out", {"a"}}}, {});
    b.add_op("sigmoid", {{"X", {"a"}}}, {{"Out", {"y"}}}, {});
    b.add_op("sigmoid", {{"X", {"x"}}}, {{"Out", {"small"}}}, {});
    b.add_op("elementwise_sub", {{"X", {"small"}}, {"Y", {"y"}}}, {{"Out", {"z"}}}, {});
    b.fetch("a", 0);
    b.fetch("z", 1);
    b.finish();
    auto before = g;
    passes::mark_in_place(g);
    CHECK(marked(g, "a") == "");      // x is a feed
    CHECK(marked(g, "y") == "");      // a is fetched
    CHECK(marked(g, "small") == "");  // x is a feed
    CHECK(marked(g, "z") == "Y");     // X [1,3] broadcasts: Y [2,3] takes the output
    test::check_same_outputs(before, g, {{"x", test::random_tensor({2, 3}, 3)}});
}

TEST_CASE("a fused conv whose Other is also its Input is not run in place") {
    graph::graph g;
    graph::builder b(g);
    for (const char* n : {"x", "a", "y"}) b.declare(n, {1, 2, 5, 5});
    test::param(b, "w", test::random_tensor({2, 2, 3, 3}, 1));
    test::param(b, "b0", test::random_tensor({2}, 2));
    b.feed("x", 0);
    b.add_op("relu", {{"X", {"x"}}}, {{"Out", {"a"}}}, {});
    auto fa = test::conv_attrs(1, 1, 1);
    fa.set("stages", test::conv_stages("", "add_with"));
    b.add_op("fused_conv2d",
             {{"Input", {"a"}}, {"Filter", {"w"}}, {"Bias", {"b0"}}, {"Other", {"a"}}},
             {{"Output", {"y"}}}, fa);
    b.fetch("y", 0);
    b.finish();
    CHECK(passes::mark_in_place(g) == 0);
    CHECK(marked(g, "y") == "");
}

}  // namespace passes_in_place_test
