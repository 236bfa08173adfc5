// litegraph quantize: post-training quantisation (tools/quantize/ptq.hpp).
#pragma once

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <random>
#include <sstream>

#include "../quantize/ptq.hpp"
#include "cmd_run.hpp"
#include "litegraph/core/npy.hpp"
#include "options.hpp"

namespace litegraph::cli {

inline int cmd_quantize(const std::vector<std::string>& argv) {
    CLI::App app{
        "Post-training quantisation: calibrates the activation range of every conv and\n"
        "fc input on sample inputs, quantises their weights per channel, and writes\n"
        "OUT_DIR/model.pdmodel + model.pdiparams with quantize_linear /\n"
        "dequantize_linear ops (litegraph run OUT_DIR then runs them in int8).\n"
        "Mixed precision: when the int8 outputs on the samples are off the float\n"
        "ones by more than --max-error, the ops most sensitive to int8 stay float\n"
        "(named on stdout) until the error is within it.  Give exactly one of\n"
        "--calib and --calib-random.",
        "litegraph quantize"};
    setup_command(app);
    model_option model;
    add_model(app, model);
    std::string out_dir, calib_dir;
    app.add_option("-o", out_dir, "output folder (created)")->type_name("OUT_DIR")->required();
    auto* calib =
        app.add_option("--calib", calib_dir, "calibrate on every DIR/*.npy (one input tensor each)")
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
                   "stay float (default 0.05; 0: every op int8)")
        ->type_name("E")
        ->check(number_check([](double x) { return x >= 0 && x <= 1e30; }, "a number >= 0"));
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
        std::vector<std::filesystem::path> files;
        for (auto& e : std::filesystem::directory_iterator(dir))
            if (e.path().extension() == ".npy") files.push_back(e.path());
        std::sort(files.begin(), files.end());
        if (files.empty()) throw usage_error("--calib: no .npy file in '" + dir.string() + "'");
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
    std::cout << "quantised " << r.ops << " ops (" << r.activations << " activation ranges, method "
              << how << ", " << samples.size() << " samples) into "
              << (out / "model.pdmodel").string() << "\n";
    if (opt.max_error > 0) {
        std::cout << "output error (relative L2, int8 vs float on the samples): " << r.error;
        if (!r.kept_float.empty()) {
            std::cout << " (all " << r.candidates << " int8: " << r.error_all_int8
                      << ")\nkept float " << r.kept_float.size() << ":";
            for (const auto& k : r.kept_float) std::cout << " " << k;
        }
        std::cout << "\n";
    }
    return 0;
}

}  // namespace litegraph::cli
