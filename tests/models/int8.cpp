// int8 inference on the fake-quantized PP-OCR classifier: every conv and the
// fc run int8 kernels, the outputs agree with the float simulation of the same
// model (--precision fp32) to 0.01, and the class with the fp32 model's
// reference outputs (computed by ONNX Runtime).  PTQ of the fp32 model keeps
// the class, and mixed precision keeps the PIR text-line classifier's; the
// int8 SqueezeNets fit the STM32H730's two RAM segments.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>

#include "litegraph/core/npy.hpp"
#include "litegraph/generate/squeezenet.hpp"
#include "litegraph/paddle.hpp"
#include "litegraph/passes/pipeline.hpp"
#include "litegraph/planner/targets.hpp"
#include "litegraph/quantize/ptq.hpp"
#include "litegraph/runtime/program.hpp"
#include "litegraph/vision/ocr.hpp"
#include "passes/support_passes.hpp"
#include "support.hpp"

using namespace litegraph;

namespace models_int8_test {

namespace {

int count_type(const graph::graph& g, const std::string& type) {
    int n = 0;
    for (auto& op : g.ops) n += op.type == type;
    return n;
}

tensor run_model(graph::graph g, const tensor& input) {
    runtime::program p(std::move(g));
    p.set_input(0, input);
    p.run();
    return test::copy_output(p, 0);
}

int argmax_row(const tensor& t, std::int64_t row) {
    const auto cols = t.shape().back();
    const float* p = t.span<float>().data() + row * cols;
    int best = 0;
    for (int j = 1; j < cols; ++j)
        if (p[j] > p[best]) best = j;
    return best;
}

}  // namespace

TEST_CASE("ppocr_mobile_v2.0_cls_slim_quant runs its convs and fc in int8") {
    auto dir = test::shared_model("ppocr_mobile_v2.0_cls_slim_quant");
    auto ref = test::shared_model("ppocr_mobile_v2.0_cls");
    if (dir.empty() || ref.empty()) return;
    auto m = paddle::load(dir);
    const int convs = count_type(m.graph, "conv2d") + count_type(m.graph, "depthwise_conv2d");
    auto g8 = m.graph, g32 = m.graph;
    auto r8 = passes::run_passes(g8);
    passes::pipeline_options fp32;
    fp32.skip = {"quantize_int8"};
    passes::run_passes(g32, fp32);
    MESSAGE(r8.to_string());
    CHECK(count_type(g8, "fused_conv2d_int8") == convs);
    CHECK(count_type(g8, "mul_int8") == 1);
    CHECK(count_type(g8, "fused_conv2d") == 0);
    CHECK(count_type(g8, "matmul") == 0);
    CHECK(count_type(g8, "fake_quantize_dequantize_moving_average_abs_max") == 0);
    CHECK(count_type(g32, "fused_conv2d_int8") == 0);
    for (std::string n : {"n1", "n2"}) {
        INFO(n);
        auto x = load_npy(ref / "reference" / ("input_" + n + ".npy"));
        auto want = load_npy(ref / "reference" / ("output_" + n + ".npy"));
        auto y8 = run_model(g8, x), y32 = run_model(g32, x);
        REQUIRE(y8.shape() == y32.shape());
        const double d = test::max_abs_diff(y8.span<float>(), y32.span<float>());
        MESSAGE(n << ": int8 vs fp32 simulation max |diff| " << d);
        CHECK(d <= 0.01);
        for (std::int64_t r = 0; r < y8.shape()[0]; ++r)
            CHECK(argmax_row(y8, r) == argmax_row(want, r));
    }
}

TEST_CASE("PTQ of ppocr_mobile_v2.0_cls (random calibration) reloads, runs int8, keeps the class") {
    auto dir = test::shared_model("ppocr_mobile_v2.0_cls");
    if (dir.empty()) return;
    auto m = paddle::load(dir);
    std::vector<tensor> samples;
    for (std::uint32_t s = 0; s < 4; ++s)
        samples.push_back(test::random_tensor({1, 3, 32, 100}, s));
    auto r = ptq::quantize(m.graph, samples);
    CHECK(r.ops - r.pools == 54);  // convs and the fc; the pools of its SE blocks besides
    auto out = std::filesystem::temp_directory_path() / "litegraph_test_ptq_cls";
    std::filesystem::remove_all(out);
    paddle::save(m.graph, out, "model");
    auto back = paddle::load(out);
    CHECK(count_type(back.graph, "quantize_linear") == 108 + r.pools);
    auto g8 = back.graph;
    passes::run_passes(g8);
    CHECK(count_type(g8, "fused_conv2d_int8") == 53);
    CHECK(count_type(g8, "mul_int8") == 1);
    for (std::string n : {"n1", "n2"}) {
        INFO(n);
        auto x = load_npy(dir / "reference" / ("input_" + n + ".npy"));
        auto want = load_npy(dir / "reference" / ("output_" + n + ".npy"));
        auto y8 = run_model(g8, x);
        for (std::int64_t row = 0; row < y8.shape()[0]; ++row)
            CHECK(argmax_row(y8, row) == argmax_row(want, row));
    }
    std::filesystem::remove_all(out);
}

TEST_CASE("PTQ's mse range clips a long tail that minmax would span") {
    // |x| decaying exponentially (mean 2.4) with its largest at 500: a range
    // spanning the tail leaves the bulk on a few int8 steps (step 3.9).
    std::vector<double> h(2048);
    for (std::size_t b = 0; b < h.size(); ++b) h[b] = 1e6 * std::exp(-static_cast<double>(b) / 20);
    const float c = ptq::detail::mse_range(h, 500.f);
    CHECK(c > 20.f);
    CHECK(c < 100.f);
    // Uniform data: nothing to clip, the range stays at the top.
    std::vector<double> flat(2048, 1.0);
    CHECK(ptq::detail::mse_range(flat, 8.f) > 7.5f);
}

TEST_CASE("PTQ keeps the ops that lose the PIR text-line classifier in float (mixed precision)") {
    auto dir = test::shared_model("pp_lcnet_x0_25_textline_ori_pir");
    if (dir.empty()) return;
    const auto x = load_npy(dir / "reference" / "input_x.npy");
    const auto want = load_npy(dir / "reference" / "output_0.npy");
    auto m = paddle::load(dir);
    // Every op int8: the classes are lost (docs/paddle-pir.md).
    auto all = m.graph;
    ptq::options every;
    every.max_error = 0;
    auto ra = ptq::quantize(all, {x}, every);
    CHECK(ra.ops - ra.pools == 32);
    CHECK(ra.kept_float.empty());
    // The default: the error is measured, the sensitive ops stay float.
    auto g = m.graph;
    auto r = ptq::quantize(g, {x});
    INFO(r.error_all_int8);
    CHECK(r.candidates == 32 + ra.pools);
    CHECK(r.error_all_int8 > 0.05);
    CHECK(r.error <= 0.05);
    CHECK(r.ops + static_cast<int>(r.kept_float.size()) == r.candidates);
    CHECK(r.ops >= 24);
    auto g8 = g;
    passes::run_passes(g8);
    CHECK(count_type(g8, "fused_conv2d_int8") + count_type(g8, "matmul_v2_int8") +
              count_type(g8, "mul_int8") ==
          r.ops - r.pools);
    auto y8 = run_model(g8, x);
    for (std::int64_t row = 0; row < y8.shape()[0]; ++row)
        CHECK(argmax_row(y8, row) == argmax_row(want, row));
}

TEST_CASE("SqueezeNet 1.0 and 1.1 at 128x128x3 in int8 fit 128 KB DTCM + 436 KB SRAM, fused only") {
    const planner::segment two[] = {{"dtcm", 128 * 1024, 64}, {"sram", 436 * 1024, 64}};
    for (std::string v : {"1_0", "1_1"}) {
        INFO(v);
        generate::squeezenet_options o;
        o.version = v;
        o.input_size = 128;
        auto g = generate::squeezenet(o);
        std::vector<tensor> samples{test::random_tensor({1, 3, 128, 128}, 1)};
        ptq::quantize(g, samples);
        auto plan_of = [&](bool fused) {
            auto q = g;
            passes::pipeline_options opt;
            if (!fused)
                opt.skip = {"fuse_conv_bias", "fold_batch_norm",   "fuse_conv_activation",
                            "fuse_gate",      "fuse_residual_add", "in_place"};
            passes::run_passes(q, opt);
            CHECK(count_type(q, "fused_conv2d_int8") == 26);
            runtime::program p(std::move(q), {two[0], two[1]});
            p.set_input(0, tensor(dtype::f32, {1, 3, 128, 128}));
            p.prepare_plan();
            MESSAGE("squeezenet" << v << std::string(fused ? " fused" : " unfused") << ": LOAD "
                                 << p.memory().lower_bound_bytes << ", fits " << p.plan().fits);
            return p.plan();
        };
        auto fused = plan_of(true);
        CHECK(fused.fits);
        CHECK(fused.used[0] > 64 * 1024);  // the fast segment is used first
        CHECK(!plan_of(false).fits);
    }
}

TEST_CASE(
    "PTQ of the text recognizer keeps its squeeze-and-excite blocks int8: it fits the STM32H730") {
    // Every SE block (global average pool -> two 1x1 convs -> hard_sigmoid
    // -> times the block's input) runs int8 end to end: the pool reads int8
    // and writes the next conv's step, the gate reads the block's input as
    // int8 (mul_plane_int8).  Then no 288 x 2 x 80 float input stays live
    // and the recognizer at 1x3x32x320 plans into the chip's six regions.
    auto dir = test::shared_model("french_mobile_v2.0_rec");
    if (dir.empty()) return;
    const auto x = load_npy(dir / "reference" / "input_x.npy");  // [3, 3, 32, 320]
    REQUIRE(x.shape() == shape_t{3, 3, 32, 320});
    auto m = paddle::load(dir);
    // The SE blocks of the float graph: average pools whose input a mul reads.
    int se = 0;
    for (const auto& op : m.graph.ops) {
        if (op.type != "pool2d" || op.attrs.get<std::string>("pooling_type", "") != "avg") continue;
        for (int c : m.graph.vars[graph::input_var(op, "X")].consumers)
            se += m.graph.ops[c].type == "elementwise_mul";
    }
    REQUIRE(se >= 5);
    const std::int64_t per = x.numel() / 3;
    std::vector<tensor> samples;
    for (std::int64_t i = 0; i < 3; ++i) {
        auto v = x.span<float>().subspan(static_cast<std::size_t>(i * per),
                                         static_cast<std::size_t>(per));
        samples.push_back(
            tensor::from<float>({1, 3, 32, 320}, std::vector<float>(v.begin(), v.end())));
    }
    auto g = m.graph;
    ptq::options every;
    every.max_error = 0;
    auto r = ptq::quantize(g, samples, every);
    CHECK(r.pools == se + 1);  // and the max pool before the LSTM (read by squeeze2)
    auto g8 = g;
    passes::run_passes(g8);
    CHECK(count_type(g8, "pool2d") == 0);
    CHECK(count_type(g8, "pool2d_int8") == se + 1);
    CHECK(count_type(g8, "fake_quantize_dequantize_moving_average_abs_max") == 0);
    int int8_gates = 0;
    for (const auto& op : g8.ops)
        if (op.type == "fused_conv2d_int8") {
            auto st = fusion::stages_of(op.attrs);
            int8_gates += std::find(st.begin(), st.end(), "mul_plane_int8") != st.end();
        }
    CHECK(int8_gates == se);
    // The int8 model, every op int8 and calibrated on these three lines
    // only, reads them nearly as the float model does: at least two exactly,
    // none more than one class off (measured: "litegraph" gains an 'e').
    auto decode = [](const tensor& y) {
        std::vector<std::vector<int>> rows;
        const auto t = y.shape()[1], c = y.shape()[2];
        for (std::int64_t n = 0; n < y.shape()[0]; ++n)
            rows.push_back(ptq::detail::ctc_greedy(y.span<float>().data() + n * t * c, t, c));
        return rows;
    };
    auto want = decode(run_model(m.graph, x));
    auto got = decode(run_model(g8, x));
    REQUIRE(want.size() == 3);
    REQUIRE(got.size() == 3);
    int exact = 0;
    for (std::size_t i = 0; i < 3; ++i) {
        CHECK(want[i].size() > 3);
        CHECK(vision::ocr::edit_distance(got[i], want[i]) <= 1);
        exact += got[i] == want[i];
    }
    CHECK(exact >= 2);
    // One line at 32 x 320 in the STM32H730's activation regions.
    auto one = g8;
    runtime::program p(std::move(one), planner::activation_segments(planner::targets::stm32h730));
    p.set_input(0, tensor(dtype::f32, {1, 3, 32, 320}));
    p.prepare_plan();
    MESSAGE("recognizer int8 at 1x3x32x320: LOAD " << p.memory().lower_bound_bytes << ", fits "
                                                   << p.plan().fits);
    CHECK(p.plan().fits);
    CHECK(p.memory().lower_bound_bytes < 256 * 1024);
}

}  // namespace models_int8_test
