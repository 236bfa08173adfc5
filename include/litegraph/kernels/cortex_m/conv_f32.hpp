// Float convolutions for firmware, heap-free over caller scratch, with the
// filter packed ahead of time (a firmware network packs it when the
// header is generated: pack_conv_filter):
//
//  - ungrouped convs as a blocked GEMM: output channels in blocks of four
//    (the packed filter: block b, then k, then the four channels, zero rows
//    past OC), output pixels in panels of four.  A 1x1 stride-1 unpadded conv
//    reads its panels straight from the input (row k of the panel is channel
//    k at the four pixels); others (and the last, partial panel) gather an
//    im2col panel of K x 4 into scratch.  Each 4 x 4 block is 16
//    accumulators in s0-s15: per k one VLDM of four weights, one of four
//    inputs and 16 VMLA (a multiply then an add, each rounded: no fused
//    multiply-add);
//  - depthwise convs (one input channel per group, any square K, strides,
//    padding): each channel copied into a zero-padded plane in scratch, then
//    per output pixel K x K VMLA over it, the weights in registers.  The
//    channel is read whole before its output plane is written, planes in
//    order, so it also runs in place of its input.
//
// Finished values go to sink(n, oc, offset, values, count) (runs of one
// output plane), the fused conv's epilogue chain.  On a core without the
// FPU instructions the same loops run in C++.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace litegraph::kernels::cortex_m {

/// max(a, b) and min(a, b) of numbers (VMAXNM / VMINNM on FPv5: a NaN
/// operand gives the other one; +0 is above -0).
inline float fmax_num(float a, float b) noexcept {
#if defined(__ARM_FP) && (__ARM_FP & 8) && defined(__thumb2__)
    float r;
    __asm__("vmaxnm.f32 %0, %1, %2" : "=t"(r) : "t"(a), "t"(b));
    return r;
#else
    return a < b ? b : a;
#endif
}
inline float fmin_num(float a, float b) noexcept {
#if defined(__ARM_FP) && (__ARM_FP & 8) && defined(__thumb2__)
    float r;
    __asm__("vminnm.f32 %0, %1, %2" : "=t"(r) : "t"(a), "t"(b));
    return r;
#else
    return b < a ? b : a;
#endif
}

/// The geometry these kernels read: any type with conv_geometry's fields.
template <class G>
constexpr bool conv_f32_is_depthwise(const G& g) {
    return g.groups > 1 && g.groups == g.c && g.oc == g.c && g.kh == g.kw && g.dh == 1 && g.dw == 1;
}
template <class G>
constexpr bool conv_f32_is_gemm(const G& g) {
    return g.groups == 1;
}
/// Whether the fast kernels take this conv (else the caller's row loop).
template <class G>
constexpr bool conv_f32_fast(const G& g) {
    return conv_f32_is_gemm(g) || conv_f32_is_depthwise(g);
}
template <class G>
constexpr bool conv_f32_is_dense_1x1(const G& g) {
    return g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.pt == 0 && g.pb == 0 &&
           g.pl == 0 && g.pr == 0 && g.oh == g.h && g.ow == g.w;
}

/// Floats of the packed filter of a GEMM conv: OC rounded up to 4, times K.
template <class G>
constexpr std::int64_t packed_filter_floats(const G& g) {
    return (g.oc + 3) / 4 * 4 * g.c * g.kh * g.kw;
}

/// The OIHW filter f of an ungrouped conv in the GEMM's order: d[(b K + k)
/// 4 + m] = f[(4 b + m) K + k], zeros past OC.
template <class G>
void pack_conv_filter(const G& g, const float* f, float* d) {
    const std::int64_t k = g.c * g.kh * g.kw, blocks = (g.oc + 3) / 4;
    for (std::int64_t b = 0; b < blocks; ++b)
        for (std::int64_t kk = 0; kk < k; ++kk)
            for (std::int64_t m = 0; m < 4; ++m) {
                const std::int64_t oc = 4 * b + m;
                d[(b * k + kk) * 4 + m] = oc < g.oc ? f[oc * k + kk] : 0.f;
            }
}

namespace detail {
template <class G>
constexpr std::int64_t dwf_rows(const G& g) {
    return (g.oh - 1) * g.sh + g.kh;
}
template <class G>
constexpr std::int64_t dwf_cols(const G& g) {
    return (g.ow - 1) * g.sw + g.kw;
}
}  // namespace detail

