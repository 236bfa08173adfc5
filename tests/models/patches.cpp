// Patched first stages on real networks (runtime/patches.hpp, docs/patches.md):
// SqueezeNet 1.0 and 1.1 int8 at 128x128 with the input already quantized
// (--input-dtype int8) and the patches chosen automatically are bit-exact with
// the untiled float-input run and lower the peak; the PP-OCR classifier and
// detector in fp32 stay within 1e-6 of unpatched.
#include <cstring>
#include <string>
#include <vector>

#include "litegraph/core/npy.hpp"
#include "litegraph/generate/squeezenet.hpp"
#include "litegraph/kernels/elementwise.hpp"
#include "litegraph/paddle.hpp"
#include "litegraph/planner/validate.hpp"
#include "litegraph/quantize/ptq.hpp"
#include "passes/support_passes.hpp"
#include "support.hpp"

using namespace litegraph;

namespace models_patches_test {

namespace {

/// A program over `g` prepared with `o` (passes, int8 input, patches), as a
/// session builds it.
runtime::program build(graph::graph g, const session_options& o,
                       std::optional<runtime::patch_choice>* choice = nullptr,
                       std::vector<passes::input_quantization>* inputs = nullptr) {
    auto prepared = prepare(g, o);
    if (inputs) *inputs = prepared.inputs;
    auto c = apply_patches(g, o);
    if (choice) *choice = c;
    return runtime::program(std::move(g), o.segments, instance_factory_for(o));
}

tensor output_of(runtime::program& p, const tensor& x) {
    p.set_input(0, x);
    p.run();
    return test::copy_output(p, 0);
}

}  // namespace

TEST_CASE("SqueezeNet int8 at 128, input int8, patches auto: bit-exact, peak below untiled LOAD") {
    for (std::string v : {"1_1", "1_0"}) {
        INFO(v);
        generate::squeezenet_options so;
        so.version = v;
        so.input_size = 128;
        auto g = generate::squeezenet(so);
        std::vector<tensor> samples;
        for (std::uint32_t i = 0; i < 4; ++i)
            samples.push_back(test::random_tensor({1, 3, 128, 128}, 10 + i));
        ptq::quantize(g, samples);
        const auto x = test::random_tensor({1, 3, 128, 128}, 99, -2.f, 2.f);

        runtime::program plain = build(g, {});
        const auto want = output_of(plain, x);
        const auto untiled_load = plain.memory().lower_bound_bytes;

        session_options o;
        o.input_int8 = true;
        o.patches = runtime::patch_request{};
        o.patches->shapes["image"] = {1, 3, 128, 128};
        std::optional<runtime::patch_choice> choice;
        std::vector<passes::input_quantization> inputs;
        runtime::program tiled = build(g, o, &choice, &inputs);
        REQUIRE(choice);
        REQUIRE(inputs.size() == 1);
        CHECK(inputs[0].zero_point == 0);
        // The caller quantizes, as quantize_int8 would have.
        tensor q(dtype::i8, {1, 3, 128, 128});
        kernels::quantize_int8(inputs[0].scale, x.span<float>().data(),
                               q.span<std::int8_t>().data(), q.numel());
        const auto got = output_of(tiled, q);
        REQUIRE(got.bytes() == want.bytes());
        CHECK(std::memcmp(got.data(), want.data(), got.bytes()) == 0);
        auto check = planner::validate(tiled.buffers(), tiled.segments(), tiled.plan());
        CHECK_MESSAGE(check.ok, check.what);
        const auto peak = tiled.plan().total();
        CHECK(choice->mac_overhead <= 1.3);
        CHECK(2 * peak <= untiled_load);  // the goal of issue 23
        MESSAGE("squeezenet" << v << " int8: untiled LOAD " << untiled_load << " (float input), "
                             << choice->untiled_load_bytes << " (int8 input); patched "
                             << choice->rows_cols() << " over " << choice->first_op << " .. "
                             << choice->last_op << ": peak " << peak << " ("
                             << double(peak) / double(untiled_load) << "x), MACs x"
                             << choice->mac_overhead);
    }
}

TEST_CASE("PP-OCR classifier and detector fp32: patched within 1e-6 of unpatched") {
    struct model {
        const char* name;
        const char* input;
        shape_t shape;
        const char* split;  // a stage of several convs (auto keeps the first)
    };
    for (const auto& m :
         {model{"ppocr_mobile_v2.0_cls", "reference/input_n1.npy", {}, "relu_1.tmp_0"},
          model{"ppocr_v3_det", "", {1, 3, 160, 160}, "elementwise_add_1"}}) {
        INFO(m.name);
        auto dir = test::shared_model(m.name);
        if (dir.empty()) continue;
        const auto x = *m.input ? load_npy(dir / m.input) : test::random_tensor(m.shape, 5);
        auto loaded = paddle::load(dir);
        runtime::program plain = build(loaded.graph, {});
        const auto want = output_of(plain, x);
        for (std::string grid : {"auto", "3x2", "2x4 split"}) {
            INFO(grid);
            session_options o;
            o.patches = runtime::parse_patch_request(grid.substr(0, grid.find(' ')));
            if (grid.find("split") != std::string::npos) o.patches->split = m.split;
            o.patches->shapes[plain.input_var(0).name] = x.shape();
            std::optional<runtime::patch_choice> choice;
            try {
                runtime::program tiled = build(loaded.graph, o, &choice);
                const auto got = output_of(tiled, x);
                REQUIRE(got.shape() == want.shape());
                CHECK(test::max_abs_diff(got.span<float>(), want.span<float>()) <= 1e-6);
                if (!o.patches->split.empty()) CHECK(choice->split_name == m.split);
                MESSAGE(std::string(m.name)
                        << " " << grid << ": " << choice->rows_cols() << " over "
                        << choice->first_op << " .. " << choice->last_op << ", LOAD "
                        << plain.memory().lower_bound_bytes << " -> "
                        << tiled.memory().lower_bound_bytes << ", MACs x" << choice->mac_overhead);
            } catch (const usage_error& e) {
                // auto may find no stage that lowers the peak; a given grid must run.
                CHECK(grid == "auto");
                MESSAGE(std::string(m.name) << " auto: " << std::string(e.what()));
            }
        }
    }
}

}  // namespace models_patches_test
