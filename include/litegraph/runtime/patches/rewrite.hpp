// Patched stages (runtime/patches.hpp, docs/patches.md): the graph rewrite.
// apply_patches replaces a stage's ops by one `litegraph_patched_stage` op
// holding them as a sub-block; patch_graph chooses (search.hpp) and applies.
#pragma once

#include <algorithm>
#include <cstddef>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "litegraph/graph/edit.hpp"
#include "litegraph/graph/graph.hpp"
#include "litegraph/planner/planner.hpp"
#include "litegraph/runtime/patches/instance.hpp"
#include "litegraph/runtime/patches/request.hpp"
#include "litegraph/runtime/patches/search.hpp"
#include "litegraph/runtime/patches/stage.hpp"
#include "litegraph/runtime/program.hpp"

namespace litegraph::runtime {

/// Replaces the ops producing `split` (a var of `g`, see describe_stage) by
/// one patched stage of rows x cols patches.  Returns the new op's index.
inline int apply_patches(graph::graph& g, int split, int rows, int cols,
                         const std::set<int>& stage_ops) {
    graph::graph block;
    std::map<int, int> var_map;
    auto inside = [&](int op) { return stage_ops.count(op) > 0; };
    auto block_var = [&](int v) {
        if (auto it = var_map.find(v); it != var_map.end()) return it->second;
        const auto& src = g.vars[v];
        graph::var_node copy{src.name,      src.type, src.shape, src.persistable,
                             src.lod_level, {},       -1,        {}};
        if (src.value) {
            bool only_here = !graph::is_fetched(g, v);
            for (int c : src.consumers) only_here = only_here && inside(c);
            copy.value = only_here ? std::move(g.vars[v].value) : src.value;
        }
        int id = block.add_var(std::move(copy));
        var_map.emplace(v, id);
        return id;
    };
    std::vector<int> inputs;
    for (int op : g.topo_order()) {
        if (!inside(op)) continue;
        for (auto& s : g.ops[op].inputs)
            for (int v : s.vars)
                if (patch_detail::is_activation(g, v) && !inside(g.vars[v].producer) &&
                    std::find(inputs.begin(), inputs.end(), v) == inputs.end())
                    inputs.push_back(v);
    }
    for (int v : inputs) block_var(v);
    for (int op : g.topo_order()) {
        if (!inside(op)) continue;
        graph::op_node copy{g.ops[op].type, {}, {}, g.ops[op].attrs};
        copy.attrs.set("in_place", std::string());
        for (auto& s : g.ops[op].inputs) {
            graph::slot t{s.name, {}};
            for (int v : s.vars) t.vars.push_back(block_var(v));
            copy.inputs.push_back(std::move(t));
        }
        for (auto& s : g.ops[op].outputs) {
            graph::slot t{s.name, {}};
            for (int v : s.vars) t.vars.push_back(block_var(v));
            copy.outputs.push_back(std::move(t));
        }
        block.add_op(std::move(copy));
    }
    for (std::size_t i = 0; i < inputs.size(); ++i)
        block.feeds.push_back({var_map.at(inputs[i]), static_cast<int>(i)});
    block.fetches.push_back({var_map.at(split), 0});

    graph::var_node scratch;
    scratch.name = g.vars[split].name + "@patches";
    scratch.type = dtype::u8;
    scratch.shape = {-1};
    int scratch_var = g.add_var(std::move(scratch));
    graph::op_node node;
    node.type = std::string(patched_stage_type);
    node.inputs.push_back({"X", inputs});
    node.outputs.push_back({"Out", {split}});
    node.outputs.push_back({"Scratch", {scratch_var}});
    node.attrs.set("sub_block", static_cast<std::int32_t>(g.sub_blocks.size()));
    node.attrs.set("rows", static_cast<std::int32_t>(rows));
    node.attrs.set("cols", static_cast<std::int32_t>(cols));
    g.sub_blocks.push_back(std::move(block));
    std::vector<graph::op_node> ops;
    bool placed = false;
    for (std::size_t i = 0; i < g.ops.size(); ++i) {
        if (!inside(static_cast<int>(i))) {
            ops.push_back(std::move(g.ops[i]));
        } else if (!placed) {
            placed = true;
            ops.push_back(std::move(node));
        }
    }
    g.ops = std::move(ops);
    graph::compact(g, {});
    int at = -1;
    for (std::size_t i = 0; i < g.ops.size(); ++i)
        if (g.ops[i].type == patched_stage_type) at = static_cast<int>(i);
    return at;
}

/// Chooses (on an untiled program over a copy of `g`, inputs of
/// `req.shapes`) and applies a patched stage to `g`; `g` is unchanged when
/// none is found (the choice then says why).
inline patch_choice patch_graph(graph::graph& g, const patch_request& req,
                                const std::vector<planner::segment>& segments,
                                const instance_factory& make = {}) {
    auto planned = [&](const graph::graph& of) {
        auto p = std::make_unique<program>(of, segments, patch_factory(make));
        for (std::size_t i = 0; i < p->input_count(); ++i) {
            const auto& v = p->input_var(i);
            shape_t s = v.shape;
            if (auto it = req.shapes.find(v.name); it != req.shapes.end()) s = it->second;
            for (auto& d : s)
                if (d < 0) d = 1;
            p->set_input_shape(i, s);
        }
        p->planned_arena_bytes();
        return p;
    };
    auto untiled = planned(g);
    const double macs = network_macs(*untiled);
    const auto untiled_load = untiled->memory().lower_bound_bytes;
    // auto: first the tail (a global pool's conv map in row bands), so that
    // the head's choice sees the peak that remains.
    tail_choice tail;
    if (req.automatic) tail = choose_tail(*untiled, req.budget, macs);
    graph::graph with_tail = g;
    if (tail.found) apply_patches(with_tail, tail.split, tail.rows, 1, tail.ops);
    auto base = tail.found ? planned(with_tail) : std::move(untiled);
    auto choice = choose_patches(*base, req, macs, tail.extra_macs);
    choice.untiled_load_bytes = untiled_load;
    if (!choice.found) return choice;
    choice.tail = tail.found;
    choice.tail_first_op = tail.first_op;
    choice.tail_last_op = tail.last_op;
    choice.tail_rows = tail.rows;
    g = std::move(with_tail);
    // The choice's op indices are those of the graph chosen on, a copy of `g`.
    apply_patches(g, choice.split, choice.rows, choice.cols, choice.ops);
    return choice;
}

}  // namespace litegraph::runtime
