// A batch split over images (runtime/image_split.hpp): with threads, a
// program whose ops keep images apart runs its batch as parts, one per
// thread, once its first run at those shapes found that the parts give the
// whole batch's bytes; a program that mixes images (the check fails) or folds the batch
// (a first dim other than N) runs whole.  Outputs equal one thread's either
// way.
#include <cstring>

#include "litegraph/runtime/program.hpp"
#include "support.hpp"

using namespace litegraph;

namespace runtime_image_split_test {

namespace {

attr_map conv_attrs(int groups, int pad, const std::string& act = "") {
    attr_map a;
    a.set("strides", std::vector<std::int32_t>{1, 1});
    a.set("paddings", std::vector<std::int32_t>{pad, pad});
    a.set("dilations", std::vector<std::int32_t>{1, 1});
    a.set("groups", std::int32_t{groups});
    a.set("stages", test::conv_stages(act));
    return a;
}

// x[n,8,12,12] -> conv1x1 -> a -> depthwise 3x3 relu -> y: images apart.
graph::graph per_image_net() {
    graph::graph g;
    graph::builder b(g);
    b.declare("x", {-1, 8, 12, 12});
    for (const char* n : {"a", "y"}) b.declare(n, {-1});
    b.declare(test::param_var("w0", {8, 8, 1, 1}, 1));
    b.declare(test::param_var("w1", {8, 1, 3, 3}, 2));
    for (const char* n : {"b0", "b1"}) b.declare(test::param_var(n, {8}, 5));
    b.feed("x", 0);
    b.add_op("fused_conv2d", {{"Input", {"x"}}, {"Filter", {"w0"}}, {"Bias", {"b0"}}},
             {{"Output", {"a"}}}, conv_attrs(1, 0));
    b.add_op("fused_conv2d", {{"Input", {"a"}}, {"Filter", {"w1"}}, {"Bias", {"b1"}}},
             {{"Output", {"y"}}}, conv_attrs(8, 1, "relu"));
    b.fetch("y", 0);
    b.finish();
    return g;
}

// x[n,4] -> cumsum over the batch -> y: the shapes keep N, the values mix images.
graph::graph mixing_net() {
    graph::graph g;
    graph::builder b(g);
    b.declare("x", {-1, 4});
    b.declare("y", {-1});
    b.feed("x", 0);
    attr_map a;
    a.set("axis", std::int32_t{0});
    b.add_op("cumsum", {{"X", {"x"}}}, {{"Out", {"y"}}}, a);
    b.fetch("y", 0);
    b.finish();
    return g;
}

// x[n,4] -> reshape2 [1, -1] -> relu -> reshape2 [-1, 4] -> y: one activation
// folds the batch.
graph::graph folding_net() {
    graph::graph g;
    graph::builder b(g);
    b.declare("x", {-1, 4});
    for (const char* n : {"flat", "r", "y"}) b.declare(n, {-1});
    b.feed("x", 0);
    attr_map flat;
    flat.set("shape", std::vector<std::int32_t>{1, -1});
    b.add_op("reshape2", {{"X", {"x"}}}, {{"Out", {"flat"}}}, flat);
    b.add_op("relu", {{"X", {"flat"}}}, {{"Out", {"r"}}}, {});
    attr_map back;
    back.set("shape", std::vector<std::int32_t>{-1, 4});
    b.add_op("reshape2", {{"X", {"r"}}}, {{"Out", {"y"}}}, back);
    b.fetch("y", 0);
    b.finish();
    return g;
}

bool same_bits(const tensor_ref& a, const tensor_ref& b) {
    return a.type == b.type && a.shape == b.shape && a.bytes() == b.bytes() &&
           std::memcmp(a.data, b.data, static_cast<std::size_t>(a.bytes())) == 0;
}

/// The output of a one-thread program over `net` on `x`.
tensor one_thread(const graph::graph& net, const tensor& x) {
    runtime::program p(net);
    p.set_input(0, x);
    p.run();
    tensor t(p.output(0).type, p.output(0).shape);
    std::memcpy(t.data(), p.output(0).data, static_cast<std::size_t>(t.bytes()));
    return t;
}

}  // namespace

TEST_CASE("a batch whose ops keep images apart runs split over images, bit for bit") {
    const auto net = per_image_net();
    for (unsigned threads : {2u, 3u}) {
        CAPTURE(threads);
        runtime::program p(net);
        p.set_threads(threads);
        // 5 images: parts of 3 and 2 on two threads, 2, 2 and 1 on three.
        const auto x = test::random_tensor({5, 8, 12, 12}, 7, -1.f, 1.f);
        const auto want = one_thread(net, x);
        p.set_input(0, x);
        p.run();  // the whole batch, then the parts checked against it
        CHECK(p.ran_split());
        CHECK(same_bits(p.output(0), want.ref()));
        for (int r = 0; r < 2; ++r) {
            p.run();
            CHECK(p.ran_split());
            CHECK(same_bits(p.output(0), want.ref()));
        }
        // New values at the same shapes: still split, still the one-thread bytes.
        const auto x2 = test::random_tensor({5, 8, 12, 12}, 8, -2.f, 2.f);
        p.set_input(0, x2);
        p.run();
        CHECK(p.ran_split());
        CHECK(same_bits(p.output(0), one_thread(net, x2).ref()));
        // One image has nothing to split.
        const auto x1 = test::random_tensor({1, 8, 12, 12}, 9, -1.f, 1.f);
        p.set_input(0, x1);
        p.run();
        CHECK_FALSE(p.ran_split());
        CHECK(same_bits(p.output(0), one_thread(net, x1).ref()));
        // A profiler's run (a callback per instruction) runs the whole batch.
        p.set_input(0, x);
        p.run();
        REQUIRE(p.ran_split());
        int instructions = 0;
        p.run([&](const runtime::instruction&) { ++instructions; });
        CHECK(instructions == 2);
        CHECK_FALSE(p.ran_split());
        CHECK(same_bits(p.output(0), want.ref()));
    }
}

TEST_CASE("one thread never splits a batch") {
    runtime::program p(per_image_net());
    p.set_input(0, test::random_tensor({4, 8, 12, 12}, 3, -1.f, 1.f));
    for (int r = 0; r < 3; ++r) {
        p.run();
        CHECK_FALSE(p.ran_split());
    }
}

TEST_CASE("a program that mixes or folds images runs whole, with one thread's outputs") {
    for (const auto& net : {mixing_net(), folding_net()}) {
        runtime::program p(net);
        p.set_threads(2);
        const auto x = test::random_tensor({6, 4}, 11, -1.f, 1.f);
        const auto want = one_thread(net, x);
        p.set_input(0, x);
        for (int r = 0; r < 3; ++r) {
            p.run();
            CHECK_FALSE(p.ran_split());
            CHECK(same_bits(p.output(0), want.ref()));
        }
    }
}

}  // namespace runtime_image_split_test
