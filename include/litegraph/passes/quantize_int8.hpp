// From a fake-quantized graph to int8 ops (docs/int8.md).  Three passes:
//
// fold_quant_linear (first): quantize_linear -> dequantize_linear pairs of
//   one Scale become what the older export writes: on a weight (a parameter),
//   a new parameter holding the quantised-dequantised values; on an
//   activation (one scale), one fake_quantize_dequantize_moving_average_abs_max
//   with that scale as InScale.
// fold_quant_dequant_split (with the first): the older QAT export,
//   fake_quantize_moving_average_abs_max (scale s) -> conv / mul with integer
//   weights Wq -> fake_dequantize_max_abs (Scale = s, max_range = 127 * 127 /
//   weight scale), becomes the quant-dequant form: one
//   fake_quantize_dequantize_moving_average_abs_max and the weight
//   Wq * 127 / max_range, when every reader of the quantized input is such a pair.
// fold_weight_quant (second): a fake quant-dequant op on a parameter is
//   computed once into a new parameter (exactly as the float simulation
//   computes it), so that batch norm and bias fold into the conv as in fp32
//   (a per-channel Scale and Bias); quantize_int8 multiplies the Scale into
//   the filter, which stays on a per-channel int8 grid (batch norm scales
//   each output channel) that the filter steps recover exactly.
// quantize_int8 (after the fusions, before in_place): every conv / fused conv
//   / mul / matmul whose activation input comes from a per-tensor fake
//   quant-dequant op of 8 bits and whose weight is a parameter becomes an int8
//   op (fused_conv2d_int8, mul_int8): per-channel filter steps (abs max /
//   127), the input quantised by a quantize_int8 op (one per fake op), the
//   requantize epilogue carrying rescale, bias, activation and terminal (its
//   `stages`: "rescale" in front of the fused conv's).  Which ops these are is
//   their `int8` trait (ops/op.hpp: conv2d, the fused conv, mul, matmul,
//   matmul_v2).  A quantize_int8 whose input only an int8 op produces (through
//   max pools and concats) is merged into that producer, which then writes
//   int8 (its last stage quantize_store; a conv ending in a residual add or
//   a gate then quantizes their float result in the same loop, the same
//   bytes).  Everything else stays float32: the fallback, reported by
//   `litegraph run --json` as `kernels`.
// `--precision fp32` skips quantize_int8: the float simulation of the fake ops.
#pragma once

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "litegraph/fusion/fused_int8.hpp"
#include "litegraph/ops/concat.hpp"
#include "litegraph/ops/fake_quant.hpp"
#include "litegraph/ops/int8/mul_int8.hpp"
#include "litegraph/ops/int8/pool2d_int8.hpp"
#include "litegraph/ops/int8/quantize.hpp"
#include "litegraph/ops/invoke.hpp"
#include "litegraph/ops/matmul.hpp"
#include "litegraph/ops/pool2d.hpp"
#include "litegraph/passes/pattern.hpp"

