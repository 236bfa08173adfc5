// litegraph quantize as a user meets it: --calib on a folder of images
// (preprocessed as `run --image` does) against --calib on the .npy tensors
// they preprocess to, the side files copied into the output folder, the
// errors of a calibration folder without samples, and the argmax judge on
// the shared CTC text recognizer (its int8 decode equals the float one).
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "litegraph/core/npy.hpp"
#include "litegraph/paddle.hpp"
#include "litegraph/vision/config.hpp"
#include "litegraph/vision/preprocess.hpp"
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

/// A w x h RGB PNG of smooth gradients and noise, different for each seed.
void write_picture(const fs::path& p, int w, int h, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> noise(0, 40);
    std::vector<unsigned char> px(static_cast<std::size_t>(w * h * 3));
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            for (int c = 0; c < 3; ++c)
                px[static_cast<std::size_t>((y * w + x) * 3 + c)] = static_cast<unsigned char>(
                    (x * (c + 1) * 7 + y * 5 * static_cast<int>(seed + 1) + noise(rng)) % 256);
    REQUIRE(stbi_write_png(p.string().c_str(), w, h, 3, px.data(), w * 3) != 0);
}

/// Every `*.quant_scale` parameter of a quantized model, by name.
std::map<std::string, std::vector<float>> quant_scales(const fs::path& dir) {
    auto m = paddle::load(dir);
    std::map<std::string, std::vector<float>> out;
    for (const auto& v : m.graph.vars)
        if (v.value && v.name.ends_with(".quant_scale") && v.value->type() == dtype::f32) {
            auto s = v.value->span<float>();
            out[v.name] = {s.begin(), s.end()};
        }
    return out;
}

/// The CTC decode of each row of an [N, T, C] tensor: argmax per step,
/// repeats merged, class 0 dropped.
std::vector<std::vector<int>> ctc_decode(const tensor& t) {
    const auto& s = t.shape();
    REQUIRE(s.size() == 3);
    auto v = t.span<float>();
    std::vector<std::vector<int>> rows;
    for (std::int64_t n = 0; n < s[0]; ++n) {
        std::vector<int> row;
        int last = -1;
        for (std::int64_t k = 0; k < s[1]; ++k) {
            const float* p = v.data() + (n * s[1] + k) * s[2];
            const int best = static_cast<int>(std::max_element(p, p + s[2]) - p);
            if (best != last && best != 0) row.push_back(best);
            last = best;
        }
        rows.push_back(row);
    }
    return rows;
}

/// K of quantize's "kept float K of M ops" line.
int kept_float(const std::string& out) {
    const auto at = out.find("kept float ");
    REQUIRE(at != std::string::npos);
    return std::stoi(out.substr(at + 11));
}

}  // namespace

