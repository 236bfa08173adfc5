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
#include "model_arg.hpp"

namespace litegraph::cli {

inline int cmd_quantize(const std::vector<std::string>& argv) {
    arg_spec spec;
    spec.with_value = {"-o",           "--calib", "--calib-random", "--method",
                       "--percentile", "--shape", "--seed",         "--max-error"};
    spec.flags = {"--help", "-h", "--quiet"};
    add_model_options(spec);
    auto a = parse_args(argv, spec);
    if (a.flag("--help") || a.flag("-h")) {
        std::cout
            << "usage: litegraph quantize MODEL -o OUT_DIR (--calib DIR | --calib-random N)\n"
               "                          [--method mse|minmax|percentile] [--percentile P]\n"
               "                          [--max-error E] [--shape NAME=DIMS] [--seed S]\n"
               "                          [--quiet]\n\n"
               "Post-training quantisation: calibrates the activation range of every conv and\n"
               "fc input on sample inputs, quantises their weights per channel, and writes\n"
               "OUT_DIR/model.pdmodel + model.pdiparams with quantize_linear /\n"
               "dequantize_linear ops (litegraph run OUT_DIR then runs them in int8).\n"
               "Mixed precision: when the int8 outputs on the samples are off the float\n"
               "ones by more than --max-error, the ops most sensitive to int8 stay float\n"
               "(named on stdout) until the error is within it.\n\n"
            << model_help
            << "  -o OUT_DIR            output folder (created)\n"
               "  --calib DIR           calibrate on every DIR/*.npy (one input tensor each)\n"
               "  --calib-random N      calibrate on N inputs uniform in [-1, 1) of the input's\n"
               "                        shape (declared, -1 as 1, or --shape)\n"
               "  --method M            mse (default): the range with the least int8 rounding\n"
               "                        + clipping error over a histogram of |x| (two\n"
               "                        passes); minmax: largest |x| seen; percentile: the\n"
               "                        --percentile (default 99.99) of |x| (two passes)\n"
               "  --max-error E         relative L2 error of the outputs (int8 vs float, on\n"
               "                        the calibration samples) above which sensitive ops\n"
               "                        stay float (default 0.05; 0: every op int8)\n"
               "  --seed S              seed of --calib-random (default 1)\n"
               "  --quiet               no progress (it shows only when stderr is a terminal)\n";
        return 0;
    }
    if (!a.has("-o")) throw usage_error("quantize needs -o OUT_DIR");
    if (a.has("--calib") == a.has("--calib-random"))
        throw usage_error("give exactly one of --calib DIR and --calib-random N");
    ptq::options opt;
    const auto how = a.value("--method", "mse");
    if (how == "percentile")
        opt.how = ptq::method::percentile;
    else if (how == "minmax")
        opt.how = ptq::method::minmax;
    else if (how != "mse")
        throw usage_error("--method expects mse, minmax or percentile, got '" + how + "'");
    if (a.has("--max-error"))
        opt.max_error =
            parse_number("--max-error", a.value("--max-error"), 0, 1e30, "a number >= 0");
    if (a.has("--percentile"))
        opt.percentile = parse_number("--percentile", a.value("--percentile"), 1e-300, 100,
                                      "a number in (0, 100]");
    auto m = load_model(a);
    if (m.graph.feeds.size() != 1)
        throw unsupported_error("quantize calibrates models with one input; this one has " +
                                std::to_string(m.graph.feeds.size()));
    const auto& feed = m.graph.vars[m.graph.feeds[0].var];
    std::vector<tensor> samples;
    if (a.has("--calib")) {
        std::filesystem::path dir = a.value("--calib");
        if (!std::filesystem::is_directory(dir))
            throw usage_error("--calib: '" + dir.string() + "' is not a folder");
        std::vector<std::filesystem::path> files;
        for (auto& e : std::filesystem::directory_iterator(dir))
            if (e.path().extension() == ".npy") files.push_back(e.path());
        std::sort(files.begin(), files.end());
        if (files.empty()) throw usage_error("--calib: no .npy file in '" + dir.string() + "'");
        for (auto& f : files) samples.push_back(load_npy(f));
    } else {
        const auto n = parse_count("--calib-random", a.value("--calib-random"), 1, 100000);
        std::map<std::string, shape_t> shapes;
        for (auto& s : a.all("--shape")) {
            auto [name, dims] = parse_shape_arg(s);
            shapes[name] = dims;
        }
        const auto shape = input_shape(feed, shapes);
        std::mt19937 rng(static_cast<std::uint32_t>(
            a.has("--seed") ? parse_count("--seed", a.value("--seed"), 0, 1LL << 31) : 1));
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
    // Progress redraws one line with \r: for a terminal only, not a log or a pipe.
    if (!a.flag("--quiet") && isatty(fileno(stderr))) {
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
    std::filesystem::path out = a.value("-o");
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
