// conv2d NCHW fast paths on fp32, written through an epilogue.
//
//   kernels::conv_geometry g{...};   // or conv_geometry::from(ops::conv2d::geometry)
//   kernels::conv2d(g, x, w, epi);   // x [N, C, H, W], w [OC, C/groups, KH, KW]
//   kernels::conv_weights cw(g, w);  // or prepare the filter once (load time) ...
//   kernels::conv2d(g, x, cw, epi);  // ... and skip the per-call packing
//
// The conv epilogue receives finished output values:
//
//   void operator()(std::int64_t n,       // image
//                   std::int64_t oc,      // output channel
//                   std::int64_t offset,  // index in the output plane: oh * OW + ow
//                   const float* values, std::int64_t count);
//
// `count` consecutive values of plane (n, oc) starting at `offset` (a run may
// cross output rows, never planes).  Every output element is passed exactly
// once; `values` is only valid during the call.  conv_store_epilogue writes a
// dense (or channel-strided, e.g. a slice of a concat) NCHW output.
//
// Paths, chosen by conv2d():
//   - depthwise (groups == C == OC, any window, stride, dilation, padding):
//     zero-padded, stride-phase-split input rows, vectorised along the output
//     row, with the 3x3 and 5x5 windows unrolled (under vertical stride 1 in
//     blocks of 4 output rows that share each input vector); output rows go to
//     the epilogue in L1-sized bands as soon as they are computed;
//   - 1x1, stride 1, no padding: per image and group, W[OCg, Cg] x X[Cg, H*W]
//     (pointwise_conv2d_direct: the same sums with a bias and an activation
//     finished in registers, for sums of at most 64 inputs);
//   - 3x3, stride 1, one group, at least 16 input channels, with the filter
//     prepared (conv_weights): Winograd F(4x4, 3x3) (kernels/conv_winograd.hpp);
//   - anything else: im2col over bands of output rows + GEMM.
//
// This header is the GEMM / im2col path and conv2d() itself; the others are
// kernels/conv_geometry.hpp, kernels/conv_depthwise.hpp,
// kernels/conv_pointwise.hpp, kernels/conv_winograd.hpp and
// kernels/conv_direct.hpp, all included here.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "litegraph/core/error.hpp"
#include "litegraph/kernels/conv_depthwise.hpp"
#include "litegraph/kernels/conv_direct.hpp"
#include "litegraph/kernels/conv_geometry.hpp"
#include "litegraph/kernels/conv_pointwise.hpp"
#include "litegraph/kernels/conv_winograd.hpp"
#include "litegraph/kernels/elementwise.hpp"
#include "litegraph/kernels/gemm.hpp"
#include "litegraph/kernels/simd.hpp"

