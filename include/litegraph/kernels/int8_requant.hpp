// The int8 epilogues in vectors of an arch unit's architecture, bit for
// bit the scalar chain::emit: the requantize of an int8-output chain
// (requant_vec, int8_requant_fn), the float-output chains (int8_float_vec),
// quantize_int8's loop and the SE gate's int8 plane (plane_quantize_vec),
// and the rounding to int8 they share (round_int8_vec, store_rounded_int8).
#pragma once

#include "litegraph/kernels/conv_int8_pack.hpp"

namespace litegraph::kernels::detail {
#if !defined(LITEGRAPH_SCALAR_SIMD)
/// epilogue::saturate_int8 on a vector (the same value for every float):
/// NaN to 0, clamped to +-256 (which changes no result), then
/// trunc(c + copysign(0.49999997, c)): 0.49999997 is the float below 0.5, and
/// adding it rounds every float in [-256, 256] half away from zero (at a
/// half, c + 0.49999997 ties or rounds up to the next integer in float; just
/// below one, it stays below).  Both sides are monotone step functions, so
/// agreeing next to every half proves them equal: tests/kernels/conv_int8.cpp
/// checks each half in [-257.5, 257.5] and the floats either side of it.
/// round_int8_vec is that before the last clamp (in [-256, 256]: the
/// saturating packs of store_rounded_int8 clamp it).
template <class A>
inline xsimd::batch<std::int32_t, A> round_int8_vec(xsimd::batch<float, A> v) noexcept {
    using F = xsimd::batch<float, A>;
    const F c = xsimd::select(v == v, xsimd::min(xsimd::max(v, F(-256.f)), F(256.f)), F(0.f));
    const F half = xsimd::bitwise_or(xsimd::bitwise_and(c, F(-0.f)), F(0.49999997f));
    return xsimd::batch_cast<std::int32_t>(c + half);  // truncated
}
template <class A>
inline xsimd::batch<std::int32_t, A> saturate_int8_vec(xsimd::batch<float, A> v) noexcept {
    using I = xsimd::batch<std::int32_t, A>;
    return xsimd::min(xsimd::max(round_int8_vec<A>(v), I(-128)), I(127));
}

/// Eight int32 in [-128, 127] (or more: saturated) stored as int8.
template <class A>
inline void store_int8_vec(std::int8_t* o, xsimd::batch<std::int32_t, A> q) noexcept {
#if defined(LITEGRAPH_INT8_AVX2) && defined(__AVX512F__)
    if constexpr (xsimd::batch<std::int32_t, A>::size == 16) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(o), _mm512_cvtsepi32_epi8(q));  // saturating
        return;
    }
#endif
#if defined(LITEGRAPH_INT8_AVX2)
    if constexpr (xsimd::batch<std::int32_t, A>::size == 8) {
        const __m256i r = q;
        const __m128i p16 =
            _mm_packs_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
        _mm_storel_epi64(reinterpret_cast<__m128i*>(o), _mm_packs_epi16(p16, p16));
        return;
    }
#endif
    constexpr std::size_t w = xsimd::batch<std::int32_t, A>::size;
    alignas(64) std::int32_t r[w];
    q.store_aligned(r);
    for (std::size_t j = 0; j < w; ++j) o[j] = static_cast<std::int8_t>(r[j]);
}

/// out[j] = saturate_int8(f(i)[j - i]) for the vectors of floats f(i),
/// i = 0, w, 2w, ... while a whole vector fits in n; returns the elements
/// written (the caller writes the tail).  AVX2: four vectors per store.
template <class A, class Fn>
inline std::int64_t store_rounded_int8(std::int8_t* out, std::int64_t n, Fn&& f) noexcept {
    constexpr std::int64_t w = static_cast<std::int64_t>(xsimd::batch<float, A>::size);
    std::int64_t i = 0;
#if defined(LITEGRAPH_INT8_AVX2)
    if constexpr (w == 8) {
        const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
        for (; i + 32 <= n; i += 32) {
            const __m256i q0 = round_int8_vec<A>(f(i)), q1 = round_int8_vec<A>(f(i + 8));
            const __m256i q2 = round_int8_vec<A>(f(i + 16)), q3 = round_int8_vec<A>(f(i + 24));
            // Saturating packs (in 128-bit lanes), then the dwords in order.
            const __m256i b =
                _mm256_packs_epi16(_mm256_packs_epi32(q0, q1), _mm256_packs_epi32(q2, q3));
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i),
                                _mm256_permutevar8x32_epi32(b, order));
        }
    }
#endif
    for (; i + w <= n; i += w) store_int8_vec<A>(out + i, saturate_int8_vec<A>(f(i)));
    return i;
}

/// The stages of chain stages `st` between the bias and the terminal (an
/// activation, add_with) on a vector at `a`.
template <class V, class Tuple>
inline V int8_middle_vec(const Tuple& st, V v, const epilogue::at& a) {
    std::apply(
        [&v, &a](const auto&... s) {
            (
                [&v, &a](const auto& stage) {
                    using S = std::decay_t<decltype(stage)>;
                    if constexpr (!std::is_same_v<S, epilogue::rescale> &&
                                  !std::is_same_v<S, epilogue::bias> &&
                                  !epilogue::terminal_stage<S>)
                        v = stage.vec(v, a);
                }(s),
                ...);
        },
        st);
    return v;
}

