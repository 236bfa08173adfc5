// rnn: Paddle's cuDNN-style recurrent op (what paddle.nn.LSTM, GRU and
// SimpleRNN export in Paddle 2.x), as its CPU kernel (phi cpu/rnn_kernel.cc,
// rnn_functor.h) at inference.  Input [T, N, I] is time major.  PreState is a
// list: [h0, c0] for LSTM, [h0] otherwise, each [L * D, N, H] (L = num_layers,
// D = 2 with is_bidirec, H = hidden_size; row l * D + d is layer l, direction
// d).  WeightList holds 4 * L * D tensors: first the weights of every layer
// and direction, in the order (l, d) = (0, 0), (0, 1), (1, 0), ... as
// weight_ih [G*H, In_l], weight_hh [G*H, H] pairs, then the biases in the same
// order as bias_ih [G*H], bias_hh [G*H] pairs.  G is 4 for LSTM (gate rows
// ordered input, forget, cell candidate, output), 3 for GRU (reset, update,
// candidate), 1 for RNN_TANH / RNN_RELU.  In_0 = I, In_l = D * H after.  Per
// step, with xi = W_ih x + b_ih and hh = W_hh h + b_hh (per gate block):
//   LSTM:  i = sig(xi_i + hh_i)  f = sig(xi_f + hh_f)  g = tanh(xi_g + hh_g)
//          o = sig(xi_o + hh_o)  c = f * c_prev + i * g  h = o * tanh(c)
//   GRU:   r = sig(xi_r + hh_r)  z = sig(xi_z + hh_z)
//          n = tanh(xi_n + r * hh_n)  h = z * h_prev + n - z * n
//   RNN_TANH / RNN_RELU:  h = tanh / relu(xi + hh)
// (sigmoid and tanh unclipped, Paddle's sigmoid_v2 / tanh_v2).  Direction 1
// runs from the last step to the first; Out [T, N, D*H] is the directions'
// outputs concatenated on the last dim, and layer l > 0 reads layer l - 1's
// Out.  SequenceLength (int32 or int64 [N], each in [0, T]) is optional: a
// step t >= len[n] gives zeros in Out and leaves that sequence's state as it
// was (the reverse direction starts at step len[n] - 1).  State is a list like
// PreState: the final h (and c) of every layer and direction.  dropout_prob
// (between layers, training only) is ignored: this is the is_test kernel.
// Reserve and DropoutState (training artefacts) are not produced: the runtime
// treats them as absent, and a model reading one fails naming it.  T = 0 gives
// an empty Out and State = PreState.  `mode` has no default (Paddle's op
// requires it); input_size and seed are not read.  float32 and float64.
//
// Kernels: float32 runs kernels/rnn.hpp (per layer and direction, the input
// projection of every step as one packed SGEMM, then the steps with the gates'
// non-linearities and the state update fused; the weights regrouped once per
// op node in rnn_state).  float64, builds without xsimd and the (non-Paddle)
// attribute litegraph_kernel = "reference" run compute_reference, the plain
// loop per sequence, step and gate row (kernels::rnn_reference, heap-free:
// its temporaries are scratch the caller gives).  The firmware form (float32,
// no SequenceLength, Out only) is that same loop.  The two directions of a layer are one
// task each on the program's thread pool: each is computed alone, so the
// outputs do not depend on the number of threads.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "litegraph/kernels/rnn.hpp"
#include "litegraph/ops/firmware.hpp"
#include "litegraph/ops/op.hpp"

namespace litegraph::ops {

/// What one rnn op node keeps between runs (op.hpp: an op's state): the
/// weights of every layer and direction regrouped for kernels/rnn.hpp, and
/// the scratch of a run (the projected inputs of every step, the padded
/// states, the outputs of the inner layers; heap memory, the desktop path).
/// Shape inference tells it which weights are constants (their data is known
/// then) and drops what was prepared; a run reuses the prepared weights only
/// for those same pointers and the instruction set they were prepared for.
class rnn_state {
public:
    /// Shape inference: the WeightList data pointers (null where not known).
    void mark(std::vector<const void*> weights) {
        constant_ = std::move(weights);
        prepared_ = false;
        weights_.clear();
    }

