// Helpers for pass tests: small graphs with parameters, and running a graph
// before and after a pass through the runtime to compare outputs.
#pragma once

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "litegraph/graph/graph.hpp"
#include "litegraph/passes/pipeline.hpp"
#include "litegraph/runtime/program.hpp"
#include "support.hpp"

namespace litegraph::test {

/// Declares a parameter `name` holding `value`.
inline void param(graph::builder& b, const std::string& name, tensor value) {
    graph::var_node v;
    v.name = name;
    v.type = value.type();
    v.shape = value.shape();
    v.persistable = true;
    v.value = std::move(value);
    b.declare(std::move(v));
}

inline attr_map conv_attrs(int stride = 1, int pad = 1, int groups = 1) {
    attr_map a;
    a.set("strides", std::vector<std::int32_t>{stride, stride});
    a.set("paddings", std::vector<std::int32_t>{pad, pad});
    a.set("dilations", std::vector<std::int32_t>{1, 1});
    a.set("groups", std::int32_t{groups});
    a.set("data_format", std::string("NCHW"));
    return a;
}

using feeds_t = std::vector<std::pair<std::string, tensor>>;

/// A copy of output `i` of `p` after a run.
inline tensor copy_output(const runtime::program& p, std::size_t i) {
    const auto& r = p.output(i);
    tensor t(r.type, r.shape);
    if (t.bytes()) std::memcpy(t.data(), r.data, t.bytes());
    return t;
}

/// Copies of every output of `p` after a run.
inline std::vector<tensor> copy_outputs(const runtime::program& p) {
    std::vector<tensor> out;
    for (std::size_t i = 0; i < p.output_count(); ++i) out.push_back(copy_output(p, i));
    return out;
}

/// Every output of `g` run on `inputs`, copied out.
inline std::vector<tensor> run_graph(const graph::graph& g, const feeds_t& inputs) {
    runtime::program p(g);
    for (auto& [name, t] : inputs) p.set_input(name, t);
    p.run();
    return copy_outputs(p);
}

/// Checks that `after` computes what `before` does, to 1e-5 relative.
inline void check_same_outputs(const graph::graph& before, const graph::graph& after,
                               const feeds_t& inputs, double tolerance = 1e-5) {
    auto a = run_graph(before, inputs);
    auto b = run_graph(after, inputs);
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        INFO("output " << i);
        CHECK(b[i].shape() == a[i].shape());
        REQUIRE(b[i].numel() == a[i].numel());
        double d = max_rel_diff(b[i].span<float>(), a[i].span<float>());
        CHECK(d < tolerance);
    }
}

/// Checks that `after` computes what `before` does bit for bit (a pass that
/// only moves where a value is computed, not how).
inline void check_identical_outputs(const graph::graph& before, const graph::graph& after,
                                    const feeds_t& inputs) {
    auto a = run_graph(before, inputs);
    auto b = run_graph(after, inputs);
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        INFO("output " << i);
        CHECK(b[i].type() == a[i].type());
        CHECK(b[i].shape() == a[i].shape());
        REQUIRE(b[i].bytes() == a[i].bytes());
        CHECK(std::memcmp(b[i].data(), a[i].data(), a[i].bytes()) == 0);
    }
}

/// Number of ops of `type`.
inline int count_ops(const graph::graph& g, std::string_view type) {
    int n = 0;
    for (auto& op : g.ops) n += op.type == type;
    return n;
}

/// The index of the only op of `type` (fails the test when there is not exactly one).
inline int only_op(const graph::graph& g, std::string_view type) {
    int found = -1;
    for (int i = 0; i < static_cast<int>(g.ops.size()); ++i)
        if (g.ops[i].type == type) {
            REQUIRE(found < 0);
            found = i;
        }
    REQUIRE(found >= 0);
    return found;
}

/// The name of the variable in slot `s` of `op`.
inline std::string in_name(const graph::graph& g, int op, std::string_view s) {
    int v = graph::input_var(g.ops[op], s);
    return v < 0 ? std::string() : g.vars[v].name;
}
inline std::string out_name(const graph::graph& g, int op, std::string_view s) {
    int v = graph::output_var(g.ops[op], s);
    return v < 0 ? std::string() : g.vars[v].name;
}

}  // namespace litegraph::test
