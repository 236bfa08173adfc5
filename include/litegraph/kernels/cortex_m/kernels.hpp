// Cortex-M DSP int8 kernels (ARMv7E-M SIMD: SXTB16 unpacking, SMLAD dual
// 16-bit MACs, through math.hpp).  They compute the same int32 accumulators
// as the reference kernels (kernels/conv_int8.hpp, ops/int8/mul_int8.hpp)
// and hand them to the same sink, so the requantize epilogue (fusion chain
// rescale -> bias -> act -> quantize_store) is shared and only the
// accumulation differs.  Bit-exact: int32 sums of int8 products, whatever
// the order.  Like the reference: no allocation, no exception, the caller
// passes scratch (the *_scratch_words functions) and a validated geometry.
//
// Paths:
//  - ungrouped conv (1x1, 3x3, any stride/padding/dilation): patches packed
//    per block of 16 pixels as the reference, then 2 output channels x 2
//    pixels per inner loop: 4 word loads, 8 SXTB16, 8 SMLAD per 16 MACs;
//  - depthwise (one input channel per group, dilation_w 1): the channel's
//    zero-padded plane widened once to int16, then each output pixel's row
//    of taps paired: one SMLAD per two taps with the weights in int16x2;
//  - other grouped convs: the reference kernel;
//  - fc (X [M, K] x Y [K, N]): 4 columns x 2 rows of Y per step, the rows
//    interleaved with PKHBT/PKHTB so one SMLAD takes X[k], X[k+1].
#pragma once

#include <algorithm>
#include <cstdint>

#include "litegraph/kernels/conv_int8.hpp"
#include "litegraph/kernels/cortex_m/math.hpp"

