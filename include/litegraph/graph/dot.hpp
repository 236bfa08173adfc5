// Graphviz DOT export: ops as boxes, variables as ellipses (as Paddle Lite
// draws its SSA graph); parameters are drawn grey, feeds and fetches bold.
// An op shows the implementation picked for it; a subgraph op is a cluster of its ops.
#pragma once

#include <ostream>
#include <string>
#include <vector>

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

/// An op's box text: its type, and the implementation picked for it (backends::
/// pick_implementations sets litegraph_place and litegraph_pick) on a second line.
inline std::string op_text(const op_node& op) {
    std::string t = dot_escape(op.type);
    auto pick = op.attrs.get<std::string>("litegraph_pick", "");
    if (!pick.empty())
        t += "\\n" + dot_escape(op.attrs.get<std::string>("litegraph_place", "")) + ": " +
             dot_escape(pick);
    return t;
}

/// The sub-block a `subgraph` op holds, or nullptr.
inline const graph* sub_block_of(const graph& g, const op_node& op) {
    if (op.type != "subgraph") return nullptr;
    auto i = op.attrs.get<std::int64_t>("sub_block", -1);
    return i >= 0 && i < static_cast<std::int64_t>(g.sub_blocks.size()) ? &g.sub_blocks[i]
                                                                        : nullptr;
}

/// A subgraph op as a cluster of its original ops; the sub-block's feeds and
/// fetches are the outer variables the op reads and writes.
inline void write_subgraph_cluster(std::ostream& os, const graph& g, int o, bool show_params) {
    const auto& op = g.ops[o];
    const auto& b = *sub_block_of(g, op);
    const auto* ins = op.input("Inputs");
    const auto* outs = op.output("Outputs");
    std::vector<std::string> id(b.vars.size());
    // Appending (not "v" + to_string) avoids a GCC 12 -O3 -Wrestrict false positive.
    auto name = [](const char* prefix, auto n) {
        return std::string(prefix).append(std::to_string(n));
    };
    for (std::size_t v = 0; v < b.vars.size(); ++v) id[v] = name("s", o).append(name("v", v));
    for (std::size_t i = 0; i < b.feeds.size() && ins && i < ins->vars.size(); ++i)
        id[b.feeds[i].var] = name("v", ins->vars[i]);
    for (std::size_t i = 0; i < b.fetches.size() && outs && i < outs->vars.size(); ++i)
        id[b.fetches[i].var] = name("v", outs->vars[i]);
    os << "  subgraph cluster_op" << o << " {\n    label=\""
       << dot_escape(op.attrs.get<std::string>("backend", "?")) << " subgraph #"
       << op.attrs.get<std::int64_t>("sub_block", -1) << " (" << b.ops.size()
       << " ops)\";\n    style=\"rounded,filled\"; fillcolor=\"#fff4d8\";\n";
    auto shown = [&](int v) { return show_params || !b.vars[v].persistable; };
    for (std::size_t v = 0; v < b.vars.size(); ++v)
        if (id[v][0] == 's' && shown(static_cast<int>(v)))
            os << "    " << id[v] << " [shape=ellipse, label=\"" << dot_escape(b.vars[v].name)
               << "\\n"
               << to_string(b.vars[v].shape) << "\"];\n";
    for (std::size_t k = 0; k < b.ops.size(); ++k)
        os << "    s" << o << "op" << k
           << " [shape=box, style=\"rounded,filled\", fillcolor=\"#ffd8a8\", label=\""
           << op_text(b.ops[k]) << "\"];\n";
    os << "  }\n";
    for (std::size_t k = 0; k < b.ops.size(); ++k) {
        for (auto& s : b.ops[k].inputs)
            for (int v : s.vars)
                if (shown(v)) os << "  " << id[v] << " -> s" << o << "op" << k << ";\n";
        for (auto& s : b.ops[k].outputs)
            for (int v : s.vars)
                if (shown(v)) os << "  s" << o << "op" << k << " -> " << id[v] << ";\n";
    }
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
    for (std::size_t o = 0; o < g.ops.size(); ++o) {
        if (detail::sub_block_of(g, g.ops[o])) {
            detail::write_subgraph_cluster(os, g, static_cast<int>(o), show_params);
            continue;
        }
        os << "  op" << o
           << " [shape=box, style=\"rounded,filled\", fillcolor=\"#d8e8ff\", label=\""
           << detail::op_text(g.ops[o]) << "\"];\n";
    }
    for (std::size_t o = 0; o < g.ops.size(); ++o) {
        if (detail::sub_block_of(g, g.ops[o])) continue;  // its edges are drawn inside
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
