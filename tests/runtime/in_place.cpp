// Ops the passes mark `in_place` share their input's buffer; a concat so
// marked gets its inputs as slices of its output and runs no copy.  Outputs
// stay the same and the arena shrinks.
#include "litegraph/runtime/program.hpp"

#include "support.hpp"

using namespace litegraph;

namespace runtime_in_place_test {

namespace {

attr_map conv_attrs(int groups, int pad, bool in_place, const std::string& act = "",
                    int stride = 1) {
    attr_map a;
    a.set("strides", std::vector<std::int32_t>{stride, stride});
    a.set("paddings", std::vector<std::int32_t>{pad, pad});
    a.set("dilations", std::vector<std::int32_t>{1, 1});
    a.set("groups", std::int32_t{groups});
    a.set("stages", test::conv_stages(act));
    if (in_place) a.set("in_place", std::string("Input"));
    return a;
}

// x[1,8,12,12] -> conv1x1(8->8) -> a -> depthwise3x3 (in place) -> b
//   b -> conv1x1 relu -> c1 ; b -> conv3x3 relu -> c2 ; concat(c1, c2) -> y (in place)
graph::graph net(bool in_place) {
    graph::graph g;
    graph::builder b(g);
    b.declare("x", {-1, 8, 12, 12});
    for (const char* n : {"a", "b", "c1", "c2", "y"}) b.declare(n, {-1});
    b.declare(test::param_var("w0", {8, 8, 1, 1}, 1));
    b.declare(test::param_var("w1", {8, 1, 3, 3}, 2));
    b.declare(test::param_var("w2", {4, 8, 1, 1}, 3));
    b.declare(test::param_var("w3", {4, 8, 3, 3}, 4));
    for (const char* n : {"b0", "b1", "b2", "b3"})
        b.declare(test::param_var(n, {n[1] < '2' ? 8 : 4}, 5));
    b.feed("x", 0);
    b.add_op("fused_conv2d", {{"Input", {"x"}}, {"Filter", {"w0"}}, {"Bias", {"b0"}}},
             {{"Output", {"a"}}}, conv_attrs(1, 0, false));
    b.add_op("fused_conv2d", {{"Input", {"a"}}, {"Filter", {"w1"}}, {"Bias", {"b1"}}},
             {{"Output", {"b"}}}, conv_attrs(8, 1, in_place, "relu"));
    b.add_op("fused_conv2d", {{"Input", {"b"}}, {"Filter", {"w2"}}, {"Bias", {"b2"}}},
             {{"Output", {"c1"}}}, conv_attrs(1, 0, false, "relu"));
    b.add_op("fused_conv2d", {{"Input", {"b"}}, {"Filter", {"w3"}}, {"Bias", {"b3"}}},
             {{"Output", {"c2"}}}, conv_attrs(1, 1, false, "relu"));
    attr_map ca;
    ca.set("axis", std::int32_t{1});
    if (in_place) ca.set("in_place", std::string("X"));
    b.add_op("concat", {{"X", {"c1", "c2"}}}, {{"Out", {"y"}}}, ca);
    b.fetch("y", 0);
    b.finish();
    return g;
}

// x[n,32,40,40] -> conv1x1(32->32) -> a -> depthwise3x3 stride 2 relu (in place) -> b
graph::graph strided_net(bool in_place) {
    graph::graph g;
    graph::builder b(g);
    b.declare("x", {-1, 32, 40, 40});
    for (const char* n : {"a", "b"}) b.declare(n, {-1});
    b.declare(test::param_var("w0", {32, 32, 1, 1}, 1));
    b.declare(test::param_var("w1", {32, 1, 3, 3}, 2));
    for (const char* n : {"b0", "b1"}) b.declare(test::param_var(n, {32}, 5));
    b.feed("x", 0);
    b.add_op("fused_conv2d", {{"Input", {"x"}}, {"Filter", {"w0"}}, {"Bias", {"b0"}}},
             {{"Output", {"a"}}}, conv_attrs(1, 0, false));
    b.add_op("fused_conv2d", {{"Input", {"a"}}, {"Filter", {"w1"}}, {"Bias", {"b1"}}},
             {{"Output", {"b"}}}, conv_attrs(32, 1, in_place, "relu", 2));
    b.fetch("b", 0);
    b.finish();
    return g;
}

}  // namespace

TEST_CASE("an in-place stride-2 depthwise conv gives the same bits on 1, 2 and 3 threads") {
    // Its output planes land on input planes that earlier plane tasks read
    // (ops::conv2d::depthwise_direct orders them): any thread count, the
    // same bits as the conv into a buffer of its own.
    for (std::int64_t n : {1, 2}) {
        CAPTURE(n);
        auto x = test::random_tensor({n, 32, 40, 40}, 11);
        runtime::program plain(strided_net(false));
        plain.set_input(0, x);
        plain.run();
        REQUIRE(plain.output(0).shape == shape_t{n, 32, 20, 20});
        for (unsigned t : {1u, 2u, 3u}) {
            CAPTURE(t);
            runtime::program shared(strided_net(true));
            shared.set_threads(t);
            for (int r = 0; r < 3; ++r) {
                shared.set_input(0, x);
                shared.run();
                CHECK(test::max_rel_diff(shared.output(0).span<float>(),
                                         plain.output(0).span<float>()) == 0);
            }
            CHECK(shared.buffers().size() == 2);  // x, {a, b}: in place indeed
        }
    }
}

TEST_CASE("in-place depthwise conv and concat: same outputs, smaller arena") {
    runtime::program plain(net(false)), shared(net(true));
    auto x = test::random_tensor({1, 8, 12, 12}, 9);
    plain.set_input(0, x);
    shared.set_input(0, x);
    plain.run();
    shared.run();
    CHECK(shared.output(0).shape == shape_t{1, 8, 12, 12});
    CHECK(test::max_rel_diff(shared.output(0).span<float>(), plain.output(0).span<float>()) == 0);
    // The concat was not run: its inputs were written into its output.
    bool elided = false;
    for (auto& ins : shared.instructions())
        elided = elided || (ins.io.type == "concat" && ins.elided);
    CHECK(elided);
    const std::size_t plane = 8 * 12 * 12 * 4;  // one [1,8,12,12] float tensor
    // Unfused peak: b, c1 and c2 live together (b + c1 + c2 = 2 planes) or a and b (2 planes).
    CHECK(plain.memory().lower_bound_bytes == 2 * plane);
    // In place: a and b share a buffer; c1 and c2 are slices of y, live with b: 2 planes still,
    // but the concat's own copy is gone: y, c1, c2 are one buffer.
    CHECK(shared.memory().lower_bound_bytes == 2 * plane);
    CHECK(plain.buffers().size() == 6);   // x, a, b, c1, c2, y
    CHECK(shared.buffers().size() == 3);  // x, {a, b}, {c1, c2, y}
}

TEST_CASE("concat in place falls back to copying when slices are not contiguous (batch 2)") {
    runtime::program shared(net(true)), plain(net(false));
    auto x = test::random_tensor({2, 8, 12, 12}, 10);
    shared.set_input(0, x);
    plain.set_input(0, x);
    shared.run();
    plain.run();
    CHECK(test::max_rel_diff(shared.output(0).span<float>(), plain.output(0).span<float>()) == 0);
    for (auto& ins : shared.instructions()) CHECK_FALSE(ins.elided);
}

}  // namespace runtime_in_place_test
