// in_place (runs last): marks ops whose output may share the buffer of one of
// their inputs with the attribute `in_place` = that input's slot name
// (docs/fusion.md).  The input must die at the op (its only reader, not
// fetched, not a parameter, not a feed) and the op's kernel must be safe in
// place, which each op declares (`in_place`, ops/op.hpp: in_place_rule):
//   unary        (activations, scale)             X, when X is the only input
//   elementwise  (elementwise_*)                  X if X has the output's shape,
//                                                 else Y if Y has it
//   alias        (reshape2, flatten2, squeeze2, unsqueeze2 and their v1 forms,
//                 flatten_contiguous_range)       X (an alias)
//   epilogue     (fused_conv2d)                   Other, when its stages end with
//                                                 mul_with / mul_plane / add_with;
//                                                 Input for a depthwise conv (groups
//                                                 == input channels == output
//                                                 channels) with none of them
//                                                 (one-plane scratch)
//   slices       (concat)                         X, when every input is produced by
//                                                 an op and read by the concat only
//                                                 (its producers write slices)
// The runtime still checks actual sizes and falls back to a separate buffer.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "litegraph/fusion/fused.hpp"
#include "litegraph/ops/builtin_ops.hpp"
#include "litegraph/passes/pattern.hpp"

namespace litegraph::passes {

/// The ops the passes may meet: Paddle's and the fused convs they make.
using in_place_ops = typename concat_op_lists<builtin_ops, fusion::fused_conv_ops>::type;

/// The in-place rule of op type `t` (its op's `in_place` trait).
inline in_place_rule in_place_rule_of(std::string_view t) {
    return op_in_place_of(in_place_ops{}, t);
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
    const auto rule = in_place_rule_of(n.type);
    if (rule == in_place_rule::alias) return dies("X") ? "X" : "";
    if (rule == in_place_rule::unary) {
        for (const auto& slot : n.inputs)
            if (slot.name != "X" && !slot.vars.empty()) return "";  // e.g. scale's ScaleTensor
        return dies("X") ? "X" : "";
    }
    if (rule == in_place_rule::elementwise) {
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
    if (rule == in_place_rule::epilogue) {
        const auto terminal = fusion::chain_terminal(n.attrs);
        // Other may not also be the conv's Input: the conv reads a whole
        // window of it after the first outputs are written.
        if (terminal == fusion::stage_name<fusion::mul_with>() ||
            terminal == fusion::stage_name<fusion::mul_plane>() ||
            terminal == fusion::stage_name<fusion::add_with>())
            return dies("Other") && graph::input_var(n, "Other") != graph::input_var(n, "Input")
                       ? "Other"
                       : "";
        const int in = graph::input_var(n, "Input");
        if (in < 0 || terminal != fusion::stage_name<fusion::store>()) return "";
        const auto groups = n.attrs.get<std::int64_t>("groups", 1);
        // Input channels = Filter channels * groups (checked by the conv), so
        // a one-channel filter with groups == output channels is depthwise.
        const int f = graph::input_var(n, "Filter");
        if (f < 0) return "";
        const auto& fs = g.vars[f].value ? g.vars[f].value->shape() : g.vars[f].shape;
        const bool depthwise = fs.size() == 4 && fs[1] == 1 && fs[0] == groups;
        return depthwise && dies("Input") ? "Input" : "";
    }
    if (rule == in_place_rule::slices) {
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
