// 2-D pooling on raw NCHW arrays (float32 and int8), heap-free over caller
// scratch: Paddle's window rules (ops/pool2d.hpp says what surprises), the
// windows computed once per output row and column.  ops::pool2d and
// ops::pool2d_int8 run these; so do firmware networks.
#pragma once

#include <algorithm>
#include <cfloat>
#include <cstddef>
#include <cstdint>
#include <tuple>

#include "litegraph/kernels/epilogue.hpp"
#include "litegraph/kernels/simd.hpp"

namespace litegraph::kernels {

/// Where one pooling runs: input [n, c, h, w], window kh x kw, strides,
/// pads (the loops use the top/left ones), output oh x ow.
struct pool_geometry {
    std::int64_t n, c, h, w;
    std::int64_t kh, kw, sh, sw;
    std::int64_t pt, pl;  // the kernel uses the top/left pads only
    std::int64_t pb, pr;
    std::int64_t oh, ow;  // -1 when an input dim is unknown
    constexpr auto fields() const {
        return std::tie(n, c, h, w, kh, kw, sh, sw, pt, pl, pb, pr, oh, ow);
    }
};

/// A window along one axis: input [lo, hi) and the divisor's extent along it.
struct pool_span {
    std::int64_t lo, hi, extent;
};

/// Max or average, and how an average divides (a literal type, for firmware).
struct pool_mode {
    bool max = true;
    bool exclusive = true;
    bool adaptive = false;
    constexpr auto fields() const { return std::tie(max, exclusive, adaptive); }
};

constexpr pool_span pool_span_of(const pool_mode& p, std::int64_t o, std::int64_t out,
                                 std::int64_t in, std::int64_t k, std::int64_t s,
                                 std::int64_t pad) {
    if (p.adaptive) {
        const std::int64_t lo = o * in / out, hi = ((o + 1) * in + out - 1) / out;
        return {lo, hi, hi - lo};
    }
    std::int64_t lo = o * s - pad;
    std::int64_t hi = std::min(lo + k, in + pad);
    const std::int64_t padded = hi - lo;
    lo = std::max<std::int64_t>(lo, 0);
    hi = std::min(hi, in);
    return {lo, hi, p.exclusive ? hi - lo : padded};
}

/// Bytes of scratch the loops need: one span per output row and column.
constexpr std::size_t pool_scratch_bytes(const pool_geometry& g) {
    return static_cast<std::size_t>(g.oh + g.ow) * sizeof(pool_span);
}

namespace pool_detail {
inline void spans(const pool_mode& p, const pool_geometry& g, pool_span* scratch) {
    pool_span* rows = scratch;
    pool_span* cols = scratch + g.oh;
    for (std::int64_t o = 0; o < g.oh; ++o)
        rows[o] = pool_span_of(p, o, g.oh, g.h, g.kh, g.sh, g.pt);
    for (std::int64_t o = 0; o < g.ow; ++o)
        cols[o] = pool_span_of(p, o, g.ow, g.w, g.kw, g.sw, g.pl);
}

/// sum / count rounded half away from zero (count > 0).
constexpr std::int32_t div_round(std::int32_t sum, std::int32_t count) noexcept {
    return sum >= 0 ? (2 * sum + count) / (2 * count) : -((-2 * sum + count) / (2 * count));
}
}  // namespace pool_detail

namespace pool_detail {
/// The sum of n contiguous floats in order, one running sum: the order of
/// the element loop, which runtime/patches.hpp's banded global pool
/// (patched_stage_instance::accumulate) repeats to stay bit-exact.
inline float sum_contiguous(const float* x, std::int64_t n) {
    float s = 0.f;
    for (std::int64_t i = 0; i < n; ++i) s += x[i];
    return s;
}
}  // namespace pool_detail

#if !defined(LITEGRAPH_SCALAR_SIMD)
namespace pool_detail {
/// y[k] = (sum of x[k * plane + i], i in [0, n), in order) / div for
/// k < 4 * G, in 4-float vectors: four elements of each of four planes
/// transposed so that lane k of vector g adds plane 4g + k's elements one by
/// one, as sum_contiguous does (the same sums, bit for bit).  G vectors keep
/// G addition chains in flight: a plane's sum is one chain, so only more
/// planes at once go faster.
template <int G>
inline void sum_planes4(const float* x, std::int64_t plane, std::int64_t n, float div, float* y) {
    using V = simd::vfloat;
    using D = xsimd::batch<double, simd::default_arch>;
    static_assert(V::size == 4);
    const auto lo = [](V a, V b) {
        return xsimd::bitwise_cast<V>(
            xsimd::zip_lo(xsimd::bitwise_cast<D>(a), xsimd::bitwise_cast<D>(b)));
    };
    const auto hi = [](V a, V b) {
        return xsimd::bitwise_cast<V>(
            xsimd::zip_hi(xsimd::bitwise_cast<D>(a), xsimd::bitwise_cast<D>(b)));
    };
    V acc[G];
    for (int g = 0; g < G; ++g) acc[g] = V(0.f);
    std::int64_t i = 0;
    for (; i + 4 <= n; i += 4)
        for (int g = 0; g < G; ++g) {
            const float* p = x + 4 * g * plane + i;
            const V r0 = V::load_unaligned(p), r1 = V::load_unaligned(p + plane);
            const V r2 = V::load_unaligned(p + 2 * plane), r3 = V::load_unaligned(p + 3 * plane);
            const V t0 = xsimd::zip_lo(r0, r1), t1 = xsimd::zip_hi(r0, r1);
            const V t2 = xsimd::zip_lo(r2, r3), t3 = xsimd::zip_hi(r2, r3);
            acc[g] = acc[g] + lo(t0, t2);  // element i of the four planes
            acc[g] = acc[g] + hi(t0, t2);  // element i + 1
            acc[g] = acc[g] + lo(t1, t3);
            acc[g] = acc[g] + hi(t1, t3);
        }
    float s[4 * G];
    for (int g = 0; g < G; ++g) acc[g].store_unaligned(s + 4 * g);
    for (; i < n; ++i)
        for (int k = 0; k < 4 * G; ++k) s[k] += x[k * plane + i];
    for (int k = 0; k < 4 * G; ++k) y[k] = s[k] / div;
}
}  // namespace pool_detail
#endif

namespace pool_detail {
/// y[o] = max(y[o], x[o * S]) (Paddle's MaxPool comparison) or y[o] += x[o * S]
/// for o in [lo, hi); S a constant the compiler vectorises for, else `sw`.
template <bool Max, std::int64_t S>
inline void window_column(float* y, const float* x, std::int64_t lo, std::int64_t hi,
                          std::int64_t sw) {
    const std::int64_t step = S > 0 ? S : sw;
    for (std::int64_t o = lo; o < hi; ++o) {
        const float v = x[o * step];
        if constexpr (Max)
            y[o] = y[o] > v ? y[o] : v;
        else
            y[o] += v;
    }
}

/// One output row of a fixed-window pooling: for each input row of the
/// window and each window column in order, the whole row of outputs at once,
/// so every output element sees its window's values in the order of the
/// element-wise loop (input row, then column): the same result.
template <bool Max>
inline void window_row(const pool_geometry& g, const float* xp, float* yrow, const pool_span& r) {
    std::fill(yrow, yrow + g.ow, Max ? -FLT_MAX : 0.f);
    for (std::int64_t ih = r.lo; ih < r.hi; ++ih) {
        const float* xrow = xp + ih * g.w;
        for (std::int64_t j = 0; j < g.kw; ++j) {
            const std::int64_t off = j - g.pl;  // iw = ow * sw + off, in [0, w)
            const std::int64_t lo = off >= 0 ? 0 : (-off + g.sw - 1) / g.sw;
            const std::int64_t hi = std::min(g.ow, off > g.w - 1 ? 0 : (g.w - 1 - off) / g.sw + 1);
            if (lo >= hi) continue;
            if (g.sw == 1)
                window_column<Max, 1>(yrow, xrow + off, lo, hi, 1);
            else if (g.sw == 2)
                window_column<Max, 2>(yrow, xrow + off, lo, hi, 2);
            else
                window_column<Max, 0>(yrow, xrow + off, lo, hi, g.sw);
        }
    }
}

/// int8 max pooling of fixed windows with horizontal stride 1 or 2 (the
/// columns' windows follow kw, sw and the left pad), in unsigned bytes
/// biased by 0x80 (max of q ^ 0x80 is max of q, and unsigned byte max is in
/// every x86 vector set): per output row the column maxima of its input
/// rows on a zero (= -128) padded row, for stride 2 split into its even and
/// odd columns, then each window column's contiguous run; loops the
/// compiler vectorises.  A window over padding only gives -128, as the
/// element loop.  Needs pl + w and (ow - 1) * sw + kw at most 256.
inline void max_rows_int8(const pool_geometry& g, const std::int8_t* x, std::int8_t* y,
                          const pool_span* rows) noexcept {
    constexpr std::int64_t span = 256;
    std::uint8_t cm[span + 2];  // padded column maxima (one slack byte per parity)
    std::uint8_t de[span + 2];  // stride 2: even columns, then odd; stride 1: the output row
    const std::int64_t wp = std::max(g.pl + g.w, (g.ow - 1) * g.sw + g.kw);
    const std::int64_t half = (wp + 1) / 2;
    for (std::int64_t pc = 0; pc < g.n * g.c; ++pc) {
        const std::int8_t* xp = x + pc * g.h * g.w;
        std::int8_t* yp = y + pc * g.oh * g.ow;
        for (std::int64_t oh = 0; oh < g.oh; ++oh) {
            const auto r = rows[oh];
            std::fill(cm, cm + 2 * half, std::uint8_t{0});
            std::uint8_t* c = cm + g.pl;
            for (std::int64_t ih = r.lo; ih < r.hi; ++ih) {
                const std::int8_t* xr = xp + ih * g.w;
                for (std::int64_t iw = 0; iw < g.w; ++iw) {
                    const auto u =
                        static_cast<std::uint8_t>(static_cast<std::uint8_t>(xr[iw]) ^ 0x80u);
                    c[iw] = u > c[iw] ? u : c[iw];
                }
            }
            std::uint8_t* o = g.sw == 1 ? de : cm;  // stride 2: cm is free once split
            if (g.sw == 1) {
                std::copy(cm, cm + g.ow, o);
                for (std::int64_t j = 1; j < g.kw; ++j) {
                    const std::uint8_t* s = cm + j;
                    for (std::int64_t ow = 0; ow < g.ow; ++ow)
                        o[ow] = s[ow] > o[ow] ? s[ow] : o[ow];
                }
            } else {
                std::uint8_t* ev = de;
                std::uint8_t* od = de + half;
                for (std::int64_t i = 0; i < half; ++i) ev[i] = cm[2 * i], od[i] = cm[2 * i + 1];
                std::copy(ev, ev + g.ow, o);
                for (std::int64_t j = 1; j < g.kw; ++j) {
                    const std::uint8_t* s = (j & 1 ? od : ev) + j / 2;
                    for (std::int64_t ow = 0; ow < g.ow; ++ow)
                        o[ow] = s[ow] > o[ow] ? s[ow] : o[ow];
                }
            }
            std::int8_t* yr = yp + oh * g.ow;
            for (std::int64_t ow = 0; ow < g.ow; ++ow)
                yr[ow] = static_cast<std::int8_t>(static_cast<std::uint8_t>(o[ow] ^ 0x80u));
        }
    }
}
}  // namespace pool_detail

/// float32 pooling of planes [p0, p1) (of n * c), with the spans that
/// pool_detail::spans wrote to `spans` (rows, then columns).  Each plane is
/// pooled on its own, so any split of the planes gives the same output.
inline void pool2d_planes(const pool_mode& p, const pool_geometry& g, const float* x, float* y,
                          const pool_span* spans, std::int64_t p0, std::int64_t p1) {
    const pool_span* rows = spans;
    const pool_span* cols = spans + g.oh;
    // Windows of whole rows (global pools): one contiguous run per output.
    const bool whole_rows = !p.max && g.ow == 1 && cols[0].lo == 0 && cols[0].hi == g.w;
    if (whole_rows && g.oh == 1) {  // global averages: eight planes' running sums at once
        const std::int64_t n = (rows[0].hi - rows[0].lo) * g.w, plane = g.h * g.w;
        const float div = static_cast<float>(rows[0].extent * cols[0].extent);
        std::int64_t pc = p0;
#if !defined(LITEGRAPH_SCALAR_SIMD)
        if constexpr (simd::width == 4)  // sixteen planes' sums in the lanes of four vectors
            for (; pc + 16 <= p1; pc += 16)
                pool_detail::sum_planes4<4>(x + pc * plane + rows[0].lo * g.w, plane, n, div,
                                            y + pc);
#endif
        for (; pc + 8 <= p1; pc += 8) {
            const float* xp = x + pc * plane + rows[0].lo * g.w;
            float acc[8] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
            for (std::int64_t i = 0; i < n; ++i)
                for (int k = 0; k < 8; ++k) acc[k] += xp[k * plane + i];
            for (int k = 0; k < 8; ++k) y[pc + k] = acc[k] / div;
        }
        for (; pc < p1; ++pc)
            y[pc] = pool_detail::sum_contiguous(x + pc * plane + rows[0].lo * g.w, n) / div;
        return;
    }
    for (std::int64_t pc = p0; pc < p1; ++pc) {
        const float* xp = x + pc * g.h * g.w;
        float* yp = y + pc * g.oh * g.ow;
        for (std::int64_t oh = 0; oh < g.oh; ++oh) {
            const auto r = rows[oh];
            float* yrow = yp + oh * g.ow;
            if (whole_rows) {
                const float sum = pool_detail::sum_contiguous(xp + r.lo * g.w, (r.hi - r.lo) * g.w);
                yrow[0] = sum / static_cast<float>(r.extent * cols[0].extent);
                continue;
            }
            if (!p.adaptive) {  // the columns' windows follow kw, sw and the left pad
                if (p.max) {
                    pool_detail::window_row<true>(g, xp, yrow, r);
                } else {
                    pool_detail::window_row<false>(g, xp, yrow, r);
                    for (std::int64_t ow = 0; ow < g.ow; ++ow)
                        yrow[ow] = yrow[ow] / static_cast<float>(r.extent * cols[ow].extent);
                }
                continue;
            }
            for (std::int64_t ow = 0; ow < g.ow; ++ow) {
                const auto c = cols[ow];
                if (p.max) {
                    float m = -FLT_MAX;
                    for (std::int64_t ih = r.lo; ih < r.hi; ++ih)
                        for (std::int64_t iw = c.lo; iw < c.hi; ++iw) {
                            const float v = xp[ih * g.w + iw];
                            m = m > v ? m : v;  // Paddle's MaxPool: NaN propagates
                        }
                    yrow[ow] = m;
                } else {
                    float sum = 0.f;
                    for (std::int64_t ih = r.lo; ih < r.hi; ++ih)
                        for (std::int64_t iw = c.lo; iw < c.hi; ++iw) sum += xp[ih * g.w + iw];
                    yrow[ow] = sum / static_cast<float>(r.extent * c.extent);
                }
            }
        }
    }
}

/// float32 pooling; `scratch` holds pool_scratch_bytes(g) bytes.
inline void pool2d(const pool_mode& p, const pool_geometry& g, const float* x, float* y,
                   pool_span* scratch) {
    pool_detail::spans(p, g, scratch);
    pool2d_planes(p, g, x, y, scratch, 0, g.n * g.c);
}

/// int8 pooling, the output in the input's step (or, with ratio > 0, in a
/// step `ratio` times smaller: requantized in one rounding): max takes the largest q,
/// average sums in int32 and divides rounding half away from zero.  Max on
/// rows of at most 256 bytes is separable (column maxima of the window's
/// rows on a stack row, then the windows along it): the element loop's bytes.
inline void pool2d_int8(const pool_mode& p, const pool_geometry& g, const std::int8_t* x,
                        std::int8_t* y, pool_span* scratch, float ratio = 0.f) noexcept {
    pool_detail::spans(p, g, scratch);
    const pool_span* rows = scratch;
    const pool_span* cols = scratch + g.oh;
    constexpr std::int64_t row_max = 256;  // bytes of stack (firmware too)
    if (p.max && !(ratio > 0.f) && !p.adaptive && (g.sw == 1 || g.sw == 2) &&
        std::max(g.pl + g.w, (g.ow - 1) * g.sw + g.kw) <= row_max) {
        pool_detail::max_rows_int8(g, x, y, rows);
        return;
    }
    if (p.max && !(ratio > 0.f) && g.w <= row_max) {
        // Max, separable: the column maxima of an output row's input rows
        // (a loop the compiler vectorises), then each window's maximum of
        // those; the same bytes as the loop below.
        std::int8_t colmax[row_max];
        for (std::int64_t pc = 0; pc < g.n * g.c; ++pc) {
            const std::int8_t* xp = x + pc * g.h * g.w;
            std::int8_t* yp = y + pc * g.oh * g.ow;
            for (std::int64_t oh = 0; oh < g.oh; ++oh) {
                const auto r = rows[oh];
                for (std::int64_t iw = 0; iw < g.w; ++iw) colmax[iw] = -128;
                for (std::int64_t ih = r.lo; ih < r.hi; ++ih) {
                    const std::int8_t* xr = xp + ih * g.w;
                    for (std::int64_t iw = 0; iw < g.w; ++iw)
                        colmax[iw] = xr[iw] > colmax[iw] ? xr[iw] : colmax[iw];
                }
                for (std::int64_t ow = 0; ow < g.ow; ++ow) {
                    const auto c = cols[ow];
                    std::int8_t m = -128;
                    for (std::int64_t iw = c.lo; iw < c.hi; ++iw)
                        m = colmax[iw] > m ? colmax[iw] : m;
                    yp[oh * g.ow + ow] = m;
                }
            }
        }
        return;
    }
    for (std::int64_t pc = 0; pc < g.n * g.c; ++pc) {
        const std::int8_t* xp = x + pc * g.h * g.w;
        std::int8_t* yp = y + pc * g.oh * g.ow;
        for (std::int64_t oh = 0; oh < g.oh; ++oh) {
            const auto r = rows[oh];
            for (std::int64_t ow = 0; ow < g.ow; ++ow) {
                const auto c = cols[ow];
                std::int32_t m = p.max ? -128 : 0;
                for (std::int64_t ih = r.lo; ih < r.hi; ++ih)
                    for (std::int64_t iw = c.lo; iw < c.hi; ++iw) {
                        const std::int32_t v = xp[ih * g.w + iw];
                        m = p.max ? (v > m ? v : m) : m + v;
                    }
                const auto count = static_cast<std::int32_t>(r.extent * c.extent);
                if (ratio > 0.f) {
                    // Requantized: sat8(round(m * ratio [/ count])), ratio =
                    // input step / output step.
                    const float k =
                        p.max ? ratio : (count > 0 ? ratio / static_cast<float>(count) : 0.f);
                    yp[oh * g.ow + ow] = epilogue::saturate_int8(static_cast<float>(m) * k);
                    continue;
                }
                if (!p.max) m = count > 0 ? pool_detail::div_round(m, count) : 0;
                yp[oh * g.ow + ow] = static_cast<std::int8_t>(m);
            }
        }
    }
}

}  // namespace litegraph::kernels
