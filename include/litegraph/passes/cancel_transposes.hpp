// cancel_transposes: a transpose2 followed by its inverse computes its input;
// the pair goes and the readers of the second read the first's input.  Two
// transposes of one variable by the same permutation are one (the borders
// nhwc_to_nchw puts before each channels-last reader of a variable).  A
// transpose followed (through single readers) by layout-agnostic ops and
// then its inverse first moves past those ops, one at a time: past an
// element-wise activation (ops::activation_functors) or `scale` as it is, past
// an element-wise binary op whose Y is a 1-D parameter (a per-channel bias, a
// scalar) with Y's `axis` moved to the dim it now meets.  So the borders
// nhwc_to_nchw puts around each channels-last op vanish inside a
// channels-last region: conv NHWC -> relu -> conv NHWC -> pool NHWC keeps
// one transpose in and one out.  A transpose right after a conv2d (or a
// batch_norm) also moves
// past such ops when it meets no inverse (a region that ends in a squeeze or
// a reshape), so that the conv still fuses its bias and activation.  Other
// transposes that meet no inverse stay where they are; a pair whose second
// output is fetched stays (the fetch keeps its variable).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "litegraph/ops/activation.hpp"
#include "litegraph/ops/batch_norm.hpp"
#include "litegraph/ops/elementwise.hpp"
#include "litegraph/ops/scale.hpp"
#include "litegraph/ops/transpose2.hpp"
#include "litegraph/passes/pattern.hpp"

