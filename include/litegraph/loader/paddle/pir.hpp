// The Paddle 3.x program loader: a PIR program serialised as JSON
// (`inference.json`) plus the classic combined parameter file -> the same
// graph::graph the ProgramDesc loader makes.  PIR op names are mapped to the
// ops litegraph has (`1.hardswish` -> hard_swish, `1.add` -> elementwise_add,
// ...), operands that were attributes in the old op set (pool2d's kernel
// size, reshape's shape, scale's factor) are folded from the constants that
// define them (`1.full_int_array`, `1.full`), and ops litegraph cannot
// translate stay in the graph under their PIR name, so that `info` names them
// and running names them too.  Control flow (`1.if`, `1.while`, their nested
// regions, `2.yield`) becomes ops `if` and `while`, each holding its blocks as
// graphs of their own (pir/blocks.hpp), which runtime/control_flow.hpp runs.
// docs/paddle-pir.md describes the format.
//
// The parts, by role (include/litegraph/loader/paddle/pir/):
//   json.hpp          parsing with a depth cap; reading members of expected kinds
//   values.hpp        dtypes, types and attributes decoded; the table of values
//   names.hpp         the PIR names the loader knows, derived from the ops' traits
//   builder.hpp       adding graph ops (emit) or keeping an op untranslated
//   control_flow.hpp  nested regions, parsed, checked and translated (ops tagged by block)
//   blocks.hpp        each block moved into a graph of its own
//   program.hpp       the walk of the program and the parameter file
//   resolve.hpp       ops resolved at load (inputs, outputs, constants, lists)
//   translate_ops.hpp the translators of ops that need code
//   translate.hpp     what each op becomes (the dispatch)
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "litegraph/core/error.hpp"
#include "litegraph/loader/paddle/model.hpp"
#include "litegraph/loader/paddle/pir/json.hpp"
#include "litegraph/loader/paddle/pir/names.hpp"
#include "litegraph/loader/paddle/pir/translate.hpp"
#include "litegraph/loader/paddle/types.hpp"
#include "litegraph/passes/nhwc_to_nchw.hpp"

namespace litegraph::paddle {

namespace pir {

/// Loads a PIR program (JSON text) and, when `params` is given, its combined
/// parameter file.  Errors name `json_label` / `params_label`.
inline model load(std::string_view json_text, std::optional<std::string_view> params,
                  const std::string& json_label, const std::string& params_label,
                  const load_options& options) {
    if (json_text.size() > options.max_topology_bytes)
        throw format_error(
            json_label, 0,
            "topology of " + std::to_string(json_text.size()) + " bytes, over the limit of " +
                std::to_string(options.max_topology_bytes) + " (load_options::max_topology_bytes)");
    model m;
    try {
        detail::reader r(json_label, m);
        {
            const auto root = detail::parse_json(json_text, json_label);
            r.read(root);
        }
        r.read_params(params, params_label, options.require_params);
        r.split_blocks();
    } catch (const nlohmann::json::exception& e) {
        // A shape of JSON the reader did not expect and did not check first.
        throw format_error(json_label, 0, std::string("malformed PIR program: ") + e.what());
    }
    passes::nhwc_to_nchw(m.graph);  // channels-last ops between transposes
    return m;
}

}  // namespace pir

/// Loads a PIR program from memory: the JSON text and the bytes of its combined
/// parameter file (empty and `options.require_params` false: topology only).
/// Errors name "<memory>/topology" (with the JSON path) and "<memory>/params".
inline model load_pir_from_memory(std::string_view json_text, std::string_view params,
                                  load_options options = {}) {
    std::optional<std::string_view> p;
    if (!params.empty() || options.require_params) p = params;
    return pir::load(json_text, p, "<memory>/topology", "<memory>/params", options);
}

}  // namespace litegraph::paddle
