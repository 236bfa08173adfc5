// Patched stages (runtime/patches.hpp, docs/patches.md): the op instance of
// a `litegraph_patched_stage` node.  It infers its sub-block untiled, tiles
// it (tile_stage) and runs it patch by patch, each layer through an op
// instance of the table for its patch's padding and shapes;
// patch_factory makes it for a program.
#pragma once

#include <algorithm>
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "litegraph/graph/graph.hpp"
#include "litegraph/kernels/band_pool.hpp"
#include "litegraph/runtime/op_table.hpp"
#include "litegraph/runtime/patches/geometry.hpp"
#include "litegraph/runtime/patches/stage.hpp"
#include "litegraph/runtime/patches/tiling.hpp"
#include "litegraph/runtime/patches/walk.hpp"
#include "litegraph/runtime/program.hpp"

namespace litegraph::runtime {

/// The kernel of a patched stage: infers the stage untiled (full shapes),
/// tiles it, and runs it patch by patch.
class patched_stage_instance final : public op_instance {
public:
    patched_stage_instance(graph::graph block, int rows, int cols)
        : block_(std::move(block)), rows_(rows), cols_(cols) {
        refs_.resize(block_.vars.size());
        for (std::size_t v = 0; v < block_.vars.size(); ++v) {
            auto& var = block_.vars[v];
            refs_[v].name = var.name;
            refs_[v].type = var.type;
            if (var.value) {
                refs_[v].shape = var.value->shape();
                refs_[v].data = var.value->data();
            }
        }
        for (int op : block_.topo_order()) {
            full_.push_back({make_table_instance(block_.ops[op].type, block_.ops[op].attrs), {}});
            auto& io = full_.back().io;
            io.type = block_.ops[op].type;
            io.label = block_.op_label(op);
            for (auto& s : block_.ops[op].inputs) io.inputs.push_back(bind(s));
            for (auto& s : block_.ops[op].outputs) io.outputs.push_back(bind(s));
        }
    }

    void infer(op_io& io) override {
        auto& xs = io.inputs.at(0).args;
        io.check(xs.size() == block_.feeds.size() && io.outputs.size() == 2,
                 "the op's inputs and outputs do not match its sub-block");
        for (std::size_t i = 0; i < xs.size(); ++i) {
            auto& r = refs_[block_.feeds[i].var];
            r.type = xs[i]->type;
            r.shape = xs[i]->shape;
        }
        for (auto& f : full_) f.k->infer(f.io);
        const int out = block_.fetches.at(0).var;
        auto why = describe_stage(
            block_, out, [&](int v) -> const tensor_ref& { return refs_[v]; }, desc_);
        if (!why.empty()) io.fail("patched stage: " + why);
        tiling_ = tile_stage(desc_, rows_, cols_);
        if (!tiling_.problem.empty()) io.fail("patched stage: " + tiling_.problem);
        build_entries(io);
        auto& y = io.outputs.at(0).args.at(0);
        y->type = refs_[out].type;
        y->shape = refs_[out].shape;
        auto& s = io.outputs.at(1).args.at(0);
        s->type = dtype::u8;
        s->shape = {static_cast<std::int64_t>(tiling_.scratch_bytes)};
    }

    void run(op_io& io) override {
        const auto& xs = io.inputs.at(0).args;
        std::byte* scratch = io.outputs.at(1).args.at(0)->data;
        const auto& y = *io.outputs.at(0).args.at(0);
        // The steps of walk_patches (walk.hpp), run on this op's tensors.
        struct runner {
            patched_stage_instance& self;
            const std::vector<tensor_ref*>& xs;
            std::byte* scratch;
            std::byte* y;
            std::byte* at(patch_place p) const {
                switch (p.at) {
                    case patch_place::where::input:
                        return xs[p.index]->data;
                    case patch_place::where::scratch:
                        return scratch + p.index;
                    case patch_place::where::output:
                        break;
                }
                return y;
            }
            void copy(const kernels::window_copy& c, patch_place from, patch_place to) const {
                kernels::copy_window(c, at(from), at(to));
            }
            void layer(std::size_t p, std::size_t i, const std::vector<patch_place>& in,
                       patch_place out) const {
                auto& e = *self.entries_[i][self.entry_of_[p][i]];
                for (std::size_t j = 0; j < in.size(); ++j) e.in_refs[j]->data = at(in[j]);
                e.out_ref->data = at(out);
                e.k->run(e.io);
            }
            void band(std::size_t, std::size_t, const kernels::band_pool_geometry& g,
                      patch_place from) const {
                kernels::band_pool(g, reinterpret_cast<const float*>(at(from)),
                                   reinterpret_cast<float*>(y));
            }
            void end_patch(std::size_t) const {}
        };
        walk_patches(desc_, tiling_, feed_vars(), y.shape, size_of(y.type),
                     runner{*this, xs, scratch, y.data});
    }

