// litegraph plan: where every activation goes in the memory segments.
#pragma once

#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "cmd_run.hpp"
#include "litegraph/passes/pipeline.hpp"
#include "litegraph/planner/render.hpp"
#include "litegraph/planner/targets.hpp"
#include "model_arg.hpp"

namespace litegraph::cli {

/// Parses "dtcm:128K,sram:436K" (K = 1024 bytes, M = 1024 K; plain numbers are bytes),
/// or the name of a chip's memory map ("stm32h730", planner/targets.hpp): its
/// activation regions, fastest first.
inline std::vector<planner::segment> parse_segments(const std::string& spec,
                                                    std::vector<std::string>& names) {
    std::vector<planner::segment> segs;
    names.clear();
    if (const auto* map = planner::find_memory_map(spec)) {
        segs = planner::activation_segments(*map);
        for (auto& s : segs) names.emplace_back(s.name);
        return segs;
    }
    std::size_t pos = 0;
    while (pos <= spec.size()) {
        auto comma = spec.find(',', pos);
        auto item = spec.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        auto colon = item.find(':');
        if (colon == std::string::npos || colon == 0 || colon + 1 == item.size())
            throw usage_error("--segments expects NAME:SIZE[,NAME:SIZE...], got '" + item + "'");
        auto name = item.substr(0, colon), size = item.substr(colon + 1);
        std::uint64_t mult = 1;
        char suffix = size.back();
        if (suffix == 'K' || suffix == 'k') mult = 1024, size.pop_back();
        if (suffix == 'M' || suffix == 'm') mult = 1024 * 1024, size.pop_back();
        auto n = parse_count("--segments " + name, size, 1, 1LL << 40);
        for (auto& other : names)
            if (other == name) throw usage_error("--segments names '" + name + "' twice");
        names.push_back(name);
        segs.push_back({{}, static_cast<std::size_t>(n) * mult, 64});
        if (comma == std::string::npos) break;
        pos = comma + 1;
    }
    for (std::size_t i = 0; i < segs.size(); ++i) segs[i].name = names[i];
    return segs;
}

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
    std::vector<member> members;        // variables that share a buffer they do not own
    std::vector<std::string> step_ops;  // op label of each step
    std::string shapes;                 // "inferred" or "declared"
    std::size_t order_gain = 0;         // LOAD saved by the runtime's execution order
};

/// Shapes from the runtime's own shape inference (every op supported).
inline plan_problem problem_from_program(runtime::program& prog) {
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
                                const std::vector<planner::segment>& segs) {
    for (auto& op : g.ops)
        if (!is_supported<runtime::kernel_table>(op.type)) return problem_from_declared(g, shapes);
    try {
        runtime::program prog(g, segs);
        for (auto& [name, dims] : shapes) prog.input_index(name);
        for (std::size_t i = 0; i < prog.input_count(); ++i) {
            const auto& v = prog.input_var(i);
            prog.set_input(i, deterministic_feed(v, shapes));
        }
        return problem_from_program(prog);
    } catch (const shape_error&) {
        // Shape inference needs values the model does not carry (e.g. a
        // topology without its parameters): plan the declared shapes, which
        // the problem reports.  Shapes the user gave must infer, though.
        if (!shapes.empty()) throw;
        return problem_from_declared(g, shapes);
    }
}

inline planner::plan plan_with(const std::string& algorithm, const plan_problem& p,
                               const std::vector<planner::segment>& segs) {
    if (algorithm == "default") return planner::plan_memory(p.buffers, segs);
    if (algorithm == "size_first_fit") return planner::size_first_fit(p.buffers, segs);
    if (algorithm == "strong_fit") return planner::strong_fit(p.buffers, segs);
    if (algorithm == "exact") return planner::exact_plan(p.buffers, segs);
    if (algorithm == "tflm_greedy") {
        if (segs.size() != 1)
            throw usage_error("tflm_greedy plans one arena: give at most one segment");
        auto plan = planner::tflm_greedy(p.buffers, segs[0].alignment);
        plan.fits = plan.used.empty() || plan.used[0] <= segs[0].capacity;
        return plan;
    }
    throw usage_error("unknown --algorithm '" + algorithm +
                      "' (default, size_first_fit, strong_fit, exact, tflm_greedy)");
}

