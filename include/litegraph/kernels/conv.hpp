// conv2d NCHW fast paths on fp32, written through an epilogue.
//
//   kernels::conv_geometry g{...};   // or conv_geometry::from(ops::conv2d::geometry)
//   kernels::conv2d(g, x, w, epi);   // x [N, C, H, W], w [OC, C/groups, KH, KW]
//   kernels::conv_weights cw(g, w);  // or prepare the filter once (load time) ...
//   kernels::conv2d(g, x, cw, epi);  // ... and skip the per-call packing
//
// The conv epilogue receives finished output values:
//
//   void operator()(std::int64_t n,       // image
//                   std::int64_t oc,      // output channel
//                   std::int64_t offset,  // index in the output plane: oh * OW + ow
//                   const float* values, std::int64_t count);
//
// `count` consecutive values of plane (n, oc) starting at `offset` (a run may
// cross output rows, never planes).  Every output element is passed exactly
// once; `values` is only valid during the call.  conv_store_epilogue writes a
// dense (or channel-strided, e.g. a slice of a concat) NCHW output.
//
// Paths, chosen by conv2d():
//   - depthwise (groups == C == OC, any window, stride, dilation, padding):
//     zero-padded, stride-phase-split input rows, vectorised along the output
//     row, with the 3x3 and 5x5 windows unrolled (under vertical stride 1 in
//     blocks of 4 output rows that share each input vector); output rows go to
//     the epilogue in L1-sized bands as soon as they are computed;
//   - 1x1, stride 1, no padding: per image and group, W[OCg, Cg] x X[Cg, H*W]
//     (pointwise_conv2d_direct: the same sums with a bias and an activation
//     finished in registers, for sums of at most 64 inputs);
//   - anything else: im2col over bands of output rows + GEMM.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "litegraph/core/error.hpp"
#include "litegraph/kernels/elementwise.hpp"
#include "litegraph/kernels/gemm.hpp"
#include "litegraph/kernels/simd.hpp"

namespace litegraph::kernels {

/// Resolved conv geometry (the field names of ops::conv2d::geometry).
struct conv_geometry {
    std::int64_t n, c, h, w;      // input
    std::int64_t oc, kh, kw;      // filter
    std::int64_t oh, ow;          // output
    std::int64_t sh, sw, dh, dw;  // strides, dilations
    std::int64_t pt, pb, pl, pr;  // paddings: top, bottom, left, right
    std::int64_t groups;

