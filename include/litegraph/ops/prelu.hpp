// prelu: Out = X > 0 ? X : alpha * X, alpha from the input Alpha by `mode`:
//   "all"      one alpha;
//   "channel"  one per channel: dim 1 of X for data_format "NCHW", the last dim
//              for "NHWC" (X of rank >= 2);
//   "element"  one per element of a batch item (prod of X's dims after dim 0).
// float32.
#pragma once

#include <string>
#include <string_view>

#include "litegraph/ops/detail/window.hpp"

namespace litegraph::ops {

struct prelu {
    static constexpr std::string_view paddle_types[] = {"prelu"};
    static constexpr pir_name pir_names[] = {{"1.prelu", "prelu"}};
    enum class mode_t : std::uint8_t { all, channel, element };
    struct params {
        mode_t mode = mode_t::all;
        bool nhwc = false;
    };

    static params parse(const attr_map& a, std::string_view) {
        params p;
        const auto m = a.get<std::string>("mode", "all");
        if (m == "all")
            p.mode = mode_t::all;
        else if (m == "channel")
            p.mode = mode_t::channel;
        else if (m == "element")
            p.mode = mode_t::element;
        else
            throw unsupported_error("prelu: mode '" + m +
                                    "' is not supported (all, channel or element)");
        p.nhwc = detail::channels_last(a, "prelu");
        return p;
    }

    /// How many alphas the mode takes for X of `shape` (-1: not known yet).
    static std::int64_t alphas(const params& p, const op_io& io, const shape_t& s) {
        const auto rank = static_cast<std::int64_t>(s.size());
        switch (p.mode) {
            case mode_t::all:
                return 1;
            case mode_t::channel:
                io.check(rank >= 2, [&] {
                    return "mode channel needs X of rank >= 2, X has shape " + to_string(s);
                });
                return s[static_cast<std::size_t>(p.nhwc ? rank - 1 : 1)];
            case mode_t::element: {
                io.check(rank >= 1, "mode element needs X of rank >= 1");
                std::int64_t n = 1;
                for (std::size_t d = 1; d < s.size(); ++d) {
                    if (s[d] < 0) return -1;
                    n *= s[d];
                }
                return n;
            }
        }
        return -1;
    }

    static void check_alpha(const params& p, const op_io& io) {
        const auto& x = io.input("X");
        const auto& a = io.input("Alpha");
        io.check(a.type == dtype::f32,
                 [&] { return "Alpha must be float32, got " + std::string(name_of(a.type)); });
        const auto want = alphas(p, io, x.shape);
        io.check(want < 0 || !is_known(a.shape) || a.numel() == want, [&] {
            static constexpr const char* names[] = {"all", "channel", "element"};
            return "Alpha has shape " + to_string(a.shape) + " (" + std::to_string(a.numel()) +
                   " values), mode " + names[static_cast<int>(p.mode)] + " of X " +
                   to_string(x.shape) + " needs " + std::to_string(want);
        });
    }

    static void infer(const params& p, op_io& io) {
        const auto& x = io.input("X");
        io.check(x.type == dtype::f32,
                 [&] { return "X must be float32, got " + std::string(name_of(x.type)); });
        check_alpha(p, io);
        auto& out = io.output("Out");
        out.type = dtype::f32;
        out.shape = x.shape;
    }

    static void run(const params& p, op_io& io) {
        check_alpha(p, io);
        const auto& xt = io.input("X");
        const float* x = xt.as<float>();
        const float* alpha = io.input("Alpha").as<float>();
        auto& o = io.output("Out");
        float* out = o.as<float>();
        const std::int64_t n = o.numel();
        const auto& s = xt.shape;
        std::int64_t channels = 1, inner = 1;  // channel mode, NCHW: index (i / inner) % channels
        if (p.mode == mode_t::channel) {
            channels = alphas(p, io, s);
            if (!p.nhwc)
                for (std::size_t d = 2; d < s.size(); ++d) inner *= s[d];
        }
        const std::int64_t per_item = p.mode == mode_t::element ? alphas(p, io, s) : 1;
        for (std::int64_t i = 0; i < n; ++i) {
            std::int64_t k = 0;
            if (p.mode == mode_t::channel)
                k = (i / inner) % channels;
            else if (p.mode == mode_t::element)
                k = i % per_item;
            out[i] = x[i] > 0.f ? x[i] : alpha[k] * x[i];
        }
    }
};

}  // namespace litegraph::ops
