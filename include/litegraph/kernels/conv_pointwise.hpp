// The pointwise direct conv's kernels: a 1x1, stride-1, unpadded conv of
// one group over at most pointwise_direct_max_k input channels, each output
// finished in registers (bias, scale, activation) with the bits of conv2d's
// SGEMM path followed by chain<bias, act<F>>.  The entry point,
// pointwise_conv2d_direct, is in kernels/conv_direct.hpp (it shares the
// per-activation table of the depthwise direct kernel).
#pragma once

#include <cstdint>

#include "litegraph/kernels/conv_geometry.hpp"
#include "litegraph/kernels/simd.hpp"

namespace litegraph::kernels {

/// The widest input a pointwise direct conv takes (pointwise_conv2d_direct).
inline constexpr std::int64_t pointwise_direct_max_k = 64;

namespace detail {

/// R output channels x V vectors of output columns of a pointwise conv:
/// y[r][col] = act(sum over q of w[r][q] * x[q][col], then * scale[r] +
/// bias[r] when Scaled, else + bias[r]).  The sum starts at 0 and adds q in
/// order, one fmadd each, and the bias stage follows as the epilogue chain
/// computes it: the SGEMM path's bits (its micro-kernel, then chain<bias,
/// act<F>>).  `x` is the first column (row stride ldx), `w` the first
/// channel's row (k floats per channel), `y` the first output (row stride
/// ldy); the last vector stores `last` floats (width for all).
template <class A, class Act, bool Scaled, int R, int V>
inline void pointwise_block(std::int64_t k, const float* w, const float* x, std::int64_t ldx,
                            float* y, std::int64_t ldy, const float* bias, const float* scale,
                            const Act& act, std::int64_t last) {
    using vfloat = typename simd::arch_traits<A>::vfloat;
    constexpr std::int64_t width = simd::width_of<A>;
    vfloat acc[R][V];
    for (int r = 0; r < R; ++r)
        for (int v = 0; v < V; ++v) acc[r][v] = vfloat(0.f);
    for (std::int64_t q = 0; q < k; ++q) {
        vfloat xv[V];
        for (int v = 0; v < V; ++v) xv[v] = simd::load<vfloat>(x + q * ldx + v * width);
        for (int r = 0; r < R; ++r) {
            const vfloat wv(w[r * k + q]);
            for (int v = 0; v < V; ++v) acc[r][v] = simd::fmadd(wv, xv[v], acc[r][v]);
        }
    }
    const Act a = act;
    for (int r = 0; r < R; ++r) {
        const vfloat b(bias[r]);
        const vfloat sc(Scaled ? scale[r] : 1.f);
        for (int v = 0; v < V; ++v) {
            vfloat o = acc[r][v];
            if constexpr (Scaled)
                o = o * sc + b;
            else
                o = o + b;
            o = a.vec(o);
            float* d = y + r * ldy + v * width;
            if (v + 1 < V || last == width) {
                simd::store(d, o);
            } else {
                float lanes[width];
                simd::store(lanes, o);
                for (std::int64_t i = 0; i < last; ++i) d[i] = lanes[i];
            }
        }
    }
}

/// Output channels [oc, oc + R) of columns [p0, p1) of one image.
template <class A, class Act, bool Scaled, int R>
inline void pointwise_rows(const conv_geometry& g, const float* x, const float* w, float* y,
                           const float* bias, const float* scale, const Act& act, std::int64_t oc,
                           std::int64_t p0, std::int64_t p1) {
    constexpr std::int64_t width = simd::width_of<A>;
    constexpr int V = 2;
    const std::int64_t k = g.c, hw = g.h * g.w;
    const float* wr = w + oc * k;
    float* yr = y + oc * hw;
    const float* br = bias + oc;
    const float* sr = Scaled ? scale + oc : nullptr;
    std::int64_t p = p0;
    for (; p + V * width <= p1; p += V * width)
        pointwise_block<A, Act, Scaled, R, V>(k, wr, x + p, hw, yr + p, hw, br, sr, act, width);
    for (; p + width <= p1; p += width)
        pointwise_block<A, Act, Scaled, R, 1>(k, wr, x + p, hw, yr + p, hw, br, sr, act, width);
    if (p < p1) {  // the ragged columns from a zero-padded copy (k <= pointwise_direct_max_k)
        alignas(64) float xt[pointwise_direct_max_k * width];
        for (std::int64_t q = 0; q < k; ++q)
            for (std::int64_t i = 0; i < width; ++i)
                xt[q * width + i] = p + i < p1 ? x[q * hw + p + i] : 0.f;
        pointwise_block<A, Act, Scaled, R, 1>(k, wr, xt, width, yr + p, hw, br, sr, act, p1 - p);
    }
}

/// The pointwise direct conv of one activation (see pointwise_conv2d_direct)
/// over columns [c0, c1) of every image's plane.  Each output element is one
/// column's sum whatever the blocks: any column range gives the same bits.
template <class A, class Act, bool Scaled>
void pointwise_direct_scaled(const conv_geometry& g, const float* x, const float* w, float* y,
                             const float* bias, const float* scale, const Act& act, std::int64_t c0,
                             std::int64_t c1) {
    constexpr std::int64_t width = simd::width_of<A>;
    const std::int64_t k = g.c, hw = g.h * g.w;
    // Column blocks whose k rows of x stay in L1 while every channel reads them.
    const std::int64_t block = std::max<std::int64_t>(
        2 * width, (4096 / std::max<std::int64_t>(k, 1)) / (2 * width) * (2 * width));
    for (std::int64_t n = 0; n < g.n; ++n) {
        const float* xn = x + n * k * hw;
        float* yn = y + n * g.oc * hw;
        for (std::int64_t p0 = c0; p0 < c1; p0 += block) {
            const std::int64_t p1 = std::min(c1, p0 + block);
            std::int64_t oc = 0;
            for (; oc + 6 <= g.oc; oc += 6)
                pointwise_rows<A, Act, Scaled, 6>(g, xn, w, yn, bias, scale, act, oc, p0, p1);
            if (oc + 4 <= g.oc) {
                pointwise_rows<A, Act, Scaled, 4>(g, xn, w, yn, bias, scale, act, oc, p0, p1);
                oc += 4;
            }
            if (oc + 2 <= g.oc) {
                pointwise_rows<A, Act, Scaled, 2>(g, xn, w, yn, bias, scale, act, oc, p0, p1);
                oc += 2;
            }
            if (oc < g.oc)
                pointwise_rows<A, Act, Scaled, 1>(g, xn, w, yn, bias, scale, act, oc, p0, p1);
        }
    }
}
template <class A, class Act>
void pointwise_direct_run(const conv_geometry& g, const float* x, const float* w, float* y,
                          const float* bias, const float* scale, const void* act, std::int64_t c0,
                          std::int64_t c1) {
    const Act& a = *static_cast<const Act*>(act);
    if (scale)
        pointwise_direct_scaled<A, Act, true>(g, x, w, y, bias, scale, a, c0, c1);
    else
        pointwise_direct_scaled<A, Act, false>(g, x, w, y, bias, scale, a, c0, c1);
}

}  // namespace detail

/// Whether pointwise_conv2d_direct runs g: a 1x1 stride-1 unpadded conv of
/// one group with at most pointwise_direct_max_k input channels (a short
/// sum, where the SGEMM's tile store and separate epilogue pass cost most)
/// and planes of at least two vectors (smaller ones, an SE block's 1x1
/// planes, are the SGEMM's columns).
inline bool pointwise_direct_fits(const conv_geometry& g, std::int64_t width) {
    return g.is_pointwise() && g.groups == 1 && g.c <= pointwise_direct_max_k &&
           g.oh * g.ow >= 2 * width;
}

}  // namespace litegraph::kernels
