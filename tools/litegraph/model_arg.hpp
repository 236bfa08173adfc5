// How every subcommand names a model: a folder (files auto-detected), a
// topology file, or explicit --model FILE --params FILE.
#pragma once

#include <filesystem>

#include "args.hpp"
#include "litegraph/ops/registry.hpp"
#include "litegraph/paddle.hpp"
#include "litegraph/passes/pipeline.hpp"

namespace litegraph::cli {

inline const char* model_help =
    "  MODEL                 a model folder (topology and params auto-detected) or a\n"
    "                        topology file; or give --model FILE [--params FILE]\n";

inline void add_model_options(arg_spec& spec) {
    spec.with_value.insert({"--model", "--params"});
    spec.min_positional = 0;
}

inline paddle::model load_model(const args& a, paddle::load_options opt = {}) {
    if (a.has("--model")) {
        if (!a.positional.empty())
            throw usage_error("give the model either as MODEL or as --model, not both");
        if (a.has("--params")) return paddle::load(a.value("--model"), a.value("--params"), opt);
        return paddle::load(a.value("--model"), opt);
    }
    if (a.has("--params")) throw usage_error("--params needs --model");
    if (a.positional.empty()) throw usage_error("missing MODEL (see --help)");
    return paddle::load(a.positional.front(), opt);
}

/// The pipeline options of --precision: int8 (default) runs every pass; fp32
/// skips quantize_int8, so a fake-quantized model runs in float with its
/// quant-dequant ops simulated.
inline precision_mode precision_of(const args& a) {
    const auto p = a.has("--precision") ? a.value("--precision") : std::string("int8");
    if (p == "fp32") return precision_mode::fp32;
    if (p != "int8") throw usage_error("--precision expects int8 or fp32, got '" + p + "'");
    return precision_mode::int8;
}

/// How a command prepares its graph, read the same way by every command:
/// --no-fuse (the graph as loaded) and --precision, as a session's options.
inline session_options preparation_options(const args& a) {
    session_options o;
    o.fuse = !a.flag("--no-fuse");
    o.precision = precision_of(a);
    return o;
}

/// The passes that fuse (skipped by a plan's "unfused" rows): what remains
/// turns a quantized model into int8 ops without merging anything into them.
inline const std::vector<std::string>& fusion_pass_names() {
    static const std::vector<std::string> names{"fuse_conv_bias",       "fold_batch_norm",
                                                "fuse_conv_activation", "fuse_gate",
                                                "fuse_residual_add",    "in_place"};
    return names;
}

}  // namespace litegraph::cli
