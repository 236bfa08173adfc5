// litegraph run --image / --preprocess / --draw: a text detector's boxes
// against the lines of ink measured from the image, a detector's --image
// results against `run --input` on the same preprocessing done by the
// library, and the errors a user meets.
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "litegraph/core/npy.hpp"
#include "litegraph/vision/preprocess.hpp"
#include "scratch.hpp"
#include "support.hpp"

#include "stb_image_impl.hpp"

using namespace litegraph;
namespace fs = std::filesystem;

namespace {

using test::quoted;

/// Row ranges [first, last] of the lines of dark ink on a light picture.
std::vector<std::pair<int, int>> ink_rows(const vision::image& img) {
    std::vector<std::pair<int, int>> rows;
    int blank = 10;
    for (int y = 0; y < img.height; ++y) {
        bool ink = false;
        for (int x = 0; x < img.width && !ink; ++x)
            ink = (img.at(x, y, 0) + img.at(x, y, 1) + img.at(x, y, 2)) / 3 < 160;
        if (!ink) {
            ++blank;
            continue;
        }
        if (blank >= 6) rows.push_back({y, y});
        rows.back().second = y;
        blank = 0;
    }
    return rows;
}

}  // namespace

TEST_CASE("run --image --draw on the text detector: one box per line of ink, and a PNG") {
    auto det = test::shared_model("ppocr_v3_det");
    if (det.empty()) return;
    auto png = det / "reference" / "text320.png";
    auto out = fs::path(LITEGRAPH_BINARY_DIR) / "tests" / "images_det.png";
    fs::remove(out);
    auto r = test::run_cli("run " + quoted(det) + " --image " + quoted(png) + " --draw " +
                           quoted(out) + " --json");
    INFO(r.out.substr(0, 3000));
    REQUIRE(r.code == 0);
    auto j = nlohmann::json::parse(r.out);
    auto rows = ink_rows(test::load_picture(png));
    REQUIRE(rows.size() == 3);
    auto boxes = j["images"][0]["text_boxes"];
    REQUIRE(boxes.size() == 3);
    for (std::size_t i = 0; i < 3; ++i) {
        double top = 1e9, bottom = -1e9;
        for (auto& p : boxes[i]["box"])
            top = std::min(top, p[1].get<double>()), bottom = std::max(bottom, p[1].get<double>());
        INFO("line " << i << ": box rows " << top << ".." << bottom << ", ink rows "
                     << rows[i].first << ".." << rows[i].second);
        CHECK(top <= rows[i].first + 2);
        CHECK(bottom >= rows[i].second - 2);
        CHECK(bottom - top <= 2.0 * (rows[i].second - rows[i].first + 1));
    }
    // A PNG was written, of the image's size.
    auto drawn = test::load_picture(out);
    CHECK(drawn.width == 320);
    CHECK(drawn.height == 320);
    CHECK(j["preprocess"].get<std::string>().find("text detector defaults") != std::string::npos);
}

TEST_CASE(
    "run --image on a detector equals run --input on the library's preprocessing of its config") {
    auto yolo = test::shared_model("ppyolo_tiny_trash");
    auto digits = test::shared_model("mlp_mnist_handwriting");
    if (yolo.empty() || digits.empty()) return;
    auto photo = digits / "infer_3.png";
    auto r = test::run_cli("run " + quoted(yolo) + " --image " + quoted(photo) + " --json");
    INFO(r.out.substr(0, 3000));
    REQUIRE(r.code == 0);
    auto with_image = nlohmann::json::parse(r.out);
    CHECK(with_image["preprocess"].get<std::string>().find("infer_cfg.yml") != std::string::npos);

    // infer_cfg.yml: Resize 320x320 (keep_ratio false, interp 2), NormalizeImage, Permute; RGB.
    vision::pipeline p;
    p.steps.emplace_back(vision::resize_step{320, 320, false, vision::interpolation::cubic});
    p.steps.emplace_back(vision::normalize_step{});
    p.steps.emplace_back(vision::permute_step{});
    auto pre = vision::preprocess(test::load_picture(photo), p);
    auto dir = fs::path(LITEGRAPH_BINARY_DIR) / "tests" / "images_yolo";
    fs::create_directories(dir);
    save_npy(dir / "image.npy", pre.input.ref());
    save_npy(
        dir / "im_shape.npy",
        tensor::from<float>({1, 2}, std::vector<float>{pre.im_shape[0], pre.im_shape[1]}).ref());
    save_npy(
        dir / "scale_factor.npy",
        tensor::from<float>({1, 2}, std::vector<float>{pre.scale_factor[0], pre.scale_factor[1]})
            .ref());
    auto r2 = test::run_cli("run " + quoted(yolo) + " --input image=" + quoted(dir / "image.npy") +
                            " --input im_shape=" + quoted(dir / "im_shape.npy") +
                            " --input scale_factor=" + quoted(dir / "scale_factor.npy") +
                            " --output-dir " + quoted(dir) + " --json");
    REQUIRE(r2.code == 0);
    auto rows = load_npy(dir / "output_0.npy");
    auto v = rows.span<float>();
    // The --image detections are the rows at or above draw_threshold (0.5).
    std::vector<std::vector<float>> expected;
    for (std::size_t i = 0; i + 6 <= v.size(); i += 6)
        if (v[i + 1] >= 0.5f) expected.push_back({v.begin() + i, v.begin() + i + 6});
    auto got = with_image["images"][0]["detections"];
    REQUIRE(got.size() == expected.size());
    REQUIRE(!expected.empty());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        CHECK(got[i]["label"].get<int>() == int(expected[i][0]));
        CHECK(got[i]["score"].get<double>() == doctest::Approx(expected[i][1]).epsilon(1e-5));
        for (int k = 0; k < 4; ++k)
            CHECK(got[i]["box"][k].get<double>() ==
                  doctest::Approx(expected[i][2 + k]).epsilon(1e-5));
        CHECK(!got[i]["name"].get<std::string>().empty());
    }
}

TEST_CASE("run --image: the errors name the problem") {
    auto det = test::shared_model("ppocr_v3_det");
    if (det.empty()) return;
    auto r = test::run_cli("run " + quoted(det) + " --draw x.png");
    CHECK(r.code == 2);
    CHECK(r.out.find("--draw requires --image") != std::string::npos);
    r = test::run_cli("run " + quoted(det) + " --image /nonexistent/picture.png");
    CHECK(r.code == 1);
    CHECK(r.out.find("cannot read image /nonexistent/picture.png") != std::string::npos);
    auto cfg = fs::path(LITEGRAPH_BINARY_DIR) / "tests" / "images_bad_cfg.yml";
    std::ofstream(cfg) << "Preprocess:\n- type: Mosaic\n  size: 4\n";
    r = test::run_cli("run " + quoted(det) + " --image " +
                      quoted(det / "reference" / "text320.png") + " --preprocess " + quoted(cfg));
    CHECK(r.code == 2);
    CHECK(r.out.find("unknown preprocess op 'Mosaic'") != std::string::npos);
    std::ofstream(cfg) << "Preprocess: [unclosed\n";
    r = test::run_cli("run " + quoted(det) + " --image " +
                      quoted(det / "reference" / "text320.png") + " --preprocess " + quoted(cfg));
    CHECK(r.code == 1);
    CHECK(r.out.find("cannot read") != std::string::npos);
}
