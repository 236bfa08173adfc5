// input_int8: a quantized model takes its inputs already quantized, as a
// camera pipeline gives them (`--input-dtype int8`).  Each input that the
// model quantizes (every reader a quantize_int8 op, all with one step) becomes
// that int8 tensor under the input's name: the quantize op goes, and no float
// input buffer exists.  The caller feeds q = sat8(round(x / scale)), zero
// point 0 (the int8 path is symmetric, docs/int8.md).
#pragma once

#include <string>
#include <vector>

#include "litegraph/core/error.hpp"
#include "litegraph/graph/edit.hpp"
#include "litegraph/graph/graph.hpp"
#include "litegraph/ops/int8/quantize.hpp"

namespace litegraph::passes {

/// How an input is quantized: real value = scale * (q - zero_point).
struct input_quantization {
    std::string name;
    float scale = 1.f;
    int zero_point = 0;
};

/// Makes every input of `g` int8 (see above); throws usage_error naming an
/// input the model does not quantize.  Run after the pass pipeline.
inline std::vector<input_quantization> take_int8_inputs(graph::graph& g) {
    std::vector<input_quantization> r;
    std::vector<bool> dead(g.ops.size(), false);
    for (auto& f : g.feeds) {
        const int x = f.var;
        const auto name = g.vars[x].name;
        const auto& readers = g.vars[x].consumers;
        auto refuse = [&](const std::string& why) {
            return usage_error("--input-dtype int8: input '" + name + "' " + why +
                               " (only a quantized model's quantized inputs can be int8)");
        };
        if (g.vars[x].type != dtype::f32) throw refuse("is not float32");
        if (readers.empty() || graph::is_fetched(g, x)) throw refuse("is not read by an op");
        float step = 0.f;
        int q = -1;
        for (int c : readers) {
            const auto& op = g.ops[c];
            if (!op_declares<ops::quantize_int8>(op.type))
                throw refuse("is read by op " + g.op_label(c) + " (" + op.type +
                             "), not only by quantize_int8");
            const float s = ops::quantize_int8::parse(op.attrs, op.type).step;
            if (q >= 0 && s != step) throw refuse("is quantized with two different steps");
            const int out = graph::output_var(op, "Out");
            if (out < 0) throw refuse("is quantized into nothing");
            if (q < 0) {
                q = out;
                step = s;
            } else {
                graph::replace_uses(g, out, q);
            }
            dead[static_cast<std::size_t>(c)] = true;
        }
        g.vars[x].name = name + "@float";
        g.vars[q].name = name;
        g.vars[q].shape = g.vars[x].shape;
        g.vars[q].lod_level = g.vars[x].lod_level;
        f.var = q;
        r.push_back({name, step, 0});
    }
    graph::compact(g, dead);
    return r;
}

}  // namespace litegraph::passes
