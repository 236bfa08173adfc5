// gru: Paddle's LoD GRU (fluid's dynamic_gru) over each sequence of a level-1
// LoD tensor.  Input [T, 3D] is the already projected x (x W_x), its 3D
// columns ordered update gate u, reset gate r, candidate c.  Weight [D, 3D]
// holds, as Paddle lays it out in memory, first the [D, 2D] weights of u and r
// (row-major, D * 2D values), then the [D, D] weights of the candidate: it is
// not a column split of a [D, 3D] matrix.  Bias [1, 3D] is optional.  Per
// step, as Paddle's CPU kernel (funcs/detail/gru_kernel.h):
//   g = Input[t] + Bias
//   u = act_gate(g_u + h_prev W_u)      r = act_gate(g_r + h_prev W_r)
//   c = act(g_c + (r * h_prev) W_c)
//   h = u * h_prev + c - u * c          (origin_mode)
//   h = h_prev - u * h_prev + u * c     (otherwise)
// is_reverse runs each sequence from its last row to its first.  H0 ([S, D],
// one row per sequence) starts the state; zeros without it.  Hidden is [T, D]
// with Input's LoD.  Activations (`activation`, `gate_activation`): sigmoid
// (input clipped to [-40, 13]), tanh, relu, identity, as Paddle's.  The batch
// outputs BatchGate, BatchResetHiddenPrev and BatchHidden (Paddle's reordered
// intermediates, for training) are not produced: the runtime treats them as
// absent, and a model reading one fails naming it.  float32 and float64.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "litegraph/ops/detail/sequence.hpp"
#include "litegraph/ops/lstm.hpp"

namespace litegraph::ops {

struct gru {
    static constexpr std::string_view paddle_types[] = {"gru"};
    static constexpr pir_name pir_names[] = {{"1.gru", "gru"}};
    using act = lstm::act;
    struct params {
        act node = act::tanh;
        act gate = act::sigmoid;
        bool is_reverse = false;
        bool origin_mode = false;
    };

    // Paddle names the activations by their op types.
    static act parse_act(const attr_map& a, const char* name, std::string_view fallback) {
        const auto s = a.get<std::string>(name, std::string(fallback));
        if (s == ops::act::sigmoid::paddle_type) return act::sigmoid;
        if (s == ops::act::tanh::paddle_type) return act::tanh;
        if (s == ops::act::relu::paddle_type) return act::relu;
        if (s == "identity" || s == "linear" || s.empty()) return act::identity;
        throw unsupported_error("gru: " + std::string(name) + " '" + s +
                                "' is not supported (sigmoid, tanh, relu, identity)");
    }

    static params parse(const attr_map& a, std::string_view) {
        params p;
        p.node = parse_act(a, "activation", ops::act::tanh::paddle_type);
        p.gate = parse_act(a, "gate_activation", ops::act::sigmoid::paddle_type);
        p.is_reverse = a.get<bool>("is_reverse", false);
        p.origin_mode = a.get<bool>("origin_mode", false);
        return p;
    }

