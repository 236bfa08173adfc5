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
#include "litegraph/runtime/plan_problem.hpp"
#include "options.hpp"

namespace litegraph::cli {

using runtime::plan_problem;
using runtime::problem_for;

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
inline int plan_table(const graph::graph& loaded, const preparation_option& prep, bool json,
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
        auto opt = prep.session();
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
    if (json) {
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
    CLI::App app{
        "Plans every activation of the (fused) graph into memory segments, fastest\n"
        "first, and reports the plan against its lower bound LOAD (the most bytes\n"
        "live at one step).  Exit code 0 when it fits, 3 when it does not (then no\n"
        "peak is printed, only by how many bytes it is short and at which op).",
        "litegraph plan"};
    setup_command(app);
    model_option model;
    add_model(app, model);
    std::string segments;
    add_segments(app, segments, "one unbounded segment 'arena'");
    std::vector<std::string> shape_args;
    add_shape(app, shape_args);
    std::string algorithm = "default";
    app.add_option("--algorithm", algorithm,
                   "default (best of size_first_fit, strong_fit and exact),\n"
                   "size_first_fit, strong_fit, exact, tflm_greedy")
        ->type_name("NAME")
        ->check(CLI::IsMember({"default", "size_first_fit", "strong_fit", "exact", "tflm_greedy"}));
    preparation_option prep;
    add_no_fuse(app, prep);
    bool json = false;
    add_json(app, json,
             "segments, peak_bytes (null when\n"
             "it does not fit, with placed_bytes and shortfall_bytes),\n"
             "lower_bound_bytes, fits, algorithm, buffers");
    std::string svg;
    app.add_option("--svg", svg,
                   "draw the plan (address by time, a panel per segment;\nwith --patches, each "
                   "patched stage's per-patch buffers)")
        ->type_name("FILE");
    add_precision(app, prep);
    add_patches(app, prep);
    bool table = false;
    app.add_flag("--table", table,
                 "peak bytes per segment for {unfused, fused} x {each\n"
                 "segment alone, all segments}, and which fit");
    if (!parse(app, argv)) return 0;
    std::vector<std::string> seg_names{"arena"};
    std::vector<planner::segment> segs{planner::segment{}};
    if (!segments.empty()) segs = parse_segments(segments, seg_names);
    for (std::size_t i = 0; i < segs.size(); ++i) segs[i].name = seg_names[i];
    const auto shapes = shapes_of(shape_args);

    auto m = load_model(model, {.require_params = false});
    if (table) return plan_table(m.graph, prep, json, shapes, segs, seg_names, algorithm);
    auto so = prep.session(shapes);
    so.segments = segs;
    const auto prepared = prepare(m.graph, so);
    const auto& report = prepared.passes;
    const auto patches = apply_patches(m.graph, so);
    auto problem = problem_for(m.graph, shapes, segs, instance_factory_for(so));
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
    if (patches) {
        j["patches"] = patches_json(*patches, plan.fits ? plan.total() : load);
        // Each patched stage's per-patch buffers, as plan --svg draws them:
        // offsets in the arena buffer that holds the stage's Scratch.
        auto& sb = j["patches"]["scratch_buffers"] = nlohmann::json::array();
        for (const auto& in : problem.insets) {
            nlohmann::json parts = nlohmann::json::array();
            for (std::size_t k = 0; k < in.parts.size(); ++k)
                parts.push_back({{"name", in.names[k]},
                                 {"size", in.parts[k].size},
                                 {"offset", in.offsets[k]},
                                 {"first_layer", in.parts[k].first},
                                 {"last_layer", in.parts[k].last}});
            sb.push_back({{"buffer", problem.names.at(in.holder)}, {"parts", std::move(parts)}});
        }
    }
    if (so.input_int8) j["inputs"] = inputs_json(prepared.inputs);

    if (!svg.empty()) {
        std::ofstream out(svg);
        if (!out) throw io_error("cannot write " + svg);
        out << planner::render_svg(problem.buffers, segs, plan, problem.names, problem.insets);
        if (!out) throw io_error("cannot write " + svg);
    }
    if (json) {
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
        if (patches) print_patches(j["patches"]);
        if (so.input_int8) print_inputs(j["inputs"]);
        if (!svg.empty()) std::cout << "drawn to " << svg << "\n";
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