/// The vector requantize of the int8 chain C = chain<rescale, bias, [act |
/// add_with], quantize_store> (int8_requant_fn): the arithmetic of
/// chain::emit (requantize_run) in its order, the tail through chain::emit.
template <class A, class C>
void requant_vec(const void* cp, std::int8_t* out, const std::int32_t* acc, std::int64_t count,
                 std::int64_t oc, std::int64_t index) {
    using F = xsimd::batch<float, A>;
    using I = xsimd::batch<std::int32_t, A>;
    const C& c = *static_cast<const C*>(cp);
    const auto& st = c.stages;
    constexpr std::size_t last = std::tuple_size_v<std::decay_t<decltype(st)>> - 1;
    const F m(std::get<0>(st).multiplier[oc]);
    const auto& b = std::get<1>(st);
    const F bv(b.values[oc]);
    const bool scaled = b.scale != nullptr;
    const F k(scaled ? b.scale[oc] : 1.f);
    const F inv(std::get<last>(st).inv_scale);
    const std::int64_t i = store_rounded_int8<A>(out, count, [&](std::int64_t j) {
        F v = xsimd::batch_cast<float>(I::load_unaligned(acc + j)) * m;
        v = scaled ? v * k + bv : v + bv;
        return int8_middle_vec(st, v, epilogue::at{0, oc, index + j}) * inv;
    });
    // The tail in the chain's scalar loop (the same bytes; a vector would
    // read Other past its end); its `out` is the output's start.
    if (i < count) c.emit(out - index, acc + i, count - i, epilogue::at{0, oc, index + i});
}

/// The vector loop of a float-output int8 chain C (int8_float_fn): the
/// arithmetic of chain::emit over int32 accumulators in its order, elements
/// [0, count - count % width).
template <class A, class C>
std::int64_t int8_float_vec(const void* cp, float* out, const std::int32_t* acc, std::int64_t count,
                            epilogue::at a) {
    using F = xsimd::batch<float, A>;
    using I = xsimd::batch<std::int32_t, A>;
    constexpr std::int64_t w = static_cast<std::int64_t>(F::size);
    const C& c = *static_cast<const C*>(cp);
    const auto& st = c.stages;
    constexpr std::size_t last = std::tuple_size_v<std::decay_t<decltype(st)>> - 1;
    const F m(std::get<0>(st).multiplier[a.channel]);
    const auto& b = std::get<1>(st);
    const F bv(b.values[a.channel]);
    const bool scaled = b.scale != nullptr;
    const F k(scaled ? b.scale[a.channel] : 1.f);
    const std::int64_t vend = count - count % w;
    for (std::int64_t i = 0; i < vend; i += w) {
        const epilogue::at ai{a.image, a.channel, a.index + i};
        F v = xsimd::batch_cast<float>(I::load_unaligned(acc + i)) * m;
        v = scaled ? v * k + bv : v + bv;
        v = int8_middle_vec(st, v, ai);
        using T = std::tuple_element_t<last, std::decay_t<decltype(st)>>;
        if constexpr (epilogue::terminal_stage<T>)
            std::get<last>(st).write_vec(out, ai, v);
        else
            v.store_unaligned(out + ai.index);
    }
    return vend;
}

/// kernels::quantize_int8 in vectors of A (quantize_int8_fn): the same bytes.
template <class A>
void quantize_int8_vec_of(float step, const float* xs, std::int8_t* out, std::int64_t n) noexcept {
    using F = xsimd::batch<float, A>;
    const F inv(1.f / step);
    std::int64_t i = store_rounded_int8<A>(
        out, n, [&](std::int64_t j) { return F::load_unaligned(xs + j) * inv; });
    const float s = 1.f / step;
    for (; i < n; ++i) out[i] = epilogue::saturate_int8(xs[i] * s);
}

/// mul_plane::write_quantized's loop in vectors of A (plane_quantize_fn):
/// out[i] = sat8(round((other[i] * v) * inv)), the same bytes.
template <class A>
void plane_quantize_vec(const float* other, float v, float inv, std::int8_t* out,
                        std::int64_t n) noexcept {
    using F = xsimd::batch<float, A>;
    const F vv(v), iv(inv);
    std::int64_t i = store_rounded_int8<A>(
        out, n, [&](std::int64_t j) { return (F::load_unaligned(other + j) * vv) * iv; });
    for (; i < n; ++i) {
        const float p = other[i] * v;
        out[i] = epilogue::saturate_int8(p * inv);
    }
}
#endif

#if defined(LITEGRAPH_SIMD_X86) || defined(LITEGRAPH_SIMD_ARM64)
/// kernels::quantize_int8 (out[i] = saturate_int8(x[i] * (1 / step))) in
/// vectors of the compile-time architecture: the same bytes (quantize_int8
/// runs the active arch unit's, int8_impl::quantize, when there is one).
inline void quantize_int8_vec(float step, const float* xs, std::int8_t* out,
                              std::int64_t n) noexcept {
    quantize_int8_vec_of<simd::default_arch>(step, xs, out, n);
}
#endif
}  // namespace litegraph::kernels::detail
