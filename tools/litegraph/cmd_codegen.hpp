// litegraph codegen: a model as a firmware network header.  The options are
// parsed here; the code generator is library code (firmware/codegen.hpp).
#pragma once

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "cmd_plan.hpp"
#include "cmd_run.hpp"
#include "litegraph/firmware/codegen.hpp"
#include "options.hpp"

namespace litegraph::cli {

inline int cmd_codegen(const std::vector<std::string>& argv) {
    CLI::App app{
        "Writes the model as a firmware network: one header with\n"
        "the weights as constexpr arrays, the fused layers, and the activation\n"
        "arrays of a memory plan that the compiler computes and checks.  It\n"
        "includes only litegraph's protobuf-free headers.",
        "litegraph codegen"};
    setup_command(app);
    model_option model;
    add_model(app, model);
    std::string out_file, segments = "dtcm:128K,sram:436K", ns = "net";
    std::vector<std::string> shape_args;
    bool sample_input = false;
    app.add_option("-o", out_file, "the header to write")->type_name("FILE")->required();
    add_segments(app, segments, "dtcm:128K,sram:436K");
    app.add_option("--namespace", ns, "C++ namespace of the network (default net)")
        ->type_name("NAME");
    add_shape(app, shape_args);
    app.add_flag("--sample-input", sample_input,
                 "also write the deterministic input of `litegraph run`");
    std::vector<std::string> input_args;
    repeatable(app.add_option("--input", input_args,
                              "the sample input of NAME from a .npy file instead\n"
                              "(implies --sample-input; repeatable): its dtype and\n"
                              "shape must be the input's (as --shape and\n"
                              "--input-dtype say; without --shape NAME, its shape)"))
        ->type_name("NAME=FILE.npy")
        ->check(parsed_by([](const std::string& s) {
            auto eq = s.find('=');
            if (eq == std::string::npos || eq == 0 || eq + 1 == s.size())
                throw usage_error("expects NAME=FILE.npy, got '" + s + "'");
        }));
    preparation_option prep;
    add_patches(app, prep,
                "; none: untiled.  Without --patches, a network whose\n"
                "untiled plan does not fit --segments gets --patches auto\n"
                "(codegen prints a line that says so)");
    if (!parse(app, argv)) return 0;
    if (!firmware::codegen_detail::is_identifier(ns))
        throw usage_error("--namespace '" + ns + "' is not a C++ identifier");
    std::vector<std::string> seg_names;
    auto segs = parse_segments(segments, seg_names);
    for (auto& s : seg_names)
        if (!firmware::codegen_detail::is_identifier(s))
            throw usage_error("segment name '" + s + "' is not a C++ identifier");
    auto shapes = shapes_of(shape_args);
    // --input: a .npy a sample input (an input without --shape gets the file's).
    std::map<std::string, tensor> given;
    for (auto& a : input_args) {
        const auto eq = a.find('=');
        const std::string name = a.substr(0, eq), file = a.substr(eq + 1);
        if (given.count(name)) throw usage_error("--input " + name + " given twice");
        if (!std::filesystem::is_regular_file(file))
            throw usage_error("--input " + name + ": no file '" + file + "'");
        tensor t;
        try {
            t = load_npy(file);
        } catch (const io_error& e) {
            throw usage_error("--input " + name + ": " + e.what());
        }
        shapes.try_emplace(name, t.shape());
        given.emplace(name, std::move(t));
        sample_input = true;
    }
    firmware::codegen_request req;
    req.load = [&] { return load_model(model); };
    req.session = prep.session(shapes);
    req.shapes = shapes;
    req.auto_patches = prep.patches.empty();
    req.patch_budget = prep.patch_budget;
    req.segments_label = segments;
    req.header = {ns,           seg_names,
                  segs,         std::filesystem::path(model.source()).filename().string(),
                  sample_input, std::move(given)};
    auto res = firmware::codegen(req);
    for (auto& n : res.notes) std::cout << "codegen: " << n << "\n";
    if (const auto& c = res.patches) {
        std::cout << "patches: " << c->rows_cols() << " over " << c->first_op << " .. "
                  << c->last_op << " (split " << c->split_name << ", patched peak "
                  << c->predicted_peak_bytes << " B, untiled LOAD " << c->untiled_load_bytes
                  << " B, MACs x" << c->mac_overhead << ")";
        if (c->tail)
            std::cout << "; tail " << c->tail_first_op << " .. " << c->tail_last_op << " in "
                      << c->tail_rows << " bands";
        std::cout << "\n";
    }
    std::ofstream out(out_file, std::ios::binary);
    if (!out) throw io_error("cannot write " + out_file);
    out << res.header.text;
    if (!out) throw io_error("cannot write " + out_file);
    std::cout << "wrote " << out_file << ": " << res.header.layers << " layers";
    if (res.header.patch_layers)
        std::cout << " (" << res.header.patch_layers << " more inside the patched stages)";
    std::cout << ", " << res.header.weight_bytes << " weight bytes, " << res.buffers
              << " activation buffers to plan over";
    for (std::size_t s = 0; s < segs.size(); ++s)
        std::cout << (s ? ", " : " ") << seg_names[s] << ":" << segs[s].capacity;
    std::cout << "\n";
    return 0;
}

}  // namespace litegraph::cli
