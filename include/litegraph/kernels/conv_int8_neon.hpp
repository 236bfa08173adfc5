// The NEON int8 conv kernel (aarch64: the baseline `neon` and the slot
// `neon_dotprod`), a template on the arch unit's architecture, bit-exact with
// kernels::conv2d_int8 (int32 accumulation of int8 products is exact in any
// order; kernels/conv_int8_fast.hpp has the overview):
//  - conv_int8_gemm_neon: ungrouped convs over the filter packed as quads
//    of int8 taps, 8 channels interleaved (int8_pack::quads).  Each run of
//    up to int8_gemm_run_blocks blocks of 16 pixels is packed once as
//    int8 quads of taps per pixel (vst4q_s8 of four tap rows): 16 bytes
//    are the four taps of four pixels.
//     - neon_dotprod (simd::has_dotprod<A>): sdot by lane, the lane naming
//       one of 4 channels (vdotq_laneq_s32): 8 channels x 8 pixels per
//       tile, 16 accumulators, two loads of patches and two of filter per
//       16 dot products.  Signed x signed: no shift, no correction (the
//       quads' corr is x86's, for u8 activations).
//     - neon (any aarch64): smull of the patches by a channel's four taps
//       (int16 products, exact), sadalp into int32 pair sums, one addp at
//       the end: 8 channels x 4 pixels per tile.
//  - conv_int8_depthwise_neon: depthwise convs (horizontal stride 1 or 2)
//    over a zero-padded int16 copy of each plane: 16 output pixels per
//    pass over the taps, smlal / smlal2 of the pixels by the tap (int32
//    sums), stride 2 reading the even pixels by ld2; the tap rows that read
//    only padding are skipped.  The same loop on both slots (the dot
//    product multiplies quads of one pixel's taps, a depthwise tap has one
//    pixel per lane).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "litegraph/kernels/conv_int8_pack.hpp"

#if defined(LITEGRAPH_SIMD_ARM64) && defined(__ARM_NEON)
#include <arm_neon.h>
#define LITEGRAPH_INT8_NEON 1
#endif