namespace litegraph::passes {

namespace int8_detail {

/// The per-tensor fake quant-dequant op of an activation (what quantize_int8 reads).
using fake_activation_quant = ops::fake_quantize_dequantize_moving_average_abs_max;
/// The op the int8 conv kernels (fusion::fused_int8_ops) share: `fused_conv2d_int8`.
using int8_conv_op = first_op<fusion::fused_int8_ops>::type;

inline bool is_fake_weight_quant(std::string_view t) {
    return op_declares<ops::fake_channel_wise_quantize_dequantize_abs_max>(t) ||
           op_declares<ops::fake_quantize_dequantize_abs_max>(t);
}

/// Declares a new activation variable.
inline int declare_activation(graph::graph& g, const std::string& base, shape_t shape, dtype t) {
    graph::var_node v;
    v.name = graph::unique_name(g, base);
    v.shape = std::move(shape);
    v.type = t;
    return g.add_var(std::move(v));
}

/// A single float from a one-value float32 parameter, or -1.
inline float scalar_param(const graph::graph& g, int v) {
    if (v < 0 || !has_f32_value(g, v) || g.vars[v].value->numel() != 1) return -1.f;
    return g.vars[v].value->span<float>()[0];
}

/// Runs a weight fake-quant op on its parameter: the output the float
/// simulation computes, as a new parameter (or a declared one without data).
inline int fold_weight_op(graph::graph& g, int op, const std::string& x_slot,
                          const std::string& out_slot, const named_tensors& extra) {
    const auto& node = g.ops[op];
    const int x = graph::input_var(node, x_slot), out = graph::output_var(node, out_slot);
    if (!g.vars[x].value)
        return graph::declare_param(g, g.vars[out].name + ".folded", g.vars[x].shape, dtype::f32);
    named_tensors in;
    in.add(x_slot, tensor(*g.vars[x].value));
    for (auto& [slot, ts] : extra.slots)
        for (auto& t : ts) in.add(slot, tensor(t));
    auto r = invoke(node.type, node.attrs, in, {{out_slot, 1}});
    return graph::add_param(g, g.vars[out].name + ".folded", std::move(r.slots[0].second[0]));
}

}  // namespace int8_detail

/// quantize_linear -> dequantize_linear pairs (see the top of this file).
inline int fold_quant_linear(graph::graph& g) {
    return rewrite_until_fixed(g, [&](int op, std::vector<bool>& dead) {
        const auto& d = g.ops[op];
        if (!op_declares<ops::dequantize_linear>(d.type)) return false;
        const int qv = graph::input_var(d, "X"), y = graph::output_var(d, "Y");
        if (qv < 0 || y < 0 || g.vars[qv].producer < 0) return false;
        const int qop = g.vars[qv].producer;
        const auto& q = g.ops[qop];
        if (!op_declares<ops::quantize_linear>(q.type) || graph::sole_consumer(g, qv) != op)
            return false;
        const int scale = graph::input_var(q, "Scale"), x = graph::input_var(q, "X");
        if (scale < 0 || x < 0 || graph::input_var(d, "Scale") != scale) return false;
        if (d.attrs.get<int>("bit_length", 8) != q.attrs.get<int>("bit_length", 8)) return false;
        if (is_param(g, x)) {
            // Quantise-dequantise the weight once, as the two float ops would.
            named_tensors extra;
            if (!g.vars[scale].value) {
                if (g.vars[x].value) return false;
            } else {
                extra.add("Scale", tensor(*g.vars[scale].value));
            }
            int w = -1;
            if (!g.vars[x].value) {
                w = graph::declare_param(g, g.vars[y].name + ".folded", g.vars[x].shape,
                                         dtype::f32);
            } else {
                named_tensors in;
                in.add("X", tensor(*g.vars[x].value));
                in.add("Scale", tensor(*g.vars[scale].value));
                auto qt = invoke(q.type, q.attrs, in, {{"Y", 1}});
                named_tensors in2;
                in2.add("X", std::move(qt.slots[0].second[0]));
                in2.add("Scale", tensor(*g.vars[scale].value));
                auto dt = invoke(g.ops[op].type, g.ops[op].attrs, in2, {{"Y", 1}});
                w = graph::add_param(g, g.vars[y].name + ".folded",
                                     std::move(dt.slots[0].second[0]));
            }
            graph::replace_uses(g, y, w);
            dead[op] = dead[qop] = true;
            return true;
        }
        // An activation: one scale only.
        const auto& sv = g.vars[scale];
        const auto& sshape = sv.value ? sv.value->shape() : sv.shape;
        if (!is_known(sshape) || numel(sshape) != 1) return false;
        auto& fq = g.ops[qop];
        fq.type = op_type<int8_detail::fake_activation_quant>();
        fq.inputs = {{"X", {x}}, {"InScale", {scale}}};
        fq.outputs = {{"Out", {y}}};
        fq.attrs.set("round_type", std::int32_t{q.attrs.get<int>("round_type", 0)});
        dead[op] = true;
        return true;
    });
}

/// The older split form into the quant-dequant form (see the top of this file).
inline int fold_quant_dequant_split(graph::graph& g) {
    return rewrite_until_fixed(g, [&](int op, std::vector<bool>& dead) {
        const auto& fq = g.ops[op];
        if (!op_declares<ops::fake_quantize_moving_average_abs_max>(fq.type)) return false;
        const int q = graph::output_var(fq, "Out"), in_scale = graph::input_var(fq, "InScale");
        const int out_scale = graph::output_var(fq, "OutScale");
        if (q < 0 || in_scale < 0 || graph::is_fetched(g, q) || g.vars[q].consumers.empty())
            return false;
        const int bits = fq.attrs.get<int>("bit_length", 8);
        struct pair {
            int op, dq;
            const char* w_slot;
        };
        std::vector<pair> pairs;
        std::vector<int> readers_of_scale;
        for (int c : g.vars[q].consumers) {
            const auto& node = g.ops[c];
            const bool conv = is_plain_conv(node);
            if (!conv && !op_declares<ops::mul>(node.type)) return false;
            const char* w_slot = conv ? "Filter" : "Y";
            const int w = graph::input_var(node, w_slot);
            const int out = graph::output_var(node, conv ? "Output" : "Out");
            if (w < 0 || out < 0 || !is_param(g, w) ||
                graph::input_var(node, conv ? "Input" : "X") != q)
                return false;
            if (g.vars[w].value && !has_f32_value(g, w)) return false;
            const int dq = graph::sole_consumer(g, out);
            if (dq < 0 || !op_declares<ops::fake_dequantize_max_abs>(g.ops[dq].type) ||
                graph::input_var(g.ops[dq], "X") != out)
                return false;
            // Scale is the activation's scale; the weight's is in max_range.
            const int sc = graph::input_var(g.ops[dq], "Scale");
            if (sc != in_scale && (sc < 0 || sc != out_scale)) return false;
            if (!(g.ops[dq].attrs.get<float>("max_range", 0.f) > 0.f)) return false;
            pairs.push_back({c, dq, w_slot});
            readers_of_scale.push_back(dq);
        }
        for (auto& sl : fq.outputs)  // OutScale (but for the pairs) and training outputs unread
            for (int v : sl.vars)
                if (v != q)
                    for (int r : g.vars[v].consumers)
                        if (std::find(readers_of_scale.begin(), readers_of_scale.end(), r) ==
                            readers_of_scale.end())
                            return false;
        // Out = conv(q, Wq) * s / max_range = conv(q * s / bnt, Wq * bnt / max_range).
        const float bnt = static_cast<float>((1 << (bits - 1)) - 1);
        for (auto& pr : pairs) {
            const int w = graph::input_var(g.ops[pr.op], pr.w_slot);
            const int y = graph::output_var(g.ops[pr.dq], "Out");
            int w2;
            if (!g.vars[w].value) {
                w2 = graph::declare_param(g, g.vars[w].name + ".dequantized", g.vars[w].shape,
                                          dtype::f32);
            } else {
                tensor t = *g.vars[w].value;
                const float k = bnt / g.ops[pr.dq].attrs.get<float>("max_range", 1.f);
                for (auto& v : t.span<float>()) v *= k;
                w2 = graph::add_param(g, g.vars[w].name + ".dequantized", std::move(t));
            }
            auto& node = g.ops[pr.op];
            graph::set_input(node, pr.w_slot, w2);
            for (auto& sl : node.outputs)
                for (auto& v : sl.vars) v = y;
            dead[pr.dq] = true;
        }
        auto& f = g.ops[op];
        f.type = op_type<int8_detail::fake_activation_quant>();
        f.outputs = {{"Out", {q}}};
        return true;
    });
}

/// Weight fake quant-dequant ops computed into parameters.
inline int fold_weight_quant(graph::graph& g) {
    return rewrite_until_fixed(g, [&](int op, std::vector<bool>& dead) {
        const auto& node = g.ops[op];
        if (!int8_detail::is_fake_weight_quant(node.type)) return false;
        const int x = graph::input_var(node, "X"), out = graph::output_var(node, "Out");
        if (x < 0 || out < 0 || !is_param(g, x) || graph::is_fetched(g, out)) return false;
        if (g.vars[x].value && g.vars[x].value->type() != dtype::f32) return false;
        for (auto& s : node.outputs)  // OutScale must be unread
            for (int v : s.vars)
                if (v != out && !g.vars[v].consumers.empty()) return false;
        const int w = int8_detail::fold_weight_op(g, op, "X", "Out", {});
        graph::replace_uses(g, out, w);
        dead[op] = true;
        return true;
    });
}

namespace int8_detail {

/// Per-channel int8 weights: channel c (dim `axis` of a 2-D or 4-D weight)
/// gets step max|w_c| / 127 and q = round(w / step).
struct quantized_weight {
    tensor q;
    std::vector<float> steps;
};
inline quantized_weight quantize_weight(const tensor& w, int axis) {
    const auto& s = w.shape();
    std::int64_t outer = 1, channels = s[static_cast<std::size_t>(axis)], inner = 1;
    for (int i = 0; i < axis; ++i) outer *= s[static_cast<std::size_t>(i)];
    for (std::size_t i = static_cast<std::size_t>(axis) + 1; i < s.size(); ++i) inner *= s[i];
    quantized_weight r{tensor(dtype::i8, s),
                       std::vector<float>(static_cast<std::size_t>(channels))};
    const float* src = w.span<float>().data();
    auto* dst = reinterpret_cast<std::int8_t*>(r.q.data());
    for (std::int64_t c = 0; c < channels; ++c) {
        float m = 0.f;
        for (std::int64_t o = 0; o < outer; ++o)
            for (std::int64_t i = 0; i < inner; ++i)
                m = std::max(m, std::abs(src[(o * channels + c) * inner + i]));
        const float step = m > 0.f ? m / 127.f : 1.f;
        r.steps[static_cast<std::size_t>(c)] = step;
        for (std::int64_t o = 0; o < outer; ++o)
            for (std::int64_t i = 0; i < inner; ++i) {
                const auto k = (o * channels + c) * inner + i;
                dst[k] = fusion::saturate_int8(src[k] / step);
            }
    }
    return r;
}

template <class... K>
bool int8_conv_in_list(op_list<K...>, const std::vector<std::string>& stages) {
    return (K::stage_set_type::is(stages) || ...);
}
/// Whether fusion::fused_int8_ops has a kernel for this list of stages.
inline bool int8_conv_exists(const std::vector<std::string>& stages) {
    return int8_conv_in_list(fusion::fused_int8_ops{}, stages);
}

/// The ops whose int8 form (op_int8_form) quantize_int8 looks up.
using quantizable_ops = concat_op_lists<builtin_ops, fusion::fused_conv_ops>::type;

/// The rewriter of quantize_int8: one instance per run.
class int8_rewriter {
public:
    explicit int8_rewriter(graph::graph& g) : g_(g) {}

