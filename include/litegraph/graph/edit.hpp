// Editing an SSA graph in place: what graph passes use to rewrite it.
// Edits mark ops dead and rewire variables; `compact` then drops dead ops and
// variables nobody uses any more, and relinks producers and consumers.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "litegraph/graph/graph.hpp"

namespace litegraph::graph {

/// The op nodes reading `v` (each once).
inline const std::vector<int>& consumers(const graph& g, int v) {
    return g.vars[v].consumers;
}

/// True when `v` is a program output.
inline bool is_fetched(const graph& g, int v) {
    for (auto& f : g.fetches)
        if (f.var == v) return true;
    return false;
}

/// The only consumer of `v`, or -1 when it has none, several, or is fetched.
inline int sole_consumer(const graph& g, int v) {
    const auto& c = g.vars[v].consumers;
    return c.size() == 1 && !is_fetched(g, v) ? c.front() : -1;
}

/// The variable in slot `s` of op `op` (first argument), or -1.
inline int input_var(const op_node& op, std::string_view s, std::size_t i = 0) {
    auto* sl = op.input(s);
    return sl && i < sl->vars.size() ? sl->vars[i] : -1;
}
inline int output_var(const op_node& op, std::string_view s, std::size_t i = 0) {
    auto* sl = op.output(s);
    return sl && i < sl->vars.size() ? sl->vars[i] : -1;
}

/// Sets (or adds) input slot `s` of `op` to the single variable `v`.
inline void set_input(op_node& op, const std::string& s, int v) {
    for (auto& sl : op.inputs)
        if (sl.name == s) {
            sl.vars = {v};
            return;
        }
    op.inputs.push_back({s, {v}});
}
inline void set_output(op_node& op, const std::string& s, int v) {
    for (auto& sl : op.outputs)
        if (sl.name == s) {
            sl.vars = {v};
            return;
        }
    op.outputs.push_back({s, {v}});
}

/// Replaces every read of `from` by a read of `to` (in ops and fetches).
inline void replace_uses(graph& g, int from, int to) {
    for (auto& op : g.ops)
        for (auto& s : op.inputs)
            for (auto& v : s.vars)
                if (v == from) v = to;
    for (auto& f : g.fetches)
        if (f.var == from) f.var = to;
}

/// `base`, or `base@k` with the least k that no variable of `g` is named.
inline std::string unique_name(const graph& g, const std::string& base) {
    std::string name = base;
    for (int k = 1; g.find_var(name) >= 0; ++k) name = base + "@" + std::to_string(k);
    return name;
}

/// Adds a parameter variable holding `value`, named `base` (made unique).
inline int add_param(graph& g, const std::string& base, tensor value) {
    var_node v;
    v.name = unique_name(g, base);
    v.type = value.type();
    v.shape = value.shape();
    v.persistable = true;
    v.value = std::move(value);
    return g.add_var(std::move(v));
}

/// Declares a parameter with a shape and no data (a topology without its
/// params: planning needs shapes only), named `base` (made unique).
inline int declare_param(graph& g, const std::string& base, shape_t shape, dtype t = dtype::f32) {
    var_node v;
    v.name = unique_name(g, base);
    v.shape = std::move(shape);
    v.type = t;
    v.persistable = true;
    return g.add_var(std::move(v));
}

/// Drops the ops marked in `dead` and every variable no longer produced,
/// read, fed or fetched; renumbers and relinks.
inline void compact(graph& g, const std::vector<bool>& dead) {
    std::vector<op_node> ops;
    for (std::size_t i = 0; i < g.ops.size(); ++i)
        if (i >= dead.size() || !dead[i]) ops.push_back(std::move(g.ops[i]));
    std::vector<bool> used(g.vars.size(), false);
    for (auto& op : ops) {
        for (auto& s : op.inputs)
            for (int v : s.vars) used[v] = true;
        for (auto& s : op.outputs)
            for (int v : s.vars) used[v] = true;
    }
    for (auto& f : g.feeds) used[f.var] = true;
    for (auto& f : g.fetches) used[f.var] = true;
    std::vector<int> remap(g.vars.size(), -1);
    std::vector<var_node> vars;
    for (std::size_t v = 0; v < g.vars.size(); ++v)
        if (used[v]) {
            remap[v] = static_cast<int>(vars.size());
            vars.push_back(std::move(g.vars[v]));
        }
    for (auto& op : ops) {
        for (auto& s : op.inputs)
            for (auto& v : s.vars) v = remap[v];
        for (auto& s : op.outputs)
            for (auto& v : s.vars) v = remap[v];
    }
    for (auto& f : g.feeds) f.var = remap[f.var];
    for (auto& f : g.fetches) f.var = remap[f.var];
    g.vars = std::move(vars);
    g.ops = std::move(ops);
    g.relink();
}

}  // namespace litegraph::graph
