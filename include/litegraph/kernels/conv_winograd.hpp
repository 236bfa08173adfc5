// The Winograd path of the float conv: a 3x3 conv of stride 1 computed as
// F(4x4, 3x3) (Lavin and Gray, "Fast Algorithms for Convolutional Neural
// Networks", 2015): each 4x4 output tile is A^T [ (G g G^T) . (B^T d B) ] A,
// where d is the tile's 6x6 input window and g a 3x3 filter, so an output
// tile takes 36 multiply-adds per input channel instead of 144.
//
//   winograd_weights ww(g, w);      // G g G^T of every filter, packed (load time)
//   conv2d_winograd(g, x, ww, epi);  // the conv through the epilogue of conv.hpp
//
// The work goes in blocks of whole tile rows of one image (the units a split
// over threads runs):
//   1. input transform: every channel's 6x6 windows of the block to B^T d B,
//      stored as 36 matrices V[p] = [C, tiles] (p = the window position);
//   2. 36 SGEMMs M[p] = U[p] [OC, C] x V[p] (kernels/gemm.hpp, U[p] the
//      transformed filters, packed once);
//   3. output transform: A^T m A per tile and channel into the block's
//      output rows, handed to the epilogue one run per channel (the rows of
//      the block, whole).
// Both transforms run along the tiles of a tile row in vectors: a row of
// input is split into its four column phases (columns 4t + k), so that a
// tile's six columns are the phases at t and t + 1, contiguous over t.
// Each transform is plain IEEE adds and multiplies in a fixed order (no
// fused multiply-add: the units build with -ffp-contract=off), the same in
// every vector lane and in the scalar tail, and each output element's sums
// never depend on the block, the split or the batch: outputs are the same
// for any number of threads.  The transforms are templates on the
// architecture, instantiated by each instruction set's unit
// (simd/arch_unit.hpp: arch_table::winograd).
//
// Accuracy, the bar of the fp32 Winograd path (winograd_error_bar): every
// output within 1e-3 of 1 + |exact value|.  The transforms scale terms by up
// to 5 x 5 (B) and 8 x 8 (A) before they cancel, so an output rounds more
// than a direct sum's (within 1e-4 there): on random data of [-1, 1] the
// worst element is off by about 1.4e-4 at 64 input channels and 2.2e-4 at
// 96 (tests/kernels/conv.cpp, tests/fusion/fast_conv.cpp), and the text
// detector's probability map moves by 4e-5 at most.  An output's sums also
// depend on its place in its 4x4 tile: a patched stage's convs run without
// this path (ops/conv2d.hpp: litegraph_kernel "gemm"), and so can any conv
// that needs a direct sum's rounding.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "litegraph/core/error.hpp"
#include "litegraph/kernels/conv_geometry.hpp"
#include "litegraph/kernels/gemm.hpp"
#include "litegraph/kernels/simd.hpp"

namespace litegraph::kernels {

/// The Winograd path's accuracy bar (see the top of the file): |y - exact|
/// <= winograd_error_bar * (1 + |exact|) for every output.
inline constexpr double winograd_error_bar = 1e-3;

/// Whether a conv takes the Winograd path (when its filter is prepared):
/// 3x3, stride 1, no dilation, one group, and enough input channels and
/// output for the transforms to pay.  It does not depend on the output
/// channels or the batch, so a split of a conv over threads by channels or
/// images takes the same path as the whole conv.
inline bool winograd_fits(const conv_geometry& g) {
    return g.kh == 3 && g.kw == 3 && g.sh == 1 && g.sw == 1 && g.dh == 1 && g.dw == 1 &&
           g.groups == 1 && g.c >= 16 && g.oh >= 8 && g.ow >= 8;
}

/// The tiling of a Winograd conv and the layout of its buffers.
struct winograd_plan {
    static constexpr std::int64_t positions = 36;  // 6x6 window positions
    /// The widest vector (floats): rows are padded so that every vector of
    /// the transforms is whole (no scalar tail; the extra lanes are computed
    /// from zeros or finished values and never stored to the output).
    static constexpr std::int64_t lanes = 16;
    std::int64_t tiles_h = 0, tiles_w = 0;  // 4x4 output tiles
    std::int64_t rows = 0;                  // tile rows per block
    std::int64_t blocks = 0;                // blocks per image
    std::int64_t phase = 0;                 // a phase of a row: tiles_w + 1, padded
    std::int64_t tiles_pad = 0;             // tiles_w padded to whole vectors
    std::int64_t ld = 0;                    // a row of V[p] or M[p]: a block's tiles, padded

