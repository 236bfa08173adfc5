// The activations of a program as `litegraph plan` plans them: one buffer per
// family of variables that share bytes (planner/families.hpp), each
// variable's place in them, the op of each step, and a patched stage's
// per-patch buffers.  Shapes come from the runtime's own inference when every
// op is supported, else from the model's declarations.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "litegraph/core/shape.hpp"
#include "litegraph/graph/graph.hpp"
#include "litegraph/planner/model.hpp"
#include "litegraph/planner/render.hpp"
#include "litegraph/runtime/patches/instance.hpp"
#include "litegraph/runtime/program.hpp"
#include "litegraph/runtime/sample_input.hpp"

namespace litegraph::runtime {

/// The activations to plan: one buffer per alias group, and every variable's
/// place in them (for `alias_of`).
struct plan_problem {
    std::vector<planner::buffer> buffers;
    std::vector<std::string> names;  // one per buffer
    struct member {
        std::string name;
        int buffer;
        std::int64_t offset;
    };
    std::vector<member> members;         // variables that share a buffer they do not own
    std::vector<std::string> step_ops;   // op label of each step
    std::string shapes;                  // "inferred" or "declared"
    std::size_t order_gain = 0;          // LOAD saved by the runtime's execution order
    std::vector<planner::inset> insets;  // a patched stage's per-patch buffers in its Scratch
};

/// The per-patch buffers of each patched stage of `prog`, inside the buffer
/// that holds the stage's Scratch.
inline std::vector<planner::inset> patch_insets(const program& prog) {
    std::vector<planner::inset> out;
    const auto& g = prog.graph();
    for (const auto& ins : prog.instructions()) {
        const auto* k = dynamic_cast<const patched_stage_instance*>(ins.k.get());
        if (!k || ins.io.outputs.size() < 2 || ins.io.outputs[1].args.empty()) continue;
        const std::string scratch(ins.io.outputs[1].args[0]->name);
        const int v = g.find_var(scratch);
        if (v < 0) continue;
        const auto [buffer, at] = prog.var_buffers().at(static_cast<std::size_t>(v));
        if (buffer < 0) continue;
        planner::inset in;
        in.holder = static_cast<std::size_t>(buffer);
        const auto& t = k->tiling();
        in.title = scratch + ": per-patch buffers (" + std::to_string(t.rows) + "x" +
                   std::to_string(t.cols) + " patches, " + std::to_string(t.scratch_bytes) +
                   " bytes; x = layer of the stage)";
        for (auto& part : k->scratch_parts()) {
            in.parts.push_back(part.buffer);
            in.offsets.push_back(static_cast<std::size_t>(at) + part.offset);
            in.names.push_back(part.name);
        }
        out.push_back(std::move(in));
    }
    return out;
}

/// Shapes from the runtime's own shape inference (every op supported).
inline plan_problem problem_from_program(program& prog) {
    plan_problem p;
    p.shapes = "inferred";
    prog.prepare_plan();
    p.order_gain = prog.memory().order_gain_bytes;
    p.buffers = prog.buffers();
    const auto& g = prog.graph();
    for (int v : prog.buffer_vars()) p.names.push_back(g.vars[v].name);
    const auto& vb = prog.var_buffers();
    for (std::size_t v = 0; v < vb.size(); ++v)
        if (vb[v].first >= 0 && prog.buffer_vars()[vb[v].first] != static_cast<int>(v))
            p.members.push_back({g.vars[v].name, vb[v].first, vb[v].second});
    for (int i : prog.execution_order()) p.step_ops.push_back(prog.instructions()[i].io.label);
    p.insets = patch_insets(prog);
    return p;
}

/// Shapes as the model declares them (-1 dims as 1, feeds as --shape says):
/// for models with ops litegraph cannot run, planning needs shapes only.
inline plan_problem problem_from_declared(const graph::graph& g,
                                          const std::map<std::string, shape_t>& feed_shapes) {
    plan_problem p;
    p.shapes = "declared";
    auto order = g.topo_order();
    const int nv = static_cast<int>(g.vars.size());
    std::vector<int> first(nv, -1), last(nv, -1);
    for (auto& f : g.feeds) first[f.var] = last[f.var] = 0;
    for (int s = 0; s < static_cast<int>(order.size()); ++s) {
        const auto& op = g.ops[order[s]];
        p.step_ops.push_back(g.op_label(order[s]));
        for (auto& sl : op.inputs)
            for (int v : sl.vars) last[v] = std::max(last[v], s);
        for (auto& sl : op.outputs)
            for (int v : sl.vars)
                if (first[v] < 0) first[v] = last[v] = s;
    }
    for (auto& f : g.fetches) last[f.var] = std::max<int>(0, static_cast<int>(order.size()) - 1);
    for (int v = 0; v < nv; ++v) {
        const auto& var = g.vars[v];
        if (var.persistable || first[v] < 0) continue;
        shape_t shape = var.shape;
        if (auto it = feed_shapes.find(var.name); it != feed_shapes.end()) shape = it->second;
        for (auto& d : shape)
            if (d < 0) d = 1;
        auto bytes = checked_bytes(numel(shape), size_of(var.type));
        if (bytes == 0) continue;
        p.buffers.push_back({planner::align_up(bytes, 64), first[v], last[v]});
        p.names.push_back(var.name);
    }
    return p;
}

/// The activations of `g` for inputs of `shapes` (others: declared, -1 as 1):
/// the runtime's shape inference when every op is supported and shapes infer
/// without values the model lacks, else the declared shapes.
inline plan_problem problem_for(const graph::graph& g, const std::map<std::string, shape_t>& shapes,
                                const std::vector<planner::segment>& segs,
                                const instance_factory& make = {}) {
    bool control_flow = false;
    for (auto& op : g.ops) {
        control_flow = control_flow || is_control_flow_op(op.type);
        if (!is_supported<op_table>(op.type) && op.type != patched_stage_type &&
            !is_control_flow_op(op.type))
            return problem_from_declared(g, shapes);
    }
    try {
        program prog(g, segs, make);
        for (auto& [name, dims] : shapes) prog.input_index(name);
        for (std::size_t i = 0; i < prog.input_count(); ++i) {
            const auto& v = prog.input_var(i);
            prog.set_input(i, deterministic_feed(v, shapes));
        }
        return problem_from_program(prog);
    } catch (const unsupported_error&) {
        // An op of a control-flow block has no kernel: the declared shapes.
        if (!control_flow) throw;
        return problem_from_declared(g, shapes);
    } catch (const shape_error&) {
        // Shape inference needs values the model does not carry (e.g. a
        // topology without its parameters): plan the declared shapes, which
        // the problem reports.  Shapes the user gave must infer, though.
        if (!shapes.empty()) throw;
        return problem_from_declared(g, shapes);
    }
}

}  // namespace litegraph::runtime
