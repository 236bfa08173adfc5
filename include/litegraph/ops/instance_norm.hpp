// instance_norm: every (n, c) plane of X [N, C, spatial...] (float32, rank
// 2 to 5) is normalised over its spatial values,
//   Y = (X - mean) * 1 / sqrt(variance + epsilon) * Scale[c] + Bias[c]
// (the biased variance; Scale and Bias optional, C values).  SavedMean and
// SavedVariance ([N*C]: the means and the 1 / sqrt(variance + epsilon), as
// Paddle) are written when the program declares them.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "litegraph/ops/op.hpp"

namespace litegraph::ops {

struct instance_norm {
    static constexpr std::string_view paddle_types[] = {"instance_norm"};
    static constexpr pir_name pir_names[] = {{"1.instance_norm", "instance_norm"}};
    struct params {
        float epsilon = 1e-5f;
    };

    static params parse(const attr_map& a, std::string_view) {
        return {a.get<float>("epsilon", 1e-5f)};
    }

    static void check(const op_io& io) {
        const auto& x = io.input("X");
        io.check(x.type == dtype::f32,
                 [&] { return "X must be float32, got " + std::string(name_of(x.type)); });
        io.check(x.shape.size() >= 2 && x.shape.size() <= 5,
                 [&] { return "X must have rank 2 to 5, has shape " + to_string(x.shape); });
        const auto c = x.shape[1];
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
    }

    static void infer(const params&, op_io& io) {
        check(io);
        const auto& x = io.input("X");
        auto& y = io.output("Y");
        y.type = dtype::f32;
        y.shape = x.shape;
        const auto nc = x.shape[0] < 0 || x.shape[1] < 0 ? -1 : x.shape[0] * x.shape[1];
        for (const char* s : {"SavedMean", "SavedVariance"})
            if (io.has_output(s)) {
                auto& o = io.output(s);
                o.type = dtype::f32;
                o.shape = {nc};
            }
    }

    static void run(const params& p, op_io& io) {
        check(io);
        const auto& x = io.input("X");
        const auto n = x.shape[0], c = x.shape[1];
        const auto planes = n * c;
        const std::int64_t size = planes == 0 ? 0 : x.numel() / planes;
        const float* in = x.as<float>();
        float* y = io.output("Y").as<float>();
        const float* scale = io.has_input("Scale") ? io.input("Scale").as<float>() : nullptr;
        const float* bias = io.has_input("Bias") ? io.input("Bias").as<float>() : nullptr;
        float* saved_mean =
            io.has_output("SavedMean") ? io.output("SavedMean").as<float>() : nullptr;
        float* saved_inv =
            io.has_output("SavedVariance") ? io.output("SavedVariance").as<float>() : nullptr;
        for (std::int64_t pc = 0; pc < planes; ++pc) {
            const float* xp = in + pc * size;
            double sum = 0;
            for (std::int64_t i = 0; i < size; ++i) sum += xp[i];
            const auto mean = static_cast<float>(sum / static_cast<double>(size));
            double sq = 0;
            for (std::int64_t i = 0; i < size; ++i) {
                const double d = static_cast<double>(xp[i]) - mean;
                sq += d * d;
            }
            const auto var = static_cast<float>(sq / static_cast<double>(size));
            const float inv = 1.f / std::sqrt(var + p.epsilon);
            const auto ch = pc % c;
            const float s = scale ? scale[ch] : 1.f, b = bias ? bias[ch] : 0.f;
            float* yp = y + pc * size;
            for (std::int64_t i = 0; i < size; ++i) yp[i] = (xp[i] - mean) * inv * s + b;
            if (saved_mean) saved_mean[pc] = mean;
            if (saved_inv) saved_inv[pc] = inv;
        }
    }
};

}  // namespace litegraph::ops
