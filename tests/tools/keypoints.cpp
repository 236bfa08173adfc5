// litegraph run --image on top-down keypoint models: a model of our own whose
// heatmaps are 4 x 4 averages of the picture (so the maxima are where the
// picture's bright blocks are) against coordinates worked out by hand, the
// same with DARK against the library on the written heatmaps, --draw, the
// errors, and the PP-TinyPose hand export's topology with synthetic weights.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "litegraph/core/npy.hpp"
#include "litegraph/graph/graph.hpp"
#include "litegraph/loader/paddle/loader.hpp"
#include "litegraph/loader/paddle/writer.hpp"
#include "litegraph/vision/keypoints.hpp"
#include "scratch.hpp"
#include "support.hpp"

#include "stb_image_impl.hpp"

using namespace litegraph;
namespace fs = std::filesystem;
using test::quoted;

namespace {

/// image [N, 3, 256, 192] -> 4 x 4 average pools -> heatmaps [N, 3, 64, 48];
/// `flat`: then a global pool squeezed to [N, 3] (not heatmaps).
graph::graph pooling_model(bool flat) {
    graph::graph g;
    graph::builder b(g);
    b.declare("image", {-1, 3, 256, 192});
    b.declare("heat", {-1, 3, 64, 48});
    b.feed("image", 0);
    attr_map pa;
    pa.set("pooling_type", std::string("avg"));
    pa.set("ksize", std::vector<std::int32_t>{4, 4});
    pa.set("strides", std::vector<std::int32_t>{4, 4});
    pa.set("paddings", std::vector<std::int32_t>{0, 0});
    pa.set("exclusive", true);
    b.add_op("pool2d", {{"X", {"image"}}}, {{"Out", {"heat"}}}, pa);
    if (flat) {
        b.declare("g", {-1, 3, 1, 1});
        b.declare("flat", {-1, 3});
        b.declare("flat_xshape", {-1});
        attr_map ga;
        ga.set("pooling_type", std::string("avg"));
        ga.set("ksize", std::vector<std::int32_t>{1, 1});
        ga.set("global_pooling", true);
        b.add_op("pool2d", {{"X", {"heat"}}}, {{"Out", {"g"}}}, ga);
        attr_map sa;
        sa.set("axes", std::vector<std::int32_t>{2, 3});
        b.add_op("squeeze2", {{"X", {"g"}}}, {{"Out", {"flat"}}, {"XShape", {"flat_xshape"}}}, sa);
        b.fetch("flat", 0);
    } else {
        b.fetch("heat", 0);
    }
    b.finish();
    return g;
}

/// A black 384 x 512 picture with bright blocks: red 255 over the heatmap
/// cell (10, 20) and 100 over (11, 20); green 200 over (30, 50) and 50 over
/// (30, 51); blue 180 over (1, 5) and 90 over (2, 5).  TopDownEvalAffine to
/// 192 x 256 halves it (pixel (2x, 2y) exactly), the pools quarter it: cell
/// (cx, cy) is the picture's 8 x 8 block at (8 cx, 8 cy).
void write_blocks(const fs::path& p) {
    const int w = 384, h = 512;
    std::vector<unsigned char> px(std::size_t(w) * h * 3, 0);
    auto block = [&](int c, int cx, int cy, unsigned char v) {
        for (int y = 8 * cy; y < 8 * cy + 8; ++y)
            for (int x = 8 * cx; x < 8 * cx + 8; ++x) px[(std::size_t(y) * w + x) * 3 + c] = v;
    };
    block(0, 10, 20, 255), block(0, 11, 20, 100);
    block(1, 30, 50, 200), block(1, 30, 51, 50);
    block(2, 1, 5, 180), block(2, 2, 5, 90);
    REQUIRE(stbi_write_png(p.string().c_str(), w, h, 3, px.data(), w * 3) != 0);
}

const char* blocks_config = R"(mode: paddle
arch: HRNet
metric: KeyPointTopDownCOCOEval
use_dark: false
skeleton: [[0, 1], [1, 2]]
Preprocess:
- type: TopDownEvalAffine
  trainsize: [192, 256]
- type: Permute
label_list: [keypoint]
)";

}  // namespace

