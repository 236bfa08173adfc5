// litegraph generate: writes the built-in example models in Paddle's format.
#pragma once

#include <filesystem>
#include <iostream>

#include "litegraph/generate/activations.hpp"
#include "litegraph/generate/squeezenet.hpp"
#include "options.hpp"

namespace litegraph::cli {

inline int cmd_generate(const std::vector<std::string>& argv) {
    CLI::App app{
        "Writes a Paddle-format model (DIR/model.pdmodel, DIR/model.pdiparams)\n"
        "with deterministic weights, made by litegraph itself (no download).",
        "litegraph generate"};
    setup_command(app);
    std::string name, out_dir;
    app.add_option("NAME", name,
                   "squeezenet1_0 or squeezenet1_1 (input 1x3xNxN,\n"
                   "N in [32, 1024], default 128), or activations:\n"
                   "every activation, fused into convs and alone\n"
                   "(input 1x3xNxN, N in [3, 256], default 12)")
        ->type_name("")
        ->required()
        ->check(CLI::IsMember({"squeezenet1_0", "squeezenet1_1", "activations"}));
    app.add_option("-o", out_dir, "output folder (created)")->type_name("DIR")->required();
    int input_size_arg = 0;
    auto* size_opt = app.add_option("--input-size", input_size_arg, "input height and width")
                         ->type_name("N")
                         ->check(CLI::Range(3, 1024));
    if (!parse(app, argv)) return 0;
    int input_size = 0;
    graph::graph g;
    // The range of --input-size depends on the model.
    auto sized = [&](int lo, int hi, int fallback) {
        if (!*size_opt) return fallback;
        if (input_size_arg < lo || input_size_arg > hi)
            throw usage_error("--input-size: " + name + " takes N in [" + std::to_string(lo) +
                              ", " + std::to_string(hi) + "], got " +
                              std::to_string(input_size_arg));
        return input_size_arg;
    };
    if (name == "activations") {
        generate::activations_options opt;
        opt.input_size = sized(3, 256, opt.input_size);
        input_size = opt.input_size;
        g = generate::activations(opt);
    } else {
        generate::squeezenet_options opt;
        opt.version = name.substr(std::string("squeezenet").size());
        opt.input_size = sized(32, 1024, opt.input_size);
        input_size = opt.input_size;
        g = generate::squeezenet(opt);
    }
    std::filesystem::path dir = out_dir;
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) throw io_error("cannot create " + dir.string() + ": " + ec.message());
    paddle::save(g, dir, "model");
    std::cout << "wrote " << name << " (input 1x3x" << input_size << "x" << input_size << ") to "
              << (dir / "model.pdmodel").string() << " and " << (dir / "model.pdiparams").string()
              << "\n";
    return 0;
}

}  // namespace litegraph::cli
