// group_norm: the C channels of X [N, C, spatial...] (data_layout NCHW) or
// [N, spatial..., C] (NHWC), float32, split into `groups` groups of C /
// groups channels; each (n, group) is normalised over its channels and
// spatial values as Paddle's CPU kernel does,
//   mean = E[x], variance = max(E[x^2] - mean^2, 0),
//   Y = (X - mean) / sqrt(variance + epsilon) * Scale[c] + Bias[c]
// (Scale and Bias optional, C values).  Mean and Variance ([N, groups]) are
// written when the program declares them.  C must divide by groups.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "litegraph/ops/op.hpp"

namespace litegraph::ops {

struct group_norm {
    static constexpr std::string_view paddle_types[] = {"group_norm"};
    static constexpr pir_name pir_names[] = {{"1.group_norm", "group_norm"}};
    struct params {
        std::int64_t groups = 1;
        float epsilon = 1e-5f;
        bool nhwc = false;
    };

    static params parse(const attr_map& a, std::string_view type) {
        params p;
        p.groups = a.get<std::int64_t>("groups", 1);
        p.epsilon = a.get<float>("epsilon", 1e-5f);
        const auto f = a.get<std::string>("data_layout", "NCHW");
        if (f != "NCHW" && f != "NHWC" && f != "AnyLayout")
            throw unsupported_error("op " + std::string(type) + ": data_layout '" + f +
                                    "' is not supported (NCHW, NHWC)");
        p.nhwc = f == "NHWC";
        return p;
    }

    static std::int64_t check(const params& p, const op_io& io) {
        const auto& x = io.input("X");
        io.check(x.type == dtype::f32,
                 [&] { return "X must be float32, got " + std::string(name_of(x.type)); });
        io.check(x.shape.size() >= 2,
                 [&] { return "X must have rank >= 2, has shape " + to_string(x.shape); });
        const auto c = p.nhwc ? x.shape.back() : x.shape[1];
        io.check(p.groups >= 1,
                 [&] { return "groups " + std::to_string(p.groups) + " must be >= 1"; });
        io.check(c < 0 || c % p.groups == 0, [&] {
            return "the channels of X (" + std::to_string(c) + ") do not divide into " +
                   std::to_string(p.groups) + " groups";
        });
        for (const char* slot : {"Scale", "Bias"}) {
            if (!io.has_input(slot)) continue;
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
        check(p, io);
        const auto& x = io.input("X");
        auto& y = io.output("Y");
        y.type = dtype::f32;
        y.shape = x.shape;
        for (const char* s : {"Mean", "Variance"})
            if (io.has_output(s)) {
                auto& o = io.output(s);
                o.type = dtype::f32;
                o.shape = {x.shape[0], p.groups};
            }
    }

    static void run(const params& p, op_io& io) {
        const auto c = check(p, io);
        const auto& x = io.input("X");
        const auto n = x.shape[0];
        const std::int64_t image = n * c == 0 ? 0 : x.numel() / (n * c);  // spatial size
        const auto gs = c / p.groups;
        const float* in = x.as<float>();
        float* y = io.output("Y").as<float>();
        const float* scale = io.has_input("Scale") ? io.input("Scale").as<float>() : nullptr;
        const float* bias = io.has_input("Bias") ? io.input("Bias").as<float>() : nullptr;
        float* mean_out = io.has_output("Mean") ? io.output("Mean").as<float>() : nullptr;
        float* var_out = io.has_output("Variance") ? io.output("Variance").as<float>() : nullptr;
        // The flat index of (b, channel, spatial i).
        auto at = [&](std::int64_t b, std::int64_t ch, std::int64_t i) {
            return p.nhwc ? (b * image + i) * c + ch : (b * c + ch) * image + i;
        };
        for (std::int64_t b = 0; b < n; ++b)
            for (std::int64_t g = 0; g < p.groups; ++g) {
                double sum = 0, sq = 0;
                for (std::int64_t ch = g * gs; ch < (g + 1) * gs; ++ch)
                    for (std::int64_t i = 0; i < image; ++i) {
                        const double v = in[at(b, ch, i)];
                        sum += v;
                        sq += v * v;
                    }
                const double count = static_cast<double>(gs * image);
                const auto mean = count > 0 ? static_cast<float>(sum / count) : 0.f;
                const auto var =
                    count > 0 ? std::max(static_cast<float>(sq / count) - mean * mean, 0.f) : 0.f;
                const float inv = 1.f / std::sqrt(var + p.epsilon);
                if (mean_out) mean_out[b * p.groups + g] = mean;
                if (var_out) var_out[b * p.groups + g] = var;
                for (std::int64_t ch = g * gs; ch < (g + 1) * gs; ++ch) {
                    const float s = scale ? scale[ch] : 1.f, sh = bias ? bias[ch] : 0.f;
                    for (std::int64_t i = 0; i < image; ++i) {
                        const auto k = at(b, ch, i);
                        y[k] = (in[k] - mean) * inv * s + sh;
                    }
                }
            }
    }
};

}  // namespace litegraph::ops