    int run() {
        int count = 0;
        const int n = static_cast<int>(g_.ops.size());
        for (int op = 0; op < n; ++op) count += convert(op) ? 1 : 0;
        if (count == 0) return 0;
        g_.relink();
        // Pools and SE gates whose inputs are fake-quantized read them as int8.
        for (int op = 0; op < static_cast<int>(g_.ops.size()); ++op) {
            convert_pool(op);
            convert_plane_gate(op);
        }
        g_.relink();
        dead_.assign(g_.ops.size(), false);
        // Fake ops whose every reader became int8 have nothing left to do.
        for (int op = 0; op < static_cast<int>(g_.ops.size()); ++op)
            if (op_declares<fake_activation_quant>(g_.ops[op].type)) {
                int out = graph::output_var(g_.ops[op], "Out");
                if (out >= 0 && g_.vars[out].consumers.empty() && !graph::is_fetched(g_, out))
                    dead_[op] = true;
            }
        graph::compact(g_, dead_);
        dead_.assign(g_.ops.size(), false);
        // Merge quantize_int8 ops into int8 producers.
        for (int op = 0; op < static_cast<int>(g_.ops.size()); ++op) {
            auto& q = g_.ops[op];
            if (!op_declares<ops::quantize_int8>(q.type) || dead_[op]) continue;
            const int x = graph::input_var(q, "X"), out = graph::output_var(q, "Out");
            if (x < 0 || out < 0 || graph::sole_consumer(g_, x) != op) continue;
            if (requantize_pool(x, q.attrs.get<float>("step", 1.f), out)) {
                dead_[op] = true;
                continue;
            }
            if (!can_emit(x, 0)) continue;
            emit(x, q.attrs.get<float>("step", 1.f), out);
            dead_[op] = true;
        }
        graph::compact(g_, dead_);
        return count;
    }

private:
    /// Turns op `op` into an int8 op when its input is fake-quantized.
    bool convert(int op) {
        auto& node = g_.ops[op];
        const auto form = op_int8_form_of(quantizable_ops{}, node.type);
        const bool conv = form == int8_form::conv;
        const bool fc = form == int8_form::matrix;
        if (!conv && !fc) return false;
        const char* x_slot = conv ? "Input" : "X";
        const char* w_slot = conv ? "Filter" : "Y";
        const int x = graph::input_var(node, x_slot);
        int w = graph::input_var(node, w_slot);
        if (x < 0 || w < 0 || !is_param(g_, w) || g_.vars[x].producer < 0) return false;
        const auto& f = g_.ops[g_.vars[x].producer];
        if (!op_declares<fake_activation_quant>(f.type) || f.attrs.get<int>("bit_length", 8) != 8)
            return false;
        const int in_scale = graph::input_var(f, "InScale");
        const bool shapes_only = !g_.vars[w].value;
        float s_in = int8_detail::scalar_param(g_, in_scale);
        if (shapes_only)
            s_in = 127.f;  // planning only: any positive step
        else if (!(s_in > 0.f) || !has_f32_value(g_, w))
            return false;
        const shape_t wshape = shapes_only ? g_.vars[w].shape : g_.vars[w].value->shape();
        float alpha = 1.f;
        if (conv) {
            if (wshape.size() != 4 || !is_known(wshape)) return false;
            // The int8 kernel runs the fused conv's stages after its rescale.
            if (is_fused_conv(node)) {
                auto stages = fusion::stages_of(node.attrs);
                stages.insert(stages.begin(), std::string(fusion::stage_name<fusion::rescale>()));
                if (!int8_conv_exists(stages)) return false;
            }
        } else {
            if (wshape.size() != 2 || !is_known(wshape)) return false;
            const bool mul = op_declares<ops::mul>(node.type);
            if (mul && node.attrs.get<int>("y_num_col_dims", 1) != 1) return false;
            if (op_declares<ops::matmul>(node.type)) {
                if (node.attrs.get<bool>("transpose_X", false) ||
                    node.attrs.get<bool>("transpose_Y", false))
                    return false;
                alpha = node.attrs.get<float>("alpha", 1.f);
            }
            if (op_declares<ops::matmul_v2>(node.type) &&
                (node.attrs.get<bool>("trans_x", false) || node.attrs.get<bool>("trans_y", false)))
                return false;
            // matmul's X [..., K] by a 2-D weight is mul's with x_num_col_dims
            // = rank - 1 (mul flattens X there).
            if (!mul && g_.vars[x].shape.size() < 2) return false;
        }
        const std::int64_t channels = conv ? wshape[0] : wshape[1];
        const float in_step = s_in / 127.f;
        // A folded batch norm's scale goes into the filter, whose per-channel
        // steps absorb it (the filter the fp32 fold used to write).
        if (conv) {
            if (!fold_scale_into_filter(g_, op)) return false;
            w = graph::input_var(g_.ops[op], w_slot);
        }
        // Weights and multipliers.
        int wq = -1, mult = -1;
        const std::string base = g_.vars[w].name;
        if (shapes_only) {
            wq = graph::declare_param(g_, base + ".int8", wshape, dtype::i8);
            mult = graph::declare_param(g_, base + ".multiplier", {channels}, dtype::f32);
        } else {
            auto qw = quantize_weight(*g_.vars[w].value, conv ? 0 : 1);
            std::vector<float> m(qw.steps.size());
            for (std::size_t c = 0; c < m.size(); ++c) m[c] = in_step * qw.steps[c] * alpha;
            wq = graph::add_param(g_, base + ".int8", std::move(qw.q));
            mult = graph::add_param(g_, base + ".multiplier", tensor::from<float>({channels}, m));
        }
        if (conv && !ensure_fused_conv(g_, op)) return false;
        const int xq = quantized_input(g_.vars[x].producer, in_step);
        auto& n = g_.ops[op];
        if (conv) {
            n.type = op_type<int8_conv_op>();
            fusion::prepend_stage<fusion::rescale>(n.attrs);
            graph::set_input(n, "Input", xq);
            graph::set_input(n, "Filter", wq);
        } else {
            const int xcols = op_declares<ops::mul>(n.type)
                                  ? n.attrs.get<int>("x_num_col_dims", 1)
                                  : static_cast<int>(g_.vars[x].shape.size()) - 1;
            n.type = op_type<ops::mul_int8>();
            n.attrs = attr_map{};
            n.attrs.set("x_num_col_dims", std::int32_t{xcols});
            graph::set_input(n, "X", xq);
            graph::set_input(n, "Y", wq);
        }
        graph::set_input(n, "Multiplier", mult);
        for (auto& s : n.outputs)
            for (int v : s.vars) g_.vars[v].type = dtype::f32;
        return true;
    }