    /// From any struct with the same field names.
    template <class G>
    static constexpr conv_geometry from(const G& g) {
        return {g.n,  g.c,  g.h,  g.w,  g.oc, g.kh, g.kw, g.oh, g.ow,
                g.sh, g.sw, g.dh, g.dw, g.pt, g.pb, g.pl, g.pr, g.groups};
    }
    static constexpr std::int64_t out_size(std::int64_t in, std::int64_t k, std::int64_t d,
                                           std::int64_t p0, std::int64_t p1, std::int64_t s) {
        return (in + p0 + p1 - (d * (k - 1) + 1)) / s + 1;
    }
    /// Throws shape_error unless the geometry is consistent.
    void validate() const {
        auto fail = [](const std::string& what) {
            LITEGRAPH_THROW(shape_error("kernels::conv2d: " + what));
        };
        if (n < 0 || c < 1 || h < 1 || w < 1 || oc < 1 || kh < 1 || kw < 1 || groups < 1)
            fail("empty or negative dimension");
        if (sh < 1 || sw < 1 || dh < 1 || dw < 1) fail("strides and dilations must be >= 1");
        if (pt < 0 || pb < 0 || pl < 0 || pr < 0) fail("negative padding");
        if (c % groups != 0 || oc % groups != 0)
            fail("channels " + std::to_string(c) + " -> " + std::to_string(oc) +
                 " are not divisible by groups " + std::to_string(groups));
        if (oh != out_size(h, kh, dh, pt, pb, sh) || ow != out_size(w, kw, dw, pl, pr, sw) ||
            oh < 1 || ow < 1)
            fail("output size " + std::to_string(oh) + "x" + std::to_string(ow) +
                 " does not follow from the input, window, strides and paddings");
    }
    bool is_depthwise() const { return groups == c && oc == c; }
    bool is_pointwise() const {
        return kh == 1 && kw == 1 && sh == 1 && sw == 1 && pt == 0 && pb == 0 && pl == 0 && pr == 0;
    }
    double flops() const { return 2.0 * double(n) * oc * oh * ow * (c / groups) * kh * kw; }
};

/// The widest input a pointwise direct conv takes (pointwise_conv2d_direct).
inline constexpr std::int64_t pointwise_direct_max_k = 64;

/// Writes y[n * image_stride + oc * channel_stride + offset].
struct conv_store_epilogue {
    float* y;
    std::int64_t image_stride, channel_stride;
    conv_store_epilogue(float* out, const conv_geometry& g)
        : y(out), image_stride(g.oc * g.oh * g.ow), channel_stride(g.oh * g.ow) {}
    conv_store_epilogue(float* out, std::int64_t image, std::int64_t channel)
        : y(out), image_stride(image), channel_stride(channel) {}
    void operator()(std::int64_t n, std::int64_t oc, std::int64_t offset, const float* v,
                    std::int64_t count) const {
        std::memcpy(y + n * image_stride + oc * channel_stride + offset, v,
                    static_cast<std::size_t>(count) * sizeof(float));
    }
};

/// The identity activation of depthwise_direct (no activation).
struct identity_act {
    float operator()(float v) const { return v; }
    template <class V>
    V vec(V v) const {
        return v;
    }
};

/// A depthwise conv that finishes its output in registers and writes it
/// straight into a dense NCHW `y` [N, C, OH, OW]:
///   y = act(conv + bias[c])   (bias optional: null adds nothing)
///   y = act(conv * scale[c] + bias[c])   (with a scale: a folded batch norm)
/// Without a scale the accumulators start at the bias (as optimised kernels
/// do), so the sum rounds in another order than conv-then-add: within a few
/// ulps.  With one they start at 0 and the scale and bias follow, as a
/// batch norm after the conv computes them.
/// `act` is any functor with `float operator()(float)` and a vector form
/// `V vec(V)` doing the same operations (ops::act::relu, relu6, hard_swish ...).
/// No epilogue call and no second pass: what fused<conv2d, bias, act<F>>
/// and a plain depthwise conv run on.
template <class Act>
struct depthwise_direct {
    float* y = nullptr;
    const float* bias = nullptr;
    const float* scale = nullptr;
    Act act{};
};

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

/// The pointwise direct kernel's type (pointwise_direct_run).
using pointwise_direct_fn = void (*)(const conv_geometry&, const float*, const float*, float*,
                                     const float*, const float*, const void*);
/// The direct kernels of activation Act, its activation passed as `const
/// void*` (an arch unit lists one per activation: depthwise_direct_entry).
template <class Act>
struct depthwise_direct_impl {
    std::int64_t width = 0;
    void (*plane)(const conv_geometry&, const float*, std::int64_t, const std::int64_t*,
                  const float*, float*, float, const float*, const void*) = nullptr;
    pointwise_direct_fn pointwise = nullptr;
};
template <class A, class Act>
void depthwise_direct_erased(const conv_geometry& g, const float* ph, std::int64_t pw,
                             const std::int64_t* tap, const float* wt, float* y, float bias,
                             const float* scale, const void* act) {
    depthwise_direct_plane<A>(g, ph, pw, tap, wt, y, bias, scale, *static_cast<const Act*>(act));
}
/// A key per activation type: the address of its tag.
template <class Act>
inline constexpr char act_tag = 0;
struct depthwise_direct_entry {
    const void* key;  // &act_tag<Act>
    std::int64_t width;
    void (*plane)(const conv_geometry&, const float*, std::int64_t, const std::int64_t*,
                  const float*, float*, float, const float*, const void*);
    pointwise_direct_fn pointwise;  // the pointwise conv of the same activation
};

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

/// The pointwise direct conv of one activation (see pointwise_conv2d_direct).
template <class A, class Act, bool Scaled>
void pointwise_direct_scaled(const conv_geometry& g, const float* x, const float* w, float* y,
                             const float* bias, const float* scale, const Act& act) {
    constexpr std::int64_t width = simd::width_of<A>;
    const std::int64_t k = g.c, hw = g.h * g.w;
    // Column blocks whose k rows of x stay in L1 while every channel reads them.
    const std::int64_t block = std::max<std::int64_t>(
        2 * width, (4096 / std::max<std::int64_t>(k, 1)) / (2 * width) * (2 * width));
    for (std::int64_t n = 0; n < g.n; ++n) {
        const float* xn = x + n * k * hw;
        float* yn = y + n * g.oc * hw;
        for (std::int64_t p0 = 0; p0 < hw; p0 += block) {
            const std::int64_t p1 = std::min(hw, p0 + block);
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
                          const float* bias, const float* scale, const void* act) {
    const Act& a = *static_cast<const Act*>(act);
    if (scale)
        pointwise_direct_scaled<A, Act, true>(g, x, w, y, bias, scale, a);
    else
        pointwise_direct_scaled<A, Act, false>(g, x, w, y, bias, scale, a);
}

template <class A, class Act>
constexpr depthwise_direct_entry depthwise_direct_entry_of() {
    return {&act_tag<Act>, simd::width_of<A>, &depthwise_direct_erased<A, Act>,
            &pointwise_direct_run<A, Act>};
}
/// The direct kernel of Act in a slot: its arch unit's when the unit knows
/// Act (simd/arch_unit.hpp lists ops::activation_functors), otherwise the
/// compile-time architecture's.
template <class Act>
depthwise_direct_impl<Act> depthwise_direct_for(simd::isa i) {
    if (const simd::arch_table* t = simd::table_of(i))
        for (std::int64_t e = 0; e < t->direct_count; ++e)
            if (t->direct[e].key == &act_tag<Act>)
                return {t->direct[e].width, t->direct[e].plane, t->direct[e].pointwise};
    return {simd::width_of<simd::default_arch>, &depthwise_direct_erased<simd::default_arch, Act>,
            &pointwise_direct_run<simd::default_arch, Act>};
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

/// Depthwise conv written straight into d.y (dense NCHW), bias and activation
/// in registers (see depthwise_direct).  Same plane order and input reading
/// as depthwise_conv2d, so it too may run in place of its input.
template <class Act>
void depthwise_conv2d_direct(const conv_geometry& g, const float* x, const float* w,
                             const depthwise_direct<Act>& d, workspace* ws = nullptr) {
    g.validate();
    if (!g.is_depthwise())
        LITEGRAPH_THROW(shape_error("kernels::depthwise_conv2d: needs groups == C == OC"));
    if (!ws) ws = &workspace::local();
    const std::int64_t plane = g.oh * g.ow;
    const detail::depthwise_direct_impl<Act> impl =
        detail::depthwise_direct_for<Act>(simd::active());
    detail::depthwise_planes(g, x, ws, impl.width,
                             [&](std::int64_t n, std::int64_t ch, const float* ph, std::int64_t pw,
                                 const std::int64_t* tap) {
                                 impl.plane(g, ph, pw, tap, w + ch * g.kh * g.kw,
                                            d.y + (n * g.c + ch) * plane, d.bias ? d.bias[ch] : 0.f,
                                            d.scale ? d.scale + ch : nullptr, &d.act);
                             });
}

/// Whether pointwise_conv2d_direct runs g: a 1x1 stride-1 unpadded conv of
/// one group with at most pointwise_direct_max_k input channels (a short
/// sum, where the SGEMM's tile store and separate epilogue pass cost most)
/// and planes of at least two vectors (smaller ones, an SE block's 1x1
/// planes, are the SGEMM's columns).
inline bool pointwise_direct_fits(const conv_geometry& g, std::int64_t width) {
    return g.is_pointwise() && g.groups == 1 && g.c <= pointwise_direct_max_k &&
           g.oh * g.ow >= 2 * width;
}

/// A pointwise conv written straight into d.y (dense NCHW) with d's bias
/// (required), scale and activation applied in registers: the output of
/// conv2d's SGEMM path followed by chain<bias, act<Act>>, bit for bit, without
/// its tile store and second pass.  Reads x whole (not in place).  Returns
/// false, doing nothing, when !pointwise_direct_fits(g) or d.bias is null.
template <class Act>
bool pointwise_conv2d_direct(const conv_geometry& g, const float* x, const float* w,
                             const depthwise_direct<Act>& d) {
    g.validate();
    const detail::depthwise_direct_impl<Act> impl =
        detail::depthwise_direct_for<Act>(simd::active());
    if (!d.bias || !pointwise_direct_fits(g, impl.width)) return false;
    impl.pointwise(g, x, w, d.y, d.bias, d.scale, &d.act);
    return true;
}

/// Conv via GEMM: 1x1 stride-1 unpadded convs read the input in place,
/// everything else through im2col over bands of output rows.
///
/// The work is a sequence of units, each one SGEMM call of its own: per
/// image and group, the SGEMM's column blocks of the plane (pointwise; a
/// block is gemm_tile::column_block(K) columns, the SGEMM's own N block, so
/// the runs the epilogue sees are those of one call over the whole plane) or
/// the bands of output rows (im2col, each with its own column matrix).  Any
/// split of the units computes every output element with the same
/// arithmetic, so callers may run ranges of units on different threads
/// (ops::conv2d does, with the workspace of each thread).  Pointwise planes
/// of one value (an SE block's convs) are the exception: a range of units
/// (images) is one SGEMM whose columns are the images, and the epilogue
/// sees runs of one value, channel by channel.
namespace detail {
/// Output rows per im2col band: the column matrix near 64K floats.
inline std::int64_t im2col_band(const conv_geometry& g) {
    const std::int64_t kdim = g.c / g.groups * g.kh * g.kw;
    return std::clamp<std::int64_t>((1 << 16) / (kdim * g.ow), 1, g.oh);
}
/// Units per image and group.
inline std::int64_t gemm_blocks(const conv_geometry& g) {
    if (g.is_pointwise()) {
        const std::int64_t nb = gemm_tile::column_block(g.c / g.groups);
        return (g.oh * g.ow + nb - 1) / nb;
    }
    const std::int64_t band = im2col_band(g);
    return (g.oh + band - 1) / band;
}
}  // namespace detail

/// The units of the GEMM paths (see above): images x groups x blocks.
inline std::int64_t conv2d_gemm_units(const conv_geometry& g) {
    return g.n * g.groups * detail::gemm_blocks(g);
}

/// Whether every unit has the same work: one block per plane, or a plane of
/// whole blocks (else the last block of each plane is a remainder, and a
/// few units split over threads leave one thread most of the work).
inline bool conv2d_gemm_units_even(const conv_geometry& g) {
    if (detail::gemm_blocks(g) == 1) return true;
    if (g.is_pointwise()) return g.oh * g.ow % gemm_tile::column_block(g.c / g.groups) == 0;
    return g.oh % detail::im2col_band(g) == 0;
}

namespace detail {
/// Units [u0, u1) of the GEMM paths with the weights of each group packed
/// (`wp[group]`).
template <class Epilogue>
void conv2d_gemm_packed(const conv_geometry& g, const float* x, const packed_a* wp, Epilogue&& epi,
                        workspace* ws, std::int64_t u0, std::int64_t u1) {
    const std::int64_t cg = g.c / g.groups, ocg = g.oc / g.groups;
    const std::int64_t kdim = cg * g.kh * g.kw, in_plane = g.h * g.w, out_plane = g.oh * g.ow;
    const std::int64_t blocks = gemm_blocks(g);

    if (g.is_pointwise()) {
        if (out_plane == 1 && g.groups == 1 && u1 - u0 > 1) {
            // Planes of one value (an SE block's convs): a GEMM per image
            // would have one column; the images are the columns of one GEMM
            // instead (the same dot products, in the same order).
            const std::int64_t cols = u1 - u0;
            float* bt = workspace::grow(ws->d, cg * cols);
            const std::int64_t shape[2] = {cg, cols}, step[2] = {1, g.c};
            std::int64_t idx[2];
            permute(x + u0 * g.c, bt, 2, shape, step, sizeof(float), idx);  // bt = [C, images]
            sgemm(
                wp[0], cols, static_cast<const float*>(bt), cols,
                [&](std::int64_t row, std::int64_t col0, const float* v, std::int64_t count) {
                    for (std::int64_t i = 0; i < count; ++i) epi(u0 + col0 + i, row, 0, v + i, 1);
                },
                ws);
            return;
        }
        const std::int64_t nb = gemm_tile::column_block(cg);
        for (std::int64_t u = u0; u < u1; ++u) {
            const std::int64_t n = u / (g.groups * blocks), grp = u / blocks % g.groups;
            const std::int64_t j0 = u % blocks * nb, cols = std::min(nb, out_plane - j0);
            const float* b = x + (n * g.c + grp * cg) * in_plane + j0;
            sgemm(
                wp[grp], cols, b, in_plane,
                [&](std::int64_t row, std::int64_t col0, const float* v, std::int64_t count) {
                    epi(n, grp * ocg + row, j0 + col0, v, count);
                },
                ws);
        }
        return;
    }

    // Per kernel column: output columns [lo, hi) read inside the image.
    std::int64_t lo_small[16], hi_small[16];
    std::vector<std::int64_t> lo_big(g.kw > 16 ? 2 * g.kw : 0);
    std::int64_t* ow_lo = g.kw > 16 ? lo_big.data() : lo_small;
    std::int64_t* ow_hi = g.kw > 16 ? lo_big.data() + g.kw : hi_small;
    for (std::int64_t j = 0; j < g.kw; ++j) {
        const std::int64_t off = j * g.dw - g.pl;  // iw = ow * sw + off
        const std::int64_t lo = off >= 0 ? 0 : (-off + g.sw - 1) / g.sw;
        const std::int64_t hi = off > g.w - 1 ? 0 : (g.w - 1 - off) / g.sw + 1;
        ow_lo[j] = std::min(lo, g.ow);
        ow_hi[j] = std::max(ow_lo[j], std::min(hi, g.ow));
    }
    const std::int64_t band = im2col_band(g);
    float* col = workspace::grow(ws->d, kdim * band * g.ow);
    for (std::int64_t u = u0; u < u1; ++u) {
        const std::int64_t n = u / (g.groups * blocks), grp = u / blocks % g.groups;
        const std::int64_t oh0 = u % blocks * band;
        const float* xg = x + (n * g.c + grp * cg) * in_plane;
        const std::int64_t nrows = std::min(band, g.oh - oh0), ncols = nrows * g.ow;
        float* dst = col;
        for (std::int64_t ic = 0; ic < cg; ++ic)
            for (std::int64_t i = 0; i < g.kh; ++i)
                for (std::int64_t j = 0; j < g.kw; ++j, dst += ncols) {
                    const std::int64_t off = j * g.dw - g.pl;
                    for (std::int64_t r = 0; r < nrows; ++r) {
                        float* d = dst + r * g.ow;
                        const std::int64_t ih = (oh0 + r) * g.sh - g.pt + i * g.dh;
                        if (ih < 0 || ih >= g.h) {
                            std::fill(d, d + g.ow, 0.f);
                            continue;
                        }
                        const float* src = xg + ic * in_plane + ih * g.w + off;
                        std::fill(d, d + ow_lo[j], 0.f);
                        if (g.sw == 1)
                            std::memcpy(
                                d + ow_lo[j], src + ow_lo[j],
                                static_cast<std::size_t>(ow_hi[j] - ow_lo[j]) * sizeof(float));
                        else if (g.sw == 2)  // a constant stride the compiler vectorises
                            for (std::int64_t o = ow_lo[j]; o < ow_hi[j]; ++o) d[o] = src[2 * o];
                        else
                            for (std::int64_t o = ow_lo[j]; o < ow_hi[j]; ++o) d[o] = src[o * g.sw];
                        std::fill(d + ow_hi[j], d + g.ow, 0.f);
                    }
                }
        const std::int64_t base = oh0 * g.ow;
        sgemm(
            wp[grp], ncols, static_cast<const float*>(col), ncols,
            [&](std::int64_t row, std::int64_t col0, const float* v, std::int64_t count) {
                epi(n, grp * ocg + row, base + col0, v, count);
            },
            ws);
    }
}

template <class Epilogue>
void conv2d_gemm_packed(const conv_geometry& g, const float* x, const packed_a* wp, Epilogue&& epi,
                        workspace* ws) {
    conv2d_gemm_packed(g, x, wp, static_cast<Epilogue&&>(epi), ws, 0, conv2d_gemm_units(g));
}

}  // namespace detail

/// Conv via GEMM for any geometry (packs the weights on every call).
template <class Epilogue>
void conv2d_gemm(const conv_geometry& g, const float* x, const float* w, Epilogue&& epi,
                 workspace* ws = nullptr) {
    g.validate();
    if (g.n == 0) return;
    if (!ws) ws = &workspace::local();
    const std::int64_t ocg = g.oc / g.groups, kdim = g.c / g.groups * g.kh * g.kw;
    if (static_cast<std::int64_t>(ws->conv_w.size()) < g.groups)
        ws->conv_w.resize(static_cast<std::size_t>(g.groups));
    for (std::int64_t grp = 0; grp < g.groups; ++grp)
        ws->conv_w[grp].pack(ocg, kdim, w + grp * ocg * kdim, kdim);
    detail::conv2d_gemm_packed(g, x, ws->conv_w.data(), static_cast<Epilogue&&>(epi), ws);
}

/// conv2d NCHW: picks the depthwise kernel or the GEMM paths (see top of file).
template <class Epilogue>
void conv2d(const conv_geometry& g, const float* x, const float* w, Epilogue&& epi,
            workspace* ws = nullptr) {
    g.validate();
    if (g.n == 0) return;
    if (g.is_depthwise())
        depthwise_conv2d(g, x, w, static_cast<Epilogue&&>(epi), ws);
    else
        conv2d_gemm(g, x, w, static_cast<Epilogue&&>(epi), ws);
}

/// Filter [OC, C/groups, KH, KW] prepared once (at load time) for conv2d():
/// packed per group for the GEMM paths, copied as is for depthwise.
class conv_weights {
public:
    conv_weights() = default;
    conv_weights(const conv_geometry& g, const float* w)
        : oc_(g.oc),
          cg_(g.c / g.groups),
          kh_(g.kh),
          kw_(g.kw),
          groups_(g.groups),
          depthwise_(g.is_depthwise()) {
        g.validate();
        const std::int64_t ocg = oc_ / groups_, kdim = cg_ * kh_ * kw_;
        if (depthwise_) {
            raw_.assign(w, w + oc_ * kdim);
        } else {
            packed_.resize(static_cast<std::size_t>(groups_));
            for (std::int64_t grp = 0; grp < groups_; ++grp)
                packed_[grp].pack(ocg, kdim, w + grp * ocg * kdim, kdim);
        }
    }
    /// Throws shape_error unless these weights were prepared for g's filter.
    void check(const conv_geometry& g) const {
        if (g.oc != oc_ || g.c / g.groups != cg_ || g.kh != kh_ || g.kw != kw_ ||
            g.groups != groups_ || g.is_depthwise() != depthwise_)
            LITEGRAPH_THROW(shape_error(
                "kernels::conv2d: weights prepared for [" + std::to_string(oc_) + ", " +
                std::to_string(cg_) + ", " + std::to_string(kh_) + ", " + std::to_string(kw_) +
                "] groups " + std::to_string(groups_) + " do not fit this convolution"));
    }
    bool depthwise() const { return depthwise_; }
    const float* raw() const { return raw_.data(); }
    const packed_a* packed() const { return packed_.data(); }

private:
    std::int64_t oc_ = 0, cg_ = 0, kh_ = 0, kw_ = 0, groups_ = 0;
    bool depthwise_ = false;
    std::vector<float> raw_;
    std::vector<packed_a> packed_;
};

/// Units [u0, u1) of conv2d_gemm_units(g) with prepared (packed, not
/// depthwise) weights: what a caller runs on each thread of a split.
template <class Epilogue>
void conv2d_gemm_units(const conv_geometry& g, const float* x, const conv_weights& w,
                       Epilogue&& epi, std::int64_t u0, std::int64_t u1, workspace* ws = nullptr) {
    g.validate();
    w.check(g);
    if (w.depthwise())
        LITEGRAPH_THROW(shape_error("kernels::conv2d_gemm_units: depthwise weights"));
    if (!ws) ws = &workspace::local();
    detail::conv2d_gemm_packed(g, x, w.packed(), static_cast<Epilogue&&>(epi), ws, u0, u1);
}

/// conv2d NCHW with prepared weights (no packing per call).
template <class Epilogue>
void conv2d(const conv_geometry& g, const float* x, const conv_weights& w, Epilogue&& epi,
            workspace* ws = nullptr) {
    g.validate();
    w.check(g);
    if (g.n == 0) return;
    if (!ws) ws = &workspace::local();
    if (w.depthwise())
        depthwise_conv2d(g, x, w.raw(), static_cast<Epilogue&&>(epi), ws);
    else
        detail::conv2d_gemm_packed(g, x, w.packed(), static_cast<Epilogue&&>(epi), ws);
}

}  // namespace litegraph::kernels
