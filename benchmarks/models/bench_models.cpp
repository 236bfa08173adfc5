// Whole-model latency and memory: every runnable model in the shared models
// folder plus the generated SqueezeNet 1.0 and 1.1, as the CLI runs them
// (fusion passes, then runtime::program; deterministic inputs).
//
//   bench_models [--runs N] [--threads N] [--filter NAME] [--json] [--models-dir DIR]
//
// Per model: load time (files -> passes -> program ready), the first run
// (shape inference, planning and the run), then the median and minimum of N
// timed runs after a warm-up, on --threads threads (default: every core; 1 for
// single-thread comparisons); arena bytes and their lower bound
// (most activation bytes live at one step).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../../tools/litegraph/cmd_run.hpp"
#include "litegraph/generate/squeezenet.hpp"

using namespace litegraph;
namespace fs = std::filesystem;
using clock_type = std::chrono::steady_clock;

namespace {

const char* description =
    "Times every runnable model of the shared models folder and the generated\n"
    "SqueezeNet 1.0 and 1.1 (128x128) with the fusion passes applied, on --threads threads,\n"
    "on deterministic inputs (float element i = sin(0.37 i) cos(0.011 i)).\n\n"
    "Columns: load ms = files -> fusion passes -> program; first ms = the first run\n"
    "(shape inference, planning, run); median/min ms over the timed runs; arena and\n"
    "LOAD (lower bound) in bytes.";

/// Input shapes other than the declared ones (with -1 as 1).
const std::map<std::string, shape_t> input_override = {
    // Declared 960x960 takes long; 640x640 is any multiple of 32 it accepts.
    {"ppocr_v3_det", {1, 3, 640, 640}},
};

/// Models whose runs are slow enough to cap (batch 4 at 224x224).
int runs_for(const std::string& name, int runs) {
    if (name.rfind("gcu_conv_bn", 0) == 0) return std::min(runs, 5);
    return runs;
}

struct result {
    std::string name;
    std::string status = "ok";  // ok, failed
    std::string message;
    std::vector<std::string> inputs;  // "name:1x3x32x100"
    int runs = 0;
    double load_ms = 0, first_ms = 0, median_ms = 0, min_ms = 0;
    std::size_t arena_bytes = 0, lower_bound_bytes = 0;
    std::map<std::string, int> passes;
};

double ms_since(clock_type::time_point t0) {
    return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

std::string dims_string(const shape_t& s) {
    std::string r;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (i) r += 'x';
        r += std::to_string(s[i]);
    }
    return r.empty() ? "scalar" : r;
}

/// Loads (make_graph), fuses, feeds deterministic inputs, warms up and times.
/// --threads (0: every core).
unsigned bench_threads = 0;

result bench(const std::string& name, const std::function<graph::graph()>& make_graph, int runs) {
    result r;
    r.name = name;
    r.runs = runs_for(name, runs);
    auto t0 = clock_type::now();
    graph::graph g = make_graph();
    auto report = passes::run_passes(g);
    runtime::program prog(std::move(g));
    prog.set_threads(bench_threads);
    r.load_ms = ms_since(t0);
    for (auto& [pass, n] : report.counts) r.passes[pass] = n;

    for (std::size_t i = 0; i < prog.input_count(); ++i) {
        const auto& v = prog.input_var(i);
        shape_t shape = v.shape;
        if (auto it = input_override.find(name);
            it != input_override.end() && i == 0 && it->second.size() == shape.size())
            shape = it->second;
        for (auto& d : shape)
            if (d < 0) d = 1;
        r.inputs.push_back(v.name + ":" + dims_string(shape));
        prog.set_input(i, cli::deterministic_feed(v, {{v.name, shape}}));
    }

    t0 = clock_type::now();
    prog.run();  // shape inference, planning, constant folding, and a run
    r.first_ms = ms_since(t0);
    prog.run();  // warm-up
    std::vector<double> times;
    for (int k = 0; k < r.runs; ++k) {
        t0 = clock_type::now();
        prog.run();
        times.push_back(ms_since(t0));
    }
    std::sort(times.begin(), times.end());
    const auto n = times.size();
    r.median_ms = n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
    r.min_ms = times.front();
    r.arena_bytes = prog.memory().arena_bytes;
    r.lower_bound_bytes = prog.memory().lower_bound_bytes;
    return r;
}

/// Runs one model, turning a litegraph error into a failed row.
result bench_guarded(const std::string& name, const std::function<graph::graph()>& make_graph,
                     int runs) {
    try {
        return bench(name, make_graph, runs);
    } catch (const std::exception& e) {
        result r;
        r.name = name;
        r.status = "failed";
        r.message = e.what();
        return r;
    }
}

nlohmann::json to_json(const result& r) {
    nlohmann::json j{{"name", r.name}, {"status", r.status}};
    if (r.status != "ok") {
        j["message"] = r.message;
        return j;
    }
    j["inputs"] = r.inputs;
    j["runs"] = r.runs;
    j["load_ms"] = r.load_ms;
    j["first_run_ms"] = r.first_ms;
    j["median_ms"] = r.median_ms;
    j["min_ms"] = r.min_ms;
    j["arena_bytes"] = r.arena_bytes;
    j["lower_bound_bytes"] = r.lower_bound_bytes;
    j["passes"] = r.passes;
    return j;
}

void print_table(const std::vector<result>& rs) {
    std::printf("%-34s %-22s %4s %9s %9s %10s %10s %12s %12s\n", "model", "input", "runs",
                "load ms", "first ms", "median ms", "min ms", "arena B", "LOAD B");
    for (const auto& r : rs) {
        if (r.status != "ok") {
            std::printf("%-34s %s: %s\n", r.name.c_str(), r.status.c_str(), r.message.c_str());
            continue;
        }
        std::string in;
        for (const auto& s : r.inputs) {
            if (!in.empty()) in += ',';
            in.append(s, s.rfind(':') + 1);
        }
        std::printf("%-34s %-22s %4d %9.1f %9.2f %10.4f %10.4f %12zu %12zu\n", r.name.c_str(),
                    in.c_str(), r.runs, r.load_ms, r.first_ms, r.median_ms, r.min_ms, r.arena_bytes,
                    r.lower_bound_bytes);
    }
}

int run_main(const std::vector<std::string>& argv) {
    CLI::App app{description, "bench_models"};
    cli::setup_command(app);
    int runs = 20;
    std::string filter, models_dir_arg = LITEGRAPH_SHARED_DIR "/models";
    bool json = false;
    app.add_option("--runs", runs,
                   "timed runs per model after the warm-up (default 20; the\n"
                   "batch-4 gcu_conv_bn* models run min(N, 5))")
        ->type_name("N")
        ->check(CLI::Range(1, 100000));
    cli::add_threads(app, bench_threads);
    app.add_option("--filter", filter, "run only the model NAME (e.g. ppocr_v3_det, squeezenet1_1)")
        ->type_name("NAME");
    cli::add_json(app, json, "");
    app.add_option("--models-dir", models_dir_arg,
                   "the models folder (default: " + models_dir_arg + ")")
        ->type_name("DIR");
    if (!cli::parse(app, argv)) return 0;
    const fs::path models_dir = models_dir_arg;

    std::vector<result> results;
    std::vector<std::string> notes;
    auto announce = [&](const std::string& name) {
        if (!json) std::fprintf(stderr, "bench_models: %s ...\n", name.c_str());
    };

    if (!fs::is_directory(models_dir)) {
        notes.push_back("models folder " + models_dir.string() +
                        " is absent: skipping the shared models");
    } else {
        std::vector<fs::path> dirs;
        for (const auto& e : fs::directory_iterator(models_dir))
            if (e.is_directory()) dirs.push_back(e.path());
        std::sort(dirs.begin(), dirs.end());
        for (const auto& dir : dirs) {
            const auto name = dir.filename().string();
            if (!filter.empty() && name != filter) continue;
            announce(name);
            results.push_back(bench_guarded(
                name, [&] { return paddle::load(dir).graph; }, runs));
        }
    }
    for (const std::string version : {"1_0", "1_1"}) {
        const std::string name = "squeezenet" + version;
        if (!filter.empty() && name != filter) continue;
        announce(name);
        results.push_back(bench_guarded(
            name,
            [&] {
                generate::squeezenet_options opt;
                opt.version = version;
                opt.input_size = 128;
                return generate::squeezenet(opt);
            },
            runs));
    }
    if (results.empty() && !filter.empty())
        notes.push_back("no model named '" + filter + "' (see --help)");

    bool failed = false;
    for (const auto& r : results) failed |= r.status == "failed";
    if (json) {
        nlohmann::json j;
        j["runs"] = runs;
        j["threads"] = bench_threads ? bench_threads : thread_pool::default_threads();
        j["fused"] = true;
        j["models"] = nlohmann::json::array();
        for (const auto& r : results) j["models"].push_back(to_json(r));
        j["notes"] = notes;
        std::cout << j.dump(2) << "\n";
    } else {
        for (const auto& n : notes) std::printf("note: %s\n", n.c_str());
        if (!results.empty()) print_table(results);
    }
    if (results.empty() && !filter.empty()) return 2;
    return failed ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run_main({argv + 1, argv + argc});
    } catch (const usage_error& e) {
        std::cerr << "bench_models: " << e.what() << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "bench_models: " << e.what() << "\n";
        return 1;
    }
}