namespace litegraph::kernels::detail {
#if defined(LITEGRAPH_INT8_NEON)
namespace int8_neon_detail {

/// Packs pixels [p0, p0 + np) of image xn (np <= 16 * blocks) as blocks of
/// 16 pixels: panel[(b * kq + q) * 64 + 4 * px + j] = tap 4q + j of pixel
/// p0 + 16 b + px, zero past K, past the run and in the padding.
inline void pack_run(const conv_geometry& g, const std::int8_t* xn, std::int64_t p0,
                     std::int64_t np, std::int64_t k, std::int64_t kq,
                     std::int8_t* panel) noexcept {
    const std::int64_t plane_in = g.h * g.w, khw = g.kh * g.kw;
    const bool pointwise = g.is_pointwise();
    alignas(16) std::int8_t rows[4][16];
    std::int64_t ihb[16], iwb[16];
    for (std::int64_t b = 0; b * 16 < np; ++b) {
        const std::int64_t pb = p0 + 16 * b, nb = std::min<std::int64_t>(16, np - 16 * b);
        if (!pointwise)
            for (std::int64_t px = 0; px < nb; ++px) {
                ihb[px] = (pb + px) / g.ow * g.sh - g.pt;
                iwb[px] = (pb + px) % g.ow * g.sw - g.pl;
            }
        for (std::int64_t q = 0; q < kq; ++q) {
            int8x16_t r[4];
            for (std::int64_t j = 0; j < 4; ++j) {
                const std::int64_t kk = 4 * q + j;
                if (kk >= k) {
                    r[j] = vdupq_n_s8(0);
                    continue;
                }
                if (pointwise && nb == 16) {
                    r[j] = vld1q_s8(xn + kk * plane_in + pb);
                    continue;
                }
                std::int8_t* d = rows[j];
                std::memset(d, 0, 16);
                if (pointwise) {
                    std::memcpy(d, xn + kk * plane_in + pb, static_cast<std::size_t>(nb));
                } else {
                    const std::int64_t c = kk / khw, i = kk / g.kw % g.kh, jj = kk % g.kw;
                    const std::int8_t* xc = xn + c * plane_in;
                    for (std::int64_t px = 0; px < nb; ++px) {
                        const std::int64_t ih = ihb[px] + i * g.dh, iw = iwb[px] + jj * g.dw;
                        if (ih >= 0 && ih < g.h && iw >= 0 && iw < g.w) d[px] = xc[ih * g.w + iw];
                    }
                }
                r[j] = vld1q_s8(d);
            }
            vst4q_s8(panel + (b * kq + q) * 64, int8x16x4_t{{r[0], r[1], r[2], r[3]}});
        }
    }
}

#if defined(__ARM_FEATURE_DOTPROD)
/// The sums of 8 channels (filter quads wq: 32 bytes per quad of taps) x 8
/// pixels (panel pp: 64 bytes per quad, these pixels' 32 of them) over kq
/// quads, by sdot: out[c * ld + px].
inline void tile_dot(const std::int8_t* pp, const std::int8_t* wq, std::int64_t kq,
                     std::int32_t* out, std::int64_t ld) noexcept {
    int32x4_t s[8][2];
    for (auto& c : s) c[0] = c[1] = vdupq_n_s32(0);
    for (std::int64_t q = 0; q < kq; ++q, pp += 64, wq += 32) {
        const int8x16_t a0 = vld1q_s8(pp), a1 = vld1q_s8(pp + 16);
        const int8x16_t w0 = vld1q_s8(wq), w1 = vld1q_s8(wq + 16);
        s[0][0] = vdotq_laneq_s32(s[0][0], a0, w0, 0);
        s[0][1] = vdotq_laneq_s32(s[0][1], a1, w0, 0);
        s[1][0] = vdotq_laneq_s32(s[1][0], a0, w0, 1);
        s[1][1] = vdotq_laneq_s32(s[1][1], a1, w0, 1);
        s[2][0] = vdotq_laneq_s32(s[2][0], a0, w0, 2);
        s[2][1] = vdotq_laneq_s32(s[2][1], a1, w0, 2);
        s[3][0] = vdotq_laneq_s32(s[3][0], a0, w0, 3);
        s[3][1] = vdotq_laneq_s32(s[3][1], a1, w0, 3);
        s[4][0] = vdotq_laneq_s32(s[4][0], a0, w1, 0);
        s[4][1] = vdotq_laneq_s32(s[4][1], a1, w1, 0);
        s[5][0] = vdotq_laneq_s32(s[5][0], a0, w1, 1);
        s[5][1] = vdotq_laneq_s32(s[5][1], a1, w1, 1);
        s[6][0] = vdotq_laneq_s32(s[6][0], a0, w1, 2);
        s[6][1] = vdotq_laneq_s32(s[6][1], a1, w1, 2);
        s[7][0] = vdotq_laneq_s32(s[7][0], a0, w1, 3);
        s[7][1] = vdotq_laneq_s32(s[7][1], a1, w1, 3);
    }
    for (int c = 0; c < 8; ++c) {
        vst1q_s32(out + c * ld, s[c][0]);
        vst1q_s32(out + c * ld + 4, s[c][1]);
    }
}
#endif

/// tile_dot without the dot product: 8 channels x 4 pixels (panel pp: these
/// pixels' 16 bytes of each quad), each channel's four taps broadcast,
/// smull (int16 products, exact) and sadalp (pairs into int32), one addp.
inline void tile_mull(const std::int8_t* pp, const std::int8_t* wq, std::int64_t kq,
                      std::int32_t* out, std::int64_t ld) noexcept {
    int32x4_t lo[8], hi[8];
    for (int c = 0; c < 8; ++c) lo[c] = hi[c] = vdupq_n_s32(0);
    for (std::int64_t q = 0; q < kq; ++q, pp += 64, wq += 32) {
        const int8x16_t a = vld1q_s8(pp);
        const int32x4_t w0 = vreinterpretq_s32_s8(vld1q_s8(wq));
        const int32x4_t w1 = vreinterpretq_s32_s8(vld1q_s8(wq + 16));
        const auto step = [&](int c, int32x4_t wc32) {
            const int8x16_t wc = vreinterpretq_s8_s32(wc32);
            lo[c] = vpadalq_s16(lo[c], vmull_s8(vget_low_s8(a), vget_low_s8(wc)));
            hi[c] = vpadalq_s16(hi[c], vmull_high_s8(a, wc));
        };
        step(0, vdupq_laneq_s32(w0, 0));
        step(1, vdupq_laneq_s32(w0, 1));
        step(2, vdupq_laneq_s32(w0, 2));
        step(3, vdupq_laneq_s32(w0, 3));
        step(4, vdupq_laneq_s32(w1, 0));
        step(5, vdupq_laneq_s32(w1, 1));
        step(6, vdupq_laneq_s32(w1, 2));
        step(7, vdupq_laneq_s32(w1, 3));
    }
    for (int c = 0; c < 8; ++c) vst1q_s32(out + c * ld, vpaddq_s32(lo[c], hi[c]));
}

}  // namespace int8_neon_detail

/// The GEMM form (groups 1) on NEON: runs of blocks of 16 pixels packed as
/// quads of taps, times the filter's quads 8 channels at a time; the sums
/// of each channel of a run go to the sink at once.
template <class A>
void conv_int8_gemm_neon(const conv_geometry& g, const std::int8_t* x, const conv_int8_weights& w,
                         std::int64_t* scratch, int32_sink_ref sink) noexcept {
    using namespace int8_neon_detail;
    const std::int64_t k = w.k, kq = w.kp / 4, plane = g.oh * g.ow, mr = int8_vnni_mr;
    const std::int64_t blocks = int8_gemm_run_blocks(kq), run = blocks * int8_nr;
    auto* panel = reinterpret_cast<std::int8_t*>(scratch);
    auto* acc = reinterpret_cast<std::int32_t*>(panel + blocks * kq * 64);
    const auto* wq = reinterpret_cast<const std::int8_t*>(w.words.data());
    for (std::int64_t n = 0; n < g.n; ++n) {
        const std::int8_t* xn = x + n * g.c * g.h * g.w;
        for (std::int64_t p0 = 0; p0 < plane; p0 += run) {
            const std::int64_t np = std::min(run, plane - p0), nb = (np + 15) / 16;
            pack_run(g, xn, p0, np, k, kq, panel);
            for (std::int64_t ob = 0; ob * mr < g.oc; ++ob) {
                const std::int8_t* wb = wq + ob * kq * 32;
                for (std::int64_t b = 0; b < nb; ++b) {
                    const std::int8_t* pp = panel + b * kq * 64;
                    std::int32_t* o = acc + 16 * b;
#if defined(__ARM_FEATURE_DOTPROD)
                    if constexpr (simd::has_dotprod<A>) {
                        tile_dot(pp, wb, kq, o, 16 * nb);
                        tile_dot(pp + 32, wb, kq, o + 8, 16 * nb);
                        continue;
                    }
#endif
                    for (std::int64_t h = 0; h < 4; ++h)
                        tile_mull(pp + 16 * h, wb, kq, o + 4 * h, 16 * nb);
                }
                const std::int64_t oce = std::min(mr, g.oc - ob * mr);
                for (std::int64_t r = 0; r < oce; ++r)
                    sink(n, ob * mr + r, p0, acc + r * 16 * nb, np);
            }
        }
    }
}

/// The depthwise form (groups == C == OC, horizontal stride 1 or 2): per
/// plane, a zero-padded int16 copy (rows of xs, as the AVX2 kernel's), then
/// per output row 16 pixels per pass over the taps, four int32 accumulators
/// (smlal / smlal2 by the tap's int16 weight; stride 2: ld2, the even
/// pixels).  The reads of a row's last block run past the row into the
/// next one or the plane's slack (those lanes are not stored).
template <class A>
void conv_int8_depthwise_neon(const conv_geometry& g, const std::int8_t* x,
                              const conv_int8_weights& w, std::int64_t* scratch,
                              int32_sink_ref sink) noexcept {
    const std::int64_t hp = g.h + g.pt + g.pb, xs = g.w + g.pl + g.pr + 16 + g.dw;
    const std::int64_t plane = g.oh * g.ow, in_plane = g.h * g.w, slack = 64;
    auto* xp = reinterpret_cast<std::int16_t*>(scratch);
    auto* acc = reinterpret_cast<std::int32_t*>(scratch + (hp * xs + slack + 3) / 4);
    std::int64_t toff[int8_dw_max_taps];
    std::int16_t wt[int8_dw_max_taps];
    // The padding stays zero: only the image's part is written per plane.
    std::fill(xp, xp + hp * xs + slack, std::int16_t{0});
    // Tap (i, j)'s offset into the plane, the same for every plane.
    for (std::int64_t i = 0; i < g.kh; ++i)
        for (std::int64_t j = 0; j < g.kw; ++j) toff[i * g.kw + j] = i * g.dh * xs + j * g.dw;
    for (std::int64_t n = 0; n < g.n; ++n)
        for (std::int64_t ch = 0; ch < g.c; ++ch) {
            const std::int8_t* xc = x + (n * g.c + ch) * in_plane;
            for (std::int64_t r = 0; r < g.h; ++r) {
                std::int16_t* d = xp + (r + g.pt) * xs + g.pl;
                const std::int8_t* s = xc + r * g.w;
                std::int64_t c = 0;
                for (; c + 16 <= g.w; c += 16) {
                    const int8x16_t v = vld1q_s8(s + c);
                    vst1q_s16(d + c, vmovl_s8(vget_low_s8(v)));
                    vst1q_s16(d + c + 8, vmovl_high_s8(v));
                }
                for (; c < g.w; ++c) d[c] = s[c];
            }
            for (std::int64_t i = 0; i < g.kh; ++i)
                for (std::int64_t j = 0; j < g.kw; ++j)
                    wt[i * g.kw + j] =
                        w.taps[static_cast<std::size_t>((ch * g.kh + i) * w.kwp + j)];
            for (std::int64_t oh = 0; oh < g.oh; ++oh) {
                const std::int16_t* row = xp + oh * g.sh * xs;
                std::int32_t* ar = acc + oh * g.ow;
                // The taps of the rows that read the image (the rest: padding).
                const auto [i0, i1] = dw_image_tap_rows(g, oh);
                const std::int64_t t0 = i0 * g.kw, t1 = i1 * g.kw;
                for (std::int64_t ow0 = 0; ow0 < g.ow; ow0 += 16) {
                    int32x4_t s0 = vdupq_n_s32(0), s1 = s0, s2 = s0, s3 = s0;
                    const std::int16_t* p = row + ow0 * g.sw;
                    if (g.sw == 1) {
                        for (std::int64_t t = t0; t < t1; ++t) {
                            const std::int16_t* q = p + toff[t];
                            const int16x8_t a = vld1q_s16(q), b = vld1q_s16(q + 8);
                            s0 = vmlal_n_s16(s0, vget_low_s16(a), wt[t]);
                            s1 = vmlal_high_n_s16(s1, a, wt[t]);
                            s2 = vmlal_n_s16(s2, vget_low_s16(b), wt[t]);
                            s3 = vmlal_high_n_s16(s3, b, wt[t]);
                        }
                    } else {
                        for (std::int64_t t = t0; t < t1; ++t) {
                            const std::int16_t* q = p + toff[t];
                            const int16x8_t a = vld2q_s16(q).val[0], b = vld2q_s16(q + 16).val[0];
                            s0 = vmlal_n_s16(s0, vget_low_s16(a), wt[t]);
                            s1 = vmlal_high_n_s16(s1, a, wt[t]);
                            s2 = vmlal_n_s16(s2, vget_low_s16(b), wt[t]);
                            s3 = vmlal_high_n_s16(s3, b, wt[t]);
                        }
                    }
                    alignas(16) std::int32_t t16[16];
                    std::int32_t* d = ow0 + 16 <= g.ow ? ar + ow0 : t16;
                    vst1q_s32(d, s0), vst1q_s32(d + 4, s1);
                    vst1q_s32(d + 8, s2), vst1q_s32(d + 12, s3);
                    if (d == t16) std::copy(t16, t16 + (g.ow - ow0), ar + ow0);
                }
            }
            sink(n, ch, 0, acc, plane);
        }
}
#endif
}  // namespace litegraph::kernels::detail
