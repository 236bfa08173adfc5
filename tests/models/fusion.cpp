// What fusion must achieve on real models: the patterns fused (as `passes`
// counts show) and the activation memory it saves — the largest total of
// bytes live at one step of the graph that runs, fused / unfused.
#include <string>

#include "litegraph/generate/squeezenet.hpp"
#include "litegraph/paddle.hpp"
#include "litegraph/passes/pipeline.hpp"
#include "litegraph/runtime/program.hpp"
#include "support.hpp"

using namespace litegraph;

namespace models_fusion_test {

namespace {

/// LOAD of `g` (fused or not) planned for `input` (every feed but the first keeps
/// its declared shape with -1 as 1).
std::size_t load_of(graph::graph g, const shape_t& input) {
    runtime::program p(std::move(g));
    for (std::size_t i = 0; i < p.input_count(); ++i) {
        auto shape = i == 0 && !input.empty() ? input : p.input_var(i).shape;
        for (auto& d : shape)
            if (d < 0) d = 1;
        p.set_input(i, tensor(p.input_var(i).type, shape));
    }
    p.prepare_plan();
    return p.memory().lower_bound_bytes;
}

double ratio(const std::string& model, const shape_t& input,
             passes::pass_report* report = nullptr) {
    auto dir = test::shared_model(model);
    if (dir.empty()) return 0;
    auto m = paddle::load(dir);
    auto unfused = load_of(m.graph, input);
    auto r = passes::run_passes(m.graph);
    if (report) *report = r;
    auto fused = load_of(std::move(m.graph), input);
    double q = double(fused) / double(unfused);
    MESSAGE(model << " " << to_string(input) << ": LOAD fused " << fused << " / unfused " << unfused
                  << " = " << q << " (" << r.to_string() << ")");
    return q;
}

}  // namespace

TEST_CASE("ppocr_mobile_v2.0_cls: every conv+bn and SE gate fused; LOAD ratio <= 0.75") {
    passes::pass_report r;
    double q = ratio("ppocr_mobile_v2.0_cls", {1, 3, 48, 192}, &r);
    if (q == 0) return;
    CHECK(r.count("fold_batch_norm") == 35);
    CHECK(r.count("fuse_gate") == 9);
    CHECK(q <= 0.75);
    // Every conv ends up fused with its activation where one follows.
    auto m = paddle::load(test::shared_model("ppocr_mobile_v2.0_cls"));
    passes::run_passes(m.graph);
    int convs = 0, plain_acts = 0;
    for (auto& op : m.graph.ops) {
        convs += op.type == "conv2d" || op.type == "depthwise_conv2d";
        for (const char* a : {"relu", "hard_swish", "hard_sigmoid"}) plain_acts += op.type == a;
    }
    CHECK(convs == 0);       // every conv became a fused_conv2d
    CHECK(plain_acts == 0);  // and every activation after one went into it
}

TEST_CASE("fusion lowers LOAD on the real models to the bars") {
    double q = ratio("ppocr_v3_det", {1, 3, 640, 640});
    if (q) CHECK(q <= 0.72);
    q = ratio("paddlelite_simple_conv_bn_relu", {});
    if (q) CHECK(q <= 0.70);
    q = ratio("lenet_mnist", {});
    if (q) CHECK(q <= 0.65);
    q = ratio("dqn_atari_conv", {});
    if (q) CHECK(q <= 0.65);
}

TEST_CASE("mobilenet_v1 (topology only): fused LOAD is 112x112x96 floats and the plan equals it") {
    auto dir = test::shared_model("mobilenet_v1_fp32_224", "models_topology_only");
    if (dir.empty()) return;
    auto m = paddle::load(dir, {.require_params = false});
    auto r = passes::run_passes(m.graph);
    CHECK(r.count("fold_batch_norm") == 27);
    runtime::program p(std::move(m.graph));
    p.set_input(0, tensor(dtype::f32, {1, 3, 224, 224}));
    p.prepare_plan();
    CHECK(p.memory().lower_bound_bytes == 4816896);
    CHECK(p.plan().total() == 4816896);
}

TEST_CASE("SqueezeNet fire modules: the expands write into the concat, which allocates nothing") {
    for (const char* v : {"1_0", "1_1"}) {
        auto g = generate::squeezenet({.version = v, .input_size = 128});
        passes::run_passes(g);
        runtime::program p(std::move(g));
        p.set_input(0, tensor(dtype::f32, {1, 3, 128, 128}));
        p.prepare_plan();
        int concats = 0, elided = 0;
        for (auto& ins : p.instructions()) {
            if (ins.io.type != "concat") continue;
            ++concats;
            elided += ins.elided;
            // The concat's output shares one buffer with both its inputs.
            const auto& vb = p.var_buffers();
            const auto& node = p.graph().ops[ins.op];
            int out = node.outputs.front().vars.front();
            for (int in : node.input("X")->vars) CHECK(vb[in].first == vb[out].first);
        }
        CHECK(concats == 8);
        CHECK(elided == concats);
    }
}

}  // namespace models_fusion_test
