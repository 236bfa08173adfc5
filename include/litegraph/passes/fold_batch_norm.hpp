// fold_batch_norm: conv -> batch_norm, where the batch norm is the conv
// output's only reader, becomes one fused_conv2d whose bias stage carries the
// normalisation as a per-channel scale and bias:
//   k[oc] = gamma[oc] / sqrt(var[oc] + eps)
//   Scale = k,  Bias b'[oc] = (b[oc] - mean[oc]) * k[oc] + beta[oc]
// (b = the conv's bias, or 0), so the fused conv computes conv(x, W) * k + b'.
// The filter stays as trained: multiplying k into it (W * k, as many
// converters do) rounds every weight, and on a deep network (ppocr_v3_det)
// the fused outputs then drift from the unfused ones by 2e-5; with the scale
// in the epilogue they round as conv -> batch_norm does.  Scale and b' are
// new parameters (a conv that already has a Scale gets k multiplied in).
// Consumers that want the scale inside the filter (int8 quantisation, whose
// per-channel steps absorb it) call fold_scale_into_filter (pattern.hpp).
// The fused conv writes the batch norm's Y.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "litegraph/ops/batch_norm.hpp"
#include "litegraph/passes/pattern.hpp"

namespace litegraph::passes {

/// A topology without its params (planning needs shapes only): the same
/// rewrite with parameters that have declared shapes and no data.
inline bool fold_shapes_only(graph::graph& g, int op, int bn_op, int y, std::vector<bool>& dead) {
    const auto& conv = g.ops[op];
    const auto& bn = g.ops[bn_op];
    const int filter = graph::input_var(conv, "Filter");
    const auto& fshape = g.vars[filter].shape;
    if (!g.vars[filter].persistable || fshape.size() != 4 || fshape[0] <= 0) return false;
    const std::int64_t oc = fshape[0];
    for (const char* slot : {"Scale", "Bias", "Mean", "Variance"}) {
        int v = graph::input_var(bn, slot);
        if (v < 0 || !g.vars[v].persistable || g.vars[v].value) return false;
    }
    if (graph::input_var(conv, "Bias") >= 0 || graph::input_var(conv, "Scale") >= 0) return false;
    const std::string base = g.vars[y].name;
    int kv = graph::declare_param(g, base + ".fused_scale", {oc});
    int bv = graph::declare_param(g, base + ".fused_bias", {oc});
    auto& fused = g.ops[op];
    fused.type = op_type<fused_conv_op>();
    fusion::set_stages<open_stages>(fused.attrs);
    graph::set_input(fused, "Scale", kv);
    graph::set_input(fused, "Bias", bv);
    graph::set_output(fused, "Output", y);
    dead[bn_op] = true;
    return true;
}

/// Folds every conv -> batch_norm pair; returns how many.
inline int fold_batch_norm(graph::graph& g) {
    return rewrite_until_fixed(g, [&](int op, std::vector<bool>& dead) {
        const auto& conv = g.ops[op];
        if (!is_open_conv(conv)) return false;
        const int out = conv_output(conv);
        if (out < 0) return false;
        const int bn_op = graph::sole_consumer(g, out);
        if (bn_op < 0) return false;
        const auto& bn = g.ops[bn_op];
        if (!op_declares<ops::batch_norm>(bn.type) || graph::input_var(bn, "X") != out)
            return false;
        auto layout = bn.attrs.get<std::string>("data_layout", "NCHW");
        if (layout != "NCHW" && layout != "AnyLayout" && !layout.empty()) return false;
        const int y = graph::output_var(bn, "Y");
        if (y < 0) return false;
        for (auto& s : bn.outputs)  // the training outputs must be unread
            for (int v : s.vars)
                if (v != y && (!g.vars[v].consumers.empty() || graph::is_fetched(g, v)))
                    return false;
        const int filter = graph::input_var(conv, "Filter");
        if (filter < 0) return false;
        if (!g.vars[filter].value) return fold_shapes_only(g, op, bn_op, y, dead);
        if (!has_f32_value(g, filter)) return false;
        const auto& w = *g.vars[filter].value;
        if (w.shape().size() != 4) return false;
        const std::int64_t oc = w.shape()[0];
        const float* stats[4];  // gamma, beta, mean, var
        const char* slots[4] = {"Scale", "Bias", "Mean", "Variance"};
        for (int i = 0; i < 4; ++i) {
            int v = graph::input_var(bn, slots[i]);
            if (v < 0 || !has_f32_value(g, v) || g.vars[v].value->numel() != oc) return false;
            stats[i] = g.vars[v].value->span<float>().data();
        }
        auto bias = conv_bias_values(g, conv, oc);
        if (static_cast<std::int64_t>(bias.size()) != oc) return false;
        const float eps = bn.attrs.get<float>("epsilon", 1e-5f);

        // An earlier scale (batch norm after batch norm) is multiplied in.
        std::vector<float> k0(static_cast<std::size_t>(oc), 1.f);
        if (const int sv = graph::input_var(conv, "Scale"); sv >= 0) {
            if (!has_f32_value(g, sv) || g.vars[sv].value->numel() != oc) return false;
            auto s0 = g.vars[sv].value->span<float>();
            k0.assign(s0.begin(), s0.end());
        }
        std::vector<float> k2(static_cast<std::size_t>(oc)), b2(static_cast<std::size_t>(oc));
        for (std::int64_t c = 0; c < oc; ++c) {
            const auto i = static_cast<std::size_t>(c);
            // As batch_norm's kernel computes k; with b = 0, b' is that
            // kernel's beta - mean * k, and the fused conv's v * k + b' the
            // same operations in the same order as its x * k + b.
            const float k = stats[0][c] * (1.f / std::sqrt(stats[3][c] + eps));
            k2[i] = k0[i] * k;
            b2[i] = (bias[i] - stats[2][c]) * k + stats[1][c];
        }
        const std::string base = g.vars[y].name;
        int kv = graph::add_param(g, base + ".fused_scale", tensor::from<float>({oc}, k2));
        make_fused_conv(g, op, b2);
        auto& fused = g.ops[op];
        graph::set_input(fused, "Scale", kv);
        graph::set_output(fused, "Output", y);
        dead[bn_op] = true;
        return true;
    });
}

}  // namespace litegraph::passes
