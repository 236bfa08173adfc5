// detect: runs a PaddleDetection export (model.pdmodel + model.pdiparams +
// infer_cfg.yml) on a picture and draws its labelled boxes.
//
// usage: detect IMAGE MODEL_DIR [-o OUT.png] [--json] [--threshold X]
//
// The steps, each one call:
//   1. the export's config (infer_cfg.yml: Preprocess, label_list,
//      draw_threshold), read with yaml-cpp into vision::model_config;
//   2. the picture decoded (stb) and preprocessed as the config says
//      (vision::preprocess: resize, normalise, permute, ...), which also gives
//      the im_shape and scale_factor feeds a detector takes;
//   3. the model loaded, fused and run (litegraph::session, its program);
//   4. its rows [label, score, x1, y1, x2, y2] (boxes in the picture's pixels)
//      at or above the threshold, named from label_list, drawn and printed.
// The config reading, decoding and drawing are the CLI's own helpers
// (tools/litegraph/images.hpp: `litegraph run --image --draw` does the same).
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>

#include "../../tools/litegraph/images.hpp"
#include "../../tools/litegraph/options.hpp"
#include "litegraph/paddle.hpp"

namespace {

constexpr const char* description =
    "Runs a PaddleDetection export (MODEL_DIR with model.pdmodel, model.pdiparams and\n"
    "infer_cfg.yml) on IMAGE (PNG or JPEG), preprocessed as infer_cfg.yml says, and\n"
    "prints one line per box: label name, score, x1 y1 x2 y2 in IMAGE's pixels.";

}  // namespace

int main(int argc, char** argv) {
    namespace cli = litegraph::cli;
    std::string image_file, model_dir, out_png;
    bool json = false;
    double threshold = -1;
    try {
        // The CLI's options (CLI11, tools/litegraph/options.hpp).
        CLI::App app{description, "detect"};
        cli::setup_command(app);
        app.add_option("IMAGE", image_file, "a PNG or JPEG")->type_name("")->required();
        app.add_option("MODEL_DIR", model_dir,
                       "a PaddleDetection export: model.pdmodel, model.pdiparams,\n"
                       "infer_cfg.yml")
            ->type_name("")
            ->required();
        app.add_option("-o", out_png, "draw the labelled boxes on the image")->type_name("OUT.png");
        cli::add_json(app, json, "{\"detections\": [{\"label\", \"name\", \"score\", \"box\"}]}");
        app.add_option("--threshold", threshold,
                       "the least score shown (default: the config's draw_threshold)")
            ->type_name("X")
            ->check(
                cli::number_check([](double x) { return x >= 0 && x <= 1; }, "a number in [0, 1]"));
        if (!cli::parse(app, {argv + 1, argv + argc})) return 0;
    } catch (const litegraph::usage_error& e) {
        std::cerr << "detect: " << e.what() << "\n";
        return 2;
    }
    try {
        // 1. The export's config.
        auto config_file = cli::find_config(model_dir);
        if (!config_file)
            throw litegraph::usage_error(model_dir +
                                         " has no infer_cfg.yml (a PaddleDetection "
                                         "export has one beside its model)");
        const auto config = cli::read_config_file(*config_file);
        if (threshold < 0) threshold = config.draw_threshold;
        // 2. The picture, preprocessed.
        const auto picture = cli::decode_image(image_file);
        const auto input = litegraph::vision::preprocess(picture, config.preprocess);
        // 3. The model, fused, run.
        litegraph::session s{std::filesystem::path(model_dir)};
        auto& prog = s.program();  // its feeds are filled from the picture's resize
        cli::set_image_feeds(prog, {input});
        prog.run();
        if (cli::kind_of(prog.output(0)) != cli::result_kind::detections)
            throw litegraph::usage_error(model_dir +
                                         ": not a detector (its first output is not "
                                         "[N, 6] rows of label, score, x1, y1, x2, y2)");
        // 4. The boxes.
        const auto found = cli::detections(prog, config, 0, threshold);
        if (json)
            std::cout << nlohmann::json{{"detections", found}}.dump() << "\n";
        else
            for (const auto& d : found)
                std::printf("%-16s %.3f  %.1f %.1f %.1f %.1f\n",
                            d["name"].get<std::string>().c_str(), d["score"].get<double>(),
                            d["box"][0].get<double>(), d["box"][1].get<double>(),
                            d["box"][2].get<double>(), d["box"][3].get<double>());
        if (!out_png.empty())
            cli::write_png(out_png, cli::draw_results(picture, {{"detections", found}}));
        return 0;
    } catch (const litegraph::usage_error& e) {
        std::cerr << "detect: " << e.what() << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "detect: " << e.what() << "\n";
        return 1;
    }
}
