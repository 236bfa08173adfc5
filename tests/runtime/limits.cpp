// Resource bounds a caller sets, and inputs the program refuses up front:
// program_limits::max_arena_bytes before the arena is allocated, planning by
// input shape alone (set_input_shape, planned_arena_bytes), empty inputs.
#include "litegraph/runtime/program.hpp"
#include "support.hpp"

using namespace litegraph;

namespace runtime_limits_test {

namespace {
// x [-1, 4] -> scale -> a -> scale -> y: two live buffers of batch x 16 bytes.
graph::graph chain() {
    graph::graph g;
    graph::builder b(g);
    for (const char* n : {"x", "a", "y"}) b.declare(n, {-1, 4});
    attr_map m;
    m.set("scale", 2.f);
    b.feed("x", 0);
    b.add_op("scale", {{"X", {"x"}}}, {{"Out", {"a"}}}, m);
    b.add_op("scale", {{"X", {"a"}}}, {{"Out", {"y"}}}, m);
    b.fetch("y", 0);
    b.finish();
    return g;
}
}  // namespace

TEST_CASE("max_arena_bytes refuses a plan over it, naming the bytes, before allocating") {
    runtime::program p(chain());
    runtime::program_limits l;
    l.max_arena_bytes = 1000;
    p.set_limits(l);
    p.set_input("x", test::random_tensor({8, 4}, 1));  // 2 x 128 bytes: fits
    CHECK_NOTHROW(p.run());
    CHECK(p.memory().arena_bytes == 256);
    p.set_input("x", test::random_tensor({64, 4}, 1));  // 2 x 1024 bytes: over
    CHECK_THROWS_WITH_AS(p.run(),
                         doctest::Contains("the planned arena needs 2048 bytes, over the limit "
                                           "of 1000 (program_limits::max_arena_bytes)"),
                         shape_error);
    l.max_arena_bytes = 2048;  // exactly the plan: accepted
    p.set_limits(l);
    auto x = test::random_tensor({64, 4}, 1);
    p.set_input("x", x);
    CHECK_NOTHROW(p.run());
    CHECK(p.output(0).span<float>()[5] == doctest::Approx(4 * x.span<float>()[5]));
}

TEST_CASE("planning by input shape alone allocates nothing and ignores the caps") {
    runtime::program p(chain());
    // 2^40 rows: 16 TiB per activation; planned, never allocated.
    const std::int64_t rows = std::int64_t{1} << 40;
    p.set_input_shape(0, {rows, 4});
    CHECK(p.planned_arena_bytes() == 2 * std::uint64_t(rows) * 16);
    // Preparing for real applies the element cap, still before allocating.
    CHECK_THROWS_WITH_AS(p.prepare_plan(), doctest::Contains("max_tensor_elements"), shape_error);
    // A shape-only input cannot run.
    p.set_input_shape(0, {2, 4});
    CHECK(p.planned_arena_bytes() == 2 * 64);
    CHECK_THROWS_WITH_AS(p.run(), doctest::Contains("set by its shape only"), usage_error);
    // Data set afterwards: runs, and gives the plan the estimate gave.
    auto x = test::random_tensor({2, 4}, 3);
    p.set_input(0, x);
    p.run();
    CHECK(p.memory().arena_bytes == 2 * 64);
    CHECK(p.output(0).span<float>()[7] == doctest::Approx(4 * x.span<float>()[7]));
    // Rank and overflow are checked when the shape is set.
    CHECK_THROWS_AS(p.set_input_shape(0, {2, 4, 1}), usage_error);
    CHECK_THROWS_AS(p.set_input_shape(0, {rows, rows}), shape_error);  // 2^80 elements
}

TEST_CASE("an empty input (a zero-size batch) is refused, naming the input") {
    runtime::program p(chain());
    p.set_input("x", tensor(dtype::f32, {0, 4}));
    CHECK_THROWS_WITH_AS(p.run(), doctest::Contains("input 'x' is empty (shape [0,4])"),
                         usage_error);
    CHECK_THROWS_WITH_AS(p.prepare_plan(), doctest::Contains("input 'x' is empty"), usage_error);
    p.set_input_shape(0, {0, 4});
    CHECK_THROWS_WITH_AS(p.planned_arena_bytes(), doctest::Contains("input 'x' is empty"),
                         usage_error);
    // The next non-empty batch runs.
    p.set_input("x", test::random_tensor({1, 4}, 2));
    CHECK_NOTHROW(p.run());
}

}  // namespace runtime_limits_test