namespace litegraph::kernels {

/// Conv via GEMM: 1x1 stride-1 unpadded convs read the input in place,
/// everything else through im2col over bands of output rows.
///
/// The work is a sequence of units, each one SGEMM call of its own: per
/// image and group, the SGEMM's column blocks of the plane (pointwise; a
/// block is gemm_tile::column_block(K) columns, the SGEMM's own N block, so
/// the runs the epilogue sees are those of one call over the whole plane) or
/// the bands of output rows (im2col, each with its own column matrix).  Any
/// split of the units computes every output element with the same
/// arithmetic, so callers may run ranges of units on different threads
/// (ops::conv2d does, with the workspace of each thread).  Pointwise planes
/// of one value (an SE block's convs) are the exception: a range of units
/// (images) is one SGEMM whose columns are the images, and the epilogue
/// sees runs of one value, channel by channel.
namespace detail {
/// Output rows per im2col band: the column matrix near 64K floats.
inline std::int64_t im2col_band(const conv_geometry& g) {
    const std::int64_t kdim = g.c / g.groups * g.kh * g.kw;
    return std::clamp<std::int64_t>((1 << 16) / (kdim * g.ow), 1, g.oh);
}
/// Units per image and group.
inline std::int64_t gemm_blocks(const conv_geometry& g) {
    if (g.is_pointwise()) {
        const std::int64_t nb = gemm_tile::column_block(g.c / g.groups);
        return (g.oh * g.ow + nb - 1) / nb;
    }
    const std::int64_t band = im2col_band(g);
    return (g.oh + band - 1) / band;
}
}  // namespace detail

/// The units of the GEMM paths (see above): images x groups x blocks.
inline std::int64_t conv2d_gemm_units(const conv_geometry& g) {
    return g.n * g.groups * detail::gemm_blocks(g);
}

/// Whether every unit has the same work: one block per plane, or a plane of
/// whole blocks (else the last block of each plane is a remainder, and a
/// few units split over threads leave one thread most of the work).
inline bool conv2d_gemm_units_even(const conv_geometry& g) {
    if (detail::gemm_blocks(g) == 1) return true;
    if (g.is_pointwise()) return g.oh * g.ow % gemm_tile::column_block(g.c / g.groups) == 0;
    return g.oh % detail::im2col_band(g) == 0;
}

namespace detail {
/// Units [u0, u1) of the GEMM paths with the weights of each group packed
/// (`wp[group]`).
template <class Epilogue>
void conv2d_gemm_packed(const conv_geometry& g, const float* x, const packed_a* wp, Epilogue&& epi,
                        workspace* ws, std::int64_t u0, std::int64_t u1) {
    const std::int64_t cg = g.c / g.groups, ocg = g.oc / g.groups;
    const std::int64_t kdim = cg * g.kh * g.kw, in_plane = g.h * g.w, out_plane = g.oh * g.ow;
    const std::int64_t blocks = gemm_blocks(g);

    if (g.is_pointwise()) {
        if (out_plane == 1 && g.groups == 1 && u1 - u0 > 1) {
            // Planes of one value (an SE block's convs): a GEMM per image
            // would have one column; the images are the columns of one GEMM
            // instead (the same dot products, in the same order).
            const std::int64_t cols = u1 - u0;
            float* bt = workspace::grow(ws->d, cg * cols);
            const std::int64_t shape[2] = {cg, cols}, step[2] = {1, g.c};
            std::int64_t idx[2];
            permute(x + u0 * g.c, bt, 2, shape, step, sizeof(float), idx);  // bt = [C, images]
            sgemm(
                wp[0], cols, static_cast<const float*>(bt), cols,
                [&](std::int64_t row, std::int64_t col0, const float* v, std::int64_t count) {
                    for (std::int64_t i = 0; i < count; ++i) epi(u0 + col0 + i, row, 0, v + i, 1);
                },
                ws);
            return;
        }
        const std::int64_t nb = gemm_tile::column_block(cg);
        for (std::int64_t u = u0; u < u1; ++u) {
            const std::int64_t n = u / (g.groups * blocks), grp = u / blocks % g.groups;
            const std::int64_t j0 = u % blocks * nb, cols = std::min(nb, out_plane - j0);
            const float* b = x + (n * g.c + grp * cg) * in_plane + j0;
            sgemm(
                wp[grp], cols, b, in_plane,
                [&](std::int64_t row, std::int64_t col0, const float* v, std::int64_t count) {
                    epi(n, grp * ocg + row, j0 + col0, v, count);
                },
                ws);
        }
        return;
    }

    // Per kernel column: output columns [lo, hi) read inside the image.
    std::int64_t lo_small[16], hi_small[16];
    std::vector<std::int64_t> lo_big(g.kw > 16 ? 2 * g.kw : 0);
    std::int64_t* ow_lo = g.kw > 16 ? lo_big.data() : lo_small;
    std::int64_t* ow_hi = g.kw > 16 ? lo_big.data() + g.kw : hi_small;
    for (std::int64_t j = 0; j < g.kw; ++j) {
        const std::int64_t off = j * g.dw - g.pl;  // iw = ow * sw + off
        const std::int64_t lo = off >= 0 ? 0 : (-off + g.sw - 1) / g.sw;
        const std::int64_t hi = off > g.w - 1 ? 0 : (g.w - 1 - off) / g.sw + 1;
        ow_lo[j] = std::min(lo, g.ow);
        ow_hi[j] = std::max(ow_lo[j], std::min(hi, g.ow));
    }
    const std::int64_t band = im2col_band(g);
    float* col = workspace::grow(ws->d, kdim * band * g.ow);
    for (std::int64_t u = u0; u < u1; ++u) {
        const std::int64_t n = u / (g.groups * blocks), grp = u / blocks % g.groups;
        const std::int64_t oh0 = u % blocks * band;
        const float* xg = x + (n * g.c + grp * cg) * in_plane;
        const std::int64_t nrows = std::min(band, g.oh - oh0), ncols = nrows * g.ow;
        float* dst = col;
        for (std::int64_t ic = 0; ic < cg; ++ic)
            for (std::int64_t i = 0; i < g.kh; ++i)
                for (std::int64_t j = 0; j < g.kw; ++j, dst += ncols) {
                    const std::int64_t off = j * g.dw - g.pl;
                    for (std::int64_t r = 0; r < nrows; ++r) {
                        float* d = dst + r * g.ow;
                        const std::int64_t ih = (oh0 + r) * g.sh - g.pt + i * g.dh;
                        if (ih < 0 || ih >= g.h) {
                            std::fill(d, d + g.ow, 0.f);
                            continue;
                        }
                        const float* src = xg + ic * in_plane + ih * g.w + off;
                        std::fill(d, d + ow_lo[j], 0.f);
                        if (g.sw == 1)
                            std::memcpy(
                                d + ow_lo[j], src + ow_lo[j],
                                static_cast<std::size_t>(ow_hi[j] - ow_lo[j]) * sizeof(float));
                        else if (g.sw == 2)  // a constant stride the compiler vectorises
                            for (std::int64_t o = ow_lo[j]; o < ow_hi[j]; ++o) d[o] = src[2 * o];
                        else
                            for (std::int64_t o = ow_lo[j]; o < ow_hi[j]; ++o) d[o] = src[o * g.sw];
                        std::fill(d + ow_hi[j], d + g.ow, 0.f);
                    }
                }
        const std::int64_t base = oh0 * g.ow;
        sgemm(
            wp[grp], ncols, static_cast<const float*>(col), ncols,
            [&](std::int64_t row, std::int64_t col0, const float* v, std::int64_t count) {
                epi(n, grp * ocg + row, base + col0, v, count);
            },
            ws);
    }
}

template <class Epilogue>
void conv2d_gemm_packed(const conv_geometry& g, const float* x, const packed_a* wp, Epilogue&& epi,
                        workspace* ws) {
    conv2d_gemm_packed(g, x, wp, static_cast<Epilogue&&>(epi), ws, 0, conv2d_gemm_units(g));
}

}  // namespace detail

/// Conv via GEMM for any geometry (packs the weights on every call).
template <class Epilogue>
void conv2d_gemm(const conv_geometry& g, const float* x, const float* w, Epilogue&& epi,
                 workspace* ws = nullptr) {
    g.validate();
    if (g.n == 0) return;
    if (!ws) ws = &workspace::local();
    const std::int64_t ocg = g.oc / g.groups, kdim = g.c / g.groups * g.kh * g.kw;
    if (static_cast<std::int64_t>(ws->conv_w.size()) < g.groups)
        ws->conv_w.resize(static_cast<std::size_t>(g.groups));
    for (std::int64_t grp = 0; grp < g.groups; ++grp)
        ws->conv_w[grp].pack(ocg, kdim, w + grp * ocg * kdim, kdim);
    detail::conv2d_gemm_packed(g, x, ws->conv_w.data(), static_cast<Epilogue&&>(epi), ws);
}

/// conv2d NCHW: picks the depthwise kernel or the GEMM paths (see top of file).
template <class Epilogue>
void conv2d(const conv_geometry& g, const float* x, const float* w, Epilogue&& epi,
            workspace* ws = nullptr) {
    g.validate();
    if (g.n == 0) return;
    if (g.is_depthwise())
        depthwise_conv2d(g, x, w, static_cast<Epilogue&&>(epi), ws);
    else
        conv2d_gemm(g, x, w, static_cast<Epilogue&&>(epi), ws);
}

/// Filter [OC, C/groups, KH, KW] prepared once (at load time) for conv2d():
/// transformed for the Winograd path where it fits (winograd_fits) and
/// `winograd` allows it, packed per group for the GEMM paths, copied as is
/// for depthwise.  `winograd` false keeps a 3x3 conv on im2col + GEMM, whose
/// sums do not depend on an output's place (a patched stage's convs,
/// runtime/patches).
class conv_weights {
public:
    conv_weights() = default;
    conv_weights(const conv_geometry& g, const float* w, bool winograd = true)
        : oc_(g.oc),
          cg_(g.c / g.groups),
          kh_(g.kh),
          kw_(g.kw),
          groups_(g.groups),
          depthwise_(g.is_depthwise()),
          winograd_allowed_(winograd) {
        g.validate();
        const std::int64_t ocg = oc_ / groups_, kdim = cg_ * kh_ * kw_;
        if (depthwise_) {
            raw_.assign(w, w + oc_ * kdim);
        } else if (winograd && winograd_fits(g)) {
            winograd_ = winograd_weights(g, w);
            winograd_on_ = true;
        } else {
            packed_.resize(static_cast<std::size_t>(groups_));
            for (std::int64_t grp = 0; grp < groups_; ++grp)
                packed_[grp].pack(ocg, kdim, w + grp * ocg * kdim, kdim);
        }
    }
    /// Throws shape_error unless these weights were prepared for g's filter
    /// (and, for the Winograd path, a geometry it fits).
    void check(const conv_geometry& g) const {
        if (g.oc != oc_ || g.c / g.groups != cg_ || g.kh != kh_ || g.kw != kw_ ||
            g.groups != groups_ || g.is_depthwise() != depthwise_ ||
            (winograd_allowed_ && winograd_fits(g)) != winograd_on_)
            LITEGRAPH_THROW(shape_error(
                "kernels::conv2d: weights prepared for [" + std::to_string(oc_) + ", " +
                std::to_string(cg_) + ", " + std::to_string(kh_) + ", " + std::to_string(kw_) +
                "] groups " + std::to_string(groups_) + " do not fit this convolution"));
    }
    bool depthwise() const { return depthwise_; }
    /// Whether conv2d() runs these weights on the Winograd path.
    bool winograd() const { return winograd_on_; }
    const float* raw() const { return raw_.data(); }
    const packed_a* packed() const { return packed_.data(); }
    const winograd_weights& winograd_form() const { return winograd_; }

private:
    std::int64_t oc_ = 0, cg_ = 0, kh_ = 0, kw_ = 0, groups_ = 0;
    bool depthwise_ = false, winograd_allowed_ = true, winograd_on_ = false;
    std::vector<float> raw_;
    std::vector<packed_a> packed_;
    winograd_weights winograd_;
};

/// The units of conv2d() with not depthwise weights prepared for g with
/// `winograd` as given to conv_weights: the Winograd blocks where that path
/// runs, else the GEMM paths' (conv2d_gemm_units).  Any split of them gives
/// the same outputs.
inline std::int64_t conv2d_units(const conv_geometry& g, bool winograd) {
    return winograd && winograd_fits(g) ? conv2d_winograd_units(g) : conv2d_gemm_units(g);
}
/// Whether every unit of conv2d_units(g, winograd) has the same work.
inline bool conv2d_units_even(const conv_geometry& g, bool winograd) {
    return winograd && winograd_fits(g) ? conv2d_winograd_units_even(g) : conv2d_gemm_units_even(g);
}

/// Units [u0, u1) of conv2d_units(g, winograd) with (not depthwise)
/// weights prepared with the same `winograd`: what a caller runs on each
/// thread of a split.
template <class Epilogue>
void conv2d_units(const conv_geometry& g, const float* x, const conv_weights& w, Epilogue&& epi,
                  std::int64_t u0, std::int64_t u1, workspace* ws = nullptr) {
    g.validate();
    w.check(g);
    if (w.depthwise()) LITEGRAPH_THROW(shape_error("kernels::conv2d_units: depthwise weights"));
    const std::int64_t units = conv2d_units(g, w.winograd());
    if (u0 < 0 || u0 > u1 || u1 > units)
        LITEGRAPH_THROW(shape_error("kernels::conv2d_units: units [" + std::to_string(u0) + ", " +
                                    std::to_string(u1) + ") of " + std::to_string(units)));
    if (!ws) ws = &workspace::local();
    if (w.winograd())
        conv2d_winograd(g, x, w.winograd_form(), static_cast<Epilogue&&>(epi), ws, u0, u1);
    else
        detail::conv2d_gemm_packed(g, x, w.packed(), static_cast<Epilogue&&>(epi), ws, u0, u1);
}

/// conv2d NCHW with prepared weights (no packing per call).
template <class Epilogue>
void conv2d(const conv_geometry& g, const float* x, const conv_weights& w, Epilogue&& epi,
            workspace* ws = nullptr) {
    g.validate();
    w.check(g);
    if (g.n == 0) return;
    if (!ws) ws = &workspace::local();
    if (w.depthwise())
        depthwise_conv2d(g, x, w.raw(), static_cast<Epilogue&&>(epi), ws);
    else if (w.winograd())
        conv2d_winograd(g, x, w.winograd_form(), static_cast<Epilogue&&>(epi), ws, 0,
                        conv2d_winograd_units(g));
    else
        detail::conv2d_gemm_packed(g, x, w.packed(), static_cast<Epilogue&&>(epi), ws);
}

}  // namespace litegraph::kernels