    /// The per-tensor 8-bit fake op that produces `v` and its int8 step, or
    /// {-1, 0}.  A scale without data (a topology without weights) gives
    /// step 1: planning only.
    std::pair<int, float> fake_input(int v) const {
        const int f = v >= 0 ? g_.vars[v].producer : -1;
        if (f < 0 || !op_declares<fake_activation_quant>(g_.ops[f].type) ||
            g_.ops[f].attrs.get<int>("bit_length", 8) != 8)
            return {-1, 0.f};
        const int in_scale = graph::input_var(g_.ops[f], "InScale");
        const float s = int8_detail::scalar_param(g_, in_scale);
        if (s > 0.f) return {f, s / 127.f};
        if (in_scale >= 0 && !g_.vars[in_scale].value) return {f, 1.f};
        return {-1, 0.f};
    }

    /// A float pool2d of a fake-quantized input becomes pool2d_int8 on the
    /// quantized input (the output in the input's step), then a
    /// dequantize_int8 to the float output; the merge below turns a
    /// quantize_int8 after that pair into the pool's output step.
    void convert_pool(int op) {
        if (!op_declares<ops::pool2d>(g_.ops[op].type)) return;
        const int x = graph::input_var(g_.ops[op], "X"), out = graph::output_var(g_.ops[op], "Out");
        const auto [f, step] = fake_input(x);
        if (f < 0 || out < 0) return;
        const int xq = quantized_input(f, step);
        const int pq =
            declare_activation(g_, g_.vars[out].name + ".int8", g_.vars[out].shape, dtype::i8);
        auto& pool = g_.ops[op];
        pool.type = op_type<ops::pool2d_int8>();
        graph::set_input(pool, "X", xq);
        for (auto& sl : pool.outputs)
            for (auto& v : sl.vars)
                if (v == out) v = pq;
        graph::op_node dq;
        dq.type = op_type<ops::dequantize_int8>();
        dq.inputs = {{"X", {pq}}};
        dq.outputs = {{"Out", {out}}};
        dq.attrs.set("step", step);
        g_.ops.push_back(std::move(dq));
    }

