// Planner benchmark: every model of ../shared/models and
// ../shared/models_topology_only (fused graph; the runtime's shapes when every
// op is supported, the declared ones otherwise, exactly as `litegraph plan`)
// and random DAGs (fixed seed) of 40 to 10,000 buffers.  Per case: LOAD, the
// bytes of TFLM's greedy, size_first_fit, strong_fit, ours (plan_memory) and
// the exact search (up to 60 buffers; proven or not), ours / LOAD, ours / TFLM
// and planning time (median CPU ms of `runs`).
//   bench_planner [runs] [--json] [--shared DIR]
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../../tools/litegraph/options.hpp"
#include "litegraph/planner/order.hpp"
#include "litegraph/session.hpp"

using namespace litegraph::planner;

namespace {

struct bench_case {
    std::string name;
    std::string shapes;  // "inferred", "declared" or "random"
    std::vector<buffer> buffers;
    std::vector<op_node> ops;  // when known: the order search is benchmarked too
};

struct xorshift {
    std::uint64_t s;
    std::uint64_t next() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        return s;
    }
    std::size_t in(std::size_t lo, std::size_t hi) { return lo + next() % (hi - lo + 1); }
};

/// A random DAG of CNN-like ops: each reads 1-2 recent outputs (branches), one
/// read in ten reaches up to 40 ops back (skip connections); 1-24 KB outputs.
std::vector<op_node> random_dag(std::size_t n, std::uint64_t seed) {
    xorshift g{seed};
    std::vector<op_node> ops(n);
    for (std::size_t i = 0; i < n; ++i) {
        ops[i].output_bytes = (std::size_t{1} << g.in(10, 13)) * g.in(1, 3);
        if (i == 0) continue;
        std::size_t k = g.in(1, 2);
        for (std::size_t j = 0; j < k; ++j) {
            std::size_t back = g.in(0, 9) == 0 ? g.in(1, 40) : g.in(1, 4);  // some long skips
            ops[i].inputs.push_back(static_cast<int>(i - std::min(i, back)));
        }
    }
    ops[n - 1].is_output = true;
    return ops;
}

bench_case dag_case(std::size_t n, std::uint64_t seed) {
    auto ops = random_dag(n, seed);
    std::vector<int> order(n);
    for (std::size_t i = 0; i < n; ++i) order[i] = static_cast<int>(i);
    return {"random_dag_" + std::to_string(n), "random", buffers_for_order(ops, order), ops};
}

struct timing {
    double wall_ms, cpu_ms;  // medians; the CPU time is what counts on a shared machine
};

template <class F>
timing median_ms(F&& f, int runs) {
    std::vector<double> wall, cpu;
    for (int r = 0; r < runs; ++r) {
        auto a = std::chrono::steady_clock::now();
        auto ca = std::clock();
        f();
        auto cb = std::clock();
        auto b = std::chrono::steady_clock::now();
        wall.push_back(std::chrono::duration<double, std::milli>(b - a).count());
        cpu.push_back(1000.0 * double(cb - ca) / CLOCKS_PER_SEC);
    }
    std::sort(wall.begin(), wall.end());
    std::sort(cpu.begin(), cpu.end());
    return {wall[wall.size() / 2], cpu[cpu.size() / 2]};
}

