// ppyolo_tiny_trash (yolo_box x3 + multiclass_nms3) on its reference inputs:
// the detections equal reference/output_0.npy row for row within 1e-3 and the
// per-image count reference/output_1.npy exactly, unfused and fused.
#include "litegraph/core/npy.hpp"
#include "litegraph/paddle.hpp"
#include "litegraph/passes/pipeline.hpp"
#include "litegraph/runtime/program.hpp"
#include "support.hpp"

using namespace litegraph;

namespace models_detection_test {

TEST_CASE("ppyolo_tiny_trash detects what Paddle detects") {
    auto dir = test::shared_model("ppyolo_tiny_trash");
    if (dir.empty()) return;
    const auto ref = dir / "reference";
    auto expect = load_npy(ref / "output_0.npy");
    auto expect_num = load_npy(ref / "output_1.npy");
    for (bool fuse : {false, true}) {
        CAPTURE(fuse);
        auto m = paddle::load(dir);
        if (fuse) passes::run_passes(m.graph);
        runtime::program p(std::move(m.graph));
        p.set_input("image", load_npy(ref / "input_image.npy"));
        p.set_input("im_shape", load_npy(ref / "input_im_shape.npy"));
        p.set_input("scale_factor", load_npy(ref / "input_scale_factor.npy"));
        for (int repeat = 0; repeat < 2; ++repeat) {  // the second run re-infers the rows
            p.run();
            const auto& out = p.output(0);
            REQUIRE(out.shape == expect.shape());
            const double diff = test::max_abs_diff(out.span<float>(), expect.span<float>());
            const std::string how = fuse ? "fused" : "unfused";
            MESSAGE("ppyolo_tiny_trash " << how << ": " << out.shape[0]
                                         << " rows, max |diff| = " << diff);
            CHECK(diff <= 1e-3);
            const auto& num = p.output(1);
            REQUIRE(num.type == dtype::i32);
            REQUIRE(num.shape == expect_num.shape());
            CHECK(std::vector<int>(num.span<std::int32_t>().begin(),
                                   num.span<std::int32_t>().end()) ==
                  std::vector<int>(expect_num.span<std::int32_t>().begin(),
                                   expect_num.span<std::int32_t>().end()));
            CHECK(p.output_lod(0) == lod_t{{0, expect.shape()[0]}});
        }
        // The arena holds the bound of the detections: keep_top_k 100 rows of 6.
        CHECK(p.memory().arena_bytes >= 100 * 6 * sizeof(float));
    }
}

}  // namespace models_detection_test
