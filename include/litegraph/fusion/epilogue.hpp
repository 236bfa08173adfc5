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
// The int8 requantize epilogue is a chain of the same kind, run by the same
// `emit` loop over int32 accumulators (fusion/fused_int8.hpp):
//   chain<rescale, bias, act<relu>, quantize_store>      out = sat8(round(relu(acc*m[c] + b) / s))
//   chain<rescale, bias, act<hard_sigmoid>, gate<...>>   float out, as the fp32 terminals
#pragma once

#include <cmath>
#include <cstdint>
#include <tuple>
#include <type_traits>

namespace litegraph::fusion {

/// Where a producer's element sits: image, channel and flat index in the
/// producer's output (N, C, plane).
struct at {
    std::int64_t image = 0;
    std::int64_t channel = 0;
    std::int64_t index = 0;  // flat index into the producer's output
};

/// Per-channel rescale of an int32 accumulator to real units: v * m[channel],
/// m = input step * weight step of the channel.  The one stage allowed before
/// the bias (it turns the accumulator into the value the bias adds to).
struct rescale {
    static constexpr bool is_rescale = true;
    const float* multiplier = nullptr;
    float operator()(float v, const at& a) const { return v * multiplier[a.channel]; }
};

/// Per-channel bias: v + b[channel].
struct bias {
    const float* values = nullptr;
    float operator()(float v, const at& a) const { return v + values[a.channel]; }
};

/// An activation functor (ops::act::*) as a stage.
template <class F>
struct act {
    F f{};
    float operator()(float v, const at&) const { return f(v); }
};

/// Residual add of another tensor of the producer's shape: v + other[index].
struct add_with {
    const float* other = nullptr;
    float operator()(float v, const at& a) const { return v + other[a.index]; }
};

// Terminal writers: how the final value reaches memory.

/// The default: out[index] = v.
struct store {
    static constexpr bool is_terminal = true;
    void write(float* out, const at& a, float v) const { out[a.index] = v; }
    static constexpr bool broadcasts = false;
};

/// Rounds half away from zero and saturates to int8: the one quantisation
/// rule of the int8 kernels (Paddle's fake quantisation rounds the same way).
inline std::int8_t saturate_int8(float v) {
    const float r = std::round(v);
    return static_cast<std::int8_t>(r < -128.f ? -128.f : (r > 127.f ? 127.f : r));
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
struct mul_with {
    static constexpr bool is_terminal = true;
    static constexpr bool broadcasts = false;
    const float* other = nullptr;
    void write(float* out, const at& a, float v) const { out[a.index] = other[a.index] * v; }
};

/// The SE gate: the producer's output is [N, C, 1, 1]; every element scales
/// one whole plane of `other` ([N, C, H, W]) into the same plane of `out`.
struct mul_plane {
    static constexpr bool is_terminal = true;
    static constexpr bool broadcasts = true;
    const float* other = nullptr;
    std::int64_t plane = 1;  // H * W of `other`
    void write(float* out, const at& a, float v) const {
        const float* o = other + a.index * plane;
        float* d = out + a.index * plane;
        for (std::int64_t i = 0; i < plane; ++i) d[i] = o[i] * v;
    }
};

/// gate<Act, Mul>: apply Act, then multiply by another tensor (Mul is
/// mul_with or mul_plane): the gated residual structure.
template <class F, class Mul>
struct gate {
    static constexpr bool is_terminal = true;
    static constexpr bool broadcasts = Mul::broadcasts;
    F f{};
    Mul mul{};
    void write(float* out, const at& a, float v) const { mul.write(out, a, f(v)); }
};

template <class S>
concept terminal_stage = requires {
    S::is_terminal;
};

template <class S>
struct is_bias : std::is_same<S, bias> {};

namespace detail {
template <class... S>
constexpr bool last_is_terminal_only() {
    constexpr std::size_t n = sizeof...(S);
    constexpr bool flags[] = {terminal_stage<S>..., false};
    for (std::size_t i = 0; i + 1 < n; ++i)
        if (flags[i]) return false;
    return true;
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

/// A chain of element stages ending, optionally, in one terminal writer.
template <class... Stages>
struct chain {
    static_assert(detail::bias_first_only<Stages...>(),
                  "litegraph fusion: a bias stage must come first in the epilogue chain, "
                  "right after the producer (or right after the rescale of an int8 chain).");
    static_assert(detail::last_is_terminal_only<Stages...>(),
                  "litegraph fusion: a gate or mul stage writes the result and must be the "
                  "last stage of the epilogue chain.");

    std::tuple<Stages...> stages;

    static constexpr bool has_terminal = (terminal_stage<Stages> || ... || false);
    static constexpr bool has_bias = (std::is_same_v<Stages, bias> || ... || false);

    /// The element stages applied to v (terminal excluded).
    float apply(float v, const at& a) const {
        std::apply([&](const auto&... s) { ((v = step(s, v, a)), ...); }, stages);
        return v;
    }

    /// Writes the final value of one producer element (out is float, or
    /// int8 behind a quantize_store).
    template <class Out>
    void write(Out* out, const at& a, float v) const {
        v = apply(v, a);
        if constexpr (has_terminal)
            std::get<sizeof...(Stages) - 1>(stages).write(out, a, v);
        else
            out[a.index] = v;
    }

    /// The one loop of a fused kernel: `count` finished producer values of
    /// image `image`, channel `channel`, starting at flat index `index`, go
    /// through the chain and are written once each.
    /// Values are float (fp32 producers) or int32 accumulators (int8 ones).
    template <class Out, class V>
    void emit(Out* out, const V* values, std::int64_t count, at a) const {
        for (std::int64_t i = 0; i < count; ++i, ++a.index)
            write(out, a, static_cast<float>(values[i]));
    }

private:
    template <class S>
    static float step(const S& s, float v, const at& a) {
        if constexpr (terminal_stage<S>)
            return v;
        else
            return s(v, a);
    }
};

}  // namespace litegraph::fusion
