// The litegraph side of the peer comparison: one Paddle model, one .npy input,
// fused as `litegraph run` runs it, on --threads threads (default 1, as the
// single-thread ONNX Runtime runner); warm-up, N timed runs;
// writes the first output as .npy and prints one JSON line of timings.  Its
// ONNX Runtime counterpart is ort_runner.js (same options, same JSON).
//
//   bench_peer_litegraph --input X.npy --output Y.npy [--model DIR] [--runs N] [--warmup N]
//                        [--threads N] [--profile [--profile-top N]]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../../tools/litegraph/cmd_run.hpp"

using namespace litegraph;
using clock_type = std::chrono::steady_clock;

namespace {

const char* description =
    "Runs a Paddle model (fusion passes applied, single thread) on X.npy (its first\n"
    "feed): --warmup untimed runs, then --runs timed runs.  Writes the first fetch\n"
    "to Y.npy and prints one JSON line:\n"
    "  {\"runtime\":\"litegraph\",\"median_ms\":..,\"min_ms\":..,\"times_ms\":[..],\n"
    "   \"load_ms\":..,\"output\":\"Y.npy\",\"output_shape\":[..]}";

/// Median of the per-run times of every instruction (by execution position).
void print_profile(runtime::program& prog, int runs, std::size_t top) {
    std::vector<std::vector<double>> t;  // [position][run]
    std::vector<const runtime::instruction*> at;
    for (int k = 0; k < runs; ++k) {
        std::size_t pos = 0;
        auto last = clock_type::now();
        prog.run([&](const runtime::instruction& ins) {
            const auto now = clock_type::now();
            if (t.size() <= pos) t.emplace_back(), at.push_back(&ins);
            t[pos++].push_back(std::chrono::duration<double, std::milli>(now - last).count());
            last = now;
        });
    }
    auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
    };
    std::map<std::string, std::pair<double, int>> by_type;
    std::vector<std::pair<double, std::size_t>> each;
    double total = 0;
    for (std::size_t i = 0; i < t.size(); ++i) {
        const double m = median(t[i]);
        std::string type = at[i]->io.type;
        if (litegraph::op_declares<
                litegraph::fusion::fused<litegraph::ops::conv2d, litegraph::fusion::bias>>(type)) {
            // Name the fused kernel by its geometry class.
            const auto& f = at[i]->io.input("Filter").shape;
            const auto& x = at[i]->io.input("Input").shape;
            type +=
                f[1] == 1 && x[1] > 1 ? " depthwise" : (f[2] == 1 && f[3] == 1 ? " 1x1" : " kxk");
        }
        by_type[type].first += m;
        by_type[type].second += 1;
        each.push_back({m, i});
        total += m;
    }
    std::fprintf(stderr, "profile: median ms per run over %d runs, sum %.4f ms\n", runs, total);
    std::vector<std::pair<double, std::string>> types;
    for (auto& [k, v] : by_type) types.push_back({v.first, k + " x" + std::to_string(v.second)});
    std::sort(types.rbegin(), types.rend());
    for (auto& [ms, k] : types)
        std::fprintf(stderr, "  %-32s %8.4f ms %5.1f%%\n", k.c_str(), ms, 100 * ms / total);
    std::sort(each.rbegin(), each.rend());
    std::fprintf(stderr, "slowest instructions:\n");
    for (std::size_t j = 0; j < std::min(top == 0 ? each.size() : top, each.size()); ++j) {
        const auto& io = at[each[j].second]->io;
        std::string shapes;
        for (auto& s : io.inputs)
            for (auto* r : s.args) shapes += " " + s.name + to_string(r->shape);
        std::fprintf(stderr, "  %8.4f ms  %s%s\n", each[j].first, io.label.c_str(), shapes.c_str());
    }
}

double ms_since(clock_type::time_point t0) {
    return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

int run_main(const std::vector<std::string>& argv) {
    CLI::App app{description, "bench_peer_litegraph"};
    cli::setup_command(app);
    std::string input, output;
    std::string model_arg = LITEGRAPH_SHARED_DIR "/models/ppocr_mobile_v2.0_cls";
    int runs = 20, warmup = 3;
    bool profile = false;
    std::size_t profile_top = 15;
    app.add_option("--input", input, "the model's first feed")->type_name("X.npy")->required();
    app.add_option("--output", output, "where the first fetch is written")
        ->type_name("Y.npy")
        ->required();
    app.add_option("--model", model_arg, "default " + model_arg)->type_name("DIR");
    app.add_option("--runs", runs, "timed runs (default 20)")
        ->type_name("N")
        ->check(CLI::Range(1, 1000000));
    app.add_option("--warmup", warmup,
                   "untimed runs first (default 3, at least 1: the first\n"
                   "plans the arena)")
        ->type_name("N")
        ->check(CLI::Range(1, 1000000));
    unsigned threads = 1;
    app.add_option("--threads", threads,
                   "threads each op may split its work over (default 1, as\n"
                   "the single-thread ONNX Runtime runner; 0: every core)")
        ->type_name("N")
        ->check(CLI::Range(0u, 1024u));
    app.add_flag("--profile", profile,
                 "also time every instruction (a clock read after each) and\n"
                 "print, to stderr, the median ms per run by op type and the\n"
                 "slowest instructions");
    app.add_option("--profile-top", profile_top,
                   "with --profile: how many of the slowest instructions\n"
                   "to list (default 15, 0: all)")
        ->type_name("N");
    if (!cli::parse(app, argv)) return 0;
    const std::filesystem::path model_dir = model_arg;

    auto t0 = clock_type::now();
    session_options so;
    so.threads = threads;
    session s(model_dir, so);  // loaded and fused as `litegraph run` and a C++ user do
    runtime::program& prog = s.program();
    const double load_ms = ms_since(t0);
    if (prog.input_count() != 1)
        throw usage_error(model_dir.string() + " has " + std::to_string(prog.input_count()) +
                          " feeds; bench_peer_litegraph feeds one");
    prog.set_input(0, load_npy(input));

    prog.run();  // shape inference and planning happen here
    for (int k = 1; k < warmup; ++k) prog.run();
    std::vector<double> times;
    for (int k = 0; k < runs; ++k) {
        t0 = clock_type::now();
        prog.run();
        times.push_back(ms_since(t0));
    }
    std::vector<double> sorted = times;
    std::sort(sorted.begin(), sorted.end());
    const auto n = sorted.size();
    const double median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;

    const bool split = prog.ran_split();  // the profile runs whole
    if (profile || profile_top != 15) print_profile(prog, runs, profile_top);

    const auto& out = prog.output(0);
    save_npy(output, out);
    nlohmann::json j{{"runtime", "litegraph"},
                     {"median_ms", median},
                     {"min_ms", sorted.front()},
                     {"times_ms", times},
                     {"load_ms", load_ms},
                     {"runs", runs},
                     {"simd", kernels::simd::active_name()},
                     {"threads", prog.threads()},
                     {"image_split", split},
                     {"warmup", warmup},
                     {"output", output},
                     {"output_shape", out.shape}};
    std::cout << j.dump() << "\n";
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run_main({argv + 1, argv + argc});
    } catch (const usage_error& e) {
        std::cerr << "bench_peer_litegraph: " << e.what() << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "bench_peer_litegraph: " << e.what() << "\n";
        return 1;
    }
}
