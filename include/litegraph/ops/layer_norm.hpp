// layer_norm: X viewed as [left, right] with left = prod(dims before
// `begin_norm_axis`) and right = prod(the rest); every row is normalised,
//   Y = (X - mean) / sqrt(variance + epsilon) * Scale + Bias,
// with the biased variance over the row.  Scale and Bias are optional, each
// `right` values (Paddle keeps them 1-D).  The Mean and Variance outputs
// (training statistics, ignored by inference) are computed when the program
// declares them, shaped as X's dims before `begin_norm_axis` (Paddle 3.x; the
// old op set declares [left], the same values).  float32.
#pragma once

#include <cmath>
#include <string>
#include <string_view>

#include "litegraph/ops/detail/shape_args.hpp"

namespace litegraph::ops {

struct layer_norm {
    static constexpr std::string_view paddle_types[] = {"layer_norm"};
    static constexpr pir_name pir_names[] = {{"1.layer_norm", "layer_norm"}};
    struct params {
        std::int64_t begin_norm_axis = 1;
        float epsilon = 1e-5f;
    };

    static params parse(const attr_map& a, std::string_view) {
        return {a.get<std::int64_t>("begin_norm_axis", 1), a.get<float>("epsilon", 1e-5f)};
    }

    static std::int64_t begin_axis(const params& p, const op_io& io, std::int64_t rank) {
        io.check(rank >= 1, "X must have rank >= 1");
        return detail::normalize_axis(io, p.begin_norm_axis, rank, "begin_norm_axis");
    }

    /// The product of dims [from, to) of `s`, -1 when one is unknown.
    static std::int64_t product(const shape_t& s, std::int64_t from, std::int64_t to) {
        std::int64_t n = 1;
        for (auto d = from; d < to; ++d) {
            if (s[static_cast<std::size_t>(d)] < 0) return -1;
            n *= s[static_cast<std::size_t>(d)];
        }
        return n;
    }

    static void check_affine(const op_io& io, const char* slot, std::int64_t right) {
        if (!io.has_input(slot)) return;
        const auto& t = io.input(slot);
        io.check(t.type == dtype::f32, [&] {
            return std::string(slot) + " must be float32, got " + std::string(name_of(t.type));
        });
        const auto n = product(t.shape, 0, static_cast<std::int64_t>(t.shape.size()));
        io.check(n < 0 || right < 0 || n == right, [&] {
            return std::string(slot) + " has shape " + to_string(t.shape) + " (" +
                   std::to_string(n) + " values), the normalised dims hold " +
                   std::to_string(right) + " values";
        });
    }

    static void infer(const params& p, op_io& io) {
        const auto& x = io.input("X");
        io.check(x.type == dtype::f32,
                 [&] { return "X must be float32, got " + std::string(name_of(x.type)); });
        const auto rank = static_cast<std::int64_t>(x.shape.size());
        const auto begin = begin_axis(p, io, rank);
        const auto right = product(x.shape, begin, rank);
        check_affine(io, "Scale", right);
        check_affine(io, "Bias", right);
        auto& y = io.output("Y");
        y.type = dtype::f32;
        y.shape = x.shape;
        for (const char* s : {"Mean", "Variance"})
            if (io.has_output(s)) {
                auto& o = io.output(s);
                o.type = dtype::f32;
                o.shape = shape_t(x.shape.begin(), x.shape.begin() + begin);
            }
    }

    static void run(const params& p, op_io& io) {
        const auto& xt = io.input("X");
        const auto rank = static_cast<std::int64_t>(xt.shape.size());
        const auto begin = begin_axis(p, io, rank);
        const auto left = product(xt.shape, 0, begin);
        const auto right = product(xt.shape, begin, rank);
        check_affine(io, "Scale", right);
        check_affine(io, "Bias", right);
        const float* x = xt.as<float>();
        const float* scale = io.has_input("Scale") ? io.input("Scale").as<float>() : nullptr;
        const float* bias = io.has_input("Bias") ? io.input("Bias").as<float>() : nullptr;
        float* y = io.output("Y").as<float>();
        float* mean_out = io.has_output("Mean") ? io.output("Mean").as<float>() : nullptr;
        float* var_out = io.has_output("Variance") ? io.output("Variance").as<float>() : nullptr;
        for (std::int64_t r = 0; r < left; ++r) {
            const float* xr = x + r * right;
            float* yr = y + r * right;
            // Two passes in double: the mean, then the squared deviations
            // (no cancellation from E[x^2] - E[x]^2).
            double sum = 0;
            for (std::int64_t i = 0; i < right; ++i) sum += xr[i];
            const double mean = right ? sum / static_cast<double>(right) : 0.0;
            double sq = 0;
            for (std::int64_t i = 0; i < right; ++i) sq += (xr[i] - mean) * (xr[i] - mean);
            const double var = right ? sq / static_cast<double>(right) : 0.0;
            const double inv = 1.0 / std::sqrt(var + static_cast<double>(p.epsilon));
            for (std::int64_t i = 0; i < right; ++i) {
                double v = (xr[i] - mean) * inv;
                if (scale) v *= scale[i];
                if (bias) v += bias[i];
                yr[i] = static_cast<float>(v);
            }
            if (mean_out) mean_out[r] = static_cast<float>(mean);
            if (var_out) var_out[r] = static_cast<float>(var);
        }
    }
};

}  // namespace litegraph::ops
