// What every graph pass asks of a graph: is this variable a parameter or a
// feed, does it die at this op, do two declared shapes agree, does a fused
// conv kernel exist for a list of epilogue stages, and how a conv node
// becomes a `fused_conv2d` node (docs/fusion.md).
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "litegraph/fusion/fused.hpp"
#include "litegraph/graph/edit.hpp"
#include "litegraph/graph/graph.hpp"

namespace litegraph::passes {

/// A persistable variable (a weight), with or without data.
inline bool is_param(const graph::graph& g, int v) {
    return g.vars[v].persistable || g.vars[v].value.has_value();
}

/// A program input.
inline bool is_feed(const graph::graph& g, int v) {
    for (auto& f : g.feeds)
        if (f.var == v) return true;
    return false;
}

/// `v` is a float32 parameter whose data is loaded.
inline bool has_f32_value(const graph::graph& g, int v) {
    const auto& var = g.vars[v];
    return var.value.has_value() && var.value->type() == dtype::f32;
}

/// `v` is an activation that is read by `op` only: not fetched, not a
/// parameter, not a feed.  Its buffer is free once `op` has read it.
inline bool dies_at(const graph::graph& g, int v, int op) {
    return v >= 0 && graph::sole_consumer(g, v) == op && !is_param(g, v) && !is_feed(g, v);
}

/// Two declared shapes that are the same at run time: same rank and equal
/// dims, where an unknown dim (-1) only matches an unknown dim (the batch).
/// Rank 0 (undeclared) never matches.
inline bool same_declared_shape(const shape_t& a, const shape_t& b) {
    return !a.empty() && a == b;
}

/// The op types the passes treat as conv producers (those of ops::conv2d).
inline bool is_plain_conv(const graph::op_node& op) {
    return op_declares<ops::conv2d>(op.type);
}

/// The op the fused conv kernels (fusion::fused_conv_ops) share: its
/// type is `fused_conv2d`.
using fused_conv_op = first_op<fusion::fused_conv_ops>::type;

/// A `fused_conv2d` node.
inline bool is_fused_conv(const graph::op_node& op) {
    return op_declares<fused_conv_op>(op.type);
}

/// Paddle activation types a fused conv can apply: those of
/// ops::fusable_activations (docs/fusion.md).
inline bool is_fusable_activation(std::string_view type) {
    return ops::names_functor<ops::fusable_activations>(type);
}

namespace detail {
template <class... K>
bool fused_conv_in_list(op_list<K...>, const std::vector<std::string>& stages) {
    return (K::stage_set_type::is(stages) || ...);
}
}  // namespace detail

/// Whether the closed list `fusion::fused_conv_ops` has a kernel for
/// this list of stages (a fused_conv2d node's `stages`); a pass must produce
/// no other.
inline bool fused_conv_exists(const std::vector<std::string>& stages) {
    return detail::fused_conv_in_list(fusion::fused_conv_ops{}, stages);
}

/// The stages of a conv with its bias and nothing else (stage_set<bias>).
using open_stages = fusion::stage_set<fusion::bias>;

/// A conv node that still computes a plain conv result (conv2d,
/// depthwise_conv2d, or fused_conv2d whose only stage is its bias): a bias, a
/// batch norm or an activation can still be merged into it.
inline bool is_open_conv(const graph::op_node& op) {
    if (is_plain_conv(op)) return true;
    return is_fused_conv(op) && open_stages::matches(op.attrs);
}

/// The conv's output variable (`Output`), or -1.
inline int conv_output(const graph::op_node& op) {
    return graph::output_var(op, "Output");
}

/// Number of output channels from the Filter's declared shape, or -1.
inline std::int64_t conv_out_channels(const graph::graph& g, const graph::op_node& op) {
    int f = graph::input_var(op, "Filter");
    if (f < 0) return -1;
    const auto& s = g.vars[f].value ? g.vars[f].value->shape() : g.vars[f].shape;
    return s.size() == 4 ? s[0] : -1;
}

/// The conv's bias values (zeros when it has none), or empty when the Bias
/// exists but holds no loaded float32 data of `oc` values.
inline std::vector<float> conv_bias_values(const graph::graph& g, const graph::op_node& op,
                                           std::int64_t oc) {
    int b = graph::input_var(op, "Bias");
    if (b < 0) return std::vector<float>(static_cast<std::size_t>(oc), 0.f);
    if (!has_f32_value(g, b) || g.vars[b].value->numel() != oc) return {};
    auto s = g.vars[b].value->span<float>();
    return {s.begin(), s.end()};
}

/// Turns a conv node into `fused_conv2d` (stages: its bias only)
/// with `bias` as its Bias, a new parameter named after the conv output.
inline void make_fused_conv(graph::graph& g, int op, const std::vector<float>& bias) {
    auto& node = g.ops[op];
    int out = conv_output(node);
    auto t = tensor::from<float>({static_cast<std::int64_t>(bias.size())}, bias);
    int b = graph::add_param(g, g.vars[out].name + ".fused_bias", std::move(t));
    auto& n = g.ops[op];  // add_param does not touch ops, but keep the reference fresh
    graph::set_input(n, "Bias", b);
    if (!is_fused_conv(n)) {
        n.type = op_type<fused_conv_op>();
        fusion::set_stages<open_stages>(n.attrs);
    }
}

/// Makes `op` a fused_conv2d with a Bias, keeping an existing bias parameter
/// as is.  False when the conv's bias cannot be read.
inline bool ensure_fused_conv(graph::graph& g, int op) {
    auto& node = g.ops[op];
    if (is_fused_conv(node) && graph::input_var(node, "Bias") >= 0) return true;
    if (graph::input_var(node, "Bias") >= 0) {
        node.type = op_type<fused_conv_op>();
        fusion::set_stages<open_stages>(node.attrs);
        return true;
    }
    auto oc = conv_out_channels(g, node);
    if (oc < 0) return false;
    make_fused_conv(g, op, std::vector<float>(static_cast<std::size_t>(oc), 0.f));
    return true;
}

/// For consumers that need the filter to carry a fused conv's per-channel
/// Scale (a folded batch norm; int8 quantisation, whose per-channel steps then
/// absorb it): the filter becomes a new parameter W[oc] * k[oc] and the Scale
/// input goes.  True when the conv has no Scale or it was moved; false when
/// the values cannot be read (the conv is left as it was).
inline bool fold_scale_into_filter(graph::graph& g, int op) {
    const int sv = graph::input_var(g.ops[op], "Scale");
    if (sv < 0) return true;
    const int fv = graph::input_var(g.ops[op], "Filter");
    if (fv < 0) return false;
    const std::string base = g.vars[fv].name + ".scaled";
    int nf = -1;
    if (!g.vars[fv].value && !g.vars[sv].value) {  // a topology: shapes only
        nf = graph::declare_param(g, base, g.vars[fv].shape);
    } else {
        if (!has_f32_value(g, fv) || !has_f32_value(g, sv)) return false;
        const auto& w = *g.vars[fv].value;
        const std::int64_t oc = w.shape().empty() ? 0 : w.shape()[0];
        if (oc <= 0 || g.vars[sv].value->numel() != oc) return false;
        const float* k = g.vars[sv].value->span<float>().data();
        tensor w2(dtype::f32, w.shape());
        const std::int64_t per_oc = w.numel() / oc;
        const float* src = w.span<float>().data();
        float* dst = w2.span<float>().data();
        for (std::int64_t c = 0; c < oc; ++c)
            for (std::int64_t i = 0; i < per_oc; ++i)
                dst[c * per_oc + i] = src[c * per_oc + i] * k[c];
        nf = graph::add_param(g, base, std::move(w2));
    }
    auto& n = g.ops[op];
    graph::set_input(n, "Filter", nf);
    std::erase_if(n.inputs, [](const graph::slot& s) { return s.name == "Scale"; });
    return true;
}

/// Runs `try_at(op)` over the ops until no rewrite applies any more; each
/// successful rewrite marks ops dead in `dead` and the graph is compacted
/// (dead ops dropped, links rebuilt) before the next search.  Returns the
/// number of rewrites.
template <class TryAt>
int rewrite_until_fixed(graph::graph& g, TryAt&& try_at) {
    int count = 0;
    for (bool changed = true; changed;) {
        changed = false;
        std::vector<bool> dead(g.ops.size(), false);
        for (int op = 0; op < static_cast<int>(g.ops.size()); ++op)
            if (try_at(op, dead)) {
                ++count;
                changed = true;
                break;
            }
        if (changed) graph::compact(g, dead);
    }
    return count;
}

}  // namespace litegraph::passes
