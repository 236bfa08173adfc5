// scale: Out = scale * X + bias (bias_after_scale) or scale * (X + bias).
#pragma once

#include <string_view>

#include "litegraph/ops/op.hpp"

namespace litegraph::ops {

struct scale {
    static constexpr std::string_view paddle_types[] = {"scale"};
    /// In place of X when X is its only input (no ScaleTensor).
    static constexpr in_place_rule in_place = in_place_rule::unary;
    struct params {
        float scale = 1.f;
        float bias = 0.f;
        bool bias_after_scale = true;
    };

    static params parse(const attr_map& a, std::string_view) {
        return {a.get<float>("scale", 1.f), a.get<float>("bias", 0.f),
                a.get<bool>("bias_after_scale", true)};
    }

    static void infer(const params&, op_io& io) {
        const auto& x = io.input("X");
        io.check(x.type == dtype::f32,
                 [&] { return "X must be float32, got " + std::string(name_of(x.type)); });
        io.check(!io.has_input("ScaleTensor"), "a ScaleTensor input is not supported");
        auto& out = io.output("Out");
        out.type = x.type;
        out.shape = x.shape;
    }

    static void run(const params& p, op_io& io) {
        auto x = io.input("X").span<float>();
        auto out = io.output("Out").span<float>();
        const float b = p.bias_after_scale ? p.bias : p.bias * p.scale;
        for (std::size_t i = 0; i < x.size(); ++i) out[i] = p.scale * x[i] + b;
    }
};

}  // namespace litegraph::ops
