// fuse_conv_bias: conv -> elementwise_add(X = conv output, Y = a parameter of
// one value per output channel, broadcast along the channels: Y [OC] with
// axis 1, or Y [1, OC, 1, 1]) becomes a fused_conv2d whose Bias is the sum of
// its own bias (if any) and Y.  The fused conv writes the add's Out.
#pragma once

#include <string>
#include <vector>

#include "litegraph/ops/elementwise.hpp"
#include "litegraph/passes/pattern.hpp"

namespace litegraph::passes {

/// Whether `y` (declared shape) added to a rank-4 NCHW conv output with
/// `axis` is a per-channel bias of `oc` channels.
inline bool is_channel_bias(const shape_t& y, int axis, std::int64_t oc) {
    if (y.size() == 1) return y[0] == oc && axis == 1;
    if (y.size() == 4) return y[0] == 1 && y[1] == oc && y[2] == 1 && y[3] == 1;
    return false;
}

/// Merges every conv -> elementwise_add(bias) pair; returns how many.
inline int fuse_conv_bias(graph::graph& g) {
    return rewrite_until_fixed(g, [&](int op, std::vector<bool>& dead) {
        const auto& conv = g.ops[op];
        if (!is_open_conv(conv)) return false;
        const int out = conv_output(conv);
        if (out < 0) return false;
        const int add_op = graph::sole_consumer(g, out);
        if (add_op < 0) return false;
        const auto& add = g.ops[add_op];
        if (add.type != ops::elementwise::type_of(ops::elementwise::kind::add) ||
            graph::input_var(add, "X") != out)
            return false;
        if (!add.attrs.get<std::string>("act_type", "").empty() ||
            !add.attrs.get<std::string>("fuse_activation", "").empty())
            return false;
        const int y = graph::input_var(add, "Y"), sum = graph::output_var(add, "Out");
        if (y < 0 || sum < 0 || y == out || !has_f32_value(g, y)) return false;
        const std::int64_t oc = conv_out_channels(g, conv);
        if (oc < 0) return false;
        const auto& yv = *g.vars[y].value;
        if (!is_channel_bias(yv.shape(), add.attrs.get<int>("axis", -1), oc)) return false;
        auto bias = conv_bias_values(g, conv, oc);
        if (static_cast<std::int64_t>(bias.size()) != oc) return false;
        auto ys = yv.span<float>();
        for (std::int64_t c = 0; c < oc; ++c)
            bias[static_cast<std::size_t>(c)] += ys[static_cast<std::size_t>(c)];
        make_fused_conv(g, op, bias);
        graph::set_output(g.ops[op], "Output", sum);
        dead[add_op] = true;
        return true;
    });
}

}  // namespace litegraph::passes
