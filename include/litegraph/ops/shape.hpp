// shape: Out (int32, [rank]) holds the dims of Input.  It depends on shapes
// only, so the runtime computes it before any data is known.
#pragma once

#include <limits>
#include <string_view>

#include "litegraph/ops/op.hpp"

namespace litegraph::ops {

struct shape {
    static constexpr std::string_view paddle_types[] = {"shape"};
    static constexpr bool folds_from_shapes = true;
    struct params {};

    static params parse(const attr_map&, std::string_view) { return {}; }

    static void infer(const params&, op_io& io) {
        const auto& in = io.input("Input");
        for (auto d : in.shape)
            io.check(d >= 0 && d <= std::numeric_limits<std::int32_t>::max(), [&] {
                return "Input has shape " + to_string(in.shape) +
                       ": a dim is unknown or does not fit int32";
            });
        auto& out = io.output("Out");
        out.type = dtype::i32;
        out.shape = {static_cast<std::int64_t>(in.shape.size())};
    }

    static void run(const params&, op_io& io) {
        const auto& in = io.input("Input");
        auto out = io.output("Out").span<std::int32_t>();
        for (std::size_t i = 0; i < out.size(); ++i)
            out[i] = static_cast<std::int32_t>(in.shape[i]);
    }
};

}  // namespace litegraph::ops