/// Bytes of scratch conv_f32 needs: the GEMM's im2col panel (K x 4 floats)
/// and its 16 accumulators; the depthwise conv's padded plane and one row.
template <class G>
constexpr std::size_t conv_f32_scratch_bytes(const G& g) {
    if (conv_f32_is_gemm(g))
        return static_cast<std::size_t>(4 * g.c * g.kh * g.kw + 16) * sizeof(float);
    if (conv_f32_is_depthwise(g))
        return static_cast<std::size_t>(detail::dwf_rows(g) * detail::dwf_cols(g) + g.ow) *
               sizeof(float);
    return 0;
}

namespace detail {

/// acc[4 m + p] = sum over k of a[4 k + m] * b[k * bs + p] (bs in floats), k >= 1.
inline void block_4x4(const float* a, const float* b, std::ptrdiff_t bs, std::int64_t k,
                      float* acc) noexcept {
#if defined(__ARM_FP) && defined(__thumb2__)
    auto kk = static_cast<std::uint32_t>(k);
    const auto step = static_cast<std::uint32_t>(bs * 4);
    __asm__ volatile(
        "vldmia %[a]!, {s16-s19}\n\t"
        "vldmia %[b], {s20-s23}\n\t"
        "add %[b], %[b], %[s]\n\t"
        "vmul.f32 s0, s16, s20\n\t"
        "vmul.f32 s1, s16, s21\n\t"
        "vmul.f32 s2, s16, s22\n\t"
        "vmul.f32 s3, s16, s23\n\t"
        "vmul.f32 s4, s17, s20\n\t"
        "vmul.f32 s5, s17, s21\n\t"
        "vmul.f32 s6, s17, s22\n\t"
        "vmul.f32 s7, s17, s23\n\t"
        "vmul.f32 s8, s18, s20\n\t"
        "vmul.f32 s9, s18, s21\n\t"
        "vmul.f32 s10, s18, s22\n\t"
        "vmul.f32 s11, s18, s23\n\t"
        "vmul.f32 s12, s19, s20\n\t"
        "vmul.f32 s13, s19, s21\n\t"
        "vmul.f32 s14, s19, s22\n\t"
        "vmul.f32 s15, s19, s23\n\t"
        "subs %[k], %[k], #1\n\t"
        "beq 2f\n"
        "1:\n\t"
        "vldmia %[a]!, {s16-s19}\n\t"
        "vldmia %[b], {s20-s23}\n\t"
        "add %[b], %[b], %[s]\n\t"
        "vmla.f32 s0, s16, s20\n\t"
        "vmla.f32 s1, s16, s21\n\t"
        "vmla.f32 s2, s16, s22\n\t"
        "vmla.f32 s3, s16, s23\n\t"
        "vmla.f32 s4, s17, s20\n\t"
        "vmla.f32 s5, s17, s21\n\t"
        "vmla.f32 s6, s17, s22\n\t"
        "vmla.f32 s7, s17, s23\n\t"
        "vmla.f32 s8, s18, s20\n\t"
        "vmla.f32 s9, s18, s21\n\t"
        "vmla.f32 s10, s18, s22\n\t"
        "vmla.f32 s11, s18, s23\n\t"
        "vmla.f32 s12, s19, s20\n\t"
        "vmla.f32 s13, s19, s21\n\t"
        "vmla.f32 s14, s19, s22\n\t"
        "vmla.f32 s15, s19, s23\n\t"
        "subs %[k], %[k], #1\n\t"
        "bne 1b\n"
        "2:\n\t"
        "vstmia %[c], {s0-s15}\n\t"
        : [a] "+r"(a), [b] "+r"(b), [k] "+r"(kk)
        : [s] "r"(step), [c] "r"(acc)
        : "cc", "memory", "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11",
          "s12", "s13", "s14", "s15", "s16", "s17", "s18", "s19", "s20", "s21", "s22", "s23");
#else
    float c[16];
    for (int m = 0; m < 4; ++m)
        for (int p = 0; p < 4; ++p) c[4 * m + p] = a[m] * b[p];
    for (std::int64_t i = 1; i < k; ++i) {
        a += 4, b += bs;
        for (int m = 0; m < 4; ++m)
            for (int p = 0; p < 4; ++p) c[4 * m + p] += a[m] * b[p];
    }
    std::memcpy(acc, c, sizeof c);
#endif
}

/// acc + a * b, rounded after the multiply and after the add (VMLA).
inline float mla(float acc, float a, float b) noexcept {
#if defined(__ARM_FP) && defined(__thumb2__)
    __asm__("vmla.f32 %0, %1, %2" : "+t"(acc) : "t"(a), "t"(b));
    return acc;
#else
    const float p = a * b;
    return acc + p;
#endif
}

/// The im2col panel of output pixels p0 .. p0 + np - 1 (np <= 4) of image xn:
/// d[4 k + q] = input of row k (c, i, j) at pixel p0 + q, zeros outside the
/// image and past np.
template <class G>
void im2col_panel(const G& g, const float* xn, std::int64_t p0, std::int64_t np, float* d) {
    if (np == 4 && p0 % g.ow + 3 < g.ow) {  // four pixels of one output row
        const auto h = static_cast<std::ptrdiff_t>(g.h), w = static_cast<std::ptrdiff_t>(g.w);
        const auto kh = static_cast<std::ptrdiff_t>(g.kh), kw = static_cast<std::ptrdiff_t>(g.kw);
        const auto dh = static_cast<std::ptrdiff_t>(g.dh), dw = static_cast<std::ptrdiff_t>(g.dw);
        const auto sw = static_cast<std::ptrdiff_t>(g.sw), cs = static_cast<std::ptrdiff_t>(g.c);
        const auto ih0 = static_cast<std::ptrdiff_t>((p0 / g.ow) * g.sh - g.pt);
        const auto iw0 = static_cast<std::ptrdiff_t>((p0 % g.ow) * g.sw - g.pl);
        for (std::ptrdiff_t c = 0; c < cs; ++c) {
            const float* xc = xn + c * h * w;
            for (std::ptrdiff_t i = 0; i < kh; ++i) {
                const std::ptrdiff_t ih = ih0 + i * dh;
                if (ih < 0 || ih >= h) {
                    for (std::ptrdiff_t j = 0; j < 4 * kw; ++j) d[j] = 0.f;
                    d += 4 * kw;
                    continue;
                }
                const float* xr = xc + ih * w;
                for (std::ptrdiff_t j = 0; j < kw; ++j, d += 4) {
                    const std::ptrdiff_t iw = iw0 + j * dw;
                    if (iw >= 0 && iw + 3 * sw < w) {
                        const float* x = xr + iw;
                        d[0] = x[0], d[1] = x[sw], d[2] = x[2 * sw], d[3] = x[3 * sw];
                    } else {
                        for (std::ptrdiff_t q = 0; q < 4; ++q) {
                            const std::ptrdiff_t iq = iw + q * sw;
                            d[q] = iq >= 0 && iq < w ? xr[iq] : 0.f;
                        }
                    }
                }
            }
        }
        return;
    }
    std::ptrdiff_t ih0[4], iw0[4];
    bool live[4];
    for (std::int64_t q = 0; q < 4; ++q) {
        const std::int64_t p = p0 + q;
        live[q] = q < np;
        ih0[q] = live[q] ? static_cast<std::ptrdiff_t>((p / g.ow) * g.sh - g.pt) : 0;
        iw0[q] = live[q] ? static_cast<std::ptrdiff_t>((p % g.ow) * g.sw - g.pl) : 0;
    }
    const auto h = static_cast<std::ptrdiff_t>(g.h), w = static_cast<std::ptrdiff_t>(g.w);
    const auto kh = static_cast<std::ptrdiff_t>(g.kh), kw = static_cast<std::ptrdiff_t>(g.kw);
    const auto dh = static_cast<std::ptrdiff_t>(g.dh), dw = static_cast<std::ptrdiff_t>(g.dw);
    const auto cs = static_cast<std::ptrdiff_t>(g.c);
    for (std::ptrdiff_t c = 0; c < cs; ++c) {
        const float* xc = xn + c * h * w;
        for (std::ptrdiff_t i = 0; i < kh; ++i)
            for (std::ptrdiff_t j = 0; j < kw; ++j, d += 4)
                for (int q = 0; q < 4; ++q) {
                    const std::ptrdiff_t ih = ih0[q] + i * dh, iw = iw0[q] + j * dw;
                    d[q] =
                        live[q] && ih >= 0 && ih < h && iw >= 0 && iw < w ? xc[ih * w + iw] : 0.f;
                }
    }
}

}  // namespace detail

