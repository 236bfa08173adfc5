// int8 / fp32 latency on the desktop.  Per model, three programs run
// alternately on the same input (single thread, median of N runs after a
// warm-up, the order rotating each run): the int8 graph (all passes), the
// float simulation of the same quantized model (--precision fp32) and the
// float model it came from.  Prints the CPU and the SIMD path (the int8
// kernels' too: LITEGRAPH_SIMD=avx2 forces the AVX2 loops).
//
//   bench_int8 [--runs N] [--json] [--filter TEXT]
//
// Models, at the shapes the int8 bars name: ppocr_mobile_v2.0_cls_slim_quant
// at 1x3x48x192 and 8x3x48x192 (its float model: ppocr_mobile_v2.0_cls;
// the input: uniform in [-1, 1)), the PTQ of ppocr_mobile_v2.0_cls (4 random
// calibration inputs) at 1x3x48x192, and the PTQ of the generated SqueezeNet
// 1.0 and 1.1 at 1x3x224x224 (4 random calibration inputs, as `litegraph
// quantize --calib-random 4`).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../machine.hpp"
#include "litegraph/core/npy.hpp"
#include "litegraph/generate/squeezenet.hpp"
#include "litegraph/kernels/simd.hpp"
#include "litegraph/paddle.hpp"
#include "litegraph/passes/pipeline.hpp"
#include "litegraph/quantize/ptq.hpp"
#include "litegraph/runtime/program.hpp"

using namespace litegraph;
namespace fs = std::filesystem;

