// Patched stages (runtime/patches.hpp, docs/patches.md): the choice of a
// stage and its grid on an untiled program.  choose_patches tries every
// split tensor and grid for the least predicted peak within a MAC budget;
// choose_tail cuts a global pool's conv map into row bands.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "litegraph/graph/edit.hpp"
#include "litegraph/runtime/patches/request.hpp"
#include "litegraph/runtime/patches/stage.hpp"
#include "litegraph/runtime/patches/tiling.hpp"
#include "litegraph/runtime/program.hpp"

namespace litegraph::runtime {

/// The conv MACs of the unfolded instructions of `p`.
inline double network_macs(const program& p) {
    double total = 0;
    for (int i : p.execution_order()) {
        const auto& ins = p.instructions()[i];
        const auto& io = ins.io;
        if (ins.folded || !io.has_input("Filter") || io.outputs.empty()) continue;
        const auto& f = io.input("Filter");
        const auto& o = *io.outputs[0].args.at(0);
        if (f.shape.size() == 4 && f.shape[0] > 0)
            total += static_cast<double>(o.numel()) * static_cast<double>(f.numel() / f.shape[0]);
    }
    return total;
}

/// The stage and grid chosen, with the figures `plan --json` reports.
struct patch_choice {
    bool found = false;
    std::string why;  // when not found
    int split = -1;   // var of the graph chosen on
    std::string split_name, first_op, last_op;
    int rows = 1, cols = 1;
    std::size_t predicted_peak_bytes = 0;  // LOAD estimated with the stage patched
    std::size_t untiled_load_bytes = 0;    // LOAD of the untiled program
    std::size_t scratch_bytes = 0;         // the per-patch buffers
    double mac_overhead = 1;               // the network's conv MACs, tiled / untiled
    double stage_mac_overhead = 1;         // the stage's conv MACs, tiled / untiled
    std::set<int> ops;                     // the stage's ops in the graph chosen on
    bool tail = false;                     // a global pool's tail also runs in row bands
    std::string tail_first_op, tail_last_op;
    int tail_rows = 0;
    std::string rows_cols() const { return std::to_string(rows) + "x" + std::to_string(cols); }
};

/// Chooses a stage and grid for the prepared, untiled program `p`.
/// `total_macs`: the network's conv MACs untiled (0: those of `p`);
/// `extra_macs`: what patches already chosen add.
inline patch_choice choose_patches(const program& p, const patch_request& req,
                                   double total_macs = 0, double extra_macs = 0) {
    const auto& g = p.graph();
    patch_choice best;
    best.untiled_load_bytes = p.memory().lower_bound_bytes;
    const auto& order = p.execution_order();
    const auto& code = p.instructions();
    const auto& bufs = p.buffers();
    const auto& vb = p.var_buffers();
    if (total_macs <= 0) total_macs = network_macs(p);
    std::vector<int> op_step(g.ops.size(), -1);
    for (std::size_t s = 0; s < order.size(); ++s) op_step[code[order[s]].op] = static_cast<int>(s);
    const int steps = static_cast<int>(order.size());
    auto ref = [&](int v) -> const tensor_ref& { return p.var(v); };
    std::string first_why;
    std::vector<int> candidates;
    for (int s = 0; s < steps; ++s)
        for (auto& sl : g.ops[code[order[s]].op].outputs)
            for (int v : sl.vars) candidates.push_back(v);
    if (!req.split.empty()) {
        candidates.clear();
        if (int v = g.find_var(req.split); v >= 0) candidates.push_back(v);
        first_why = "no tensor named '" + req.split + "'";
    }
    for (int split : candidates) {
        stage_desc desc;
        auto why = describe_stage(g, split, ref, desc);
        if (!why.empty()) {
            if (first_why.empty() || !req.split.empty()) first_why = why;
            continue;
        }
        // Buffers only the stage uses disappear; the stage's step holds its
        // inputs, its output and the scratch, plus whatever else lives then.
        std::set<int> internal_bufs, kept_bufs;
        std::set<int> stage_steps;
        for (auto& l : desc.layers) {
            if (op_step[l.op] >= 0) stage_steps.insert(op_step[l.op]);
            if (l.out != split && vb[l.out].first >= 0) internal_bufs.insert(vb[l.out].first);
        }
        for (int v : desc.inputs)
            if (vb[v].first >= 0) kept_bufs.insert(vb[v].first);
        if (vb[split].first >= 0) kept_bufs.insert(vb[split].first);
        for (int b : kept_bufs) internal_bufs.erase(b);
        std::size_t rest = 0, beside = 0, held = 0;
        for (int b : kept_bufs) held += bufs[b].size;
        for (int s = 0; s < steps; ++s) {
            std::size_t live = 0;
            for (std::size_t b = 0; b < bufs.size(); ++b) {
                if (internal_bufs.count(static_cast<int>(b)) || bufs[b].first > s ||
                    bufs[b].last < s)
                    continue;
                if (stage_steps.count(s) && kept_bufs.count(static_cast<int>(b))) continue;
                live += bufs[b].size;
            }
            if (stage_steps.count(s))
                beside = std::max(beside, live);
            else
                rest = std::max(rest, live);
        }
        std::vector<std::pair<int, int>> grids;
        if (req.automatic) {
            for (int r = 1; r <= req.max_grid; ++r)
                for (int c = 1; c <= req.max_grid; ++c)
                    if (r * c > 1) grids.push_back({r, c});
        } else {
            grids.push_back({req.rows, req.cols});
        }
        for (auto [r, c] : grids) {
            auto t = tile_stage(desc, r, c, true);
            if (!t.problem.empty()) {
                if (first_why.empty()) first_why = t.problem;
                continue;
            }
            const double macs = total_macs + extra_macs - t.macs_untiled + t.macs_tiled;
            const double overhead = total_macs > 0 ? macs / total_macs : 1.0;
            if (req.automatic && overhead > req.budget) continue;
            const auto peak = std::max(rest, beside + held + t.scratch_bytes);
            const bool better = !best.found || peak < best.predicted_peak_bytes ||
                                (peak == best.predicted_peak_bytes && overhead < best.mac_overhead);
            if (!better) continue;
            best.found = true;
            best.split = split;
            best.split_name = g.vars[split].name;
            best.first_op = g.op_label(desc.layers.front().op);
            best.last_op = g.op_label(desc.layers.back().op);
            best.rows = r, best.cols = c;
            best.predicted_peak_bytes = peak;
            best.scratch_bytes = t.scratch_bytes;
            best.mac_overhead = overhead;
            best.stage_mac_overhead = t.macs_untiled > 0 ? t.macs_tiled / t.macs_untiled : 1.0;
            best.ops = stage_ops_of(desc);
        }
    }
    if (best.found && req.automatic && best.predicted_peak_bytes >= best.untiled_load_bytes) {
        best.found = false;
        best.why = "no stage lowers the peak (the best, " + best.rows_cols() + " over " +
                   best.first_op + " .. " + best.last_op + ", would need " +
                   std::to_string(best.predicted_peak_bytes) + " bytes, LOAD untiled " +
                   std::to_string(best.untiled_load_bytes) + ")";
        return best;
    }
    if (!best.found)
        best.why = first_why.empty() ? "no stage can run on patches within the budget"
                                     : "no stage can run on patches (" + first_why + ")";
    return best;
}

/// The tail stage of a global pool: the pool and, back from it, the
/// point-wise ops and the conv that produce its input (each read by the next
/// only), cut into row bands so the conv's map never exists whole.
struct tail_choice {
    bool found = false;
    int split = -1;  // the pool's output
    std::string first_op, last_op;
    int rows = 1;
    std::size_t scratch_bytes = 0;
    double extra_macs = 0;  // tiled - untiled
    std::set<int> ops;
};

/// For each float global pool of `p` fed by a conv (through point-wise ops),
/// the band count with the least scratch whose extra MACs stay within
/// `budget` x the network's; the tail with the largest map is kept.
inline tail_choice choose_tail(const program& p, double budget, double total_macs) {
    const auto& g = p.graph();
    auto ref = [&](int v) -> const tensor_ref& { return p.var(v); };
    tail_choice best;
    std::uint64_t best_bytes = 0;
    for (int i : p.execution_order()) {
        const int op = p.instructions()[i].op;
        const auto& node = g.ops[op];
        if (!op_declares<ops::pool2d>(node.type) || !node.attrs.get<bool>("global_pooling", false))
            continue;
        const int out = graph::output_var(node, "Out");
        int x = graph::input_var(node, "X");
        if (out < 0 || x < 0) continue;
        // Back through single-reader point-wise ops to the conv.
        std::set<int> starts;
        std::uint64_t map_bytes = p.var(x).bytes();
        for (int v = x;;) {
            const int prod = g.vars[v].producer;
            if (prod < 0 || graph::consumers(g, v).size() != 1 || graph::is_fetched(g, v)) break;
            auto k = patch_detail::kind_of(g.ops[prod].type);
            if (!k || (*k != stage_layer::kind::conv && *k != stage_layer::kind::point)) break;
            const auto* in = g.ops[prod].input(*k == stage_layer::kind::conv ? "Input" : "X");
            if (!in || in->vars.size() != 1) break;
            if (*k == stage_layer::kind::conv) {
                starts.insert(in->vars[0]);
                break;
            }
            v = in->vars[0];
        }
        if (starts.empty()) continue;
        stage_desc desc;
        if (!describe_stage(g, out, ref, desc, starts).empty()) continue;
        const auto h = p.var(x).shape[2];
        tail_choice c;
        for (int r = 1; r <= h; ++r) {
            auto t = tile_stage(desc, r, 1, true);
            if (!t.problem.empty()) continue;
            const double extra = t.macs_tiled - t.macs_untiled;
            if (total_macs > 0 && (total_macs + extra) / total_macs > budget) continue;
            if (c.found && t.scratch_bytes >= c.scratch_bytes) continue;
            c.found = true;
            c.rows = r;
            c.scratch_bytes = t.scratch_bytes;
            c.extra_macs = extra;
        }
        if (!c.found || map_bytes <= best_bytes) continue;
        c.split = out;
        c.first_op = g.op_label(desc.layers.front().op);
        c.last_op = g.op_label(desc.layers.back().op);
        c.ops = stage_ops_of(desc);
        best = c;
        best_bytes = map_bytes;
    }
    return best;
}

}  // namespace litegraph::runtime
