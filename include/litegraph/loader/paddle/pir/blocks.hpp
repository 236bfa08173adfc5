// The PIR loader's blocks: once the program is read into one graph (every
// op tagged with its block, control_flow.hpp), each block of a control-flow
// op becomes a graph of its own in the owner's `sub_blocks`:
//
//   - the values a block reads from outside it (not parameters or
//     constants: those are copied into the block's graph) become the op's
//     inputs in slot "Input", in variable order, one list for all the op's
//     blocks (an `if`'s two);
//   - the block graph's feeds are, in order, its arguments (a `while` body's
//     loop-carried values) and then those outside values;
//   - its fetches are the values its `2.yield` yields;
//   - the op's attribute `sub_blocks` gives the indices of its blocks in the
//     owner graph's `sub_blocks`.
//
// A graph without control flow is left as it is.
#pragma once

#include <algorithm>
#include <cstdint>
#include <set>
#include <vector>

#include "litegraph/graph/graph.hpp"

namespace litegraph::paddle::pir::detail {

class block_splitter {
public:
    block_splitter(graph::graph& g, std::vector<int> op_block)
        : g_(g), block_(std::move(op_block)) {
        block_.resize(g_.ops.size(), 0);
    }

    void split() {
        if (std::all_of(block_.begin(), block_.end(), [](int b) { return b == 0; })) return;
        // Outside values of each block, innermost first (a block's children
        // have higher ids than the block).
        int max_block = *std::max_element(block_.begin(), block_.end());
        captured_.assign(static_cast<std::size_t>(max_block) + 1, {});
        for (int b = max_block; b >= 1; --b) captured_[b] = outside_values(b);
        inputs_.assign(captured_.size(), {});
        // Each control-flow op reads its blocks' outside values in slot Input.
        for (std::size_t i = 0; i < g_.ops.size(); ++i) {
            auto blocks = children(static_cast<int>(i));
            if (blocks.empty()) continue;
            std::set<int> all;
            for (auto c : blocks) all.insert(captured_[c].begin(), captured_[c].end());
            const std::vector<int> list(all.begin(), all.end());
            for (auto c : blocks) inputs_[c] = list;
            if (!list.empty()) g_.ops[i].inputs.push_back({"Input", list});
        }
        g_.relink();
        const graph::graph flat = g_;
        g_ = block_graph(flat, 0);
    }

private:
    std::vector<int> children(int op) const {
        std::vector<int> r;
        for (auto b : g_.ops[op].attrs.get<std::vector<std::int64_t>>("litegraph_blocks", {}))
            r.push_back(static_cast<int>(b));
        return r;
    }

    bool in_block(int op, int b) const { return block_[op] == b; }

    /// The non-constant variables the ops of block `b` (and its blocks) read
    /// and that no op of `b` produces.
    std::vector<int> outside_values(int b) const {
        std::set<int> read, made;
        for (std::size_t i = 0; i < g_.ops.size(); ++i) {
            if (!in_block(static_cast<int>(i), b)) continue;
            for (auto& s : g_.ops[i].inputs)
                for (int v : s.vars) read.insert(v);
            for (auto& s : g_.ops[i].outputs)
                for (int v : s.vars) made.insert(v);
            for (auto c : children(static_cast<int>(i)))
                read.insert(captured_[c].begin(), captured_[c].end());
        }
        std::vector<int> r;
        for (int v : read)
            if (!made.count(v) && !g_.vars[v].persistable) r.push_back(v);
        return r;
    }

    /// Block `b` of `flat` as a graph of its own (b 0: the top block, its
    /// feeds and fetches the program's).  Only the block's own ops and the
    /// variables they name are copied, before its blocks are built: a chain
    /// of nested blocks holds each op once, never a copy of `flat` per level
    /// (docs/hardening.md's allocation bound).
    graph::graph block_graph(const graph::graph& flat, int b) const {
        std::vector<int> kept, args, yielded;
        for (std::size_t i = 0; i < flat.ops.size(); ++i) {
            const int op = static_cast<int>(i);
            if (!in_block(op, b)) continue;
            const auto& node = flat.ops[i];
            if (node.type == "litegraph_block_args") {
                for (auto& s : node.outputs) args.insert(args.end(), s.vars.begin(), s.vars.end());
            } else if (node.type == "litegraph_yield") {
                for (auto& s : node.inputs)
                    yielded.insert(yielded.end(), s.vars.begin(), s.vars.end());
            } else {
                kept.push_back(op);
            }
        }
        std::vector<graph::io_binding> feeds, fetches;
        if (b == 0) {
            feeds = flat.feeds;
            fetches = flat.fetches;
        } else {
            int col = 0;
            for (int v : args) feeds.push_back({v, col++});
            for (int v : inputs_[b]) feeds.push_back({v, col++});
            col = 0;
            for (int v : yielded) fetches.push_back({v, col++});
        }
        // The variables named, in their order in `flat`.
        std::vector<int> remap(flat.vars.size(), -1);
        auto use = [&](int v) { remap[static_cast<std::size_t>(v)] = 0; };
        for (int op : kept) {
            for (auto& s : flat.ops[op].inputs)
                for (int v : s.vars) use(v);
            for (auto& s : flat.ops[op].outputs)
                for (int v : s.vars) use(v);
        }
        for (auto& f : feeds) use(f.var);
        for (auto& f : fetches) use(f.var);
        graph::graph h;
        for (std::size_t v = 0; v < flat.vars.size(); ++v) {
            if (remap[v] < 0) continue;
            remap[v] = static_cast<int>(h.vars.size());
            h.vars.push_back(flat.vars[v]);
        }
        // A loop value may change shape between iterations (Paddle starts
        // some as 0-D placeholders): a block argument declares no shape.
        for (int v : args) h.vars[static_cast<std::size_t>(remap[v])].shape.clear();
        for (auto& f : feeds) f.var = remap[f.var];
        for (auto& f : fetches) f.var = remap[f.var];
        h.feeds = std::move(feeds);
        h.fetches = std::move(fetches);
        for (int op : kept) {
            graph::op_node node = flat.ops[op];
            for (auto& s : node.inputs)
                for (auto& v : s.vars) v = remap[v];
            for (auto& s : node.outputs)
                for (auto& v : s.vars) v = remap[v];
            h.ops.push_back(std::move(node));
        }
        h.relink();
        for (std::size_t k = 0; k < kept.size(); ++k) {
            auto blocks = children(kept[k]);
            if (blocks.empty()) continue;
            std::vector<std::int64_t> idx;
            for (auto c : blocks) {
                idx.push_back(static_cast<std::int64_t>(h.sub_blocks.size()));
                h.sub_blocks.push_back(block_graph(flat, c));
            }
            h.ops[k].attrs.set("sub_blocks", std::move(idx));
        }
        return h;
    }

    graph::graph& g_;
    std::vector<int> block_;
    std::vector<std::vector<int>> captured_;  // per block: the outside values it reads
    std::vector<std::vector<int>> inputs_;    // per block: its op's Input (all its blocks')
};

/// Splits the blocks of `g` (ops tagged by `op_block`) into sub-graphs.
inline void split_blocks(graph::graph& g, std::vector<int> op_block) {
    block_splitter(g, std::move(op_block)).split();
}

}  // namespace litegraph::paddle::pir::detail
