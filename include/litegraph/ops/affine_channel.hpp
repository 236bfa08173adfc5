// affine_channel: Out = X * Scale[c] + Bias[c] per channel c (dim 1, or the
// last dim with data_layout NHWC); X float32 of rank >= 2, Scale and Bias
// float32 of C values.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "litegraph/ops/op.hpp"

namespace litegraph::ops {

struct affine_channel {
    static constexpr std::string_view paddle_types[] = {"affine_channel"};
    static constexpr pir_name pir_names[] = {{"1.affine_channel", "affine_channel"}};
    struct params {
        bool nhwc = false;
    };

    static params parse(const attr_map& a, std::string_view type) {
        const auto f = a.get<std::string>("data_layout", "AnyLayout");
        if (f != "NCHW" && f != "NHWC" && f != "AnyLayout" && !f.empty())
            throw unsupported_error("op " + std::string(type) + ": data_layout '" + f +
                                    "' is not supported (NCHW, NHWC)");
        return {f == "NHWC"};
    }

    static std::int64_t channels(const params& p, const op_io& io) {
        const auto& x = io.input("X");
        io.check(x.type == dtype::f32,
                 [&] { return "X must be float32, got " + std::string(name_of(x.type)); });
        io.check(x.shape.size() >= 2,
                 [&] { return "X must have rank >= 2, has shape " + to_string(x.shape); });
        const auto c = p.nhwc ? x.shape.back() : x.shape[1];
        for (const char* slot : {"Scale", "Bias"}) {
            const auto& t = io.input(slot);
            io.check(t.type == dtype::f32, [&] {
                return std::string(slot) + " must be float32, got " + std::string(name_of(t.type));
            });
            io.check(c < 0 || t.numel() == c, [&] {
                return std::string(slot) + " has shape " + to_string(t.shape) + ", X has " +
                       std::to_string(c) + " channels";
            });
        }
        return c;
    }

    static void infer(const params& p, op_io& io) {
        channels(p, io);
        auto& out = io.output("Out");
        out.type = dtype::f32;
        out.shape = io.input("X").shape;
    }

    static void run(const params& p, op_io& io) {
        const auto c = channels(p, io);
        const auto& x = io.input("X");
        const float* in = x.as<float>();
        const float* s = io.input("Scale").as<float>();
        const float* b = io.input("Bias").as<float>();
        float* out = io.output("Out").as<float>();
        const auto n = x.numel();
        if (n == 0) return;
        // NCHW: [outer, C, inner]; NHWC: [outer, C].
        const std::int64_t inner = p.nhwc ? 1 : n / (x.shape[0] * c);
        for (std::int64_t i = 0; i < n; ++i) {
            const auto ch = (i / inner) % c;
            out[i] = in[i] * s[ch] + b[ch];
        }
    }
};

}  // namespace litegraph::ops