    /// The stage's input vars, in the order of its input list.
    std::vector<int> feed_vars() const {
        std::vector<int> vars;
        for (auto& f : block_.feeds) vars.push_back(f.var);
        return vars;
    }

    bool folds_from_shapes() const noexcept override { return false; }
    std::string_view name() const noexcept override { return patched_stage_type; }

    /// One per-patch buffer of the scratch: an internal var by its name, a
    /// crop as "NAME (crop for LAYER)"; lifetimes in layers of the stage.
    struct scratch_part {
        std::string name;
        planner::buffer buffer;
        std::size_t offset = 0;
    };
    std::vector<scratch_part> scratch_parts() const {
        std::vector<scratch_part> parts;
        const auto& t = tiling_;
        for (std::size_t b = 0; b < t.buffers.size(); ++b) {
            std::string name;
            const auto& what = t.buffer_of[b];
            if (what.is_crop()) {
                const auto& l = desc_.layers.at(what.layer);
                name = block_.vars[l.inputs.at(what.input)].name + " (crop for " +
                       block_.op_label(l.op) + ")";
            } else {
                name = block_.vars[what.var].name;
            }
            parts.push_back({std::move(name), t.buffers[b], t.buffer_offset[b]});
        }
        return parts;
    }

    const stage_desc& stage() const noexcept { return desc_; }
    const stage_tiling& tiling() const noexcept { return tiling_; }
    const graph::graph& block() const noexcept { return block_; }
    /// The op_io layer `layer` runs on patch `patch` (shapes of the patch; its
    /// activations' data set only while run() runs), and the refs of its
    /// activation inputs and of its output in it.  Not for a reduce layer.
    struct patch_io {
        const op_io* io;
        const std::vector<tensor_ref*>* inputs;
        tensor_ref* output;
    };
    patch_io layer_io(std::size_t patch, std::size_t layer) const {
        const auto& e = *entries_.at(layer).at(entry_of_.at(patch).at(layer));
        return {&e.io, &e.in_refs, e.out_ref};
    }

private:
    struct full_layer {
        std::unique_ptr<op_instance> k;
        op_io io;
    };
    /// One op instance of a layer for one padding and one set of input shapes.
    struct entry {
        std::string key;
        std::unique_ptr<op_instance> k;
        std::vector<std::unique_ptr<tensor_ref>> refs;
        std::vector<tensor_ref*> in_refs;  // per activation input of the layer
        tensor_ref* out_ref = nullptr;
        op_io io;
    };

    op_slot bind(const graph::slot& s) {
        op_slot o{s.name, {}};
        for (int v : s.vars) o.args.push_back(&refs_[v]);
        return o;
    }