/// The model folders of `shared`/models and `shared`/models_topology_only, in
/// name order (a topology is planned at its declared shapes).
std::vector<std::filesystem::path> model_dirs(const std::filesystem::path& shared) {
    std::vector<std::filesystem::path> out;
    for (const char* sub : {"models", "models_topology_only"}) {
        std::error_code ec;
        std::vector<std::filesystem::path> here;
        for (auto& e : std::filesystem::directory_iterator(shared / sub, ec))
            if (e.is_directory()) here.push_back(e.path());
        std::sort(here.begin(), here.end());
        out.insert(out.end(), here.begin(), here.end());
    }
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    int runs = 3;
    bool json = false;
    std::string shared = LITEGRAPH_SHARED_DIR;
    CLI::App app{
        "Plans every model of DIR/models and DIR/models_topology_only (default: the\n"
        "shared folder of the build) and random DAGs of 40 to 10,000 buffers with each\n"
        "planner; prints LOAD, each plan's bytes, ours / LOAD, ours / TFLM and the\n"
        "median CPU ms of RUNS plannings.",
        "bench_planner"};
    litegraph::cli::setup_command(app);
    app.add_option("RUNS", runs, "plannings per case (default 3)")
        ->type_name("")
        ->check(CLI::Range(1, 100000));
    litegraph::cli::add_json(app, json, "");
    app.add_option("--shared", shared, "the shared folder (default " + shared + ")")
        ->type_name("DIR");
    try {
        if (!litegraph::cli::parse(app, {argv + 1, argv + argc})) return 0;
    } catch (const litegraph::usage_error& e) {
        std::fprintf(stderr, "bench_planner: %s\n", e.what());
        return 2;
    }
    std::vector<bench_case> cases;
    for (auto& dir : model_dirs(shared)) {
        try {
            litegraph::session_options opt;
            opt.load.require_params = false;
            auto p = litegraph::plan_problem_of(dir.string(), opt);
            cases.push_back({dir.filename().string(), p.shapes, std::move(p.buffers), {}});
        } catch (const std::exception& e) {
            std::fprintf(stderr, "%s: skipped: %s\n", dir.string().c_str(), e.what());
        }
    }
    if (cases.empty()) std::fprintf(stderr, "no shared models under %s\n", shared.c_str());
    for (auto [n, seed] : {std::pair{40, 1}, {100, 2}, {1000, 3}, {10000, 4}})
        cases.push_back(dag_case(static_cast<std::size_t>(n), static_cast<std::uint64_t>(seed)));

    const std::vector<segment> arena{{"arena", unbounded, 64}};
    if (!json)
        std::printf("%-32s %-8s %6s %10s %10s %10s %10s %10s %12s %6s %6s %8s %8s\n", "case",
                    "shapes", "bufs", "LOAD", "TFLM", "sff", "strong", "ours", "exact", "/LOAD",
                    "/TFLM", "ours ms", "sff ms");
    nlohmann::json out = nlohmann::json::array();
    bool slow = false, bad = false;
    for (auto& c : cases) {
        const auto load = lower_bound(c.buffers);
        plan tflm = tflm_greedy(c.buffers, 64), sff, strong = strong_fit(c.buffers, arena), ours,
             exact;
        auto ours_ms = median_ms([&] { ours = plan_memory(c.buffers, arena); }, runs);
        auto sff_ms = median_ms([&] { sff = size_first_fit(c.buffers, arena); }, runs);
        const bool ran_exact = c.buffers.size() <= exact_options{}.max_items;
        if (ran_exact) exact = exact_plan(c.buffers, arena);
        std::string note;
        for (auto* p : {&tflm, &sff, &strong, &ours, &exact}) {
            if (p == &exact && !ran_exact) continue;
            auto v = validate(c.buffers, arena, *p);
            if (!v.ok) note += " INVALID " + std::string(p->algorithm) + ": " + std::string(v.what);
        }
        bad = bad || !note.empty();
        const double over_load = load ? double(ours.total()) / double(load) : 1.0;
        const double over_tflm = tflm.total() ? double(ours.total()) / double(tflm.total()) : 1.0;
        std::string exact_s =
            ran_exact ? std::to_string(exact.total()) + (exact.proven_optimal ? " P" : " ?") : "-";
        if (json) {
            nlohmann::json j{{"case", c.name},
                             {"shapes", c.shapes},
                             {"buffers", c.buffers.size()},
                             {"load", load},
                             {"tflm_greedy", tflm.total()},
                             {"size_first_fit", sff.total()},
                             {"strong_fit", strong.total()},
                             {"ours", ours.total()},
                             {"ours_algorithm", std::string(ours.algorithm)},
                             {"ours_proven_optimal", ours.proven_optimal},
                             {"ours_over_load", over_load},
                             {"ours_over_tflm", over_tflm},
                             {"ours_cpu_ms", ours_ms.cpu_ms},
                             {"ours_wall_ms", ours_ms.wall_ms},
                             {"size_first_fit_cpu_ms", sff_ms.cpu_ms},
                             {"valid", note.empty()}};
            j["exact"] = ran_exact ? nlohmann::json(exact.total()) : nlohmann::json(nullptr);
            j["exact_proven_optimal"] = ran_exact && exact.proven_optimal;
            out.push_back(j);
        } else {
            std::printf(
                "%-32s %-8s %6zu %10zu %10zu %10zu %10zu %10zu %12s %6.3f %6.3f %8.2f %8.2f%s\n",
                c.name.c_str(), c.shapes.c_str(), c.buffers.size(), load, tflm.total(), sff.total(),
                strong.total(), ours.total(), exact_s.c_str(), over_load, over_tflm, ours_ms.cpu_ms,
                sff_ms.cpu_ms, note.c_str());
        }
        if (c.buffers.size() >= 10000 && ours_ms.cpu_ms >= 1000.0) slow = true;
        if (!c.ops.empty() && !json) {
            order_result r;
            auto ms = median_ms([&] { r = best_order(c.ops); }, runs);
            std::printf("%-32s order search: LOAD %zu -> %zu (%.1f%% lower, %s%s) %.2f cpu ms\n",
                        c.name.c_str(), r.given_load, r.load,
                        100.0 * double(r.given_load - r.load) / double(r.given_load),
                        std::string(r.method).c_str(), r.exact ? ", exact" : "", ms.cpu_ms);
        }
    }
    if (json) std::cout << out.dump(2) << "\n";
    if (!json)
        std::printf("exact: P = proven optimal, ? = node budget ran out, - = over 60 buffers\n");
    if (slow)
        std::fprintf(stderr,
                     "FAIL: the default planner took 1 s of CPU or more on 10,000 buffers\n");
    if (bad) std::fprintf(stderr, "FAIL: a plan does not validate\n");
    return slow || bad ? 1 : 0;
}
