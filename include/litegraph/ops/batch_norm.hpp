// batch_norm, inference form: Y = (X - Mean) / sqrt(Variance + epsilon) * Scale + Bias
// per channel, with the stored (global) statistics.
//
// Slots: X [N, C, ...] (rank 2 to 5; channels last with data_layout NHWC),
// Scale, Bias, Mean, Variance [C] -> Y (shape of X).  The training outputs
// MeanOut / VarianceOut / SavedMean / SavedVariance / ReserveSpace are left
// unset, which the runtime reads as "not produced".  Attributes: epsilon,
// data_layout; is_test / use_global_stats / momentum do not matter for
// inference: the stored statistics are always used.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "litegraph/ops/op.hpp"

namespace litegraph::ops {

struct batch_norm {
    static constexpr std::string_view paddle_types[] = {"batch_norm"};
    static constexpr pir_name pir_names[] = {{"1.batch_norm_", "batch_norm"},
                                             {"1.batch_norm", "batch_norm"}};
    struct params {
        float epsilon = 1e-5f;
        bool channels_last = false;
    };

    static params parse(const attr_map& a, std::string_view type) {
        params p;
        p.epsilon = a.get<float>("epsilon", 1e-5f);
        auto layout = a.get<std::string>("data_layout", "NCHW");
        if (layout == "NHWC")
            p.channels_last = true;
        else if (layout != "NCHW" && layout != "AnyLayout" && !layout.empty())
            throw unsupported_error("op " + std::string(type) + ": data_layout '" + layout +
                                    "' is not supported");
        return p;
    }

    static std::int64_t channels(const params& p, const op_io& io) {
        const auto& x = io.input("X");
        io.check(x.type == dtype::f32,
                 [&] { return "X must be float32, got " + std::string(name_of(x.type)); });
        io.check(x.shape.size() >= 2 && x.shape.size() <= 5,
                 [&] { return "X must have rank 2 to 5, got shape " + to_string(x.shape); });
        const std::int64_t c = p.channels_last ? x.shape.back() : x.shape[1];
        for (const char* slot : {"Scale", "Bias", "Mean", "Variance"}) {
            const auto& t = io.input(slot);
            io.check(t.type == dtype::f32, [&] {
                return std::string(slot) + " must be float32, got " + std::string(name_of(t.type));
            });
            io.check(t.shape.size() == 1 && (c < 0 || t.shape[0] == c), [&] {
                return std::string(slot) + " shape " + to_string(t.shape) +
                       " does not match the channels " + std::to_string(c) + " of X shape " +
                       to_string(x.shape);
            });
        }
        return c;
    }

    static void infer(const params& p, op_io& io) {
        channels(p, io);
        const auto& x = io.input("X");
        auto& y = io.output("Y");
        y.type = dtype::f32;
        y.shape = x.shape;
    }

    static void run(const params& p, op_io& io) {
        const std::int64_t c = channels(p, io);
        const auto& xr = io.input("X");
        const float* x = xr.as<float>();
        float* y = io.output("Y").as<float>();
        const float* scale = io.input("Scale").as<float>();
        const float* bias = io.input("Bias").as<float>();
        const float* mean = io.input("Mean").as<float>();
        const float* var = io.input("Variance").as<float>();
        // Folded per channel as Paddle's kernel does: y = x * a + b.
        std::vector<float> a(c), b(c);
        for (std::int64_t k = 0; k < c; ++k) {
            const float inv_std = 1.f / std::sqrt(var[k] + p.epsilon);
            a[k] = scale[k] * inv_std;
            b[k] = bias[k] - mean[k] * a[k];
        }
        const std::int64_t total = xr.numel();
        if (c == 0 || total == 0) return;
        // Rows of C values (channels last) or planes (n, k), in ranges of
        // about 32K elements split over the pool: per element the same
        // arithmetic for every split.
        std::int64_t inner = 1;  // elements per (n, c): the spatial size
        if (!p.channels_last)
            for (std::size_t d = 2; d < xr.shape.size(); ++d) inner *= xr.shape[d];
        const std::int64_t run = p.channels_last ? c : inner, runs = total / run;
        const std::int64_t per = std::max<std::int64_t>(1, (std::int64_t{1} << 15) / run);
        parallel_tasks(io.pool, (runs + per - 1) / per, [&](std::int64_t t) {
            for (std::int64_t r = t * per; r < std::min(runs, (t + 1) * per); ++r) {
                const float* xp = x + r * run;
                float* yp = y + r * run;
                if (p.channels_last) {
                    for (std::int64_t k = 0; k < c; ++k) yp[k] = xp[k] * a[k] + b[k];
                    continue;
                }
                const float ak = a[r % c], bk = b[r % c];
                for (std::int64_t i = 0; i < inner; ++i) yp[i] = xp[i] * ak + bk;
            }
        });
    }
};

}  // namespace litegraph::ops
