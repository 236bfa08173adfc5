// fuse_residual_add: a conv with no activation (fused_conv2d whose only stage
// is its bias, or a plain conv) -> elementwise_add(conv output, other) where
// `other` is an activation (not a parameter) of the same declared shape
// becomes a fused_conv2d with stages ["bias", "add_with"] reading
// `other` in slot Other and writing the add's Out — only when the kernel list
// has that combination.
#pragma once

#include <string>
#include <vector>

#include "litegraph/ops/elementwise.hpp"
#include "litegraph/passes/pattern.hpp"

namespace litegraph::passes {

/// Fuses every conv -> residual add pair; returns how many.
inline int fuse_residual_add(graph::graph& g) {
    using residual = fusion::stage_set<fusion::bias, fusion::add_with>;
    constexpr auto names = residual::names();
    if (!fused_conv_exists({names.begin(), names.end()})) return 0;
    return rewrite_until_fixed(g, [&](int op, std::vector<bool>& dead) {
        const auto& conv = g.ops[op];
        if (!is_open_conv(conv)) return false;
        const int out = conv_output(conv);
        if (out < 0) return false;
        const int add_op = graph::sole_consumer(g, out);
        if (add_op < 0) return false;
        const auto& add = g.ops[add_op];
        if (add.type != ops::elementwise::type_of(ops::elementwise::kind::add)) return false;
        if (!add.attrs.get<std::string>("act_type", "").empty() ||
            !add.attrs.get<std::string>("fuse_activation", "").empty())
            return false;
        const int x = graph::input_var(add, "X"), y = graph::input_var(add, "Y");
        const int sum = graph::output_var(add, "Out");
        if (x < 0 || y < 0 || sum < 0 || x == y || (x != out && y != out)) return false;
        const int other = x == out ? y : x;
        if (is_param(g, other) || g.vars[other].type != dtype::f32) return false;
        const auto& s = g.vars[out].shape;
        if (s.size() != 4 || s[1] <= 0 || !same_declared_shape(s, g.vars[other].shape))
            return false;
        if (!ensure_fused_conv(g, op)) return false;
        auto& fused = g.ops[op];
        fusion::append_stage<fusion::add_with>(fused.attrs);
        graph::set_input(fused, "Other", other);
        graph::set_output(fused, "Output", sum);
        dead[add_op] = true;
        return true;
    });
}

}  // namespace litegraph::passes