TEST_CASE("run --image on heatmaps we control: the points worked out by hand, and --draw") {
    const auto dir = test::scratch("keypoints_blocks");
    paddle::save(pooling_model(false), dir / "model", "model");
    std::ofstream(dir / "model" / "infer_cfg.yml") << blocks_config;
    write_blocks(dir / "blocks.png");
    const auto drawn = dir / "drawn.png";
    auto r = test::run_cli("run " + quoted(dir / "model") + " --image " +
                           quoted(dir / "blocks.png") + " --draw " + quoted(drawn) + " --json");
    INFO(r.out.substr(0, 3000));
    REQUIRE(r.code == 0);
    auto j = nlohmann::json::parse(r.out);
    auto kp = j["images"][0]["keypoints"];
    REQUIRE(kp.size() == 3);
    // Picture 384 x 512, maps 48 x 64: X = 192 + (x - 24) 8, Y = 256 + (y - 32) 8.
    // Red: (10, 20) + a quarter right (its right neighbour 100 > 0).
    // Green: (30, 50) + a quarter down.  Blue: (1, 5), x = 1 is not shifted.
    const double want[3][3] = {{82, 160, 255}, {240, 402, 200}, {8, 40, 180}};
    for (std::size_t k = 0; k < 3; ++k) {
        INFO("joint " << k);
        CHECK(kp[k][0].get<double>() == doctest::Approx(want[k][0]));
        CHECK(kp[k][1].get<double>() == doctest::Approx(want[k][1]));
        CHECK(kp[k][2].get<double>() == doctest::Approx(want[k][2]));
    }
    CHECK(j["images"][0]["skeleton"] == nlohmann::json::parse("[[0, 1], [1, 2]]"));
    // --draw: the picture's size, joint 0 red at its point, the skeleton's
    // grey lines (no such pixel in the picture).
    auto img = test::load_picture(drawn);
    REQUIRE(img.width == 384);
    REQUIRE(img.height == 512);
    CHECK(img.at(82, 160, 0) == 255.0f);
    CHECK(img.at(82, 160, 1) == 0.0f);
    int grey = 0;
    for (int y = 0; y < img.height; ++y)
        for (int x = 0; x < img.width; ++x)
            grey += img.at(x, y, 0) == 230 && img.at(x, y, 1) == 230 && img.at(x, y, 2) == 230;
    CHECK(grey > 400);

    // The text report lists the points.
    r = test::run_cli("run " + quoted(dir / "model") + " --image " + quoted(dir / "blocks.png"));
    REQUIRE(r.code == 0);
    CHECK(r.out.find("3 keypoint(s) [x, y, score]") != std::string::npos);
    CHECK(r.out.find("  0 [82.0,160.0,255.0]") != std::string::npos);
}

TEST_CASE("run --image with DARK equals the library's DARK on the written heatmaps") {
    const auto dir = test::scratch("keypoints_dark");
    paddle::save(pooling_model(false), dir / "model", "model");
    std::string cfg = blocks_config;
    cfg.replace(cfg.find("use_dark: false"), 15, "use_dark: true");
    std::ofstream(dir / "dark.yml") << cfg;
    write_blocks(dir / "blocks.png");
    auto r =
        test::run_cli("run " + quoted(dir / "model") + " --image " + quoted(dir / "blocks.png") +
                      " --preprocess " + quoted(dir / "dark.yml") + " --output-dir " +
                      quoted(dir / "out") + " --json");
    INFO(r.out.substr(0, 3000));
    REQUIRE(r.code == 0);
    auto kp = nlohmann::json::parse(r.out)["images"][0]["keypoints"];
    auto heat = load_npy(dir / "out" / "output_0.npy");
    REQUIRE(heat.shape() == shape_t{1, 3, 64, 48});
    auto want = vision::top_down_keypoints(heat.span<float>().data(), 3, 64, 48, 384, 512, true);
    REQUIRE(kp.size() == 3);
    int off_grid = 0;
    for (std::size_t k = 0; k < 3; ++k) {
        INFO("joint " << k);
        CHECK(kp[k][0].get<double>() == doctest::Approx(want[k].x));
        CHECK(kp[k][1].get<double>() == doctest::Approx(want[k].y));
        // DARK moves a maximum with a brighter neighbour towards it (and only
        // within the cell's reach), like the quarter shift does.
        off_grid += std::fmod(want[k].x, 8.0) != 0.0 || std::fmod(want[k].y, 8.0) != 0.0;
    }
    CHECK(kp[0][0].get<double>() > 80);
    CHECK(kp[0][0].get<double>() < 88);
    CHECK(kp[1][1].get<double>() > 400);
    CHECK(kp[1][1].get<double>() < 408);
    CHECK(off_grid >= 2);
}

