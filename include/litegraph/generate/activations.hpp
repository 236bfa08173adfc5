// A small network that runs every activation litegraph has: for each
// activation a conv fuses (ops::fusable_activations), conv 3x3 -> bias add ->
// that activation, chained; then a sigmoid maps the chain's output into
// (0, 1), where every activation of ops::activation_functors is finite (log,
// sqrt, rsqrt included), each is applied to it alone, and the results are
// summed.  The list drives the network: a new activation is in it, fused or
// standalone, with no edit here (the firmware test runs it,
// tests/CMakeLists.txt's firmware/activations).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "litegraph/generate/squeezenet.hpp"
#include "litegraph/graph/graph.hpp"
#include "litegraph/ops/activation.hpp"

namespace litegraph::generate {

struct activations_options {
    int input_size = 12;  // H = W
    int channels = 8;     // of every conv
    std::uint64_t seed = 7;
};

/// The network above, input [-1, 3, input_size, input_size], one output.
inline graph::graph activations(const activations_options& opt) {
    if (opt.input_size < 3 || opt.input_size > 256)
        throw usage_error("the activations network's input size must be in [3, 256], got " +
                          std::to_string(opt.input_size));
    graph::graph g;
    graph::builder b(g);
    weight_stream w(opt.seed);
    int count = 0;
    auto tmp = [&](const std::string& stem) {
        const std::string name = stem + "_" + std::to_string(count++) + ".tmp_0";
        b.declare(name, {-1});
        return name;
    };
    auto param = [&](const std::string& name, shape_t shape, float scale) {
        graph::var_node v;
        v.name = name;
        v.shape = shape;
        v.persistable = true;
        tensor t(dtype::f32, shape);
        for (auto& x : t.span<float>()) x = scale * w.next();
        v.value = std::move(t);
        b.declare(std::move(v));
        return name;
    };
    auto unary = [&](std::string_view type, const std::string& x) {
        auto out = tmp(std::string(type));
        b.add_op(std::string(type), {{"X", {x}}}, {{"Out", {out}}}, {});
        return out;
    };

    b.declare("image", {-1, 3, opt.input_size, opt.input_size});
    b.feed("image", 0);
    std::string x = "image";
    int cin = 3;
    ops::any_functor(ops::fusable_activations{}, [&]<class F>() {
        const std::string stem = "conv_" + std::string(F::paddle_type);
        const int k = 3;
        auto filter = param(stem + ".w_0", {opt.channels, cin, k, k},
                            std::sqrt(6.f / static_cast<float>(cin * k * k)));
        auto bias = param(stem + ".b_0", {opt.channels}, 0.1f);
        auto conv = tmp(stem), add = tmp(stem + "_bias");
        attr_map a;
        a.set("strides", std::vector<std::int32_t>{1, 1});
        a.set("paddings", std::vector<std::int32_t>{1, 1});
        a.set("dilations", std::vector<std::int32_t>{1, 1});
        a.set("groups", std::int32_t{1});
        a.set("padding_algorithm", std::string("EXPLICIT"));
        a.set("data_format", std::string("NCHW"));
        b.add_op(op_type<ops::conv2d>(), {{"Input", {x}}, {"Filter", {filter}}},
                 {{"Output", {conv}}}, a);
        attr_map axis;
        axis.set("axis", std::int32_t{1});
        b.add_op(std::string(ops::elementwise::type_of(ops::elementwise::kind::add)),
                 {{"X", {conv}}, {"Y", {bias}}}, {{"Out", {add}}}, axis);
        x = unary(F::paddle_type, add);
        cin = opt.channels;
        return false;
    });
    const auto squashed = unary(ops::act::sigmoid::paddle_type, x);
    std::string sum;
    ops::any_functor(ops::activation_functors{}, [&]<class F>() {
        auto y = unary(F::paddle_type, squashed);
        if (sum.empty()) {
            sum = y;
        } else {
            auto next = tmp("running_sum");
            b.add_op(std::string(ops::elementwise::type_of(ops::elementwise::kind::add)),
                     {{"X", {sum}}, {"Y", {y}}}, {{"Out", {next}}}, {});
            sum = next;
        }
        return false;
    });
    b.fetch(sum, 0);
    b.finish();
    declare_shapes(g, opt.input_size);
    return g;
}

}  // namespace litegraph::generate
