// litegraph dot: the graph as Graphviz DOT.
#pragma once

#include <fstream>
#include <iostream>

#include "litegraph/graph/dot.hpp"
#include "litegraph/passes/dot_dump.hpp"
#include "litegraph/passes/pipeline.hpp"
#include "options.hpp"
#include "places_arg.hpp"

namespace litegraph::cli {

inline int cmd_dot(const std::vector<std::string>& argv) {
    std::string passes_list;
    for (auto& p : passes::pass_list())
        passes_list += "\n  " + std::string(p.name) + ": " + std::string(p.description);
    CLI::App app{
        "Prints the graph as Graphviz DOT: ops as boxes, variables as ellipses.\n"
        "Without --after, the graph as loaded (before any pass).  With --places,\n"
        "after all passes: each op shows its kernel, each subgraph is a cluster of\n"
        "its ops.",
        "litegraph dot"};
    setup_command(app);
    app.footer("\npasses, in order:" + passes_list);
    model_option model;
    add_model(app, model);
    std::string out_file, after, all_passes;
    app.add_option("-o", out_file, "write to FILE instead of standard output")->type_name("FILE");
    auto* after_opt = app.add_option("--after", after,
                                     "the graph after the pipeline up to PASS (all: every pass)")
                          ->type_name("PASS");
    app.add_option("--all-passes", all_passes,
                   "one DOT file per pass into DIR (00_loaded.dot, 01_...)")
        ->type_name("DIR")
        ->excludes(after_opt);
    bool show_params = false;
    app.add_flag("--show-params", show_params, "draw parameter variables too");
    places_option places_opt;
    add_places(app, places_opt);
    if (!parse(app, argv)) return 0;
    auto places = places_opt.options();
    if (places && !all_passes.empty()) throw usage_error("give --places or --all-passes, not both");
    auto m = load_model(model, {.require_params = false});
    if (!all_passes.empty()) {
        auto report = passes::run_passes_with_dots(m.graph, all_passes, {}, show_params);
        std::cout << "wrote one DOT file per pass to " << all_passes << " (" << report.to_string()
                  << ")\n";
        return 0;
    }
    if (places && *after_opt && after != "all")
        throw usage_error("--places partitions the graph after all passes (--after all)");
    // Without --after or --places: the graph as loaded.
    session_options opt;
    opt.fuse = *after_opt || places;
    if (*after_opt && after != "all") opt.pipeline.stop_after = after;
    opt.places = places;
    prepare(m.graph, opt);
    if (!out_file.empty()) {
        std::ofstream out(out_file);
        if (!out) throw io_error("cannot write " + out_file);
        graph::write_dot(out, m.graph, show_params);
    } else {
        graph::write_dot(std::cout, m.graph, show_params);
    }
    return 0;
}

}  // namespace litegraph::cli