/// The ungrouped conv as a blocked GEMM (conv_f32_is_gemm): x NCHW, fp the
/// packed filter (pack_conv_filter), sink(n, oc, offset, values, count).
template <class G, class Sink>
void conv_f32_gemm(const G& g, const float* x, const float* fp, void* scratch, Sink&& sink) {
    const std::int64_t k = g.c * g.kh * g.kw, plane = g.oh * g.ow, in_plane = g.h * g.w;
    const std::int64_t blocks = (g.oc + 3) / 4;
    const bool dense = conv_f32_is_dense_1x1(g);
    auto* panel = static_cast<float*>(scratch);
    float* acc = panel + 4 * k;
    for (std::int64_t n = 0; n < g.n; ++n) {
        const float* xn = x + n * g.c * in_plane;
        for (std::int64_t p0 = 0; p0 < plane; p0 += 4) {
            const std::int64_t np = std::min<std::int64_t>(4, plane - p0);
            const float* b = panel;
            std::ptrdiff_t bs = 4;
            if (dense && np == 4) {
                b = xn + p0;
                bs = static_cast<std::ptrdiff_t>(in_plane);
            } else {
                detail::im2col_panel(g, xn, p0, np, panel);
            }
            for (std::int64_t bl = 0; bl < blocks; ++bl) {
                detail::block_4x4(fp + bl * k * 4, b, bs, k, acc);
                const std::int64_t mc = std::min<std::int64_t>(4, g.oc - 4 * bl);
                for (std::int64_t m = 0; m < mc; ++m)
                    sink(n, 4 * bl + m, p0, static_cast<const float*>(acc + 4 * m), np);
            }
        }
    }
}

