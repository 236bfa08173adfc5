// conv3d (NCDHW): Output = Input (*) Filter, a direct loop (the reference).
//
// Slots: Input [N, C, D, H, W], Filter [OC, C/groups, KD, KH, KW] ->
// Output [N, OC, OD, OH, OW].  Attributes as Paddle's: strides, paddings (3
// values [d, h, w] or 6 [front, back, top, bottom, left, right]), dilations,
// groups, padding_algorithm (EXPLICIT / SAME / VALID; SAME resets the
// dilations to 1), data_format (NCDHW; channels-last is refused).  Output
// sizes use truncating division, as Paddle's ConvOutSize.  float32.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "litegraph/ops/detail/window3d.hpp"

namespace litegraph::ops {

struct conv3d {
    static constexpr std::string_view paddle_types[] = {"conv3d"};
    static constexpr pir_name pir_names[] = {{"1.conv3d", "conv3d"}};
    struct params {
        std::vector<std::int64_t> strides{1, 1, 1};
        std::vector<std::int64_t> paddings{0, 0, 0};
        std::vector<std::int64_t> dilations{1, 1, 1};
        std::int64_t groups = 1;
        detail::padding_algorithm padding = detail::padding_algorithm::explicit_pads;
    };

    static params parse(const attr_map& a, std::string_view type) {
        detail::require_ncdhw(a, type);
        params p;
        p.strides = a.get<std::vector<std::int64_t>>("strides", {1, 1, 1});
        p.paddings = a.get<std::vector<std::int64_t>>("paddings", {0, 0, 0});
        p.dilations = a.get<std::vector<std::int64_t>>("dilations", {1, 1, 1});
        p.groups = a.get<std::int64_t>("groups", 1);
        p.padding = detail::parse_padding_algorithm(a, type);
        return p;
    }

    struct geometry {
        std::int64_t n, c, oc, groups;
        detail::triple in, k, out, stride, dilation;
        std::array<std::int64_t, 6> pads;
    };

    static geometry resolve(const params& p, const op_io& io) {
        const auto& x = detail::f32_input(io, "Input", 5);
        const auto& f = detail::f32_input(io, "Filter", 5);
        io.check(is_known(f.shape),
                 [&] { return "Filter shape " + to_string(f.shape) + " is not known"; });
        io.check(p.groups >= 1,
                 [&] { return "attribute groups must be >= 1, got " + std::to_string(p.groups); });
        geometry g{};
        g.n = x.shape[0], g.c = x.shape[1], g.oc = f.shape[0], g.groups = p.groups;
        g.in = {x.shape[2], x.shape[3], x.shape[4]};
        g.k = {f.shape[2], f.shape[3], f.shape[4]};
        io.check(g.k[0] > 0 && g.k[1] > 0 && g.k[2] > 0,
                 [&] { return "empty Filter window " + to_string(f.shape); });
        io.check(g.oc % p.groups == 0, [&] {
            return "Filter output channels " + std::to_string(g.oc) +
                   " are not divisible by groups " + std::to_string(p.groups);
        });
        if (g.c >= 0)
            io.check(g.c == f.shape[1] * p.groups, [&] {
                return "Input channels " + std::to_string(g.c) + " (Input shape " +
                       to_string(x.shape) + ") != Filter channels " + std::to_string(f.shape[1]) +
                       " * groups " + std::to_string(p.groups) + " (Filter shape " +
                       to_string(f.shape) + ")";
            });
        g.stride = detail::check_triple(io, p.strides, "strides", 1);
        g.dilation = detail::check_triple(io, p.dilations, "dilations", 1);
        g.pads =
            detail::resolve_padding3(io, p.paddings, p.padding, g.in, g.stride, g.k, &g.dilation);
        for (int i = 0; i < 3; ++i) {
            if (g.in[i] < 0) {
                g.out[i] = -1;
                continue;
            }
            g.out[i] = detail::conv_out_size(g.in[i], g.k[i], g.dilation[i], g.pads[2 * i],
                                             g.pads[2 * i + 1], g.stride[i]);
            io.check(g.out[i] > 0, [&] {
                return "output size " + std::to_string(g.out[i]) + " <= 0 along spatial dim " +
                       std::to_string(i) + " for Input shape " + to_string(x.shape) +
                       " and Filter shape " + to_string(f.shape);
            });
        }
        return g;
    }

    static void infer(const params& p, op_io& io) {
        const auto g = resolve(p, io);
        auto& out = io.output("Output");
        out.type = dtype::f32;
        out.shape = {g.n, g.oc, g.out[0], g.out[1], g.out[2]};
    }

    static void run(const params& p, op_io& io) {
        const auto g = resolve(p, io);
        const float* x = io.input("Input").as<float>();
        const float* f = io.input("Filter").as<float>();
        float* y = io.output("Output").as<float>();
        const std::int64_t cin_g = g.c / g.groups, cout_g = g.oc / g.groups;
        const std::int64_t in_plane = g.in[0] * g.in[1] * g.in[2];
        const std::int64_t out_plane = g.out[0] * g.out[1] * g.out[2];
        const std::int64_t kvol = g.k[0] * g.k[1] * g.k[2];
        for (std::int64_t n = 0; n < g.n; ++n)
            for (std::int64_t oc = 0; oc < g.oc; ++oc) {
                const std::int64_t grp = oc / cout_g;
                float* yp = y + (n * g.oc + oc) * out_plane;
                for (std::int64_t od = 0; od < g.out[0]; ++od)
                    for (std::int64_t oh = 0; oh < g.out[1]; ++oh)
                        for (std::int64_t ow = 0; ow < g.out[2]; ++ow) {
                            float acc = 0.f;
                            for (std::int64_t ic = 0; ic < cin_g; ++ic) {
                                const float* xp = x + (n * g.c + grp * cin_g + ic) * in_plane;
                                const float* fp = f + (oc * cin_g + ic) * kvol;
                                for (std::int64_t kd = 0; kd < g.k[0]; ++kd) {
                                    const std::int64_t id =
                                        od * g.stride[0] - g.pads[0] + kd * g.dilation[0];
                                    if (id < 0 || id >= g.in[0]) continue;
                                    for (std::int64_t kh = 0; kh < g.k[1]; ++kh) {
                                        const std::int64_t ih =
                                            oh * g.stride[1] - g.pads[2] + kh * g.dilation[1];
                                        if (ih < 0 || ih >= g.in[1]) continue;
                                        for (std::int64_t kw = 0; kw < g.k[2]; ++kw) {
                                            const std::int64_t iw =
                                                ow * g.stride[2] - g.pads[4] + kw * g.dilation[2];
                                            if (iw < 0 || iw >= g.in[2]) continue;
                                            acc += xp[(id * g.in[1] + ih) * g.in[2] + iw] *
                                                   fp[(kd * g.k[1] + kh) * g.k[2] + kw];
                                        }
                                    }
                                }
                            }
                            yp[(od * g.out[1] + oh) * g.out[2] + ow] = acc;
                        }
            }
    }
};

}  // namespace litegraph::ops
