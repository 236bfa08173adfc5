// remove_identity: ops that compute their input unchanged at inference —
// scale with scale 1 and bias 0, dropout as "upscale_in_train" or
// "downgrade_in_infer" with dropout_prob 0 — are dropped and their consumers
// read the input directly.  An op whose output is fetched is kept (the fetch
// names that variable).
#pragma once

#include <string>

#include "litegraph/passes/pattern.hpp"

namespace litegraph::passes {

/// Whether `op` is the identity at inference.
inline bool is_identity_op(const graph::op_node& op) {
    if (op.type == "scale") {
        if (op.input("ScaleTensor") && !op.input("ScaleTensor")->vars.empty()) return false;
        return op.attrs.get<float>("scale", 1.f) == 1.f && op.attrs.get<float>("bias", 0.f) == 0.f;
    }
    if (op.type == "dropout") {
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
        if (x < 0 || out < 0 || graph::is_fetched(g, out)) return false;
        if (g.vars[x].type != g.vars[out].type) return false;
        // Other outputs (dropout's Mask) must be unread.
        for (auto& s : node.outputs)
            for (int v : s.vars)
                if (v != out && (!g.vars[v].consumers.empty() || graph::is_fetched(g, v)))
                    return false;
        graph::replace_uses(g, out, x);
        dead[op] = true;
        return true;
    });
}

}  // namespace litegraph::passes
