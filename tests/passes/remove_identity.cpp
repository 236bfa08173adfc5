// remove_identity: scale(1, 0) and inference dropout go; fetched ones stay.
#include "litegraph/passes/remove_identity.hpp"

#include "passes/support_passes.hpp"

using namespace litegraph;

namespace passes_remove_identity_test {

namespace {
attr_map scale_attrs(float s, float bias) {
    attr_map a;
    a.set("scale", s);
    a.set("bias", bias);
    a.set("bias_after_scale", true);
    return a;
}
attr_map dropout_attrs(const std::string& impl, float prob) {
    attr_map a;
    a.set("dropout_implementation", impl);
    a.set("dropout_prob", prob);
    a.set("is_test", true);
    return a;
}
}  // namespace

TEST_CASE("identity scale and dropout are removed; readers take the input") {
    graph::graph g;
    graph::builder b(g);
    for (const char* n : {"x", "a", "b", "c", "d", "e", "y"}) b.declare(n, {-1, 4});
    b.feed("x", 0);
    b.add_op("scale", {{"X", {"x"}}}, {{"Out", {"a"}}}, scale_attrs(1.f, 0.f));  // identity
    b.add_op("relu", {{"X", {"a"}}}, {{"Out", {"b"}}}, {});
    b.add_op("dropout", {{"X", {"b"}}}, {{"Out", {"c"}}},
             dropout_attrs("upscale_in_train", 0.3f));  // identity
    b.add_op("dropout", {{"X", {"c"}}}, {{"Out", {"d"}}},
             dropout_attrs("downgrade_in_infer", 0.25f));  // scales by 0.75: kept
    b.add_op("dropout", {{"X", {"d"}}}, {{"Out", {"e"}}},
             dropout_attrs("downgrade_in_infer", 0.f));  // identity
    // Fetched: the kept dropout writes y instead.
    b.add_op("scale", {{"X", {"e"}}}, {{"Out", {"y"}}}, scale_attrs(1.f, 0.f));
    b.fetch("y", 0);
    b.finish();
    auto before = g;
    CHECK(passes::remove_identity(g) == 4);
    CHECK(g.ops.size() == 2);
    CHECK(test::count_ops(g, "scale") == 0);
    CHECK(test::count_ops(g, "dropout") == 1);
    int relu = test::only_op(g, "relu");
    CHECK(test::in_name(g, relu, "X") == "x");
    int drop = test::only_op(g, "dropout");
    CHECK(test::in_name(g, drop, "X") == "b");
    CHECK(test::out_name(g, drop, "Out") == "y");
    REQUIRE(g.fetches.size() == 1);
    CHECK(g.vars[g.fetches[0].var].name == "y");
    for (const char* gone : {"a", "c", "d", "e"}) CHECK(g.find_var(gone) < 0);
    test::check_same_outputs(before, g, {{"x", test::random_tensor({3, 4}, 1)}});
    CHECK(passes::remove_identity(g) == 0);  // nothing left to do
}

TEST_CASE("a dropout's unread Mask goes with it; a read Mask keeps it") {
    for (bool mask_read : {false, true}) {
        graph::graph g;
        graph::builder b(g);
        for (const char* n : {"x", "a", "m", "y", "z"}) b.declare(n, {2, 2});
        b.feed("x", 0);
        b.add_op("dropout", {{"X", {"x"}}}, {{"Out", {"a"}}, {"Mask", {"m"}}},
                 dropout_attrs("upscale_in_train", 0.5f));
        b.add_op("relu", {{"X", {"a"}}}, {{"Out", {"y"}}}, {});
        if (mask_read) b.add_op("relu", {{"X", {"m"}}}, {{"Out", {"z"}}}, {});
        b.fetch("y", 0);
        b.finish();
        CHECK(passes::remove_identity(g) == (mask_read ? 0 : 1));
        CHECK(test::count_ops(g, "dropout") == (mask_read ? 1 : 0));
        CHECK((g.find_var("m") >= 0) == mask_read);
    }
}

TEST_CASE("a fetched identity stays when its input is a feed or read elsewhere") {
    graph::graph g;
    graph::builder b(g);
    for (const char* n : {"x", "a", "y", "z"}) b.declare(n, {2, 2});
    b.feed("x", 0);
    b.add_op("scale", {{"X", {"x"}}}, {{"Out", {"y"}}}, scale_attrs(1.f, 0.f));  // reads the feed
    b.add_op("relu", {{"X", {"x"}}}, {{"Out", {"a"}}}, {});
    b.add_op("scale", {{"X", {"a"}}}, {{"Out", {"z"}}}, scale_attrs(1.f, 0.f));  // a is fetched
    b.fetch("y", 0);
    b.fetch("z", 1);
    b.fetch("a", 2);
    b.finish();
    CHECK(passes::remove_identity(g) == 0);
    CHECK(test::count_ops(g, "scale") == 2);
}

TEST_CASE("a non-identity scale is kept") {
    graph::graph g;
    graph::builder b(g);
    for (const char* n : {"x", "a", "y"}) b.declare(n, {2, 2});
    b.feed("x", 0);
    b.add_op("scale", {{"X", {"x"}}}, {{"Out", {"a"}}}, scale_attrs(1.f, 0.5f));
    b.add_op("scale", {{"X", {"a"}}}, {{"Out", {"y"}}}, scale_attrs(2.f, 0.f));
    b.fetch("y", 0);
    b.finish();
    CHECK(passes::remove_identity(g) == 0);
    CHECK(g.ops.size() == 2);
}

}  // namespace passes_remove_identity_test
