// litegraph info: what a model is made of.
#pragma once

#include <iostream>
#include <nlohmann/json.hpp>

#include "litegraph/passes/pipeline.hpp"
#include "litegraph/runtime/program.hpp"
#include "options.hpp"
#include "places_arg.hpp"

namespace litegraph::cli {

inline int cmd_info(const std::vector<std::string>& argv) {
    CLI::App app{
        "Prints the model's format (combined, separate, topology-only or\n"
        "pir-json), version, op counts (unsupported ones marked; PIR ops by\n"
        "their PIR names), feeds and fetches with shapes and dtypes, and the\n"
        "parameter count and bytes.  With --places: how the fused graph is\n"
        "partitioned (subgraphs, ops per place, kernel per op) and the subgraphs\n"
        "whose conversion is refused.",
        "litegraph info"};
    setup_command(app);
    model_option model;
    add_model(app, model);
    bool json = false;
    add_json(app, json, "");
    places_option places_opt;
    add_places(app, places_opt);
    if (!parse(app, argv)) return 0;
    auto m = load_model(model, {.require_params = false});
    const auto& info = m.info;
    const auto& g = m.graph;
    auto io_json = [&](const std::vector<graph::io_binding>& v) {
        auto arr = nlohmann::json::array();
        for (auto& b : v) {
            const auto& var = g.vars[b.var];
            arr.push_back({{"name", var.name},
                           {"col", b.col},
                           {"shape", var.shape},
                           {"dtype", std::string(name_of(var.type))}});
        }
        return arr;
    };
    nlohmann::json j;
    j["format"] = info.format;
    j["topology"] = info.topology_file.string();
    j["version"] = info.program_version;
    j["ops"] = info.op_counts;
    std::size_t total_ops = 0;
    for (auto& [t, n] : info.op_counts) total_ops += n;
    j["op_count"] = total_ops;
    j["feeds"] = io_json(g.feeds);
    j["fetches"] = io_json(g.fetches);
    j["parameters"] = {{"tensors", info.num_params},
                       {"elements", info.param_elements},
                       {"bytes", info.param_bytes}};
    // feed and fetch are the program's inputs and outputs, not kernels.  A PIR
    // op is runnable when the loader resolved it itself or made it an op a
    // kernel has.
    auto runnable = [&](const std::string& t) {
        if (auto it = info.op_types.find(t); it != info.op_types.end())
            return it->second.empty() || is_supported(it->second) ||
                   runtime::is_control_flow_op(it->second);
        return t == "feed" || t == "fetch" || is_supported(t);
    };
    auto note = [&](const std::string& t) {
        auto it = info.op_notes.find(t);
        return it == info.op_notes.end() ? std::string() : it->second;
    };
    std::vector<std::string> unsupported;
    for (auto& [t, n] : info.op_counts)
        if (!runnable(t)) unsupported.push_back(t);
    j["unsupported_ops"] = unsupported;
    if (!info.op_types.empty()) {
        j["op_types"] = info.op_types;
        j["op_notes"] = info.op_notes;
    }
    auto places = places_opt.options();
    if (places) {
        graph::graph fused = g;
        session_options opt;
        opt.places = places;
        auto r = prepare(fused, opt).partition;
        partition_json(j, r, fused);
        // What conversion refuses is known without shapes; build failures only at run time.
        j["fallbacks"] = nlohmann::json::array();
        for (auto& op : fused.ops)
            if (op.type == "subgraph") {
                auto b = backends::backend_of(
                    *places, backends::parse_place(op.attrs.get<std::string>("backend", "")).where);
                auto idx = op.attrs.get<std::int64_t>("sub_block", -1);
                auto why = b->precheck(fused.sub_blocks[idx]);
                if (!why.empty())
                    j["fallbacks"].push_back(
                        {{"sub_block", idx}, {"backend", b->name()}, {"reason", why}});
            }
    }
    if (json) {
        std::cout << j.dump(2) << "\n";
        return 0;
    }
    std::cout << "format:      " << info.format << " (" << info.topology_file.string() << ")\n"
              << "version:     " << info.program_version << "\n"
              << "ops:         " << total_ops << "\n";
    for (auto& [t, n] : info.op_counts)
        std::cout << "  " << t << ": " << n
                  << (runnable(t)       ? ""
                      : note(t).empty() ? "  (unsupported)"
                                        : "  (unsupported: " + note(t) + ")")
                  << "\n";
    auto print_io = [&](const char* what, const std::vector<graph::io_binding>& v) {
        for (auto& b : v) {
            const auto& var = g.vars[b.var];
            std::cout << what << var.name << " " << to_string(var.shape) << " " << name_of(var.type)
                      << "\n";
        }
    };
    print_io("feed:        ", g.feeds);
    print_io("fetch:       ", g.fetches);
    std::cout << "parameters:  " << info.num_params << " tensors, " << info.param_elements
              << " elements, " << info.param_bytes << " bytes\n";
    if (places) {
        std::cout << "places:      " << places_opt.places << ": " << j["partition"].size()
                  << " subgraph(s);";
        for (auto& [p, n] : j["ops_per_place"].items()) std::cout << " " << p << " " << n << " ops";
        std::cout << "\n";
        for (auto& f : j["fallbacks"])
            std::cout << "fallback:    subgraph #" << f["sub_block"] << ": "
                      << f["reason"].get<std::string>() << "\n";
    }
    return 0;
}

}  // namespace litegraph::cli
