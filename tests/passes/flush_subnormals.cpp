// flush_subnormals: subnormal float32 parameter values become signed zeros;
// normal values, zeros, non-float parameters and the graph stay as they were.
#include "litegraph/passes/flush_subnormals.hpp"

#include <cfloat>
#include <cmath>
#include <cstdint>

#include "passes/support_passes.hpp"

using namespace litegraph;

namespace passes_flush_subnormals_test {

TEST_CASE("subnormal parameter values become signed zeros, nothing else changes") {
    graph::graph g;
    graph::builder b(g);
    b.declare("x", {1, 2, 3, 3});
    b.declare("y", {1, 2, 3, 3});
    const float sub = FLT_MIN / 8;  // subnormal
    auto w = test::random_tensor({2, 2, 1, 1}, 1);
    w.span<float>()[0] = sub;
    w.span<float>()[1] = -sub;
    w.span<float>()[2] = FLT_MIN;  // the smallest normal value stays
    w.span<float>()[3] = 0.f;
    test::param(b, "w", w);
    test::param(b, "clean", test::random_tensor({2}, 2));
    test::param(b, "ints", tensor::from<std::int64_t>({2}, std::vector<std::int64_t>{1, 2}));
    b.feed("x", 0);
    b.add_op("conv2d", {{"Input", {"x"}}, {"Filter", {"w"}}}, {{"Output", {"y"}}},
             test::conv_attrs(1, 0));
    b.fetch("y", 0);
    b.finish();
    auto before = g;
    CHECK(passes::flush_subnormals(g) == 1);
    const auto s = g.vars[g.find_var("w")].value->span<float>();
    CHECK(s[0] == 0.f);
    CHECK_FALSE(std::signbit(s[0]));
    CHECK(s[1] == 0.f);
    CHECK(std::signbit(s[1]));
    CHECK(s[2] == FLT_MIN);
    CHECK(s[3] == 0.f);
    CHECK(test::max_abs_diff(g.vars[g.find_var("clean")].value->span<float>(),
                             before.vars[before.find_var("clean")].value->span<float>()) == 0);
    CHECK(g.ops.size() == before.ops.size());
    test::check_same_outputs(before, g, {{"x", test::random_tensor({1, 2, 3, 3}, 3)}});
    CHECK(passes::flush_subnormals(g) == 0);  // nothing left to flush
}

}  // namespace passes_flush_subnormals_test
