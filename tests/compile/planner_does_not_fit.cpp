// Must not compile: the network does not fit 16K + 64K, and the planner's
// static_assert says so with the number of missing bytes.
#include "compile/planner_network.hpp"

using namespace litegraph::planner;

constexpr std::array<segment, 2> tiny{{{"dtcm", 16 << 10, 64}, {"sram", 64 << 10, 64}}};
constexpr auto net_plan = plan_fixed(net::buffers(), tiny);
static_assert(network_fits<net_plan.shortfall>());

int main() {
    return 0;
}