    static constexpr std::int64_t round_up(std::int64_t n) {
        return (n + lanes - 1) / lanes * lanes;
    }
    static winograd_plan of(const conv_geometry& g) {
        winograd_plan p;
        p.tiles_h = (g.oh + 3) / 4;
        p.tiles_w = (g.ow + 3) / 4;
        // About 16K / C tiles a block, 32 to 128 (V about 2 MB at most: 36
        // positions x C x tiles; wider SGEMMs pay: at 96 channels 128 tiles
        // ran the 160x160 conv in 3.7-3.9 ms against 4.9 for 64 and 6.0 for
        // 32, Zen 5, avx512), at most a whole image; then an even number of
        // blocks, two at least, where there are tile rows for them (two
        // threads get whole, even units), the rows spread evenly over them.
        // The blocks change no sum: any tiling gives the same outputs.
        const std::int64_t tiles = std::clamp<std::int64_t>(16384 / g.c, 32, 128);
        p.rows = std::clamp<std::int64_t>((tiles + p.tiles_w - 1) / p.tiles_w, 1, p.tiles_h);
        p.blocks = (p.tiles_h + p.rows - 1) / p.rows;
        p.blocks = std::min(p.tiles_h, (std::max<std::int64_t>(p.blocks, 2) + 1) / 2 * 2);
        p.rows = (p.tiles_h + p.blocks - 1) / p.blocks;
        p.blocks = (p.tiles_h + p.rows - 1) / p.rows;
        p.phase = round_up(p.tiles_w + 1);
        p.tiles_pad = round_up(p.tiles_w);
        p.ld = p.rows * p.tiles_w + lanes;
        return p;
    }
    /// Floats between V[p] and V[p + 1] for `channels` rows (or M's for the
    /// output channels): a cache line more than the rows, so that the 36
    /// matrices a transform writes or reads at once do not map to the same
    /// cache sets.
    std::int64_t plane(std::int64_t channels) const { return channels * ld + lanes; }
    /// Floats of a padded input row (4 * phase: tile t on its columns
    /// [4t, 4t + 6)).
    std::int64_t row_floats() const { return 4 * phase; }
    /// Floats of the transforms' scratch: the input transform's padded row,
    /// the block's 4 * rows + 2 input rows in phases and 6 rows of B^T d; or
    /// the output transform's 40 rows of tiles_pad, then the block's output
    /// rows of one channel.
    std::int64_t scratch_floats(const conv_geometry& g) const {
        return std::max((4 * rows + 9) * row_floats(), out_offset() + 4 * rows * g.ow);
    }
    /// Where the block's output rows start in the scratch.
    std::int64_t out_offset() const { return 40 * tiles_pad; }
};

namespace detail {

/// A transform step over tiles [0, n) in whole vectors of A (the buffers
/// are padded to winograd_plan::lanes): f(i, load) with `load(p)` giving a
/// vector at p (a float on the scalar stand-in).
template <class A, class F>
inline void winograd_lanes(std::int64_t n, F&& f) {
#if !defined(LITEGRAPH_SCALAR_SIMD)
    using V = typename simd::arch_traits<A>::vfloat;
    constexpr std::int64_t w = simd::width_of<A>;
    static_assert(winograd_plan::lanes % w == 0, "winograd_plan::lanes: the widest vector");
    for (std::int64_t i = 0; i < n; i += w) f(i, [](const float* p) { return simd::load<V>(p); });
#else
    for (std::int64_t i = 0; i < n; ++i) f(i, [](const float* p) { return *p; });
#endif
}

template <class T>
inline void winograd_store(float* p, const T& v) {
    if constexpr (std::is_same_v<T, float>)
        *p = v;
    else
        simd::store(p, v);
}

/// B^T d for one column of six: u0..u5 from d0..d5 (see the top of the file).
template <class T>
inline void winograd_bt(const T (&d)[6], T (&u)[6]) {
    const T four(4.f), five(5.f), two(2.f);
    const T a = d[4] - four * d[2], b = d[3] - four * d[1];
    const T c = d[4] - d[2], e = two * (d[3] - d[1]);
    u[0] = four * d[0] - five * d[2] + d[4];
    u[1] = a + b;
    u[2] = a - b;
    u[3] = c + e;
    u[4] = c - e;
    u[5] = four * d[1] - five * d[3] + d[5];
}

/// A^T m for one column of six: o0..o3.
template <class T>
inline void winograd_at(const T (&m)[6], T (&o)[4]) {
    const T two(2.f), four(4.f), eight(8.f);
    const T s12 = m[1] + m[2], d12 = m[1] - m[2], s34 = m[3] + m[4], d34 = m[3] - m[4];
    o[0] = m[0] + s12 + s34;
    o[1] = d12 + two * d34;
    o[2] = s12 + four * s34;
    o[3] = d12 + eight * d34 + m[5];
}

/// p[k * m + j] = r[4 * j + k] for j < m (m a multiple of A's width): a
/// row in its four column phases.  4 x 4 transposes of vectors where A has
/// them, else a plain loop.
template <class A>
inline void winograd_phases(const float* r, float* p, std::int64_t m) {
#if XSIMD_WITH_AVX512F
    if constexpr (std::is_base_of_v<xsimd::avx512f, A>) {
        // Phase k of 16 tiles: elements k, k + 4, ... of a, b (the low 8)
        // and of c, d (the high 8).
        const __m512i idx[4] = {
            _mm512_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28, 0, 4, 8, 12, 16, 20, 24, 28),
            _mm512_setr_epi32(1, 5, 9, 13, 17, 21, 25, 29, 1, 5, 9, 13, 17, 21, 25, 29),
            _mm512_setr_epi32(2, 6, 10, 14, 18, 22, 26, 30, 2, 6, 10, 14, 18, 22, 26, 30),
            _mm512_setr_epi32(3, 7, 11, 15, 19, 23, 27, 31, 3, 7, 11, 15, 19, 23, 27, 31)};
        for (std::int64_t j = 0; j < m; j += 16, r += 64) {
            const __m512 a = _mm512_loadu_ps(r), b = _mm512_loadu_ps(r + 16);
            const __m512 c = _mm512_loadu_ps(r + 32), d = _mm512_loadu_ps(r + 48);
            for (int k = 0; k < 4; ++k) {
                const __m512 lo = _mm512_permutex2var_ps(a, idx[k], b);
                const __m512 hi = _mm512_permutex2var_ps(c, idx[k], d);
                _mm512_storeu_ps(p + k * m + j, _mm512_shuffle_f32x4(lo, hi, 0x44));
            }
        }
        return;
    }
#endif
#if XSIMD_WITH_AVX2
    if constexpr (std::is_base_of_v<xsimd::avx2, A>) {
        // A 4 x 4 transpose in each 128-bit lane gives tiles 0 2 4 6 | 1 3 5 7.
        const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
        for (std::int64_t j = 0; j < m; j += 8, r += 32) {
            const __m256 a = _mm256_loadu_ps(r), b = _mm256_loadu_ps(r + 8);
            const __m256 c = _mm256_loadu_ps(r + 16), d = _mm256_loadu_ps(r + 24);
            const __m256 t0 = _mm256_unpacklo_ps(a, b), t1 = _mm256_unpackhi_ps(a, b);
            const __m256 t2 = _mm256_unpacklo_ps(c, d), t3 = _mm256_unpackhi_ps(c, d);
            const __m256 q[4] = {_mm256_shuffle_ps(t0, t2, 0x44), _mm256_shuffle_ps(t0, t2, 0xee),
                                 _mm256_shuffle_ps(t1, t3, 0x44), _mm256_shuffle_ps(t1, t3, 0xee)};
            for (int k = 0; k < 4; ++k)
                _mm256_storeu_ps(p + k * m + j, _mm256_permutevar8x32_ps(q[k], order));
        }
        return;
    }
#endif
    for (std::int64_t j = 0; j < m; ++j) {
        p[j] = r[4 * j];
        p[m + j] = r[4 * j + 1];
        p[2 * m + j] = r[4 * j + 2];
        p[3 * m + j] = r[4 * j + 3];
    }
}

/// The input transform of tile rows [ty0, ty1) of one image x [C, H, W]:
/// V[p] row c, column t (the block's tile t) at v + p * plan.plane(C) +
/// c * plan.ld + t.  `s`: plan.scratch_floats(g) floats.
template <class A>
void winograd_input(const conv_geometry& g, const winograd_plan& plan, const float* x,
                    std::int64_t ty0, std::int64_t ty1, float* v, float* s) {
    const std::int64_t tw = plan.tiles_w, m = plan.phase, q = plan.row_floats();
    const std::int64_t vp = plan.plane(g.c), nrows = 4 * (ty1 - ty0) + 2;
    float* row = s;              // a padded input row
    float* ph = row + q;         // the block's input rows in phases [k][m]
    float* vt = ph + nrows * q;  // 6 rows of B^T d, in phases
    // The padded row's columns [lo, hi) are the image's; the rest stay 0.
    const std::int64_t lo = std::min(g.pl, q), hi = std::clamp(g.pl + g.w, lo, q);
    std::fill(row, row + lo, 0.f);
    std::fill(row + hi, row + q, 0.f);
    for (std::int64_t c = 0; c < g.c; ++c) {
        const float* xc = x + c * g.h * g.w;
        // Each input row of the block once: padded, then split in phases.
        for (std::int64_t i = 0; i < nrows; ++i) {
            const std::int64_t ih = 4 * ty0 - g.pt + i;
            if (ih < 0 || ih >= g.h) {
                std::fill(ph + i * q, ph + (i + 1) * q, 0.f);
                continue;
            }
            std::memcpy(row + lo, xc + ih * g.w + (lo - g.pl),
                        static_cast<std::size_t>(hi - lo) * sizeof(float));
            winograd_phases<A>(row, ph + i * q, m);
        }
        for (std::int64_t ty = ty0; ty < ty1; ++ty) {
            // Down the columns: vt[r'] = sum_i B^T[r'][i] row[i], phase by phase.
            const float* p6 = ph + 4 * (ty - ty0) * q;
            winograd_lanes<A>(q, [&](std::int64_t j, auto ld) {
                using T = decltype(ld(p6));
                T d[6], u[6];
                for (int i = 0; i < 6; ++i) d[i] = ld(p6 + i * q + j);
                winograd_bt(d, u);
                for (int i = 0; i < 6; ++i) winograd_store(vt + i * q + j, u[i]);
            });
            // Along the rows: the six columns of tile t are phases 0..3 at t
            // and phases 0, 1 at t + 1.
            float* vc = v + c * plan.ld + (ty - ty0) * tw;
            for (std::int64_t r = 0; r < 6; ++r) {
                const float* p = vt + r * q;
                winograd_lanes<A>(tw, [&](std::int64_t t, auto ld) {
                    using T = decltype(ld(p));
                    const T d[6] = {ld(p + t),         ld(p + m + t), ld(p + 2 * m + t),
                                    ld(p + 3 * m + t), ld(p + t + 1), ld(p + m + t + 1)};
                    T u[6];
                    winograd_bt(d, u);
                    for (std::int64_t k = 0; k < 6; ++k)
                        winograd_store(vc + (r * 6 + k) * vp + t, u[k]);
                });
            }
        }
    }
}

/// The output transform of output channel oc over the block's tile rows
/// [ty0, ty1): M[p] row oc (at mm + p * plan.plane(OC) + oc * plan.ld) to
/// `out`, the block's output rows (row 4 * (ty - ty0) + i at
/// out + (4 * (ty - ty0) + i) * OW), clipped to the output.  `s`:
/// plan.out_offset() floats of scratch, not overlapping `out`.
template <class A>
void winograd_output(const conv_geometry& g, const winograd_plan& plan, const float* mm,
                     std::int64_t oc, std::int64_t ty0, std::int64_t ty1, float* out, float* s) {
    const std::int64_t tw = plan.tiles_w, tp = plan.tiles_pad, mp = plan.plane(g.oc);
    float* z = s;            // [4][6][tp]: A^T down the columns
    float* o = s + 24 * tp;  // [4][4][tp]: the tiles' outputs
    for (std::int64_t ty = ty0; ty < ty1; ++ty) {
        const float* mt = mm + oc * plan.ld + (ty - ty0) * tw;
        for (std::int64_t k = 0; k < 6; ++k)
            winograd_lanes<A>(tw, [&](std::int64_t t, auto ld) {
                using T = decltype(ld(mm));
                T d[6], r[4];
                for (std::int64_t i = 0; i < 6; ++i) d[i] = ld(mt + (i * 6 + k) * mp + t);
                winograd_at(d, r);
                for (std::int64_t i = 0; i < 4; ++i) winograd_store(z + (i * 6 + k) * tp + t, r[i]);
            });
        for (std::int64_t i = 0; i < 4; ++i)
            winograd_lanes<A>(tw, [&](std::int64_t t, auto ld) {
                using T = decltype(ld(z));
                T d[6], r[4];
                for (std::int64_t k = 0; k < 6; ++k) d[k] = ld(z + (i * 6 + k) * tp + t);
                winograd_at(d, r);
                for (std::int64_t j = 0; j < 4; ++j) winograd_store(o + (i * 4 + j) * tp + t, r[j]);
            });
        // Interleave the tiles' columns into output rows.
        const std::int64_t oh0 = 4 * ty, rows = std::min<std::int64_t>(4, g.oh - oh0);
        const std::int64_t full = g.ow / 4, rest = g.ow - 4 * full;
        for (std::int64_t i = 0; i < rows; ++i) {
            float* dst = out + (oh0 - 4 * ty0 + i) * g.ow;
            const float* o0 = o + i * 4 * tp;
            for (std::int64_t t = 0; t < full; ++t) {
                dst[4 * t] = o0[t];
                dst[4 * t + 1] = o0[tp + t];
                dst[4 * t + 2] = o0[2 * tp + t];
                dst[4 * t + 3] = o0[3 * tp + t];
            }
            for (std::int64_t j = 0; j < rest; ++j) dst[4 * full + j] = o0[j * tp + full];
        }
    }
}

/// An architecture's Winograd transforms.
struct winograd_impl {
    void (*input)(const conv_geometry&, const winograd_plan&, const float*, std::int64_t,
                  std::int64_t, float*, float*) = nullptr;
    void (*output)(const conv_geometry&, const winograd_plan&, const float*, std::int64_t,
                   std::int64_t, std::int64_t, float*, float*) = nullptr;
};
template <class A>
constexpr winograd_impl winograd_impl_of() {
    return {&winograd_input<A>, &winograd_output<A>};
}
inline winograd_impl winograd_for(simd::isa i) {
    if (const simd::arch_table* t = simd::table_of(i)) return *t->winograd;
    return winograd_impl_of<simd::default_arch>();
}

}  // namespace detail