TEST_CASE("quantize --calib on images: the scales of the .npy tensors they preprocess to") {
    auto dir = scratch("quantize_images");
    auto fp32 = dir / "fp32";
    auto r = test::run_cli("generate squeezenet1_1 -o " + quoted(fp32) + " --input-size 32");
    REQUIRE(r.code == 0);
    // A PaddleClas-style config beside the model, and other side files.
    const std::string yml =
        "PreProcess:\n"
        "  transform_ops:\n"
        "  - ResizeImage:\n"
        "      size: 32\n"
        "  - NormalizeImage:\n"
        "      mean: [0.5, 0.4, 0.3]\n"
        "      std: [0.2, 0.25, 0.3]\n"
        "      scale: 0.00392156862745098\n"
        "  - ToCHWImage: null\n";
    write_text(fp32 / "inference.yml", yml);
    write_text(fp32 / "my_dict.txt", "a\nb\nc\n");
    write_text(fp32 / "README.md", "# a test model\n");
    write_text(fp32 / "inference.pdiparams.info", "not a side file");
    write_text(fp32 / "weights.bin", "not a side file");
    fs::create_directories(fp32 / "reference");
    write_text(fp32 / "reference" / "texts.txt", "in a subfolder");
    // The same preprocessing done here by the library.
    nlohmann::json cfg = {{"PreProcess",
                           {{"transform_ops",
                             {{{"ResizeImage", {{"size", 32}}}},
                              {{"NormalizeImage",
                                {{"mean", {0.5, 0.4, 0.3}},
                                 {"std", {0.2, 0.25, 0.3}},
                                 {"scale", 0.00392156862745098}}}},
                              {{"ToCHWImage", nullptr}}}}}}};
    const auto config = vision::read_model_config(cfg);
    fs::create_directories(dir / "images");
    fs::create_directories(dir / "npy");
    const int sizes[][2] = {{40, 30}, {64, 64}, {23, 51}, {90, 33}};
    for (int i = 0; i < 4; ++i) {
        const auto stem = "s" + std::to_string(i);
        write_picture(dir / "images" / (stem + ".png"), sizes[i][0], sizes[i][1],
                      static_cast<std::uint32_t>(i));
        auto pre = vision::preprocess(test::load_picture(dir / "images" / (stem + ".png")),
                                      config.preprocess);
        REQUIRE(pre.input.shape() == shape_t{1, 3, 32, 32});
        save_npy(dir / "npy" / (stem + ".npy"), pre.input.ref());
    }
    r = test::run_cli("quantize " + quoted(fp32) + " -o " + quoted(dir / "q_images") + " --calib " +
                      quoted(dir / "images") + " --max-error 0");
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK(r.out.find("4 samples") != std::string::npos);
    // Preprocessed as the config beside the model says.
    CHECK(r.out.find("preprocessed as " + (fp32 / "inference.yml").string()) != std::string::npos);
    r = test::run_cli("quantize " + quoted(fp32) + " -o " + quoted(dir / "q_npy") + " --calib " +
                      quoted(dir / "npy") + " --max-error 0");
    INFO(r.out);
    REQUIRE(r.code == 0);
    const auto from_images = quant_scales(dir / "q_images");
    const auto from_npy = quant_scales(dir / "q_npy");
    REQUIRE(from_images.size() > 10);
    CHECK(from_images == from_npy);
    // Calibrated on other inputs (random ones), the activation scales differ:
    // the comparison above can fail.
    r = test::run_cli("quantize " + quoted(fp32) + " -o " + quoted(dir / "q_random") +
                      " --calib-random 4 --max-error 0");
    REQUIRE(r.code == 0);
    CHECK(quant_scales(dir / "q_random") != from_npy);

    // The side files came along, byte for byte; the model files are the quantized ones.
    for (const auto* name : {"inference.yml", "my_dict.txt", "README.md"}) {
        INFO(name);
        REQUIRE(fs::exists(dir / "q_images" / name));
        std::ifstream a(fp32 / name), b(dir / "q_images" / name);
        std::string sa((std::istreambuf_iterator<char>(a)), {}),
            sb((std::istreambuf_iterator<char>(b)), {});
        CHECK(sa == sb);
    }
    // Nothing else: not the model's other files, nor its subfolders.
    std::set<std::string> written;
    for (const auto& e : fs::directory_iterator(dir / "q_images"))
        written.insert(e.path().filename().string());
    CHECK(written == std::set<std::string>{"README.md", "inference.yml", "model.pdiparams",
                                           "model.pdmodel", "my_dict.txt"});
    // `run` on the quantized folder finds the copied config.
    r = test::run_cli("run " + quoted(dir / "q_images") + " --image " +
                      quoted(dir / "images" / "s0.png") + " --json");
    INFO(r.out.substr(0, 2000));
    REQUIRE(r.code == 0);
    CHECK(nlohmann::json::parse(r.out)["preprocess"].get<std::string>().find("inference.yml") !=
          std::string::npos);
}

TEST_CASE("quantize --calib: a folder without samples is a clear error") {
    auto dir = scratch("quantize_no_samples");
    auto r =
        test::run_cli("generate squeezenet1_1 -o " + quoted(dir / "fp32") + " --input-size 32");
    REQUIRE(r.code == 0);
    fs::create_directories(dir / "empty");
    write_text(dir / "empty" / "notes.txt", "nothing to calibrate on\n");
    r = test::run_cli("quantize " + quoted(dir / "fp32") + " -o " + quoted(dir / "q") +
                      " --calib " + quoted(dir / "empty"));
    INFO(r.out);
    CHECK(r.code == 2);
    CHECK(r.out.find("no .npy file and no image") != std::string::npos);
    CHECK(!fs::exists(dir / "q" / "model.pdmodel"));
    // An image that does not decode names the file.
    write_text(dir / "empty" / "broken.png", "not a png");
    r = test::run_cli("quantize " + quoted(dir / "fp32") + " -o " + quoted(dir / "q") +
                      " --calib " + quoted(dir / "empty"));
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK(r.out.find("broken.png") != std::string::npos);
    // --judge argmax on a model whose output is not [N, T, C] is a usage error.
    write_picture(dir / "empty" / "broken.png", 20, 20, 1);
    r = test::run_cli("quantize " + quoted(dir / "fp32") + " -o " + quoted(dir / "q") +
                      " --calib " + quoted(dir / "empty") + " --judge argmax");
    INFO(r.out);
    CHECK(r.code == 2);
    CHECK(r.out.find("needs a float first output of shape [N, T, C]") != std::string::npos);
    // A bad --judge is a usage error.
    r = test::run_cli("quantize " + quoted(dir / "fp32") + " -o " + quoted(dir / "q") +
                      " --calib-random 1 --judge median");
    CHECK(r.code == 2);
}

