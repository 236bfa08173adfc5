// litegraph run --image on PaddleSeg exports (a deploy.yaml beside the model):
// tiny models written here (a 1x1 convolution whose classes follow the
// picture's dominant colour, with and without the exported argmax) against
// label maps computed from the picture itself; the shared PP-LiteSeg topology
// with synthetic weights (a label map of the picture's size whose counts sum
// to its pixels, --draw and --output-dir pictures); and the errors.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "litegraph/paddle.hpp"
#include "litegraph/vision/segmentation.hpp"
#include "passes/support_passes.hpp"
#include "scratch.hpp"
#include "support.hpp"

#include "stb_image_impl.hpp"

using namespace litegraph;
namespace fs = std::filesystem;

namespace {

using test::quoted;
using test::scratch;

void write_text(const fs::path& p, const std::string& text) {
    std::ofstream(p) << text;
}

/// Three colours, each with one channel clearly over the others (R, G, B).
constexpr unsigned char block_colours[3][3] = {{200, 30, 10}, {20, 180, 40}, {10, 50, 220}};

/// A w x h PNG of 12 x 12 blocks, block (bx, by) of colour (bx + 2 by) % 3.
void write_blocks(const fs::path& p, int w, int h) {
    std::vector<unsigned char> px(static_cast<std::size_t>(w * h * 3));
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            for (int c = 0; c < 3; ++c)
                px[static_cast<std::size_t>((y * w + x) * 3 + c)] =
                    block_colours[(x / 12 + 2 * (y / 12)) % 3][c];
    REQUIRE(stbi_write_png(p.string().c_str(), w, h, 3, px.data(), w * 3) != 0);
}

/// The class the tiny model gives a pixel's dominant channel (R, G, B).
constexpr int class_of_channel[3] = {2, 0, 1};

enum class tail { logits, argmax_int32_keepdim, argmax_int64 };

/// x [-1, 3, -1, -1] -> conv2d 1x1 (class k = the channel c with
/// class_of_channel[c] == k) -> logits [N, 3, H, W], or with the exported
/// argmax: int32 [N, 1, H, W] (keepdim, as PaddleSeg exports it) or int64 [N, H, W].
graph::graph tiny_model(tail t) {
    graph::graph g;
    graph::builder b(g);
    b.declare("x", {-1, 3, -1, -1});
    graph::var_node w;
    w.name = "conv_w";
    w.shape = {3, 3, 1, 1};
    w.persistable = true;
    tensor wt(dtype::f32, {3, 3, 1, 1});
    for (int c = 0; c < 3; ++c)
        wt.span<float>()[static_cast<std::size_t>(class_of_channel[c] * 3 + c)] = 1.f;
    w.value = std::move(wt);
    b.declare(std::move(w));
    b.declare("logits", {-1, 3, -1, -1});
    b.feed("x", 0);
    b.add_op("conv2d", {{"Input", {"x"}}, {"Filter", {"conv_w"}}}, {{"Output", {"logits"}}},
             test::conv_attrs(1, 0));
    if (t == tail::logits) {
        b.fetch("logits", 0);
    } else {
        const bool keep = t == tail::argmax_int32_keepdim;
        b.declare("labels", keep ? shape_t{-1, 1, -1, -1} : shape_t{-1, -1, -1},
                  keep ? dtype::i32 : dtype::i64);
        attr_map am;
        am.set("axis", std::int64_t{1});
        am.set("keepdims", keep);
        am.set("flatten", false);
        am.set("dtype", std::int32_t{keep ? 2 : 3});
        b.add_op("arg_max", {{"X", {"logits"}}}, {{"Out", {"labels"}}}, am);
        b.fetch("labels", 0);
    }
    b.finish();
    return g;
}

bool cli_built() {
    if (fs::exists(test::cli_path())) return true;
    MESSAGE("skipped: build/bin/litegraph is not built");
    return false;
}

}  // namespace