/// The filters [OC, C, 3, 3] of a Winograd conv transformed once:
/// U[p] = (G g G^T)[p] as 36 packed [OC, C] matrices (computed in double,
/// rounded once to float).
class winograd_weights {
public:
    winograd_weights() = default;
    winograd_weights(const conv_geometry& g, const float* w) : oc_(g.oc), c_(g.c) {
        if (!winograd_fits(g))
            LITEGRAPH_THROW(shape_error("kernels::winograd_weights: not a Winograd conv"));
        static constexpr double G[6][3] = {{1. / 4, 0, 0},
                                           {-1. / 6, -1. / 6, -1. / 6},
                                           {-1. / 6, 1. / 6, -1. / 6},
                                           {1. / 24, 1. / 12, 1. / 6},
                                           {1. / 24, -1. / 12, 1. / 6},
                                           {0, 0, 1}};
        const std::int64_t n = g.oc * g.c;
        std::vector<float> u(static_cast<std::size_t>(winograd_plan::positions * n));
        for (std::int64_t k = 0; k < n; ++k) {
            const float* f = w + k * 9;
            double t[6][3];  // G g
            for (int i = 0; i < 6; ++i)
                for (int j = 0; j < 3; ++j)
                    t[i][j] = G[i][0] * f[j] + G[i][1] * f[3 + j] + G[i][2] * f[6 + j];
            for (int i = 0; i < 6; ++i)
                for (int j = 0; j < 6; ++j)
                    u[(i * 6 + j) * n + k] = static_cast<float>(
                        t[i][0] * G[j][0] + t[i][1] * G[j][1] + t[i][2] * G[j][2]);
        }
        packed_.resize(winograd_plan::positions);
        for (std::int64_t p = 0; p < winograd_plan::positions; ++p)
            packed_[p].pack(g.oc, g.c, u.data() + p * n, g.c);
    }
    bool fits(const conv_geometry& g) const { return g.oc == oc_ && g.c == c_ && winograd_fits(g); }
    const packed_a* packed() const { return packed_.data(); }

private:
    std::int64_t oc_ = 0, c_ = 0;
    std::vector<packed_a> packed_;
};

