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
//  - ungrouped conv (1x1, 3x3, any stride/padding/dilation): per block of
//    16 pixels the patches gathered four pixels at a time and widened to
//    int16 pairs (SXTB16), then per group of four output channels their
//    filters widened the same way and 4 channels x 2 pixels per inner step:
//    6 word loads, 8 SMLAD per 16 MACs;
//  - depthwise 3x3 / 5x5, horizontal stride 1 or 2: the channel copied once
//    into a zero-padded int8 plane (its interior rows 4-aligned, copied in
//    16-byte LDM/STM blocks; the padding zeroed once per call), sizes fixed
//    in 32-bit values before the loops, two output pixels per step from one or
//    two words per tap row (SXTB16 even/odd lanes, SMLAD + SMLABB/SMLABT/
//    SMLATB/SMLATT for the taps that do not pair);
//  - other depthwise (dilation_w 1): the plane widened to int16, each output
//    pixel's row of taps paired, one SMLAD per two taps;
//  - other grouped convs: the reference kernel;
//  - fc (X [M, K] x Y [K, N]): 4 columns x 2 rows of Y per step, each row
//    word unpacked (SXTB16) and its halves multiplied by X[k] or X[k+1]
//    with SMLABB/SMLATB/SMLABT/SMLATT (18 instructions per 8 MACs; pairing
//    the rows for SMLAD needs as many PKHBT/PKHTB and more registers).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>

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
/// Whether the two-pixel depthwise path applies: square 3x3 or 5x5 taps,
/// horizontal stride 1 or 2 (any vertical stride and dilation).
inline constexpr bool dw_pairwise(const conv_geometry& g) noexcept {
    return g.kh == g.kw && (g.kw == 3 || g.kw == 5) && (g.sw == 1 || g.sw == 2);
}
/// Columns of its zero-padded int8 plane: the pixels computed two by two
/// (an odd row's extra one lands on the next row's first, then is
/// overwritten), and the last pair's word loads may read three past.
inline constexpr std::int64_t dw8_cols(const conv_geometry& g) noexcept {
    return (((g.ow + 1) & ~std::int64_t{1}) - 1) * g.sw + g.kw + 4;
}
/// Its plane's lead columns (input column 0 at lead + pl, a multiple of 4)
/// and row stride (a multiple of 4): the interior rows copy as aligned words.
inline constexpr std::int64_t dw8_lead(const conv_geometry& g) noexcept {
    return (4 - g.pl % 4) % 4;
}
inline constexpr std::int64_t dw8_stride(const conv_geometry& g) noexcept {
    return (dw8_lead(g) + dw8_cols(g) + 3) & ~std::int64_t{3};
}
/// int16x2 words per widened row of k int8: (k + 1) / 2 rounded up to even
/// (the dot loop takes two words per step).
inline constexpr std::int64_t pairs_even(std::int64_t k) noexcept {
    return ((k + 1) / 2 + 1) & ~std::int64_t{1};
}

}  // namespace detail

/// int64 words of scratch conv2d_int8 needs (at least the reference's).
inline constexpr std::int64_t conv_int8_scratch_words(const conv_geometry& g) noexcept {
    if (conv_int8_uses_patches(g)) {
        const std::int64_t k = g.c * g.kh * g.kw, kp = detail::pairs_even(k);
        return (4 * k + 7) / 8 + conv_int8_block * kp / 2 + 2 * kp + 2 * conv_int8_block + 1;
    }
    if (conv_int8_is_depthwise(g) && detail::dw_pairwise(g))
        return (detail::dw_rows(g) * detail::dw8_stride(g) + 7) / 8 + (g.oh * g.ow + 2) / 2 + 1;
    if (conv_int8_is_depthwise(g))
        return (detail::dw_rows(g) * detail::dw_cols(g) * 2 + 7) / 8 + (g.oh * g.ow + 1) / 2 +
               (detail::dw_pairs(g) + 1) / 2 + 1;
    return kernels::conv_int8_scratch_words(g);
}

