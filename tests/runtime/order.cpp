// The runtime runs the instructions in the order with the lower LOAD: two
// branches that each blow up and shrink again should not both be wide at once.
#include "litegraph/runtime/program.hpp"

#include "support.hpp"

using namespace litegraph;

namespace runtime_order_test {

namespace {

// x[1,1,8,8] -> p (16 ch) -> p2 (1 ch);  x -> q (16 ch) -> q2 (1 ch);  y = p2 + q2.
// Written in the bad order: both wide tensors p and q first.
graph::graph branches() {
    graph::graph g;
    graph::builder b(g);
    b.declare("x", {-1, 1, 8, 8});
    for (const char* n : {"p", "q", "p2", "q2", "y"}) b.declare(n, {-1});
    b.declare(test::param_var("wp", {16, 1, 1, 1}, 1));
    b.declare(test::param_var("wq", {16, 1, 1, 1}, 2));
    b.declare(test::param_var("wp2", {1, 16, 1, 1}, 3));
    b.declare(test::param_var("wq2", {1, 16, 1, 1}, 4));
    b.feed("x", 0);
    auto conv = [&](const char* in, const char* w, const char* out) {
        b.add_op("conv2d", {{"Input", {in}}, {"Filter", {w}}}, {{"Output", {out}}}, {});
    };
    conv("x", "wp", "p");
    conv("x", "wq", "q");
    conv("p", "wp2", "p2");
    conv("q", "wq2", "q2");
    b.add_op("elementwise_add", {{"X", {"p2"}}, {"Y", {"q2"}}}, {{"Out", {"y"}}}, {});
    b.fetch("y", 0);
    b.finish();
    return g;
}

}  // namespace

TEST_CASE("a searched execution order lowers LOAD, and the runtime follows it") {
    runtime::program searched(branches()), given(branches());
    given.set_reorder(false);
    auto x = test::random_tensor({1, 1, 8, 8}, 5);
    searched.set_input(0, x);
    given.set_input(0, x);
    searched.run();
    given.run();
    CHECK(test::max_rel_diff(searched.output(0).span<float>(), given.output(0).span<float>()) <
          1e-6);
    const std::size_t wide = 16 * 64 * 4, narrow = 64 * 4;  // one 16-channel map, one 1-channel map
    // Program order: x, p and q live together.  Searched: p is consumed before q is made.
    CHECK(given.memory().lower_bound_bytes == narrow + 2 * wide);
    CHECK(searched.memory().lower_bound_bytes < given.memory().lower_bound_bytes);
    CHECK(searched.memory().order_gain_bytes ==
          given.memory().lower_bound_bytes - searched.memory().lower_bound_bytes);
    CHECK(given.memory().order_gain_bytes == 0);
    CHECK(searched.execution_order() != given.execution_order());
    // The op that shrinks p runs before the op that makes q.
    auto pos = [&](const runtime::program& p, const std::string& out) {
        const auto& order = p.execution_order();
        for (std::size_t k = 0; k < order.size(); ++k)
            if (p.instructions()[order[k]].io.label == "conv2d -> " + out) return k;
        return order.size();
    };
    CHECK(pos(searched, "p2") < pos(searched, "q"));
}

}  // namespace runtime_order_test
