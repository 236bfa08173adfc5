// The direct row loop of a float convolution (ops::conv2d's reference kernel,
// and the fused conv's heap-free form): for each output row, every (input
// channel, kernel row, kernel column) adds one scaled input row segment into
// it, so the row stays in L1 and the innermost loop is contiguous in the row
// (and in the input when the stride is 1).  Each finished row (bias included)
// is handed to `sink(n, oc, oh, row)`: a plain conv stores it, a fused conv
// runs its epilogue chain on it, so every output element is written once.
// Raw pointers and caller memory only: no heap, no op_io.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace litegraph::kernels {

/// Bytes of scratch conv_rows needs: three integers per kernel column and one
/// output row.  `G`: any geometry with conv_geometry's field names.
template <class G>
constexpr std::size_t conv_rows_scratch_bytes(const G& g) {
    return static_cast<std::size_t>(3 * g.kw) * sizeof(std::int64_t) +
           static_cast<std::size_t>(g.ow) * sizeof(float);
}

/// The direct conv of `x` (NCHW) by `f` (OIHW per group) plus `bias` (may be
/// null), row by row into `sink`; `scratch` holds conv_rows_scratch_bytes(g)
/// bytes aligned for int64.
template <class G, class RowSink>
void conv_rows(const G& g, const float* x, const float* f, const float* bias, RowSink&& sink,
               void* scratch) {
    const std::int64_t cin_g = g.c / g.groups, cout_g = g.oc / g.groups;
    const std::int64_t in_plane = g.h * g.w, ksize = g.kh * g.kw;

    // Per kernel column: the output columns whose input column is inside
    // the image, and the input offset of output column 0.
    auto* ow_lo = static_cast<std::int64_t*>(scratch);
    std::int64_t* ow_hi = ow_lo + g.kw;
    std::int64_t* x_off = ow_hi + g.kw;
    for (std::int64_t j = 0; j < g.kw; ++j) {
        const std::int64_t off = j * g.dw - g.pl;  // iw = ow * sw + off
        std::int64_t lo = off >= 0 ? 0 : (-off + g.sw - 1) / g.sw;
        std::int64_t hi = off > g.w - 1 ? 0 : (g.w - 1 - off) / g.sw + 1;
        ow_lo[j] = std::min(lo, g.ow);
        ow_hi[j] = std::max(ow_lo[j], std::min(hi, g.ow));
        x_off[j] = off;
    }
    float* yr = reinterpret_cast<float*>(x_off + g.kw);
    for (std::int64_t n = 0; n < g.n; ++n) {
        for (std::int64_t oc = 0; oc < g.oc; ++oc) {
            const std::int64_t grp = oc / cout_g;
            const float* xg = x + (n * g.c + grp * cin_g) * in_plane;
            const float* fo = f + oc * cin_g * ksize;
            const float b0 = bias ? bias[oc] : 0.f;
            for (std::int64_t oh = 0; oh < g.oh; ++oh) {
                std::fill(yr, yr + g.ow, b0);
                for (std::int64_t ic = 0; ic < cin_g; ++ic) {
                    const float* xc = xg + ic * in_plane;
                    const float* fc = fo + ic * ksize;
                    for (std::int64_t i = 0; i < g.kh; ++i) {
                        const std::int64_t ih = oh * g.sh - g.pt + i * g.dh;
                        if (ih < 0 || ih >= g.h) continue;
                        const float* xr = xc + ih * g.w;
                        for (std::int64_t j = 0; j < g.kw; ++j) {
                            const float wv = fc[i * g.kw + j];
                            const std::int64_t off = x_off[j];
                            if (g.sw == 1) {
                                for (std::int64_t ow = ow_lo[j]; ow < ow_hi[j]; ++ow)
                                    yr[ow] += wv * xr[ow + off];
                            } else {
                                for (std::int64_t ow = ow_lo[j]; ow < ow_hi[j]; ++ow)
                                    yr[ow] += wv * xr[ow * g.sw + off];
                            }
                        }
                    }
                }
                sink(n, oc, oh, static_cast<const float*>(yr));
            }
        }
    }
}

}  // namespace litegraph::kernels