    /// An int8 SE gate conv (its last stage mul_plane) whose Other is
    /// fake-quantized reads Other as int8 (mul_plane_int8, `other_step`).
    void convert_plane_gate(int op) {
        auto& n = g_.ops[op];
        if (!op_declares<int8_conv_op>(n.type) ||
            fusion::chain_terminal(n.attrs) != fusion::stage_name<fusion::mul_plane>())
            return;
        auto stages = fusion::stages_of(n.attrs);
        stages.back() = std::string(fusion::stage_name<fusion::mul_plane_int8>());
        if (!int8_conv_exists(stages)) return;
        const auto [f, step] = fake_input(graph::input_var(n, "Other"));
        if (f < 0) return;
        const int oq = quantized_input(f, step);
        auto& node = g_.ops[op];
        fusion::set_stages(node.attrs, std::move(stages));
        node.attrs.set("other_step", step);
        graph::set_input(node, "Other", oq);
    }

    /// When float `v` is a dequantize_int8 of a pool2d_int8's output (each
    /// read only by the next), the pool writes `target` in `step` instead;
    /// whether it did.
    bool requantize_pool(int v, float step, int target) {
        const int d = g_.vars[v].producer;
        if (d < 0 || dead_[d] || graph::is_fetched(g_, v) ||
            !op_declares<ops::dequantize_int8>(g_.ops[d].type))
            return false;
        const int pq = graph::input_var(g_.ops[d], "X");
        const int p = pq >= 0 ? g_.vars[pq].producer : -1;
        if (p < 0 || !op_declares<ops::pool2d_int8>(g_.ops[p].type) ||
            graph::sole_consumer(g_, pq) != d || graph::is_fetched(g_, pq) ||
            g_.ops[p].attrs.has("output_step"))
            return false;
        auto& pool = g_.ops[p];
        pool.attrs.set("input_step", g_.ops[d].attrs.get<float>("step", 1.f));
        pool.attrs.set("output_step", step);
        for (auto& sl : pool.outputs)
            for (auto& x : sl.vars)
                if (x == pq) x = target;
        g_.vars[target].shape = g_.vars[pq].shape;
        dead_[d] = true;
        return true;
    }

