// The depthwise conv (groups == C == OC, any window, stride, dilation,
// padding) on fp32 NCHW: zero-padded, stride-phase-split input rows,
// vectorised along the output row, with the 3x3 and 5x5 windows unrolled
// (under vertical stride 1 in blocks of 4 output rows that share each input
// vector); output rows go to the epilogue in L1-sized bands as soon as they
// are computed (depthwise_conv2d), or are finished in registers with a bias,
// scale and activation (the plane kernel kernels/conv_direct.hpp's
// depthwise_conv2d_direct runs).  conv2d() (kernels/conv.hpp) picks this path.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "litegraph/core/error.hpp"
#include "litegraph/kernels/conv_geometry.hpp"
#include "litegraph/kernels/gemm.hpp"
#include "litegraph/kernels/simd.hpp"

namespace litegraph::kernels {

namespace detail {

/// Output of depthwise blocks into a band buffer (rows of stride owv).
template <class A>
struct band_out {
    using vfloat = typename simd::arch_traits<A>::vfloat;
    float* o;
    std::int64_t owv;
    float init() const { return 0.f; }
    void put(std::int64_t row, std::int64_t x, vfloat v) const {
        simd::store(o + row * owv + x, v);
    }
};

/// Output of depthwise blocks straight into an output plane (rows of
/// stride ow): the accumulators start at the bias (or, with a scale, at 0,
/// and v * scale + bias follows), the activation is applied in registers;
/// the vector that crosses the row end goes through a small buffer.
template <class A, class Act, bool Scaled>
struct plane_out {
    using vfloat = typename simd::arch_traits<A>::vfloat;
    static constexpr std::int64_t width = simd::width_of<A>;
    float* y;
    std::int64_t ow;
    float bias;
    Act act;
    float scale = 1.f;
    float init() const { return Scaled ? 0.f : bias; }
    // Inlined into the block (a call per vector would reload the constants
    // from memory after every store).
    [[gnu::always_inline]] void put(std::int64_t row, std::int64_t x, vfloat v) const {
        if constexpr (Scaled) v = v * vfloat(scale) + vfloat(bias);
        v = act.vec(v);
        float* d = y + row * ow + x;
        if (x + width <= ow) {
            simd::store(d, v);
        } else if (x < ow) {
            float tail[width];
            simd::store(tail, v);
            for (std::int64_t i = 0; i < ow - x; ++i) d[i] = tail[i];
        }
    }
};

/// R output rows x V vectors of one depthwise plane: R * V independent FMA
/// chains over the taps.  `base` is the phase-split input of the first row.
template <class A, int R, int V, int NT, class Out>
inline void depthwise_block(const float* base, std::int64_t row_step, const std::int64_t* tap,
                            std::int64_t ntaps, const float* wt, const Out& out, std::int64_t row,
                            std::int64_t x) {
    using vfloat = typename simd::arch_traits<A>::vfloat;
    constexpr std::int64_t width = simd::width_of<A>;
    vfloat acc[R][V];
    const vfloat init(out.init());
    for (int r = 0; r < R; ++r)
        for (int v = 0; v < V; ++v) acc[r][v] = init;
    const std::int64_t nt = NT ? NT : ntaps;
    for (std::int64_t t = 0; t < nt; ++t) {
        const vfloat wv(wt[t]);
        const float* p = base + tap[t];
        for (int r = 0; r < R; ++r)
            for (int v = 0; v < V; ++v)
                acc[r][v] =
                    simd::fmadd(wv, simd::load<vfloat>(p + r * row_step + v * width), acc[r][v]);
    }
    // A local copy of the writer: the stores cannot alias it, so its bias,
    // scale and activation constants stay in registers.
    const Out o = out;
    for (int r = 0; r < R; ++r)
        for (int v = 0; v < V; ++v) o.put(row + r, x + v * width, acc[r][v]);
}

/// R output rows of a depthwise plane, all vectors of the (padded) row.
template <class A, int R, int V, int NT, class Out>
inline void depthwise_rows(const float* base, std::int64_t row_step, const std::int64_t* tap,
                           std::int64_t ntaps, const float* wt, const Out& out, std::int64_t row,
                           std::int64_t owv) {
    constexpr std::int64_t width = simd::width_of<A>;
    std::int64_t x = 0;
    for (; x + V * width <= owv; x += V * width)
        depthwise_block<A, R, V, NT>(base + x, row_step, tap, ntaps, wt, out, row, x);
    // The rest in halving blocks (a row of 20 vectors under V = 8: 8, 8, 4),
    // so few vectors run as a lone FMA chain.
    if constexpr (V >= 4)
        if (x + V / 2 * width <= owv) {
            depthwise_block<A, R, V / 2, NT>(base + x, row_step, tap, ntaps, wt, out, row, x);
            x += V / 2 * width;
        }
    if constexpr (V >= 8)
        if (x + V / 4 * width <= owv) {
            depthwise_block<A, R, V / 4, NT>(base + x, row_step, tap, ntaps, wt, out, row, x);
            x += V / 4 * width;
        }
    for (; x < owv; x += width)
        depthwise_block<A, R, 1, NT>(base + x, row_step, tap, ntaps, wt, out, row, x);
}

/// R output rows x V vectors of a depthwise plane under a KH x KW window of
/// vertical stride and dilation 1, input row by input row: each input
/// vector is loaded once for every kernel column and serves the (up to KH)
/// output rows whose window holds that row, where depthwise_block loads it
/// once per tap.  `base` is the phase-split input row of the block's first
/// output row, `row_stride` the floats from one input row to the next, `col`
/// the KW column offsets.  Input rows d in [d0, d1) of the block's R + KH - 1
/// are read; the others are zero padding and skipped.  Each output still sums
/// its taps in depthwise_block's order (kernel row, then column): the same
/// values.
template <class A, int KH, int KW, int R, int V, class Out>
inline void depthwise_block_rows(const float* base, std::int64_t row_stride,
                                 const std::int64_t* col, const float* wt, const Out& out,
                                 std::int64_t row, std::int64_t x, std::int64_t d0,
                                 std::int64_t d1) {
    using vfloat = typename simd::arch_traits<A>::vfloat;
    constexpr std::int64_t width = simd::width_of<A>;
    vfloat acc[R][V];
    const vfloat init(out.init());
    for (int r = 0; r < R; ++r)
        for (int v = 0; v < V; ++v) acc[r][v] = init;
    std::int64_t c[KW];
    for (int j = 0; j < KW; ++j) c[j] = col[j];
    unroll(std::make_integer_sequence<std::int64_t, R + KH - 1>{}, [&](auto d) {
        if (d < d0 || d >= d1) return;
        const float* p = base + d * row_stride;
        for (int j = 0; j < KW; ++j) {
            vfloat in[V];
            for (int v = 0; v < V; ++v) in[v] = simd::load<vfloat>(p + c[j] + v * width);
            unroll(std::make_integer_sequence<std::int64_t, R>{}, [&](auto r) {
                constexpr std::int64_t i = decltype(d)::value - decltype(r)::value;
                if constexpr (i >= 0 && i < KH) {
                    const vfloat wv(wt[i * KW + j]);
                    for (int v = 0; v < V; ++v) acc[r][v] = simd::fmadd(wv, in[v], acc[r][v]);
                }
            });
        }
    });
    const Out o = out;
    for (int r = 0; r < R; ++r)
        for (int v = 0; v < V; ++v) o.put(row + r, x + v * width, acc[r][v]);
}

/// The input offsets of the taps of a depthwise window in the phase buffer
/// (see depthwise_plane): kh * kw of them.
inline void depthwise_taps(const conv_geometry& g, std::int64_t pw, std::int64_t* tap) {
    const std::int64_t row_stride = pw * g.sw;
    for (std::int64_t i = 0; i < g.kh; ++i)
        for (std::int64_t j = 0; j < g.kw; ++j)
            tap[i * g.kw + j] =
                i * g.dh * row_stride + ((j * g.dw) % g.sw) * pw + (j * g.dw) / g.sw;
}

/// Depthwise plane rows [oh0, oh1) of one channel of one image.  `ph` holds
/// the padded input split by column phase: row r, phase q, index i = padded
/// column q + sw * i, so that output column ow under kernel column j reads
/// phase (j*dw) % sw at index ow + (j*dw) / sw, contiguously (`tap`:
/// depthwise_taps).  Output row oh goes to `out` as row oh - oh0.
template <class A, int KH, int KW, class Out>
void depthwise_plane(const conv_geometry& g, const float* ph, std::int64_t pw,
                     const std::int64_t* tap, const float* wt, const Out& out, std::int64_t oh0,
                     std::int64_t oh1) {
    constexpr std::int64_t width = simd::width_of<A>;
    constexpr int NT = KH * KW;
    const std::int64_t row_step = pw * g.sw * g.sh;
    const std::int64_t ntaps = g.kh * g.kw;
    const std::int64_t owv = (g.ow + width - 1) / width * width;
    if constexpr (KH > 0 && KW > 0)
        if (g.sh == 1 && g.dh == 1) {
            // Blocks of 4 output rows x 2 vectors (2 x 4, then 1 x 8, at the
            // plane's end) read each input vector once for all their rows.
            auto block_rows = [&]<int R, int V>(std::int64_t oh) {
                // Input rows of the block inside the image: padded row oh + d.
                const std::int64_t d0 = std::max<std::int64_t>(0, g.pt - oh);
                const std::int64_t d1 = std::min<std::int64_t>(R + KH - 1, g.pt + g.h - oh);
                const float* b = ph + oh * row_step;
                std::int64_t x = 0;
                for (; x + V * width <= owv; x += V * width)
                    depthwise_block_rows<A, KH, KW, R, V>(b + x, row_step, tap, wt, out, oh - oh0,
                                                          x, d0, d1);
                if constexpr (V >= 4)
                    if (x + V / 2 * width <= owv) {
                        depthwise_block_rows<A, KH, KW, R, V / 2>(b + x, row_step, tap, wt, out,
                                                                  oh - oh0, x, d0, d1);
                        x += V / 2 * width;
                    }
                if constexpr (V >= 8)
                    if (x + V / 4 * width <= owv) {
                        depthwise_block_rows<A, KH, KW, R, V / 4>(b + x, row_step, tap, wt, out,
                                                                  oh - oh0, x, d0, d1);
                        x += V / 4 * width;
                    }
                for (; x < owv; x += width)
                    depthwise_block_rows<A, KH, KW, R, 1>(b + x, row_step, tap, wt, out, oh - oh0,
                                                          x, d0, d1);
            };
            std::int64_t oh = oh0;
            for (; oh + 4 <= oh1; oh += 4) block_rows.template operator()<4, 2>(oh);
            if (oh + 2 <= oh1) {
                block_rows.template operator()<2, 4>(oh);
                oh += 2;
            }
            if (oh < oh1) block_rows.template operator()<1, 8>(oh);
            return;
        }
    // Rows [oh, oh + r) whose window reaches into the top or bottom padding
    // run only the kernel rows that read an input row for one of them (the
    // taps are in kernel-row order): the others add zeros times weights.  A
    // short plane under a tall window (the text recognizer's 2-row maps under
    // 5x5) skips most of its taps so.
    auto rows = [&]<int R, int V>(std::int64_t oh, auto rows_of) {
        const std::int64_t top = oh * g.sh - g.pt, bottom = (oh + R - 1) * g.sh - g.pt;
        if (top >= 0 && bottom + (g.kh - 1) * g.dh < g.h) {
            rows_of.template operator()<NT>(tap, wt, ntaps);
            return;
        }
        std::int64_t i0 = 0, i1 = g.kh;
        while (i0 < g.kh && bottom + i0 * g.dh < 0) ++i0;
        while (i1 > i0 && top + (i1 - 1) * g.dh >= g.h) --i1;
        rows_of.template operator()<0>(tap + i0 * g.kw, wt + i0 * g.kw, (i1 - i0) * g.kw);
    };
    // Independent FMA chains (a tap's FMA waits for the previous tap's, so
    // a block needs about latency x throughput chains, 8 on an FMA unit of
    // latency 4 issuing 2 per cycle): 1 row x 8 vectors on wide rows, else
    // four, 1 x 4, 2 x 2 or 4 x 1.
    auto run = [&]<int R, int V>() {
        std::int64_t oh = oh0;
        for (; oh + R <= oh1; oh += R)
            rows.template operator()<R, V>(
                oh, [&]<int N>(const std::int64_t* t, const float* w, std::int64_t nt) {
                    depthwise_rows<A, R, V, N>(ph + oh * row_step, row_step, t, nt, w, out,
                                               oh - oh0, owv);
                });
        for (; oh < oh1; ++oh)
            rows.template operator()<1, V>(
                oh, [&]<int N>(const std::int64_t* t, const float* w, std::int64_t nt) {
                    depthwise_rows<A, 1, V, N>(ph + oh * row_step, row_step, t, nt, w, out,
                                               oh - oh0, owv);
                });
    };
    if (owv >= 8 * width)
        run.template operator()<1, 8>();
    else if (owv >= 4 * width)
        run.template operator()<1, 4>();
    else if (owv >= 2 * width)
        run.template operator()<2, 2>();
    else
        run.template operator()<4, 1>();
}

/// depthwise_plane for the unrolled window, if any.
template <class A, class Out>
void depthwise_plane_any(const conv_geometry& g, const float* ph, std::int64_t pw,
                         const std::int64_t* tap, const float* wt, const Out& out, std::int64_t oh0,
                         std::int64_t oh1) {
    if (g.kh == 3 && g.kw == 3)
        depthwise_plane<A, 3, 3>(g, ph, pw, tap, wt, out, oh0, oh1);
    else if (g.kh == 5 && g.kw == 5)
        depthwise_plane<A, 5, 5>(g, ph, pw, tap, wt, out, oh0, oh1);
    else
        depthwise_plane<A, 0, 0>(g, ph, pw, tap, wt, out, oh0, oh1);
}

/// Rows [oh0, oh1) of a plane into a band buffer of row stride owv.
template <class A>
void depthwise_band(const conv_geometry& g, const float* ph, std::int64_t pw,
                    const std::int64_t* tap, const float* wt, float* out, std::int64_t owv,
                    std::int64_t oh0, std::int64_t oh1) {
    depthwise_plane_any<A>(g, ph, pw, tap, wt, band_out<A>{out, owv}, oh0, oh1);
}

/// A whole plane into y (dense rows of g.ow), bias, scale and act in registers.
template <class A, class Act>
void depthwise_direct_plane(const conv_geometry& g, const float* ph, std::int64_t pw,
                            const std::int64_t* tap, const float* wt, float* y, float bias,
                            const float* scale, const Act& act) {
    if (scale)
        depthwise_plane_any<A>(g, ph, pw, tap, wt,
                               plane_out<A, Act, true>{y, g.ow, bias, act, *scale}, 0, g.oh);
    else
        depthwise_plane_any<A>(g, ph, pw, tap, wt, plane_out<A, Act, false>{y, g.ow, bias, act}, 0,
                               g.oh);
}

/// An architecture's depthwise kernels: its vector width and the band kernel.
struct depthwise_impl {
    std::int64_t width = 0;
    void (*band)(const conv_geometry&, const float*, std::int64_t, const std::int64_t*,
                 const float*, float*, std::int64_t, std::int64_t, std::int64_t) = nullptr;
};
template <class A>
constexpr depthwise_impl depthwise_impl_of() {
    return {simd::width_of<A>, &depthwise_band<A>};
}
inline depthwise_impl depthwise_for(simd::isa i) {
    if (const simd::arch_table* t = simd::table_of(i)) return *t->depthwise;
    return depthwise_impl_of<simd::default_arch>();
}

/// The plane loop of the depthwise conv: for each image and channel in
/// order, copies the whole input plane into the zero-padded phase buffer
/// (sized for vectors of `width` floats), then calls plane(n, ch, ph, pw, tap).
template <class Plane>
void depthwise_planes(const conv_geometry& g, const float* x, workspace* ws, std::int64_t width,
                      Plane&& plane) {
    const std::int64_t hp = g.h + g.pt + g.pb;
    const std::int64_t owv = (g.ow + width - 1) / width * width;
    // Phase width: every index an output vector may read, rounded to vectors.
    const std::int64_t pw = owv + ((g.kw - 1) * g.dw) / g.sw + width;
    const std::int64_t rows = std::max(hp, (g.oh - 1) * g.sh + (g.kh - 1) * g.dh + 1);
    const std::int64_t ntaps = g.kh * g.kw;
    float* ph = workspace::grow(ws->a, rows * g.sw * pw + width);
    std::int64_t tap_small[25];
    std::vector<std::int64_t> tap_big(ntaps > 25 ? static_cast<std::size_t>(ntaps) : 0);
    std::int64_t* tap = ntaps > 25 ? tap_big.data() : tap_small;
    depthwise_taps(g, pw, tap);
    // Zero the phase buffer once; then each plane rewrites the image cells.
    std::fill(ph, ph + rows * g.sw * pw + width, 0.f);
    const std::int64_t in_plane = g.h * g.w;
    for (std::int64_t n = 0; n < g.n; ++n)
        for (std::int64_t ch = 0; ch < g.c; ++ch) {
            const float* xp = x + (n * g.c + ch) * in_plane;
            for (std::int64_t r = 0; r < g.h; ++r) {
                float* prow = ph + (r + g.pt) * g.sw * pw;
                const float* src = xp + r * g.w;
                if (g.sw == 1) {
                    std::memcpy(prow + g.pl, src, static_cast<std::size_t>(g.w) * sizeof(float));
                } else {
                    for (std::int64_t q = 0; q < g.sw; ++q) {
                        // First image column landing on phase q.
                        const std::int64_t c0 = ((q - g.pl) % g.sw + g.sw) % g.sw;
                        float* dst = prow + q * pw + (c0 + g.pl) / g.sw;
                        const std::int64_t cnt = (g.w - c0 + g.sw - 1) / g.sw;
                        const float* s0 = src + c0;
                        if (g.sw == 2)  // a constant stride the compiler vectorises
                            for (std::int64_t i = 0; i < cnt; ++i) dst[i] = s0[2 * i];
                        else
                            for (std::int64_t i = 0; i < cnt; ++i) dst[i] = s0[i * g.sw];
                    }
                }
            }
            plane(n, ch, static_cast<const float*>(ph), pw, static_cast<const std::int64_t*>(tap));
        }
}

}  // namespace detail

/// Depthwise conv (groups == C == OC), any window / stride / dilation / padding.
///
/// Planes are computed in order (image by image, channel by channel) and each
/// input plane is read completely (into a padded scratch) before any value of
/// the same output plane goes to the epilogue; output rows go to the epilogue
/// in bands of a few KB, straight after they are computed (still in L1).  So
/// the epilogue may write output plane (n, c) over input planes up to (n, c):
/// the conv can run in place of its input when an output plane is no larger
/// than an input plane (fused<conv2d, ...>::run_in_place relies on this).
template <class Epilogue>
void depthwise_conv2d(const conv_geometry& g, const float* x, const float* w, Epilogue&& epi,
                      workspace* ws = nullptr) {
    g.validate();
    if (!g.is_depthwise())
        LITEGRAPH_THROW(shape_error("kernels::depthwise_conv2d: needs groups == C == OC"));
    if (!ws) ws = &workspace::local();
    const detail::depthwise_impl impl = detail::depthwise_for(simd::active());
    const std::int64_t width = impl.width;
    const std::int64_t owv = (g.ow + width - 1) / width * width;
    // Output rows per band: about 4K floats (16 KB), a multiple of 4 rows
    // (the row blocking of depthwise_plane).
    const std::int64_t band = std::min(g.oh, std::max<std::int64_t>(4, (4096 / owv) / 4 * 4));
    float* out = workspace::grow(ws->c, band * owv);
    detail::depthwise_planes(
        g, x, ws, width,
        [&](std::int64_t n, std::int64_t ch, const float* ph, std::int64_t pw,
            const std::int64_t* tap) {
            const float* wt = w + ch * g.kh * g.kw;
            for (std::int64_t oh0 = 0; oh0 < g.oh; oh0 += band) {
                const std::int64_t oh1 = std::min(g.oh, oh0 + band);
                impl.band(g, ph, pw, tap, wt, out, owv, oh0, oh1);
                if (owv != g.ow)  // close the row padding: one run per band
                    for (std::int64_t r = 1; r < oh1 - oh0; ++r)
                        std::memmove(out + r * g.ow, out + r * owv,
                                     static_cast<std::size_t>(g.ow) * sizeof(float));
                epi(n, ch, oh0 * g.ow, static_cast<const float*>(out), (oh1 - oh0) * g.ow);
            }
        });
}

}  // namespace litegraph::kernels