namespace litegraph::passes {

namespace detail {

/// The permutation of transpose op `op` (negative entries resolved), or empty
/// when `op` is no transpose or its axis is no permutation.
inline std::vector<std::int64_t> transpose_perm(const graph::op_node& op) {
    if (!op_declares<ops::transpose2>(op.type)) return {};
    auto it = op.attrs.all().find("axis");
    if (it == op.attrs.all().end()) return {};
    std::vector<std::int64_t> p;
    if (const auto* v32 = std::get_if<std::vector<std::int32_t>>(&it->second))
        p.assign(v32->begin(), v32->end());
    else if (const auto* v64 = std::get_if<std::vector<std::int64_t>>(&it->second))
        p = *v64;
    else
        return {};
    const auto n = static_cast<std::int64_t>(p.size());
    std::vector<bool> seen(p.size(), false);
    for (auto& a : p) {
        if (a < 0) a += n;
        if (a < 0 || a >= n || seen[static_cast<std::size_t>(a)]) return {};
        seen[static_cast<std::size_t>(a)] = true;
    }
    return p;
}

/// Whether transposing by `first` then by `second` gives the input back.
inline bool inverse_perms(const std::vector<std::int64_t>& first,
                          const std::vector<std::int64_t>& second) {
    if (first.empty() || first.size() != second.size()) return false;
    for (std::size_t i = 0; i < second.size(); ++i)
        if (first[static_cast<std::size_t>(second[i])] != static_cast<std::int64_t>(i))
            return false;
    return true;
}

/// Whether every output of `op` but slot `keep` is unread and not fetched
/// (transpose2's XShape).
inline bool others_unread(const graph::graph& g, const graph::op_node& op, std::string_view keep) {
    for (auto& s : op.outputs)
        if (s.name != keep)
            for (int v : s.vars)
                if (!g.vars[v].consumers.empty() || graph::is_fetched(g, v)) return false;
    return true;
}

/// Whether op `u`, reading `v` as X, computes element by element whatever
/// the layout of `v` (a transpose may move past it): an activation, `scale`
/// without ScaleTensor, an element-wise binary op with a 1-D parameter Y.
inline bool layout_agnostic(const graph::graph& g, const graph::op_node& u, int v) {
    if (graph::input_var(u, "X") != v || graph::output_var(u, "Out") < 0) return false;
    for (auto& s : u.inputs)
        if (s.name != "X" && s.name != "Y" && !s.vars.empty()) return false;
    if (!others_unread(g, u, "Out")) return false;
    if (ops::names_functor<ops::activation_functors>(u.type) || op_declares<ops::scale>(u.type))
        return u.input("Y") == nullptr;
    if (!op_declares<ops::elementwise>(u.type)) return false;
    const int y = graph::input_var(u, "Y");
    return y >= 0 && y != v && is_param(g, y) && g.vars[y].shape.size() == 1;
}

}  // namespace detail

/// Cancels inverse transpose pairs, moving transposes past layout-agnostic
/// ops towards their inverse; returns the number of rewrites (a pair removed
/// or a transpose moved one op).
inline int cancel_transposes(graph::graph& g) {
    return rewrite_until_fixed(g, [&](int t, std::vector<bool>& dead) {
        const auto perm = detail::transpose_perm(g.ops[t]);
        if (perm.empty() || !detail::others_unread(g, g.ops[t], "Out")) return false;
        const int a = graph::input_var(g.ops[t], "X"), b = graph::output_var(g.ops[t], "Out");
        if (a < 0 || b < 0) return false;
        // An earlier transpose of a by the same permutation (one variable read
        // by several channels-last ops gets a border each): t's readers read
        // its output instead.
        if (!graph::is_fetched(g, b))
            for (int t0 : g.vars[a].consumers)
                if (t0 < t && !dead[t0] && graph::input_var(g.ops[t0], "X") == a &&
                    detail::transpose_perm(g.ops[t0]) == perm) {
                    const int b0 = graph::output_var(g.ops[t0], "Out");
                    if (b0 < 0 || g.vars[b0].type != g.vars[b].type) continue;
                    graph::replace_uses(g, b, b0);
                    dead[t] = true;
                    return true;
                }
        // An inverse transpose reading b: its readers read a instead.
        for (int t2 : g.vars[b].consumers) {
            const auto& second = g.ops[t2];
            const int out2 = graph::output_var(second, "Out");
            if (out2 < 0 || graph::input_var(second, "X") != b || graph::is_fetched(g, out2) ||
                !detail::others_unread(g, second, "Out") ||
                !detail::inverse_perms(perm, detail::transpose_perm(second)) ||
                g.vars[out2].type != g.vars[a].type)
                continue;
            graph::replace_uses(g, out2, a);
            dead[t2] = true;
            if (graph::sole_consumer(g, b) == t2) dead[t] = true;
            return true;
        }
        // Walk single readers that are layout-agnostic to an inverse transpose.
        int cur = b;
        bool reaches = false;
        for (int steps = 0; steps < 64 && !reaches; ++steps) {
            const int c = graph::sole_consumer(g, cur);
            if (c < 0) break;
            if (graph::input_var(g.ops[c], "X") == cur &&
                detail::inverse_perms(perm, detail::transpose_perm(g.ops[c])))
                reaches = true;
            else if (detail::layout_agnostic(g, g.ops[c], cur))
                cur = graph::output_var(g.ops[c], "Out");
            else
                break;
        }
        // Out of a conv (or a batch norm, which folds into one), the
        // transpose also moves past the ops the conv can fuse (its
        // per-channel bias, its activation) on the way to no inverse.
        const int from = g.vars[a].producer;
        const bool after_conv = from >= 0 && (is_plain_conv(g.ops[from]) ||
                                              op_declares<ops::batch_norm>(g.ops[from].type));
        if (cur == b || !(reaches || after_conv)) return false;
        // t: a -> b, u: b -> c becomes u: a -> b, t: b -> c.
        const int u = graph::sole_consumer(g, b);
        const int c = graph::output_var(g.ops[u], "Out");
        auto& un = g.ops[u];
        if (op_declares<ops::elementwise>(un.type)) {
            const auto rank = static_cast<std::int64_t>(perm.size());
            auto axis = un.attrs.get<std::int64_t>("axis", -1);
            if (axis < 0) axis = rank - 1;
            if (axis >= rank) return false;
            un.attrs.set("axis", static_cast<std::int32_t>(perm[static_cast<std::size_t>(axis)]));
        }
        graph::set_input(un, "X", a);
        graph::set_output(un, "Out", b);
        graph::set_input(g.ops[t], "X", b);
        graph::set_output(g.ops[t], "Out", c);
        auto& bv = g.vars[b];
        bv.type = g.vars[c].type;
        bv.shape = g.vars[a].shape;
        // Keep program order: the moved op runs where the transpose ran.
        std::swap(g.ops[t], g.ops[u]);
        return true;
    });
}

}  // namespace litegraph::passes
