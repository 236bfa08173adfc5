// Whole-model latency and memory: every runnable model in the shared models
// folder plus the generated SqueezeNet 1.0 and 1.1, as the CLI runs them
// (fusion passes, then runtime::program; deterministic inputs).
//
//   bench_models [--runs N] [--threads N[,N...]] [--rounds R] [--batch N] [--shape D0xD1...]
//                [--filter NAME] [--json] [--models-dir DIR]
//
// Per model: load time (files -> passes -> program ready), the first run
// (shape inference, planning and the run), then the median and minimum of N
// timed runs after a warm-up, on --threads threads (default: every core; 1 for
// single-thread comparisons); arena bytes and their lower bound
// (most activation bytes live at one step).  With several thread counts
// (--threads 1,2) each count has a program of its own, timed in --rounds
// alternating rounds, and a second table gives each count's median and its
// ratio to the first count's.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
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
    "LOAD (lower bound) in bytes.  With several thread counts (--threads 1,2), a\n"
    "second table: each count's median over its runs of every round, the ratio to\n"
    "the first count's, and whether the batch ran split over images.";

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

/// One thread count's figures.
struct threads_result {
    unsigned threads = 1;
    double median_ms = 0, min_ms = 0;
    bool image_split = false;  // the last run ran split (runtime/image_split.hpp)
};

