// The int8 convolution: int8 input and filter, int32 accumulation, one output
// plane at a time handed to a sink (the requantize epilogue).  Symmetric
// quantisation (zero point 0) makes zero padding exact: padded taps are
// skipped.  No allocation and no exception inside: the caller passes the
// scratch (conv_int8_scratch_words) and has validated the geometry, so the
// loop can run in firmware as it is.
#pragma once

#include <algorithm>
#include <cstdint>

#include "litegraph/kernels/conv.hpp"

namespace litegraph::kernels {

/// int64 words of scratch conv2d_int8 needs: one int32 accumulator plane
/// (rounded up to whole words) and three column bounds per kernel column.
inline std::int64_t conv_int8_scratch_words(const conv_geometry& g) noexcept {
    return (g.oh * g.ow + 1) / 2 + 3 * g.kw;
}

/// A non-owning reference to a sink(n, oc, values, count) over int32
/// accumulators: the kernel is compiled once whatever the epilogue.
class int32_sink_ref {
public:
    template <class S>
    explicit int32_sink_ref(S& s) noexcept
        : obj_(static_cast<void*>(&s)),
          fn_([](void* o, std::int64_t n, std::int64_t oc, const std::int32_t* v,
                 std::int64_t count) { (*static_cast<S*>(o))(n, oc, v, count); }) {}
    void operator()(std::int64_t n, std::int64_t oc, const std::int32_t* v,
                    std::int64_t count) const {
        fn_(obj_, n, oc, v, count);
    }

private:
    void* obj_;
    void (*fn_)(void*, std::int64_t, std::int64_t, const std::int32_t*, std::int64_t);
};

/// Output plane (n, oc) = sum over its group's input channels and taps of
/// x * f, in int32, then sink(n, oc, plane, oh * ow).  Filter [OC, C/groups,
/// KH, KW] int8; x [N, C, H, W] int8.
inline void conv2d_int8(const conv_geometry& g, const std::int8_t* x, const std::int8_t* f,
                        std::int64_t* scratch, int32_sink_ref sink) noexcept {
    const std::int64_t cin_g = g.c / g.groups, cout_g = g.oc / g.groups;
    const std::int64_t in_plane = g.h * g.w, out_plane = g.oh * g.ow, taps = g.kh * g.kw;
    std::int64_t* ow_lo = scratch;
    std::int64_t* ow_hi = scratch + g.kw;
    std::int64_t* x_off = scratch + 2 * g.kw;
    auto* acc = reinterpret_cast<std::int32_t*>(scratch + 3 * g.kw);
    // Per kernel column: the output columns whose input column is in the image.
    for (std::int64_t j = 0; j < g.kw; ++j) {
        const std::int64_t off = j * g.dw - g.pl;  // iw = ow * sw + off
        const std::int64_t lo = off >= 0 ? 0 : (-off + g.sw - 1) / g.sw;
        const std::int64_t hi = off > g.w - 1 ? 0 : (g.w - 1 - off) / g.sw + 1;
        ow_lo[j] = std::min(lo, g.ow);
        ow_hi[j] = std::max(ow_lo[j], std::min(hi, g.ow));
        x_off[j] = off;
    }
    for (std::int64_t n = 0; n < g.n; ++n)
        for (std::int64_t oc = 0; oc < g.oc; ++oc) {
            std::fill(acc, acc + out_plane, 0);
            const std::int8_t* xg = x + (n * g.c + (oc / cout_g) * cin_g) * in_plane;
            const std::int8_t* fo = f + oc * cin_g * taps;
            for (std::int64_t ic = 0; ic < cin_g; ++ic) {
                const std::int8_t* xc = xg + ic * in_plane;
                for (std::int64_t i = 0; i < g.kh; ++i)
                    for (std::int64_t j = 0; j < g.kw; ++j) {
                        const std::int32_t wv = fo[(ic * g.kh + i) * g.kw + j];
                        if (wv == 0) continue;
                        const std::int64_t lo = ow_lo[j], hi = ow_hi[j], off = x_off[j];
                        for (std::int64_t oh = 0; oh < g.oh; ++oh) {
                            const std::int64_t ih = oh * g.sh - g.pt + i * g.dh;
                            if (ih < 0 || ih >= g.h) continue;
                            const std::int8_t* xr = xc + ih * g.w;
                            std::int32_t* ar = acc + oh * g.ow;
                            if (g.sw == 1) {
                                for (std::int64_t ow = lo; ow < hi; ++ow)
                                    ar[ow] += wv * static_cast<std::int32_t>(xr[ow + off]);
                            } else {
                                for (std::int64_t ow = lo; ow < hi; ++ow)
                                    ar[ow] += wv * static_cast<std::int32_t>(xr[ow * g.sw + off]);
                            }
                        }
                    }
            }
            sink(n, oc, acc, out_plane);
        }
}

}  // namespace litegraph::kernels