    /// The prepared weights of (layer, direction) l * D + d for the WeightList
    /// `w` (4 * L * D pointers, Paddle's order), regrouped unless they are the
    /// constants seen by shape inference and already prepared for the active
    /// instruction set.
    const std::vector<kernels::rnn_weights>& get(kernels::rnn_cell cell, std::int64_t layers,
                                                 std::int64_t d, std::int64_t h, std::int64_t in0,
                                                 const std::vector<const float*>& w) {
        const bool constant = w.size() == constant_.size() &&
                              std::equal(w.begin(), w.end(), constant_.begin(),
                                         [](const float* a, const void* b) { return a && a == b; });
        if (constant && prepared_ && !weights_.empty() &&
            weights_.front().isa == kernels::simd::active())
            return weights_;
        prepared_ = false;
        const std::size_t count = static_cast<std::size_t>(layers * d);
        weights_.resize(count);
        const std::size_t bias_start = 2 * count;
        for (std::size_t k = 0; k < count; ++k)
            weights_[k].prepare(cell, h, k < static_cast<std::size_t>(d) ? in0 : d * h, w[2 * k],
                                w[2 * k + 1], w[bias_start + 2 * k], w[bias_start + 2 * k + 1]);
        prepared_ = constant;
        return weights_;
    }

    /// One direction's scratch.
    struct direction {
        std::vector<float> proj, hs, hs2, cs;
    };
    std::vector<direction> dirs;
    std::vector<float> layer_a, layer_b;

private:
    std::vector<const void*> constant_;
    std::vector<kernels::rnn_weights> weights_;
    bool prepared_ = false;
};

struct rnn {
    static constexpr std::string_view paddle_types[] = {"rnn"};
    static constexpr pir_name pir_names[] = {{"1.rnn", "rnn"}};
    enum class cell { lstm, gru, rnn_tanh, rnn_relu };
    struct params {
        cell mode = cell::lstm;
        std::int64_t num_layers = 1;
        bool bidirec = false;
        std::int64_t hidden_size = 100;
        bool reference = false;  // litegraph_kernel = "reference": compute_reference
    };
    using state = rnn_state;  // the regrouped weights and scratch of this op node

    static params parse(const attr_map& a, std::string_view) {
        params p;
        if (!a.has("mode"))
            LITEGRAPH_THROW(
                unsupported_error("rnn: attribute 'mode' is missing (it has no default)"));
        const auto m = a.get<std::string>("mode", "");
        if (m == "LSTM")
            p.mode = cell::lstm;
        else if (m == "GRU")
            p.mode = cell::gru;
        else if (m == "RNN_TANH")
            p.mode = cell::rnn_tanh;
        else if (m == "RNN_RELU")
            p.mode = cell::rnn_relu;
        else
            LITEGRAPH_THROW(unsupported_error(
                "rnn: mode '" + m + "' is not supported (LSTM, GRU, RNN_TANH, RNN_RELU)"));
        p.num_layers = a.get<std::int64_t>("num_layers", 1);
        p.bidirec = a.get<bool>("is_bidirec", false);
        p.hidden_size = a.get<std::int64_t>("hidden_size", 100);
        const auto k = a.get<std::string>("litegraph_kernel", "fast");
        if (k == "reference")
            p.reference = true;
        else if (k != "fast")
            LITEGRAPH_THROW(unsupported_error("rnn: attribute litegraph_kernel '" + k +
                                              "' (expected \"fast\" or \"reference\")"));
        return p;
    }

    static std::int64_t gates(cell c) { return c == cell::lstm ? 4 : (c == cell::gru ? 3 : 1); }
    static std::size_t states(cell c) { return c == cell::lstm ? 2 : 1; }

