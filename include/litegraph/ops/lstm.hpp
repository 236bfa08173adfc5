// lstm: Paddle's LoD LSTM (fluid's dynamic_lstm) over each sequence of a
// level-1 LoD tensor.  Input [T, 4D] is the already projected x (x W_x), Weight
// [D, 4D] the recurrent weights, Bias [1, 4D] or, with use_peepholes, [1, 7D]
// (then the last 3D are the peephole weights W_ic, W_fc, W_oc).  The 4D gate
// columns are ordered candidate, input, forget, output.  Per step, as Paddle's
// CPU kernel (math/detail/lstm_kernel.h):
//   g = Input[t] + Bias[:4D] + h_prev Weight
//   c~ = act_cand(g_c)            i = act_gate(g_i + c_prev * W_ic)
//   f = act_gate(g_f + c_prev * W_fc)    c = c~ * i + c_prev * f
//   o = act_gate(g_o + c * W_oc)   h = o * act_cell(c)
// (peephole terms only with use_peepholes).  is_reverse runs each sequence
// from its last row to its first.  H0 / C0 ([S, D], one row per sequence)
// start the states; zeros without them.  Hidden and Cell are [T, D] with
// Input's LoD.  Activations: sigmoid (input clipped to [-40, 13]), tanh, relu,
// identity, as Paddle's.  BatchGate and BatchCellPreAct (training only) are
// not produced.  float32 and float64.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "litegraph/ops/activation.hpp"
#include "litegraph/ops/detail/sequence.hpp"

namespace litegraph::ops {

struct lstm {
    static constexpr std::string_view paddle_types[] = {"lstm"};
    enum class act { sigmoid, tanh, relu, identity };
    struct params {
        bool use_peepholes = true;
        bool is_reverse = false;
        act gate = act::sigmoid;
        act cell = act::tanh;
        act candidate = act::tanh;
    };

    // Paddle names the activations by their op types.
    static act parse_act(const attr_map& a, const char* name, std::string_view fallback) {
        const auto s = a.get<std::string>(name, std::string(fallback));
        if (s == ops::act::sigmoid::paddle_type) return act::sigmoid;
        if (s == ops::act::tanh::paddle_type) return act::tanh;
        if (s == ops::act::relu::paddle_type) return act::relu;
        if (s == "identity" || s == "linear" || s.empty()) return act::identity;
        throw unsupported_error("lstm: " + std::string(name) + " '" + s +
                                "' is not supported (sigmoid, tanh, relu, identity)");
    }

    static params parse(const attr_map& a, std::string_view) {
        params p;
        p.use_peepholes = a.get<bool>("use_peepholes", true);
        p.is_reverse = a.get<bool>("is_reverse", false);
        p.gate = parse_act(a, "gate_activation", ops::act::sigmoid::paddle_type);
        p.cell = parse_act(a, "cell_activation", ops::act::tanh::paddle_type);
        p.candidate = parse_act(a, "candidate_activation", ops::act::tanh::paddle_type);
        return p;
    }

    static void infer(const params& p, op_io& io) {
        const auto& x = io.input("Input");
        const auto& w = io.input("Weight");
        const auto& b = io.input("Bias");
        io.check(x.type == dtype::f32 || x.type == dtype::f64, [&] {
            return "Input must be float32 or float64, got " + std::string(name_of(x.type));
        });
        io.check(w.type == x.type && b.type == x.type, "Weight and Bias must have Input's dtype");
        io.check(w.shape.size() == 2 && w.shape[1] == 4 * w.shape[0],
                 [&] { return "Weight must be [D, 4D], has shape " + to_string(w.shape); });
        const std::int64_t d = w.shape[0];
        io.check(x.shape.size() == 2 && x.shape[1] == 4 * d, [&] {
            return "Input must be [T, 4D] = [T, " + std::to_string(4 * d) + "], has shape " +
                   to_string(x.shape);
        });
        const std::int64_t bias_len = (p.use_peepholes ? 7 : 4) * d;
        io.check(b.numel() == bias_len && b.shape.size() == 2 && b.shape[0] == 1, [&] {
            return "Bias must be [1, " + std::to_string(bias_len) + "]" +
                   (p.use_peepholes ? " (use_peepholes)" : "") + ", has shape " +
                   to_string(b.shape);
        });
        io.check(x.lod.size() <= 1, [&] {
            return "Input has a LoD of " + std::to_string(x.lod.size()) +
                   " levels; lstm takes one level";
        });
        const auto& offsets = detail::sequence_offsets(io, "Input");
        const auto seqs = static_cast<std::int64_t>(offsets.size()) - 1;
        for (const char* s : {"H0", "C0"})
            if (io.input_count(s) > 0) {
                const auto& h = io.input(s);
                io.check(h.type == x.type && h.shape == shape_t{seqs, d}, [&] {
                    return std::string(s) + " must be [sequences, D] = [" + std::to_string(seqs) +
                           ", " + std::to_string(d) + "], has shape " + to_string(h.shape);
                });
            }
        for (const char* s : {"Hidden", "Cell"}) {
            auto& o = io.output(s);
            o.type = x.type;
            o.shape = {x.shape[0], d};
        }
    }