/// Units (blocks of tile rows) of a Winograd conv: images x blocks.
inline std::int64_t conv2d_winograd_units(const conv_geometry& g) {
    return g.n * winograd_plan::of(g).blocks;
}
/// Whether every unit has the same tile rows.
inline bool conv2d_winograd_units_even(const conv_geometry& g) {
    const auto p = winograd_plan::of(g);
    return p.tiles_h % p.rows == 0;
}

/// Units [u0, u1) of the Winograd conv of x [N, C, H, W] through `epi` (the
/// conv epilogue of conv.hpp: one run per output channel and block).
template <class Epilogue>
void conv2d_winograd(const conv_geometry& g, const float* x, const winograd_weights& w,
                     Epilogue&& epi, workspace* ws, std::int64_t u0, std::int64_t u1) {
    if (!w.fits(g))
        LITEGRAPH_THROW(shape_error("kernels::conv2d_winograd: weights prepared for another conv"));
    const auto plan = winograd_plan::of(g);
    const detail::winograd_impl impl = detail::winograd_for(simd::active());
    const std::int64_t P = winograd_plan::positions, vp = plan.plane(g.c), mp = plan.plane(g.oc);
    float* v = workspace::grow(ws->d, P * (vp + mp) + plan.scratch_floats(g));
    float* mm = v + P * vp;
    float* s = mm + P * mp;
    float* out = s + plan.out_offset();
    // The output transform's last vector of a row reads up to `lanes`
    // columns past a block's tiles, which the SGEMM never writes: zeros
    // there (or, for a short last block, a full block's finished values),
    // not what the workspace held.
    for (std::int64_t p = 0; p < P; ++p)
        for (std::int64_t oc = 0; oc < g.oc; ++oc) {
            float* pad = mm + p * mp + oc * plan.ld + (plan.ld - winograd_plan::lanes);
            for (std::int64_t i = 0; i < winograd_plan::lanes; ++i) pad[i] = 0.f;
        }
    for (std::int64_t u = u0; u < u1; ++u) {
        const std::int64_t n = u / plan.blocks, b = u % plan.blocks;
        const std::int64_t ty0 = b * plan.rows, ty1 = std::min(plan.tiles_h, ty0 + plan.rows);
        const std::int64_t cols = (ty1 - ty0) * plan.tiles_w;
        impl.input(g, plan, x + n * g.c * g.h * g.w, ty0, ty1, v, s);
        for (std::int64_t p = 0; p < P; ++p)
            sgemm(w.packed()[p], cols, static_cast<const float*>(v + p * vp), plan.ld,
                  store_epilogue{mm + p * mp, plan.ld}, ws);
        const std::int64_t oh0 = 4 * ty0, oh1 = std::min(g.oh, 4 * ty1);
        for (std::int64_t oc = 0; oc < g.oc; ++oc) {
            impl.output(g, plan, mm, oc, ty0, ty1, out, s);
            epi(n, oc, oh0 * g.ow, static_cast<const float*>(out), (oh1 - oh0) * g.ow);
        }
    }
}

}  // namespace litegraph::kernels
