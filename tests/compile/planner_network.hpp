// A small SqueezeNet-like network with an SE block, as a DAG of ops built in
// constant evaluation: fire modules (squeeze -> expand1x1 | expand3x3 ->
// concat, the expands writing their slices of the concat in place).
#pragma once

#include <array>

#include "litegraph/planner/order.hpp"
#include "litegraph/planner/static_plan.hpp"

namespace net {

using namespace litegraph::planner;

inline constexpr std::size_t fire_count = 4;
inline constexpr std::size_t op_count = 3 + 4 * fire_count + 4 + 4;  // 27 buffers

/// Float bytes of an h x w x c activation.
constexpr std::size_t act(std::size_t h, std::size_t w, std::size_t c) {
    return h * w * c * 4;
}

constexpr std::array<buffer, op_count> buffers() {
    std::vector<op_node> ops;
    auto add = [&](std::size_t bytes, std::vector<int> in) {
        ops.push_back({bytes, std::move(in), false});
        return static_cast<int>(ops.size()) - 1;
    };
    int x = add(act(32, 32, 3), {});
    int c1 = add(act(32, 32, 32), {x});
    int cur = add(act(16, 16, 32), {c1});  // pool
    std::size_t hw = 16, ch = 32;
    std::vector<std::array<int, 3>> slices;  // (e1, e3, cat)
    for (std::size_t f = 0; f < fire_count; ++f) {
        int sq = add(act(hw, hw, ch / 4), {cur});
        int e1 = add(act(hw, hw, ch / 2), {sq});
        int e3 = add(act(hw, hw, ch / 2), {sq});
        int cat = add(act(hw, hw, ch), {e1, e3});
        slices.push_back({e1, e3, cat});
        cur = cat;
        if (f == 1) hw /= 2;
        ch += 16;
    }
    int p2 = add(act(hw, hw, ch - 16), {cur});
    // SE block: squeeze to a vector, two dense layers, scale the map.
    int se = add(act(1, 1, ch - 16), {p2});
    int fc1 = add(act(1, 1, 8), {se});
    int fc2 = add(act(1, 1, ch - 16), {fc1});
    int scaled = add(act(hw, hw, ch - 16), {p2, fc2});
    int c10 = add(act(hw, hw, 10), {scaled});
    int gap = add(act(1, 1, 10), {c10});
    int out = add(act(1, 1, 10), {gap});
    ops[out].is_output = true;
    auto order = best_order(ops).order;
    auto b = buffers_for_order(ops, order);
    for (auto [e1, e3, cat] : slices) {
        b[e1].alias_of = cat;
        b[e3].alias_of = cat;
        b[e3].alias_offset = b[e1].size;
    }
    std::array<buffer, op_count> a{};
    for (std::size_t i = 0; i < op_count; ++i) a[i] = b[i];
    return a;
}

}  // namespace net