namespace detail {
/// One output row of a K x K depthwise filter with column stride S, two
/// outputs at a time: each input value of their window (K + S columns per
/// row) loaded once and used by both, the weights in registers.
template <int K, int S>
void dw_row_pairs(const float* xr, std::ptrdiff_t ds, const float (&wk)[K * K], float* o,
                  std::ptrdiff_t ow) {
    float w[K * K];
    for (int t = 0; t < K * K; ++t) w[t] = wk[t];
    std::ptrdiff_t q = 0;
    for (; q + 2 <= ow; q += 2, xr += 2 * S) {
        float a0 = 0.f, a1 = 0.f;
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 5
#endif
        for (int i = 0; i < K; ++i) {
            const float* x = xr + i * ds;
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 7
#endif
            for (int c = 0; c < K + S; ++c) {
                const float v = x[c];
                if (c < K) a0 = (i == 0 && c == 0) ? v * w[0] : mla(a0, v, w[i * K + c]);
                if (c >= S) a1 = (i == 0 && c == S) ? v * w[0] : mla(a1, v, w[i * K + c - S]);
            }
        }
        o[q] = a0;
        o[q + 1] = a1;
    }
    if (q < ow) {
        float a = xr[0] * w[0];
        for (int j = 1; j < K; ++j) a = mla(a, xr[j], w[j]);
        for (int i = 1; i < K; ++i)
            for (int j = 0; j < K; ++j) a = mla(a, xr[i * ds + j], w[i * K + j]);
        o[q] = a;
    }
}

/// A column of three taps (rows 0, 1, 2 of the window).
struct col3 {
    float r0, r1, r2;
};
/// One 3x3 output from columns a, b, c of its window and the weights w.
inline float dw3_out(const col3& a, const col3& b, const col3& c, const float* w) noexcept {
    float v = a.r0 * w[0];
    v = mla(v, b.r0, w[1]);
    v = mla(v, c.r0, w[2]);
    v = mla(v, a.r1, w[3]);
    v = mla(v, b.r1, w[4]);
    v = mla(v, c.r1, w[5]);
    v = mla(v, a.r2, w[6]);
    v = mla(v, b.r2, w[7]);
    return mla(v, c.r2, w[8]);
}
/// One output row of a 3x3 depthwise filter, the window sliding in
/// registers: stride 1 loads one new column (three values) per output,
/// stride 2 two; the columns rotate by unrolling, never by moves.
template <int S>
void dw3_row(const float* x0, std::ptrdiff_t ds, const float (&wk)[9], float* o,
             std::ptrdiff_t ow) {
    float w[9];
    for (int t = 0; t < 9; ++t) w[t] = wk[t];
    const float* x1 = x0 + ds;
    const float* x2 = x1 + ds;
    auto load = [&](col3& c) {
        c.r0 = *x0++;
        c.r1 = *x1++;
        c.r2 = *x2++;
    };
    col3 a, b, c;
    float* const oe = o + ow;
    if constexpr (S == 1) {
        load(a);
        load(b);
        for (;;) {
            load(c);
            *o++ = dw3_out(a, b, c, w);
            if (o == oe) break;
            load(a);
            *o++ = dw3_out(b, c, a, w);
            if (o == oe) break;
            load(b);
            *o++ = dw3_out(c, a, b, w);
            if (o == oe) break;
        }
    } else {
        load(a);
        for (;;) {
            load(b);
            load(c);
            *o++ = dw3_out(a, b, c, w);
            if (o == oe) break;
            load(b);
            load(a);
            *o++ = dw3_out(c, b, a, w);
            if (o == oe) break;
        }
    }
}
/// The same for any K and stride.
inline void dwf_row_any(const float* xr, std::ptrdiff_t ds, const float* w, std::ptrdiff_t k,
                        std::ptrdiff_t s, float* o, std::ptrdiff_t ow) {
    for (std::ptrdiff_t q = 0; q < ow; ++q, xr += s) {
        float a = xr[0] * w[0];
        for (std::ptrdiff_t j = 1; j < k; ++j) a = mla(a, xr[j], w[j]);
        for (std::ptrdiff_t i = 1; i < k; ++i)
            for (std::ptrdiff_t j = 0; j < k; ++j) a = mla(a, xr[i * ds + j], w[i * k + j]);
        o[q] = a;
    }
}
}  // namespace detail