    static void run(const params& p, op_io& io) {
        if (io.input("Input").type == dtype::f64)
            compute<double>(p, io);
        else
            compute<float>(p, io);
    }

    template <class T>
    static T activate(act a, T v) {
        switch (a) {
            case act::sigmoid: {
                const T c = v < T(-40) ? T(-40) : (v > T(13) ? T(13) : v);
                return T(1) / (T(1) + std::exp(-c));
            }
            case act::tanh: {
                T t = T(-2) * v;
                t = t > T(40) ? T(40) : t;
                return T(2) / (T(1) + std::exp(t)) - T(1);
            }
            case act::relu:
                return v > T(0) ? v : T(0);
            default:
                return v;
        }
    }

private:
    template <class T>
    static void compute(const params& p, op_io& io) {
        const auto& x = io.input("Input");
        const auto& offsets = detail::sequence_offsets(io, "Input");
        const T* in = x.as<T>();
        const T* w = io.input("Weight").as<T>();
        const T* bias = io.input("Bias").as<T>();
        const std::int64_t d = io.input("Weight").shape[0];
        const T* h0 = io.input_count("H0") ? io.input("H0").as<T>() : nullptr;
        const T* c0 = io.input_count("C0") ? io.input("C0").as<T>() : nullptr;
        T* hidden = io.output("Hidden").as<T>();
        T* cell = io.output("Cell").as<T>();
        const T* wic = p.use_peepholes ? bias + 4 * d : nullptr;
        const T* wfc = p.use_peepholes ? bias + 5 * d : nullptr;
        const T* woc = p.use_peepholes ? bias + 6 * d : nullptr;
        std::vector<T> g(static_cast<std::size_t>(4 * d)), h_prev(static_cast<std::size_t>(d)),
            c_prev(static_cast<std::size_t>(d));
        for (std::size_t s = 0; s + 1 < offsets.size(); ++s) {
            const std::int64_t b = offsets[s], e = offsets[s + 1];
            for (std::int64_t k = 0; k < d; ++k) {
                h_prev[k] = h0 ? h0[static_cast<std::int64_t>(s) * d + k] : T(0);
                c_prev[k] = c0 ? c0[static_cast<std::int64_t>(s) * d + k] : T(0);
            }
            for (std::int64_t step = 0; step < e - b; ++step) {
                const std::int64_t t = p.is_reverse ? e - 1 - step : b + step;
                for (std::int64_t j = 0; j < 4 * d; ++j) g[j] = in[t * 4 * d + j] + bias[j];
                for (std::int64_t k = 0; k < d; ++k) {
                    const T hk = h_prev[k];
                    const T* wr = w + k * 4 * d;
                    for (std::int64_t j = 0; j < 4 * d; ++j) g[j] += hk * wr[j];
                }
                T* ho = hidden + t * d;
                T* co = cell + t * d;
                for (std::int64_t k = 0; k < d; ++k) {
                    const T cp = c_prev[k];
                    const T cand = activate(p.candidate, g[k]);
                    const T ig = activate(p.gate, g[d + k] + (wic ? cp * wic[k] : T(0)));
                    const T fg = activate(p.gate, g[2 * d + k] + (wfc ? cp * wfc[k] : T(0)));
                    const T c = cand * ig + cp * fg;
                    const T og = activate(p.gate, g[3 * d + k] + (woc ? c * woc[k] : T(0)));
                    co[k] = c;
                    ho[k] = og * activate(p.cell, c);
                }
                for (std::int64_t k = 0; k < d; ++k) {
                    h_prev[k] = ho[k];
                    c_prev[k] = co[k];
                }
            }
        }
    }
};

}  // namespace litegraph::ops
