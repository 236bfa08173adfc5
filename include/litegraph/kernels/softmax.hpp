// softmax on a raw float32 array seen as outer x n x inner, along n:
// exp(x - max) / sum, numerically stable (ops::softmax and firmware).
//
// The exponentials are kernels::exp_ops (exp.hpp), which gives the same bits
// in a scalar as in a vector lane, and their sum is eight partial sums in a
// fixed order (sum8), so firmware and desktop give the same bits.  Where xsimd has vectors, a
// contiguous row's maximum, its exponentials and its division run in vectors: a maximum does not
// depend on the order (a +0 / -0 tie changes no x - max), and exp_ops and a division round the same
// in a lane as alone.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "litegraph/kernels/exp.hpp"
#include "litegraph/kernels/simd.hpp"

namespace litegraph::kernels {

namespace softmax_detail {
/// max(-inf, x[0], ..., x[n-1]), NaN skipped as std::max(m, v) skips it.
inline float row_max(const float* x, std::int64_t n) {
    float m = -INFINITY;
    std::int64_t j = 0;
#if !defined(LITEGRAPH_SCALAR_SIMD)
    using V = simd::vfloat;
    constexpr std::int64_t w = simd::width;
    if (n >= 2 * w) {
        V a(-INFINITY), b(-INFINITY);
        for (; j + 2 * w <= n; j += 2 * w) {
            // (v > a ? v : a): a NaN v keeps a, as std::max(a, v) does (a
            // select, not xsimd::max: NEON's maximum returns the NaN).
            const V u = V::load_unaligned(x + j), v = V::load_unaligned(x + j + w);
            a = xsimd::select(u > a, u, a);
            b = xsimd::select(v > b, v, b);
        }
        float lanes[2 * w];
        a.store_unaligned(lanes);
        b.store_unaligned(lanes + w);
        for (float v : lanes) m = std::max(m, v);
    }
#endif
    for (; j < n; ++j) m = std::max(m, x[j]);
    return m;
}

/// x[0] + x[s] + ... + x[(n-1) s] as eight partial sums, partial l adding
/// the terms j = l mod 8 in order from 0, then ((p0 + p4) + (p2 + p6)) +
/// ((p1 + p5) + (p3 + p7)): one order on every target, which a contiguous
/// row runs in the lanes of one 8-float vector or two 4-float ones.
inline float sum8(const float* x, std::int64_t n, std::int64_t s) {
    float p[8] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
    std::int64_t j = 0;
#if !defined(LITEGRAPH_SCALAR_SIMD)
    using V = simd::vfloat;
    constexpr std::int64_t w = simd::width;
    if constexpr (w == 4 || w == 8)
        if (s == 1) {
            V a(0.f), b(0.f);
            for (; j + 8 <= n; j += 8) {
                a = a + V::load_unaligned(x + j);
                if constexpr (w == 4) b = b + V::load_unaligned(x + j + 4);
            }
            a.store_unaligned(p);
            if constexpr (w == 4) b.store_unaligned(p + 4);
        }
#endif
    for (; j + 8 <= n; j += 8)
        for (int l = 0; l < 8; ++l) p[l] += x[(j + l) * s];
    for (int l = 0; j < n; ++j, ++l) p[l] += x[j * s];
    return ((p[0] + p[4]) + (p[2] + p[6])) + ((p[1] + p[5]) + (p[3] + p[7]));
}
}  // namespace softmax_detail

inline void softmax(const float* x, float* out, std::int64_t outer, std::int64_t n,
                    std::int64_t inner) {
    if (outer * n * inner == 0) return;  // empty: no element (and no buffer) to touch
    for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t k = 0; k < inner; ++k) {
            const float* xs = x + o * n * inner + k;
            float* os = out + o * n * inner + k;
            float m = -INFINITY;
            if (inner == 1)
                m = softmax_detail::row_max(xs, n);
            else
                for (std::int64_t j = 0; j < n; ++j) m = std::max(m, xs[j * inner]);
            std::int64_t j = 0;
#if !defined(LITEGRAPH_SCALAR_SIMD)
            if (inner == 1) {
                using V = simd::vfloat;
                constexpr std::int64_t w = simd::width;
                const V mv(m);
                for (; j + w <= n; j += w)
                    exp_ops(V::load_unaligned(xs + j) - mv).store_unaligned(os + j);
            }
#endif
            for (; j < n; ++j) os[j * inner] = exp_ops(xs[j * inner] - m);
            const float sum = softmax_detail::sum8(os, n, inner);
            j = 0;
#if !defined(LITEGRAPH_SCALAR_SIMD)
            if (inner == 1) {
                using V = simd::vfloat;
                constexpr std::int64_t w = simd::width;
                const V s(sum);
                for (; j + w <= n; j += w) (V::load_unaligned(os + j) / s).store_unaligned(os + j);
            }
#endif
            for (; j < n; ++j) os[j * inner] /= sum;
        }
}

}  // namespace litegraph::kernels
