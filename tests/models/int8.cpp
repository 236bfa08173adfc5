// int8 inference on the fake-quantized PP-OCR classifier: every conv and the
// fc run int8 kernels, the outputs agree with the float simulation of the same
// model (--precision fp32) to 0.01, and the class with the fp32 model's
// reference outputs (computed by ONNX Runtime).
#include <cstring>
#include <string>

#include "litegraph/core/npy.hpp"
#include "litegraph/paddle.hpp"
#include "litegraph/passes/pipeline.hpp"
#include "litegraph/runtime/program.hpp"
#include "support.hpp"

using namespace litegraph;

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
    const auto& o = p.output(0);
    tensor t(o.type, o.shape);
    std::memcpy(t.data(), o.data, t.bytes());
    return t;
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
