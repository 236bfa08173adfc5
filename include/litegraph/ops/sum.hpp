// sum: Out = X[0] + X[1] + ... over a list of tensors of one shape and dtype
// (float32, float64, int32, int64), added in list order.  Out shares X[0]'s
// LoD (Paddle's ShareLoD).  Paddle's SelectedRows inputs do not occur in
// inference models.
#pragma once

#include <string>
#include <string_view>

#include "litegraph/ops/op.hpp"

namespace litegraph::ops {

struct sum {
    static constexpr std::string_view paddle_types[] = {"sum"};
    static constexpr bool sets_lod = true;
    struct params {};

    static params parse(const attr_map&, std::string_view) { return {}; }

    static void infer(const params&, op_io& io) {
        const auto n = io.input_count("X");
        io.check(n > 0, "X has no inputs");
        const auto& x0 = io.input("X");
        io.check(
            x0.type == dtype::f32 || x0.type == dtype::f64 || x0.type == dtype::i32 ||
                x0.type == dtype::i64,
            [&] { return "X of dtype " + std::string(name_of(x0.type)) + " is not supported"; });
        for (std::size_t i = 1; i < n; ++i) {
            const auto& xi = io.input("X", i);
            io.check(xi.type == x0.type && xi.shape == x0.shape, [&] {
                return "X #" + std::to_string(i) + " ('" + std::string(xi.name) + "') is " +
                       std::string(name_of(xi.type)) + " " + to_string(xi.shape) + " but X #0 is " +
                       std::string(name_of(x0.type)) + " " + to_string(x0.shape);
            });
        }
        auto& out = io.output("Out");
        out.type = x0.type;
        out.shape = x0.shape;
        out.lod = x0.lod;
    }

    static void run(const params&, op_io& io) {
        const auto& x0 = io.input("X");
        const auto& out = io.output("Out");
        const auto n = x0.numel();
        visit_dtype(x0.type, [&]<class T>(T) {
            if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
                T* o = out.as<T>();
                const T* a = x0.as<T>();
                for (std::int64_t i = 0; i < n; ++i) o[i] = a[i];
                for (std::size_t k = 1; k < io.input_count("X"); ++k) {
                    const T* b = io.input("X", k).as<T>();
                    for (std::int64_t i = 0; i < n; ++i) o[i] = static_cast<T>(o[i] + b[i]);
                }
            }
        });
    }
};

}  // namespace litegraph::ops
