// Epilogues: what happens to a producer's output element between its
// computation and its single write.  A chain of stages is a type; the
// compiler composes it; `emit` is the one loop that runs it.
//
//   fused<conv2d, bias, act<relu>>                       out = relu(conv + b)
//   fused<conv2d, bias, gate<hard_sigmoid, mul_with>>    out = other * hsig(conv + b)
//   fused<conv2d, bias, gate<hard_sigmoid, mul_plane>>   the SE gate: conv is [N,C,1,1],
//                                                        other and out are [N,C,H,W]
//   fused<conv2d, bias, act<relu>, add_with>             residual: out = relu(conv + b) + other
//
// Every stage has a scalar form; stages that also have a vector form
// (`vec`, on kernels::simd::vfloat, the same operations in the same order)
// let `emit` run the chain in vector registers over a run of values, with the
// scalar form for the tail only, so a fused epilogue costs a few vector
// instructions per output vector and the results do not depend on the path.
//
// The int8 requantize epilogue is a chain of the same kind, run by the same
// `emit` loop over int32 accumulators (fusion/fused_int8.hpp):
//   chain<rescale, bias, act<relu>, quantize_store>      out = sat8(round(relu(acc*m[c] + b) / s))
//   chain<rescale, bias, act<hard_sigmoid>, gate<...>>   float out, as the fp32 terminals
//   chain<rescale, bias, gate<...>, quantize_store>      the gate's product written as int8:
//                                                        sat8(round(other * g / s))
//
// A kernel-layer header (raw pointers, no op, graph or attribute): the int8
// ops requantize through these chains too.  The fusion layer spells the same
// types as fusion::bias, fusion::act<F>, ... (fusion/stage_names.hpp), the names
// fused kernels and firmware networks use.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <tuple>
#include <type_traits>

#include "litegraph/kernels/simd.hpp"