    void build_entries(const op_io& outer) {
        entries_.clear();
        entries_.resize(desc_.layers.size());
        entry_of_.assign(tiling_.patches.size(), std::vector<std::size_t>(desc_.layers.size()));
        for (std::size_t p = 0; p < tiling_.patches.size(); ++p)
            for (std::size_t i = 0; i < desc_.layers.size(); ++i) {
                const auto& l = desc_.layers[i];
                const auto& tl = tiling_.tiles[p][i];
                if (l.k == stage_layer::kind::reduce) continue;
                std::string key;
                for (auto v : tl.pads) key += std::to_string(v) + ",";
                for (auto& r : tl.in)
                    key += std::to_string(r.h()) + "x" + std::to_string(r.w()) + ",";
                auto& list = entries_[i];
                auto it = std::find_if(list.begin(), list.end(),
                                       [&](const auto& e) { return e->key == key; });
                if (it == list.end()) {
                    list.push_back(make_entry(l, tl, key, outer));
                    it = list.end() - 1;
                }
                entry_of_[p][i] = static_cast<std::size_t>(it - list.begin());
            }
    }

    std::unique_ptr<entry> make_entry(const stage_layer& l, const layer_tile& tl,
                                      const std::string& key, const op_io& outer) {
        const auto& node = block_.ops[l.op];
        const auto attrs = patch_attrs(node, l, tl);
        auto e = std::make_unique<entry>();
        e->key = key;
        e->k = make_table_instance(node.type, attrs);
        e->io.type = node.type;
        e->io.label = block_.op_label(l.op) + " (patch)";
        std::size_t j = 0;
        auto ref_for = [&](int v, bool activation, const patch_region* r) {
            auto t = std::make_unique<tensor_ref>(refs_[v]);
            if (activation) {
                t->shape[2] = r->h();
                t->shape[3] = r->w();
                t->data = nullptr;
            }
            e->refs.push_back(std::move(t));
            return e->refs.back().get();
        };
        for (auto& s : node.inputs) {
            op_slot o{s.name, {}};
            for (int v : s.vars) {
                bool act = patch_detail::is_activation(block_, v);
                auto* t = ref_for(v, act, act ? &tl.in.at(j) : nullptr);
                if (act) e->in_refs.push_back(t), ++j;
                o.args.push_back(t);
            }
            e->io.inputs.push_back(std::move(o));
        }
        for (auto& s : node.outputs) {
            op_slot o{s.name, {}};
            for (int v : s.vars) {
                auto t = std::make_unique<tensor_ref>();
                t->name = block_.vars[v].name;
                e->refs.push_back(std::move(t));
                e->out_ref = e->refs.back().get();
                o.args.push_back(e->out_ref);
            }
            e->io.outputs.push_back(std::move(o));
        }
        e->k->infer(e->io);
        const auto& want = desc_.shapes.at(l.out);
        const shape_t expect{want[0], want[1], tl.out.h(), tl.out.w()};
        if (e->out_ref->shape != expect)
            outer.fail("patched stage: op " + block_.op_label(l.op) + " on a patch infers " +
                       to_string(e->out_ref->shape) + ", expected " + to_string(expect));
        return e;
    }

    graph::graph block_;
    int rows_, cols_;
    std::vector<tensor_ref> refs_;  // full shapes, one per block var
    std::vector<full_layer> full_;
    stage_desc desc_;
    stage_tiling tiling_;
    std::vector<std::vector<std::unique_ptr<entry>>> entries_;  // [layer]
    std::vector<std::vector<std::size_t>> entry_of_;            // [patch][layer]
};

/// A kernel factory that builds patched stages and leaves every other op to
/// `next` (or the op table).
inline instance_factory patch_factory(instance_factory next = {}) {
    return [next](const graph::graph& g, int op) -> std::unique_ptr<op_instance> {
        const auto& node = g.ops[op];
        if (node.type == patched_stage_type) {
            auto index = node.attrs.require<std::int64_t>("sub_block");
            if (index < 0 || index >= static_cast<std::int64_t>(g.sub_blocks.size()))
                throw graph_error("patched stage refers to sub-block #" + std::to_string(index) +
                                  " that does not exist");
            auto rows = node.attrs.require<std::int64_t>("rows");
            auto cols = node.attrs.require<std::int64_t>("cols");
            return std::make_unique<patched_stage_instance>(
                g.sub_blocks[static_cast<std::size_t>(index)], static_cast<int>(rows),
                static_cast<int>(cols));
        }
        return next ? next(g, op) : nullptr;
    };
}

}  // namespace litegraph::runtime