    static void infer(const params& p, state& st, op_io& io) {
        io.check(p.num_layers >= 1,
                 [&] { return "num_layers " + std::to_string(p.num_layers) + " must be >= 1"; });
        io.check(p.hidden_size >= 1,
                 [&] { return "hidden_size " + std::to_string(p.hidden_size) + " must be >= 1"; });
        const auto& x = io.input("Input");
        io.check(x.type == dtype::f32 || x.type == dtype::f64, [&] {
            return "Input must be float32 or float64, got " + std::string(name_of(x.type));
        });
        io.check(x.shape.size() == 3,
                 [&] { return "Input must be [T, N, I], has shape " + to_string(x.shape); });
        const std::int64_t t = x.shape[0], n = x.shape[1], in = x.shape[2];
        const std::int64_t d = p.bidirec ? 2 : 1, h = p.hidden_size, g = gates(p.mode);
        const std::size_t ns = states(p.mode);
        io.check(io.input_count("PreState") == ns, [&] {
            return "PreState must hold " + std::to_string(ns) + " tensor" + (ns == 2 ? "s" : "") +
                   (ns == 2 ? " (h0, c0)" : " (h0)") + ", has " +
                   std::to_string(io.input_count("PreState"));
        });
        const shape_t state_shape{p.num_layers * d, n, h};
        for (std::size_t s = 0; s < ns; ++s) {
            const auto& st = io.input("PreState", s);
            io.check(st.type == x.type, [&] {
                return "PreState " + std::to_string(s) + " has dtype " +
                       std::string(name_of(st.type)) + ", Input has " +
                       std::string(name_of(x.type));
            });
            io.check(st.shape == state_shape, [&] {
                return "PreState " + std::to_string(s) +
                       " must be [num_layers * D, N, H] = " + to_string(state_shape) +
                       ", has shape " + to_string(st.shape);
            });
        }
        const auto want = static_cast<std::size_t>(4 * p.num_layers * d);
        io.check(io.input_count("WeightList") == want, [&] {
            return "WeightList must hold " + std::to_string(want) +
                   " tensors (4 per layer and direction), has " +
                   std::to_string(io.input_count("WeightList"));
        });
        const std::size_t bias_start = want / 2;
        for (std::int64_t l = 0; l < p.num_layers; ++l)
            for (std::int64_t dir = 0; dir < d; ++dir) {
                const auto k = static_cast<std::size_t>(2 * (l * d + dir));
                const std::int64_t in_l = l == 0 ? in : d * h;
                const shape_t shapes[] = {{g * h, in_l}, {g * h, h}, {g * h}, {g * h}};
                const std::size_t idx[] = {k, k + 1, bias_start + k, bias_start + k + 1};
                const char* what[] = {"weight_ih", "weight_hh", "bias_ih", "bias_hh"};
                for (int j = 0; j < 4; ++j) {
                    const auto& w = io.input("WeightList", idx[j]);
                    io.check(w.type == x.type && w.shape == shapes[j], [&] {
                        return "WeightList " + std::to_string(idx[j]) + " (" + what[j] +
                               " of layer " + std::to_string(l) + ", direction " +
                               std::to_string(dir) + ") must be " + std::string(name_of(x.type)) +
                               " " + to_string(shapes[j]) + ", is " + std::string(name_of(w.type)) +
                               " " + to_string(w.shape);
                    });
                }
            }
        if (io.has_input("SequenceLength")) {
            const auto& sl = io.input("SequenceLength");
            io.check(
                (sl.type == dtype::i32 || sl.type == dtype::i64) && sl.shape == shape_t{n}, [&] {
                    return "SequenceLength must be int32 or int64 [N] = [" + std::to_string(n) +
                           "], is " + std::string(name_of(sl.type)) + " " + to_string(sl.shape);
                });
        }
        auto& out = io.output("Out");
        out.type = x.type;
        out.shape = {t, n, d * h};
        const auto outs = io.output_count("State");
        io.check(outs == 0 || outs == ns, [&] {
            return "State must hold " + std::to_string(ns) + " tensor" + (ns == 2 ? "s" : "") +
                   ", has " + std::to_string(outs);
        });
        for (std::size_t s = 0; s < outs; ++s) {
            auto& o = io.output("State", s);
            o.type = x.type;
            o.shape = state_shape;
        }
        std::vector<const void*> weights(want);
        for (std::size_t k = 0; k < want; ++k) weights[k] = io.input("WeightList", k).data;
        st.mark(std::move(weights));
    }

    /// The geometry kernels::rnn_reference takes.
    static kernels::rnn_dims dims_of(const params& p, const tensor_ref& x) {
        return {kernel_cell(p.mode), p.num_layers, p.bidirec ? 2 : 1, x.shape[0],
                x.shape[1],          x.shape[2],   p.hidden_size};
    }