namespace litegraph::kernels::cortex_m {

/// Whether the depthwise path applies: one input channel per group and
/// adjacent taps in a row (dilation_w 1).
inline constexpr bool conv_int8_is_depthwise(const conv_geometry& g) noexcept {
    return g.groups > 1 && g.c == g.groups && g.dw == 1;
}

namespace detail {
/// Rows and columns of the zero-padded input plane the depthwise path reads.
inline constexpr std::int64_t dw_rows(const conv_geometry& g) noexcept {
    return (g.oh - 1) * g.sh + (g.kh - 1) * g.dh + 1;
}
inline constexpr std::int64_t dw_cols(const conv_geometry& g) noexcept {
    return (g.ow - 1) * g.sw + g.kw + 1;  // + 1: the last pair may read one past
}
inline constexpr std::int64_t dw_pairs(const conv_geometry& g) noexcept {
    return g.kh * ((g.kw + 1) / 2);
}
}  // namespace detail

/// int64 words of scratch conv2d_int8 needs (at least the reference's).
inline constexpr std::int64_t conv_int8_scratch_words(const conv_geometry& g) noexcept {
    if (conv_int8_uses_patches(g)) {
        const std::int64_t k = g.c * g.kh * g.kw;
        return (conv_int8_block * k * 3 + 7) / 8 + conv_int8_block + 1;
    }
    if (conv_int8_is_depthwise(g))
        return (detail::dw_rows(g) * detail::dw_cols(g) * 2 + 7) / 8 + (g.oh * g.ow + 1) / 2 +
               (detail::dw_pairs(g) + 1) / 2 + 1;
    return kernels::conv_int8_scratch_words(g);
}

namespace detail {

/// Patch p (k int8) of pixel b widened to int16 in SXTB16 order, pixels
/// interleaved by pairs: pair b / 2 takes 2k values from wide + (b / 2) * 2k;
/// in it, each group q of four values of pixel b is at 8q + 4 (b % 2), as
/// (0, 2, 1, 3), and the k % 4 tail at 2 (k - k % 4) + (b % 2) (k % 4), in
/// order.  So the two pixels of a pair are 4 values apart: one pointer.
inline void widen_patch(const std::int8_t* p, std::int16_t* wide, std::ptrdiff_t b,
                        std::ptrdiff_t k) noexcept {
    const std::ptrdiff_t k4 = k & ~std::ptrdiff_t{3}, t = k & 3;
    std::int16_t* base = wide + (b / 2) * 2 * k;
    std::int16_t* d = base + (b % 2) * 4;
    const std::int8_t* const end = p + k4;
    for (; p < end; p += 4, d += 8) {
        const std::uint32_t v = load_q7x4(p);
        store_q15x2(d, sxtb16(v));
        store_q15x2(d + 2, sxtb16_ror8(v));
    }
    std::int16_t* dt = base + 2 * k4 + (b % 2) * t;
    for (std::ptrdiff_t i = 0; i < t; ++i) dt[i] = p[i];
}

/// The four dot products of filters f0, f1 = f0 + k (int8) with the widened
/// pixel pair at p (widen_patch): per four values two filter words
/// unpacked, four patch words loaded as they are, eight SMLAD.
inline void dot_2x2(const std::int8_t* f0, const std::int16_t* p, std::ptrdiff_t k,
                    std::int32_t* out0, std::int32_t* out1) noexcept {
    std::int32_t a00 = 0, a01 = 0, a10 = 0, a11 = 0;
    const std::ptrdiff_t k4 = k & ~std::ptrdiff_t{3}, t = k & 3;
    const std::int16_t* const pt = p + 2 * k4;
    const std::int8_t* f1 = f0 + k;
    const std::int8_t* const end = f0 + k4;
    for (; f0 < end; f0 += 4, f1 += 4, p += 8) {
        const std::uint32_t w0 = load_q7x4(f0), w1 = load_q7x4(f1);
        const std::uint32_t w0l = sxtb16(w0), w0h = sxtb16_ror8(w0);
        const std::uint32_t w1l = sxtb16(w1), w1h = sxtb16_ror8(w1);
        std::uint32_t x = load_q15x2(p);
        a00 = smlad(w0l, x, a00);
        a10 = smlad(w1l, x, a10);
        x = load_q15x2(p + 2);
        a00 = smlad(w0h, x, a00);
        a10 = smlad(w1h, x, a10);
        x = load_q15x2(p + 4);
        a01 = smlad(w0l, x, a01);
        a11 = smlad(w1l, x, a11);
        x = load_q15x2(p + 6);
        a01 = smlad(w0h, x, a01);
        a11 = smlad(w1h, x, a11);
    }
    for (std::ptrdiff_t i = 0; i < t; ++i) {
        const std::int32_t w0 = f0[i], w1 = f1[i], x0 = pt[i], x1 = pt[t + i];
        a00 += w0 * x0;
        a01 += w0 * x1;
        a10 += w1 * x0;
        a11 += w1 * x1;
    }
    out0[0] = a00;
    out0[1] = a01;
    out1[0] = a10;
    out1[1] = a11;
}

/// One filter (int8) with pixel b of the widened pair at p.
inline std::int32_t dot_1x1(const std::int8_t* f, const std::int16_t* p, std::ptrdiff_t b,
                            std::ptrdiff_t k) noexcept {
    const std::ptrdiff_t k4 = k & ~std::ptrdiff_t{3}, t = k & 3;
    const std::int16_t* const pt = p + 2 * k4 + b * t;
    std::int32_t a = 0;
    const std::int8_t* const end = f + k4;
    for (p += 4 * b; f < end; f += 4, p += 8) {
        const std::uint32_t w = load_q7x4(f);
        a = smlad(sxtb16(w), load_q15x2(p), a);
        a = smlad(sxtb16_ror8(w), load_q15x2(p + 2), a);
    }
    for (std::ptrdiff_t i = 0; i < t; ++i) a += std::int32_t{f[i]} * pt[i];
    return a;
}

/// The patches of a 1x1 stride-1 unpadded conv (patch b = channel column of
/// pixel b of x) for the first nb & ~3 pixels, four pixels by four channels
/// at a time (a 4x4 byte transpose in words); the leftover channels byte by
/// byte.  Returns the pixels done.
inline std::int64_t pack_dense(const std::int8_t* x, std::int8_t* patches, std::int64_t nb,
                               std::ptrdiff_t c, std::ptrdiff_t plane) noexcept {
    const std::ptrdiff_t nb4 = static_cast<std::ptrdiff_t>(nb) & ~std::ptrdiff_t{3};
    const std::ptrdiff_t c4 = c & ~std::ptrdiff_t{3};
    for (std::ptrdiff_t b = 0; b < nb4; b += 4) {
        std::int8_t* d = patches + b * c;
        const std::int8_t* xc = x + b;
        std::ptrdiff_t ch = 0;
        for (; ch < c4; ch += 4, xc += 4 * plane) {
            const std::uint32_t r0 = load_q7x4(xc), r1 = load_q7x4(xc + plane);
            const std::uint32_t r2 = load_q7x4(xc + 2 * plane), r3 = load_q7x4(xc + 3 * plane);
            // t0 = (r0.b0, r1.b0, r0.b2, r1.b2), t1 = (r0.b1, r1.b1, r0.b3, r1.b3), ...
            const std::uint32_t t0 = (r0 & 0x00FF00FFu) | ((r1 << 8) & 0xFF00FF00u);
            const std::uint32_t t1 = ((r0 >> 8) & 0x00FF00FFu) | (r1 & 0xFF00FF00u);
            const std::uint32_t t2 = (r2 & 0x00FF00FFu) | ((r3 << 8) & 0xFF00FF00u);
            const std::uint32_t t3 = ((r2 >> 8) & 0x00FF00FFu) | (r3 & 0xFF00FF00u);
            store_q7x4(d + ch, pack_lo(t0, t2));
            store_q7x4(d + c + ch, pack_lo(t1, t3));
            store_q7x4(d + 2 * c + ch, pack_hi(t0, t2));
            store_q7x4(d + 3 * c + ch, pack_hi(t1, t3));
        }
        for (; ch < c; ++ch, xc += plane)
            for (std::ptrdiff_t j = 0; j < 4; ++j) d[j * c + ch] = xc[j];
    }
    return nb4;
}

inline void conv2d_patches(const conv_geometry& g, const std::int8_t* x, const std::int8_t* f,
                           std::int64_t* scratch, int32_sink_ref sink) noexcept {
    const std::int64_t k = g.c * g.kh * g.kw, plane = g.oh * g.ow, in_plane = g.h * g.w;
    const bool pointwise = g.kh == 1 && g.kw == 1 && g.pt == 0 && g.pl == 0;
    // 1x1, stride 1, no padding: output pixel p reads input pixel p.
    const bool dense = pointwise && g.sh == 1 && g.sw == 1 && g.oh == g.h && g.ow == g.w;
    auto* patches = reinterpret_cast<std::int8_t*>(scratch);
    // The block's patches widened (widen_patch), after the int8 ones.
    auto* wide = reinterpret_cast<std::int16_t*>(scratch) + (conv_int8_block * k + 1) / 2;
    auto* acc0 = reinterpret_cast<std::int32_t*>(scratch + (conv_int8_block * k * 3 + 7) / 8);
    std::int32_t* acc1 = acc0 + conv_int8_block;
    for (std::int64_t n = 0; n < g.n; ++n) {
        const std::int8_t* xn = x + n * g.c * in_plane;
        for (std::int64_t p0 = 0; p0 < plane; p0 += conv_int8_block) {
            const std::int64_t nb = std::min(conv_int8_block, plane - p0);
            std::int64_t b0 = 0;
            if (dense)  // four pixels x four channels per 4x4 byte transpose
                b0 = pack_dense(xn + p0, patches, nb, static_cast<std::ptrdiff_t>(g.c),
                                static_cast<std::ptrdiff_t>(in_plane));
            for (std::int64_t b = b0; b < nb; ++b) {
                const std::int64_t oh = (p0 + b) / g.ow, ow = (p0 + b) % g.ow;
                std::int8_t* d = patches + b * k;
                if (pointwise) {  // 1x1 without padding: one column of channels
                    const std::int8_t* xp = xn + oh * g.sh * g.w + ow * g.sw;
                    const auto cs = static_cast<std::ptrdiff_t>(g.c);
                    const auto ps = static_cast<std::ptrdiff_t>(in_plane);
                    for (std::ptrdiff_t c = 0; c < cs; ++c, xp += ps) d[c] = *xp;
                    continue;
                }
                // 32-bit indices; a row of taps inside the image is copied as is.
                const auto cs = static_cast<std::ptrdiff_t>(g.c),
                           kh = static_cast<std::ptrdiff_t>(g.kh),
                           kw = static_cast<std::ptrdiff_t>(g.kw),
                           h = static_cast<std::ptrdiff_t>(g.h),
                           w = static_cast<std::ptrdiff_t>(g.w),
                           dh = static_cast<std::ptrdiff_t>(g.dh),
                           dw = static_cast<std::ptrdiff_t>(g.dw);
                const auto ih0 = static_cast<std::ptrdiff_t>(oh * g.sh - g.pt),
                           iw0 = static_cast<std::ptrdiff_t>(ow * g.sw - g.pl);
                const bool cols_in = iw0 >= 0 && iw0 + (kw - 1) * dw < w;
                for (std::ptrdiff_t c = 0; c < cs; ++c)
                    for (std::ptrdiff_t i = 0; i < kh; ++i, d += kw) {
                        const std::ptrdiff_t ih = ih0 + i * dh;
                        if (ih < 0 || ih >= h) {
                            for (std::ptrdiff_t j = 0; j < kw; ++j) d[j] = 0;
                            continue;
                        }
                        const std::int8_t* xr = xn + (c * h + ih) * w;
                        if (cols_in) {
                            for (std::ptrdiff_t j = 0; j < kw; ++j) d[j] = xr[iw0 + j * dw];
                        } else {
                            for (std::ptrdiff_t j = 0; j < kw; ++j) {
                                const std::ptrdiff_t iw = iw0 + j * dw;
                                d[j] = iw >= 0 && iw < w ? xr[iw] : std::int8_t{0};
                            }
                        }
                    }
            }
            const auto ks = static_cast<std::ptrdiff_t>(k), nbs = static_cast<std::ptrdiff_t>(nb);
            for (std::ptrdiff_t b = 0; b < nbs; ++b) widen_patch(patches + b * ks, wide, b, ks);
            std::int64_t oc = 0;
            for (; oc + 2 <= g.oc; oc += 2) {
                const std::int8_t* f0 = f + oc * k;
                const std::int16_t* pb = wide;
                std::ptrdiff_t b = 0;
                for (; b + 2 <= nbs; b += 2, pb += 2 * ks) dot_2x2(f0, pb, ks, acc0 + b, acc1 + b);
                if (b < nbs) {
                    acc0[b] = dot_1x1(f0, pb, 0, ks);
                    acc1[b] = dot_1x1(f0 + ks, pb, 0, ks);
                }
                sink(n, oc, p0, acc0, nb);
                sink(n, oc + 1, p0, acc1, nb);
            }
            if (oc < g.oc) {
                for (std::int64_t b = 0; b < nb; ++b)
                    acc0[b] = dot_1x1(f + oc * k, wide + (b / 2) * 2 * k, b % 2,
                                      static_cast<std::ptrdiff_t>(k));
                sink(n, oc, p0, acc0, nb);
            }
        }
    }
}

/// Channel plane xc widened to int16 into the interior of xs (rows x cols,
/// column c holding input column c - pl, row r input row r - pt), four
/// values per SXTB16 pair.  The padding is left as is: zeroed once per call.
inline void widen_plane(const conv_geometry& g, const std::int8_t* xc, std::int16_t* xs,
                        std::int64_t rows, std::int64_t cols) noexcept {
    const auto cs = static_cast<std::ptrdiff_t>(cols), w = static_cast<std::ptrdiff_t>(g.w);
    const auto lo = static_cast<std::ptrdiff_t>(std::min(cols, g.pl));
    const auto n =
        static_cast<std::ptrdiff_t>(std::max<std::int64_t>(lo, std::min(cols, g.pl + g.w))) - lo;
    const auto r0 = static_cast<std::ptrdiff_t>(std::min(rows, g.pt));
    const auto r1 =
        static_cast<std::ptrdiff_t>(std::max<std::int64_t>(r0, std::min(rows, g.pt + g.h)));
    const std::int8_t* s = xc + (r0 - static_cast<std::ptrdiff_t>(g.pt)) * w +
                           (lo - static_cast<std::ptrdiff_t>(g.pl));
    for (std::ptrdiff_t r = r0; r < r1; ++r, s += w) {
        std::int16_t* o = xs + r * cs + lo;
        const std::int8_t* si = s;
        std::ptrdiff_t c = n;
        for (; c >= 4; c -= 4, o += 4, si += 4) {
            const std::uint32_t v = load_q7x4(si);
            const std::uint32_t l = sxtb16(v), h = sxtb16_ror8(v);
            store_q15x2(o, pack_lo(l, h));
            store_q15x2(o + 2, pack_hi(l, h));
        }
        for (; c > 0; --c) *o++ = *si++;
    }
}

/// The depthwise path for KH x KW taps (0: the geometry's, at run time).
template <int KH, int KW>
void conv2d_depthwise(const conv_geometry& g, const std::int8_t* x, const std::int8_t* f,
                      std::int64_t* scratch, int32_sink_ref sink) noexcept {
    const std::int64_t kh = KH ? KH : g.kh, kw = KW ? KW : g.kw, kp = (kw + 1) / 2;
    const std::int64_t rows = dw_rows(g), cols = dw_cols(g), out_plane = g.oh * g.ow;
    const std::int64_t in_plane = g.h * g.w, mult = g.oc / g.groups;
    auto* xs = reinterpret_cast<std::int16_t*>(scratch);
    auto* acc = reinterpret_cast<std::int32_t*>(scratch + (rows * cols * 2 + 7) / 8);
    auto* wp = reinterpret_cast<std::uint32_t*>(acc + ((out_plane + 1) / 2) * 2);
    std::fill(xs, xs + rows * cols, std::int16_t{0});  // the padding, for every channel
    for (std::int64_t n = 0; n < g.n; ++n)
        for (std::int64_t oc = 0; oc < g.oc; ++oc) {
            if (oc % mult == 0) {  // widen channel oc / mult
                widen_plane(g, x + (n * g.c + oc / mult) * in_plane, xs, rows, cols);
            }
            // Weights in int16x2 pairs per row (the odd tail paired with 0).
            const std::int8_t* fo = f + oc * kh * kw;
            for (std::int64_t i = 0; i < kh; ++i)
                for (std::int64_t j = 0; j < kp; ++j) {
                    const std::int32_t w1 = 2 * j + 1 < kw ? fo[i * kw + 2 * j + 1] : 0;
                    wp[i * kp + j] = pack_q15(fo[i * kw + 2 * j], w1);
                }
            const auto ohs = static_cast<std::ptrdiff_t>(g.oh),
                       ows = static_cast<std::ptrdiff_t>(g.ow);
            const auto sw = static_cast<std::ptrdiff_t>(g.sw);
            const auto rs = static_cast<std::ptrdiff_t>(g.sh * cols),
                       ds = static_cast<std::ptrdiff_t>(g.dh * cols);
            if constexpr (KH == 3 && KW == 3) {  // the weights in six registers
                const std::uint32_t w00 = wp[0], w01 = wp[1], w10 = wp[2], w11 = wp[3], w20 = wp[4],
                                    w21 = wp[5];
                for (std::ptrdiff_t oh = 0; oh < ohs; ++oh) {
                    const std::int16_t* x0 = xs + oh * rs;
                    const std::int16_t* x1 = x0 + ds;
                    const std::int16_t* x2 = x1 + ds;
                    std::int32_t* o = acc + oh * ows;
                    std::int32_t* const oe = o + ows;
                    for (; o < oe; ++o, x0 += sw, x1 += sw, x2 += sw) {
                        std::int32_t a = smuad(w00, load_q15x2(x0));
                        a = smlad(w01, load_q15x2(x0 + 2), a);
                        a = smlad(w10, load_q15x2(x1), a);
                        a = smlad(w11, load_q15x2(x1 + 2), a);
                        a = smlad(w20, load_q15x2(x2), a);
                        *o = smlad(w21, load_q15x2(x2 + 2), a);
                    }
                }
            } else {
                const auto khs = static_cast<std::ptrdiff_t>(kh),
                           kps = static_cast<std::ptrdiff_t>(kp);
                for (std::ptrdiff_t oh = 0; oh < ohs; ++oh) {
                    const std::int16_t* xp = xs + oh * rs;
                    std::int32_t* ar = acc + oh * ows;
                    for (std::ptrdiff_t ow = 0; ow < ows; ++ow, xp += sw) {
                        std::int32_t a = 0;
                        for (std::ptrdiff_t i = 0; i < khs; ++i) {
                            const std::int16_t* xi = xp + i * ds;
                            const std::uint32_t* wi = wp + i * kps;
                            for (std::ptrdiff_t j = 0; j < kps; ++j)
                                a = smlad(wi[j], load_q15x2(xi + 2 * j), a);
                        }
                        ar[ow] = a;
                    }
                }
            }
            sink(n, oc, 0, acc, out_plane);
        }
}

}  // namespace detail

/// Same contract as kernels::conv2d_int8 (same sink calls' values; runs may
/// be cut differently), scratch of conv_int8_scratch_words(g) words.
inline void conv2d_int8(const conv_geometry& g, const std::int8_t* x, const std::int8_t* f,
                        std::int64_t* scratch, int32_sink_ref sink) noexcept {
    if (conv_int8_uses_patches(g)) {
        detail::conv2d_patches(g, x, f, scratch, sink);
    } else if (conv_int8_is_depthwise(g)) {
        if (g.kh == 3 && g.kw == 3)
            detail::conv2d_depthwise<3, 3>(g, x, f, scratch, sink);
        else
            detail::conv2d_depthwise<0, 0>(g, x, f, scratch, sink);
    } else {
        kernels::conv2d_int8(g, x, f, scratch, sink);
    }
}

/// int64 words of scratch fc_int8 needs.
inline constexpr std::int64_t fc_int8_scratch_words(std::int64_t k, std::int64_t n) noexcept {
    return (k * 2 + 7) / 8 + (n + 1) / 2 + 1;
}

/// The fully connected layer's accumulators (mul_int8): X int8 [M, K] times
/// Y int8 [K, N]; row i handed to sink(i, 0, i * N, acc, N) (element j is
/// channel j of the rescale).
inline void fc_int8(std::int64_t m, std::int64_t k, std::int64_t n, const std::int8_t* x,
                    const std::int8_t* y, std::int64_t* scratch, int32_sink_ref sink) noexcept {
    auto* xs = reinterpret_cast<std::int16_t*>(scratch);
    auto* acc = reinterpret_cast<std::int32_t*>(scratch + (k * 2 + 7) / 8);
    const std::int64_t k2 = k & ~std::int64_t{1};
    for (std::int64_t i = 0; i < m; ++i) {
        const std::int8_t* xi = x + i * k;
        for (std::int64_t kk = 0; kk < k; ++kk) xs[kk] = xi[kk];
        std::int64_t j = 0;
        for (; j + 4 <= n; j += 4) {
            std::int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
            const std::int8_t* yk = y + j;
            const auto ns = static_cast<std::ptrdiff_t>(n);
            const std::int16_t* xk = xs;
            const std::int16_t* xe = xs + k2;
            for (; xk < xe; xk += 2, yk += 2 * ns) {
                const std::uint32_t xp = load_q15x2(xk);
                const std::uint32_t r0 = load_q7x4(yk), r1 = load_q7x4(yk + ns);
                const std::uint32_t l0 = sxtb16(r0), l1 = sxtb16(r1);
                const std::uint32_t h0 = sxtb16_ror8(r0), h1 = sxtb16_ror8(r1);
                a0 = smlad(pack_lo(l0, l1), xp, a0);
                a2 = smlad(pack_hi(l0, l1), xp, a2);
                a1 = smlad(pack_lo(h0, h1), xp, a1);
                a3 = smlad(pack_hi(h0, h1), xp, a3);
            }
            if (k2 < k) {
                const std::int32_t xv = xs[k2];
                const std::int8_t* yr = y + k2 * n + j;
                a0 += xv * yr[0];
                a1 += xv * yr[1];
                a2 += xv * yr[2];
                a3 += xv * yr[3];
            }
            acc[j] = a0;
            acc[j + 1] = a1;
            acc[j + 2] = a2;
            acc[j + 3] = a3;
        }
        for (; j < n; ++j) {
            std::int32_t a = 0;
            for (std::int64_t kk = 0; kk < k; ++kk) a += std::int32_t{xs[kk]} * y[kk * n + j];
            acc[j] = a;
        }
        sink(i, 0, i * n, acc, n);
    }
}

}  // namespace litegraph::kernels::cortex_m