struct result {
    std::string name;
    std::string status = "ok";  // ok, failed
    std::string message;
    std::vector<std::string> inputs;  // "name:1x3x32x100"
    int runs = 0;
    double load_ms = 0, first_ms = 0, median_ms = 0, min_ms = 0;
    std::size_t arena_bytes = 0, lower_bound_bytes = 0;
    std::map<std::string, int> passes;
    std::vector<threads_result> by_threads;  // one per --threads count, in order
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

/// --threads: the thread counts (0: every core), --rounds, --batch (0: declared).
std::vector<unsigned> bench_threads;
int bench_rounds = 0;  // 0: 1 for one thread count, 3 for several
std::int64_t bench_batch = 0;
shape_t bench_shape;  // --shape: the first input's shape (empty: declared / override)

double median_of(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const auto n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/// Loads (make_graph), fuses, feeds deterministic inputs, warms up and times,
/// one program per thread count, the counts alternating round by round.
result bench(const std::string& name, const std::function<graph::graph()>& make_graph, int runs) {
    result r;
    r.name = name;
    r.runs = runs_for(name, runs);
    std::vector<std::unique_ptr<runtime::program>> progs;
    for (unsigned t : bench_threads) {
        auto t0 = clock_type::now();
        graph::graph g = make_graph();
        auto report = passes::run_passes(g);
        progs.push_back(std::make_unique<runtime::program>(std::move(g)));
        progs.back()->set_threads(t);
        if (progs.size() == 1) {
            r.load_ms = ms_since(t0);
            for (auto& [pass, n] : report.counts) r.passes[pass] = n;
        }
    }
    for (auto& prog : progs)
        for (std::size_t i = 0; i < prog->input_count(); ++i) {
            const auto& v = prog->input_var(i);
            shape_t shape = v.shape;
            if (auto it = input_override.find(name);
                it != input_override.end() && i == 0 && it->second.size() == shape.size())
                shape = it->second;
            if (bench_batch > 0 && !shape.empty() && shape[0] < 0) shape[0] = bench_batch;
            if (i == 0 && !bench_shape.empty()) {
                if (bench_shape.size() != shape.size())
                    throw usage_error("--shape " + dims_string(bench_shape) + ": input '" + v.name +
                                      "' has rank " + std::to_string(shape.size()));
                shape = bench_shape;
            }
            for (auto& d : shape)
                if (d < 0) d = 1;
            if (prog == progs.front()) r.inputs.push_back(v.name + ":" + dims_string(shape));
            prog->set_input(i, cli::deterministic_feed(v, {{v.name, shape}}));
        }

    for (auto& prog : progs) {
        const auto t0 = clock_type::now();
        prog->run();  // shape inference, planning, constant folding, and a run
        if (prog == progs.front()) r.first_ms = ms_since(t0);
        // Warm-up (with threads also while the system settles its threads on the cores).
        const int warm = prog->threads() > 1 ? std::max(2, r.runs / 4) : 1;
        for (int k = 0; k < warm; ++k) prog->run();
    }
    const int rounds = bench_rounds > 0 ? bench_rounds : (progs.size() > 1 ? 3 : 1);
    std::vector<std::vector<double>> times(progs.size());
    for (int round = 0; round < rounds; ++round)
        for (std::size_t p = 0; p < progs.size(); ++p)
            for (int k = 0; k < r.runs; ++k) {
                const auto t0 = clock_type::now();
                progs[p]->run();
                times[p].push_back(ms_since(t0));
            }
    for (std::size_t p = 0; p < progs.size(); ++p)
        r.by_threads.push_back({progs[p]->threads(), median_of(times[p]),
                                *std::min_element(times[p].begin(), times[p].end()),
                                progs[p]->ran_split()});
    r.median_ms = r.by_threads.front().median_ms;
    r.min_ms = r.by_threads.front().min_ms;
    r.arena_bytes = progs.front()->memory().arena_bytes;
    r.lower_bound_bytes = progs.front()->memory().lower_bound_bytes;
    return r;
}

/// The integers of `s` joined by `sep`, each in [lo, hi]; else a usage_error
/// saying `what` ("--threads: '1,x' is not ...").
std::vector<long long> parse_list(const std::string& s, char sep, long long lo, long long hi,
                                  const std::string& what) {
    std::vector<long long> r;
    std::size_t at = 0;
    while (at <= s.size()) {
        const auto end = std::min(s.find(sep, at), s.size());
        const std::string item = s.substr(at, end - at);
        std::size_t used = 0;
        long long v = 0;
        try {
            v = std::stoll(item, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (item.empty() || used != item.size() || v < lo || v > hi)
            throw usage_error("'" + s + "' is not " + what);
        r.push_back(v);
        at = end + 1;
    }
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
    j["by_threads"] = nlohmann::json::array();
    for (const auto& t : r.by_threads)
        j["by_threads"].push_back({{"threads", t.threads},
                                   {"median_ms", t.median_ms},
                                   {"min_ms", t.min_ms},
                                   {"ratio", t.median_ms / r.by_threads.front().median_ms},
                                   {"image_split", t.image_split}});
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
    if (bench_threads.size() < 2) return;
    std::printf("\n%-34s %8s %10s %10s %9s %12s\n", "model", "threads", "median ms", "min ms",
                "ratio", "image_split");
    for (const auto& r : rs)
        for (const auto& t : r.by_threads)
            std::printf("%-34s %8u %10.4f %10.4f %9.3f %12s\n", r.name.c_str(), t.threads,
                        t.median_ms, t.min_ms, t.median_ms / r.by_threads.front().median_ms,
                        t.image_split ? "yes" : "no");
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
    std::string threads_arg = "0";
    app.add_option("--threads", threads_arg,
                   "threads per program, or a list (1,2): one program per count,\n"
                   "timed in alternating rounds, and their ratios (default 0: every core)")
        ->type_name("N[,N...]");
    app.add_option("--rounds", bench_rounds,
                   "alternating rounds of --runs runs per thread count (default 1;\n"
                   "3 with several counts)")
        ->type_name("R")
        ->check(CLI::Range(1, 1000));
    std::string shape_arg;
    app.add_option("--shape", shape_arg,
                   "the first input's shape, e.g. 8x3x48x192 (its rank; over\n"
                   "--batch and the declared dims)")
        ->type_name("D0xD1...");
    app.add_option("--batch", bench_batch,
                   "the first dim of every input declared -1 (default: 1; e.g. 8 for\n"
                   "the OCR classifier at batch 8)")
        ->type_name("N")
        ->check(CLI::Range(1, 4096));
    app.add_option("--filter", filter, "run only the model NAME (e.g. ppocr_v3_det, squeezenet1_1)")
        ->type_name("NAME");
    cli::add_json(app, json, "");
    app.add_option("--models-dir", models_dir_arg,
                   "the models folder (default: " + models_dir_arg + ")")
        ->type_name("DIR");
    if (!cli::parse(app, argv)) return 0;
    for (long long t : parse_list(threads_arg, ',', 0, 1024,
                                  "a list of thread counts 0-1024 (--threads: e.g. 1 or 1,2)"))
        bench_threads.push_back(static_cast<unsigned>(t));
    if (!shape_arg.empty())
        for (long long d : parse_list(shape_arg, 'x', 1, 1 << 20,
                                      "dims 1-1048576 joined by x (--shape: e.g. 8x3x48x192)"))
            bench_shape.push_back(d);
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
        j["threads"] = nlohmann::json::array();
        for (unsigned t : bench_threads)
            j["threads"].push_back(t ? t : thread_pool::default_threads());
        j["rounds"] = bench_rounds > 0 ? bench_rounds : (bench_threads.size() > 1 ? 3 : 1);
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