    /// The firmware form (ops/firmware.hpp): kernels::rnn_reference, float32,
    /// every sequence T steps (no SequenceLength), Out only (State is not
    /// written).  PreState and WeightList are list inputs.
    struct form {
        int mode = 0;  // kernels::rnn_cell
        std::int64_t layers = 1, dirs = 1, steps = 0, n = 1, in = 1, h = 1;
        constexpr auto fields() const { return std::tie(mode, layers, dirs, steps, n, in, h); }
        constexpr kernels::rnn_dims dims() const {
            return {static_cast<kernels::rnn_cell>(mode), layers, dirs, steps, n, in, h};
        }
    };
    static constexpr std::string_view firmware_inputs[] = {"Input", "PreState", "WeightList"};
    static constexpr std::string_view firmware_lists[] = {"PreState", "WeightList"};
    static constexpr std::string_view firmware_output = "Out";
    static form form_of(const params& p, const op_io& io) {
        const auto& x = io.input("Input");
        if (x.type != dtype::f32)
            no_firmware_form("rnn of " + std::string(name_of(x.type)) + " (float32 only)");
        if (io.has_input("SequenceLength"))
            no_firmware_form(
                "rnn with a SequenceLength input (the firmware form runs every sequence for all "
                "T steps)");
        const auto d = dims_of(p, x);
        return {static_cast<int>(d.cell), d.layers, d.dirs, d.steps, d.n, d.in, d.h};
    }
    static constexpr std::size_t scratch_bytes(const form& f) {
        return static_cast<std::size_t>(kernels::rnn_reference_scratch(f.dims())) * sizeof(float);
    }
    static void run_form(const form& f, const firmware_io& io) {
        const bool lstm = f.mode == static_cast<int>(kernels::rnn_cell::lstm);
        kernels::rnn_reference<float>(
            f.dims(), io.input<float>(0), io.list_input<float>(1, 0),
            lstm ? io.list_input<float>(1, 1) : nullptr, static_cast<const void* const*>(io.in[2]),
            nullptr, io.output<float>(), nullptr, nullptr, static_cast<float*>(io.scratch));
    }

    static void run(const params& p, state& st, op_io& io) {
        const auto len = lengths(io);
        if (io.input("Input").type == dtype::f64)
            compute_reference<double>(p, io, len);
        else if (p.reference || !kernels::rnn_fast_available)
            compute_reference<float>(p, io, len);
        else
            compute_fast(p, st, io, len);
    }

private:
    /// SequenceLength as int64 (every sequence has T steps without it).
    static std::vector<std::int64_t> lengths(const op_io& io) {
        const auto& x = io.input("Input");
        const std::int64_t steps = x.shape[0], n = x.shape[1];
        std::vector<std::int64_t> len(static_cast<std::size_t>(n), steps);
        if (io.has_input("SequenceLength")) {
            const auto& sl = io.input("SequenceLength");
            for (std::int64_t b = 0; b < n; ++b) {
                const std::int64_t v =
                    sl.type == dtype::i32 ? sl.as<std::int32_t>()[b] : sl.as<std::int64_t>()[b];
                io.check(v >= 0 && v <= steps, [&] {
                    return "SequenceLength[" + std::to_string(b) + "] = " + std::to_string(v) +
                           " is out of range [0, " + std::to_string(steps) + "]";
                });
                len[static_cast<std::size_t>(b)] = v;
            }
        }
        return len;
    }

    static kernels::rnn_cell kernel_cell(cell c) {
        switch (c) {
            case cell::lstm:
                return kernels::rnn_cell::lstm;
            case cell::gru:
                return kernels::rnn_cell::gru;
            case cell::rnn_tanh:
                return kernels::rnn_cell::rnn_tanh;
            default:
                return kernels::rnn_cell::rnn_relu;
        }
    }

