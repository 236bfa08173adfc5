// Patch-based execution of a network's first stage (docs/patches.md; the idea
// is MCUNetV2's, Lin et al., NeurIPS 2021).  The stage is every op from the
// inputs up to a split tensor T: convs, depthwise convs, pools, element-wise
// ops and channel concats.  Rewritten by `apply_patches`, it becomes one op of
// type `patched_stage_type` holding the stage as a sub-block; that op computes
// T patch by patch (a grid of rows x cols over T's height and width): each
// patch's layers run on the input window the patch needs (its halo from each
// layer's kernel, stride, padding and dilation) in small per-patch buffers,
// and the patch is copied into T.  Every output element is computed by the
// same op on the same values as untiled: a window at an image border keeps its
// real padding, a window inside the image reads real values where the untiled
// op would, so fp32 outputs are identical and int8 outputs bit-exact.
//
// The per-patch buffers are planned by the planner (one segment, their
// lifetimes the steps of the stage) into one block, the op's `Scratch` output,
// which the program's own plan places in the arena like any other tensor.
#pragma once

#include <algorithm>
#include <cfloat>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "litegraph/graph/edit.hpp"
#include "litegraph/graph/graph.hpp"
#include "litegraph/kernels/band_pool.hpp"
#include "litegraph/kernels/window_copy.hpp"
#include "litegraph/planner/planner.hpp"
#include "litegraph/runtime/op_table.hpp"
#include "litegraph/runtime/program.hpp"

