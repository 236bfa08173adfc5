// shuffle_channel (fluid) and channel_shuffle (Paddle 2.3+): ShuffleNet's
// channel shuffle.  X [N, C, H, W] (channel_shuffle also NHWC) seen as
// [N, g, C/g, H, W] and transposed to [N, C/g, g, H, W]: output channel
// i*g + j is input channel j*(C/g) + i.  Attribute `group` (shuffle_channel)
// or `groups` (channel_shuffle).  Any dtype.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "litegraph/ops/detail/window.hpp"

namespace litegraph::ops {

struct channel_shuffle {
    static constexpr std::string_view paddle_types[] = {"shuffle_channel", "channel_shuffle"};
    static constexpr pir_name pir_names[] = {{"1.channel_shuffle", "channel_shuffle"}};
    struct params {
        std::int64_t groups = 1;
        bool nhwc = false;
    };

    static params parse(const attr_map& a, std::string_view type) {
        params p;
        const bool v1 = type == "shuffle_channel";
        p.groups = a.get<std::int64_t>(v1 ? "group" : "groups", 1);
        if (!v1) p.nhwc = detail::channels_last(a, type);
        if (p.groups < 1)
            throw unsupported_error("op " + std::string(type) + ": " + (v1 ? "group " : "groups ") +
                                    std::to_string(p.groups) + " must be positive");
        return p;
    }

    static void infer(const params& p, op_io& io) {
        const auto& x = io.input("X");
        io.check(x.shape.size() == 4,
                 [&] { return "X must be 4-D, has shape " + to_string(x.shape); });
        const auto c = x.shape[p.nhwc ? 3 : 1];
        io.check(c < 0 || c % p.groups == 0, [&] {
            return "the channels of X (" + std::to_string(c) + ") are not a multiple of the " +
                   std::to_string(p.groups) + " groups";
        });
        auto& out = io.output("Out");
        out.type = x.type;
        out.shape = x.shape;
    }

    static void run(const params& p, op_io& io) {
        infer(p, io);
        const auto& x = io.input("X");
        const auto& out = io.output("Out");
        if (x.numel() == 0) return;  // (and no data pointers to copy between)
        const auto n = x.shape[0];
        const auto c = x.shape[p.nhwc ? 3 : 1];
        const auto hw = x.shape[p.nhwc ? 1 : 2] * x.shape[p.nhwc ? 2 : 3];
        const auto g = p.groups, per = c / g;
        const auto es = static_cast<std::size_t>(size_of(x.type));
        // Output channel i*g + j reads input channel j*per + i.
        for (std::int64_t b = 0; b < n; ++b)
            for (std::int64_t i = 0; i < per; ++i)
                for (std::int64_t j = 0; j < g; ++j) {
                    const auto oc = i * g + j, ic = j * per + i;
                    if (!p.nhwc) {
                        std::memcpy(out.data + static_cast<std::size_t>((b * c + oc) * hw) * es,
                                    x.data + static_cast<std::size_t>((b * c + ic) * hw) * es,
                                    static_cast<std::size_t>(hw) * es);
                        continue;
                    }
                    for (std::int64_t s = 0; s < hw; ++s)
                        std::memcpy(out.data + static_cast<std::size_t>((b * hw + s) * c + oc) * es,
                                    x.data + static_cast<std::size_t>((b * hw + s) * c + ic) * es,
                                    es);
                }
    }
};

}  // namespace litegraph::ops
