// The pass pipeline: one explicit, ordered list of graph passes (no
// self-registering statics).  Each pass is a function that rewrites the graph
// and returns how many rewrites it made.
//
//   auto report = passes::run_passes(g);                 // all passes, in order
//   passes::pipeline_options o;
//   o.stop_after = "fold_batch_norm";            // litegraph dot --after PASS
//   o.after_each = [](const passes::pass_info& p, int rewrites, const graph::graph& g) {
//       ...                                      // one DOT per pass (--all-passes DIR)
//   };
//   passes::run_passes(g, o);
#pragma once

#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "litegraph/core/error.hpp"
#include "litegraph/graph/graph.hpp"
#include "litegraph/passes/cancel_transposes.hpp"
#include "litegraph/passes/flush_subnormals.hpp"
#include "litegraph/passes/fold_batch_norm.hpp"
#include "litegraph/passes/fuse_conv_activation.hpp"
#include "litegraph/passes/fuse_conv_bias.hpp"
#include "litegraph/passes/fuse_gate.hpp"
#include "litegraph/passes/fuse_residual_add.hpp"
#include "litegraph/passes/in_place.hpp"
#include "litegraph/passes/quantize_int8.hpp"
#include "litegraph/passes/remove_identity.hpp"

namespace litegraph::passes {

/// One pass: its name (for --after and reports), the function, and what it does.
struct pass_info {
    std::string_view name;
    int (*run)(graph::graph&);
    std::string_view description;
};

/// The pipeline, in the order it runs.  The order matters: a conv's bias and
/// batch norm are merged before its activation, the activation before a gate
/// (which needs it), and `in_place` on the final graph; flush_subnormals
/// changes parameter values only.
inline constexpr pass_info pipeline[] = {
    {"remove_identity", remove_identity,
     "drop scale(1, 0) and inference dropout; readers use the input directly"},
    {"cancel_transposes", cancel_transposes,
     "a transpose2 and its inverse go (moving past activations and per-channel element-wise "
     "ops), repeated transposes of one variable are one: the borders of a channels-last "
     "region"},
    {"fold_quant_linear", fold_quant_linear,
     "quantize_linear -> dequantize_linear pairs become a folded weight or one fake quant op"},
    {"fold_quant_dequant_split", fold_quant_dequant_split,
     "fake_quantize -> conv/mul -> fake_dequantize_max_abs becomes the quant-dequant form"},
    {"fold_weight_quant", fold_weight_quant,
     "fake quant-dequant ops on weights are computed once into parameters"},
    {"fuse_conv_bias", fuse_conv_bias,
     "conv -> elementwise_add(per-channel parameter) becomes fused_conv2d with Bias"},
    {"fold_batch_norm", fold_batch_norm,
     "conv -> batch_norm becomes a fused_conv2d whose epilogue scales and biases each channel"},
    {"fuse_conv_activation", fuse_conv_activation,
     "conv -> an activation a conv fuses (ops::fusable_activations) joins its stages"},
    {"fuse_gate", fuse_gate,
     "gate conv (ops::gate_activations) -> elementwise_mul adds the stage mul_with or mul_plane"},
    {"fuse_residual_add", fuse_residual_add,
     "conv -> elementwise_add(activation of the same shape) adds the stage add_with"},
    {"quantize_int8", quantize_int8,
     "fake-quantized conv / fused conv / mul / matmul become int8 ops (skip: --precision fp32)"},
    {"in_place", mark_in_place,
     "mark ops whose output may reuse a dying input's buffer (attribute in_place)"},
    {"flush_subnormals", flush_subnormals,
     "subnormal float32 parameter values become 0 (they run through slow microcode assists)"},
};

/// The pipeline's passes.
inline std::span<const pass_info> pass_list() noexcept {
    return pipeline;
}

/// The name of the pipeline's pass that runs `run` (so code names a pass by
/// its function, e.g. pass_name(quantize_int8), not by a string).
constexpr std::string_view pass_name(int (*run)(graph::graph&)) {
    for (auto& p : pipeline)
        if (p.run == run) return p.name;
    return {};
}

/// The pass named `name`; throws usage_error listing the valid names.
inline const pass_info& find_pass(std::string_view name) {
    std::string names;
    for (auto& p : pipeline) {
        if (p.name == name) return p;
        names += (names.empty() ? "" : ", ") + std::string(p.name);
    }
    throw usage_error("no pass named '" + std::string(name) + "' (passes: " + names + ")");
}

struct pipeline_options {
    /// Stop after this pass (empty: run them all).
    std::string stop_after;
    /// Passes not to run (each must be a valid name).
    std::vector<std::string> skip;
    /// Called after each pass that ran, with its rewrite count and the graph.
    std::function<void(const pass_info&, int, const graph::graph&)> after_each;
};

/// Which passes ran, in order, and how many rewrites each made.
struct pass_report {
    std::vector<std::pair<std::string, int>> counts;

    /// Rewrites made by pass `name` (0 when it did not run).
    int count(std::string_view name) const {
        for (auto& [n, c] : counts)
            if (n == name) return c;
        return 0;
    }
    /// The passes that ran with their counts: "remove_identity 1, ...".
    std::string to_string() const {
        std::string s;
        for (auto& [n, c] : counts) s += (s.empty() ? "" : ", ") + n + " " + std::to_string(c);
        return s;
    }
};

/// Runs the pipeline on `g` in place.
inline pass_report run_passes(graph::graph& g, const pipeline_options& options = {}) {
    if (!options.stop_after.empty()) find_pass(options.stop_after);
    for (auto& s : options.skip) find_pass(s);
    pass_report report;
    for (auto& p : pipeline) {
        bool skipped = false;
        for (auto& s : options.skip) skipped = skipped || s == p.name;
        if (!skipped) {
            int n = p.run(g);
            report.counts.emplace_back(std::string(p.name), n);
            if (options.after_each) options.after_each(p, n, g);
        }
        if (p.name == options.stop_after) break;
    }
    return report;
}

}  // namespace litegraph::passes
