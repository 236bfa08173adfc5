// nhwc_to_nchw: the layout pass.  An op whose kernel runs channels-first only
// (conv2d / depthwise_conv2d, conv2d_transpose, pool2d, the interp ops,
// conv3d, pool3d; and batch_norm, see below) but whose `data_format` /
// `data_layout` says channels last (NHWC, or NDHWC for the 3-D ops) becomes
// its channels-first form between two explicit transposes: transpose2 [0,3,1,2] (5-D: [0,4,1,2,3])
// on its input, transpose2 [0,2,3,1] (5-D: [0,2,3,4,1]) on its output.  The op's other inputs
// (filters, OutSize / SizeTensor / Scale) do not move: Paddle lays a filter out [OC, C, KH, KW] and
// spatial attributes (ksize, strides, paddings, out_h, ...) as [H, W] in both layouts.  The op's
// variables keep their names: the op reads `x@nchw` and writes `y@nchw`, the transposes read `x`
// and write `y`.  A 4-D batch_norm runs channels last itself but is rewritten too, so that inside a
// channels-last region it meets its conv channels first and fold_batch_norm folds it as in an NCHW
// model (its other ranks stay native).  Ops that run channels last themselves (group_norm, prelu,
// pad2d, pad3d, pixel_shuffle, channel_shuffle, affine_channel) are left as they are.
//
// The pass is mandatory, not an optimisation: the loader runs it on every
// model it loads and `prepare` on every graph (a graph built in code), with
// or without the fusion pipeline, so that the runtime, the planner and the
// firmware code generator see channels-first ops only.  A graph without
// channels-last ops is left unchanged.  `cancel_transposes` (in the pipeline)
// then removes the transposes between two rewritten ops.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "litegraph/graph/edit.hpp"
#include "litegraph/graph/graph.hpp"
#include "litegraph/ops/batch_norm.hpp"
#include "litegraph/ops/conv2d.hpp"
#include "litegraph/ops/conv2d_transpose.hpp"
#include "litegraph/ops/conv3d.hpp"
#include "litegraph/ops/nearest_interp_v2.hpp"
#include "litegraph/ops/pool2d.hpp"
#include "litegraph/ops/pool3d.hpp"
#include "litegraph/ops/transpose2.hpp"

