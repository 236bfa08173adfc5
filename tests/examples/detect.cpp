// examples/detect on ppyolo_tiny_trash: the picture is the reference input
// (a 320x320 image normalised as infer_cfg.yml says) turned back into a PNG;
// the example's boxes must be those of the runtime fed a plain
// reimplementation of the preprocessing of that PNG, and keep the reference
// outputs' labels; a picture is written; bad arguments are exit 2.
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "litegraph/core/npy.hpp"
#include "litegraph/paddle.hpp"
#include "litegraph/passes/pipeline.hpp"
#include "litegraph/runtime/program.hpp"
#include "support.hpp"

#include "stb_image_impl.hpp"

using namespace litegraph;
namespace fs = std::filesystem;

namespace {

const float mean[3] = {0.485f, 0.456f, 0.406f}, stdev[3] = {0.229f, 0.224f, 0.225f};

/// A fresh, empty scratch folder in the build tree.
fs::path scratch(const std::string& name) {
    auto dir = fs::path(LITEGRAPH_BINARY_DIR) / "scratch" / "examples" / name;
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

/// Runs a command through the shell; its stdout, stderr and exit code.
test::cli_result run(const std::string& cmd) {
    test::cli_result r;
    FILE* pipe = popen((cmd + " 2>&1").c_str(), "r");
    REQUIRE(pipe != nullptr);
    char buf[4096];
    std::size_t n;
    while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) r.out.append(buf, n);
    const int status = pclose(pipe);
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return r;
}

}  // namespace

TEST_CASE("examples/detect finds the boxes the runtime finds on the same preprocessed picture") {
    auto dir = test::shared_model("ppyolo_tiny_trash");
    if (dir.empty()) return;
    const auto exe = fs::path(LITEGRAPH_BINARY_DIR) / "bin" / "detect";
    REQUIRE_MESSAGE(fs::exists(exe), "build the example first: " << exe.string());
    auto out = scratch("example_detect");

    // The reference input as a PNG: x * std + mean, times 255, rounded.
    const auto ref = load_npy(dir / "reference" / "input_image.npy");
    REQUIRE(ref.shape() == shape_t{1, 3, 320, 320});
    const int w = 320, h = 320;
    std::vector<unsigned char> rgb(static_cast<std::size_t>(w * h * 3));
    const float* x = ref.span<float>().data();
    for (int c = 0; c < 3; ++c)
        for (int i = 0; i < w * h; ++i) {
            const float v = (x[c * w * h + i] * stdev[c] + mean[c]) * 255.f;
            rgb[static_cast<std::size_t>(i * 3 + c)] =
                static_cast<unsigned char>(std::lround(std::clamp(v, 0.f, 255.f)));
        }
    const auto png = out / "trash_ref.png";
    REQUIRE(stbi_write_png(png.string().c_str(), w, h, 3, rgb.data(), w * 3) != 0);

    auto r = run("'" + exe.string() + "' '" + png.string() + "' '" + dir.string() +
                 "' --json --threshold 0 -o '" + (out / "boxes.png").string() + "'");
    INFO(r.out);
    REQUIRE(r.code == 0);
    const auto found = nlohmann::json::parse(r.out)["detections"];
    CHECK(fs::file_size(out / "boxes.png") > 1000);

    // The runtime on a plain reimplementation of infer_cfg.yml's steps
    // (Resize to 320x320: the picture's own size; NormalizeImage; Permute).
    const auto img = test::load_picture(png);
    REQUIRE(img.width == w);
    tensor in(dtype::f32, {1, 3, h, w});
    auto p = in.span<float>();
    for (int c = 0; c < 3; ++c)
        for (int y = 0; y < h; ++y)
            for (int xx = 0; xx < w; ++xx)
                p[static_cast<std::size_t>((c * h + y) * w + xx)] =
                    (img.at(xx, y, c) / 255.f - mean[c]) / stdev[c];
    auto m = paddle::load(dir);
    passes::run_passes(m.graph);
    runtime::program prog(std::move(m.graph));
    prog.set_input("image", std::move(in));
    prog.set_input("im_shape", tensor::from<float>({1, 2}, std::vector<float>{320.f, 320.f}));
    prog.set_input("scale_factor", tensor::from<float>({1, 2}, std::vector<float>{1.f, 1.f}));
    prog.run();
    const auto& rows = prog.output(0);
    const auto d = rows.span<float>();
    REQUIRE(found.size() == static_cast<std::size_t>(rows.shape[0]));
    for (std::size_t i = 0; i < found.size(); ++i) {
        INFO("row " << i);
        CHECK(found[i]["label"].get<int>() == static_cast<int>(d[i * 6]));
        CHECK(std::abs(found[i]["score"].get<double>() - d[i * 6 + 1]) < 1e-6);
        for (std::size_t k = 0; k < 4; ++k)
            CHECK(std::abs(found[i]["box"][k].get<double>() - d[i * 6 + 2 + k]) < 1e-3);
    }
    // The PNG's rounding (at most half a grey level) keeps the reference labels.
    const auto want = load_npy(dir / "reference" / "output_0.npy");
    REQUIRE(static_cast<std::size_t>(want.shape()[0]) == found.size());
    for (std::size_t i = 0; i < found.size(); ++i) {
        CHECK(found[i]["label"].get<int>() == static_cast<int>(want.span<float>()[i * 6]));
        CHECK(std::abs(found[i]["score"].get<double>() - want.span<float>()[i * 6 + 1]) < 0.02);
    }
    // The default threshold is the config's draw_threshold (0.5): these
    // scores are below it.
    auto dflt = run("'" + exe.string() + "' '" + png.string() + "' '" + dir.string() + "' --json");
    REQUIRE(dflt.code == 0);
    CHECK(nlohmann::json::parse(dflt.out)["detections"].empty());
    // docs/usage.md's picture (docs/images/detect.png): the boxes over 0.25.
    fs::create_directories(fs::path(LITEGRAPH_BINARY_DIR) / "examples");
    const auto picture = fs::path(LITEGRAPH_BINARY_DIR) / "examples" / "detect.png";
    auto pic = run("'" + exe.string() + "' '" + png.string() + "' '" + dir.string() +
                   "' --threshold 0.25 -o '" + picture.string() + "'");
    CHECK(pic.code == 0);
    CHECK(pic.out.find("bz") != std::string::npos);
    CHECK(fs::exists(picture));
}

TEST_CASE("examples/detect refuses bad arguments with exit 2 and a message") {
    const auto exe = fs::path(LITEGRAPH_BINARY_DIR) / "bin" / "detect";
    REQUIRE(fs::exists(exe));
    auto r = run("'" + exe.string() + "' a.png");
    CHECK(r.code == 2);
    CHECK(r.out.find("MODEL_DIR is required") != std::string::npos);
    r = run("'" + exe.string() + "' a.png dir --threshold 2");
    CHECK(r.code == 2);
    CHECK(r.out.find("--threshold: expects a number in [0, 1], got '2'") != std::string::npos);
    r = run("'" + exe.string() + "' --help");
    CHECK(r.code == 0);
    CHECK(r.out.find("usage: detect") != std::string::npos);
    auto tmp = scratch("example_detect_bad");
    r = run("'" + exe.string() + "' a.png '" + tmp.string() + "'");
    CHECK(r.code == 2);
    CHECK(r.out.find("no infer_cfg.yml") != std::string::npos);
}
