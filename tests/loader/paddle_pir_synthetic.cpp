// PIR programs of ../shared/models_topology_only_pir that have no weights,
// run on synthetic ones: each parameter gets values of its declared shape
// (scaled by its fan-in; batch-norm statistics those of the input they see),
// the program runs unfused and fused, the two agree, and another input moves
// the output.  Real architectures beyond the one PIR
// model with weights: the translation of every op they use, their shapes and
// the passes on them.
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "litegraph/graph/edit.hpp"
#include "litegraph/paddle.hpp"
#include "litegraph/passes/pipeline.hpp"
#include "litegraph/runtime/program.hpp"
#include "support.hpp"

using namespace litegraph;

namespace loader_paddle_pir_synthetic_test {

namespace {

/// Sets each batch norm's mean and variance to the statistics of its input on
/// `x`, in program order (as training-mode batch norm would see them): random
/// weights alone let a deep network's signal die or explode.
void normalize_batch_norms(graph::graph& g, const tensor& x) {
    for (auto& op : g.ops) {
        if (op.type != "batch_norm") continue;
        const int in = graph::input_var(op, "X"), mean = graph::input_var(op, "Mean"),
                  var = graph::input_var(op, "Variance");
        if (in < 0 || mean < 0 || var < 0 || !g.vars[mean].value) continue;
        graph::graph probe = g;
        probe.fetches.push_back({in, 1000000});
        runtime::program p(std::move(probe));
        p.set_input(0, x);
        p.run();
        const auto& t = p.var(in);
        REQUIRE(t.shape.size() == 4);
        const auto n = t.shape[0], c = t.shape[1], hw = t.shape[2] * t.shape[3];
        auto m = g.vars[mean].value->span<float>(), v = g.vars[var].value->span<float>();
        REQUIRE(static_cast<std::int64_t>(m.size()) == c);
        for (std::int64_t k = 0; k < c; ++k) {
            double s = 0, ss = 0;
            for (std::int64_t b = 0; b < n; ++b)
                for (std::int64_t i = 0; i < hw; ++i) {
                    const double y = t.as<float>()[(b * c + k) * hw + i];
                    s += y, ss += y * y;
                }
            const double mu = s / double(n * hw);
            m[static_cast<std::size_t>(k)] = float(mu);
            v[static_cast<std::size_t>(k)] = float(std::max(ss / double(n * hw) - mu * mu, 1e-4));
        }
    }
}

}  // namespace

TEST_CASE("PIR programs without weights run on synthetic ones, fused as unfused") {
    struct program_case {
        const char* name;
        shape_t input;
    };
    // The PP-LCNet classifiers.  (The PP-OCRv5 detector's signal dies in its
    // PP-LCNetV3 backbone on random weights even so: its output would not
    // depend on the input, which proves nothing; the planning test covers it.)
    const program_case cases[] = {{"PP-LCNet_x1_0_doc_ori", {1, 3, 224, 224}},
                                  {"PP-LCNet_x1_0_textline_ori", {2, 3, 80, 160}}};
    for (const auto& c : cases) {
        auto dir = test::shared_model(c.name, "models_topology_only_pir");
        if (dir.empty()) return;
        INFO("program " << c.name);
        paddle::load_options o;
        o.require_params = false;
        auto m = paddle::load(dir, o);
        REQUIRE(m.graph.feeds.size() == 1);
        test::synthesize_weights(m.graph, 7);
        const auto x = test::random_tensor(c.input, 3);
        normalize_batch_norms(m.graph, x);
        auto run = [&](graph::graph g) {
            runtime::program p(std::move(g));
            p.set_input(0, x);
            p.run();
            const auto& out = p.output(0);
            return std::pair{out.shape,
                             std::vector<float>(out.as<float>(), out.as<float>() + out.numel())};
        };
        auto fused = m.graph;
        const auto report = passes::run_passes(fused);
        CHECK(report.count("fold_batch_norm") > 0);
        CHECK(report.count("fuse_conv_activation") > 0);
        const auto [shape, plain] = run(m.graph);
        const auto [fshape, fast] = run(std::move(fused));
        CHECK(shape == fshape);
        CHECK(shape[0] == c.input[0]);
        double peak = 0, diff = 0;
        for (std::size_t i = 0; i < plain.size(); ++i) {
            REQUIRE(std::isfinite(plain[i]));
            peak = std::max(peak, double(std::abs(plain[i])));
            diff = std::max(diff, double(std::abs(plain[i] - fast[i])));
        }
        MESSAGE(c.name << ": " << report.to_string() << "; output " << to_string(shape)
                       << ", max |fused - unfused| " << diff << " of max |y| " << peak);
        CHECK(peak > 0);
        // The synthetic network is alive: another input moves the output.
        auto other = m.graph;
        runtime::program q(std::move(other));
        q.set_input(0, test::random_tensor(c.input, 4));
        q.run();
        double moved = 0;
        for (std::size_t i = 0; i < plain.size(); ++i)
            moved = std::max(moved, double(std::abs(q.output(0).as<float>()[i] - plain[i])));
        MESSAGE("another input moves the output by " << moved);
        CHECK(moved > 1e-4 * peak);
        CHECK(diff <= 1e-4 * std::max(1.0, peak));
    }
}

}  // namespace loader_paddle_pir_synthetic_test