    static void infer(const params&, op_io& io) {
        const auto& x = io.input("Input");
        const auto& w = io.input("Weight");
        io.check(x.type == dtype::f32 || x.type == dtype::f64, [&] {
            return "Input must be float32 or float64, got " + std::string(name_of(x.type));
        });
        io.check(w.type == x.type, "Weight must have Input's dtype");
        io.check(w.shape.size() == 2 && w.shape[1] == 3 * w.shape[0],
                 [&] { return "Weight must be [D, 3D], has shape " + to_string(w.shape); });
        const std::int64_t d = w.shape[0];
        io.check(x.shape.size() == 2 && x.shape[1] == 3 * d, [&] {
            return "Input must be [T, 3D] = [T, " + std::to_string(3 * d) + "], has shape " +
                   to_string(x.shape);
        });
        if (io.input_count("Bias") > 0) {
            const auto& b = io.input("Bias");
            io.check(b.type == x.type && b.shape == shape_t{1, 3 * d}, [&] {
                return "Bias must be [1, 3D] = [1, " + std::to_string(3 * d) + "] of Input's " +
                       "dtype, has shape " + to_string(b.shape);
            });
        }
        io.check(x.lod.size() <= 1, [&] {
            return "Input has a LoD of " + std::to_string(x.lod.size()) +
                   " levels; gru takes one level";
        });
        const auto& offsets = detail::sequence_offsets(io, "Input");
        const auto seqs = static_cast<std::int64_t>(offsets.size()) - 1;
        if (io.input_count("H0") > 0) {
            const auto& h = io.input("H0");
            io.check(h.type == x.type && h.shape == shape_t{seqs, d}, [&] {
                return "H0 must be [sequences, D] = [" + std::to_string(seqs) + ", " +
                       std::to_string(d) + "], has shape " + to_string(h.shape);
            });
        }
        auto& o = io.output("Hidden");
        o.type = x.type;
        o.shape = {x.shape[0], d};
    }

    static void run(const params& p, op_io& io) {
        if (io.input("Input").type == dtype::f64)
            compute<double>(p, io);
        else
            compute<float>(p, io);
    }

private:
    template <class T>
    static void compute(const params& p, op_io& io) {
        const auto& offsets = detail::sequence_offsets(io, "Input");
        const T* in = io.input("Input").as<T>();
        const T* w = io.input("Weight").as<T>();
        const std::int64_t d = io.input("Weight").shape[0];
        const T* bias = io.input_count("Bias") ? io.input("Bias").as<T>() : nullptr;
        const T* h0 = io.input_count("H0") ? io.input("H0").as<T>() : nullptr;
        T* hidden = io.output("Hidden").as<T>();
        const T* w_gates = w;              // [D, 2D]: u and r
        const T* w_state = w + 2 * d * d;  // [D, D]: candidate
        const auto n = static_cast<std::size_t>(d);
        std::vector<T> g(3 * n), h_prev(n), reset_h(n);
        for (std::size_t s = 0; s + 1 < offsets.size(); ++s) {
            const std::int64_t b = offsets[s], e = offsets[s + 1];
            for (std::int64_t k = 0; k < d; ++k)
                h_prev[k] = h0 ? h0[static_cast<std::int64_t>(s) * d + k] : T(0);
            for (std::int64_t step = 0; step < e - b; ++step) {
                const std::int64_t t = p.is_reverse ? e - 1 - step : b + step;
                for (std::int64_t j = 0; j < 3 * d; ++j)
                    g[j] = in[t * 3 * d + j] + (bias ? bias[j] : T(0));
                for (std::int64_t k = 0; k < d; ++k) {
                    const T hk = h_prev[k];
                    const T* wr = w_gates + k * 2 * d;
                    for (std::int64_t j = 0; j < 2 * d; ++j) g[j] += hk * wr[j];
                }
                for (std::int64_t k = 0; k < d; ++k) {
                    g[k] = lstm::activate(p.gate, g[k]);
                    g[d + k] = lstm::activate(p.gate, g[d + k]);
                    reset_h[k] = h_prev[k] * g[d + k];
                }
                for (std::int64_t k = 0; k < d; ++k) {
                    const T rk = reset_h[k];
                    const T* wr = w_state + k * d;
                    for (std::int64_t j = 0; j < d; ++j) g[2 * d + j] += rk * wr[j];
                }
                T* ho = hidden + t * d;
                for (std::int64_t k = 0; k < d; ++k) {
                    const T u = g[k], hp = h_prev[k];
                    const T c = lstm::activate(p.node, g[2 * d + k]);
                    ho[k] = p.origin_mode ? u * hp + c - u * c : hp - u * hp + u * c;
                }
                for (std::int64_t k = 0; k < d; ++k) h_prev[k] = ho[k];
            }
        }
    }
};

}  // namespace litegraph::ops
