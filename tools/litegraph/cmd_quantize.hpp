// litegraph quantize: post-training quantisation (include/litegraph/quantize/ptq.hpp).
#pragma once

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <random>
#include <sstream>

#include "cmd_run.hpp"
#include "litegraph/core/npy.hpp"
#include "litegraph/quantize/ptq.hpp"
#include "options.hpp"

namespace litegraph::cli {

/// Copies the small side files of the model's folder (`source`: the folder,
/// or a file in it) into `out`: *.yml, *.yaml, *.txt, *.md, README*,
/// LICENSE* up to 16 MiB each (configs, label lists, dictionaries), never
/// its model or params files (*.pdmodel, *.json, *.pdiparams*, which the
/// quantized model replaces) nor subfolders.  Returns the names copied.
inline std::vector<std::string> copy_side_files(const std::filesystem::path& source,
                                                const std::filesystem::path& out) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path dir = fs::is_directory(source) ? source : source.parent_path();
    std::vector<std::string> copied;
    if (dir.empty() || !fs::is_directory(dir, ec) || fs::equivalent(dir, out, ec)) return copied;
    std::vector<fs::path> files;
    for (auto& e : fs::directory_iterator(dir)) {
        if (!e.is_regular_file(ec)) continue;
        const auto name = e.path().filename().string();
        auto ext = e.path().extension().string();
        std::transform(ext.begin(), ext.end(), ext.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        const bool side = ext == ".yml" || ext == ".yaml" || ext == ".txt" || ext == ".md" ||
                          name.starts_with("README") || name.starts_with("LICENSE");
        if (!side || e.file_size(ec) > (std::uintmax_t{16} << 20)) continue;
        if (name.starts_with("model.")) continue;  // the names the quantized model is written as
        files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
        if (!fs::copy_file(f, out / f.filename(), fs::copy_options::overwrite_existing, ec))
            throw io_error("cannot copy " + f.string() + " into " + out.string() + ": " +
                           ec.message());
        copied.push_back(f.filename().string());
    }
    return copied;
}

inline int cmd_quantize(const std::vector<std::string>& argv) {
    CLI::App app{
        "Post-training quantisation: calibrates the activation range of every conv and\n"
        "fc input (and of the pools the int8 runtime keeps int8: a squeeze-and-excite\n"
        "block's, a max pool read by a float op) on sample inputs, quantises the\n"
        "weights per channel, and writes\n"
        "OUT_DIR/model.pdmodel + model.pdiparams with quantize_linear /\n"
        "dequantize_linear ops (litegraph run OUT_DIR then runs them in int8).\n"
        "Mixed precision: when the int8 outputs on the samples are off the float\n"
        "ones by more than --max-error, the ops most sensitive to int8 stay float\n"
        "(named on stdout) until the error is within it; for a CTC recognizer\n"
        "(--judge auto) until the decoded argmax sequences agree.  Give exactly\n"
        "one of --calib and --calib-random.  The model folder's small side files\n"
        "(*.yml, *.yaml, *.txt, *.md, README*, LICENSE*: inference.yml,\n"
        "infer_cfg.yml, the dictionary of a recognizer) are copied into OUT_DIR, so\n"
        "that it replaces the float model folder; its model and params files are not.",
        "litegraph quantize"};
    setup_command(app);
    model_option model;
    add_model(app, model);
    std::string out_dir, calib_dir;
    app.add_option("-o", out_dir, "output folder (created)")->type_name("OUT_DIR")->required();
    auto* calib = app.add_option("--calib", calib_dir,
                                 "calibrate on every DIR/*.npy (one input tensor each);\n"
                                 "in a folder without .npy files, on every PNG / JPEG\n"
                                 "(*.png, *.jpg, *.jpeg) preprocessed as `run --image`\n"
                                 "would (the model's infer_cfg.yml / inference.yml, or\n"
                                 "its defaults: a text recognizer's lines to 32 x 320,\n"
                                 "or --shape's height and width)")
                      ->type_name("DIR");
    long long calib_random = 0;
    app.add_option("--calib-random", calib_random,
                   "calibrate on N inputs uniform in [-1, 1) of the input's\n"
                   "shape (declared, -1 as 1, or --shape)")
        ->type_name("N")
        ->check(CLI::Range(1LL, 100000LL))
        ->excludes(calib);
    std::string how = "mse";
    app.add_option("--method", how,
                   "mse (default): the range with the least int8 rounding\n"
                   "+ clipping error over a histogram of |x| (two\n"
                   "passes); minmax: largest |x| seen; percentile: the\n"
                   "--percentile (default 99.99) of |x| (two passes)")
        ->type_name("M")
        ->check(CLI::IsMember({"mse", "minmax", "percentile"}));
    ptq::options opt;
    app.add_option("--percentile", opt.percentile,
                   "the percentile of --method percentile, in (0, 100]\n(default 99.99)")
        ->type_name("P")
        ->check(number_check([](double x) { return x > 0 && x <= 100; }, "a number in (0, 100]"));
    app.add_option("--max-error", opt.max_error,
                   "relative L2 error of the outputs (int8 vs float, on\n"
                   "the calibration samples) above which sensitive ops\n"
                   "stay float (default 0.05; 0: every op int8, whatever\n"
                   "--judge says)")
        ->type_name("E")
        ->check(number_check([](double x) { return x >= 0 && x <= 1e30; }, "a number >= 0"));
    std::string judge = "auto";
    app.add_option("--judge", judge,
                   "what --max-error's search accepts: l2 (the relative L2\n"
                   "error of the outputs within --max-error); argmax (each\n"
                   "row's CTC decode of the [N, T, C] first output, argmax\n"
                   "per step, repeats merged, class 0 dropped, equals the\n"
                   "float model's, but for --max-mismatch of them); auto\n"
                   "(default): argmax when the first output is [N, T, C]\n"
                   "probabilities (rows in [0, 1] summing to 1), else l2")
        ->type_name("J")
        ->check(CLI::IsMember({"auto", "l2", "argmax"}));
    app.add_option("--max-mismatch", opt.max_mismatch,
                   "--judge argmax: the fraction of the sample rows whose\n"
                   "decode may differ from the float model's (default 0)")
        ->type_name("F")
        ->check(number_check([](double x) { return x >= 0 && x <= 1; }, "a number in [0, 1]"));
    std::vector<std::string> shape_args;
    add_shape(app, shape_args);
    std::uint32_t seed = 1;
    app.add_option("--seed", seed, "seed of --calib-random (default 1)")
        ->type_name("S")
        ->check(CLI::Range(std::uint32_t{0}, std::uint32_t{1} << 31));
    bool quiet = false;
    app.add_flag("--quiet", quiet,
                 "no progress line (it shows only when stderr is a\nterminal: reading --calib "
                 "samples, calibrating, and\nthe sensitivity of each op over --max-error)");
    if (!parse(app, argv)) return 0;
    if (!*calib && calib_random == 0)
        throw usage_error("give exactly one of --calib DIR and --calib-random N");
    if (judge == "l2")
        opt.judge = ptq::criterion::l2;
    else if (judge == "argmax")
        opt.judge = ptq::criterion::argmax;
    if (how == "percentile")
        opt.how = ptq::method::percentile;
    else if (how == "minmax")
        opt.how = ptq::method::minmax;
    // Progress redraws one line with \r: for a terminal only, not a log or a pipe.
    const bool progress = !quiet && isatty(fileno(stderr));
    auto m = load_model(model);
    if (m.graph.feeds.size() != 1)
        throw unsupported_error("quantize calibrates models with one input; this one has " +
                                std::to_string(m.graph.feeds.size()));
    const auto& feed = m.graph.vars[m.graph.feeds[0].var];
    std::vector<tensor> samples;
    if (*calib) {
        std::filesystem::path dir = calib_dir;
        if (!std::filesystem::is_directory(dir))
            throw usage_error("--calib: '" + dir.string() + "' is not a folder");
        std::vector<std::filesystem::path> files, pictures;
        for (auto& e : std::filesystem::directory_iterator(dir)) {
            if (!e.is_regular_file()) continue;
            auto ext = e.path().extension().string();
            std::transform(ext.begin(), ext.end(), ext.begin(),
                           [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
            if (ext == ".npy") files.push_back(e.path());
            if (ext == ".png" || ext == ".jpg" || ext == ".jpeg") pictures.push_back(e.path());
        }
        std::sort(files.begin(), files.end());
        std::sort(pictures.begin(), pictures.end());
        if (files.empty() && pictures.empty())
            throw usage_error("--calib: no .npy file and no image (*.png, *.jpg, *.jpeg) in '" +
                              dir.string() + "'");
        if (!files.empty() && !pictures.empty())
            std::cout << "--calib: " << files.size() << " .npy file(s) in '" << dir.string()
                      << "': ignoring its " << pictures.size() << " image(s)\n";
        if (files.empty()) {
            // Images, preprocessed as `run --image` does.
            const auto& out_var = m.graph.vars[m.graph.fetches.at(0).var];
            const auto shapes = shapes_of(shape_args);
            auto it = shapes.find(feed.name);
            if (it != shapes.end() && !feed.shape.empty() && it->second.size() != feed.shape.size())
                throw usage_error("--shape " + feed.name + ": the input has rank " +
                                  std::to_string(feed.shape.size()) + ", got " +
                                  std::to_string(it->second.size()) + " dims");
            if (feed.type != dtype::f32)
                throw unsupported_error("--calib: images feed a float32 input; input '" +
                                        feed.name + "' is " + std::string(name_of(feed.type)));
            auto [config, source] =
                image_preprocessing(model.source(), std::nullopt, feed.shape, out_var.shape,
                                    it != shapes.end() ? &it->second : nullptr);
            std::cout << "calibration images: " << pictures.size() << ", preprocessed as " << source
                      << "\n";
            for (std::size_t i = 0; i < pictures.size(); ++i) {
                if (progress)
                    std::cerr << "\rreading calibration images: " << i + 1 << "/" << pictures.size()
                              << std::flush;
                auto r = vision::preprocess(decode_image(pictures[i]), config.preprocess);
                const auto& s = r.input.shape();
                if (feed.shape.size() == 4 && feed.shape[1] > 0 && feed.shape[1] != s[1])
                    throw usage_error("--calib: the model's input '" + feed.name + "' takes " +
                                      std::to_string(feed.shape[1]) +
                                      " channel(s), the preprocessed image " +
                                      pictures[i].string() + " has " + std::to_string(s[1]));
                samples.push_back(std::move(r.input));
            }
        }
        for (std::size_t i = 0; i < files.size(); ++i) {
            if (progress)
                std::cerr << "\rreading calibration samples: " << i + 1 << "/" << files.size()
                          << std::flush;
            samples.push_back(load_npy(files[i]));
        }
        if (progress) std::cerr << "\n";
    } else {
        const auto n = calib_random;
        const auto shape = input_shape(feed, shapes_of(shape_args));
        std::mt19937 rng(seed);
        std::uniform_real_distribution<float> d(-1.f, 1.f);
        for (long long i = 0; i < n; ++i) {
            tensor t(feed.type, shape);
            if (feed.type != dtype::f32)
                throw unsupported_error("--calib-random makes float32 inputs; input '" + feed.name +
                                        "' is " + std::string(name_of(feed.type)));
            for (auto& v : t.span<float>()) v = d(rng);
            samples.push_back(std::move(t));
        }
    }
    if (progress) {
        opt.progress = [](int pass, int s, int n, int passes) {
            std::cerr << "\rcalibrating: pass " << pass + 1 << "/" << passes << ", sample " << s
                      << "/" << n << std::flush;
            if (s == n && pass + 1 == passes) std::cerr << "\n";
        };
        opt.checking = [](int i, int n) {
            std::cerr << "\rint8 error over --max-error: sensitivity of op " << i << "/" << n
                      << std::flush;
            if (i == n) std::cerr << "\n";
        };
    }
    auto r = ptq::quantize(m.graph, samples, opt);
    if (r.candidates == 0)
        throw unsupported_error("quantize: the model has no conv or fc to quantise");
    if (r.ops == 0) {
        std::ostringstream m;
        m << "quantize: every one of the " << r.candidates
          << " quantizable ops had to stay float to keep the output error within --max-error "
          << opt.max_error << " (all int8: " << r.error_all_int8
          << "); calibrate on other samples or raise --max-error";
        throw unsupported_error(m.str());
    }
    std::filesystem::path out = out_dir;
    paddle::save(m.graph, out, "model");
    const auto copied = copy_side_files(model.source(), out);
    std::cout << "quantised " << r.ops << " ops";
    if (r.pools) std::cout << " (" << r.pools << " of them pools: their input only)";
    std::cout << " (" << r.activations << " activation ranges, method " << how << ", "
              << samples.size() << " samples) into " << (out / "model.pdmodel").string() << "\n";
    if (opt.max_error > 0) {
        const bool argmax = r.judge == ptq::criterion::argmax;
        std::cout << "judged by: "
                  << (argmax ? "argmax (the CTC decode of the first output's rows)"
                             : "l2 (relative L2 error of the outputs)")
                  << (judge == "auto" ? ", chosen by --judge auto" : "") << "\n";
        if (argmax)
            std::cout << "rows decoding differently from float: " << r.mismatches << " of "
                      << r.rows << " (all " << r.candidates << " int8: " << r.mismatches_all_int8
                      << ")\n";
        std::cout << "output error (relative L2, int8 vs float on the samples): " << r.error;
        if (!r.kept_float.empty())
            std::cout << " (all " << r.candidates << " int8: " << r.error_all_int8 << ")";
        std::cout << "\nkept float " << r.kept_float.size() << " of " << r.candidates << " ops";
        if (!r.kept_float.empty()) std::cout << ":";
        for (const auto& k : r.kept_float) std::cout << " " << k;
        std::cout << "\n";
    }
    if (!copied.empty()) {
        std::cout << "copied beside it:";
        for (const auto& c : copied) std::cout << " " << c;
        std::cout << "\n";
    }
    return 0;
}

}  // namespace litegraph::cli