namespace detail {

/// Row s (k int8) widened to kp int16x2 words at d[0], d[stride], ...: each
/// four values as (0, 2), (1, 3) (SXTB16 order), the k % 4 tail in order
/// (paired with 0 when odd), zero words after.  Filters and patches are
/// widened alike, so the order within a row does not change a dot product.
inline void widen_row(const std::int8_t* s, std::ptrdiff_t k, std::ptrdiff_t kp, std::uint32_t* d,
                      std::ptrdiff_t stride) noexcept {
    std::uint32_t* const de = d + kp * stride;
    const std::int8_t* const end = s + (k & ~std::ptrdiff_t{3});
    for (; s < end; s += 4, d += 2 * stride) {
        const std::uint32_t v = load_q7x4(s);
        d[0] = sxtb16(v);
        d[stride] = sxtb16_ror8(v);
    }
    const std::ptrdiff_t t = k & 3;
    if (t >= 2) {
        *d = pack_q15(s[0], s[1]);
        d += stride;
        if (t == 3) {
            *d = pack_q15(s[2], 0);
            d += stride;
        }
    } else if (t == 1) {
        *d = pack_q15(s[0], 0);
        d += stride;
    }
    for (; d < de; d += stride) *d = 0;
}

/// The 4 x 2 dot products of four widened filters (fw: word j of filter m at
/// fw[4 j + m]) with a widened pixel pair (p: word j of pixel s at p[2 j +
/// s]), kp words each (even): per two words six loads and eight SMLAD for 16
/// MACs.  Filter m's pair lands at acc[m * stride], acc[m * stride + 1].
inline void dot_4x2(const std::uint32_t* fw, const std::uint32_t* p, std::ptrdiff_t kp,
                    std::int32_t* acc, std::ptrdiff_t stride) noexcept {
    std::int32_t a00 = 0, a01 = 0, a10 = 0, a11 = 0, a20 = 0, a21 = 0, a30 = 0, a31 = 0;
    const std::uint32_t* const pe = p + 2 * kp;
    for (; p < pe; p += 4, fw += 8) {
        std::uint32_t x0 = p[0], x1 = p[1];
        std::uint32_t w = fw[0];
        a00 = smlad(w, x0, a00);
        a01 = smlad(w, x1, a01);
        w = fw[1];
        a10 = smlad(w, x0, a10);
        a11 = smlad(w, x1, a11);
        w = fw[2];
        a20 = smlad(w, x0, a20);
        a21 = smlad(w, x1, a21);
        w = fw[3];
        a30 = smlad(w, x0, a30);
        a31 = smlad(w, x1, a31);
        x0 = p[2];
        x1 = p[3];
        w = fw[4];
        a00 = smlad(w, x0, a00);
        a01 = smlad(w, x1, a01);
        w = fw[5];
        a10 = smlad(w, x0, a10);
        a11 = smlad(w, x1, a11);
        w = fw[6];
        a20 = smlad(w, x0, a20);
        a21 = smlad(w, x1, a21);
        w = fw[7];
        a30 = smlad(w, x0, a30);
        a31 = smlad(w, x1, a31);
    }
    acc[0] = a00;
    acc[1] = a01;
    acc[stride] = a10;
    acc[stride + 1] = a11;
    acc[2 * stride] = a20;
    acc[2 * stride + 1] = a21;
    acc[3 * stride] = a30;
    acc[3 * stride + 1] = a31;
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
    // 1x1 without any padding: every output pixel's input pixel is inside the
    // image (a bottom or right padding adds output rows or columns that read
    // only zeros: the general path).
    const bool pointwise =
        g.kh == 1 && g.kw == 1 && g.pt == 0 && g.pb == 0 && g.pl == 0 && g.pr == 0;
    // 1x1, stride 1, no padding: output pixel p reads input pixel p.
    const bool dense = pointwise && g.sh == 1 && g.sw == 1 && g.oh == g.h && g.ow == g.w;
    const auto kp = static_cast<std::ptrdiff_t>(pairs_even(k));
    constexpr auto block = static_cast<std::ptrdiff_t>(conv_int8_block);
    // Scratch: four pixels' int8 patches, the block's widened pairs, four widened
    // filters, four rows of accumulators (patch_scratch_words).
    auto* patches = reinterpret_cast<std::int8_t*>(scratch);
    auto* wide = reinterpret_cast<std::uint32_t*>(scratch + (4 * k + 7) / 8);
    std::uint32_t* fw = wide + block * kp;
    auto* acc = reinterpret_cast<std::int32_t*>(fw + 4 * kp);
    for (std::int64_t n = 0; n < g.n; ++n) {
        const std::int8_t* xn = x + n * g.c * in_plane;
        for (std::int64_t p0 = 0; p0 < plane; p0 += conv_int8_block) {
            const std::int64_t nb = std::min(conv_int8_block, plane - p0);
            const auto ks = static_cast<std::ptrdiff_t>(k), nbs = static_cast<std::ptrdiff_t>(nb);
            // Four pixels at a time: their int8 patches, then widened by
            // pixel pairs into the block's (an odd block's last pair
            // completed with zeros).
            for (std::int64_t b4 = 0; b4 < nb; b4 += 4) {
                const std::int64_t be = std::min(nb, b4 + 4);
                std::int64_t b0 = b4;
                if (dense && be - b4 == 4)  // four pixels x four channels per 4x4 byte transpose
                    b0 += pack_dense(xn + p0 + b4, patches, 4, static_cast<std::ptrdiff_t>(g.c),
                                     static_cast<std::ptrdiff_t>(in_plane));
                for (std::int64_t b = b0; b < be; ++b) {
                    const std::int64_t oh = (p0 + b) / g.ow, ow = (p0 + b) % g.ow;
                    std::int8_t* d = patches + (b - b4) * k;
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
                            if (cols_in && kw == 3 && dw == 1) {  // the common 3x3 row
                                const std::int8_t* xp = xr + iw0;
                                d[0] = xp[0], d[1] = xp[1], d[2] = xp[2];
                            } else if (cols_in) {
                                for (std::ptrdiff_t j = 0; j < kw; ++j) d[j] = xr[iw0 + j * dw];
                            } else {
                                for (std::ptrdiff_t j = 0; j < kw; ++j) {
                                    const std::ptrdiff_t iw = iw0 + j * dw;
                                    d[j] = iw >= 0 && iw < w ? xr[iw] : std::int8_t{0};
                                }
                            }
                        }
                }
                for (auto b = static_cast<std::ptrdiff_t>(b4); b < be; ++b)
                    widen_row(patches + (b - b4) * ks, ks, kp, wide + (b / 2) * 2 * kp + b % 2, 2);
            }
            // Then four filters at a time widened and dotted with every pair.
            if (nbs % 2)
                for (std::ptrdiff_t j = 0; j < kp; ++j) wide[(nbs / 2) * 2 * kp + 2 * j + 1] = 0;
            const std::ptrdiff_t pairs = (nbs + 1) / 2;
            for (std::int64_t oc = 0; oc < g.oc; oc += 4) {
                const auto mc = static_cast<std::ptrdiff_t>(std::min<std::int64_t>(4, g.oc - oc));
                for (std::ptrdiff_t m = 0; m < mc; ++m)
                    widen_row(f + (oc + m) * k, ks, kp, fw + m, 4);
                for (std::ptrdiff_t m = mc; m < 4; ++m)
                    for (std::ptrdiff_t j = 0; j < kp; ++j) fw[4 * j + m] = 0;
                for (std::ptrdiff_t q = 0; q < pairs; ++q)
                    dot_4x2(fw, wide + q * 2 * kp, kp, acc + 2 * q, block);
                for (std::ptrdiff_t m = 0; m < mc; ++m) sink(n, oc + m, p0, acc + m * block, nb);
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

/// Where the two-pixel depthwise path's int8 plane takes the input:
/// computed once per call, every channel copied with it (copy_rows).  The
/// plane is rows x stride bytes (stride a multiple of 4), input column 0 at
/// column lead + pl (a multiple of 4: the copies store aligned words), input
/// row 0 at row pt; the pairs start at column lead.
struct dw8_copy {
    std::ptrdiff_t dst = 0;     // plane byte of the first copied input byte
    std::ptrdiff_t w = 0;       // input row stride
    std::ptrdiff_t stride = 0;  // plane row stride
    std::uint32_t rows = 0;     // input rows copied
    std::uint32_t n = 0;        // input bytes copied per row (from column 0)
};
inline dw8_copy dw8_plan(const conv_geometry& g) noexcept {
    dw8_copy c;
    const std::int64_t rows = dw_rows(g), stride = dw8_stride(g), lead = dw8_lead(g);
    // Input columns [0, n) land in plane columns [lead + pl, lead + pl + n),
    // within the stride; input rows [0, r) in plane rows [pt, pt + r).
    const std::int64_t n = std::max<std::int64_t>(0, std::min(g.w, stride - lead - g.pl));
    const std::int64_t r = std::max<std::int64_t>(0, std::min(g.h, rows - g.pt));
    c.dst = static_cast<std::ptrdiff_t>(g.pt * stride + lead + g.pl);
    c.w = static_cast<std::ptrdiff_t>(g.w);
    c.stride = static_cast<std::ptrdiff_t>(stride);
    c.rows = static_cast<std::uint32_t>(n > 0 ? r : 0);
    c.n = static_cast<std::uint32_t>(n);
    return c;
}

/// Rows of exactly N bytes (copy_rows' common cases: no inner loop).
template <int N, bool Aligned>
inline void copy_blocks(const dw8_copy& c, const std::int8_t* s, std::int8_t* d) noexcept {
    const std::ptrdiff_t sw = c.w, dw = c.stride;  // in registers: memcpy may alias c
    for (std::uint32_t r = c.rows; r != 0; --r, s += sw, d += dw) {
        if constexpr (Aligned)
            std::memcpy(__builtin_assume_aligned(d, 4), __builtin_assume_aligned(s, 4), N);
        else
            std::memcpy(__builtin_assume_aligned(d, 4), s, N);
    }
}

/// Copies c.rows rows of c.n bytes from s (rows c.w apart) to d (4-aligned,
/// rows c.stride apart, a multiple of 4): 16 bytes at a time (LDM/STM when
/// s is 4-aligned too: Aligned), then words, then bytes, so the plane's
/// padding after each row is left as is.
template <bool Aligned>
inline void copy_rows(const dw8_copy& c, const std::int8_t* s, std::int8_t* d) noexcept {
    const std::uint32_t q = c.n >> 4, t = (c.n >> 2) & 3u, b = c.n & 3u;
    const std::ptrdiff_t sgap = c.w - static_cast<std::ptrdiff_t>(c.n & ~3u),
                         dgap = c.stride - static_cast<std::ptrdiff_t>(c.n & ~3u);
    auto* da = static_cast<std::int8_t*>(__builtin_assume_aligned(d, 4));
    if (q == 1 && t == 0 && b == 0) {  // 16- and 32-byte rows: one copy per row
        copy_blocks<16, Aligned>(c, s, da);
        return;
    }
    if (q == 2 && t == 0 && b == 0) {
        copy_blocks<32, Aligned>(c, s, da);
        return;
    }
    if (t == 0 && b == 0) {  // whole 16-byte blocks
        for (std::uint32_t r = c.rows; r != 0; --r, s += sgap, da += dgap)
            for (std::uint32_t i = q; i != 0; --i, s += 16, da += 16) {
                if constexpr (Aligned)
                    std::memcpy(da, __builtin_assume_aligned(s, 4), 16);
                else
                    std::memcpy(da, s, 16);
            }
        return;
    }
    for (std::uint32_t r = c.rows; r != 0; --r, s += sgap, da += dgap) {
        for (std::uint32_t i = q; i != 0; --i, s += 16, da += 16) {
            if constexpr (Aligned)
                std::memcpy(da, __builtin_assume_aligned(s, 4), 16);
            else
                std::memcpy(da, s, 16);
        }
        for (std::uint32_t i = t; i != 0; --i, s += 4, da += 4) std::memcpy(da, s, 4);
        for (std::uint32_t i = 0; i != b; ++i) da[i] = s[i];
    }
}

/// Two adjacent output pixels of a K x K depthwise filter with horizontal
/// stride S at row pointer x (the first pixel's top-left tap in the padded
/// int8 plane; rows ds apart).  Per row, with E = (x0, x2), O = (x1, x3) the
/// SXTB16 unpacking of the word at x (and E1, O1 of the next word for 5x5),
/// and the row's weights as w02 = (w0, w2), w13 = (w1, w3), w4 = (w4, -):
///  3x3 s1: p0 = w02.E + w1 O.lo, p1 = w02.O + w1 E.hi: 1 load, 2 unpacks, 4 MACs;
///  3x3 s2: p0 as s1, p1 = w0 E.hi + w1 O.hi + w2 x4: +1 byte load, 5 MACs;
///  5x5 s1: p0 = w02.E + w13.O + w4 E1.lo, p1 = w02.O + w1 E.hi + w3 E1.lo + w4 O1.lo;
///  5x5 s2: p0 as s1, p1 = w0 E.hi + w2 E1.lo + w1 O.hi + w3 O1.lo + w4 E1.hi.
template <int K, int S>
inline void dw_pair(const std::int8_t* x, std::ptrdiff_t ds, const std::uint32_t* w02,
                    const std::uint32_t* w13, const std::uint32_t* w4, std::int32_t* o) noexcept {
    std::int32_t a0 = 0, a1 = 0;
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 5
#endif
    for (int i = 0; i < K; ++i, x += ds) {
        const std::uint32_t v = load_q7x4(x);
        const std::uint32_t e = sxtb16(v), od = sxtb16_ror8(v);
        if constexpr (K == 3) {
            a0 = smlad(w02[i], e, a0);
            a0 = smlabb(w13[i], od, a0);
            if constexpr (S == 1) {
                a1 = smlad(w02[i], od, a1);
                a1 = smlabt(w13[i], e, a1);
            } else {
                a1 = smlabt(w02[i], e, a1);
                a1 = smlabt(w13[i], od, a1);
                a1 = smlatb(w02[i], static_cast<std::uint32_t>(std::int32_t{x[4]}), a1);
            }
        } else {
            const std::uint32_t v1 = load_q7x4(x + 4);
            const std::uint32_t e1 = sxtb16(v1), o1 = sxtb16_ror8(v1);
            a0 = smlad(w02[i], e, a0);
            a0 = smlad(w13[i], od, a0);
            a0 = smlabb(w4[i], e1, a0);
            if constexpr (S == 1) {
                a1 = smlad(w02[i], od, a1);
                a1 = smlabt(w13[i], e, a1);
                a1 = smlatb(w13[i], e1, a1);
                a1 = smlabb(w4[i], o1, a1);
            } else {
                a1 = smlabt(w02[i], e, a1);
                a1 = smlatb(w02[i], e1, a1);
                a1 = smlabt(w13[i], od, a1);
                a1 = smlatb(w13[i], o1, a1);
                a1 = smlabt(w4[i], e1, a1);
            }
        }
    }
    o[0] = a0;
    o[1] = a1;
}

/// One row of 3x3 taps for two adjacent output pixels (dw_pair's 3x3 lines),
/// the row's middle weight in the low (Top false) or high half of w1.
template <int S, bool Top, bool First = false>
inline void dw3_row(const std::int8_t* x, std::uint32_t w02, std::uint32_t w1, std::int32_t& a0,
                    std::int32_t& a1) noexcept {
    const std::uint32_t v = load_q7x4(x);
    const std::uint32_t e = sxtb16(v), od = sxtb16_ror8(v);
    a0 = First ? smuad(w02, e) : smlad(w02, e, a0);
    a0 = Top ? smlatb(w1, od, a0) : smlabb(w1, od, a0);
    if constexpr (S == 1) {
        a1 = First ? smuad(w02, od) : smlad(w02, od, a1);
        a1 = Top ? smlatt(w1, e, a1) : smlabt(w1, e, a1);
    } else {
        a1 = smlabt(w02, e, a1);
        a1 = Top ? smlatt(w1, od, a1) : smlabt(w1, od, a1);
        a1 = smlatb(w02, static_cast<std::uint32_t>(std::int32_t{x[4]}), a1);
    }
}

/// The two-pixel depthwise path (dw_pairwise) for K x K taps, horizontal
/// stride S: each input channel copied once into a zero-padded int8 plane
/// (dw8_plan, copy_rows), each output row computed two pixels at a time on
/// it (dw_pair; 3x3: the six weight words in five registers, three row
/// pointers).  Sizes and steps are fixed in 32-bit values before the loops.
template <int K, int S>
void conv2d_depthwise_pairs(const conv_geometry& g, const std::int8_t* x, const std::int8_t* f,
                            std::int64_t* scratch, int32_sink_ref sink) noexcept {
    const dw8_copy cp = dw8_plan(g);
    const std::int64_t rows = dw_rows(g), stride = dw8_stride(g);
    auto* xs = reinterpret_cast<std::int8_t*>(scratch);
    auto* acc = reinterpret_cast<std::int32_t*>(scratch + (rows * stride + 7) / 8);
    std::fill(xs, xs + rows * stride, std::int8_t{0});  // the padding, for every channel
    const auto ohs = static_cast<std::uint32_t>(g.oh);
    const auto ows = static_cast<std::ptrdiff_t>(g.ow);
    const auto pairs = static_cast<std::ptrdiff_t>((g.ow + 1) / 2);
    const std::ptrdiff_t xgap = static_cast<std::ptrdiff_t>(g.sh * stride) - 2 * S * pairs,
                         ogap = ows - 2 * pairs;
    const auto rs = static_cast<std::ptrdiff_t>(g.sh * stride),
               ds = static_cast<std::ptrdiff_t>(g.dh * stride);
    std::int8_t* const x0s = xs + dw8_lead(g);
    std::int8_t* const dst = xs + cp.dst;
    const auto in_plane = static_cast<std::ptrdiff_t>(g.h * g.w);
    const auto mult = static_cast<std::ptrdiff_t>(g.oc / g.groups);
    const auto ocs = static_cast<std::ptrdiff_t>(g.oc);
    const bool aligned = g.w % 4 == 0;  // every row 4-aligned when the first is
    const std::int64_t out_plane = g.oh * g.ow;
    std::uint32_t w02[K], w13[K], w4[K];
    for (std::int64_t n = 0; n < g.n; ++n) {
        const std::int8_t* xc = x + n * g.c * g.h * g.w;
        const std::int8_t* fo = f;
        for (std::ptrdiff_t oc = 0, m = 0; oc < ocs; ++oc) {
            if (m == 0) {  // the next input channel
                if (aligned && (reinterpret_cast<std::uintptr_t>(xc) & 3u) == 0)
                    copy_rows<true>(cp, xc, dst);
                else
                    copy_rows<false>(cp, xc, dst);
                xc += in_plane;
            }
            if (++m == mult) m = 0;
            if constexpr (K == 3) {
                const std::uint32_t w0 = pack_q15(fo[0], fo[2]), w1 = pack_q15(fo[3], fo[5]),
                                    w2 = pack_q15(fo[6], fo[8]);
                const std::uint32_t m01 = pack_q15(fo[1], fo[4]), m2 = pack_q15(fo[7], 0);
                fo += 9;
                // The row pointers run on from row to row (xgap, ogap: -1 on
                // odd widths, the extra pixel overwritten by the next row's).
                const std::int8_t* x0 = x0s;
                const std::int8_t* x1 = x0 + ds;
                const std::int8_t* x2 = x1 + ds;
                std::int32_t* o = acc;
                for (std::uint32_t oh = ohs; oh != 0;
                     --oh, x0 += xgap, x1 += xgap, x2 += xgap, o += ogap) {
                    std::int32_t* const oe = o + 2 * pairs;
                    do {
                        std::int32_t a0 = 0, a1 = 0;
                        dw3_row<S, false, true>(x0, w0, m01, a0, a1);
                        dw3_row<S, true>(x1, w1, m01, a0, a1);
                        dw3_row<S, false>(x2, w2, m2, a0, a1);
                        o[0] = a0;
                        o[1] = a1;
                        o += 2, x0 += 2 * S, x1 += 2 * S, x2 += 2 * S;
                    } while (o != oe);
                }
            } else {
                for (int i = 0; i < K; ++i, fo += K) {
                    w02[i] = pack_q15(fo[0], fo[2]);
                    w13[i] = pack_q15(fo[1], fo[3]);
                    w4[i] = pack_q15(fo[4], 0);
                }
                const std::int8_t* xr = x0s;
                std::int32_t* orow = acc;
                for (std::uint32_t oh = ohs; oh != 0; --oh, xr += rs, orow += ows) {
                    const std::int8_t* xp = xr;
                    std::int32_t* o = orow;
                    for (std::ptrdiff_t p = pairs; p != 0; --p, o += 2, xp += 2 * S)
                        dw_pair<K, S>(xp, ds, w02, w13, w4, o);
                }
            }
            sink(n, oc, 0, acc, out_plane);
        }
    }
}

}  // namespace detail

/// Same contract as kernels::conv2d_int8 (same sink calls' values; runs may
/// be cut differently), scratch of conv_int8_scratch_words(g) words.
inline void conv2d_int8(const conv_geometry& g, const std::int8_t* x, const std::int8_t* f,
                        std::int64_t* scratch, int32_sink_ref sink) noexcept {
    if (conv_int8_uses_patches(g)) {
        detail::conv2d_patches(g, x, f, scratch, sink);
    } else if (conv_int8_is_depthwise(g) && detail::dw_pairwise(g)) {
        if (g.kw == 3)
            g.sw == 1 ? detail::conv2d_depthwise_pairs<3, 1>(g, x, f, scratch, sink)
                      : detail::conv2d_depthwise_pairs<3, 2>(g, x, f, scratch, sink);
        else
            g.sw == 1 ? detail::conv2d_depthwise_pairs<5, 1>(g, x, f, scratch, sink)
                      : detail::conv2d_depthwise_pairs<5, 2>(g, x, f, scratch, sink);
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
            // Per row of Y the four values unpacked (SXTB16) and each half
            // multiplied by its x (SMLAxy): no repacking, few live values.
            for (; xk < xe; xk += 2, yk += 2 * ns) {
                const std::uint32_t xp = load_q15x2(xk);
                const std::uint32_t r0 = load_q7x4(yk), r1 = load_q7x4(yk + ns);
                std::uint32_t u = sxtb16(r0);  // Y[k][j], Y[k][j + 2]
                a0 = smlabb(u, xp, a0);
                a2 = smlatb(u, xp, a2);
                u = sxtb16_ror8(r0);  // Y[k][j + 1], Y[k][j + 3]
                a1 = smlabb(u, xp, a1);
                a3 = smlatb(u, xp, a3);
                u = sxtb16(r1);  // row k + 1 times x[k + 1]
                a0 = smlabt(u, xp, a0);
                a2 = smlatt(u, xp, a2);
                u = sxtb16_ror8(r1);
                a1 = smlabt(u, xp, a1);
                a3 = smlatt(u, xp, a3);
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

/// Whether the *_best kernels are the Cortex-M DSP ones: on a target with
/// the DSP extension, unless the build defines
/// LITEGRAPH_CORTEX_M_REFERENCE_KERNELS (to measure the reference kernels on
/// the same firmware: examples/firmware/run.sh --reference-kernels).
#ifdef LITEGRAPH_CORTEX_M_REFERENCE_KERNELS
inline constexpr bool best_is_cortex_m_dsp = false;
#else
inline constexpr bool best_is_cortex_m_dsp = cortex_m::dsp;
#endif

/// The int8 conv the build's best kernels give: the Cortex-M DSP kernels
/// when the target has the DSP extension (Cortex-M4/M7 firmware), else the
/// reference conv2d_int8.  Scratch: conv2d_int8_best_scratch_words(g).
inline constexpr std::int64_t conv2d_int8_best_scratch_words(const conv_geometry& g) noexcept {
    if constexpr (best_is_cortex_m_dsp) return cortex_m::conv_int8_scratch_words(g);
    return conv_int8_scratch_words(g);
}
inline void conv2d_int8_best(const conv_geometry& g, const std::int8_t* x, const std::int8_t* f,
                             std::int64_t* scratch, int32_sink_ref sink) noexcept {
    if constexpr (best_is_cortex_m_dsp)
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
    if constexpr (best_is_cortex_m_dsp)
        cortex_m::fc_int8(m, k, n, x, y, scratch, sink);
    else
        fc_int8(m, k, n, x, y, scratch, sink);
}

}  // namespace litegraph::kernels
