// sequence_softmax: softmax within each sequence of X's last LoD level.  X is
// [N] or [N, 1] (one value per row), float32 or float64; Out has X's shape
// and LoD: per sequence, exp(x - max) divided by its sum.  Paddle's CPU
// kernel computes exp(x) / sum exp(x) without subtracting the max: the same
// values up to rounding, except that Paddle's overflow to NaN once exp(x) is
// infinite (x > 88 in float32) where this stays finite.  An empty sequence
// gives nothing.
#pragma once

#include <cmath>
#include <string>
#include <string_view>

#include "litegraph/ops/detail/sequence.hpp"

namespace litegraph::ops {

struct sequence_softmax {
    static constexpr std::string_view paddle_types[] = {"sequence_softmax"};
    static constexpr pir_name pir_names[] = {{"1.sequence_softmax", "sequence_softmax"}};
    struct params {};

    static params parse(const attr_map&, std::string_view) { return {}; }

    static void infer(const params&, op_io& io) {
        const auto& x = io.input("X");
        io.check(x.type == dtype::f32 || x.type == dtype::f64, [&] {
            return "X must be float32 or float64, got " + std::string(name_of(x.type));
        });
        io.check(x.shape.size() == 1 || (x.shape.size() == 2 && x.shape[1] == 1), [&] {
            return "X must be [N] or [N, 1] (one value per row), has shape " + to_string(x.shape);
        });
        detail::sequence_offsets(io, "X");
        auto& out = io.output("Out");
        out.type = x.type;
        out.shape = x.shape;
    }

    static void run(const params&, op_io& io) {
        if (io.input("X").type == dtype::f64)
            compute<double>(io);
        else
            compute<float>(io);
    }

private:
    template <class T>
    static void compute(op_io& io) {
        const auto& off = detail::sequence_offsets(io, "X");
        const T* x = io.input("X").as<T>();
        T* y = io.output("Out").as<T>();
        for (std::size_t s = 0; s + 1 < off.size(); ++s) {
            const std::int64_t b = off[s], e = off[s + 1];
            if (b == e) continue;
            T m = x[b];
            for (std::int64_t i = b + 1; i < e; ++i) m = x[i] > m ? x[i] : m;
            T sum = 0;
            for (std::int64_t i = b; i < e; ++i) {
                y[i] = std::exp(x[i] - m);
                sum += y[i];
            }
            for (std::int64_t i = b; i < e; ++i) y[i] /= sum;
        }
    }
};

}  // namespace litegraph::ops