namespace litegraph::passes {

/// How the pass sees an op it rewrites: its layout attribute, the slots of
/// the activation in and out, the channels-last value, the activation's rank
/// and whether that rank must be declared (an op that takes other ranks too).
struct layout_op {
    const char* attr;
    const char* in;
    const char* out;
    const char* channels_last;
    std::size_t rank;
    bool declared_rank = false;
};

/// The layout facts of `type`, or nullptr when the op is not one the pass rewrites.
inline const layout_op* layout_op_of(std::string_view type) {
    static constexpr layout_op conv{"data_format", "Input", "Output", "NHWC", 4};
    static constexpr layout_op pool{"data_format", "X", "Out", "NHWC", 4};
    static constexpr layout_op interp{"data_layout", "X", "Out", "NHWC", 4};
    static constexpr layout_op conv_3d{"data_format", "Input", "Output", "NDHWC", 5};
    static constexpr layout_op pool_3d{"data_format", "X", "Out", "NDHWC", 5};
    static constexpr layout_op bn{"data_layout", "X", "Y", "NHWC", 4, true};
    if (op_declares<ops::conv2d>(type) || op_declares<ops::conv2d_transpose>(type)) return &conv;
    if (op_declares<ops::pool2d>(type)) return &pool;
    if (op_declares<ops::interp_v2>(type)) return &interp;
    if (op_declares<ops::conv3d>(type)) return &conv_3d;
    if (op_declares<ops::pool3d>(type)) return &pool_3d;
    if (op_declares<ops::batch_norm>(type)) return &bn;
    return nullptr;
}

/// The permutation from channels last to channels first ([0,3,1,2] or
/// [0,4,1,2,3]) and back ([0,2,3,1] or [0,2,3,4,1]).
inline std::vector<std::int64_t> to_channels_first(std::size_t rank) {
    std::vector<std::int64_t> p{0, static_cast<std::int64_t>(rank) - 1};
    for (std::size_t d = 1; d + 1 < rank; ++d) p.push_back(static_cast<std::int64_t>(d));
    return p;
}
inline std::vector<std::int64_t> to_channels_last(std::size_t rank) {
    std::vector<std::int64_t> p{0};
    for (std::size_t d = 2; d < rank; ++d) p.push_back(static_cast<std::int64_t>(d));
    p.push_back(1);
    return p;
}

namespace detail {

/// String attribute `name` of `a`, or empty when absent or of another type
/// (the op's own parse reports that).
inline std::string string_attr(const attr_map& a, std::string_view name) {
    auto it = a.all().find(name);
    if (it == a.all().end()) return {};
    const auto* s = std::get_if<std::string>(&it->second);
    return s ? *s : std::string();
}

/// A new activation variable named `base@nchw` (made unique) with the type of
/// `like` and its declared shape permuted by `perm` (kept as declared when its
/// rank is not the permutation's).
inline int permuted_var(graph::graph& g, int like, const std::vector<std::int64_t>& perm) {
    graph::var_node v;
    const auto& src = g.vars[like];
    v.name = graph::unique_name(g, src.name + "@nchw");
    v.type = src.type;
    v.lod_level = src.lod_level;
    v.shape = src.shape;
    if (src.shape.size() == perm.size())
        for (std::size_t i = 0; i < perm.size(); ++i)
            v.shape[i] = src.shape[static_cast<std::size_t>(perm[i])];
    return g.add_var(std::move(v));
}

inline graph::op_node transpose_op(int x, int out, const std::vector<std::int64_t>& perm) {
    graph::op_node t;
    t.type = std::string(ops::transpose2::paddle_types[0]);
    t.inputs.push_back({"X", {x}});
    t.outputs.push_back({"Out", {out}});
    // Paddle writes transpose2's axis as 32-bit ints.
    t.attrs.set("axis", std::vector<std::int32_t>(perm.begin(), perm.end()));
    return t;
}

}  // namespace detail

/// Rewrites every channels-last op of `layout_op_of` into its channels-first
/// form between transposes; returns how many.  An op whose input is declared
/// with another rank than its layout's is left for the op to refuse.
inline int nhwc_to_nchw(graph::graph& g) {
    std::vector<int> rewrite;
    for (int i = 0; i < static_cast<int>(g.ops.size()); ++i) {
        const auto& op = g.ops[i];
        const auto* l = layout_op_of(op.type);
        if (!l || detail::string_attr(op.attrs, l->attr) != l->channels_last) continue;
        const auto *xs_slot = op.input(l->in), *ys_slot = op.output(l->out);
        if (!xs_slot || !ys_slot || xs_slot->vars.size() != 1 || ys_slot->vars.size() != 1)
            continue;
        const int x = xs_slot->vars[0];
        const auto& xs = g.vars[x].shape;
        if ((!xs.empty() || l->declared_rank) && xs.size() != l->rank) continue;
        rewrite.push_back(i);
    }
    if (rewrite.empty()) return 0;
    std::vector<graph::op_node> ops;
    std::size_t next = 0;
    for (int i = 0; i < static_cast<int>(g.ops.size()); ++i) {
        if (next < rewrite.size() && rewrite[next] == i) {
            ++next;
            auto op = std::move(g.ops[i]);
            const auto* l = layout_op_of(op.type);
            const auto in = to_channels_first(l->rank), back = to_channels_last(l->rank);
            const int x = graph::input_var(op, l->in), y = graph::output_var(op, l->out);
            const int xt = detail::permuted_var(g, x, in);
            const int yt = detail::permuted_var(g, y, in);
            ops.push_back(detail::transpose_op(x, xt, in));
            graph::set_input(op, l->in, xt);
            graph::set_output(op, l->out, yt);
            op.attrs.set(l->attr, std::string(l->rank == 5 ? "NCDHW" : "NCHW"));
            ops.push_back(std::move(op));
            ops.push_back(detail::transpose_op(yt, y, back));
        } else {
            ops.push_back(std::move(g.ops[i]));
        }
    }
    g.ops = std::move(ops);
    g.relink();
    return static_cast<int>(rewrite.size());
}

}  // namespace litegraph::passes
