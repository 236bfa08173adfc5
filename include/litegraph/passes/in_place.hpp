// in_place (runs last): marks ops whose output may share the buffer of one of
// their inputs with the attribute `in_place` = that input's slot name
// (docs/fusion.md).  The input must die at the op (its only reader, not
// fetched, not a parameter, not a feed) and the op's kernel must be safe in
// place:
//   activations (ops::activation_functors), scale    X
//   elementwise add/sub/mul/div                      X if X has the output's shape,
//                                                    else Y if Y has it
//   reshape2, flatten2, squeeze2, unsqueeze2 (+ flatten_contiguous_range)
//                                                    X (an alias)
//   fused_conv2d with terminal mul_with / mul_plane / add_with
//                                                    Other
//   depthwise fused_conv2d (groups == input channels == output channels),
//   terminal store                                   Input (one-channel scratch)
//   concat whose every input is produced by an op and read by the concat only
//   (its only reader, strictly)                      X (producers write slices)
// The runtime still checks actual sizes and falls back to a separate buffer.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "litegraph/ops/activation.hpp"
#include "litegraph/ops/scale.hpp"
#include "litegraph/passes/pattern.hpp"

namespace litegraph::passes {

/// Element-wise unary ops whose output may take their input's buffer: every
/// activation (ops::activation_functors) and scale.
inline bool is_unary_in_place_op(std::string_view t) {
    return ops::names_functor<ops::activation_functors>(t) || t == ops::scale::paddle_types[0];
}

inline bool is_alias_op(std::string_view t) {
    return t == "reshape2" || t == "flatten2" || t == "squeeze2" || t == "unsqueeze2" ||
           t == "flatten_contiguous_range";
}

/// Position of every op in `g.topo_order()`.
inline std::vector<int> topo_positions(const graph::graph& g) {
    std::vector<int> pos(g.ops.size(), -1);
    auto order = g.topo_order();
    for (std::size_t i = 0; i < order.size(); ++i) pos[order[i]] = static_cast<int>(i);
    return pos;
}

/// `v` is an activation (not fetched, not a parameter, not a feed) whose last
/// reader in the order `pos` is `op`.
inline bool last_read_at(const graph::graph& g, int v, int op, const std::vector<int>& pos) {
    if (v < 0 || graph::is_fetched(g, v) || is_param(g, v) || is_feed(g, v)) return false;
    const auto& c = g.vars[v].consumers;
    if (std::find(c.begin(), c.end(), op) == c.end()) return false;
    for (int o : c)
        if (o != op && pos[o] >= pos[op]) return false;
    return true;
}

/// The slot `op` may run in place of, or "" (see the table above); `pos` is
/// `topo_positions(g)`.
inline std::string in_place_slot(const graph::graph& g, int op, const std::vector<int>& pos) {
    const auto& n = g.ops[op];
    auto dies = [&](std::string_view slot) {
        auto* s = n.input(slot);
        return s && s->vars.size() == 1 && last_read_at(g, s->vars[0], op, pos);
    };
    if (is_unary_in_place_op(n.type) || is_alias_op(n.type)) {
        if (n.type == "scale" && n.input("ScaleTensor")) return "";
        return dies("X") ? "X" : "";
    }
    if (n.type == "elementwise_add" || n.type == "elementwise_sub" || n.type == "elementwise_mul" ||
        n.type == "elementwise_div") {
        const int x = graph::input_var(n, "X"), y = graph::input_var(n, "Y");
        const int out = graph::output_var(n, "Out");
        if (x < 0 || y < 0 || out < 0) return "";
        const auto& os = g.vars[out].shape;
        const bool x_full = same_declared_shape(g.vars[x].shape, os);
        const bool y_full = same_declared_shape(g.vars[y].shape, os);
        if (x_full && g.vars[x].shape.size() >= g.vars[y].shape.size() && dies("X")) return "X";
        if (!x_full && y_full && g.vars[y].shape.size() >= g.vars[x].shape.size() && dies("Y"))
            return "Y";
        return "";
    }
    if (n.type == "fused_conv2d") {
        const auto terminal = fused_terminal(n);
        // Other may not also be the conv's Input: the conv reads a whole
        // window of it after the first outputs are written.
        if (terminal == "mul_with" || terminal == "mul_plane" || terminal == "add_with")
            return dies("Other") && graph::input_var(n, "Other") != graph::input_var(n, "Input")
                       ? "Other"
                       : "";
        const int in = graph::input_var(n, "Input");
        if (in < 0 || terminal != "store") return "";
        const auto groups = n.attrs.get<std::int64_t>("groups", 1);
        // Input channels = Filter channels * groups (checked by the conv), so
        // a one-channel filter with groups == output channels is depthwise.
        const int f = graph::input_var(n, "Filter");
        if (f < 0) return "";
        const auto& fs = g.vars[f].value ? g.vars[f].value->shape() : g.vars[f].shape;
        const bool depthwise = fs.size() == 4 && fs[1] == 1 && fs[0] == groups;
        return depthwise && dies("Input") ? "Input" : "";
    }
    if (n.type == "concat") {
        auto* xs = n.input("X");
        if (!xs || xs->vars.empty()) return "";
        if (auto* at = n.input("AxisTensor"); at && !at->vars.empty()) return "";
        for (std::size_t k = 0; k < xs->vars.size(); ++k) {
            const int v = xs->vars[k];
            if (!dies_at(g, v, op) || g.vars[v].producer < 0) return "";
            if (std::count(xs->vars.begin(), xs->vars.end(), v) != 1) return "";
        }
        return "X";
    }
    return "";
}

/// Marks every op that may run in place; returns how many it marked (ops
/// already marked are left as they are).
inline int mark_in_place(graph::graph& g) {
    int count = 0;
    const auto pos = topo_positions(g);
    for (int op = 0; op < static_cast<int>(g.ops.size()); ++op) {
        if (g.ops[op].attrs.has("in_place")) continue;
        auto slot = in_place_slot(g, op, pos);
        if (slot.empty()) continue;
        g.ops[op].attrs.set("in_place", slot);
        ++count;
    }
    return count;
}

}  // namespace litegraph::passes
