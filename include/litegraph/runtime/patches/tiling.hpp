// Patched stages (runtime/patches.hpp, docs/patches.md): a stage cut into
// a grid of patches.  tile_stage derives, patch by patch and from the last
// layer back, the region each layer computes, the window and padding it
// reads (patch_attrs: the attributes its op then runs with) and which inputs
// are crops, and plans the per-patch buffers into one scratch block.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "litegraph/planner/planner.hpp"
#include "litegraph/runtime/patches/geometry.hpp"
#include "litegraph/runtime/patches/stage.hpp"

namespace litegraph::runtime {

/// One layer on one patch: its output region, the padding its op needs
/// (top, bottom, left, right) and, per activation input, the region it reads
/// and whether that is a crop of what the producer computed (a copy).
struct layer_tile {
    patch_region out;
    std::int64_t pads[4] = {0, 0, 0, 0};
    std::vector<patch_region> in;
    std::vector<bool> crop;
};

/// The attributes of a layer's op on one patch: a window layer's explicit
/// padding (SAME's dilation reset, ceil_mode off) and, for an op on its
/// default fast loops, its patch kernel (ops/op.hpp: op_patch_kernel; a
/// conv without Winograd); the others' unchanged.
inline attr_map patch_attrs(const graph::op_node& node, const stage_layer& l,
                            const layer_tile& tl) {
    auto attrs = node.attrs;
    if (const auto k = op_patch_kernel_of(op_table{}, node.type);
        !k.empty() && attrs.get<std::string>("litegraph_kernel", "fast") == "fast")
        attrs.set("litegraph_kernel", std::string(k));
    if (l.k == stage_layer::kind::conv || l.k == stage_layer::kind::pool) {
        attrs.set("paddings", std::vector<std::int64_t>(tl.pads, tl.pads + 4));
        attrs.set("padding_algorithm", std::string("EXPLICIT"));
        if (l.k == stage_layer::kind::conv)
            attrs.set("dilations", std::vector<std::int64_t>{l.dh, l.dw});
        else
            attrs.set("ceil_mode", false);
    }
    return attrs;
}

/// What a per-patch buffer of a stage's scratch holds: an internal var of the
/// stage (`var`), or the crop of input `input` of layer `layer`.
struct scratch_buffer {
    int var = -1;
    std::size_t layer = 0, input = 0;
    bool is_crop() const noexcept { return var < 0; }
    static scratch_buffer of_var(int v) { return {v, 0, 0}; }
    static scratch_buffer crop(std::size_t layer, std::size_t input) { return {-1, layer, input}; }
};

/// A stage cut into rows x cols patches of its output: what each layer
/// computes on each patch and where its buffers are.
struct stage_tiling {
    int rows = 1, cols = 1;
    std::vector<patch_region> patches;
    std::vector<std::vector<layer_tile>> tiles;          // [patch][layer]
    std::vector<std::map<int, patch_region>> regions;    // [patch]: var -> computed region
    std::map<int, std::size_t> var_offset;               // internal var -> scratch offset
    std::vector<std::vector<std::int64_t>> crop_offset;  // [layer][input], -1: none
    /// The per-patch buffers as planned in the scratch (lifetimes in layers
    /// of the stage), for pictures and reports: buffer_of[b] says what it
    /// holds, buffer_offset[b] its offset.
    std::vector<planner::buffer> buffers;
    std::vector<scratch_buffer> buffer_of;
    std::vector<std::size_t> buffer_offset;
    std::size_t scratch_bytes = 0;
    double macs_tiled = 0, macs_untiled = 0;  // of the stage's convs
    std::string problem;
};

/// Cuts `desc` into a rows x cols grid and plans its per-patch buffers (with
/// the planner's best placement, or its quick first fit when `quick`: what
/// the choice of split and grid compares).
inline stage_tiling tile_stage(const stage_desc& desc, int rows, int cols, bool quick = false) {
    using patch_detail::bounding;
    stage_tiling t;
    t.rows = rows, t.cols = cols;
    // A reduce stage is cut into row bands of the map its pool reads, so
    // the pool sums each plane in its own row-major order.
    const bool reduce = desc.layers.back().k == stage_layer::kind::reduce;
    const auto& os = desc.shapes.at(reduce ? desc.layers.back().inputs[0] : desc.output);
    const std::int64_t H = os[2], W = os[3];
    if (reduce && cols != 1) {
        t.problem = "a stage ending in a global pool is cut into rows only";
        return t;
    }
    if (rows < 1 || cols < 1 || rows > H || cols > W) {
        t.problem = "grid " + std::to_string(rows) + "x" + std::to_string(cols) +
                    " does not fit an output of " + std::to_string(H) + "x" + std::to_string(W);
        return t;
    }
    const auto n = desc.layers.size();
    for (auto& l : desc.layers)
        t.macs_untiled += l.macs_per_output * static_cast<double>(numel(desc.shapes.at(l.out)));
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            t.patches.push_back(
                {H * r / rows, H * (r + 1) / rows, W * c / cols, W * (c + 1) / cols});
    std::map<int, std::size_t> var_bytes;
    std::vector<std::vector<std::size_t>> crop_bytes(n);
    for (std::size_t i = 0; i < n; ++i) crop_bytes[i].assign(desc.layers[i].inputs.size(), 0);
    auto bytes_of = [&](int v, const patch_region& r) {
        const auto& s = desc.shapes.at(v);
        return static_cast<std::size_t>(s[0] * s[1] * r.h() * r.w()) * size_of(desc.types.at(v));
    };
    for (const auto& patch : t.patches) {
        std::map<int, patch_region> need;
        need[desc.output] = reduce ? patch_region{0, 1, 0, 1} : patch;
        std::vector<layer_tile> tiles(n);
        for (std::size_t i = n; i-- > 0;) {
            const auto& l = desc.layers[i];
            auto& tl = tiles[i];
            tl.out = need.at(l.out);
            if (tl.out.empty()) {
                t.problem = "a patch computes nothing of a layer";
                return t;
            }
            for (std::size_t j = 0; j < l.inputs.size(); ++j) {
                patch_region r = tl.out;
                if (l.k == stage_layer::kind::reduce) {
                    r = patch;
                } else if (l.main[j]) {
                    auto y = patch_detail::window_span(tl.out.y0, tl.out.y1, l.h, l.kh, l.sh, l.dh,
                                                       l.pt);
                    auto x = patch_detail::window_span(tl.out.x0, tl.out.x1, l.w, l.kw, l.sw, l.dw,
                                                       l.pl);
                    r = {y.lo, y.hi, x.lo, x.hi};
                    tl.pads[0] = y.pad0, tl.pads[1] = y.pad1, tl.pads[2] = x.pad0,
                    tl.pads[3] = x.pad1;
                    if (r.empty()) {
                        t.problem = "a patch's window lies in the padding";
                        return t;
                    }
                }
                tl.in.push_back(r);
                need[l.inputs[j]] = bounding(need[l.inputs[j]], r);
            }
            const auto& s = desc.shapes.at(l.out);
            t.macs_tiled +=
                l.macs_per_output * static_cast<double>(s[0] * s[1] * tl.out.h() * tl.out.w());
        }
        for (std::size_t i = 0; i < n; ++i) {
            const auto& l = desc.layers[i];
            auto& tl = tiles[i];
            var_bytes[l.out] = std::max(var_bytes[l.out], bytes_of(l.out, need.at(l.out)));
            for (std::size_t j = 0; j < l.inputs.size(); ++j) {
                int v = l.inputs[j];
                bool external =
                    std::find(desc.inputs.begin(), desc.inputs.end(), v) != desc.inputs.end();
                const auto& s = desc.shapes.at(v);
                patch_region have = external ? patch_region{0, s[2], 0, s[3]} : need.at(v);
                tl.crop.push_back(!(tl.in[j] == have));
                if (tl.crop[j])
                    crop_bytes[i][j] = std::max(crop_bytes[i][j], bytes_of(v, tl.in[j]));
            }
        }
        t.tiles.push_back(std::move(tiles));
        t.regions.push_back(std::move(need));
    }
    // The per-patch buffers over the stage's steps: an internal var from its
    // layer to its last reader, a crop at its reader's step only.
    std::vector<planner::buffer> buffers;
    std::vector<scratch_buffer> buffer_of;
    std::map<int, int> last_use;
    for (std::size_t i = 0; i < n; ++i)
        for (int v : desc.layers[i].inputs) last_use[v] = static_cast<int>(i);
    for (std::size_t i = 0; i < n; ++i) {
        const auto& l = desc.layers[i];
        int last = l.out == desc.output ? static_cast<int>(i) : last_use.at(l.out);
        buffers.push_back({planner::align_up(var_bytes.at(l.out), 64), static_cast<int>(i), last});
        buffer_of.push_back(scratch_buffer::of_var(l.out));
        for (std::size_t j = 0; j < l.inputs.size(); ++j)
            if (crop_bytes[i][j]) {
                buffers.push_back({planner::align_up(crop_bytes[i][j], 64), static_cast<int>(i),
                                   static_cast<int>(i)});
                buffer_of.push_back(scratch_buffer::crop(i, j));
            }
    }
    const planner::segment seg{"patch"};
    const std::span<const planner::segment> segs(&seg, 1);
    auto plan =
        quick ? planner::size_first_fit(buffers, segs) : planner::plan_memory(buffers, segs);
    t.crop_offset.resize(n);
    for (std::size_t i = 0; i < n; ++i) t.crop_offset[i].assign(desc.layers[i].inputs.size(), -1);
    for (std::size_t b = 0; b < buffers.size(); ++b) {
        const auto off = plan.placements[b].offset;
        t.buffer_offset.push_back(off);
        const auto& what = buffer_of[b];
        if (what.is_crop())
            t.crop_offset[what.layer][what.input] = static_cast<std::int64_t>(off);
        else
            t.var_offset[what.var] = off;
    }
    t.scratch_bytes = std::max<std::size_t>(plan.total(), 64);
    t.buffers = std::move(buffers);
    t.buffer_of = std::move(buffer_of);
    return t;
}

}  // namespace litegraph::runtime
