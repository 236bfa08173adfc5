// Buffers shared at planning time (runtime/program.hpp: plan_buffers): an op
// the passes mark `in_place` (passes/in_place.hpp) writes its output over
// its input's buffer when that input dies there; a concat so marked gets its
// inputs as slices of its output and has nothing left to do.  Both decide
// from the shapes inferred for this plan, over the program's variables
// (`refs`, one per variable node).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "litegraph/core/tensor.hpp"
#include "litegraph/graph/graph.hpp"
#include "litegraph/planner/families.hpp"

namespace litegraph::runtime {

/// Whether a variable was produced: shape inference gave it a shape ({-1}: not yet).
inline bool produced(const tensor_ref& r) {
    return !(r.shape.size() == 1 && r.shape[0] == -1);
}

/// The first output of `node` that holds data.
inline int main_output(const std::vector<tensor_ref>& refs, const graph::op_node& node) {
    for (auto& s : node.outputs)
        for (int v : s.vars)
            if (produced(refs[v]) && refs[v].bytes() > 0) return v;
    return -1;
}

/// `node`'s output takes the buffer of its input in `slot` when that input
/// dies here and the output is no larger.
inline void op_in_place(const std::vector<tensor_ref>& refs, const graph::op_node& node,
                        const std::string& slot, planner::families& groups, int step) {
    auto* in_slot = node.input(slot);
    int out = main_output(refs, node);
    if (!in_slot || in_slot->vars.empty() || out < 0) return;
    int in = in_slot->vars.front();
    if (groups.first(in) < 0 || groups.last(in) != step || refs[out].bytes() > refs[in].bytes())
        return;
    groups.place(out, in, 0);
}

/// Places every input of a concat as a slice of its output; true when the
/// concat then has nothing left to do.  Slices are contiguous only when
/// the dims before the axis multiply to 1.
inline bool concat_in_place(const std::vector<tensor_ref>& refs, const std::vector<bool>& dynamic,
                            const graph::op_node& node, planner::families& groups, int step) {
    auto* xs = node.input("X");
    int out = main_output(refs, node);
    if (!xs || out < 0 || node.input("AxisTensor")) return false;
    const auto& shape = refs[out].shape;
    auto axis = node.attrs.get<std::int64_t>("axis", 0);
    if (axis < 0) axis += static_cast<std::int64_t>(shape.size());
    std::int64_t outer = 1;
    for (std::int64_t d = 0; d < axis && d < static_cast<std::int64_t>(shape.size()); ++d)
        outer *= shape[d];
    if (outer != 1) return false;
    for (std::size_t k = 0; k < xs->vars.size(); ++k) {
        int in = xs->vars[k];
        if (dynamic[in]) return false;  // slices at bound offsets: rows would not be contiguous
        if (groups.first(in) < 0 || groups.last(in) != step || groups.root(in) == groups.root(out))
            return false;
        for (std::size_t j = 0; j < k; ++j)
            if (groups.root(xs->vars[j]) == groups.root(in)) return false;
    }
    std::int64_t at = 0;
    for (int in : xs->vars) {
        if (!groups.place(in, out, at)) return false;  // cannot happen after the checks
        at += static_cast<std::int64_t>(refs[in].bytes());
    }
    return true;
}

}  // namespace litegraph::runtime