/// litegraph plan --table: the graph unfused and fused, planned into each
/// segment alone and into all of them (fastest first).
inline int plan_table(const graph::graph& loaded, const args& a,
                      const std::map<std::string, shape_t>& shapes,
                      const std::vector<planner::segment>& segs,
                      const std::vector<std::string>& seg_names, const std::string& algorithm) {
    std::vector<std::vector<std::size_t>> configs;
    for (std::size_t s = 0; s < segs.size(); ++s) configs.push_back({s});
    if (segs.size() > 1) {
        configs.emplace_back();
        for (std::size_t s = 0; s < segs.size(); ++s) configs.back().push_back(s);
    }
    nlohmann::json rows = nlohmann::json::array();
    bool all_fused_fit = false;
    for (bool fused : {false, true}) {
        auto g = loaded;
        auto opt = preparation_options(a);
        if (!fused) opt.pipeline.skip = fusion_pass_names();
        prepare(g, opt);
        for (auto& cfg : configs) {
            std::vector<planner::segment> sub;
            std::string label;
            for (auto s : cfg) {
                sub.push_back(segs[s]);
                label += (label.empty() ? "" : "+") + seg_names[s];
            }
            auto problem = problem_for(g, shapes, sub);
            auto plan = plan_with(algorithm, problem, sub);
            nlohmann::json row{{"graph", fused ? "fused" : "unfused"},
                               {"segments", label},
                               {"lower_bound_bytes", planner::lower_bound(problem.buffers)},
                               {"fits", plan.fits}};
            nlohmann::json used = nlohmann::json::object();
            for (std::size_t i = 0; i < cfg.size(); ++i)
                used[seg_names[cfg[i]]] = plan.fits && i < plan.used.size() ? plan.used[i] : 0;
            row["used_bytes"] = used;
            if (!plan.fits) row["shortfall_bytes"] = plan.shortfall;
            if (fused && cfg.size() == segs.size()) all_fused_fit = plan.fits;
            rows.push_back(row);
        }
    }
    if (a.flag("--json")) {
        std::cout << nlohmann::json{{"rows", rows}}.dump(2) << "\n";
    } else {
        std::cout << "graph    segments          LOAD (bytes)  fits  bytes used per segment\n";
        for (auto& r : rows) {
            std::string used;
            for (auto& [k, v] : r["used_bytes"].items())
                used += (used.empty() ? "" : ", ") + k + " " + std::to_string(v.get<std::size_t>());
            if (!r["fits"].get<bool>())
                used = "short by " + std::to_string(r["shortfall_bytes"].get<std::size_t>());
            char line[256];
            std::snprintf(line, sizeof line, "%-8s %-17s %12zu  %-4s  %s\n",
                          r["graph"].get<std::string>().c_str(),
                          r["segments"].get<std::string>().c_str(),
                          r["lower_bound_bytes"].get<std::size_t>(),
                          r["fits"].get<bool>() ? "yes" : "no", used.c_str());
            std::cout << line;
        }
    }
    return all_fused_fit ? 0 : 3;
}

