// litegraph generate: writes the built-in example models in Paddle's format.
#pragma once

#include <filesystem>
#include <iostream>

#include "../generate/activations.hpp"
#include "../generate/squeezenet.hpp"
#include "model_arg.hpp"

namespace litegraph::cli {

inline int cmd_generate(const std::vector<std::string>& argv) {
    arg_spec spec;
    spec.with_value = {"-o", "--input-size"};
    spec.flags = {"--help", "-h"};
    auto a = parse_args(argv, spec);
    if (a.flag("--help") || a.flag("-h") || a.positional.empty()) {
        std::cout << "usage: litegraph generate NAME -o DIR [--input-size N]\n\n"
                     "Writes a Paddle-format model (DIR/model.pdmodel, DIR/model.pdiparams)\n"
                     "with deterministic weights, made by litegraph itself (no download).\n\n"
                     "  NAME                  squeezenet1_0 or squeezenet1_1 (input 1x3xNxN,\n"
                     "                        N in [32, 1024], default 128), or activations:\n"
                     "                        every activation, fused into convs and alone\n"
                     "                        (input 1x3xNxN, N in [3, 256], default 12)\n"
                     "  -o DIR                output folder (created)\n"
                     "  --input-size N        input height and width\n";
        return a.positional.empty() && !a.flag("--help") && !a.flag("-h") ? 2 : 0;
    }
    const auto& name = a.positional.front();
    if (name != "squeezenet1_0" && name != "squeezenet1_1" && name != "activations")
        throw usage_error("unknown model '" + name +
                          "' (squeezenet1_0, squeezenet1_1 or activations)");
    if (!a.has("-o")) throw usage_error("generate needs -o DIR");
    int input_size = 0;
    graph::graph g;
    if (name == "activations") {
        generate::activations_options opt;
        if (a.has("--input-size"))
            opt.input_size =
                static_cast<int>(parse_count("--input-size", a.value("--input-size"), 3, 256));
        input_size = opt.input_size;
        g = generate::activations(opt);
    } else {
        generate::squeezenet_options opt;
        opt.version = name.substr(std::string("squeezenet").size());
        if (a.has("--input-size"))
            opt.input_size =
                static_cast<int>(parse_count("--input-size", a.value("--input-size"), 32, 1024));
        input_size = opt.input_size;
        g = generate::squeezenet(opt);
    }
    std::filesystem::path dir = a.value("-o");
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