    /// float32 on kernels/rnn.hpp (see the top of this file).
    static void compute_fast(const params& p, state& st, op_io& io,
                             const std::vector<std::int64_t>& len) {
        const auto& x = io.input("Input");
        const std::int64_t steps = x.shape[0], n = x.shape[1], in0 = x.shape[2];
        const std::int64_t d = p.bidirec ? 2 : 1, h = p.hidden_size, layers = p.num_layers;
        const std::int64_t dh = d * h;
        const bool lstm = p.mode == cell::lstm;
        const auto kc = kernel_cell(p.mode);
        const float* h0 = io.input("PreState", 0).as<float>();
        const float* c0 = lstm ? io.input("PreState", 1).as<float>() : nullptr;
        const bool want_state = io.output_count("State") > 0;
        float* h_out = want_state ? io.output("State", 0).as<float>() : nullptr;
        float* c_out = want_state && lstm ? io.output("State", 1).as<float>() : nullptr;
        if (steps == 0) {  // State = PreState
            const auto state_n = static_cast<std::size_t>(layers * d * n * h);
            if (h_out) std::copy(h0, h0 + state_n, h_out);
            if (c_out) std::copy(c0, c0 + state_n, c_out);
            return;
        }
        const std::size_t wn = io.input_count("WeightList");
        std::vector<const float*> wl(wn);
        for (std::size_t k = 0; k < wn; ++k) wl[k] = io.input("WeightList", k).as<float>();
        const auto& weights = st.get(kc, layers, d, h, in0, wl);
        const std::int64_t hp = weights.front().hp, ld = weights.front().cols();

        const auto grow = [](std::vector<float>& v, std::int64_t size) {
            if (static_cast<std::int64_t>(v.size()) < size)
                v.resize(static_cast<std::size_t>(size));
            return v.data();
        };
        st.dirs.resize(static_cast<std::size_t>(d));
        for (auto& s : st.dirs) {
            grow(s.proj, steps * n * ld);
            grow(s.hs, n * hp);
            grow(s.hs2, n * hp);
            if (lstm) grow(s.cs, n * hp);
        }
        const std::int64_t layer_n = steps * n * dh;
        float* buf_a = layers > 1 ? grow(st.layer_a, layer_n) : nullptr;
        float* buf_b = layers > 2 ? grow(st.layer_b, layer_n) : nullptr;
        float* final_out = io.output("Out").as<float>();
        const float* layer_in = x.as<float>();
        std::int64_t in = in0;
        for (std::int64_t l = 0; l < layers; ++l) {
            float* out = l == layers - 1 ? final_out : (l % 2 == 0 ? buf_a : buf_b);
            parallel_tasks(io.pool, d, [&](std::int64_t dir) {
                const auto& w = weights[static_cast<std::size_t>(l * d + dir)];
                auto& s = st.dirs[static_cast<std::size_t>(dir)];
                kernels::rnn_project(w, steps * n, layer_in, in, s.proj.data());
                // The padded states (zeros beyond H).
                const std::int64_t row0 = (l * d + dir) * n * h;
                std::fill(s.hs.begin(), s.hs.begin() + n * hp, 0.f);
                if (lstm) std::fill(s.cs.begin(), s.cs.begin() + n * hp, 0.f);
                for (std::int64_t b = 0; b < n; ++b) {
                    std::copy(h0 + row0 + b * h, h0 + row0 + (b + 1) * h, s.hs.data() + b * hp);
                    if (lstm)
                        std::copy(c0 + row0 + b * h, c0 + row0 + (b + 1) * h, s.cs.data() + b * hp);
                }
                kernels::rnn_sequence q;
                q.cell = kc;
                q.steps = steps;
                q.n = n;
                q.h = h;
                q.hp = hp;
                q.reverse = dir == 1;
                q.proj = s.proj.data();
                q.whh_t = w.whh_t.data();
                q.bias_hh = w.bias_hh.data();
                q.len = len.data();
                q.hs = s.hs.data();
                q.hs2 = s.hs2.data();
                q.cs = lstm ? s.cs.data() : nullptr;
                q.out = out + dir * h;
                q.out_stride = dh;
                kernels::rnn_recurrence(w, q);
                for (std::int64_t b = 0; b < n; ++b) {
                    if (h_out)
                        std::copy(s.hs.data() + b * hp, s.hs.data() + b * hp + h,
                                  h_out + row0 + b * h);
                    if (c_out)
                        std::copy(s.cs.data() + b * hp, s.cs.data() + b * hp + h,
                                  c_out + row0 + b * h);
                }
            });
            layer_in = out;
            in = dh;
        }
    }

    /// The plain loop (float64, and the reference the fast form is tested
    /// against): kernels::rnn_reference, the firmware form's loop, over heap
    /// scratch, with SequenceLength and State.
    template <class T>
    static void compute_reference(const params& p, op_io& io,
                                  const std::vector<std::int64_t>& len) {
        const auto d = dims_of(p, io.input("Input"));
        const bool lstm = p.mode == cell::lstm;
        std::vector<T> scratch(static_cast<std::size_t>(kernels::rnn_reference_scratch(d)));
        const std::size_t wn = io.input_count("WeightList");
        std::vector<const void*> weights(wn);
        for (std::size_t k = 0; k < wn; ++k) weights[k] = io.input("WeightList", k).as<T>();
        const bool want_state = io.output_count("State") > 0;
        kernels::rnn_reference<T>(
            d, io.input("Input").as<T>(), io.input("PreState", 0).as<T>(),
            lstm ? io.input("PreState", 1).as<T>() : nullptr, weights.data(), len.data(),
            io.output("Out").as<T>(), want_state ? io.output("State", 0).as<T>() : nullptr,
            want_state && lstm ? io.output("State", 1).as<T>() : nullptr, scratch.data());
    }
};

}  // namespace litegraph::ops
