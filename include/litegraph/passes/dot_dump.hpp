// One DOT file per pass (for `litegraph dot --all-passes DIR`): the graph as
// loaded, then after each pass, numbered in pipeline order:
//   DIR/00_loaded.dot, DIR/01_remove_identity.dot, DIR/02_fuse_conv_bias.dot, ...
#pragma once

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "litegraph/core/error.hpp"
#include "litegraph/graph/dot.hpp"
#include "litegraph/passes/pipeline.hpp"

namespace litegraph::passes {

/// Writes `g` as DOT to `path`; throws io_error naming the file on failure.
inline void write_dot_file(const std::filesystem::path& path, const graph::graph& g,
                           bool show_params = false) {
    std::ofstream os(path);
    if (!os) throw io_error("cannot write '" + path.string() + "'");
    graph::write_dot(os, g, show_params);
    os.flush();
    if (!os) throw io_error("cannot write '" + path.string() + "'");
}

/// Runs the pipeline on `g` (honouring `options`, whose own after_each is
/// still called) and writes the graph before and after every pass into
/// `dir` (created if missing).
inline pass_report run_passes_with_dots(graph::graph& g, const std::filesystem::path& dir,
                                        pipeline_options options = {}, bool show_params = false) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) throw io_error("cannot create folder '" + dir.string() + "': " + ec.message());
    write_dot_file(dir / "00_loaded.dot", g, show_params);
    auto user = options.after_each;
    options.after_each = [&, user](const pass_info& p, int n, const graph::graph& after) {
        int index = 1;
        for (auto& q : pipeline) {
            if (q.name == p.name) break;
            ++index;
        }
        char prefix[8];
        std::snprintf(prefix, sizeof prefix, "%02d_", index);
        write_dot_file(dir / (prefix + std::string(p.name) + ".dot"), after, show_params);
        if (user) user(p, n, after);
    };
    return run_passes(g, options);
}

}  // namespace litegraph::passes
