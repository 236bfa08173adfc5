// Compile-only test: the planner runs in constant evaluation on a 27-buffer
// network; every check is a static_assert.
#include "compile/planner_network.hpp"

namespace {
using namespace litegraph::planner;

constexpr auto bufs = net::buffers();
static_assert(bufs.size() >= 20);

// STM32H730-like: 128K DTCM (fast) then 436K SRAM.
constexpr std::array<segment, 2> h730{{{"dtcm", 128 << 10, 64}, {"sram", 436 << 10, 64}}};
constexpr auto plan = plan_fixed(bufs, h730);
static_assert(plan.valid);
static_assert(plan.fits);
static_assert(network_fits<plan.shortfall>());
static_assert(plan.used[0] > 0, "the fast segment is used first");
static_assert(plan.load > 128 << 10, "the network needs both segments");

// One arena: the plan is at least LOAD, and the compile-time planner matches
// the patent's greedy or beats it.
constexpr std::array<segment, 1> arena{{{"arena", unbounded, 64}}};
constexpr auto one = plan_fixed(bufs, arena);
static_assert(one.valid && one.fits);
static_assert(one.total() >= one.load);
constexpr std::size_t greedy_total() {
    return size_first_fit(bufs, arena).total();
}
static_assert(one.total() <= greedy_total());
constexpr std::size_t tflm_total() {
    return tflm_greedy(bufs, 64).total();
}
static_assert(one.total() <= tflm_total());

// Too small: detected, with the missing bytes.
constexpr std::array<segment, 2> tiny{{{"dtcm", 16 << 10, 64}, {"sram", 64 << 10, 64}}};
constexpr auto too_small = plan_fixed(bufs, tiny);
static_assert(!too_small.fits);
static_assert(too_small.shortfall > 0);
static_assert(too_small.shortfall + (80 << 10) >= too_small.load,
              "short by at least LOAD - capacity");
}  // namespace

int main() {
    return 0;
}
