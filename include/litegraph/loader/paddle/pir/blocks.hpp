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

#include "litegraph/graph/edit.hpp"
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
    /// feeds and fetches the program's).
    graph::graph block_graph(const graph::graph& flat, int b) const {
        graph::graph h = flat;
        h.sub_blocks.clear();
        std::vector<bool> dead(h.ops.size(), false);
        std::vector<int> args, yielded;
        for (std::size_t i = 0; i < h.ops.size(); ++i) {
            const int op = static_cast<int>(i);
            if (!in_block(op, b)) {
                dead[i] = true;
                continue;
            }
            auto& node = h.ops[i];
            if (node.type == "litegraph_block_args") {
                dead[i] = true;
                for (auto& s : node.outputs) args.insert(args.end(), s.vars.begin(), s.vars.end());
                continue;
            }
            if (node.type == "litegraph_yield") {
                dead[i] = true;
                for (auto& s : node.inputs)
                    yielded.insert(yielded.end(), s.vars.begin(), s.vars.end());
                continue;
            }
            auto blocks = children(op);
            if (blocks.empty()) continue;
            std::vector<std::int64_t> idx;
            for (auto c : blocks) {
                idx.push_back(static_cast<std::int64_t>(h.sub_blocks.size()));
                h.sub_blocks.push_back(block_graph(flat, c));
            }
            node.attrs.set("sub_blocks", std::move(idx));
        }
        if (b != 0) {
            // A loop value may change shape between iterations (Paddle starts
            // some as 0-D placeholders): a block argument declares no shape.
            for (int v : args) h.vars[static_cast<std::size_t>(v)].shape.clear();
            h.feeds.clear();
            h.fetches.clear();
            int col = 0;
            for (int v : args) h.feeds.push_back({v, col++});
            for (int v : inputs_[b]) h.feeds.push_back({v, col++});
            col = 0;
            for (int v : yielded) h.fetches.push_back({v, col++});
        }
        graph::compact(h, dead);
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
