// pool2d (NCHW): max or average pooling, Paddle's semantics exactly.
//
// Slots: X [N, C, H, W] -> Out [N, C, OH, OW].  Attributes: pooling_type
// ("max" / "avg"), ksize, global_pooling, strides, paddings (2 or 4 values),
// ceil_mode, exclusive, adaptive, padding_algorithm, data_format (NCHW).
//
// What surprises (checked against Paddle's CPU kernel and real models):
// - output sizes use truncating division: a 2x2/2 max pool of a height-1 map
//   gives 1 row, not 0;
// - each window is clipped with the top/left padding only: it ends at
//   min(start + k, size + pad_before) (the bottom/right padding only enters the
//   output size), then at the input;
// - non-exclusive average divides by that window clipped to the padded input,
//   not by k*k; exclusive (and adaptive) divide by the in-image window.
// global_pooling sets the window to the input and the pads to 0; adaptive
// makes the output size ksize with windows [floor(i*H/OH), ceil((i+1)*H/OH)).
#pragma once

#include <algorithm>
#include <cfloat>
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "litegraph/kernels/pool.hpp"
#include "litegraph/ops/detail/window.hpp"
#include "litegraph/ops/firmware.hpp"
#include "litegraph/ops/op.hpp"

namespace litegraph::ops {

struct pool2d {
    static constexpr std::string_view paddle_types[] = {"pool2d"};
    static constexpr pir_name pir_names[] = {{"1.pool2d", "pool2d"}};
    struct params {
        bool max = true;
        std::vector<std::int64_t> ksize;
        bool global_pooling = false;
        std::vector<std::int64_t> strides{1, 1};
        std::vector<std::int64_t> paddings{0, 0};
        bool ceil_mode = false;
        bool exclusive = true;
        bool adaptive = false;
        detail::padding_algorithm padding = detail::padding_algorithm::explicit_pads;
    };

    static params parse(const attr_map& a, std::string_view type) {
        detail::require_nchw(a, "data_format", type);
        params p;
        auto kind = a.get<std::string>("pooling_type", "max");
        if (kind != "max" && kind != "avg")
            LITEGRAPH_THROW(unsupported_error("op " + std::string(type) + ": pooling_type '" +
                                              kind + "' is not supported"));
        p.max = kind == "max";
        p.ksize = a.get<std::vector<std::int64_t>>("ksize", {});
        p.global_pooling = a.get<bool>("global_pooling", false);
        p.strides = a.get<std::vector<std::int64_t>>("strides", {1, 1});
        p.paddings = a.get<std::vector<std::int64_t>>("paddings", {0, 0});
        p.ceil_mode = a.get<bool>("ceil_mode", false);
        p.exclusive = a.get<bool>("exclusive", true);
        p.adaptive = a.get<bool>("adaptive", false);
        p.padding = detail::parse_padding_algorithm(a, type);
        return p;
    }

    using geometry = kernels::pool_geometry;

    static geometry resolve(const params& p, const op_io& io, dtype type = dtype::f32) {
        const auto& x = detail::f32_input(io, "X", 4, type);
        geometry g{};
        g.n = x.shape[0], g.c = x.shape[1], g.h = x.shape[2], g.w = x.shape[3];
        detail::check_pair(io, p.strides, "strides", 1);
        std::vector<std::int64_t> k = p.ksize;
        if (p.global_pooling)
            k = {g.h, g.w};
        else
            detail::check_pair(io, k, "ksize", 1);
        g.kh = k[0], g.kw = k[1], g.sh = p.strides[0], g.sw = p.strides[1];
        const std::int64_t in[2] = {g.h, g.w}, kk[2] = {g.kh, g.kw};
        auto pads = detail::resolve_padding(io, p.paddings, p.padding, in, p.strides, kk, nullptr);
        if (p.global_pooling || p.adaptive) std::fill(pads.begin(), pads.end(), 0);
        g.pt = pads[0], g.pb = pads[1], g.pl = pads[2], g.pr = pads[3];
        if (p.adaptive) {
            g.oh = g.kh, g.ow = g.kw;
        } else if (p.global_pooling) {
            g.oh = g.ow = 1;
        } else {
            g.oh = g.h < 0 ? -1 : detail::pool_out_size(g.h, g.kh, g.pt, g.pb, g.sh, p.ceil_mode);
            g.ow = g.w < 0 ? -1 : detail::pool_out_size(g.w, g.kw, g.pl, g.pr, g.sw, p.ceil_mode);
            if (g.h >= 0)
                io.check(g.oh > 0, [&] {
                    return "output height " + std::to_string(g.oh) + " <= 0 for X shape " +
                           to_string(x.shape);
                });
            if (g.w >= 0)
                io.check(g.ow > 0, [&] {
                    return "output width " + std::to_string(g.ow) + " <= 0 for X shape " +
                           to_string(x.shape);
                });
        }
        return g;
    }