/// The depthwise conv (conv_f32_is_depthwise): x NCHW, f [C, 1, K, K], each
/// output row to sink(n, c, oh * OW, row, OW).  out may be x (see above).
template <class G, class Sink>
void conv_f32_depthwise(const G& g, const float* x, const float* f, void* scratch, Sink&& sink) {
    const std::int64_t rows = detail::dwf_rows(g), cols = detail::dwf_cols(g);
    auto* xs = static_cast<float*>(scratch);
    float* row = xs + rows * cols;
    const std::int64_t kk = g.kh * g.kw, in_plane = g.h * g.w;
    // The rows and columns of the padded plane that hold input.
    const std::int64_t r0 = std::min(g.pt, rows), r1 = std::min(rows, g.pt + g.h);
    const std::int64_t c0 = std::min(g.pl, cols), c1 = std::min(cols, g.pl + g.w);
    const auto ds = static_cast<std::ptrdiff_t>(cols), ows = static_cast<std::ptrdiff_t>(g.ow);
    std::fill(xs, xs + rows * cols, 0.f);
    for (std::int64_t n = 0; n < g.n; ++n)
        for (std::int64_t c = 0; c < g.c; ++c) {
            const float* xc = x + (n * g.c + c) * in_plane;
            // A word loop, four at a time (a library memcpy of a runtime size
            // may go byte by byte: newlib's small one does).
            const auto span = static_cast<std::uint32_t>(c1 - c0);
            for (std::int64_t r = r0; r < r1; ++r) {
                const float* __restrict src = xc + (r - g.pt) * g.w + (c0 - g.pl);
                float* __restrict dst = xs + r * cols + c0;
                for (std::uint32_t q = span / 4; q != 0; --q, src += 4, dst += 4) {
                    const float v0 = src[0], v1 = src[1], v2 = src[2], v3 = src[3];
                    dst[0] = v0, dst[1] = v1, dst[2] = v2, dst[3] = v3;
                }
                for (std::uint32_t q = span % 4; q != 0; --q) *dst++ = *src++;
            }
            const float* fc = f + c * kk;
            for (std::int64_t oh = 0; oh < g.oh; ++oh) {
                const float* xr = xs + oh * g.sh * cols;
                if (g.kh == 3 && g.sw == 1)
                    detail::dw3_row<1>(xr, ds, *reinterpret_cast<const float(*)[9]>(fc), row, ows);
                else if (g.kh == 3 && g.sw == 2)
                    detail::dw3_row<2>(xr, ds, *reinterpret_cast<const float(*)[9]>(fc), row, ows);
                else if (g.kh == 5 && g.sw == 1)
                    detail::dw_row_pairs<5, 1>(xr, ds, *reinterpret_cast<const float(*)[25]>(fc),
                                               row, ows);
                else if (g.kh == 5 && g.sw == 2)
                    detail::dw_row_pairs<5, 2>(xr, ds, *reinterpret_cast<const float(*)[25]>(fc),
                                               row, ows);
                else
                    detail::dwf_row_any(xr, ds, fc, static_cast<std::ptrdiff_t>(g.kh),
                                        static_cast<std::ptrdiff_t>(g.sw), row, ows);
                sink(n, c, oh * g.ow, static_cast<const float*>(row), g.ow);
            }
            // Padding cells stay zero: only interior cells are rewritten per channel.
        }
}

}  // namespace litegraph::kernels::cortex_m
