// scale: Out = scale * X + bias (bias_after_scale) or scale * (X + bias).
// float32 (also the firmware form), float64, int8, uint8, int16, int32,
// int64: as Paddle's kernel, in X's dtype with scale and bias converted to it
// (an integer X truncates them toward zero; integer results wrap).
#pragma once

#include <string_view>
#include <tuple>
#include <type_traits>

#include "litegraph/kernels/elementwise.hpp"
#include "litegraph/ops/cast.hpp"
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
        io.check(x.type != dtype::f16 && x.type != dtype::boolean, [&] {
            return "X of dtype " + std::string(name_of(x.type)) + " is not supported";
        });
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
        if (io.input("X").type != dtype::f32)
            no_firmware_form("scale of " + std::string(name_of(io.input("X").type)) +
                             " (float32 only)");
        return {io.input("X").numel(), p.scale, p.bias_after_scale ? p.bias : p.bias * p.scale};
    }
    static constexpr std::size_t scratch_bytes(const form&) { return 0; }
    static void run_form(const form& f, const firmware_io& io) {
        const float s = f.scale, b = f.bias;
        kernels::map([s, b](float v) { return s * v + b; }, io.input<float>(0), io.output<float>(),
                     f.count);
    }

    static void run(const params& p, op_io& io) {
        const auto& x = io.input("X");
        if (x.type == dtype::f32) return run_firmware_form<scale>(p, io);
        visit_dtype(x.type, [&]<class T>(T) {
            if constexpr (!std::is_same_v<T, bool> && !std::is_same_v<T, float>) {
                const T s = convert_element<T>(p.scale), b = convert_element<T>(p.bias);
                const T* in = x.as<T>();
                T* o = io.output("Out").as<T>();
                const auto n = x.numel();
                if constexpr (std::is_floating_point_v<T>) {
                    for (std::int64_t i = 0; i < n; ++i)
                        o[i] = p.bias_after_scale ? s * in[i] + b : s * (in[i] + b);
                } else {
                    // Unsigned arithmetic: wraps where the signed one would overflow.
                    using U =
                        std::make_unsigned_t<std::conditional_t<(sizeof(T) < sizeof(int)), int, T>>;
                    const U us = static_cast<U>(s), ub = static_cast<U>(b);
                    for (std::int64_t i = 0; i < n; ++i) {
                        const U v = static_cast<U>(in[i]);
                        o[i] = static_cast<T>(p.bias_after_scale ? us * v + ub : us * (v + ub));
                    }
                }
            }
        });
    }
};

}  // namespace litegraph::ops