TEST_CASE("run --image on tiny PaddleSeg models: the label map follows the picture's colours") {
    if (!cli_built()) return;
    const int width = 48, height = 36;
    for (tail t : {tail::logits, tail::argmax_int32_keepdim, tail::argmax_int64}) {
        const auto name = std::string("tiny_") + std::to_string(int(t));
        auto dir = scratch(fs::path("segmentation") / name);
        paddle::save(tiny_model(t), dir, "model");
        // Halved with NEAREST (each resized pixel inside one block), padded
        // right and below (the padding is cut off the label map again).
        write_text(dir / "deploy.yaml",
                   "Deploy:\n"
                   "  model: model.pdmodel\n"
                   "  output_op: " +
                       std::string(t == tail::logits ? "none" : "argmax") +
                       "\n"
                       "  transforms:\n"
                       "  - type: Resize\n"
                       "    target_size: [24, 18]\n"
                       "    interp: NEAREST\n"
                       "  - type: Padding\n"
                       "    target_size: [32, 20]\n"
                       "  - type: Normalize\n");
        auto png = dir / "blocks.png";
        write_blocks(png, width, height);
        auto out_dir = dir / "out";
        auto drawn = dir / "drawn.png";
        auto r = test::run_cli("run " + quoted(dir) + " --image " + quoted(png) + " --draw " +
                               quoted(drawn) + " --output-dir " + quoted(out_dir) + " --json");
        INFO(name << ": " << r.out.substr(0, 3000));
        REQUIRE(r.code == 0);
        auto j = nlohmann::json::parse(r.out);
        CHECK(j["preprocess"].get<std::string>().find("deploy.yaml") != std::string::npos);
        // Expected: the class of each pixel's own dominant channel.
        auto picture = test::load_picture(png);
        std::vector<std::int64_t> expected(3, 0);
        std::vector<int> expected_map;
        for (int y = 0; y < height; ++y)
            for (int x = 0; x < width; ++x) {
                int best = 0;
                for (int c = 1; c < 3; ++c)
                    if (picture.at(x, y, c) > picture.at(x, y, best)) best = c;
                ++expected[static_cast<std::size_t>(class_of_channel[best])];
                expected_map.push_back(class_of_channel[best]);
            }
        auto seg = j["images"][0]["segmentation"];
        std::int64_t sum = 0;
        for (auto& [label, c] : seg.items()) sum += c["pixels"].get<std::int64_t>();
        CHECK(sum == width * height);
        for (int k = 0; k < 3; ++k) {
            INFO("class " << k);
            REQUIRE(seg.contains(std::to_string(k)));
            CHECK(seg[std::to_string(k)]["pixels"].get<std::int64_t>() ==
                  expected[static_cast<std::size_t>(k)]);
        }
        // The label map PNG: grey values = labels, the picture's size.
        auto labels_png = out_dir / "blocks_labels.png";
        REQUIRE(fs::exists(labels_png));
        CHECK(j["images"][0]["label_map"].get<std::string>() == labels_png.string());
        int w = 0, h = 0, c = 0;
        std::unique_ptr<unsigned char, void (*)(void*)> grey(
            stbi_load(labels_png.string().c_str(), &w, &h, &c, 1), stbi_image_free);
        REQUIRE(grey != nullptr);
        REQUIRE(w == width);
        REQUIRE(h == height);
        CHECK(c == 1);
        int wrong = 0;
        for (std::size_t i = 0; i < expected_map.size(); ++i)
            wrong += grey.get()[i] != expected_map[i];
        CHECK(wrong == 0);
        // --draw: the overlay, of the picture's size: picture * 0.6 + colour * 0.4.
        auto d = test::load_picture(drawn);
        REQUIRE(d.width == width);
        REQUIRE(d.height == height);
        int off = 0;
        for (int y = 0; y < height; ++y)
            for (int x = 0; x < width; ++x) {
                const auto colour =
                    vision::label_colour(expected_map[static_cast<std::size_t>(y * width + x)]);
                for (int k = 0; k < 3; ++k)
                    off += d.at(x, y, k) != std::round(picture.at(x, y, k) * 0.6f +
                                                       colour[static_cast<std::size_t>(k)] * 0.4f);
            }
        CHECK(off == 0);
        // The text report names the counts.
        auto text = test::run_cli("run " + quoted(dir) + " --image " + quoted(png));
        CHECK(text.code == 0);
        CHECK(text.out.find("3 label(s)") != std::string::npos);
        CHECK(text.out.find("label 0: " + std::to_string(expected[0]) + " pixels") !=
              std::string::npos);
    }
}

