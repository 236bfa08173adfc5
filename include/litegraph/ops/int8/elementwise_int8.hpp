// elementwise_add_int8 / elementwise_mul_int8: X and Y int8 of one shape,
// attributes x_step, y_step and output_step (> 0: int8 output; 0: float32):
//   add: v = x * x_step + y * y_step        mul: v = (x * y) * (x_step * y_step)
// then the chain's quantize_store (or store), one loop.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "litegraph/kernels/epilogue.hpp"
#include "litegraph/ops/int8/quantize.hpp"

namespace litegraph::ops {

struct elementwise_int8 {
    static constexpr std::string_view paddle_types[] = {"elementwise_add_int8",
                                                        "elementwise_mul_int8"};
    static constexpr bool int8_kernel = true;
    static constexpr patch_kind patch = patch_kind::point;  // ops/op.hpp
    struct params {
        bool mul = false;
        float x_step = 1.f, y_step = 1.f, output_step = 0.f;
    };
    static params parse(const attr_map& a, std::string_view t) {
        params p;
        p.mul = t == "elementwise_mul_int8";
        p.x_step = int8_detail::parse_step(a, "x_step", t);
        p.y_step = int8_detail::parse_step(a, "y_step", t);
        p.output_step = int8_detail::output_step(a);
        if (p.output_step != 0.f) p.output_step = int8_detail::parse_step(a, "output_step", t);
        return p;
    }
    static void infer(const params& p, op_io& io) {
        const auto& x = int8_detail::typed(io, "X", dtype::i8);
        const auto& y = int8_detail::typed(io, "Y", dtype::i8);
        io.check(x.shape == y.shape, [&] {
            return "X " + to_string(x.shape) + " and Y " + to_string(y.shape) +
                   " must have one shape (no broadcasting in int8)";
        });
        auto& out = io.output("Out");
        out.type = p.output_step > 0.f ? dtype::i8 : dtype::f32;
        out.shape = x.shape;
    }
    static void run(const params& p, op_io& io) {
        const auto& xr = io.input("X");
        const auto* x = xr.as<std::int8_t>();
        const auto* y = io.input("Y").as<std::int8_t>();
        const std::int64_t n = xr.numel();
        auto loop = [&](auto* out, const auto& c) {
            const float xy = p.x_step * p.y_step;
            for (std::int64_t i = 0; i < n; ++i) {
                const float v = p.mul ? static_cast<float>(std::int32_t{x[i]} * y[i]) * xy
                                      : static_cast<float>(x[i]) * p.x_step +
                                            static_cast<float>(y[i]) * p.y_step;
                c.write(out, kernels::epilogue::at{0, 0, i}, v);
            }
        };
        if (p.output_step > 0.f) {
            kernels::epilogue::chain<kernels::epilogue::quantize_store> c{
                {kernels::epilogue::quantize_store{1.f / p.output_step}}};
            loop(io.output("Out").as<std::int8_t>(), c);
        } else {
            loop(io.output("Out").as<float>(), kernels::epilogue::chain<>{});
        }
    }
};

}  // namespace litegraph::ops
