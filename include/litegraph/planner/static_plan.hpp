// Compile-time plans for networks known at compile time (firmware): the plan
// lives in fixed arrays, so it can be a constexpr variable, and a network that
// does not fit stops the build with one sentence that says by how many bytes.
//
//   constexpr std::size_t table[][3] = {{bytes, first step, last step}, ...};
//   constexpr auto bufs = planner::buffers_from(table);
//   constexpr std::array<planner::segment, 2> segs{{{"dtcm", 128 << 10}, {"sram", 436 << 10}}};
//   constexpr auto net_plan = planner::plan_fixed(bufs, segs);
//   static_assert(planner::network_fits<net_plan.shortfall>());
#pragma once

#include <array>
#include <cstddef>

#include "litegraph/planner/planner.hpp"

namespace litegraph::planner {

template <std::size_t N, std::size_t S>
struct fixed_plan {
    std::array<placement, N> placements{};
    std::array<std::size_t, S> used{};
    bool fits = false;
    std::size_t shortfall = 0;  // bytes missing when it does not fit (0 when it fits)
    std::size_t load = 0;       // LOAD, the lower bound
    bool proven_optimal = false;
    bool valid = false;  // the validator passed

    constexpr std::size_t total() const {
        std::size_t t = 0;
        for (auto u : used) t += u;
        return t;
    }
};

/// Buffers from rows {bytes, first step, last step}: how firmware
/// networks (and the headers `litegraph codegen` writes) list their
/// activations.
template <std::size_t N>
constexpr std::array<buffer, N> buffers_from(const std::size_t (&rows)[N][3]) {
    std::array<buffer, N> b{};
    for (std::size_t i = 0; i < N; ++i) {
        b[i].size = rows[i][0];
        b[i].first = static_cast<int>(rows[i][1]);
        b[i].last = static_cast<int>(rows[i][2]);
    }
    return b;
}

/// The default planner with options light enough for constant evaluation.
template <std::size_t N, std::size_t S>
constexpr fixed_plan<N, S> plan_fixed(const std::array<buffer, N>& buffers,
                                      const std::array<segment, S>& segments,
                                      const options& opt = compile_time_options) {
    auto p = plan_memory(buffers, segments, opt);
    fixed_plan<N, S> out;
    for (std::size_t i = 0; i < N; ++i) out.placements[i] = p.placements[i];
    for (std::size_t s = 0; s < S; ++s) out.used[s] = p.used[s];
    out.fits = p.fits;
    out.shortfall = p.fits ? 0 : (p.shortfall == 0 ? 1 : p.shortfall);
    out.load = lower_bound(buffers);
    out.proven_optimal = p.proven_optimal;
    out.valid = validate(buffers, segments, p).ok;
    return out;
}

/// Stops the build when a network does not fit; the compiler prints the
/// number of missing bytes as the value of BytesShort.
template <std::size_t BytesShort>
constexpr bool network_fits() {
    static_assert(BytesShort == 0,
                  "litegraph planner: the network does not fit its memory segments; "
                  "BytesShort is by how many bytes it is short");
    return true;
}

}  // namespace litegraph::planner
