// 2-D pooling on raw NCHW arrays (float32 and int8), heap-free over caller
// scratch: Paddle's window rules (ops/pool2d.hpp says what surprises), the
// windows computed once per output row and column.  ops::pool2d and
// ops::pool2d_int8 run these; so do compile-time networks.
#pragma once

#include <algorithm>
#include <cfloat>
#include <cstddef>
#include <cstdint>
#include <tuple>

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

/// float32 pooling; `scratch` holds pool_scratch_bytes(g) bytes.
inline void pool2d(const pool_mode& p, const pool_geometry& g, const float* x, float* y,
                   pool_span* scratch) {
    pool_detail::spans(p, g, scratch);
    const pool_span* rows = scratch;
    const pool_span* cols = scratch + g.oh;
    const std::int64_t planes = g.n * g.c;
    for (std::int64_t pc = 0; pc < planes; ++pc) {
        const float* xp = x + pc * g.h * g.w;
        float* yp = y + pc * g.oh * g.ow;
        for (std::int64_t oh = 0; oh < g.oh; ++oh) {
            const auto r = rows[oh];
            for (std::int64_t ow = 0; ow < g.ow; ++ow) {
                const auto c = cols[ow];
                if (p.max) {
                    float m = -FLT_MAX;
                    for (std::int64_t ih = r.lo; ih < r.hi; ++ih)
                        for (std::int64_t iw = c.lo; iw < c.hi; ++iw) {
                            const float v = xp[ih * g.w + iw];
                            m = m > v ? m : v;  // Paddle's MaxPool: NaN propagates
                        }
                    yp[oh * g.ow + ow] = m;
                } else {
                    float sum = 0.f;
                    for (std::int64_t ih = r.lo; ih < r.hi; ++ih)
                        for (std::int64_t iw = c.lo; iw < c.hi; ++iw) sum += xp[ih * g.w + iw];
                    yp[oh * g.ow + ow] = sum / static_cast<float>(r.extent * c.extent);
                }
            }
        }
    }
}

/// int8 pooling, the output in the input's step: max takes the largest q,
/// average sums in int32 and divides rounding half away from zero.
inline void pool2d_int8(const pool_mode& p, const pool_geometry& g, const std::int8_t* x,
                        std::int8_t* y, pool_span* scratch) noexcept {
    pool_detail::spans(p, g, scratch);
    const pool_span* rows = scratch;
    const pool_span* cols = scratch + g.oh;
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
                if (!p.max) {
                    const auto count = static_cast<std::int32_t>(r.extent * c.extent);
                    m = count > 0 ? pool_detail::div_round(m, count) : 0;
                }
                yp[oh * g.ow + ow] = static_cast<std::int8_t>(m);
            }
        }
    }
}

}  // namespace litegraph::kernels
