// fuse_gate: a gate — fused_conv2d whose stages are its bias and a gate
// activation (ops::gate_activations: sigmoid, hard_sigmoid) — whose output's
// only reader is elementwise_mul(other, gate) or elementwise_mul(gate, other)
// writes the product itself, its stages then ending with the multiply:
//   same declared shape            -> "mul_with"   (["bias", "sigmoid", "mul_with"])
//   gate [N, C, 1, 1], other [N, C, H, W] (the SE block of MobileNetV3)
//                                  -> "mul_plane"
// The fused conv reads `other` in slot Other and writes the mul's Out.
// Declared shapes have -1 batches: known dims are compared, channels must be
// known and equal.
#pragma once

#include <string>
#include <vector>

#include "litegraph/ops/elementwise.hpp"
#include "litegraph/passes/pattern.hpp"

namespace litegraph::passes {

/// The stage name of the multiply (mul_with, mul_plane) a gate of declared
/// shape `gate` multiplied with `other` needs, or "" when the pair is not a
/// gate pattern.
inline std::string gate_terminal(const shape_t& gate, const shape_t& other) {
    if (gate.size() != 4 || other.size() != 4) return "";
    if (gate[1] <= 0 || gate[1] != other[1]) return "";  // channels known and equal
    if (gate[0] != other[0]) return "";                  // batch: both -1 or the same
    if (same_declared_shape(gate, other))
        return std::string(fusion::stage_name<fusion::mul_with>());
    if (gate[2] == 1 && gate[3] == 1) return std::string(fusion::stage_name<fusion::mul_plane>());
    return "";
}

/// Fuses every gate -> elementwise_mul pair; returns how many.
inline int fuse_gate(graph::graph& g) {
    return rewrite_until_fixed(g, [&](int op, std::vector<bool>& dead) {
        const auto& conv = g.ops[op];
        if (!is_fused_conv(conv)) return false;
        if (fusion::chain_terminal(conv.attrs) != fusion::stage_name<fusion::store>()) return false;
        if (!ops::names_functor<ops::gate_activations>(fusion::chain_activation(conv.attrs)))
            return false;
        const int out = conv_output(conv);
        if (out < 0) return false;
        const int mul_op = graph::sole_consumer(g, out);
        if (mul_op < 0) return false;
        const auto& mul = g.ops[mul_op];
        if (mul.type != ops::elementwise::type_of(ops::elementwise::kind::mul)) return false;
        if (!mul.attrs.get<std::string>("act_type", "").empty() ||
            !mul.attrs.get<std::string>("fuse_activation", "").empty())
            return false;
        const int x = graph::input_var(mul, "X"), y = graph::input_var(mul, "Y");
        const int prod = graph::output_var(mul, "Out");
        if (x < 0 || y < 0 || prod < 0 || x == y) return false;
        const int other = x == out ? y : x;
        if ((x != out && y != out) || g.vars[other].type != dtype::f32) return false;
        // The axis only matters when the ranks differ, which the shapes exclude.
        const auto terminal = gate_terminal(g.vars[out].shape, g.vars[other].shape);
        if (terminal.empty()) return false;
        auto stages = fusion::stages_of(conv.attrs);
        stages.push_back(terminal);
        if (!fused_conv_exists(stages)) return false;
        auto& fused = g.ops[op];
        fusion::set_stages(fused.attrs, std::move(stages));
        graph::set_input(fused, "Other", other);
        graph::set_output(fused, "Output", prod);
        dead[mul_op] = true;
        return true;
    });
}

}  // namespace litegraph::passes