    static void infer(const params& p, op_io& io) {
        auto g = resolve(p, io);
        auto& out = io.output("Out");
        out.type = dtype::f32;
        out.shape = {g.n, g.c, g.oh, g.ow};
    }

    /// A window along one axis, as Paddle computes it (kernels/pool.hpp).
    using span1 = kernels::pool_span;
    /// What the kernel needs of the params (a literal type, for firmware).
    using mode = kernels::pool_mode;
    static mode mode_of(const params& p) {
        mode m;
        m.max = p.max;
        m.exclusive = p.exclusive;
        m.adaptive = p.adaptive;
        return m;
    }

    static constexpr span1 span_of(const mode& p, std::int64_t o, std::int64_t out, std::int64_t in,
                                   std::int64_t k, std::int64_t s, std::int64_t pad) {
        return kernels::pool_span_of(p, o, out, in, k, s, pad);
    }

    /// The spans along one axis, one per output index (the int8 kernel's form).
    static std::vector<span1> spans(const params& p, std::int64_t out, std::int64_t in,
                                    std::int64_t k, std::int64_t s, std::int64_t pad) {
        std::vector<span1> v(static_cast<std::size_t>(out));
        for (std::int64_t o = 0; o < out; ++o)
            v[static_cast<std::size_t>(o)] = span_of(mode_of(p), o, out, in, k, s, pad);
        return v;
    }

    /// The firmware form (ops/firmware.hpp): the mode and the geometry.
    struct form {
        mode m{};
        geometry g{};
        constexpr auto fields() const { return std::tie(m, g); }
    };
    /// A window layer of a patched stage (ops/op.hpp).
    static constexpr patch_kind patch = patch_kind::pool;
    static constexpr std::string_view firmware_inputs[] = {"X"};
    static constexpr std::string_view firmware_output = "Out";
    static form form_of(const params& p, const op_io& io) { return {mode_of(p), resolve(p, io)}; }
    /// Spans the kernel needs: one per output row and column.
    static constexpr std::size_t scratch_bytes(const geometry& g) {
        return kernels::pool_scratch_bytes(g);
    }
    static constexpr std::size_t scratch_bytes(const form& f) { return scratch_bytes(f.g); }
    static void run_form(const form& f, const firmware_io& io) {
        kernels::pool2d(f.m, f.g, io.input<float>(0), io.output<float>(),
                        static_cast<span1*>(io.scratch));
    }

    /// The firmware form's loop, over ranges of the planes split over the
    /// pool (each plane pooled alone, so the same output for every split).
    static void run(const params& p, op_io& io) {
        const auto f = form_of(p, io);
        const auto& g = f.g;
        std::vector<span1> spans(static_cast<std::size_t>(g.oh + g.ow));
        kernels::pool_detail::spans(f.m, g, spans.data());
        const float* x = io.input("X").as<float>();
        float* y = io.output("Out").as<float>();
        const std::int64_t planes = g.n * g.c, plane = g.h * g.w;
        const auto T = static_cast<std::int64_t>(pool_threads(io.pool));
        // Split only when each thread gets enough input to outweigh the wake-up.
        const std::int64_t tasks =
            T > 1 && planes * plane >= (std::int64_t{1} << 14) ? std::min(T, planes) : 1;
        const std::int64_t per = (planes + tasks - 1) / tasks;
        parallel_tasks(io.pool, tasks, [&](std::int64_t t) {
            kernels::pool2d_planes(f.m, g, x, y, spans.data(), t * per,
                                   std::min(planes, (t + 1) * per));
        });
    }
};

}  // namespace litegraph::ops
