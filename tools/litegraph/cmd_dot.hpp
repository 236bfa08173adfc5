// litegraph dot: the graph as Graphviz DOT.
#pragma once

#include <fstream>
#include <iostream>

#include "litegraph/graph/dot.hpp"
#include "litegraph/passes/dot_dump.hpp"
#include "litegraph/passes/pipeline.hpp"
#include "model_arg.hpp"
#include "places_arg.hpp"

namespace litegraph::cli {

inline int cmd_dot(const std::vector<std::string>& argv) {
    arg_spec spec;
    spec.with_value = {"-o", "--after", "--all-passes"};
    spec.flags = {"--show-params", "--help", "-h"};
    add_model_options(spec);
    add_places_options(spec);
    auto a = parse_args(argv, spec);
    if (a.flag("--help") || a.flag("-h")) {
        std::cout
            << "usage: litegraph dot MODEL [-o FILE] [--after PASS | --all-passes DIR]\n"
               "                     [--show-params] [--places P1,P2,... [--min-subgraph-size "
               "N]]\n\n"
               "Prints the graph as Graphviz DOT: ops as boxes, variables as ellipses.\n"
               "Without --after, the graph as loaded (before any pass).\n\n"
            << model_help
            << "  -o FILE               write to FILE instead of standard output\n"
               "  --after PASS          the graph after the pipeline up to PASS (all: every pass)\n"
               "  --all-passes DIR      one DOT file per pass into DIR (00_loaded.dot, 01_...)\n"
               "  --show-params         draw parameter variables too\n"
            << places_help
            << "                        (after all passes: each op shows its kernel, each\n"
               "                        subgraph is a cluster of its ops)\n\npasses, in order:\n";
        for (auto& p : passes::pass_list())
            std::cout << "  " << p.name << ": " << p.description << "\n";
        return 0;
    }
    if (a.has("--after") && a.has("--all-passes"))
        throw usage_error("give --after or --all-passes, not both");
    auto places = places_options(a);
    if (places && a.has("--all-passes"))
        throw usage_error("give --places or --all-passes, not both");
    auto m = load_model(a, {.require_params = false});
    if (a.has("--all-passes")) {
        auto report = passes::run_passes_with_dots(m.graph, a.value("--all-passes"), {},
                                                   a.flag("--show-params"));
        std::cout << "wrote one DOT file per pass to " << a.value("--all-passes") << " ("
                  << report.to_string() << ")\n";
        return 0;
    }
    if (places && a.has("--after") && a.value("--after") != "all")
        throw usage_error("--places partitions the graph after all passes (--after all)");
    // Without --after or --places: the graph as loaded.
    session_options opt;
    opt.fuse = a.has("--after") || places;
    if (a.value("--after", "all") != "all") opt.pipeline.stop_after = a.value("--after");
    opt.places = places;
    prepare(m.graph, opt);
    if (a.has("-o")) {
        std::ofstream out(a.value("-o"));
        if (!out) throw io_error("cannot write " + a.value("-o"));
        graph::write_dot(out, m.graph, a.flag("--show-params"));
    } else {
        graph::write_dot(std::cout, m.graph, a.flag("--show-params"));
    }
    return 0;
}

}  // namespace litegraph::cli