inline int cmd_plan(const std::vector<std::string>& argv) {
    arg_spec spec;
    spec.with_value = {"--segments", "--shape", "--algorithm", "--svg", "--precision"};
    spec.flags = {"--json", "--no-fuse", "--table", "--help", "-h"};
    add_model_options(spec);
    auto a = parse_args(argv, spec);
    if (a.flag("--help") || a.flag("-h")) {
        std::cout
            << "usage: litegraph plan MODEL [--segments NAME:SIZE[,NAME:SIZE...]] [--shape "
               "NAME=DIMS]...\n"
               "                      [--algorithm NAME] [--no-fuse] [--json] [--svg FILE]\n"
               "                      [--precision int8|fp32] [--table]\n\n"
               "Plans every activation of the (fused) graph into memory segments, fastest\n"
               "first, and reports the plan against its lower bound LOAD (the most bytes\n"
               "live at one step).  Exit code 0 when it fits, 3 when it does not.\n\n"
            << model_help
            << "  --segments SPEC       e.g. dtcm:128K,sram:436K (K = 1024 bytes, M = 1024 K);\n"
               "                        default: one unbounded segment 'arena'\n"
               "  --shape NAME=DIMS     input shape (default: declared, -1 as 1)\n"
               "  --algorithm NAME      default (best of size_first_fit, strong_fit and exact),\n"
               "                        size_first_fit, strong_fit, exact, tflm_greedy\n"
               "  --no-fuse             plan the graph as loaded, without fusion passes\n"
               "  --json                one JSON object: segments, peak_bytes (null when\n"
               "                        it does not fit), lower_bound_bytes, fits,\n"
               "                        algorithm, buffers\n"
               "  --svg FILE            draw the plan (address by time, a panel per segment)\n"
               "  --precision P         int8 (default): a quantized model's convs and fcs as int8\n"
               "                        ops (1 byte per element); fp32: the float simulation\n"
               "  --table               peak bytes per segment for {unfused, fused} x {each\n"
               "                        segment alone, all segments}, and which fit\n";
        return 0;
    }
    std::vector<std::string> seg_names{"arena"};
    std::vector<planner::segment> segs{planner::segment{}};
    if (a.has("--segments")) segs = parse_segments(a.value("--segments"), seg_names);
    for (std::size_t i = 0; i < segs.size(); ++i) segs[i].name = seg_names[i];
    const std::string algorithm = a.value("--algorithm", "default");
    std::map<std::string, shape_t> shapes;
    for (auto& s : a.all("--shape")) {
        auto [name, dims] = parse_shape_arg(s);
        shapes[name] = dims;
    }

    auto m = load_model(a, {.require_params = false});
    if (a.flag("--table")) return plan_table(m.graph, a, shapes, segs, seg_names, algorithm);
    const auto report = prepare(m.graph, preparation_options(a)).passes;
    auto problem = problem_for(m.graph, shapes, segs);
    auto plan = plan_with(algorithm, problem, segs);
    const auto load = planner::lower_bound(problem.buffers);
    auto check = planner::validate(problem.buffers, segs, plan);
    if (plan.fits && !check.ok)
        throw error("internal error: the plan fails validation: " + std::string(check.what));

    // The step where LOAD is reached, to say where a plan that does not fit hurts.
    int peak_step = 0;
    std::size_t peak_live = 0;
    for (int s = 0; s < static_cast<int>(problem.step_ops.size()); ++s) {
        std::size_t live = 0;
        for (auto& b : problem.buffers)
            if (b.first <= s && s <= b.last) live += b.size;
        if (live > peak_live) peak_live = live, peak_step = s;
    }

    nlohmann::json j;
    j["algorithm"] = plan.algorithm.empty() ? algorithm : std::string(plan.algorithm);
    j["shapes"] = problem.shapes;
    j["fits"] = plan.fits;
    // A plan that does not fit has no peak: what it placed before it stopped
    // is below the lower bound and would read like a success.
    j["peak_bytes"] = plan.fits ? nlohmann::json(plan.total()) : nlohmann::json(nullptr);
    if (!plan.fits) j["placed_bytes"] = plan.total();
    j["lower_bound_bytes"] = load;
    j["plan_over_load"] = !plan.fits ? nlohmann::json(nullptr)
                          : load     ? nlohmann::json(double(plan.total()) / double(load))
                                     : nlohmann::json(1.0);
    j["proven_optimal"] = plan.proven_optimal;
    j["order_gain_bytes"] = problem.order_gain;
    if (!plan.fits) j["shortfall_bytes"] = plan.shortfall;
    j["peak_step"] = {{"step", peak_step},
                      {"op", problem.step_ops.empty() ? "" : problem.step_ops[peak_step]},
                      {"live_bytes", peak_live}};
    j["segments"] = nlohmann::json::array();
    for (std::size_t s = 0; s < segs.size(); ++s)
        j["segments"].push_back({{"name", seg_names[s]},
                                 {"capacity", segs[s].capacity == planner::unbounded
                                                  ? nlohmann::json(nullptr)
                                                  : nlohmann::json(segs[s].capacity)},
                                 {"used_bytes", s < plan.used.size() ? plan.used[s] : 0}});
    j["buffers"] = nlohmann::json::array();
    for (std::size_t b = 0; b < problem.buffers.size(); ++b) {
        const auto& buf = problem.buffers[b];
        auto pl = plan.placements[b];
        j["buffers"].push_back({{"name", problem.names[b]},
                                {"size", buf.size},
                                {"first", buf.first},
                                {"last", buf.last},
                                {"segment", pl.segment >= 0 ? nlohmann::json(seg_names[pl.segment])
                                                            : nlohmann::json(nullptr)},
                                {"offset", pl.offset}});
    }
    for (auto& mem : problem.members) {
        const auto& root = problem.buffers[mem.buffer];
        auto pl = plan.placements[mem.buffer];
        j["buffers"].push_back({{"name", mem.name},
                                {"size", root.size},
                                {"first", root.first},
                                {"last", root.last},
                                {"segment", pl.segment >= 0 ? nlohmann::json(seg_names[pl.segment])
                                                            : nlohmann::json(nullptr)},
                                {"offset", pl.offset + static_cast<std::size_t>(mem.offset)},
                                {"alias_of", problem.names[mem.buffer]}});
    }
    j["passes"] = nlohmann::json::object();
    for (auto& [name, n] : report.counts) j["passes"][name] = n;

    if (a.has("--svg")) {
        std::ofstream out(a.value("--svg"));
        if (!out) throw io_error("cannot write " + a.value("--svg"));
        out << planner::render_svg(problem.buffers, segs, plan, problem.names);
        if (!out) throw io_error("cannot write " + a.value("--svg"));
    }
    if (a.flag("--json")) {
        std::cout << j.dump(2) << "\n";
    } else {
        std::cout << "algorithm:    " << j["algorithm"].get<std::string>() << " (shapes "
                  << problem.shapes << ", " << problem.buffers.size() << " buffers)\n"
                  << "peak:         ";
        if (plan.fits)
            std::cout << plan.total() << " bytes\n"
                      << "lower bound:  " << load
                      << " bytes (plan / LOAD = " << j["plan_over_load"].get<double>() << ")\n";
        else
            std::cout << "none: the activations do not fit (" << plan.shortfall << " bytes short)\n"
                      << "lower bound:  " << load << " bytes\n";
        for (std::size_t s = 0; s < segs.size(); ++s)
            std::cout << "segment " << seg_names[s] << ": "
                      << (s < plan.used.size() ? plan.used[s] : 0)
                      << (plan.fits ? " bytes used of " : " bytes placed before it stopped, of ")
                      << (segs[s].capacity == planner::unbounded ? std::string("unbounded")
                                                                 : std::to_string(segs[s].capacity))
                      << "\n";
        if (a.has("--svg")) std::cout << "drawn to " << a.value("--svg") << "\n";
    }
    if (!plan.fits) {
        std::cerr << "litegraph: the activations do not fit the segments: " << plan.shortfall
                  << " bytes short; the peak is at step " << peak_step << " ("
                  << (problem.step_ops.empty() ? "" : problem.step_ops[peak_step]) << "), where "
                  << peak_live << " bytes are live\n";
        return 3;
    }
    return 0;
}

}  // namespace litegraph::cli
