#include "litegraph/planner/order.hpp"

#include <algorithm>
#include <numeric>

#include "planner/support_random.hpp"
#include "support.hpp"

using namespace litegraph::planner;
using plan_test::gen;

namespace {
/// Plain baseline: the least LOAD over every permutation that is topological.
std::size_t brute_force_load(const std::vector<op_node>& ops) {
    std::vector<int> order(ops.size());
    std::iota(order.begin(), order.end(), 0);
    std::size_t best = unbounded;
    do {
        if (is_topological(ops, order)) best = std::min(best, order_load(ops, order));
    } while (std::next_permutation(order.begin(), order.end()));
    return best;
}
}  // namespace

TEST_CASE("the exact order search matches brute force on small DAGs") {
    gen g{77};
    for (int graph = 0; graph < 200; ++graph) {
        auto ops = plan_test::random_dag(g, g.in(2, 8), 3);
        auto r = best_order(ops);
        REQUIRE(r.problem.empty());
        REQUIRE(r.exact);
        REQUIRE(is_topological(ops, r.order));
        REQUIRE(order_load(ops, r.order) == r.load);
        REQUIRE(r.load == brute_force_load(ops));
        REQUIRE(r.load <= r.given_load);
    }
}

TEST_CASE("the exact search visits the down-closed sets only: two chains of 14 ops") {
    // One input, two chains of 14 ops interleaved in index order, one sink: 30
    // ops with 15 x 15 + 2 down-closed sets, where a table over every subset
    // would hold 2^30 entries.  Each chain starts with a 1000-byte op; the
    // interleaved order keeps both live at once, the best runs one chain to its
    // end first: at the other's second op, the 10 bytes the first chain left,
    // the 1000 and the 10.
    std::vector<op_node> ops{{4, {}}};
    int last[2] = {0, 0};
    for (int k = 0; k < 14; ++k)
        for (int chain = 0; chain < 2; ++chain) {
            ops.push_back({static_cast<std::size_t>(k == 0 ? 1000 : 10), {last[chain]}});
            last[chain] = static_cast<int>(ops.size()) - 1;
        }
    ops.push_back({1, {last[0], last[1]}, true});
    REQUIRE(ops.size() == 30);
    order_options opt;
    opt.exact_max_ops = 30;
    auto r = best_order(ops, opt);
    REQUIRE(r.problem.empty());
    REQUIRE(r.exact);
    REQUIRE(is_topological(ops, r.order));
    CHECK(r.method == "exact");
    CHECK(r.load == order_load(ops, r.order));
    CHECK(r.given_load == 1000 + 1000 + 10);  // A1, B1 and A2 at A2's step
    CHECK(r.load == 10 + 1000 + 10);
}

TEST_CASE("the heuristic order search is topological and never worse than the given order") {
    gen g{78};
    std::size_t gained = 0;
    for (int graph = 0; graph < 100; ++graph) {
        auto ops = plan_test::random_dag(g, g.in(25, 200), 6);
        auto r = best_order(ops);
        REQUIRE(!r.exact);
        REQUIRE(is_topological(ops, r.order));
        REQUIRE(order_load(ops, r.order) == r.load);
        REQUIRE(r.load <= r.given_load);
        gained += r.gain() > 0;
    }
    MESSAGE("the order search lowered LOAD on " << gained << " of 100 DAGs");
}

TEST_CASE("branches: running the branch with the big intermediate first lowers LOAD") {
    // x -> b1 (500, read at the end); x -> a1 (1000) -> a2 (10); c = f(a2, b1).
    // Index order runs b1 first and keeps it live through a1: 10 + 500 + 1000.
    // Running a1, a2 first peaks at a1 + a2 + x = 1020.
    std::vector<op_node> ops{{10, {}}, {500, {0}}, {1000, {0}}, {10, {2}}, {10, {3, 1}, true}};
    auto r = best_order(ops);
    REQUIRE(is_topological(ops, r.order));
    CHECK(r.given_load == 1510);
    CHECK(r.load == 1020);
    CHECK(r.load == brute_force_load(ops));
    CHECK(r.gain() == 490);
}

TEST_CASE("cycles and bad inputs are reported") {
    std::vector<op_node> cyc{{8, {1}}, {8, {0}}};
    auto r = best_order(cyc);
    CHECK(r.problem == "the ops form a cycle");
    std::vector<op_node> bad{{8, {}}, {8, {5}}};
    CHECK(best_order(bad).problem_op == 1);
}

TEST_CASE("buffers of an order feed the planner") {
    gen g{5};
    auto ops = plan_test::random_dag(g, 60, 5);
    auto r = best_order(ops);
    auto b = buffers_for_order(ops, r.order);
    const segment arena{"arena", unbounded, 16};
    auto p = plan_memory(b, std::span(&arena, 1));
    CHECK(validate(b, std::span(&arena, 1), p).ok);
    CHECK(lower_bound(b) == r.load);
    CHECK(p.total() >= r.load);
}