namespace litegraph::kernels {

/// The int8 conv the build's best kernels give: the Cortex-M DSP kernels
/// when the target has the DSP extension (Cortex-M4/M7 firmware), else the
/// reference conv2d_int8.  Scratch: conv2d_int8_best_scratch_words(g).
inline constexpr std::int64_t conv2d_int8_best_scratch_words(const conv_geometry& g) noexcept {
    if constexpr (cortex_m::dsp) return cortex_m::conv_int8_scratch_words(g);
    return conv_int8_scratch_words(g);
}
inline void conv2d_int8_best(const conv_geometry& g, const std::int8_t* x, const std::int8_t* f,
                             std::int64_t* scratch, int32_sink_ref sink) noexcept {
    if constexpr (cortex_m::dsp)
        cortex_m::conv2d_int8(g, x, f, scratch, sink);
    else
        conv2d_int8(g, x, f, scratch, sink);
}

/// The reference fc accumulation (mul_int8's loop): row i of X [M, K] times
/// Y [K, N] handed to sink(i, 0, i * N, acc, N); scratch: N int32.
inline void fc_int8(std::int64_t m, std::int64_t k, std::int64_t n, const std::int8_t* x,
                    const std::int8_t* y, std::int64_t* scratch, int32_sink_ref sink) noexcept {
    auto* acc = reinterpret_cast<std::int32_t*>(scratch);
    for (std::int64_t i = 0; i < m; ++i) {
        std::fill(acc, acc + n, 0);
        for (std::int64_t kk = 0; kk < k; ++kk) {
            const std::int32_t a = x[i * k + kk];
            if (a == 0) continue;
            const std::int8_t* yr = y + kk * n;
            for (std::int64_t j = 0; j < n; ++j) acc[j] += a * static_cast<std::int32_t>(yr[j]);
        }
        sink(i, 0, i * n, acc, n);
    }
}

/// The fc the build's best kernels give (as conv2d_int8_best); scratch:
/// fc_int8_best_scratch_words(K, N) words.
inline constexpr std::int64_t fc_int8_best_scratch_words(std::int64_t k, std::int64_t n) noexcept {
    return cortex_m::fc_int8_scratch_words(k, n);
}
inline void fc_int8_best(std::int64_t m, std::int64_t k, std::int64_t n, const std::int8_t* x,
                         const std::int8_t* y, std::int64_t* scratch,
                         int32_sink_ref sink) noexcept {
    if constexpr (cortex_m::dsp)
        cortex_m::fc_int8(m, k, n, x, y, scratch, sink);
    else
        fc_int8(m, k, n, x, y, scratch, sink);
}

}  // namespace litegraph::kernels