TEST_CASE("run --image on PP-LiteSeg (shared topology, synthetic weights)") {
    if (!cli_built()) return;
    auto src = test::shared_model("pp_liteseg_cloudseg", "models_topology_only");
    if (src.empty()) return;
    auto m = paddle::load(src, {.require_params = false});
    test::synthesize_weights(m.graph, 5);
    auto dir = scratch(fs::path("segmentation") / "pp_liteseg");
    paddle::save(m.graph, dir, "model");
    // The export's deploy.yaml with a smaller Resize target (1296 x 972 in the
    // export) to keep the test fast.
    std::ifstream in(src / "deploy.yaml");
    std::string yaml{std::istreambuf_iterator<char>(in), {}};
    for (auto [from, to] : {std::pair<std::string, std::string>{"1296", "96"}, {"972", "64"}}) {
        auto at = yaml.find(from);
        REQUIRE(at != std::string::npos);
        yaml.replace(at, from.size(), to);
    }
    write_text(dir / "deploy.yaml", yaml);
    const int width = 90, height = 70;
    auto png = dir / "scene.png";
    write_blocks(png, width, height);
    auto drawn = dir / "scene_drawn.png";
    auto out_dir = dir / "out";
    auto r = test::run_cli("run " + quoted(dir) + " --image " + quoted(png) + " --draw " +
                           quoted(drawn) + " --output-dir " + quoted(out_dir) + " --json");
    INFO(r.out.substr(0, 3000));
    REQUIRE(r.code == 0);
    auto j = nlohmann::json::parse(r.out);
    // The exported argmax: int32 [1, 1, 64, 96] (or [1, 64, 96]).
    auto out = j["outputs"][0];
    CHECK(out["dtype"].get<std::string>() == "int32");
    CHECK(out["shape"].back().get<int>() == 96);
    auto seg = j["images"][0]["segmentation"];
    REQUIRE(!seg.empty());
    std::int64_t sum = 0;
    for (auto& [label, c] : seg.items()) {
        CHECK(std::stoi(label) >= 0);
        sum += c["pixels"].get<std::int64_t>();
    }
    MESSAGE("PP-LiteSeg (synthetic weights) labels: " << seg.dump());
    CHECK(sum == width * height);
    auto d = test::load_picture(drawn);
    CHECK(d.width == width);
    CHECK(d.height == height);
    auto labels = test::load_picture(out_dir / "scene_labels.png");
    CHECK(labels.width == width);
    CHECK(labels.height == height);
}

TEST_CASE("run --image on PaddleSeg exports: errors name what is wrong") {
    if (!cli_built()) return;
    auto dir = scratch(fs::path("segmentation") / "errors");
    paddle::save(tiny_model(tail::logits), dir, "model");
    auto png = dir / "blocks.png";
    write_blocks(png, 24, 24);
    write_text(dir / "deploy.yaml",
               "Deploy:\n  transforms:\n  - type: Resize\n    target_size: [12, 12]\n"
               "  - type: RandomDistort\n");
    auto r = test::run_cli("run " + quoted(dir) + " --image " + quoted(png));
    INFO(r.out);
    CHECK(r.code != 0);
    CHECK(r.out.find("unknown PaddleSeg transform 'RandomDistort'") != std::string::npos);
    CHECK(r.out.find("deploy.yaml") != std::string::npos);
    // A deploy.yaml beside a model whose output is no label map nor scores.
    auto flat = scratch(fs::path("segmentation") / "flat");
    {
        graph::graph g;
        graph::builder b(g);
        b.declare("x", {-1, 3, -1, -1});
        b.declare("y", {-1, -1});
        b.declare("y_xshape", {0});
        b.feed("x", 0);
        attr_map f;
        f.set("start_axis", std::int32_t{1});
        f.set("stop_axis", std::int32_t{3});
        b.add_op("flatten_contiguous_range", {{"X", {"x"}}},
                 {{"Out", {"y"}}, {"XShape", {"y_xshape"}}}, f);
        b.fetch("y", 0);
        b.finish();
        paddle::save(g, flat, "model");
    }
    write_text(flat / "deploy.yaml",
               "Deploy:\n  transforms:\n  - type: Resize\n    target_size: [8, 8]\n"
               "  - type: Normalize\n");
    r = test::run_cli("run " + quoted(flat) + " --image " + quoted(png));
    INFO(r.out);
    CHECK(r.code != 0);
    CHECK(r.out.find("is neither labels") != std::string::npos);
}