namespace litegraph::kernels::epilogue {

/// Where a producer's element sits: image, channel and flat index in the
/// producer's output (N, C, plane).
struct at {
    std::int64_t image = 0;
    std::int64_t channel = 0;
    std::int64_t index = 0;  // flat index into the producer's output
};

/// Whether activation functor F has a vector form `V vec(V) const`.
template <class F>
concept vector_act = requires(const F& f, kernels::simd::vfloat v) {
    f.vec(v);
};

/// Whether stage S declares a vector form (`vectorizes`; a stage without the
/// flag runs scalar).
template <class S>
concept stage_vectorizes = requires {
    requires S::vectorizes;
};

/// Per-channel rescale of an int32 accumulator to real units: v * m[channel],
/// m = input step * weight step of the channel.  The one stage allowed before
/// the bias (it turns the accumulator into the value the bias adds to).
struct rescale {
    static constexpr bool is_rescale = true;
    const float* multiplier = nullptr;
    float operator()(float v, const at& a) const { return v * multiplier[a.channel]; }
};

/// Per-channel bias: v + b[channel]; with a per-channel `scale` (a folded
/// batch norm's gamma / sqrt(var + eps), passes/fold_batch_norm.hpp),
/// v * k[channel] + b[channel]: the conv's filter stays as trained, so the
/// fused conv rounds as conv -> batch_norm does (batch_norm computes
/// x * k + (beta - mean * k)), instead of summing products of rounded w * k.
struct bias {
    static constexpr bool vectorizes = true;
    const float* values = nullptr;
    const float* scale = nullptr;  // null: no scale
    /// The two forms, the choice made by the chain once per run of values
    /// (chain::emit), so no element tests `scale`.
    template <bool Scaled>
    float fixed(float v, const at& a) const {
        if constexpr (Scaled)
            return v * scale[a.channel] + values[a.channel];
        else
            return v + values[a.channel];
    }
    template <bool Scaled, class V>
    V fixed_vec(V v, const at& a) const {
        if constexpr (Scaled)
            return v * V(scale[a.channel]) + V(values[a.channel]);
        else
            return v + V(values[a.channel]);
    }
};

/// An activation functor (ops::act::*) as a stage.
template <class F>
struct act {
    static constexpr bool vectorizes = vector_act<F>;
    F f{};
    float operator()(float v, const at&) const { return f(v); }
    template <class V>
    V vec(V v, const at&) const {
        return f.vec(v);
    }
};

/// Residual add of another tensor of the producer's shape: v + other[index].
struct add_with {
    static constexpr bool vectorizes = true;
    const float* other = nullptr;
    float operator()(float v, const at& a) const { return v + other[a.index]; }
    template <class V>
    V vec(V v, const at& a) const {
        return v + V::load_unaligned(other + a.index);
    }
};

// Terminal writers: how the final value reaches memory.

/// The default: out[index] = v.
struct store {
    static constexpr bool is_terminal = true;
    static constexpr bool broadcasts = false;
    static constexpr bool vectorizes = true;
    void write(float* out, const at& a, float v) const { out[a.index] = v; }
    template <class V>
    void write_vec(float* out, const at& a, V v) const {
        v.store_unaligned(out + a.index);
    }
};

/// Rounds half away from zero and saturates to int8: the one quantisation
/// rule of the int8 kernels (Paddle's fake quantisation rounds the same way).
/// NaN (a NaN weight or scale in a model) quantises to 0: converting it to
/// an integer would be undefined (found by fuzz_model).  The same results as
/// std::round then saturating, without the C library call std::round is on
/// targets without a rounding instruction for it (x86-64's baseline, Cortex-M):
/// saturating to +-256 first changes no result, then the integer part is an
/// exact conversion and the fraction an exact subtraction.
/// On an FPv5 Cortex-M (M7, M33, M55) it is VCVTA (round to nearest, ties
/// away, saturating to int32, NaN to 0) and SSAT #8: the same value for
/// every float in two instructions.
inline std::int8_t saturate_int8(float v) {
#if defined(__ARM_FP) && (__ARM_FP & 8) && defined(__thumb2__) && defined(__ARM_ARCH_PROFILE) && \
    __ARM_ARCH_PROFILE == 'M'
    float r;
    __asm__("vcvta.s32.f32 %0, %1" : "=t"(r) : "t"(v));
    std::int32_t i;
    __builtin_memcpy(&i, &r, sizeof i);
    __asm__("ssat %0, #8, %1" : "=r"(i) : "r"(i));
    return static_cast<std::int8_t>(i);
#else
    if (!(v == v)) return 0;
    const float c = v < -256.f ? -256.f : (v > 256.f ? 256.f : v);
    const int t = static_cast<int>(c);
    const float frac = c - static_cast<float>(t);
    const int r = t + (frac >= 0.5f ? 1 : 0) - (frac <= -0.5f ? 1 : 0);
    return static_cast<std::int8_t>(r < -128 ? -128 : (r > 127 ? 127 : r));
#endif
}

/// The int8 terminal: out[index] = sat8(round(v * inv_scale)), inv_scale the
/// reciprocal of the output's quantisation step.
struct quantize_store {
    static constexpr bool is_terminal = true;
    static constexpr bool broadcasts = false;
    float inv_scale = 1.f;
    void write(std::int8_t* out, const at& a, float v) const {
        out[a.index] = saturate_int8(v * inv_scale);
    }
};

/// out[index] = other[index] * v (the patent's conv -> logistic -> mul).
/// write_quantized (a gate followed by quantize_store): the same product,
/// then sat8(round(product * inv_scale)), as a float gate then quantize_int8.
struct mul_with {
    static constexpr bool is_terminal = true;
    static constexpr bool broadcasts = false;
    static constexpr bool vectorizes = true;
    const float* other = nullptr;
    void write(float* out, const at& a, float v) const { out[a.index] = other[a.index] * v; }
    template <class V>
    void write_vec(float* out, const at& a, V v) const {
        (V::load_unaligned(other + a.index) * v).store_unaligned(out + a.index);
    }
    void write_quantized(std::int8_t* out, const at& a, float v, float inv_scale) const {
        const float p = other[a.index] * v;
        out[a.index] = saturate_int8(p * inv_scale);
    }
};

/// out[i] = sat8(round((other[i] * v) * inv_scale)) for i < n: a plane of
/// the SE gate written as int8 (mul_plane::write_quantized).
using plane_quantize_fn = void (*)(const float* other, float v, float inv_scale, std::int8_t* out,
                                   std::int64_t n);

/// The SE gate: the producer's output is [N, C, 1, 1]; every element scales
/// one whole plane of `other` ([N, C, H, W]) into the same plane of `out`.
/// write_quantized writes the plane as int8 (a gate followed by
/// quantize_store), through `quantize_run` (an arch unit's vector loop, the
/// same bytes) when the caller set one.
struct mul_plane {
    static constexpr bool is_terminal = true;
    static constexpr bool broadcasts = true;
    static constexpr bool vectorizes = false;  // one value per plane (the loop below vectorises)
    const float* other = nullptr;
    std::int64_t plane = 1;  // H * W of `other`
    plane_quantize_fn quantize_run = nullptr;
    void write(float* out, const at& a, float v) const {
        const float* o = other + a.index * plane;
        float* d = out + a.index * plane;
        for (std::int64_t i = 0; i < plane; ++i) d[i] = o[i] * v;
    }
    void write_quantized(std::int8_t* out, const at& a, float v, float inv_scale) const {
        const float* o = other + a.index * plane;
        std::int8_t* d = out + a.index * plane;
        if (quantize_run) return quantize_run(o, v, inv_scale, d, plane);
        for (std::int64_t i = 0; i < plane; ++i) {
            const float p = o[i] * v;
            d[i] = saturate_int8(p * inv_scale);
        }
    }
};

/// The SE gate over an int8 plane: `other` is int8 of step `other_step`
/// (the block's input kept int8, docs/int8.md); each element scales one
/// plane of the dequantized `other` (q * other_step, the value the fake
/// quant-dequant op of the float model gives) into the same plane of `out`.
struct mul_plane_int8 {
    static constexpr bool is_terminal = true;
    static constexpr bool broadcasts = true;
    static constexpr bool vectorizes = false;
    const std::int8_t* other = nullptr;
    float other_step = 1.f;
    std::int64_t plane = 1;  // H * W of `other`
    void write(float* out, const at& a, float v) const {
        const std::int8_t* o = other + a.index * plane;
        float* d = out + a.index * plane;
        for (std::int64_t i = 0; i < plane; ++i) d[i] = static_cast<float>(o[i]) * other_step * v;
    }
    void write_quantized(std::int8_t* out, const at& a, float v, float inv_scale) const {
        const std::int8_t* o = other + a.index * plane;
        std::int8_t* d = out + a.index * plane;
        for (std::int64_t i = 0; i < plane; ++i) {
            const float p = static_cast<float>(o[i]) * other_step * v;
            d[i] = saturate_int8(p * inv_scale);
        }
    }
};

/// gate<Act, Mul>: apply Act, then multiply by another tensor (Mul is
/// mul_with or mul_plane): the gated residual structure.
template <class F, class Mul>
struct gate {
    static constexpr bool is_terminal = true;
    static constexpr bool broadcasts = Mul::broadcasts;
    static constexpr bool vectorizes = vector_act<F> && stage_vectorizes<Mul>;
    F f{};
    Mul mul{};
    void write(float* out, const at& a, float v) const { mul.write(out, a, f(v)); }
    template <class V>
    void write_vec(float* out, const at& a, V v) const {
        mul.write_vec(out, a, f.vec(v));
    }
    /// The gate followed by quantize_store (chain<..., gate<F, Mul>,
    /// quantize_store>): the product written as int8.
    void write_quantized(std::int8_t* out, const at& a, float v, float inv_scale) const {
        mul.write_quantized(out, a, f(v), inv_scale);
    }
};

template <class S>
struct is_gate : std::false_type {};
template <class F, class Mul>
struct is_gate<gate<F, Mul>> : std::true_type {};

template <class S>
concept terminal_stage = requires {
    S::is_terminal;
};

template <class S>
struct is_bias : std::is_same<S, bias> {};

namespace detail {
// A terminal comes last, but for a gate right before a closing
// quantize_store (the gate's product written as int8).
template <class... S>
constexpr bool last_is_terminal_only() {
    constexpr std::size_t n = sizeof...(S);
    constexpr bool flags[] = {terminal_stage<S>..., false};
    constexpr bool gates[] = {is_gate<S>::value..., false};
    constexpr bool quantizes[] = {std::is_same_v<S, quantize_store>..., false};
    for (std::size_t i = 0; i + 1 < n; ++i)
        if (flags[i] && !(i + 2 == n && gates[i] && quantizes[i + 1])) return false;
    return true;
}
template <class... S>
constexpr bool ends_in_quantized_gate() {
    constexpr std::size_t n = sizeof...(S);
    constexpr bool gates[] = {is_gate<S>::value..., false};
    constexpr bool quantizes[] = {std::is_same_v<S, quantize_store>..., false};
    if constexpr (n < 2)
        return false;
    else
        return gates[n - 2] && quantizes[n - 1];
}
template <class S>
constexpr bool is_rescale_stage() {
    if constexpr (requires { S::is_rescale; })
        return S::is_rescale;
    else
        return false;
}
// A bias comes first, or right after the rescale that starts an int8 chain;
// a rescale comes first only.
template <class... S>
constexpr bool bias_first_only() {
    constexpr bool flags[] = {std::is_same_v<S, bias>..., false};
    constexpr bool rescales[] = {is_rescale_stage<S>()..., false};
    for (std::size_t i = 1; i < sizeof...(S); ++i) {
        if (rescales[i]) return false;
        if (flags[i] && !(i == 1 && rescales[0])) return false;
    }
    return true;
}
}  // namespace detail

/// A key per chain type (the address of its tag): an arch unit's vector
/// loop of a chain is found by it (chain_entry, kernels/simd.hpp's arch_table).
template <class Chain>
inline constexpr char chain_tag = 0;

/// The vector loop of a float chain for one architecture: runs elements
/// [0, count - count % width) of `emit` and returns how many it ran.
using chain_vec_fn = std::int64_t (*)(const void* chain, float* out, const float* values,
                                      std::int64_t count, at a);
struct chain_entry {
    const void* key;  // &chain_tag<Chain>
    chain_vec_fn run;
};

/// A chain of element stages ending, optionally, in one terminal writer.
template <class... Stages>
struct chain {
    static_assert(detail::bias_first_only<Stages...>(),
                  "litegraph fusion: a bias stage must come first in the epilogue chain, "
                  "right after the producer (or right after the rescale of an int8 chain).");
    static_assert(detail::last_is_terminal_only<Stages...>(),
                  "litegraph fusion: a gate or mul stage writes the result and must be the "
                  "last stage of the epilogue chain (a gate may be followed by "
                  "quantize_store only).");

