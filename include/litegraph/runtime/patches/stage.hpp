// Patched stages (runtime/patches.hpp, docs/patches.md): what a stage is.
// Its layers (each a conv, pool, point-wise op, channel concat or a final
// float global pool, by its op's `patch` trait), read back from a split
// tensor to the inputs by describe_stage, which says why when they cannot
// run on patches.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "litegraph/graph/edit.hpp"
#include "litegraph/graph/graph.hpp"
#include "litegraph/kernels/band_pool.hpp"
#include "litegraph/runtime/op_table.hpp"
#include "litegraph/runtime/patches/geometry.hpp"

namespace litegraph::runtime {

/// The op type of a patched stage (not a Paddle op: apply_patches makes it).
inline constexpr std::string_view patched_stage_type = "litegraph_patched_stage";

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

/// The ops of `g` the stage ending at `split` holds (describe_stage's layers).
inline std::set<int> stage_ops_of(const stage_desc& d) {
    std::set<int> s;
    for (auto& l : d.layers) s.insert(l.op);
    return s;
}

}  // namespace litegraph::runtime
