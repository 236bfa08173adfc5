// The pipeline on the shared real models: what fires, and the outputs before
// and after the passes agree to 1e-5 (relative) on their reference inputs.
#include <string>
#include <vector>

#include "litegraph/core/npy.hpp"
#include "litegraph/paddle.hpp"
#include "passes/support_passes.hpp"

using namespace litegraph;

namespace passes_models_test {

namespace {

struct run_t {
    passes::pass_report report;
    graph::graph after;
};

/// Runs the pipeline on `model` and checks the outputs on `inputs` against
/// the unpassed graph's; returns the report and the graph.
std::optional<run_t> check_model(const std::string& model, const test::feeds_t& inputs,
                                 double tolerance = 1e-5) {
    auto dir = test::shared_model(model);
    if (dir.empty()) return std::nullopt;
    INFO("model " << model);
    auto before = paddle::load(dir).graph;
    auto after = before;
    auto report = passes::run_passes(after);
    MESSAGE(model << ": " << report.to_string() << "; ops " << before.ops.size() << " -> "
                  << after.ops.size());
    test::check_same_outputs(before, after, inputs, tolerance);
    return run_t{std::move(report), std::move(after)};
}

test::feeds_t reference_input(const std::string& model, const std::string& feed,
                              const std::string& file) {
    auto dir = test::shared_model(model);
    if (dir.empty()) return {};
    return {{feed, load_npy(dir / "reference" / file)}};
}

}  // namespace

TEST_CASE("ppocr_mobile_v2.0_cls: every conv+bn folded, every SE gate fused, same outputs") {
    auto in = reference_input("ppocr_mobile_v2.0_cls", "x", "input_n2.npy");
    if (in.empty()) return;
    auto r = check_model("ppocr_mobile_v2.0_cls", in);
    REQUIRE(r);
    CHECK(r->report.count("fold_batch_norm") == 35);
    CHECK(r->report.count("fuse_gate") == 9);
    CHECK(test::count_ops(r->after, "batch_norm") == 0);
    CHECK(test::count_ops(r->after, "elementwise_mul") == 0);
    CHECK(test::count_ops(r->after, "hard_sigmoid") == 0);
    int mul_plane = 0;
    for (auto& op : r->after.ops)
        mul_plane += !test::stages_of(op).empty() && test::stages_of(op).back() == "mul_plane";
    CHECK(mul_plane == 9);
    // And still the ONNX Runtime reference.
    auto dir = test::shared_model("ppocr_mobile_v2.0_cls");
    auto got = test::run_graph(r->after, in);
    auto expect = load_npy(dir / "reference" / "output_n2.npy");
    CHECK(test::max_abs_diff(got[0].span<float>(), expect.span<float>()) <= 1e-4);
}

TEST_CASE("small conv models: same outputs after the passes") {
    if (auto r = check_model("lenet_mnist", reference_input("lenet_mnist", "x", "input_x.npy"))) {
        CHECK(r->report.count("fuse_conv_bias") >= 2);
        CHECK(test::count_ops(r->after, "conv2d") == 0);
    }
    if (auto r = check_model("dqn_atari_conv",
                             reference_input("dqn_atari_conv", "state", "input_state.npy"))) {
        CHECK(r->report.count("fuse_conv_activation") >= 3);
        CHECK(test::count_ops(r->after, "conv2d") == 0);
    }
    if (auto r = check_model(
            "paddlelite_simple_conv_bn_relu",
            reference_input("paddlelite_simple_conv_bn_relu", "image", "input_image.npy"))) {
        CHECK(r->report.count("fold_batch_norm") == 1);
        CHECK(r->report.count("fuse_conv_activation") == 1);
        REQUIRE(r->after.ops.size() == 1);
        CHECK(test::stages_of(r->after.ops[0]) == test::conv_stages("relu"));
    }
}

TEST_CASE("gcu_conv_bn and gcu_conv_bn_relu (batch 4, 224x224)") {
    for (std::string model : {"gcu_conv_bn", "gcu_conv_bn_relu"}) {
        if (test::shared_model(model).empty()) continue;
        auto r = check_model(model, {{"x", test::random_tensor({4, 3, 224, 224}, 1)}});
        REQUIRE(r);
        CHECK(r->report.count("fold_batch_norm") == 1);
        CHECK(r->report.count("remove_identity") == 1);  // the fetched scale(1)
        CHECK(r->after.ops.size() == 1);
    }
}

TEST_CASE("ppocr_v3_det at 1x3x64x64: same outputs after the passes") {
    auto r = check_model("ppocr_v3_det", {{"x", test::random_tensor({1, 3, 64, 64}, 2)}});
    if (!r) return;
    CHECK(r->report.count("fold_batch_norm") >= 40);
    CHECK(r->report.count("fuse_gate") == 8);
}

TEST_CASE("models the passes barely touch still compute the same") {
    check_model("mlp_mnist_handwriting",
                reference_input("mlp_mnist_handwriting", "image", "input_image.npy"));
    check_model("mlp_mnist_fluid2018",
                reference_input("mlp_mnist_fluid2018", "img", "input_img.npy"));
    check_model("serving_uci_housing_fit_a_line",
                reference_input("serving_uci_housing_fit_a_line", "x", "input_x.npy"));
    auto w2v = test::shared_model("word2vec_ngram");
    if (!w2v.empty()) {
        test::feeds_t in;
        for (const char* f : {"firstw", "secondw", "thirdw", "fourthw"})
            in.emplace_back(f, load_npy(w2v / "reference" / (std::string("input_") + f + ".npy")));
        check_model("word2vec_ngram", in);
    }
    // The fake-quantized classifier: filters come from quant ops, so no batch
    // norm folds, but activations and gates still fuse.
    auto quant_in = reference_input("ppocr_mobile_v2.0_cls", "x", "input_n1.npy");
    if (!quant_in.empty()) check_model("ppocr_mobile_v2.0_cls_slim_quant", quant_in);
}

}  // namespace passes_models_test