TEST_CASE("run --image on the text recognizer: PaddleOCR's recognizer preprocessing") {
    auto rec = test::shared_model("french_mobile_v2.0_rec");
    if (rec.empty()) {
        MESSAGE("skipped: no shared french_mobile_v2.0_rec");
        return;
    }
    auto dir = scratch("rec_image");
    write_picture(dir / "line.png", 200, 40, 3);
    auto r =
        test::run_cli("run " + quoted(rec) + " --image " + quoted(dir / "line.png") + " --json");
    INFO(r.out.substr(0, 2000));
    REQUIRE(r.code == 0);
    auto j = nlohmann::json::parse(r.out);
    CHECK(j["preprocess"].get<std::string>().find("text recognizer") != std::string::npos);
    CHECK(j["outputs"][0]["shape"] == nlohmann::json({1, 80, 137}));
    // --shape sets the width the line is padded to.
    r = test::run_cli("run " + quoted(rec) + " --image " + quoted(dir / "line.png") +
                      " --shape x=1,3,32,160 --json");
    REQUIRE(r.code == 0);
    CHECK(nlohmann::json::parse(r.out)["outputs"][0]["shape"] == nlohmann::json({1, 40, 137}));
}

TEST_CASE("quantize judges a CTC recognizer by its decoded argmax sequences") {
    auto rec = test::shared_model("french_mobile_v2.0_rec");
    if (rec.empty()) {
        MESSAGE("skipped: no shared french_mobile_v2.0_rec");
        return;
    }
    auto dir = scratch("quantize_rec");
    const auto x = load_npy(rec / "reference" / "input_x.npy");  // [3, 3, 32, 320]
    REQUIRE(x.shape().size() == 4);
    const auto n = x.shape()[0];
    const std::int64_t per = x.numel() / n;
    fs::create_directories(dir / "calib");
    for (std::int64_t i = 0; i < n; ++i) {
        auto v = x.span<float>().subspan(static_cast<std::size_t>(i * per),
                                         static_cast<std::size_t>(per));
        save_npy(
            dir / "calib" / ("line" + std::to_string(i) + ".npy"),
            tensor::from<float>({1, 3, 32, 320}, std::vector<float>(v.begin(), v.end())).ref());
    }
    auto r = test::run_cli("quantize " + quoted(rec) + " -o " + quoted(dir / "int8") + " --calib " +
                           quoted(dir / "calib"));
    INFO(r.out);
    REQUIRE(r.code == 0);
    const int float_argmax = kept_float(r.out);
    CHECK(r.out.find("judged by: argmax") != std::string::npos);
    CHECK(r.out.find("rows decoding differently from float: 0 of 3") != std::string::npos);
    // The dictionary and the README came along.
    CHECK(fs::exists(dir / "int8" / "french_dict.txt"));
    CHECK(fs::exists(dir / "int8" / "README.md"));
    CHECK(!fs::exists(dir / "int8" / "inference.pdmodel"));
    CHECK(!fs::exists(dir / "int8" / "inference.pdiparams"));

    // The int8 model (int8 kernels, not the simulation the search ran) reads
    // the three lines as the float model does.
    auto input = " --input x=" + quoted(rec / "reference" / "input_x.npy");
    r = test::run_cli("run " + quoted(rec) + input + " --output-dir " + quoted(dir / "float"));
    REQUIRE(r.code == 0);
    r = test::run_cli("run " + quoted(dir / "int8") + input + " --output-dir " + quoted(dir / "q") +
                      " --json");
    REQUIRE(r.code == 0);
    auto j = nlohmann::json::parse(r.out);
    CHECK(j["kernels"]["int8"].get<int>() > 0);
    const auto want = ctc_decode(load_npy(dir / "float" / "output_0.npy"));
    const auto got = ctc_decode(load_npy(dir / "q" / "output_0.npy"));
    REQUIRE(want.size() == 3);
    for (const auto& row : want) CHECK(row.size() > 3);
    CHECK(got == want);

    // --judge l2 on the same samples keeps at least as many ops float.
    r = test::run_cli("quantize " + quoted(rec) + " -o " + quoted(dir / "int8_l2") + " --calib " +
                      quoted(dir / "calib") + " --judge l2");
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK(r.out.find("judged by: l2") != std::string::npos);
    CHECK(float_argmax <= kept_float(r.out));
}
