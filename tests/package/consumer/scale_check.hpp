// Shared by the consumers: y = 2 * x + 0.5 as a graph with one `scale` op,
// and a check that runs a program for two batch sizes and compares every
// number with a plain computation.  Include after <litegraph.hpp> (or a
// single header).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <utility>

namespace consumer {

inline litegraph::graph::graph scale_graph() {
    using namespace litegraph;
    graph::graph g;
    graph::builder b(g);
    b.declare("x", {-1, 3});
    b.declare("y", {-1, 3});
    attr_map attrs;
    attrs.set("scale", 2.f);
    attrs.set("bias", 0.5f);
    attrs.set("bias_after_scale", true);
    b.feed("x", 0);
    b.add_op("scale", {{"X", {"x"}}}, {{"Out", {"y"}}}, std::move(attrs));
    b.fetch("y", 0);
    b.finish();
    return g;
}

/// Number of wrong values (a wrong shape counts as one).
inline int check_program(litegraph::runtime::program& p) {
    using namespace litegraph;
    int failures = 0;
    for (std::int64_t batch : {1, 4}) {
        tensor x(dtype::f32, {batch, 3});
        auto xs = x.span<float>();
        for (std::size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<float>(i) - 2.5f;
        p.set_input("x", std::move(x));
        p.run();
        const auto& y = p.output(0);
        if (y.shape != shape_t{batch, 3}) {
            std::fprintf(stderr, "batch %lld: wrong output shape\n", static_cast<long long>(batch));
            ++failures;
            continue;
        }
        auto ys = y.span<float>();
        for (std::size_t i = 0; i < ys.size(); ++i) {
            const float expect = 2.f * (static_cast<float>(i) - 2.5f) + 0.5f;
            if (std::abs(ys[i] - expect) > 1e-6f) {
                std::fprintf(stderr, "batch %lld: y[%zu] = %g, expected %g\n",
                             static_cast<long long>(batch), i, ys[i], expect);
                ++failures;
            }
        }
    }
    return failures;
}

}  // namespace consumer
