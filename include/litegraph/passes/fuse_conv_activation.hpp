// fuse_conv_activation: conv -> activation (one of ops::fusable_activations:
// `litegraph ops` lists them), where the activation is the conv output's only
// reader, becomes a fused_conv2d whose `stages` end with the activation's
// Paddle type (["bias", "relu"]) and with the activation's parameters copied
// under their Paddle names.  A plain
// conv without a bias gets a zero Bias: every fused conv kernel has one.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "litegraph/passes/pattern.hpp"

namespace litegraph::passes {

/// Copies an activation op's attributes onto a fused conv node: its own
/// attributes win (whatever its functor's `parse` reads: alpha, threshold,
/// slope, offset, beta, t_min, ...), except Paddle's bookkeeping of where an op
/// comes from, which stays the conv's (taken from the activation only when
/// the conv lacks it).
inline void copy_activation_attrs(const graph::op_node& act, graph::op_node& conv) {
    constexpr std::string_view bookkeeping[] = {"op_callstack", "op_namescope", "op_role",
                                                "op_role_var",  "op_device",    "with_quant_attr"};
    for (auto& [name, value] : act.attrs.all()) {
        const bool conv_keeps = std::find(std::begin(bookkeeping), std::end(bookkeeping), name) !=
                                std::end(bookkeeping);
        if (!conv_keeps || !conv.attrs.has(name)) conv.attrs.set(name, value);
    }
}

/// Fuses every conv -> activation pair; returns how many.
inline int fuse_conv_activation(graph::graph& g) {
    return rewrite_until_fixed(g, [&](int op, std::vector<bool>& dead) {
        const auto& conv = g.ops[op];
        if (!is_open_conv(conv)) return false;
        const int out = conv_output(conv);
        if (out < 0) return false;
        const int act_op = graph::sole_consumer(g, out);
        if (act_op < 0) return false;
        const auto& act = g.ops[act_op];
        if (!is_fusable_activation(act.type) || graph::input_var(act, "X") != out) return false;
        // An open conv's stages are its bias only: the activation comes next.
        constexpr auto open = open_stages::names();
        std::vector<std::string> stages(open.begin(), open.end());
        stages.push_back(act.type);
        if (!fused_conv_exists(stages)) return false;
        const int y = graph::output_var(act, "Out");
        if (y < 0 || g.vars[y].type != dtype::f32) return false;
        if (!ensure_fused_conv(g, op)) return false;
        auto& fused = g.ops[op];
        copy_activation_attrs(g.ops[act_op], fused);
        fusion::set_stages(fused.attrs, std::move(stages));
        graph::set_output(fused, "Output", y);
        dead[act_op] = true;
        return true;
    });
}

}  // namespace litegraph::passes
