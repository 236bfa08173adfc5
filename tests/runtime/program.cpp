#include "litegraph/runtime/program.hpp"

#include "support.hpp"

using namespace litegraph;

namespace runtime_program_test {

namespace {
// x -> scale(2, +1) -> a -> scale(0.5) -> b -> scale(3, bias 1 before) -> y
graph::graph chain() {
    graph::graph g;
    graph::builder b(g);
    for (const char* n : {"x", "a", "b", "y"}) b.declare(n, {-1, 4});
    auto attrs = [](float s, float bias, bool after) {
        attr_map m;
        m.set("scale", s);
        m.set("bias", bias);
        m.set("bias_after_scale", after);
        return m;
    };
    b.feed("x", 0);
    b.add_op("scale", {{"X", {"x"}}}, {{"Out", {"a"}}}, attrs(2.f, 1.f, true));
    b.add_op("scale", {{"X", {"a"}}}, {{"Out", {"b"}}}, attrs(0.5f, 0.f, true));
    b.add_op("scale", {{"X", {"b"}}}, {{"Out", {"y"}}}, attrs(3.f, 1.f, false));
    b.fetch("y", 0);
    b.finish();
    return g;
}
}  // namespace

TEST_CASE("a chain of ops runs and re-infers shapes for a new batch") {
    runtime::program p(chain());
    for (std::int64_t batch : {1, 3}) {
        auto x = test::random_tensor({batch, 4}, 7);
        auto xs = x.span<float>();
        std::vector<float> expect(xs.size());
        for (std::size_t i = 0; i < xs.size(); ++i)
            expect[i] = 3.f * (0.5f * (2.f * xs[i] + 1.f) + 1.f);
        p.set_input("x", x);
        p.run();
        auto& y = p.output(0);
        CHECK(y.shape == shape_t{batch, 4});
        CHECK(test::max_rel_diff(y.span<float>(), expect) < 1e-6);
        // x, a, b, y: live pairs never exceed two buffers of batch*4 floats.
        CHECK(p.memory().lower_bound_bytes == 2 * planner::align_up(batch * 16, 64));
        CHECK(p.memory().arena_bytes == p.memory().lower_bound_bytes);
    }
}

TEST_CASE("a cycle is reported naming its ops") {
    graph::graph g;
    graph::builder b(g);
    for (const char* n : {"x", "a", "b"}) b.declare(n, {1});
    b.feed("x", 0);
    b.add_op("scale", {{"X", {"b"}}}, {{"Out", {"a"}}}, {});
    b.add_op("scale", {{"X", {"a"}}}, {{"Out", {"b"}}}, {});
    b.finish();
    CHECK_THROWS_WITH_AS(runtime::program{std::move(g)}, doctest::Contains("cycle"), graph_error);
}

TEST_CASE("an unsupported op is named") {
    graph::graph g;
    graph::builder b(g);
    for (const char* n : {"x", "y"}) b.declare(n, {1});
    b.feed("x", 0);
    b.add_op("yolo_box", {{"X", {"x"}}}, {{"Boxes", {"y"}}}, {});
    b.finish();
    CHECK_THROWS_WITH_AS(runtime::program{std::move(g)}, doctest::Contains("yolo_box"),
                         unsupported_error);
}

}  // namespace runtime_program_test
