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
        std::map<int, const std::byte*> external;
        for (std::size_t i = 0; i < xs.size(); ++i) external[block_.feeds[i].var] = xs[i]->data;
        std::byte* scratch = io.outputs.at(1).args.at(0)->data;
        std::byte* y = io.outputs.at(0).args.at(0)->data;
        const auto& ys = io.outputs.at(0).args.at(0)->shape;
        const patch_region whole{0, ys[2], 0, ys[3]};
        const std::size_t elem = size_of(io.outputs.at(0).args.at(0)->type);
        const bool reduce = desc_.layers.back().k == stage_layer::kind::reduce;
        std::vector<std::byte*> at_of;
        for (std::size_t p = 0; p < tiling_.patches.size(); ++p) {
            const auto& regions = tiling_.regions[p];
            for (std::size_t i = 0; i < desc_.layers.size(); ++i) {
                const auto& l = desc_.layers[i];
                const auto& tl = tiling_.tiles[p][i];
                at_of.assign(l.inputs.size(), nullptr);
                for (std::size_t j = 0; j < l.inputs.size(); ++j) {
                    const int v = l.inputs[j];
                    const auto& s = desc_.shapes.at(v);
                    const std::byte* src = nullptr;
                    patch_region have;
                    if (auto it = external.find(v); it != external.end()) {
                        src = it->second;
                        have = {0, s[2], 0, s[3]};
                    } else {
                        src = scratch + tiling_.var_offset.at(v);
                        have = regions.at(v);
                    }
                    std::byte* at = const_cast<std::byte*>(src);
                    if (tl.crop[j]) {
                        at = scratch + tiling_.crop_offset[i][j];
                        patch_detail::copy_window(src, have, at, tl.in[j], tl.in[j],
                                                  patch_detail::plane_count(s),
                                                  size_of(desc_.types.at(v)));
                    }
                    at_of[j] = at;
                }
                if (l.k == stage_layer::kind::reduce) {
                    accumulate(l, tl.in[0], reinterpret_cast<const float*>(at_of[0]),
                               reinterpret_cast<float*>(y), p == 0,
                               p + 1 == tiling_.patches.size());
                    continue;
                }
                auto& e = *entries_[i][entry_of_[p][i]];
                for (std::size_t j = 0; j < l.inputs.size(); ++j) e.in_refs[j]->data = at_of[j];
                e.out_ref->data = scratch + tiling_.var_offset.at(l.out);
                e.k->run(e.io);
            }
            if (reduce) continue;
            const auto& patch = tiling_.patches[p];
            patch_detail::copy_window(scratch + tiling_.var_offset.at(desc_.output), patch, y,
                                      whole, patch, patch_detail::plane_count(ys), elem);
        }
    }

    /// A global pool over one row band `band` (x holds it, full width): the
    /// running max or sum of each plane in y, in the order of
    /// kernels::pool2d's loop; the last band divides by the plane's size.
    void accumulate(const stage_layer& l, const patch_region& band, const float* x, float* y,
                    bool first, bool last) const {
        kernels::band_pool(band_pool_of(desc_, l, band, first, last), x, y);
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
            if (t.buffer_var[b] >= 0) {
                name = block_.vars[t.buffer_var[b]].name;
            } else {
                const int k = -1 - t.buffer_var[b];
                const auto& l = desc_.layers.at(static_cast<std::size_t>(k / 1024));
                name = block_.vars[l.inputs.at(static_cast<std::size_t>(k % 1024))].name +
                       " (crop for " + block_.op_label(l.op) + ")";
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