namespace {

struct candidate {
    std::string name;
    graph::graph quantized;                   // fake-quantized or PTQ'd
    std::optional<graph::graph> float_model;  // the float model it came from
    tensor input;
};

runtime::program make(graph::graph g, bool int8, const tensor& input) {
    passes::pipeline_options o;
    if (!int8) o.skip = {std::string(passes::pass_name(passes::quantize_int8))};
    passes::run_passes(g, o);
    runtime::program p(std::move(g));
    p.set_input(0, input);
    p.run();
    return p;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const auto n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

tensor uniform(const shape_t& s, std::uint32_t seed) {
    tensor t(dtype::f32, s);
    std::uint32_t x = seed * 2654435761u + 1;
    for (auto& v : t.span<float>()) {
        x = x * 1664525u + 1013904223u;
        v = static_cast<float>(x >> 8) / float(1u << 24) * 2.f - 1.f;
    }
    return t;
}

}  // namespace

int main(int argc, char** argv) {
    int runs = 20;
    bool json = false;
    std::string filter;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--runs" && i + 1 < argc) {
            runs = std::max(1, std::atoi(argv[++i]));
        } else if (a == "--json") {
            json = true;
        } else if (a == "--filter" && i + 1 < argc) {
            filter = argv[++i];
        } else {
            std::cout << "usage: bench_int8 [--runs N] [--json] [--filter TEXT]\n\n"
                         "int8 / fp32 latency per model: the int8 graph, the float simulation\n"
                         "of the quantized model and its float model, alternately (the order\n"
                         "rotating), single thread; medians of N runs (default 20) and their\n"
                         "ratios.  Models: the slim-quant classifier at 1x3x48x192 and\n"
                         "8x3x48x192, the classifier's PTQ at 1x3x48x192, SqueezeNet 1.0 and\n"
                         "1.1 PTQ at 1x3x224x224; --filter keeps the models whose name has TEXT.\n"
                         "LITEGRAPH_SIMD=avx2 runs the AVX2 path on a wider CPU.\n";
            return a == "--help" || a == "-h" ? 0 : 2;
        }
    }
    if (const std::string& e = kernels::simd::check_env(); !e.empty()) {
        std::cerr << "bench_int8: " << e << "\n";
        return 2;
    }
    auto wanted = [&](const std::string& name) {
        return filter.empty() || name.find(filter) != std::string::npos;
    };
    const fs::path models = fs::path(LITEGRAPH_SHARED_DIR) / "models";
    std::vector<candidate> list;
    if (fs::exists(models / "ppocr_mobile_v2.0_cls_slim_quant") &&
        fs::exists(models / "ppocr_mobile_v2.0_cls")) {
        auto fp = paddle::load(models / "ppocr_mobile_v2.0_cls").graph;
        const auto slim = paddle::load(models / "ppocr_mobile_v2.0_cls_slim_quant").graph;
        for (std::int64_t n : {1, 8}) {
            const std::string name = "cls_slim_quant_" + std::to_string(n) + "x3x48x192";
            if (wanted(name)) list.push_back({name, slim, fp, uniform({n, 3, 48, 192}, 5)});
        }
        if (wanted("cls_ptq_1x3x48x192")) {
            auto q = fp;
            std::vector<tensor> calib;
            for (std::uint32_t s = 0; s < 4; ++s) calib.push_back(uniform({1, 3, 48, 192}, s));
            ptq::quantize(q, calib);
            list.push_back({"cls_ptq_1x3x48x192", std::move(q), fp, uniform({1, 3, 48, 192}, 5)});
        }
    } else {
        std::cerr << "bench_int8: the shared models are absent; SqueezeNet only\n";
    }
    for (std::string v : {"1_0", "1_1"}) {
        const std::string name = "squeezenet" + v + "_224_ptq";
        if (!wanted(name)) continue;
        generate::squeezenet_options o;
        o.version = v;
        o.input_size = 224;
        auto fp = generate::squeezenet(o);
        auto q = fp;
        std::vector<tensor> calib;
        for (std::uint32_t s = 0; s < 4; ++s) calib.push_back(uniform({1, 3, 224, 224}, 7 + s));
        ptq::quantize(q, calib);
        list.push_back({name, std::move(q), fp, uniform({1, 3, 224, 224}, 9)});
    }
    if (list.empty()) {
        std::cerr << "bench_int8: no model matches --filter " << filter << "\n";
        return 2;
    }

    nlohmann::json out = nlohmann::json::array();
    using clock = std::chrono::steady_clock;
    for (auto& c : list) {
        std::vector<runtime::program> progs;
        progs.push_back(make(c.quantized, true, c.input));
        progs.push_back(make(c.quantized, false, c.input));
        if (c.float_model) progs.push_back(make(*c.float_model, false, c.input));
        std::vector<std::vector<double>> t(progs.size());
        for (int r = 0; r < runs; ++r)
            for (std::size_t j = 0; j < progs.size(); ++j) {
                const std::size_t k = (j + static_cast<std::size_t>(r)) % progs.size();
                const auto t0 = clock::now();
                progs[k].run();
                t[k].push_back(
                    std::chrono::duration<double, std::milli>(clock::now() - t0).count());
            }
        const double i8 = median(t[0]), sim = median(t[1]);
        const double f32 = progs.size() > 2 ? median(t[2]) : sim;
        out.push_back({{"model", c.name},
                       {"int8_ms", i8},
                       {"fp32_simulated_ms", sim},
                       {"fp32_model_ms", f32},
                       {"int8_over_fp32_model", i8 / f32},
                       {"int8_arena_bytes", progs[0].memory().arena_bytes},
                       {"fp32_arena_bytes", progs.back().memory().arena_bytes}});
    }
    if (json) {
        std::cout << nlohmann::json{{"runs", runs},
                                    {"cpu", bench::cpu_name()},
                                    {"simd", kernels::simd::active_name()},
                                    {"models", out}}
                         .dump(2)
                  << "\n";
        return 0;
    }
    std::printf("bench_int8: medians of %d runs (ms), single thread; CPU: %s; SIMD path: %s\n",
                runs, bench::cpu_name().c_str(), kernels::simd::active_name().c_str());
    std::printf("%-26s %9s %12s %10s %12s %12s %12s\n", "model", "int8", "fp32 (sim)", "fp32",
                "int8/fp32", "int8 arena", "fp32 arena");
    for (auto& r : out)
        std::printf(
            "%-26s %9.3f %12.3f %10.3f %12.2f %12zu %12zu\n", r["model"].get<std::string>().c_str(),
            r["int8_ms"].get<double>(), r["fp32_simulated_ms"].get<double>(),
            r["fp32_model_ms"].get<double>(), r["int8_over_fp32_model"].get<double>(),
            r["int8_arena_bytes"].get<std::size_t>(), r["fp32_arena_bytes"].get<std::size_t>());
    return 0;
}
