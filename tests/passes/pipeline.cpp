// The pipeline: an explicit ordered list, stop after a named pass, a callback
// after each pass, and a report of what fired.
#include "litegraph/passes/pipeline.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "litegraph/passes/dot_dump.hpp"

#include "passes/support_passes.hpp"

using namespace litegraph;

namespace passes_pipeline_test {

namespace {

// x -> conv -> add(bias) -> bn -> hard_swish -> h
// h -> pool -> conv -> add(bias) -> hard_sigmoid -> mul(h) -> se
// se -> conv -> bn -> add(se) -> y -> scale(1) -> out (fetched)
graph::graph block() {
    const std::int64_t c = 4;
    graph::graph g;
    graph::builder b(g);
    const shape_t full{-1, c, 6, 6}, dot{-1, c, 1, 1};
    b.declare("x", full);
    for (const char* n : {"c1", "a1", "n1", "h", "se", "c3", "n3", "y", "out"}) b.declare(n, full);
    for (const char* n : {"p", "c2", "a2", "g"}) b.declare(n, dot);
    auto param = [&](const std::string& n, shape_t s, std::uint32_t seed, float lo = -1.f) {
        test::param(b, n, test::random_tensor(s, seed, lo, 1.f));
    };
    param("w1", {c, c, 3, 3}, 1);
    param("b1", {c}, 2);
    param("w2", {c, c, 1, 1}, 3);
    param("b2", {c}, 4);
    param("w3", {c, c, 3, 3}, 5);
    for (const char* bn : {"bn1", "bn3"}) {
        param(std::string(bn) + ".s", {c}, 6, 0.5f);
        param(std::string(bn) + ".b", {c}, 7);
        param(std::string(bn) + ".m", {c}, 8);
        param(std::string(bn) + ".v", {c}, 9, 0.2f);
    }
    auto bn = [&](const std::string& x, const std::string& p, const std::string& y) {
        b.add_op("batch_norm",
                 {{"X", {x}},
                  {"Scale", {p + ".s"}},
                  {"Bias", {p + ".b"}},
                  {"Mean", {p + ".m"}},
                  {"Variance", {p + ".v"}}},
                 {{"Y", {y}}}, {});
    };
    attr_map axis1;
    axis1.set("axis", std::int32_t{1});
    b.feed("x", 0);
    b.add_op("conv2d", {{"Input", {"x"}}, {"Filter", {"w1"}}}, {{"Output", {"c1"}}},
             test::conv_attrs());
    b.add_op("elementwise_add", {{"X", {"c1"}}, {"Y", {"b1"}}}, {{"Out", {"a1"}}}, axis1);
    bn("a1", "bn1", "n1");
    b.add_op("hard_swish", {{"X", {"n1"}}}, {{"Out", {"h"}}}, {});
    attr_map pa;
    pa.set("pooling_type", std::string("avg"));
    pa.set("global_pooling", true);
    pa.set("ksize", std::vector<std::int32_t>{1, 1});
    b.add_op("pool2d", {{"X", {"h"}}}, {{"Out", {"p"}}}, pa);
    b.add_op("conv2d", {{"Input", {"p"}}, {"Filter", {"w2"}}}, {{"Output", {"c2"}}},
             test::conv_attrs(1, 0));
    b.add_op("elementwise_add", {{"X", {"c2"}}, {"Y", {"b2"}}}, {{"Out", {"a2"}}}, axis1);
    b.add_op("hard_sigmoid", {{"X", {"a2"}}}, {{"Out", {"g"}}}, {});
    b.add_op("elementwise_mul", {{"X", {"h"}}, {"Y", {"g"}}}, {{"Out", {"se"}}}, {});
    b.add_op("conv2d", {{"Input", {"se"}}, {"Filter", {"w3"}}}, {{"Output", {"c3"}}},
             test::conv_attrs());
    bn("c3", "bn3", "n3");
    b.add_op("elementwise_add", {{"X", {"n3"}}, {"Y", {"se"}}}, {{"Out", {"y"}}}, {});
    attr_map sa;
    sa.set("scale", 1.f);
    b.add_op("scale", {{"X", {"y"}}}, {{"Out", {"out"}}}, sa);
    b.fetch("out", 0);
    b.finish();
    return g;
}

}  // namespace

TEST_CASE("the pipeline is an explicit ordered list with descriptions") {
    std::vector<std::string> names;
    for (auto& p : passes::pass_list()) {
        names.emplace_back(p.name);
        CHECK(!p.description.empty());
        CHECK(bool(p.run));
    }
    CHECK(names == std::vector<std::string>{
                       "remove_identity", "cancel_transposes", "fold_quant_linear",
                       "fold_quant_dequant_split", "fold_weight_quant", "fuse_conv_bias",
                       "fold_batch_norm", "fuse_conv_activation", "fuse_gate", "fuse_residual_add",
                       "quantize_int8", "in_place", "flush_subnormals"});
}

TEST_CASE("every pass fires on a conv/bn/SE/residual block and the result computes the same") {
    auto g = block();
    auto before = g;
    std::vector<std::string> seen;
    passes::pipeline_options opt;
    opt.after_each = [&](const passes::pass_info& p, int n, const graph::graph& after) {
        seen.push_back(std::string(p.name) + ":" + std::to_string(n) + ":" +
                       std::to_string(after.ops.size()));
    };
    auto report = passes::run_passes(g, opt);
    MESSAGE(report.to_string());
    CHECK(report.count("remove_identity") == 1);  // the residual add writes the fetched var
    CHECK(report.count("fuse_conv_bias") == 2);
    CHECK(report.count("fold_batch_norm") == 2);
    CHECK(report.count("fuse_conv_activation") == 2);
    CHECK(report.count("fuse_gate") == 1);
    CHECK(report.count("fuse_residual_add") == 1);
    CHECK(report.count("in_place") == 1);  // the gate over h (h: pool first, then the gate)
    CHECK(seen.size() == 13);
    CHECK(seen.front() == "remove_identity:1:12");
    // conv1, pool, gate conv, conv3 (residual)
    CHECK(g.ops.size() == 4);
    CHECK(test::count_ops(g, "fused_conv2d") == 3);
    int gate = g.vars[g.find_var("se")].producer;
    CHECK(test::stages_of(g.ops[gate]) == test::conv_stages("hard_sigmoid", "mul_plane"));
    CHECK(g.ops[gate].attrs.get<std::string>("in_place", "") == "Other");
    int res = g.vars[g.find_var("out")].producer;
    CHECK(test::stages_of(g.ops[res]).back() == "add_with");
    // se is both the residual conv's Input and its Other: never in place.
    CHECK(g.ops[res].attrs.get<std::string>("in_place", "") == "");
    test::check_same_outputs(before, g, {{"x", test::random_tensor({2, 4, 6, 6}, 11)}});
    // A second run finds nothing left to do.
    auto again = passes::run_passes(g);
    for (const auto& count : again.counts) CHECK_MESSAGE(count.second == 0, count.first);
}

TEST_CASE("stop after a named pass, skip passes, and name the valid ones on a typo") {
    auto g = block();
    passes::pipeline_options stop;
    stop.stop_after = "fold_batch_norm";
    auto report = passes::run_passes(g, stop);
    REQUIRE(report.counts.size() == 7);
    CHECK(report.counts.back().first == "fold_batch_norm");
    CHECK(test::count_ops(g, "hard_swish") == 1);  // fuse_conv_activation did not run

    auto g2 = block();
    passes::pipeline_options skip;
    skip.skip = {"fold_batch_norm"};
    auto r2 = passes::run_passes(g2, skip);
    CHECK(r2.counts.size() == 12);
    CHECK(test::count_ops(g2, "batch_norm") == 2);

    auto g3 = block();
    std::string e;
    try {
        passes::pipeline_options typo;
        typo.stop_after = "fold_bn";
        passes::run_passes(g3, typo);
    } catch (const usage_error& err) {
        e = err.what();
    }
    CHECK(e.find("fold_bn") != std::string::npos);
    CHECK(e.find("fold_batch_norm") != std::string::npos);
    CHECK(e.find("in_place") != std::string::npos);
    CHECK(g3.ops.size() == block().ops.size());  // nothing ran
    passes::pipeline_options bad_skip;
    bad_skip.skip = {"nope"};
    CHECK_THROWS_AS(passes::run_passes(g3, bad_skip), usage_error);
}

TEST_CASE("one DOT file per pass, numbered in pipeline order") {
    auto dir = std::filesystem::path(LITEGRAPH_BINARY_DIR) / "test_passes_dots";
    std::filesystem::remove_all(dir);
    auto g = block();
    int called = 0;
    passes::pipeline_options opt;
    opt.stop_after = "fuse_gate";
    opt.after_each = [&](const passes::pass_info&, int, const graph::graph&) { ++called; };
    passes::run_passes_with_dots(g, dir, opt);
    CHECK(called == 9);
    for (const char* f :
         {"00_loaded.dot", "01_remove_identity.dot", "02_cancel_transposes.dot",
          "03_fold_quant_linear.dot", "04_fold_quant_dequant_split.dot", "05_fold_weight_quant.dot",
          "06_fuse_conv_bias.dot", "07_fold_batch_norm.dot", "08_fuse_conv_activation.dot",
          "09_fuse_gate.dot"})
        CHECK_MESSAGE(std::filesystem::exists(dir / f), f);
    CHECK_FALSE(std::filesystem::exists(dir / "10_fuse_residual_add.dot"));
    std::ifstream loaded(dir / "00_loaded.dot"), gated(dir / "09_fuse_gate.dot");
    std::stringstream a, b;
    a << loaded.rdbuf();
    b << gated.rdbuf();
    CHECK(a.str().find("batch_norm") != std::string::npos);
    CHECK(b.str().find("batch_norm") == std::string::npos);
    CHECK(b.str().find("fused_conv2d") != std::string::npos);
    std::filesystem::remove_all(dir);
}

}  // namespace passes_pipeline_test