    /// The int8 variable quantize_int8 makes of fake op `f`'s input (one per fake op).
    int quantized_input(int f, float step) {
        if (auto it = quantized_.find(f); it != quantized_.end()) return it->second;
        const int x = graph::input_var(g_.ops[f], "X");
        const int q =
            declare_activation(g_, g_.vars[x].name + ".int8", g_.vars[x].shape, dtype::i8);
        graph::op_node node;
        node.type = op_type<ops::quantize_int8>();
        node.inputs = {{"X", {x}}};
        node.outputs = {{"Out", {q}}};
        node.attrs.set("step", step);
        g_.ops.push_back(std::move(node));  // program order is restored by relink/topo order
        quantized_[f] = q;
        return q;
    }

    /// Whether the producer of float `v` can write it as int8 instead: an
    /// int8 op writing float32 with a plain store (or an int8 conv ending in
    /// add_with or a gate, with a kernel for that chain then quantize_store),
    /// or a max pool / concat of such values, each read only by the op that
    /// consumes it.
    bool can_emit(int v, int depth) const {
        const int p = g_.vars[v].producer;
        if (p < 0 || depth > 8 || dead_[p] || graph::is_fetched(g_, v)) return false;
        const auto& op = g_.ops[p];
        if (op_declares<int8_conv_op>(op.type)) {
            // A plain store, or a residual add or gate whose result the kernel
            // then quantizes in the same loop (when there is such a kernel).
            const auto terminal = fusion::chain_terminal(op.attrs);
            if (terminal == fusion::stage_name<fusion::store>()) return true;
            if (terminal == fusion::stage_name<fusion::quantize_store>()) return false;
            auto stages = fusion::stages_of(op.attrs);
            stages.emplace_back(fusion::stage_name<fusion::quantize_store>());
            return int8_conv_exists(stages);
        }
        if (op_declares<ops::mul_int8>(op.type))
            return op.attrs.get<float>("output_step", 0.f) == 0.f;
        if (op_declares<ops::pool2d>(op.type) &&
            op.attrs.get<std::string>("pooling_type", "max") == "max") {
            const int x = graph::input_var(op, "X");
            return x >= 0 && graph::sole_consumer(g_, x) == p && can_emit(x, depth + 1);
        }
        if (op_declares<ops::concat>(op.type) && !op.input("AxisTensor")) {
            const auto* xs = op.input("X");
            if (!xs || xs->vars.empty()) return false;
            for (int x : xs->vars)
                if (graph::sole_consumer(g_, x) != p || !can_emit(x, depth + 1)) return false;
            return true;
        }
        return false;
    }