TEST_CASE("run --image on a keypoint config: the errors name the problem") {
    const auto dir = test::scratch("keypoints_errors");
    write_blocks(dir / "blocks.png");
    // A skeleton naming a joint the model does not have.
    paddle::save(pooling_model(false), dir / "model", "model");
    std::string cfg = blocks_config;
    cfg.replace(cfg.find("[1, 2]]"), 7, "[1, 5]]");
    std::ofstream(dir / "model" / "infer_cfg.yml") << cfg;
    auto r =
        test::run_cli("run " + quoted(dir / "model") + " --image " + quoted(dir / "blocks.png"));
    CHECK(r.code == 2);
    CHECK(r.out.find("names joint 5, the model gives 3") != std::string::npos);
    // The config says keypoints, the model gives [N, 3].
    paddle::save(pooling_model(true), dir / "flat", "model");
    std::ofstream(dir / "flat" / "infer_cfg.yml") << blocks_config;
    r = test::run_cli("run " + quoted(dir / "flat") + " --image " + quoted(dir / "blocks.png") +
                      " --draw " + quoted(dir / "x.png"));
    CHECK(r.code == 2);
    CHECK(r.out.find("is not float heatmaps [N, K, H, W]") != std::string::npos);
    CHECK(!fs::exists(dir / "x.png"));
}

TEST_CASE("run --image --draw on PP-TinyPose (hand) with synthetic weights: 21 points inside") {
    const auto src = test::shared_model("pp_tinypose_hand_256x192", "models_topology_only");
    if (src.empty()) return;
    const auto dir = test::scratch("keypoints_tinypose");
    auto m = paddle::load(src, {.require_params = false});
    test::synthesize_weights(m.graph, 11);
    paddle::save(m.graph, dir / "model", "model");
    fs::copy_file(src / "infer_cfg.yml", dir / "model" / "infer_cfg.yml");
    // 240 x 320: the model's aspect ratio, so the warp neither pads nor crops.
    const int w = 240, h = 320;
    {
        std::mt19937 rng(3);
        std::uniform_int_distribution<int> noise(0, 60);
        std::vector<unsigned char> px(std::size_t(w) * h * 3);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                for (int c = 0; c < 3; ++c)
                    px[(std::size_t(y) * w + x) * 3 + c] =
                        static_cast<unsigned char>((x * (c + 2) + y * 3 + noise(rng)) % 256);
        REQUIRE(stbi_write_png((dir / "hand.png").string().c_str(), w, h, 3, px.data(), w * 3));
    }
    const auto drawn = dir / "drawn.png";
    auto r = test::run_cli("run " + quoted(dir / "model") + " --image " + quoted(dir / "hand.png") +
                           " --draw " + quoted(drawn) + " --output-dir " + quoted(dir / "out") +
                           " --json");
    INFO(r.out.substr(0, 3000));
    REQUIRE(r.code == 0);
    auto j = nlohmann::json::parse(r.out);
    CHECK(j["preprocess"].get<std::string>().find("infer_cfg.yml") != std::string::npos);
    auto kp = j["images"][0]["keypoints"];
    REQUIRE(kp.size() == 21);
    CHECK(!j["images"][0].contains("skeleton"));  // no skeleton in the config, K != 17
    auto heat = load_npy(dir / "out" / "output_0.npy");
    REQUIRE(heat.shape() == shape_t{1, 21, 64, 48});
    auto maps = heat.span<float>();
    // The export's own second output: its arg_max of each flattened heatmap.
    auto argmax = load_npy(dir / "out" / "output_1.npy");
    REQUIRE(argmax.shape() == shape_t{1, 21});
    for (std::size_t k = 0; k < 21; ++k) {
        INFO("joint " << k << ": " << kp[k].dump());
        const double x = kp[k][0], y = kp[k][1], score = kp[k][2];
        CHECK(x >= 0);
        CHECK(x <= w - 1);
        CHECK(y >= 0);
        CHECK(y <= h - 1);
        // The score is the joint's heatmap maximum, and the point lies within
        // DARK's reach (a cell and a half: 5 x 1.5 pixels) of that maximum
        // mapped back (X = 120 + (x - 24) 5, Y = 160 + (y - 32) 5).
        auto one = maps.subspan(k * 64 * 48, 64 * 48);
        auto best = std::max_element(one.begin(), one.end()) - one.begin();
        CHECK(score == doctest::Approx(one[std::size_t(best)]));
        CHECK(argmax.span<std::int64_t>()[k] == best);
        if (one[std::size_t(best)] > 0) {
            CHECK(std::abs(x - (120 + (best % 48 - 24) * 5.0)) <= 7.5);
            CHECK(std::abs(y - (160 + (best / 48 - 32) * 5.0)) <= 7.5);
        }
    }
    auto img = test::load_picture(drawn);
    CHECK(img.width == w);
    CHECK(img.height == h);
}
