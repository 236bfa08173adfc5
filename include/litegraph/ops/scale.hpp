// scale: Out = scale * X + bias (bias_after_scale) or scale * (X + bias).
#pragma once

#include <string_view>
#include <tuple>

#include "litegraph/kernels/elementwise.hpp"
#include "litegraph/ops/firmware.hpp"
#include "litegraph/ops/op.hpp"

namespace litegraph::ops {

struct scale {
    static constexpr std::string_view paddle_types[] = {"scale"};
    static constexpr pir_name pir_names[] = {{"1.scale", "scale"}};
    /// In place of X when X is its only input (no ScaleTensor).
    static constexpr in_place_rule in_place = in_place_rule::unary;
    /// Point-wise in a patched stage (ops/op.hpp).
    static constexpr patch_kind patch = patch_kind::point;
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

    /// The firmware form (ops/firmware.hpp): Out = scale * X + bias, the bias
    /// already scaled when it comes before the scale.
    struct form {
        std::int64_t count = 0;
        float scale = 1.f, bias = 0.f;
        constexpr auto fields() const { return std::tie(count, scale, bias); }
    };
    static constexpr std::string_view firmware_inputs[] = {"X"};
    static constexpr std::string_view firmware_output = "Out";
    static form form_of(const params& p, const op_io& io) {
        return {io.input("X").numel(), p.scale, p.bias_after_scale ? p.bias : p.bias * p.scale};
    }
    static constexpr std::size_t scratch_bytes(const form&) { return 0; }
    static void run_form(const form& f, const firmware_io& io) {
        const float s = f.scale, b = f.bias;
        kernels::map([s, b](float v) { return s * v + b; }, io.input<float>(0), io.output<float>(),
                     f.count);
    }

    static void run(const params& p, op_io& io) { run_firmware_form<scale>(p, io); }
};

}  // namespace litegraph::ops
