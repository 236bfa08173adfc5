// pool3d (NCDHW): max or average pooling over depth, height and width, as
// Paddle's CPU Pool3dFunctor.
//
// Slots: X [N, C, D, H, W] -> Out [N, C, OD, OH, OW].  Attributes:
// pooling_type ("max" / "avg"), ksize (3 values), global_pooling, strides,
// paddings (3 or 6 values), ceil_mode, exclusive, adaptive,
// padding_algorithm (EXPLICIT / SAME / VALID), data_format (NCDHW).  Per axis
// the window is pool2d's (ops/pool2d.hpp, `span_of`): it starts at
// o * stride - pad_before, ends at min(start + k, size + pad_before), and is
// clipped to the input; a non-exclusive average divides by the unclipped
// window's volume, an exclusive (or adaptive) one by the in-input volume.
// global_pooling sets the window to the input and the pads to 0; adaptive
// makes the output size ksize with windows [floor(i*D/OD), ceil((i+1)*D/OD)).
// Output sizes use truncating division.  float32.
#pragma once

#include <cfloat>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "litegraph/ops/detail/window3d.hpp"
#include "litegraph/ops/pool2d.hpp"

namespace litegraph::ops {

struct pool3d {
    static constexpr std::string_view paddle_types[] = {"pool3d"};
    static constexpr pir_name pir_names[] = {{"1.pool3d", "pool3d"}};
    struct params {
        bool max = true;
        std::vector<std::int64_t> ksize;
        bool global_pooling = false;
        std::vector<std::int64_t> strides{1, 1, 1};
        std::vector<std::int64_t> paddings{0, 0, 0};
        bool ceil_mode = false;
        bool exclusive = true;
        bool adaptive = false;
        detail::padding_algorithm padding = detail::padding_algorithm::explicit_pads;
    };

    static params parse(const attr_map& a, std::string_view type) {
        detail::require_ncdhw(a, type);
        params p;
        auto kind = a.get<std::string>("pooling_type", "max");
        if (kind != "max" && kind != "avg")
            LITEGRAPH_THROW(unsupported_error("op " + std::string(type) + ": pooling_type '" +
                                              kind + "' is not supported (max, avg)"));
        p.max = kind == "max";
        p.ksize = a.get<std::vector<std::int64_t>>("ksize", {});
        p.global_pooling = a.get<bool>("global_pooling", false);
        p.strides = a.get<std::vector<std::int64_t>>("strides", {1, 1, 1});
        p.paddings = a.get<std::vector<std::int64_t>>("paddings", {0, 0, 0});
        p.ceil_mode = a.get<bool>("ceil_mode", false);
        p.exclusive = a.get<bool>("exclusive", true);
        p.adaptive = a.get<bool>("adaptive", false);
        p.padding = detail::parse_padding_algorithm(a, type);
        return p;
    }

    struct geometry {
        std::int64_t n, c;
        detail::triple in, k, stride, out;
        std::array<std::int64_t, 6> pads;
    };

    static geometry resolve(const params& p, const op_io& io) {
        const auto& x = detail::f32_input(io, "X", 5);
        geometry g{};
        g.n = x.shape[0], g.c = x.shape[1];
        g.in = {x.shape[2], x.shape[3], x.shape[4]};
        g.stride = detail::check_triple(io, p.strides, "strides", 1);
        if (p.global_pooling)
            g.k = g.in;
        else
            g.k = detail::check_triple(io, p.ksize, "ksize", 1);
        g.pads = detail::resolve_padding3(io, p.paddings, p.padding, g.in, g.stride, g.k, nullptr);
        if (p.global_pooling || p.adaptive) g.pads.fill(0);
        for (int i = 0; i < 3; ++i) {
            if (p.adaptive) {
                g.out[i] = g.k[i];
            } else if (p.global_pooling) {
                g.out[i] = 1;
            } else if (g.in[i] < 0) {
                g.out[i] = -1;
            } else {
                g.out[i] = detail::pool_out_size(g.in[i], g.k[i], g.pads[2 * i], g.pads[2 * i + 1],
                                                 g.stride[i], p.ceil_mode);
                io.check(g.out[i] > 0, [&] {
                    return "output size " + std::to_string(g.out[i]) + " <= 0 along spatial dim " +
                           std::to_string(i) + " for X shape " + to_string(x.shape);
                });
            }
        }
        if (p.global_pooling)
            for (int i = 0; i < 3; ++i)
                io.check(g.in[i] > 0, [&] {
                    return "global pooling of an empty input: X shape " + to_string(x.shape);
                });
        return g;
    }

    static void infer(const params& p, op_io& io) {
        const auto g = resolve(p, io);
        auto& out = io.output("Out");
        out.type = dtype::f32;
        out.shape = {g.n, g.c, g.out[0], g.out[1], g.out[2]};
    }

    static void run(const params& p, op_io& io) {
        const auto g = resolve(p, io);
        pool2d::mode m;
        m.max = p.max;
        m.exclusive = p.exclusive;
        m.adaptive = p.adaptive;
        std::vector<pool2d::span1> spans[3];
        for (int i = 0; i < 3; ++i)
            for (std::int64_t o = 0; o < g.out[i]; ++o)
                spans[i].push_back(
                    pool2d::span_of(m, o, g.out[i], g.in[i], g.k[i], g.stride[i], g.pads[2 * i]));
        const float* x = io.input("X").as<float>();
        float* y = io.output("Out").as<float>();
        const std::int64_t in_vol = g.in[0] * g.in[1] * g.in[2];
        const std::int64_t out_vol = g.out[0] * g.out[1] * g.out[2];
        for (std::int64_t pc = 0; pc < g.n * g.c; ++pc) {
            const float* xp = x + pc * in_vol;
            float* yp = y + pc * out_vol;
            for (std::int64_t od = 0; od < g.out[0]; ++od)
                for (std::int64_t oh = 0; oh < g.out[1]; ++oh)
                    for (std::int64_t ow = 0; ow < g.out[2]; ++ow) {
                        const auto& sd = spans[0][static_cast<std::size_t>(od)];
                        const auto& sh = spans[1][static_cast<std::size_t>(oh)];
                        const auto& sw = spans[2][static_cast<std::size_t>(ow)];
                        float acc = p.max ? -FLT_MAX : 0.f;
                        for (std::int64_t d = sd.lo; d < sd.hi; ++d)
                            for (std::int64_t h = sh.lo; h < sh.hi; ++h)
                                for (std::int64_t w = sw.lo; w < sw.hi; ++w) {
                                    const float v = xp[(d * g.in[1] + h) * g.in[2] + w];
                                    if (p.max)
                                        acc =
                                            acc > v ? acc : v;  // Paddle's MaxPool: NaN propagates
                                    else
                                        acc += v;
                                }
                        if (!p.max) acc /= static_cast<float>(sd.extent * sh.extent * sw.extent);
                        yp[(od * g.out[1] + oh) * g.out[2] + ow] = acc;
                    }
        }
    }
};

}  // namespace litegraph::ops
