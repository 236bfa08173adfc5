// litegraph dot: the graph as Graphviz DOT.
#pragma once

#include <fstream>
#include <iostream>

#include "litegraph/graph/dot.hpp"
#include "model_arg.hpp"

namespace litegraph::cli {

inline int cmd_dot(const std::vector<std::string>& argv) {
    arg_spec spec;
    spec.with_value = {"-o"};
    spec.flags = {"--show-params", "--help", "-h"};
    add_model_options(spec);
    auto a = parse_args(argv, spec);
    if (a.flag("--help") || a.flag("-h")) {
        std::cout << "usage: litegraph dot MODEL [-o FILE] [--show-params]\n\n"
                     "Prints the graph as Graphviz DOT: ops as boxes, variables as ellipses.\n\n"
                  << model_help
                  << "  -o FILE               write to FILE instead of standard output\n"
                     "  --show-params         draw parameter variables too\n";
        return 0;
    }
    auto m = load_model(a, {.require_params = false});
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
