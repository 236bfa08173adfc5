// shape: Out ([rank]) holds the dims of Input, int32 (Paddle's shape op) or,
// with the attribute `dtype` = 3 (Paddle's INT64 code; what the PIR loader sets
// for `1.shape64`), int64.  It depends on shapes only, so the runtime computes
// it before any data is known.
#pragma once

#include <limits>
#include <string_view>

#include "litegraph/ops/op.hpp"

namespace litegraph::ops {

struct shape {
    static constexpr std::string_view paddle_types[] = {"shape"};
    static constexpr pir_name pir_names[] = {{"1.shape", "shape"}, {"1.shape64", "shape"}};
    static constexpr bool folds_from_shapes = true;
    struct params {
        dtype type = dtype::i32;
    };

    static params parse(const attr_map& a, std::string_view) {
        const auto code = a.get<std::int32_t>("dtype", 2);  // Paddle's INT32
        const auto t = dtype_from_paddle(code);
        if (t != dtype::i32 && t != dtype::i64)
            throw unsupported_error("op shape: dtype " + std::to_string(code) +
                                    " is neither int32 (2) nor int64 (3)");
        return {*t};
    }

    static void infer(const params& p, op_io& io) {
        const auto& in = io.input("Input");
        for (auto d : in.shape)
            io.check(
                d >= 0 && (p.type == dtype::i64 || d <= std::numeric_limits<std::int32_t>::max()),
                [&] {
                    return "Input has shape " + to_string(in.shape) +
                           ": a dim is unknown or does not fit int32";
                });
        auto& out = io.output("Out");
        out.type = p.type;
        out.shape = {static_cast<std::int64_t>(in.shape.size())};
    }

    static void run(const params& p, op_io& io) {
        const auto& in = io.input("Input");
        if (p.type == dtype::i64) {
            auto out = io.output("Out").span<std::int64_t>();
            for (std::size_t i = 0; i < out.size(); ++i) out[i] = in.shape[i];
            return;
        }
        auto out = io.output("Out").span<std::int32_t>();
        for (std::size_t i = 0; i < out.size(); ++i)
            out[i] = static_cast<std::int32_t>(in.shape[i]);
    }
};

}  // namespace litegraph::ops