    /// Makes the producer of `v` write int8 of `step` into `target`.
    void emit(int v, float step, int target) {
        const int p = g_.vars[v].producer;
        auto& op = g_.ops[p];
        if (op_declares<int8_conv_op>(op.type)) {
            fusion::append_stage<fusion::quantize_store>(op.attrs);
            op.attrs.set("output_step", step);
        } else if (op_declares<ops::mul_int8>(op.type)) {
            op.attrs.set("output_step", step);
        } else if (op_declares<ops::pool2d>(op.type)) {
            const int x = graph::input_var(op, "X");
            const int xi =
                declare_activation(g_, g_.vars[x].name + ".int8", g_.vars[x].shape, dtype::i8);
            emit(x, step, xi);
            auto& pool = g_.ops[p];
            pool.type = op_type<ops::pool2d_int8>();
            graph::set_input(pool, "X", xi);
        } else if (op_declares<ops::concat>(op.type)) {
            const auto xs = op.input("X")->vars;
            std::vector<int> ins;
            for (int x : xs) {
                const int xi =
                    declare_activation(g_, g_.vars[x].name + ".int8", g_.vars[x].shape, dtype::i8);
                emit(x, step, xi);
                ins.push_back(xi);
            }
            for (auto& s : g_.ops[p].inputs)
                if (s.name == "X") s.vars = ins;
        }
        auto& o = g_.ops[p];
        for (auto& s : o.outputs)
            for (auto& x : s.vars)
                if (x == v) x = target;
        g_.vars[target].shape = g_.vars[v].shape;
    }

    graph::graph& g_;
    std::map<int, int> quantized_;  // fake op -> int8 variable
    std::vector<bool> dead_;
};

}  // namespace int8_detail

/// Fake-quantized convs and matrix products to int8 ops; returns how many.
inline int quantize_int8(graph::graph& g) {
    return int8_detail::int8_rewriter(g).run();
}

}  // namespace litegraph::passes
