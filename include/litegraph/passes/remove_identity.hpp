// remove_identity: ops that compute their input unchanged at inference —
// scale with scale 1 and bias 0, dropout as "upscale_in_train" or
// "downgrade_in_infer" with dropout_prob 0 — are dropped and their consumers
// read the input directly.  When the output is fetched (the fetch names that
// variable), the input's producer writes it instead, provided the input is
// read by the identity op only; otherwise (a feed, a parameter, another
// reader) the op is kept.
#pragma once

#include <string>

#include "litegraph/ops/dropout.hpp"
#include "litegraph/ops/scale.hpp"
#include "litegraph/passes/pattern.hpp"

namespace litegraph::passes {

/// Whether `op` is the identity at inference.
inline bool is_identity_op(const graph::op_node& op) {
    if (op_declares<ops::scale>(op.type)) {
        if (op.input("ScaleTensor") && !op.input("ScaleTensor")->vars.empty()) return false;
        return op.attrs.get<float>("scale", 1.f) == 1.f && op.attrs.get<float>("bias", 0.f) == 0.f;
    }
    if (op_declares<ops::dropout>(op.type)) {
        auto impl = op.attrs.get<std::string>("dropout_implementation", "downgrade_in_infer");
        if (impl == "upscale_in_train") return true;
        return impl == "downgrade_in_infer" && op.attrs.get<float>("dropout_prob", 0.5f) == 0.f;
    }
    return false;
}

/// Drops identity ops; returns how many.
inline int remove_identity(graph::graph& g) {
    return rewrite_until_fixed(g, [&](int op, std::vector<bool>& dead) {
        const auto& node = g.ops[op];
        if (!is_identity_op(node)) return false;
        int x = graph::input_var(node, "X"), out = graph::output_var(node, "Out");
        if (x < 0 || out < 0) return false;
        if (g.vars[x].type != g.vars[out].type) return false;
        const bool fetched = graph::is_fetched(g, out);
        const int producer = g.vars[x].producer;
        if (fetched &&
            (producer < 0 || graph::sole_consumer(g, x) != op || is_feed(g, x) || is_param(g, x)))
            return false;
        // Other outputs (dropout's Mask) must be unread.
        for (auto& s : node.outputs)
            for (int v : s.vars)
                if (v != out && (!g.vars[v].consumers.empty() || graph::is_fetched(g, v)))
                    return false;
        if (fetched) {
            for (auto& sl : g.ops[producer].outputs)
                for (auto& v : sl.vars)
                    if (v == x) v = out;
        } else {
            graph::replace_uses(g, out, x);
        }
        dead[op] = true;
        return true;
    });
}

}  // namespace litegraph::passes
