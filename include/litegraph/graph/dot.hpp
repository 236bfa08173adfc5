// Graphviz DOT export: ops as boxes, variables as ellipses (as Paddle Lite
// draws its SSA graph); parameters are drawn grey, feeds and fetches bold.
#pragma once

#include <ostream>
#include <string>

#include "litegraph/graph/graph.hpp"

namespace litegraph::graph {

namespace detail {
inline std::string dot_escape(const std::string& s) {
    std::string r;
    for (char c : s) {
        if (c == '"' || c == '\\') r += '\\';
        r += c;
    }
    return r;
}
}  // namespace detail

/// Writes `g` as a DOT digraph.  Parameters are left out when `show_params`
/// is false (real models have hundreds; they clutter the picture).
inline void write_dot(std::ostream& os, const graph& g, bool show_params = false) {
    using detail::dot_escape;
    os << "digraph litegraph {\n  rankdir=TB;\n  node [fontname=\"Helvetica\"];\n";
    std::vector<bool> is_io(g.vars.size(), false);
    for (auto& f : g.feeds) is_io[f.var] = true;
    for (auto& f : g.fetches) is_io[f.var] = true;
    auto shown = [&](int v) { return show_params || !g.vars[v].persistable; };
    for (std::size_t v = 0; v < g.vars.size(); ++v) {
        const auto& var = g.vars[v];
        if (!shown(static_cast<int>(v))) continue;
        if (var.producer < 0 && var.consumers.empty() && !is_io[v]) continue;
        os << "  v" << v << " [shape=ellipse, label=\"" << dot_escape(var.name) << "\\n"
           << to_string(var.shape) << "\"";
        if (var.persistable) os << ", style=filled, fillcolor=lightgrey";
        if (is_io[v]) os << ", penwidth=2";
        os << "];\n";
    }
    for (std::size_t o = 0; o < g.ops.size(); ++o)
        os << "  op" << o
           << " [shape=box, style=\"rounded,filled\", fillcolor=\"#d8e8ff\", label=\""
           << dot_escape(g.ops[o].type) << "\"];\n";
    for (std::size_t o = 0; o < g.ops.size(); ++o) {
        for (auto& s : g.ops[o].inputs)
            for (int v : s.vars)
                if (shown(v)) os << "  v" << v << " -> op" << o << ";\n";
        for (auto& s : g.ops[o].outputs)
            for (int v : s.vars)
                if (shown(v)) os << "  op" << o << " -> v" << v << ";\n";
    }
    os << "}\n";
}

}  // namespace litegraph::graph
