// conv2d / depthwise_conv2d (NCHW): Output = Input (*) Filter [+ Bias].
//
// Slots: Input [N, C, H, W], Filter [OC, C/groups, KH, KW], optional Bias [OC]
// (only oneDNN-era exports carry it) -> Output [N, OC, OH, OW].
// Attributes as Paddle's: strides, paddings (2 or 4 values), dilations, groups,
// padding_algorithm (EXPLICIT / SAME / VALID; SAME resets dilation to 1),
// data_format (NCHW or AnyLayout).  Output sizes use truncating division.
// depthwise_conv2d is the same op with groups == C.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <vector>

#include "litegraph/ops/detail/window.hpp"
#include "litegraph/ops/op.hpp"

namespace litegraph::ops {

struct conv2d {
    static constexpr std::string_view paddle_types[] = {"conv2d", "depthwise_conv2d"};
    struct params {
        std::vector<std::int64_t> strides{1, 1};
        std::vector<std::int64_t> paddings{0, 0};
        std::vector<std::int64_t> dilations{1, 1};
        std::int64_t groups = 1;
        detail::padding_algorithm padding = detail::padding_algorithm::explicit_pads;
    };

    static params parse(const attr_map& a, std::string_view type) {
        detail::require_nchw(a, "data_format", type);
        params p;
        p.strides = a.get<std::vector<std::int64_t>>("strides", {1, 1});
        p.paddings = a.get<std::vector<std::int64_t>>("paddings", {0, 0});
        p.dilations = a.get<std::vector<std::int64_t>>("dilations", {1, 1});
        p.groups = a.get<std::int64_t>("groups", 1);
        p.padding = detail::parse_padding_algorithm(a, type);
        return p;
    }

    /// Everything the kernel needs, resolved against the actual shapes.
    struct geometry {
        std::int64_t n, c, h, w;      // input
        std::int64_t oc, kh, kw;      // filter
        std::int64_t oh, ow;          // output (-1 when an input dim is unknown)
        std::int64_t sh, sw, dh, dw;  // strides, dilations (after SAME)
        std::int64_t pt, pb, pl, pr;  // paddings
        std::int64_t groups;
    };

    static geometry resolve(const params& p, const op_io& io) {
        const auto& x = detail::f32_input(io, "Input", 4);
        const auto& f = detail::f32_input(io, "Filter", 4);
        io.check(is_known(f.shape), "Filter shape " + to_string(f.shape) + " is not known");
        detail::check_pair(io, p.strides, "strides", 1);
        detail::check_pair(io, p.dilations, "dilations", 1);
        io.check(p.groups >= 1, "attribute groups must be >= 1, got " + std::to_string(p.groups));
        geometry g{};
        g.n = x.shape[0], g.c = x.shape[1], g.h = x.shape[2], g.w = x.shape[3];
        g.oc = f.shape[0], g.kh = f.shape[2], g.kw = f.shape[3];
        g.groups = p.groups;
        io.check(g.oc % p.groups == 0, "Filter output channels " + std::to_string(g.oc) +
                                           " (Filter shape " + to_string(f.shape) +
                                           ") are not divisible by groups " +
                                           std::to_string(p.groups));
        if (g.c >= 0)
            io.check(g.c == f.shape[1] * p.groups,
                     "Input channels " + std::to_string(g.c) + " (Input shape " +
                         to_string(x.shape) + ") != Filter channels " + std::to_string(f.shape[1]) +
                         " * groups " + std::to_string(p.groups) + " (Filter shape " +
                         to_string(f.shape) + ")");
        io.check(g.kh >= 1 && g.kw >= 1, "empty Filter window " + to_string(f.shape));
        auto dil = p.dilations;
        const std::int64_t in[2] = {g.h, g.w}, k[2] = {g.kh, g.kw};
        auto pads = detail::resolve_padding(io, p.paddings, p.padding, in, p.strides, k, &dil);
        g.sh = p.strides[0], g.sw = p.strides[1], g.dh = dil[0], g.dw = dil[1];
        g.pt = pads[0], g.pb = pads[1], g.pl = pads[2], g.pr = pads[3];
        g.oh = g.h < 0 ? -1 : detail::conv_out_size(g.h, g.kh, g.dh, g.pt, g.pb, g.sh);
        g.ow = g.w < 0 ? -1 : detail::conv_out_size(g.w, g.kw, g.dw, g.pl, g.pr, g.sw);
        if (g.h >= 0)
            io.check(g.oh > 0, "output height " + std::to_string(g.oh) + " <= 0 " +
                                   "for Input shape " + to_string(x.shape));
        if (g.w >= 0)
            io.check(g.ow > 0, "output width " + std::to_string(g.ow) + " <= 0 " +
                                   "for Input shape " + to_string(x.shape));
        return g;
    }

    static void infer(const params& p, op_io& io) {
        auto g = resolve(p, io);
        if (io.input_count("Bias") > 0) {
            const auto& b = io.input("Bias");
            io.check(b.type == dtype::f32 && is_known(b.shape) && b.numel() == g.oc,
                     "Bias shape " + to_string(b.shape) + " does not hold " + std::to_string(g.oc) +
                         " float32 values");
        }
        auto& out = io.output("Output");
        out.type = dtype::f32;
        out.shape = {g.n, g.oc, g.oh, g.ow};
    }

    // Direct convolution.  For each output row, every (input channel, kernel
    // row, kernel column) adds one scaled input row segment into it: the
    // row stays in L1 and the innermost loop is contiguous in the row (and in
    // the input when the stride is 1).  Each finished row (bias included) is
    // handed to `sink(n, oc, oh, row)`: a plain conv stores it, a fused conv
    // runs its epilogue chain on it, so every output element is written once.
    template <class RowSink>
    static void for_each_row(const geometry& g, const float* x, const float* f, const float* bias,
                             RowSink&& sink) {
        const std::int64_t cin_g = g.c / g.groups, cout_g = g.oc / g.groups;
        const std::int64_t in_plane = g.h * g.w, ksize = g.kh * g.kw;

        // Per kernel column: the output columns whose input column is inside
        // the image, and the input offset of output column 0.
        std::vector<std::int64_t> ow_lo(g.kw), ow_hi(g.kw), x_off(g.kw);
        for (std::int64_t j = 0; j < g.kw; ++j) {
            const std::int64_t off = j * g.dw - g.pl;  // iw = ow * sw + off
            std::int64_t lo = off >= 0 ? 0 : (-off + g.sw - 1) / g.sw;
            std::int64_t hi = off > g.w - 1 ? 0 : (g.w - 1 - off) / g.sw + 1;
            ow_lo[j] = std::min(lo, g.ow);
            ow_hi[j] = std::max(ow_lo[j], std::min(hi, g.ow));
            x_off[j] = off;
        }
        std::vector<float> row(static_cast<std::size_t>(g.ow));
        float* yr = row.data();
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

    static void run(const params& p, op_io& io) {
        const auto g = resolve(p, io);
        const float* bias = io.input_count("Bias") > 0 ? io.input("Bias").as<float>() : nullptr;
        float* y = io.output("Output").as<float>();
        for_each_row(g, io.input("Input").as<float>(), io.input("Filter").as<float>(), bias,
                     [&](std::int64_t n, std::int64_t oc, std::int64_t oh, const float* row) {
                         std::copy(row, row + g.ow, y + ((n * g.oc + oc) * g.oh + oh) * g.ow);
                     });
    }
};

}  // namespace litegraph::ops
