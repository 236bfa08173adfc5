// How every subcommand names a model: a folder (files auto-detected), a
// topology file, or explicit --model FILE --params FILE.
#pragma once

#include <filesystem>

#include "args.hpp"
#include "litegraph/ops/registry.hpp"
#include "litegraph/paddle.hpp"

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

}  // namespace litegraph::cli
