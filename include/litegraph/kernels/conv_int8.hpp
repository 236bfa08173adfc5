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

/// Output pixels per block of the patch (GEMM) path.
inline constexpr std::int64_t conv_int8_block = 16;

/// Whether conv2d_int8 takes the patch path (ungrouped convs): every output
/// pixel's input patch is packed once per block of pixels, and each output
/// channel is a dot product over it, contiguous in both operands (the form
/// compilers vectorise into int16 multiply-adds).  Grouped and depthwise
/// convs take the direct row loop.
inline constexpr bool conv_int8_uses_patches(const conv_geometry& g) noexcept {
    return g.groups == 1;
}

/// int64 words of scratch conv2d_int8 needs.
inline constexpr std::int64_t conv_int8_scratch_words(const conv_geometry& g) noexcept {
    if (conv_int8_uses_patches(g)) {
        const std::int64_t k = g.c * g.kh * g.kw;
        return (conv_int8_block * k + 7) / 8 + conv_int8_block / 2 + 1;
    }
    return (g.oh * g.ow + 1) / 2 + 3 * g.kw;
}

/// A non-owning reference to a sink(n, oc, offset, values, count) over int32
/// accumulators (a run of `count` outputs of plane (n, oc) from `offset`):
/// the kernel is compiled once whatever the epilogue.
class int32_sink_ref {
public:
    template <class S>
    explicit int32_sink_ref(S& s) noexcept
        : obj_(static_cast<void*>(&s)),
          fn_([](void* o, std::int64_t n, std::int64_t oc, std::int64_t off, const std::int32_t* v,
                 std::int64_t count) { (*static_cast<S*>(o))(n, oc, off, v, count); }) {}
    void operator()(std::int64_t n, std::int64_t oc, std::int64_t off, const std::int32_t* v,
                    std::int64_t count) const {
        fn_(obj_, n, oc, off, v, count);
    }

private:
    void* obj_;
    void (*fn_)(void*, std::int64_t, std::int64_t, std::int64_t, const std::int32_t*, std::int64_t);
};

namespace detail {
/// sum of a[i] * b[i] over k int8 values, in int32.
inline std::int32_t dot_int8(const std::int8_t* a, const std::int8_t* b, std::int64_t k) noexcept {
    std::int32_t s = 0;
    for (std::int64_t i = 0; i < k; ++i)
        s += static_cast<std::int32_t>(a[i]) * static_cast<std::int32_t>(b[i]);
    return s;
}

/// The patch path (conv_int8_uses_patches).
inline void conv2d_int8_patches(const conv_geometry& g, const std::int8_t* x, const std::int8_t* f,
                                std::int64_t* scratch, int32_sink_ref sink) noexcept {
    const std::int64_t k = g.c * g.kh * g.kw, plane = g.oh * g.ow;
    auto* patches = reinterpret_cast<std::int8_t*>(scratch);
    auto* acc = reinterpret_cast<std::int32_t*>(scratch + (conv_int8_block * k + 7) / 8);
    for (std::int64_t n = 0; n < g.n; ++n) {
        const std::int8_t* xn = x + n * g.c * g.h * g.w;
        for (std::int64_t p0 = 0; p0 < plane; p0 += conv_int8_block) {
            const std::int64_t nb = std::min(conv_int8_block, plane - p0);
            // Pack the block's patches: patch b is [C, KH, KW] of pixel p0 + b.
            for (std::int64_t b = 0; b < nb; ++b) {
                const std::int64_t oh = (p0 + b) / g.ow, ow = (p0 + b) % g.ow;
                std::int8_t* d = patches + b * k;
                for (std::int64_t c = 0; c < g.c; ++c)
                    for (std::int64_t i = 0; i < g.kh; ++i) {
                        const std::int64_t ih = oh * g.sh - g.pt + i * g.dh;
                        const bool row_in = ih >= 0 && ih < g.h;
                        const std::int8_t* xr = xn + (c * g.h + ih) * g.w;
                        for (std::int64_t j = 0; j < g.kw; ++j) {
                            const std::int64_t iw = ow * g.sw - g.pl + j * g.dw;
                            *d++ = row_in && iw >= 0 && iw < g.w ? xr[iw] : std::int8_t{0};
                        }
                    }
            }
            for (std::int64_t oc = 0; oc < g.oc; ++oc) {
                const std::int8_t* fo = f + oc * k;
                for (std::int64_t b = 0; b < nb; ++b) acc[b] = dot_int8(fo, patches + b * k, k);
                sink(n, oc, p0, acc, nb);
            }
        }
    }
}
}  // namespace detail

/// Output plane (n, oc) = sum over its group's input channels and taps of
/// x * f, in int32, handed to sink(n, oc, offset, values, count) in runs
/// (whole planes on the direct path, blocks of pixels on the patch path).  Filter [OC, C/groups,
/// KH, KW] int8; x [N, C, H, W] int8.
inline void conv2d_int8(const conv_geometry& g, const std::int8_t* x, const std::int8_t* f,
                        std::int64_t* scratch, int32_sink_ref sink) noexcept {
    if (conv_int8_uses_patches(g)) {
        detail::conv2d_int8_patches(g, x, f, scratch, sink);
        return;
    }
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
            sink(n, oc, 0, acc, out_plane);
        }
}

}  // namespace litegraph::kernels