    std::tuple<Stages...> stages;

    static constexpr bool has_terminal = (terminal_stage<Stages> || ... || false);
    /// Whether the chain ends in gate<F, Mul>, quantize_store: the gate's
    /// product is written as int8 (Mul::write_quantized).
    static constexpr bool quantized_gate = detail::ends_in_quantized_gate<Stages...>();
    static constexpr bool has_bias = (std::is_same_v<Stages, bias> || ... || false);
#if defined(LITEGRAPH_SCALAR_SIMD)
    static constexpr bool vectorized = false;
#else
    using vfloat = kernels::simd::vfloat;
    /// Whether emit runs in vector registers (every stage has a vector form).
    static constexpr bool vectorized = (stage_vectorizes<Stages> && ... && true);
#endif

    /// Writes the final value of one producer element (out is float, or
    /// int8 behind a quantize_store).
    template <class Out>
    void write(Out* out, const at& a, float v) const {
        if (scaled())
            write_fixed<true>(out, a, v);
        else
            write_fixed<false>(out, a, v);
    }

    /// The one loop of a fused kernel: `count` finished producer values of
    /// image `image`, channel `channel`, starting at flat index `index`, go
    /// through the chain and are written once each.
    /// Values are float (fp32 producers, in vector registers where every
    /// stage has a vector form) or int32 accumulators (int8 ones, scalar).
    /// The bias stage's scale (a folded batch norm) is tested once per run:
    /// the loops are instantiated for both forms.
    template <class Out, class V>
    void emit(Out* out, const V* values, std::int64_t count, at a) const {
        if constexpr (std::is_same_v<Out, float> && std::is_same_v<V, float>) {
            // The loop runs on a local copy of the stages: `out` cannot alias
            // it, so their parameters stay in registers across the stores.
            const chain local = *this;
            std::int64_t done = 0;
#if defined(LITEGRAPH_SIMD_DISPATCH)
            // The vectors of the active instruction set's unit, when it has
            // this chain (simd/arch_unit.hpp); the rest below.
            if constexpr (vectorized)
                if (const chain_vec_fn f = dispatched()) done = f(&local, out, values, count, a);
#endif
            if (local.scaled())
                local.template emit_run<true>(out, values, count, a, done);
            else
                local.template emit_run<false>(out, values, count, a, done);
        } else if (scaled()) {
            for (std::int64_t i = 0; i < count; ++i, ++a.index)
                write_fixed<true>(out, a, static_cast<float>(values[i]));
        } else {
            for (std::int64_t i = 0; i < count; ++i, ++a.index)
                write_fixed<false>(out, a, static_cast<float>(values[i]));
        }
    }

#if !defined(LITEGRAPH_SCALAR_SIMD)
    /// emit's vector loop in vectors of architecture A (what an arch unit
    /// instantiates; chain_vec_fn): elements [0, count - count % width).
    template <class A>
    std::int64_t emit_vec(float* out, const float* values, std::int64_t count, at a) const {
        using V = typename kernels::simd::arch_traits<A>::vfloat;
        constexpr std::int64_t w = kernels::simd::width_of<A>;
        const std::int64_t vend = count - count % w;
        // A local copy, as in emit: `out` cannot alias it, so the stages'
        // parameters (an activation's constants, the pointers) stay in
        // registers across the stores instead of being read again per vector.
        const chain local = *this;
        if (local.scaled())
            for (std::int64_t i = 0; i < vend; i += w)
                local.template write_vec<true>(out, at{a.image, a.channel, a.index + i},
                                               V::load_unaligned(values + i));
        else
            for (std::int64_t i = 0; i < vend; i += w)
                local.template write_vec<false>(out, at{a.image, a.channel, a.index + i},
                                                V::load_unaligned(values + i));
        return vend;
    }
    template <class A>
    static std::int64_t emit_vec_erased(const void* c, float* out, const float* values,
                                        std::int64_t count, at a) {
        return static_cast<const chain*>(c)->template emit_vec<A>(out, values, count, a);
    }
#endif

private:
#if defined(LITEGRAPH_SIMD_DISPATCH)
    /// The active slot's vector loop of this chain, or null (the baseline,
    /// or a unit that does not list the chain).  Looked up once per slot.
    static chain_vec_fn dispatched() {
        static const auto fns = [] {
            std::array<chain_vec_fn, kernels::simd::isa_count> r{};
            for (int i = 1; i < kernels::simd::isa_count; ++i)
                if (const auto* t = kernels::simd::table_of(static_cast<kernels::simd::isa>(i)))
                    for (std::int64_t e = 0; e < t->chain_count; ++e)
                        if (t->chains[e].key == &chain_tag<chain>) r[i] = t->chains[e].run;
            return r;
        }();
        return fns[static_cast<int>(kernels::simd::active())];
    }
#endif
    /// Whether the bias stage carries a scale.
    bool scaled() const {
        if constexpr (has_bias)
            return std::get<bias>(stages).scale != nullptr;
        else
            return false;
    }
    template <bool Scaled, class Out>
    void write_fixed(Out* out, const at& a, float v) const {
        std::apply([&](const auto&... s) { ((v = step<Scaled>(s, v, a)), ...); }, stages);
        if constexpr (quantized_gate)
            std::get<sizeof...(Stages) - 2>(stages).write_quantized(
                out, a, v, std::get<sizeof...(Stages) - 1>(stages).inv_scale);
        else if constexpr (has_terminal)
            std::get<sizeof...(Stages) - 1>(stages).write(out, a, v);
        else
            out[a.index] = v;
    }
    template <bool Scaled>
    void emit_run(float* out, const float* values, std::int64_t count, at a, std::int64_t i) const {
#if !defined(LITEGRAPH_SCALAR_SIMD)
        if constexpr (vectorized) {
            constexpr std::int64_t w = kernels::simd::width;
            const std::int64_t vend = i + (count - i) - (count - i) % w;
            for (; i < vend; i += w)
                write_vec<Scaled>(out, at{a.image, a.channel, a.index + i},
                                  vfloat::load_unaligned(values + i));
        }
#endif
        for (; i < count; ++i)
            write_fixed<Scaled>(out, at{a.image, a.channel, a.index + i}, values[i]);
    }
#if !defined(LITEGRAPH_SCALAR_SIMD)
    template <bool Scaled, class V>
    void write_vec(float* out, const at& a, V v) const {
        std::apply([&](const auto&... s) { ((v = step_vec<Scaled>(s, v, a)), ...); }, stages);
        if constexpr (has_terminal)
            std::get<sizeof...(Stages) - 1>(stages).write_vec(out, a, v);
        else
            v.store_unaligned(out + a.index);
    }
    template <bool Scaled, class S, class V>
    static V step_vec(const S& s, V v, const at& a) {
        if constexpr (terminal_stage<S>)
            return v;
        else if constexpr (std::is_same_v<S, bias>)
            return s.template fixed_vec<Scaled>(v, a);
        else
            return s.vec(v, a);
    }
#endif
    template <bool Scaled, class S>
    static float step(const S& s, float v, const at& a) {
        if constexpr (terminal_stage<S>)
            return v;
        else if constexpr (std::is_same_v<S, bias>)
            return s.template fixed<Scaled>(v, a);
        else
            return s(v, a);
    }
};

}  // namespace litegraph::kernels::epilogue
