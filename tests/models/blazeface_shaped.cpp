// A detector shaped as PaddleDetection exports BlazeFace (random weights),
// run on full-size images that are not multiples of 32, as its deployment
// config feeds them (no resize): conv 3x3 s2, BlazeBlocks whose stride-2
// branch (depthwise 5x5 s2 p2) meets a ceil-mode 2x2 max pool shortcut, two
// heads at strides 8 and 16 with prior_box anchors (steps 8 and 16, min sizes
// 16,24 and 32..128), decode, softmax over 2 classes, multiclass_nms3.
// Checked: the feature and prior counts follow Paddle's size formulas at odd
// sizes; the program after the fusion passes (batch norms folded, relus fused,
// in-place adds) computes what the graph as loaded computes, and what a
// written-and-reloaded copy computes; the detections keep NMS's invariants.
#include <cmath>
#include <filesystem>

#include "litegraph/paddle.hpp"
#include "litegraph/passes/pipeline.hpp"
#include "litegraph/runtime/program.hpp"
#include "models/net_builder.hpp"

using namespace litegraph;

namespace models_blazeface_shaped_test {

namespace {

/// BlazeNet's BlazeBlock (5x5 depthwise kernels, act relu).
std::string blaze_block(test::net_builder& nb, const std::string& x, std::int64_t in_c,
                        std::int64_t c1, std::int64_t c2, std::int64_t twice, int stride) {
    auto y = nb.conv_bn(x, in_c, c1, 5, stride, 2, static_cast<int>(c1), true);
    y = nb.conv_bn(y, c1, c2, 1, 1, 0, 1, twice > 0);
    std::int64_t out_c = c2;
    if (twice > 0) {
        y = nb.conv_bn(y, c2, c2, 5, 1, 2, static_cast<int>(c2), true);
        y = nb.conv_bn(y, c2, twice, 1, 1, 0, 1, true);
        out_c = twice;
    }
    std::string shortcut = x;
    if (stride == 2) {
        auto pooled = nb.max_pool(x, 2, 2, 0, true);
        shortcut = nb.conv_bn(pooled, in_c, out_c, 1, 1, 0, 1, true);
    }
    auto sum = nb.declare_map("add");
    attr_map a;
    a.set("axis", std::int32_t{-1});
    nb.b.add_op("elementwise_add", {{"X", {shortcut}}, {"Y", {y}}}, {{"Out", {sum}}}, a);
    return nb.unary("relu", sum);
}

// PaddleDetection's blazeface.yml.
const std::vector<std::vector<float>> min_sizes = {{16.f, 24.f},
                                                   {32.f, 48.f, 64.f, 80.f, 96.f, 128.f}};
const std::vector<float> steps = {8.f, 16.f};

graph::graph blazeface_shaped() {
    graph::graph g;
    graph::builder gb(g);
    test::net_builder nb{gb};
    gb.declare("image", {-1, 3, -1, -1});
    gb.feed("image", 0);
    auto y = nb.conv_bn("image", 3, 24, 3, 2, 1, 1, true);
    struct block {
        std::int64_t in, c1, c2, twice;
        int stride;
    };
    const std::vector<block> blocks = {
        {24, 24, 24, 0, 1},  {24, 24, 24, 0, 1},  {24, 24, 48, 0, 2},  {48, 48, 48, 0, 1},
        {48, 48, 48, 0, 1},  {48, 24, 96, 96, 2}, {96, 24, 96, 96, 1}, {96, 24, 96, 96, 1},
        {96, 24, 96, 96, 2}, {96, 24, 96, 96, 1}, {96, 24, 96, 96, 1}};
    std::vector<std::string> outs;
    for (const auto& k : blocks) {
        y = blaze_block(nb, y, k.in, k.c1, k.c2, k.twice, k.stride);
        outs.push_back(y);
    }
    const std::vector<std::string> features = {outs[outs.size() - 4], outs.back()};

    std::vector<std::string> boxes, scores, priors, variances;
    for (std::size_t f = 0; f < features.size(); ++f) {
        const auto p = static_cast<std::int64_t>(min_sizes[f].size());
        auto head = [&](std::int64_t per_prior) {
            auto w = nb.fresh("head_w");
            test::param(gb, w,
                        test::random_tensor({p * per_prior, 96, 3, 3}, nb.seed++, -0.05f, 0.05f));
            auto bias = nb.fresh("head_b");
            test::param(gb, bias, test::random_tensor({p * per_prior}, nb.seed++, -0.5f, 0.5f));
            auto conv = nb.declare_map("head");
            gb.add_op("conv2d", {{"Input", {features[f]}}, {"Filter", {w}}}, {{"Output", {conv}}},
                      test::conv_attrs(1, 1, 1));
            auto biased = nb.declare_map("head_bias");
            attr_map a;
            a.set("axis", std::int32_t{1});
            gb.add_op("elementwise_add", {{"X", {conv}}, {"Y", {bias}}}, {{"Out", {biased}}}, a);
            auto t = nb.transpose(biased, {0, 2, 3, 1}, 4);
            return nb.reshape(t, {0, -1, static_cast<std::int32_t>(per_prior)}, 3);
        };
        boxes.push_back(head(4));
        scores.push_back(head(2));
        auto pb = nb.fresh("prior"), pv = nb.fresh("prior_var");
        gb.declare(pb, {-1, -1, -1, 4});
        gb.declare(pv, {-1, -1, -1, 4});
        attr_map a;
        a.set("min_sizes", min_sizes[f]);
        a.set("max_sizes", std::vector<float>{});
        a.set("aspect_ratios", std::vector<float>{1.f});
        a.set("variances", std::vector<float>{0.1f, 0.1f, 0.2f, 0.2f});
        a.set("flip", false);
        a.set("clip", false);
        a.set("step_w", steps[f]);
        a.set("step_h", steps[f]);
        a.set("offset", 0.5f);
        a.set("min_max_aspect_ratios_order", false);
        gb.add_op("prior_box", {{"Input", {features[f]}}, {"Image", {"image"}}},
                  {{"Boxes", {pb}}, {"Variances", {pv}}}, a);
        priors.push_back(nb.reshape(pb, {-1, 4}, 2));
        variances.push_back(nb.reshape(pv, {-1, 4}, 2));
    }
    auto all_priors = nb.concat(priors, 0, 2);
    auto all_vars = nb.concat(variances, 0, 2);
    auto all_boxes = nb.concat(boxes, 1, 3);
    auto all_scores = nb.concat(scores, 1, 3);
    auto decoded = nb.fresh("decoded");
    gb.declare(decoded, {-1, -1, 4});
    attr_map ba;
    ba.set("code_type", std::string("decode_center_size"));
    ba.set("box_normalized", true);
    gb.add_op("box_coder",
              {{"PriorBox", {all_priors}}, {"PriorBoxVar", {all_vars}}, {"TargetBox", {all_boxes}}},
              {{"OutputBox", {decoded}}}, ba);
    auto prob = nb.fresh("prob");
    gb.declare(prob, {-1, -1, 2});
    attr_map sa;
    sa.set("axis", std::int32_t{-1});
    gb.add_op("softmax", {{"X", {all_scores}}}, {{"Out", {prob}}}, sa);
    auto per_class = nb.transpose(prob, {0, 2, 1}, 3);
    gb.declare("det", {-1, 6});
    gb.declare("det_index", {-1, 1}, dtype::i32);
    gb.declare("det_num", {-1}, dtype::i32);
    attr_map na;
    na.set("background_label", std::int32_t{0});
    na.set("score_threshold", 0.01f);
    na.set("nms_top_k", std::int32_t{5000});
    na.set("nms_threshold", 0.3f);
    na.set("nms_eta", 1.f);
    na.set("keep_top_k", std::int32_t{750});
    na.set("normalized", true);
    gb.add_op("multiclass_nms3", {{"BBoxes", {decoded}}, {"Scores", {per_class}}},
              {{"Out", {"det"}}, {"Index", {"det_index"}}, {"NmsRoisNum", {"det_num"}}}, na);
    gb.fetch("det", 0);
    gb.fetch("det_num", 1);
    gb.fetch(all_priors, 2);
    gb.fetch(decoded, 3);
    gb.fetch(prob, 4);
    gb.finish();
    return g;
}

/// Paddle's conv / ceil-mode pool output size at stride 2 (k 3 p 1, k 5 p 2,
/// and k 2 p 0 ceil): all ceil(n / 2).
std::int64_t halve(std::int64_t n) {
    return (n + 1) / 2;
}

}  // namespace

TEST_CASE("a BlazeFace-shaped detector runs on full-size images that are not multiples of 32") {
    auto as_loaded = blazeface_shaped();
    auto fused = as_loaded;
    auto report = passes::run_passes(fused);
    CHECK(report.count("fold_batch_norm") > 0);

    // The same graph written in Paddle's format and read back.
    const auto dir = std::filesystem::temp_directory_path() / "litegraph_blazeface_shaped";
    paddle::save(as_loaded, dir);
    auto reloaded = paddle::load(dir).graph;
    std::filesystem::remove_all(dir);

    runtime::program plain(as_loaded), fast(std::move(fused)), again(std::move(reloaded));
    for (const auto& size :
         std::vector<std::pair<std::int64_t, std::int64_t>>{{333, 501}, {480, 360}, {97, 130}}) {
        const std::int64_t h = size.first, w = size.second;
        CAPTURE(h);
        CAPTURE(w);
        const auto image = test::random_tensor({1, 3, h, w}, static_cast<std::uint32_t>(h + w));
        std::vector<std::vector<tensor>> runs;
        for (auto* p : {&plain, &fast, &again}) {
            p->set_input("image", image);
            p->run();
            runs.push_back(test::copy_outputs(*p));
        }
        // Features at strides 8 and 16 by Paddle's size formulas.
        const std::int64_t h8 = halve(halve(halve(h))), w8 = halve(halve(halve(w)));
        const std::int64_t h16 = halve(h8), w16 = halve(w8);
        const std::int64_t priors = h8 * w8 * 2 + h16 * w16 * 6;
        for (const auto& r : runs) {
            REQUIRE(r[2].shape() == shape_t{priors, 4});
            REQUIRE(r[3].shape() == shape_t{1, priors, 4});
            REQUIRE(r[4].shape() == shape_t{1, priors, 2});
        }
        // The first prior of the stride-16 map: cell (0, 0), centre 0.5 * 16.
        const auto first16 =
            runs[0][2].span<float>().subspan(static_cast<std::size_t>(h8 * w8 * 2 * 4), 4);
        CHECK(first16[0] == doctest::Approx((8.f - 16.f) / float(w)).epsilon(1e-6));
        CHECK(first16[1] == doctest::Approx((8.f - 16.f) / float(h)).epsilon(1e-6));
        // Fused and reloaded programs compute what the graph as loaded does.
        for (int k : {2, 3, 4}) {
            CAPTURE(k);
            CHECK(test::max_rel_diff(runs[1][static_cast<std::size_t>(k)].span<float>(),
                                     runs[0][static_cast<std::size_t>(k)].span<float>()) <= 1e-4);
            CHECK(test::max_abs_diff(runs[2][static_cast<std::size_t>(k)].span<float>(),
                                     runs[0][static_cast<std::size_t>(k)].span<float>()) == 0);
        }
        // The unfused program and its reloaded copy agree on every detection.
        REQUIRE(runs[2][0].shape() == runs[0][0].shape());
        CHECK(test::max_abs_diff(runs[2][0].span<float>(), runs[0][0].span<float>()) == 0);
        // NMS's invariants: one image, the count is the rows, at most keep_top_k,
        // label 1 (the face class), scores above the threshold and descending.
        const auto det = runs[0][0].span<float>();
        const auto rows = static_cast<std::int64_t>(det.size() / 6);
        REQUIRE(runs[0][1].shape() == shape_t{1});
        CHECK(runs[0][1].span<std::int32_t>()[0] == rows);
        CHECK(rows > 0);
        CHECK(rows <= 750);
        for (std::int64_t i = 0; i < rows; ++i) {
            CHECK(det[static_cast<std::size_t>(i * 6)] == 1.f);
            CHECK(det[static_cast<std::size_t>(i * 6 + 1)] > 0.01f);
            if (i > 0)
                CHECK(det[static_cast<std::size_t>(i * 6 + 1)] <=
                      det[static_cast<std::size_t>((i - 1) * 6 + 1)]);
        }
    }
}

}  // namespace models_blazeface_shaped_test