namespace litegraph::runtime {

/// The op type of a patched stage (not a Paddle op: apply_patches makes it).
inline constexpr std::string_view patched_stage_type = "litegraph_patched_stage";

/// Rows [y0, y1) and columns [x0, x1) of a feature map.
struct patch_region {
    std::int64_t y0 = 0, y1 = 0, x0 = 0, x1 = 0;
    std::int64_t h() const noexcept { return y1 - y0; }
    std::int64_t w() const noexcept { return x1 - x0; }
    bool empty() const noexcept { return y1 <= y0 || x1 <= x0; }
    bool operator==(const patch_region&) const = default;
};

/// One layer of a stage: the op, what kind of layer it is and its activation
/// inputs.  A window layer (conv, pool) reads its main input over a window of
/// its output region; every other input is read over the output region.
struct stage_layer {
    /// reduce: a float global pool, the stage's last layer, accumulated over
    /// row bands in the pool kernel's own order (docs/patches.md).
    enum class kind { conv, pool, point, concat, reduce };
    int op = -1;
    kind k = kind::point;
    std::vector<int> inputs;  // activation input vars, in slot order
    std::vector<bool> main;   // whether inputs[i] is read through the window
    int out = -1;             // the one output var
    // Full geometry of a window layer (input height and width, kernel, ...).
    std::int64_t h = 0, w = 0, kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1;
    std::int64_t pt = 0, pb = 0, pl = 0, pr = 0;
    double macs_per_output = 0;  // multiply-adds per output element (convs)
    bool max = false;            // reduce: max (else average)
};

/// A stage: its layers in a topological order, its external activation
/// inputs and its output (the split tensor).
struct stage_desc {
    std::vector<stage_layer> layers;
    std::vector<int> inputs;
    int output = -1;
    std::map<int, shape_t> shapes;  // every activation var of the stage
    std::map<int, dtype> types;
};

namespace patch_detail {

/// The layer kind of op type `t` in a stage: its op's `patch` trait
/// (ops/op.hpp: patch_kind) over the runtime's op table, or nullopt when no
/// op of the table lets it run on patches.
inline std::optional<stage_layer::kind> kind_of(std::string_view t) {
    using k = stage_layer::kind;
    switch (op_patch_kind_of(op_table{}, t)) {
        case patch_kind::conv:
            return k::conv;
        case patch_kind::pool:
            return k::pool;
        case patch_kind::point:
            return k::point;
        case patch_kind::concat:
            return k::concat;
        case patch_kind::none:
            break;
    }
    return std::nullopt;
}

/// A var of `g` that holds an activation (not a parameter).
inline bool is_activation(const graph::graph& g, int v) {
    const auto& var = g.vars[v];
    return !var.persistable && !var.value;
}

/// A throwaway op_io naming `label`, with the given input slots.
inline op_io probe_io(const std::string& label, std::vector<op_slot> inputs) {
    op_io io;
    io.type = "patches";
    io.label = label;
    io.inputs = std::move(inputs);
    return io;
}

/// The input window (clipped to the map) that output rows [o0, o1) read
/// along one axis, and the padding the patch's op then needs before and after.
struct span {
    std::int64_t lo, hi, pad0, pad1;
};
inline span window_span(std::int64_t o0, std::int64_t o1, std::int64_t in, std::int64_t k,
                        std::int64_t s, std::int64_t d, std::int64_t pad0) {
    const std::int64_t need_lo = o0 * s - pad0;
    const std::int64_t need_hi = (o1 - 1) * s - pad0 + d * (k - 1) + 1;
    const std::int64_t lo = std::clamp<std::int64_t>(need_lo, 0, in);
    const std::int64_t hi = std::clamp<std::int64_t>(need_hi, 0, in);
    return {lo, hi, lo - need_lo, need_hi - hi};
}

inline patch_region bounding(const patch_region& a, const patch_region& b) {
    if (a.empty()) return b;
    return {std::min(a.y0, b.y0), std::max(a.y1, b.y1), std::min(a.x0, b.x0), std::max(a.x1, b.x1)};
}

inline std::int64_t plane_count(const shape_t& s) {
    return s[0] * s[1];
}

/// Copies `win` (inside both regions) from a [planes, src.h, src.w] map whose
/// origin is `src` into one whose origin is `dst` (kernels::copy_window).
inline kernels::window_copy window_copy_of(const patch_region& src, const patch_region& dst,
                                           const patch_region& win, std::int64_t planes,
                                           std::size_t elem) {
    return {planes,          static_cast<std::int64_t>(elem),
            src.h(),         src.w(),
            win.y0 - src.y0, win.x0 - src.x0,
            dst.h(),         dst.w(),
            win.y0 - dst.y0, win.x0 - dst.x0,
            win.h(),         win.w()};
}
inline void copy_window(const std::byte* from, const patch_region& src, std::byte* to,
                        const patch_region& dst, const patch_region& win, std::int64_t planes,
                        std::size_t elem) {
    kernels::copy_window(window_copy_of(src, dst, win, planes, elem), from, to);
}

}  // namespace patch_detail

/// A row band of a reduce layer (its input rows `band`, full width) as
/// kernels::band_pool runs it.
inline kernels::band_pool_geometry band_pool_of(const stage_desc& d, const stage_layer& l,
                                                const patch_region& band, bool first, bool last) {
    const auto& s = d.shapes.at(l.inputs[0]);
    return {s[0] * s[1], band.h(), s[3], s[2] * s[3], l.max, first, last};
}

/// Why the ops producing `output` (up to the graph's inputs) cannot form a
/// patched stage, or empty when they can (then `desc` holds the stage).
/// `ref(v)` gives each var's inferred dtype and shape.
/// `starts`: activations the stage reads as inputs although an op produces
/// them (a stage in the middle of the network); empty: back to the inputs.
template <class Ref>
std::string describe_stage(const graph::graph& g, int output, const Ref& ref, stage_desc& desc,
                           const std::set<int>& starts = {}) {
    using patch_detail::is_activation;
    desc = {};
    desc.output = output;
    if (output < 0 || !is_activation(g, output) || g.vars[output].producer < 0)
        return "the split is not an activation produced by an op";
    std::set<int> ops;
    std::vector<int> todo{g.vars[output].producer};
    while (!todo.empty()) {
        int op = todo.back();
        todo.pop_back();
        if (!ops.insert(op).second) continue;
        for (auto& s : g.ops[op].inputs)
            for (int v : s.vars)
                if (is_activation(g, v) && g.vars[v].producer >= 0 && !starts.count(v))
                    todo.push_back(g.vars[v].producer);
    }
    for (int op : g.topo_order()) {
        if (!ops.count(op)) continue;
        const auto& node = g.ops[op];
        const auto label = g.op_label(op);
        auto kind = patch_detail::kind_of(node.type);
        if (!kind) return "op " + label + " (" + node.type + ") cannot run on patches";
        stage_layer l;
        l.op = op;
        l.k = *kind;
        int outs = 0;
        for (auto& s : node.outputs)
            for (int v : s.vars) {
                ++outs;
                l.out = v;
            }
        if (outs != 1) return "op " + label + " has more than one output";
        const auto& o = ref(l.out);
        if (o.shape.size() != 4) return "op " + label + "'s output is not 4-D";
        if (l.out != output) {
            if (graph::is_fetched(g, l.out)) return "op " + label + "'s output is fetched";
            for (int c : g.vars[l.out].consumers)
                if (!ops.count(c))
                    return "op " + label + "'s output is read after the split (by " +
                           g.op_label(c) + ")";
        }
        const std::string main_slot = l.k == stage_layer::kind::conv   ? "Input"
                                      : l.k == stage_layer::kind::pool ? "X"
                                                                       : "";
        for (auto& s : node.inputs)
            for (int v : s.vars) {
                const auto& r = ref(v);
                if (!is_activation(g, v)) {
                    // Parameters: a window layer's filter and epilogue vectors, or
                    // a per-channel or scalar operand of an element-wise op.
                    if (!main_slot.empty()) continue;
                    const auto axis = node.attrs.get<std::int64_t>("axis", -1);
                    bool per_channel =
                        r.numel() == 1 ||
                        (r.shape.size() == 4 && r.shape[2] == 1 && r.shape[3] == 1 &&
                         r.shape[0] == 1) ||
                        (r.shape.size() == 1 && r.shape[0] == o.shape[1] && axis == 1);
                    if (!per_channel) return "op " + label + " reads a spatial parameter";
                    continue;
                }
                const bool start = g.vars[v].producer < 0 || starts.count(v) > 0;
                if (!start && !ops.count(g.vars[v].producer))
                    return "op " + label + " reads a tensor from outside the stage";
                if (r.shape.size() != 4 || !is_known(r.shape))
                    return "op " + label + "'s input '" + g.vars[v].name + "' is not 4-D";
                bool main = s.name == main_slot;
                if (!main && (r.shape[2] != o.shape[2] || r.shape[3] != o.shape[3]))
                    return "op " + label + " broadcasts over height or width";
                if (r.shape[0] != o.shape[0]) return "op " + label + " changes the batch";
                l.inputs.push_back(v);
                l.main.push_back(main);
                desc.shapes[v] = r.shape;
                desc.types[v] = r.type;
                if (start &&
                    std::find(desc.inputs.begin(), desc.inputs.end(), v) == desc.inputs.end())
                    desc.inputs.push_back(v);
            }
        if (l.inputs.empty()) return "op " + label + " reads no activation";
        if (l.k == stage_layer::kind::concat) {
            auto axis = node.attrs.get<std::int64_t>("axis", 0);
            if (axis != 1 && axis != -3) return "op " + label + " concatenates along H or W";
            if (node.input("AxisTensor")) return "op " + label + " has an axis tensor";
        }
        if (l.k == stage_layer::kind::conv || l.k == stage_layer::kind::pool) {
            std::vector<tensor_ref> refs;
            try {
                if (l.k == stage_layer::kind::conv) {
                    const auto* fs = node.input("Filter");
                    if (!fs || fs->vars.size() != 1) return "op " + label + " has no Filter";
                    auto p = ops::conv2d::parse(node.attrs, node.type);
                    tensor_ref x = ref(l.inputs[0]), f = ref(fs->vars[0]);
                    auto io = patch_detail::probe_io(label, {{"Input", {&x}}, {"Filter", {&f}}});
                    auto geo = ops::conv2d::resolve(p, io, x.type);
                    l.h = geo.h, l.w = geo.w, l.kh = geo.kh, l.kw = geo.kw, l.sh = geo.sh,
                    l.sw = geo.sw, l.dh = geo.dh, l.dw = geo.dw;
                    l.pt = geo.pt, l.pb = geo.pb, l.pl = geo.pl, l.pr = geo.pr;
                    l.macs_per_output = static_cast<double>(geo.c / geo.groups * geo.kh * geo.kw);
                } else {
                    auto p = ops::pool2d::parse(node.attrs, node.type);
                    const bool global =
                        p.global_pooling || (p.adaptive && o.shape[2] == 1 && o.shape[3] == 1);
                    if (global && l.out == output && op_declares<ops::pool2d>(node.type) &&
                        ref(l.inputs[0]).type == dtype::f32 && !p.adaptive) {
                        l.k = stage_layer::kind::reduce;
                        l.max = p.max;
                        desc.shapes[l.out] = o.shape;
                        desc.types[l.out] = o.type;
                        desc.layers.push_back(std::move(l));
                        continue;
                    }
                    if (p.global_pooling || p.adaptive)
                        return "op " + label + " pools globally or adaptively";
                    if (!p.max && !p.exclusive)
                        return "op " + label + " averages over its padding (exclusive = false)";
                    tensor_ref x = ref(l.inputs[0]);
                    auto io = patch_detail::probe_io(label, {{"X", {&x}}});
                    auto geo = ops::pool2d::resolve(p, io, x.type);
                    l.h = geo.h, l.w = geo.w, l.kh = geo.kh, l.kw = geo.kw, l.sh = geo.sh,
                    l.sw = geo.sw;
                    l.pt = geo.pt, l.pb = geo.pb, l.pl = geo.pl, l.pr = geo.pr;
                }
            } catch (const error& e) {
                return e.what();
            }
            int mains = static_cast<int>(std::count(l.main.begin(), l.main.end(), true));
            if (mains != 1) return "op " + label + " reads its window input more than once";
        }
        desc.shapes[l.out] = o.shape;
        desc.types[l.out] = o.type;
        desc.layers.push_back(std::move(l));
    }
    if (desc.inputs.empty()) return "the stage reads no input";
    return {};
}

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
/// padding (SAME's dilation reset, ceil_mode off), the others' unchanged.
inline attr_map patch_attrs(const graph::op_node& node, const stage_layer& l,
                            const layer_tile& tl) {
    auto attrs = node.attrs;
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
    /// of the stage), for pictures and reports: buffer_var[b] is the var, or
    /// -(1 + layer * 1024 + input) for a crop; buffer_offset[b] its offset.
    std::vector<planner::buffer> buffers;
    std::vector<int> buffer_var;
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
    std::vector<int> buffer_var;  // var, or -(1 + layer * 1024 + input) for a crop
    std::map<int, int> last_use;
    for (std::size_t i = 0; i < n; ++i)
        for (int v : desc.layers[i].inputs) last_use[v] = static_cast<int>(i);
    for (std::size_t i = 0; i < n; ++i) {
        const auto& l = desc.layers[i];
        int last = l.out == desc.output ? static_cast<int>(i) : last_use.at(l.out);
        buffers.push_back({planner::align_up(var_bytes.at(l.out), 64), static_cast<int>(i), last});
        buffer_var.push_back(l.out);
        for (std::size_t j = 0; j < l.inputs.size(); ++j)
            if (crop_bytes[i][j]) {
                buffers.push_back({planner::align_up(crop_bytes[i][j], 64), static_cast<int>(i),
                                   static_cast<int>(i)});
                buffer_var.push_back(-1 - static_cast<int>(i * 1024 + j));
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
        if (buffer_var[b] >= 0) {
            t.var_offset[buffer_var[b]] = off;
        } else {
            const int k = -1 - buffer_var[b];
            t.crop_offset[static_cast<std::size_t>(k / 1024)][static_cast<std::size_t>(k % 1024)] =
                static_cast<std::int64_t>(off);
        }
    }
    t.scratch_bytes = std::max<std::size_t>(plan.total(), 64);
    t.buffers = std::move(buffers);
    t.buffer_var = std::move(buffer_var);
    return t;
}

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

/// The ops of `g` the stage ending at `split` holds (describe_stage's layers).
inline std::set<int> stage_ops_of(const stage_desc& d) {
    std::set<int> s;
    for (auto& l : d.layers) s.insert(l.op);
    return s;
}

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

/// The conv MACs of the unfolded instructions of `p`.
inline double network_macs(const program& p) {
    double total = 0;
    for (int i : p.execution_order()) {
        const auto& ins = p.instructions()[i];
        const auto& io = ins.io;
        if (ins.folded || !io.has_input("Filter") || io.outputs.empty()) continue;
        const auto& f = io.input("Filter");
        const auto& o = *io.outputs[0].args.at(0);
        if (f.shape.size() == 4 && f.shape[0] > 0)
            total += static_cast<double>(o.numel()) * static_cast<double>(f.numel() / f.shape[0]);
    }
    return total;
}

/// What to patch: `automatic` chooses the split and the grid (the least peak
/// within `budget`, the network's conv MACs tiled over untiled); else the
/// grid is `rows` x `cols` and the split the one with the least peak.
struct patch_request {
    bool automatic = true;
    int rows = 0, cols = 0;
    double budget = 1.3;
    int max_grid = 8;  // automatic: grids up to max_grid x max_grid
    /// Input shapes to choose for (name -> shape); others as declared, -1 as 1.
    std::map<std::string, shape_t> shapes{};
    /// The split tensor by name (`--patch-split`); empty: chosen.
    std::string split{};
};

/// Parses "auto" or "NxM" (`--patches`); throws usage_error otherwise.
inline patch_request parse_patch_request(const std::string& s, double budget = 1.3) {
    patch_request r;
    r.budget = budget;
    if (s == "auto") return r;
    auto x = s.find('x');
    auto bad = [&] {
        return usage_error("--patches '" + s + "': expected auto or NxM (rows x cols, e.g. 4x4)");
    };
    if (x == std::string::npos || x == 0 || x + 1 >= s.size()) throw bad();
    for (std::size_t i = 0; i < s.size(); ++i)
        if (i != x && (s[i] < '0' || s[i] > '9')) throw bad();
    if (x > 3 || s.size() - x - 1 > 3) throw bad();
    r.automatic = false;
    r.rows = std::stoi(s.substr(0, x));
    r.cols = std::stoi(s.substr(x + 1));
    if (r.rows < 1 || r.cols < 1) throw bad();
    return r;
}

/// The stage and grid chosen, with the figures `plan --json` reports.
struct patch_choice {
    bool found = false;
    std::string why;  // when not found
    int split = -1;   // var of the graph chosen on
    std::string split_name, first_op, last_op;
    int rows = 1, cols = 1;
    std::size_t predicted_peak_bytes = 0;  // LOAD estimated with the stage patched
    std::size_t untiled_load_bytes = 0;    // LOAD of the untiled program
    std::size_t scratch_bytes = 0;         // the per-patch buffers
    double mac_overhead = 1;               // the network's conv MACs, tiled / untiled
    double stage_mac_overhead = 1;         // the stage's conv MACs, tiled / untiled
    std::set<int> ops;                     // the stage's ops in the graph chosen on
    bool tail = false;                     // a global pool's tail also runs in row bands
    std::string tail_first_op, tail_last_op;
    int tail_rows = 0;
    std::string rows_cols() const { return std::to_string(rows) + "x" + std::to_string(cols); }
};

/// Chooses a stage and grid for the prepared, untiled program `p`.
/// `total_macs`: the network's conv MACs untiled (0: those of `p`);
/// `extra_macs`: what patches already chosen add.
inline patch_choice choose_patches(const program& p, const patch_request& req,
                                   double total_macs = 0, double extra_macs = 0) {
    const auto& g = p.graph();
    patch_choice best;
    best.untiled_load_bytes = p.memory().lower_bound_bytes;
    const auto& order = p.execution_order();
    const auto& code = p.instructions();
    const auto& bufs = p.buffers();
    const auto& vb = p.var_buffers();
    if (total_macs <= 0) total_macs = network_macs(p);
    std::vector<int> op_step(g.ops.size(), -1);
    for (std::size_t s = 0; s < order.size(); ++s) op_step[code[order[s]].op] = static_cast<int>(s);
    const int steps = static_cast<int>(order.size());
    auto ref = [&](int v) -> const tensor_ref& { return p.var(v); };
    std::string first_why;
    std::vector<int> candidates;
    for (int s = 0; s < steps; ++s)
        for (auto& sl : g.ops[code[order[s]].op].outputs)
            for (int v : sl.vars) candidates.push_back(v);
    if (!req.split.empty()) {
        candidates.clear();
        if (int v = g.find_var(req.split); v >= 0) candidates.push_back(v);
        first_why = "no tensor named '" + req.split + "'";
    }
    for (int split : candidates) {
        stage_desc desc;
        auto why = describe_stage(g, split, ref, desc);
        if (!why.empty()) {
            if (first_why.empty() || !req.split.empty()) first_why = why;
            continue;
        }
        // Buffers only the stage uses disappear; the stage's step holds its
        // inputs, its output and the scratch, plus whatever else lives then.
        std::set<int> internal_bufs, kept_bufs;
        std::set<int> stage_steps;
        for (auto& l : desc.layers) {
            if (op_step[l.op] >= 0) stage_steps.insert(op_step[l.op]);
            if (l.out != split && vb[l.out].first >= 0) internal_bufs.insert(vb[l.out].first);
        }
        for (int v : desc.inputs)
            if (vb[v].first >= 0) kept_bufs.insert(vb[v].first);
        if (vb[split].first >= 0) kept_bufs.insert(vb[split].first);
        for (int b : kept_bufs) internal_bufs.erase(b);
        std::size_t rest = 0, beside = 0, held = 0;
        for (int b : kept_bufs) held += bufs[b].size;
        for (int s = 0; s < steps; ++s) {
            std::size_t live = 0;
            for (std::size_t b = 0; b < bufs.size(); ++b) {
                if (internal_bufs.count(static_cast<int>(b)) || bufs[b].first > s ||
                    bufs[b].last < s)
                    continue;
                if (stage_steps.count(s) && kept_bufs.count(static_cast<int>(b))) continue;
                live += bufs[b].size;
            }
            if (stage_steps.count(s))
                beside = std::max(beside, live);
            else
                rest = std::max(rest, live);
        }
        std::vector<std::pair<int, int>> grids;
        if (req.automatic) {
            for (int r = 1; r <= req.max_grid; ++r)
                for (int c = 1; c <= req.max_grid; ++c)
                    if (r * c > 1) grids.push_back({r, c});
        } else {
            grids.push_back({req.rows, req.cols});
        }
        for (auto [r, c] : grids) {
            auto t = tile_stage(desc, r, c, true);
            if (!t.problem.empty()) {
                if (first_why.empty()) first_why = t.problem;
                continue;
            }
            const double macs = total_macs + extra_macs - t.macs_untiled + t.macs_tiled;
            const double overhead = total_macs > 0 ? macs / total_macs : 1.0;
            if (req.automatic && overhead > req.budget) continue;
            const auto peak = std::max(rest, beside + held + t.scratch_bytes);
            const bool better = !best.found || peak < best.predicted_peak_bytes ||
                                (peak == best.predicted_peak_bytes && overhead < best.mac_overhead);
            if (!better) continue;
            best.found = true;
            best.split = split;
            best.split_name = g.vars[split].name;
            best.first_op = g.op_label(desc.layers.front().op);
            best.last_op = g.op_label(desc.layers.back().op);
            best.rows = r, best.cols = c;
            best.predicted_peak_bytes = peak;
            best.scratch_bytes = t.scratch_bytes;
            best.mac_overhead = overhead;
            best.stage_mac_overhead = t.macs_untiled > 0 ? t.macs_tiled / t.macs_untiled : 1.0;
            best.ops = stage_ops_of(desc);
        }
    }
    if (best.found && req.automatic && best.predicted_peak_bytes >= best.untiled_load_bytes) {
        best.found = false;
        best.why = "no stage lowers the peak (the best, " + best.rows_cols() + " over " +
                   best.first_op + " .. " + best.last_op + ", would need " +
                   std::to_string(best.predicted_peak_bytes) + " bytes, LOAD untiled " +
                   std::to_string(best.untiled_load_bytes) + ")";
        return best;
    }
    if (!best.found)
        best.why = first_why.empty() ? "no stage can run on patches within the budget"
                                     : "no stage can run on patches (" + first_why + ")";
    return best;
}

/// The tail stage of a global pool: the pool and, back from it, the
/// point-wise ops and the conv that produce its input (each read by the next
/// only), cut into row bands so the conv's map never exists whole.
struct tail_choice {
    bool found = false;
    int split = -1;  // the pool's output
    std::string first_op, last_op;
    int rows = 1;
    std::size_t scratch_bytes = 0;
    double extra_macs = 0;  // tiled - untiled
    std::set<int> ops;
};

/// For each float global pool of `p` fed by a conv (through point-wise ops),
/// the band count with the least scratch whose extra MACs stay within
/// `budget` x the network's; the tail with the largest map is kept.
inline tail_choice choose_tail(const program& p, double budget, double total_macs) {
    const auto& g = p.graph();
    auto ref = [&](int v) -> const tensor_ref& { return p.var(v); };
    tail_choice best;
    std::uint64_t best_bytes = 0;
    for (int i : p.execution_order()) {
        const int op = p.instructions()[i].op;
        const auto& node = g.ops[op];
        if (!op_declares<ops::pool2d>(node.type) || !node.attrs.get<bool>("global_pooling", false))
            continue;
        const int out = graph::output_var(node, "Out");
        int x = graph::input_var(node, "X");
        if (out < 0 || x < 0) continue;
        // Back through single-reader point-wise ops to the conv.
        std::set<int> starts;
        std::uint64_t map_bytes = p.var(x).bytes();
        for (int v = x;;) {
            const int prod = g.vars[v].producer;
            if (prod < 0 || graph::consumers(g, v).size() != 1 || graph::is_fetched(g, v)) break;
            auto k = patch_detail::kind_of(g.ops[prod].type);
            if (!k || (*k != stage_layer::kind::conv && *k != stage_layer::kind::point)) break;
            const auto* in = g.ops[prod].input(*k == stage_layer::kind::conv ? "Input" : "X");
            if (!in || in->vars.size() != 1) break;
            if (*k == stage_layer::kind::conv) {
                starts.insert(in->vars[0]);
                break;
            }
            v = in->vars[0];
        }
        if (starts.empty()) continue;
        stage_desc desc;
        if (!describe_stage(g, out, ref, desc, starts).empty()) continue;
        const auto h = p.var(x).shape[2];
        tail_choice c;
        for (int r = 1; r <= h; ++r) {
            auto t = tile_stage(desc, r, 1, true);
            if (!t.problem.empty()) continue;
            const double extra = t.macs_tiled - t.macs_untiled;
            if (total_macs > 0 && (total_macs + extra) / total_macs > budget) continue;
            if (c.found && t.scratch_bytes >= c.scratch_bytes) continue;
            c.found = true;
            c.rows = r;
            c.scratch_bytes = t.scratch_bytes;
            c.extra_macs = extra;
        }
        if (!c.found || map_bytes <= best_bytes) continue;
        c.split = out;
        c.first_op = g.op_label(desc.layers.front().op);
        c.last_op = g.op_label(desc.layers.back().op);
        c.ops = stage_ops_of(desc);
        best = c;
        best_bytes = map_bytes;
    }
    return best;
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
