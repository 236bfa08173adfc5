// clip: Out = min(max(X, min), max).  The bounds are the attributes `min` and
// `max`, or the one-value float32 inputs Min / Max when given (their value is
// read at run time).  min > max is an error, as in Paddle.  float32.
#pragma once

#include <string>
#include <string_view>

#include "litegraph/ops/op.hpp"

namespace litegraph::ops {

struct clip {
    static constexpr std::string_view paddle_types[] = {"clip"};
    static constexpr pir_name pir_names[] = {{"1.clip", "clip"}};
    struct params {
        float min = 0.f;
        float max = 0.f;
    };

    static params parse(const attr_map& a, std::string_view) {
        return {a.get<float>("min", 0.f), a.get<float>("max", 0.f)};
    }

    static void check_bound_input(const op_io& io, const char* slot) {
        if (!io.has_input(slot)) return;
        const auto& t = io.input(slot);
        io.check(t.type == dtype::f32 && (!is_known(t.shape) || t.numel() == 1), [&] {
            return std::string(slot) + " must be one float32 value, got " +
                   std::string(name_of(t.type)) + " of shape " + to_string(t.shape);
        });
    }

    /// The bound from input `slot` when given and its value is known, else `attr`.
    static float bound(const op_io& io, const char* slot, float attr) {
        if (!io.has_input(slot)) return attr;
        const auto& t = io.input(slot);
        return t.has_data() ? *t.as<float>() : attr;
    }

    static void check_order(const op_io& io, float lo, float hi) {
        io.check(!(lo > hi), [&] {
            return "min " + std::to_string(lo) + " is greater than max " + std::to_string(hi);
        });
    }

    static void infer(const params& p, op_io& io) {
        const auto& x = io.input("X");
        io.check(x.type == dtype::f32,
                 [&] { return "X must be float32, got " + std::string(name_of(x.type)); });
        check_bound_input(io, "Min");
        check_bound_input(io, "Max");
        // Bounds given as inputs are checked at run, unless known already.
        check_order(io, bound(io, "Min", p.min), bound(io, "Max", p.max));
        auto& out = io.output("Out");
        out.type = dtype::f32;
        out.shape = x.shape;
    }

    static void run(const params& p, op_io& io) {
        check_bound_input(io, "Min");
        check_bound_input(io, "Max");
        const float lo = bound(io, "Min", p.min), hi = bound(io, "Max", p.max);
        check_order(io, lo, hi);
        const float* x = io.input("X").as<float>();
        auto& o = io.output("Out");
        float* out = o.as<float>();
        const std::int64_t n = o.numel();
        for (std::int64_t i = 0; i < n; ++i) {
            const float v = x[i] < lo ? lo : x[i];
            out[i] = v > hi ? hi : v;
        }
    }
};

}  // namespace litegraph::ops
