// A consumer of an installed litegraph (or of single_include/litegraph.hpp):
// builds y = 2 * x + 0.5 with graph::builder and one `scale` op, runs it with
// runtime::program for two batch sizes and checks every number.  Exits
// non-zero on any mismatch or error.
#include <litegraph.hpp>

#ifdef GOOGLE_PROTOBUF_VERSION
#error "<litegraph.hpp> must never include protobuf"
#endif

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <utility>

namespace {

litegraph::graph::graph scale_graph() {
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

int check() {
    using namespace litegraph;
    runtime::program p(scale_graph());
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

}  // namespace

int main() {
    try {
        if (int failures = check(); failures != 0) {
            std::fprintf(stderr, "FAILED: %d wrong values\n", failures);
            return 1;
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "FAILED: %s\n", e.what());
        return 1;
    }
    std::puts("litegraph consumer: ok");
    return 0;
}
