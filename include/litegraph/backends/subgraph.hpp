// The subgraph way of bringing a device in (Paddle Lite's "IR" way): a backend
// declares which ops it converts; this pass marks them in topological order,
// groups adjacent marked ops into subgraphs, drops subgraphs smaller than a
// minimum size and replaces each kept one by a single `subgraph` op that holds
// the original ops as a sub-block (graph::graph::sub_blocks).
//
// Grouping (Paddle's subgraph detector): ops form a DAG of op -> op edges.
// For each edge src -> dst between marked ops, dst is contracted into src
// unless another path leads from src to dst: a reverse DFS from dst's other
// inputs that reaches src finds one, and contracting would then make a cycle
// through the op on that path.  Contraction repeats until nothing changes;
// every contracted node is one subgraph.
#pragma once

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "litegraph/graph/edit.hpp"
#include "litegraph/graph/graph.hpp"

namespace litegraph::backends {

/// Groups the ops with `marked[op]` into subgraphs (each a list of op indices
/// in topological order), drops those with fewer than `min_size` ops, and
/// returns them ordered by their first op in the topological order.
inline std::vector<std::vector<int>> detect_subgraphs(const graph::graph& g,
                                                      const std::vector<bool>& marked,
                                                      int min_size = 1) {
    const int n = static_cast<int>(g.ops.size());
    const auto order = g.topo_order();
    std::vector<int> rank(n, 0);
    for (int i = 0; i < n; ++i) rank[order[i]] = i;
    auto is_marked = [&](int op) { return op < static_cast<int>(marked.size()) && marked[op]; };

    // Contracted nodes: a node absorbed into another points to it in `parent`.
    std::vector<std::set<int>> in(n), out(n);
    for (int i = 0; i < n; ++i)
        for (auto& s : g.ops[i].inputs)
            for (int v : s.vars) {
                int p = g.vars[v].producer;
                if (p >= 0 && p != i) {
                    in[i].insert(p);
                    out[p].insert(i);
                }
            }
    std::vector<int> parent(n);
    for (int i = 0; i < n; ++i) parent[i] = i;
    std::vector<bool> alive(n, true);

    // Whether a reverse DFS from `starts` (along input links) reaches `target`.
    auto reaches = [&](const std::vector<int>& starts, int target) {
        std::vector<bool> seen(n, false);
        std::vector<int> stack(starts);
        while (!stack.empty()) {
            int x = stack.back();
            stack.pop_back();
            if (x == target) return true;
            if (seen[x]) continue;
            seen[x] = true;
            for (int p : in[x])
                if (!seen[p]) stack.push_back(p);
        }
        return false;
    };

    bool changed = true;
    while (changed) {
        changed = false;
        for (int src : order) {
            if (!alive[src] || !is_marked(src)) continue;
            bool merged = true;
            while (merged) {
                merged = false;
                for (int dst : std::vector<int>(out[src].begin(), out[src].end())) {
                    if (!is_marked(dst) || !alive[dst]) continue;
                    std::vector<int> others;
                    for (int p : in[dst])
                        if (p != src) others.push_back(p);
                    if (reaches(others, src)) continue;  // a second path src -> ... -> dst
                    // Contract dst into src.
                    for (int p : in[dst]) {
                        out[p].erase(dst);
                        if (p != src) {
                            out[p].insert(src);
                            in[src].insert(p);
                        }
                    }
                    for (int c : out[dst]) {
                        in[c].erase(dst);
                        in[c].insert(src);
                        out[src].insert(c);
                    }
                    out[src].erase(dst);
                    in[src].erase(src);
                    out[src].erase(src);
                    alive[dst] = false;
                    parent[dst] = src;
                    merged = changed = true;
                }
            }
        }
    }

    auto root = [&](int x) {
        while (parent[x] != x) x = parent[x];
        return x;
    };
    std::map<int, std::vector<int>> groups;  // root -> ops
    for (int op : order)
        if (is_marked(op)) groups[root(op)].push_back(op);
    std::vector<std::vector<int>> result;
    for (auto& [r, ops] : groups)
        if (static_cast<int>(ops.size()) >= min_size) result.push_back(std::move(ops));
    std::sort(result.begin(), result.end(),
              [&](const auto& a, const auto& b) { return rank[a.front()] < rank[b.front()]; });
    return result;
}

/// What `replace_subgraphs` made: per subgraph op, the sub-block index and the
/// labels of the ops it holds.
struct subgraph_info {
    std::string backend;
    int sub_block = -1;
    std::vector<std::string> ops;  // graph::graph::op_label of each original op
};

/// Replaces each subgraph (op indices of `g`) by one op of type "subgraph"
/// with attributes backend = `backend` and sub_block = the index of a new
/// graph in g.sub_blocks holding the original ops.  The sub-block's feeds are
/// the activations the subgraph reads from outside, its fetches the ones read
/// after it (or fetched); the subgraph op reads and writes exactly those
/// (slots "Inputs" and "Outputs").  Parameters only the subgraph reads move
/// into the sub-block; shared ones are copied.
inline std::vector<subgraph_info> replace_subgraphs(graph::graph& g,
                                                    const std::vector<std::vector<int>>& subgraphs,
                                                    const std::string& backend) {
    const int n = static_cast<int>(g.ops.size());
    std::vector<int> group_of(n, -1);
    for (int s = 0; s < static_cast<int>(subgraphs.size()); ++s)
        for (int op : subgraphs[s]) group_of[op] = s;

    std::vector<subgraph_info> infos;
    std::vector<graph::op_node> replacement(subgraphs.size());
    for (int s = 0; s < static_cast<int>(subgraphs.size()); ++s) {
        const auto& ops = subgraphs[s];
        auto inside = [&](int op) { return op >= 0 && group_of[op] == s; };
        graph::graph block;
        std::map<int, int> var_map;  // outer var -> block var
        std::vector<int> border_in, border_out;
        auto block_var = [&](int v) {
            if (auto it = var_map.find(v); it != var_map.end()) return it->second;
            graph::var_node copy;
            const auto& src = g.vars[v];
            copy.name = src.name;
            copy.type = src.type;
            copy.shape = src.shape;
            copy.persistable = src.persistable;
            copy.lod_level = src.lod_level;
            if (src.value) {
                bool only_here = true;
                for (int c : src.consumers) only_here = only_here && inside(c);
                if (only_here && !graph::is_fetched(g, v))
                    copy.value = std::move(g.vars[v].value);
                else
                    copy.value = src.value;
            }
            int id = block.add_var(std::move(copy));
            var_map.emplace(v, id);
            return id;
        };
        for (int op : ops) {
            for (auto& sl : g.ops[op].inputs)
                for (int v : sl.vars) {
                    const auto& var = g.vars[v];
                    if (!var.persistable && !inside(var.producer) &&
                        std::find(border_in.begin(), border_in.end(), v) == border_in.end())
                        border_in.push_back(v);
                }
            for (auto& sl : g.ops[op].outputs)
                for (int v : sl.vars) {
                    bool used_outside = graph::is_fetched(g, v);
                    for (int c : g.vars[v].consumers) used_outside = used_outside || !inside(c);
                    if (used_outside) border_out.push_back(v);
                }
        }
        for (int v : border_in) block_var(v);
        subgraph_info info;
        info.backend = backend;
        info.sub_block = static_cast<int>(g.sub_blocks.size());
        for (int op : ops) {
            graph::op_node copy;
            copy.type = g.ops[op].type;
            copy.attrs = g.ops[op].attrs;
            for (auto& sl : g.ops[op].inputs) {
                graph::slot t{sl.name, {}};
                for (int v : sl.vars) t.vars.push_back(block_var(v));
                copy.inputs.push_back(std::move(t));
            }
            for (auto& sl : g.ops[op].outputs) {
                graph::slot t{sl.name, {}};
                for (int v : sl.vars) t.vars.push_back(block_var(v));
                copy.outputs.push_back(std::move(t));
            }
            info.ops.push_back(g.op_label(op));
            block.add_op(std::move(copy));
        }
        for (std::size_t i = 0; i < border_in.size(); ++i)
            block.feeds.push_back({var_map.at(border_in[i]), static_cast<int>(i)});
        for (std::size_t i = 0; i < border_out.size(); ++i)
            block.fetches.push_back({var_map.at(border_out[i]), static_cast<int>(i)});

        auto& sub = replacement[s];
        sub.type = "subgraph";
        sub.inputs.push_back({"Inputs", border_in});
        sub.outputs.push_back({"Outputs", border_out});
        sub.attrs.set("backend", backend);
        sub.attrs.set("sub_block", static_cast<std::int32_t>(info.sub_block));
        g.sub_blocks.push_back(std::move(block));
        infos.push_back(std::move(info));
    }
    // The subgraph op takes the place of its first op in program order.
    std::vector<graph::op_node> ops;
    std::vector<bool> emitted(subgraphs.size(), false);
    for (int i = 0; i < n; ++i) {
        int s = group_of[i];
        if (s < 0) {
            ops.push_back(std::move(g.ops[i]));
        } else if (!emitted[s]) {
            emitted[s] = true;
            ops.push_back(std::move(replacement[s]));
        }
    }
    g.ops = std::move(ops);
    graph::compact(g, {});
    return infos;
}

}  // namespace litegraph::backends
