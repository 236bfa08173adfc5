// What the fusion layer knows about each epilogue stage, in one place per
// stage kind: the name it has in a fused node's `stages` attribute (the
// ordered list of the node's epilogue stages, e.g. ["bias", "relu",
// "add_with"]), how it parses its attributes, which operand slots it reads and
// checks, and how it binds them.  fused<conv2d, ...> (fp32) and fused_int8<...>
// both run their chains through `stage_set`; a firmware network binds
// the same stages from `stage_operands` it fills from its plan.
//
// The stages themselves (their arithmetic) are kernel-layer types
// (kernels/epilogue.hpp); a stage_def adds only what needs an op_io or
// attributes.  A new stage kind is one stage_def here.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "litegraph/fusion/stage_names.hpp"
#include "litegraph/ops/activation.hpp"
#include "litegraph/ops/op.hpp"

namespace litegraph::fusion {

/// The operands a chain's stages read, resolved for one run.
struct stage_operands {
    const float* multiplier = nullptr;        // rescale: [OC], in step * filter step
    const float* bias = nullptr;              // bias: [OC]
    const float* scale = nullptr;             // bias: [OC] a folded batch norm's scale, or none
    const float* other = nullptr;             // add_with, gates: the other tensor
    std::int64_t other_plane = 1;             // mul_plane: H * W of `other`
    float output_step = 0.f;                  // quantize_store: the output's step (> 0)
    const std::int8_t* other_int8 = nullptr;  // mul_plane_int8: `other` as int8
    float other_step = 0.f;                   // mul_plane_int8: its step (> 0)
};

namespace detail {

/// `slot`, when the node has it, holds one float32 per output channel.
inline void check_per_channel(const op_io& io, const char* slot, std::int64_t channels,
                              bool required) {
    if (!required && io.input_count(slot) == 0) return;
    const auto& v = io.input(slot);
    io.check(v.type == dtype::f32 && v.numel() == channels, [&] {
        return std::string(slot) + " " + to_string(v.shape) +
               " must hold one float32 per output channel (" + std::to_string(channels) + ")";
    });
}

/// The gates' and the residual add's Other: float32 of the output's shape, or
/// for a plane gate (the SE gate) [N, C, H, W] over an [N, C, 1, 1] output,
/// which then takes Other's shape.
inline void check_other(const op_io& io, shape_t& out, bool per_plane, dtype t = dtype::f32) {
    const auto& o = io.input("Other");
    io.check(o.type == t, [&] { return "Other must be " + std::string(name_of(t)); });
    if (per_plane) {
        io.check(o.shape.size() == 4 && out.size() == 4 && o.shape[0] == out[0] &&
                     o.shape[1] == out[1] && out[2] == 1 && out[3] == 1,
                 [&] {
                     return "the gate's conv output " + to_string(out) +
                            " must be [N, C, 1, 1] for Other " + to_string(o.shape);
                 });
        out = o.shape;
    } else {
        io.check(o.shape == out, [&] {
            return "Other " + to_string(o.shape) + " must have the conv output's shape " +
                   to_string(out);
        });
    }
}

inline void read_other(const op_io& io, stage_operands& ops) {
    const auto& o = io.input("Other");
    ops.other = o.template as<float>();
    if (o.shape.size() == 4) ops.other_plane = o.shape[2] * o.shape[3];
}

}  // namespace detail

/// One stage kind's behaviour beside its arithmetic.  Every specialisation
/// declares:
///   names[]                 what it contributes to the node's `stages` list
///                           (an activation: its functor's paddle_type; a
///                           gate: its activation's, then its multiply's)
///   parse(S&, attrs)        its attribute parameters (an activation's)
///   check(io, out_shape)    its operand slots against the output shape
///   read(io, operands)      its operands from the node's slots
///   bind(S&, operands)      points the stage at them for one run
template <class S>
struct stage_def;

/// The int8 chain's first stage: accumulator * Multiplier[c].
template <>
struct stage_def<rescale> {
    static constexpr std::string_view names[] = {"rescale"};
    static void parse(rescale&, const attr_map&) {}
    static void check(const op_io& io, shape_t& out) {
        detail::check_per_channel(io, "Multiplier", out.at(1), true);
    }
    static void read(const op_io& io, stage_operands& ops) {
        ops.multiplier = io.input("Multiplier").template as<float>();
    }
    static void bind(rescale& s, const stage_operands& ops) { s.multiplier = ops.multiplier; }
};

/// Bias [OC], and the per-channel Scale of a folded batch norm when present.
template <>
struct stage_def<bias> {
    static constexpr std::string_view names[] = {"bias"};
    static void parse(bias&, const attr_map&) {}
    static void check(const op_io& io, shape_t& out) {
        detail::check_per_channel(io, "Bias", out.at(1), true);
        detail::check_per_channel(io, "Scale", out.at(1), false);
    }
    static void read(const op_io& io, stage_operands& ops) {
        ops.bias = io.input("Bias").template as<float>();
        if (io.input_count("Scale") > 0) ops.scale = io.input("Scale").template as<float>();
    }
    static void bind(bias& s, const stage_operands& ops) {
        s.values = ops.bias;
        s.scale = ops.scale;
    }
};

/// An activation: its functor's attributes (ops/activation.hpp), no operand.
template <class F>
struct stage_def<act<F>> {
    static constexpr std::string_view names[] = {F::paddle_type};
    static void parse(act<F>& s, const attr_map& a) { s.f = F::parse(a); }
    static void check(const op_io&, shape_t&) {}
    static void read(const op_io&, stage_operands&) {}
    static void bind(act<F>&, const stage_operands&) {}
};

/// The residual add: Other of the output's shape.
template <>
struct stage_def<add_with> {
    static constexpr std::string_view names[] = {"add_with"};
    static void parse(add_with&, const attr_map&) {}
    static void check(const op_io& io, shape_t& out) { detail::check_other(io, out, false); }
    static void read(const op_io& io, stage_operands& ops) { detail::read_other(io, ops); }
    static void bind(add_with& s, const stage_operands& ops) { s.other = ops.other; }
};

/// A gate's multiply (gate<F, Mul>'s second part): only a name.
template <class Mul>
struct gate_mul;
/// Other * v, Other of the output's shape.
template <>
struct gate_mul<mul_with> {
    static constexpr std::string_view name = "mul_with";
};
/// Other * v[plane], v [N, C, 1, 1] over Other [N, C, H, W] (the SE gate).
template <>
struct gate_mul<mul_plane> {
    static constexpr std::string_view name = "mul_plane";
};

/// Other (int8, step `other_step`) * v[plane]: the SE gate of an int8 block.
template <>
struct gate_mul<mul_plane_int8> {
    static constexpr std::string_view name = "mul_plane_int8";
};

/// A gate: the activation F, then Other times it (element-wise, or per plane).
template <class F, class Mul>
struct stage_def<gate<F, Mul>> {
    static constexpr bool per_plane = std::is_same_v<Mul, mul_plane>;
    static constexpr std::string_view names[] = {F::paddle_type, gate_mul<Mul>::name};
    static void parse(gate<F, Mul>& s, const attr_map& a) { s.f = F::parse(a); }
    static void check(const op_io& io, shape_t& out) { detail::check_other(io, out, per_plane); }
    static void read(const op_io& io, stage_operands& ops) { detail::read_other(io, ops); }
    static void bind(gate<F, Mul>& s, const stage_operands& ops) {
        s.mul.other = ops.other;
        if constexpr (per_plane) s.mul.plane = ops.other_plane;
    }
};

/// The SE gate over an int8 Other [N, C, H, W] of step `other_step` (the
/// node's attribute, parsed with the node as output_step is).
template <class F>
struct stage_def<gate<F, mul_plane_int8>> {
    static constexpr std::string_view names[] = {F::paddle_type, gate_mul<mul_plane_int8>::name};
    static void parse(gate<F, mul_plane_int8>& s, const attr_map& a) { s.f = F::parse(a); }
    static void check(const op_io& io, shape_t& out) {
        detail::check_other(io, out, true, dtype::i8);
    }
    static void read(const op_io& io, stage_operands& ops) {
        const auto& o = io.input("Other");
        ops.other_int8 = o.template as<std::int8_t>();
        ops.other_plane = o.shape[2] * o.shape[3];
    }
    static void bind(gate<F, mul_plane_int8>& s, const stage_operands& ops) {
        s.mul.other = ops.other_int8;
        s.mul.other_step = ops.other_step;
        s.mul.plane = ops.other_plane;
    }
};

/// The int8 output: sat8(round(v / output_step)); the step is the node's
/// `output_step` attribute (parsed with the node, fused_int8::params).
template <>
struct stage_def<quantize_store> {
    static constexpr std::string_view names[] = {"quantize_store"};
    static void parse(quantize_store&, const attr_map&) {}
    static void check(const op_io&, shape_t&) {}
    static void read(const op_io&, stage_operands&) {}
    static void bind(quantize_store& s, const stage_operands& ops) {
        s.inv_scale = 1.f / ops.output_step;
    }
};

/// The name of one stage of a chain (a one-name stage: rescale, bias,
/// act<F>, add_with, quantize_store) or of a gate's multiply (mul_with,
/// mul_plane): what a pass appends to a node's `stages`.
template <class S>
constexpr std::string_view stage_name() {
    if constexpr (requires { gate_mul<S>::name; }) {
        return gate_mul<S>::name;
    } else {
        static_assert(std::size(stage_def<S>::names) == 1,
                      "litegraph fusion: a gate names two stages; name its activation and its "
                      "multiply");
        return stage_def<S>::names[0];
    }
}

/// The plain store: the implicit end of every chain that has no writing
/// stage, never in a node's list (chain_terminal's answer for such a chain).
template <>
struct stage_def<store> {
    static constexpr std::string_view names[] = {"store"};
};

/// A chain's stages seen together: the `stages` list they stand for, and
/// parse / check / read / bind over all of them in chain order.
template <class... Stages>
struct stage_set {
    static constexpr std::size_t name_count = (std::size(stage_def<Stages>::names) + ... + 0);
    /// The node's `stages` list, in chain order (a gate contributes two names).
    static constexpr std::array<std::string_view, name_count> names() {
        std::array<std::string_view, name_count> r{};
        std::size_t i = 0;
        (
            [&] {
                for (std::string_view n : stage_def<Stages>::names) r[i++] = n;
            }(),
            ...);
        return r;
    }
    /// Whether the list `stages` is this chain's.
    static bool is(const std::vector<std::string>& stages) {
        constexpr auto n = names();
        return std::equal(stages.begin(), stages.end(), n.begin(), n.end());
    }
    /// Whether a node with these attributes is this chain.
    static bool matches(const attr_map& a);
    static void parse(std::tuple<Stages...>& stages, const attr_map& a) {
        std::apply([&](auto&... s) { (stage_def<Stages>::parse(s, a), ...); }, stages);
    }
    /// Checks every stage's operands against the producer's output shape
    /// `out` (a plane gate changes it to Other's).
    static void check(const op_io& io, shape_t& out) { (stage_def<Stages>::check(io, out), ...); }
    /// The operands of this node's stages; output_step is an attribute, the
    /// caller's to set.
    static stage_operands read(const op_io& io) {
        stage_operands ops;
        (stage_def<Stages>::read(io, ops), ...);
        return ops;
    }
    static void bind(std::tuple<Stages...>& stages, const stage_operands& ops) {
        std::apply([&](auto&... s) { (stage_def<Stages>::bind(s, ops), ...); }, stages);
    }
};

/// The attribute that lists a fused node's epilogue stages in order.
inline constexpr std::string_view stages_attribute = "stages";

/// A fused node's stage list (empty when it has none).
inline std::vector<std::string> stages_of(const attr_map& a) {
    return a.get<std::vector<std::string>>(stages_attribute, {});
}

/// Sets a node's stage list.
inline void set_stages(attr_map& a, std::vector<std::string> stages) {
    a.set(std::string(stages_attribute), std::move(stages));
}

/// A node's stage list set to `Set`'s (the stages of a stage_set<...>).
template <class Set>
void set_stages(attr_map& a) {
    constexpr auto n = Set::names();
    set_stages(a, std::vector<std::string>(n.begin(), n.end()));
}

/// Appends stage `name` (an activation's op type) to a node's stage list.
inline void append_stage(attr_map& a, std::string_view name) {
    auto s = stages_of(a);
    s.emplace_back(name);
    set_stages(a, std::move(s));
}

/// Appends stage S (stage_name<S>()) to a node's stage list.
template <class S>
void append_stage(attr_map& a) {
    append_stage(a, stage_name<S>());
}

/// Puts stage S (stage_name<S>()) in front of a node's stage list.
template <class S>
void prepend_stage(attr_map& a) {
    auto s = stages_of(a);
    s.emplace(s.begin(), stage_name<S>());
    set_stages(a, std::move(s));
}

/// The activation among a node's stages (of a stage act<F> or gate<F, M>: a
/// name that is an activation functor's paddle_type), "" for none.
inline std::string chain_activation(const attr_map& a) {
    for (auto& s : stages_of(a))
        if (ops::names_functor<ops::activation_functors>(s)) return s;
    return {};
}

/// The stage that writes a node's output when it is not a plain store:
/// add_with, a gate's mul_with / mul_plane / mul_plane_int8, quantize_store; "store" for a
/// chain whose last stage is none of them.
inline std::string_view chain_terminal(const attr_map& a) {
    constexpr std::string_view writers[] = {stage_name<add_with>(), stage_name<mul_with>(),
                                            stage_name<mul_plane>(), stage_name<mul_plane_int8>(),
                                            stage_name<quantize_store>()};
    const auto s = stages_of(a);
    if (!s.empty())
        for (std::string_view w : writers)
            if (s.back() == w) return w;
    return stage_name<store>();
}

template <class... Stages>
bool stage_set<Stages...>::matches(const attr_map& a) {
    return is(stages_of(a));
}

}  // namespace litegraph::fusion
