// pixel_shuffle: rearranges X [N, C*r*r, H, W] to [N, C, H*r, W*r] (r the
// `upscale_factor`; NHWC: [N, H, W, C*r*r] to [N, H*r, W*r, C]): output
// (c, h*r + i, w*r + j) is input channel c*r*r + i*r + j at (h, w).  Any dtype.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "litegraph/ops/detail/window.hpp"

namespace litegraph::ops {

struct pixel_shuffle {
    static constexpr std::string_view paddle_types[] = {"pixel_shuffle"};
    static constexpr pir_name pir_names[] = {{"1.pixel_shuffle", "pixel_shuffle"}};
    struct params {
        std::int64_t r = 1;
        bool nhwc = false;
    };

    static params parse(const attr_map& a, std::string_view type) {
        params p;
        p.r = a.get<std::int64_t>("upscale_factor", 1);
        p.nhwc = detail::channels_last(a, type);
        if (p.r < 1)
            throw unsupported_error("op " + std::string(type) + ": upscale_factor " +
                                    std::to_string(p.r) + " must be positive");
        return p;
    }

    static void infer(const params& p, op_io& io) {
        const auto& x = io.input("X");
        io.check(x.shape.size() == 4,
                 [&] { return "X must be 4-D, has shape " + to_string(x.shape); });
        const auto c = x.shape[p.nhwc ? 3 : 1];
        io.check(c < 0 || c % (p.r * p.r) == 0, [&] {
            return "the channels of X (" + std::to_string(c) + ") are not a multiple of " +
                   "upscale_factor^2 (" + std::to_string(p.r * p.r) + ")";
        });
        auto up = [&](std::int64_t d) { return d < 0 ? d : d * p.r; };
        auto& out = io.output("Out");
        out.type = x.type;
        const auto oc = c < 0 ? c : c / (p.r * p.r);
        out.shape = p.nhwc ? shape_t{x.shape[0], up(x.shape[1]), up(x.shape[2]), oc}
                           : shape_t{x.shape[0], oc, up(x.shape[1 + 1]), up(x.shape[3])};
    }

    static void run(const params& p, op_io& io) {
        infer(p, io);
        const auto& x = io.input("X");
        const auto& out = io.output("Out");
        const auto r = p.r;
        const auto n = x.shape[0];
        const auto h = x.shape[p.nhwc ? 1 : 2], w = x.shape[p.nhwc ? 2 : 3];
        const auto c = x.shape[p.nhwc ? 3 : 1] / (r * r);
        const auto es = size_of(x.type);
        const auto oh = h * r, ow = w * r;
        for (std::int64_t b = 0; b < n; ++b)
            for (std::int64_t ch = 0; ch < c; ++ch)
                for (std::int64_t y = 0; y < oh; ++y)
                    for (std::int64_t xx = 0; xx < ow; ++xx) {
                        const auto ic = ch * r * r + (y % r) * r + (xx % r);
                        const auto iy = y / r, ix = xx / r;
                        const auto src = p.nhwc ? ((b * h + iy) * w + ix) * c * r * r + ic
                                                : ((b * c * r * r + ic) * h + iy) * w + ix;
                        const auto dst = p.nhwc ? ((b * oh + y) * ow + xx) * c + ch
                                                : ((b * c + ch) * oh + y) * ow + xx;
                        std::memcpy(out.data + static_cast<std::size_t>(dst) * es,
                                    x.data + static_cast<std::size_t>(src) * es, es);
                    }
    }
};

}  // namespace litegraph::ops
