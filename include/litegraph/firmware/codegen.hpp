// The code generator's entry point: a model -> the header of its firmware
// network (docs/firmware.md).  It prepares the model as a session does
// (passes, program), plans it on the desktop (shapes, folded constants,
// execution order, alias groups) into one unbounded segment, and writes the
// header with firmware/generator.hpp; whether the header's plan fits its
// segments is the compiler's call (the plan's static_assert).  Without a
// patch request, a network whose untiled plan does not fit the segments gets
// its first stage in patches (runtime/patches.hpp, `auto`).  `litegraph
// codegen` parses its options and calls this.  Needs the Paddle loader (the
// session); the generated header needs only the protobuf-free headers.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "litegraph/firmware/generator.hpp"
#include "litegraph/runtime/sample_input.hpp"
#include "litegraph/session.hpp"

namespace litegraph::firmware {

/// A model and how to write it.
struct codegen_request {
    /// Loads the model (called again when the first stage goes in patches).
    std::function<paddle::model()> load;
    /// How the session prepares it (fuse, precision, `patches`, input_int8, ...;
    /// its segments are replaced by one unbounded segment).
    session_options session;
    /// The input shapes (runtime::input_shape; the plan is prepared with
    /// runtime::deterministic_feed), also those of an automatic patch request.
    std::map<std::string, shape_t> shapes;
    /// Without session.patches: patches `auto` within this budget when the
    /// untiled plan does not fit header.segments; false keeps it untiled.
    bool auto_patches = true;
    double patch_budget = 1.3;
    /// The segments as the user named them, for the notes ("stm32h730").
    std::string segments_label = "the segments";
    header_options header;
};

/// The header and how it was made.
struct codegen_result {
    header_text header;
    /// What was decided on the way (the untiled plan did not fit, ...), a line each.
    std::vector<std::string> notes;
    /// The patched stage, when there is one.
    std::optional<runtime::patch_choice> patches;
    /// Activation buffers the header plans.
    std::size_t buffers = 0;
};

namespace codegen_detail {

inline std::unique_ptr<session> prepared(const codegen_request& r, const session_options& opt) {
    auto s = std::make_unique<session>(r.load(), opt);
    runtime::program& prog = s->program();
    for (auto& [name, dims] : r.shapes) prog.input_index(name);
    for (std::size_t i = 0; i < prog.input_count(); ++i) {
        const auto& v = prog.input_var(i);
        prog.set_input(i, runtime::deterministic_feed(v, r.shapes));
    }
    prog.prepare_plan();
    return s;
}

}  // namespace codegen_detail

/// The firmware network of `r.load()`.  Throws usage_error for a sample
/// input whose dtype or shape is not its input's, what the session throws,
/// and what write_header throws.
inline codegen_result codegen(const codegen_request& r) {
    if (r.header.segments.empty()) throw usage_error("codegen: no memory segments");
    codegen_result out;
    session_options opt = r.session;
    opt.segments = {r.header.segments[0]};
    opt.segments[0].capacity = planner::unbounded;
    auto s = codegen_detail::prepared(r, opt);
    if (!opt.patches && r.auto_patches) {
        // Untiled unless that does not fit the segments (the runtime's
        // buffers, kernel scratch aside): then the first stage in patches.
        auto fit = planner::plan_memory(s->program().buffers(), r.header.segments);
        if (!fit.fits) {
            out.notes.push_back("the untiled plan does not fit " + r.segments_label + " (" +
                                std::to_string(fit.shortfall) +
                                " bytes short): the first stage runs in patches (--patches "
                                "auto; --patches none keeps it untiled)");
            opt.patches = runtime::parse_patch_request("auto", r.patch_budget);
            opt.patches->shapes = r.shapes;
            try {
                s = codegen_detail::prepared(r, opt);
            } catch (const usage_error& e) {  // no stage: untiled, the compiler says by how much
                out.notes.push_back(std::string("kept untiled: ") + e.what());
            }
        }
    }
    runtime::program& prog = s->program();
    if (s->patches()) out.patches = *s->patches();
    for (auto& [name, t] : r.header.inputs) {
        const auto& v = prog.var(prog.graph().feeds[prog.input_index(name)].var);
        if (t.type() != v.type || t.shape() != v.shape)
            throw usage_error("--input " + name + ": the file is " +
                              std::string(name_of(t.type())) + " " + to_string(t.shape()) +
                              ", the network's input is " + std::string(name_of(v.type)) + " " +
                              to_string(v.shape) + " (as --shape and --input-dtype say)");
    }
    out.header = write_header(prog, r.header);
    out.buffers = prog.buffers().size();
    return out;
}

}  // namespace litegraph::firmware
