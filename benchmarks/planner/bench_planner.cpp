// Planner benchmark: random DAGs (fixed seed) of 100, 1,000 and 10,000 buffers.
// Per algorithm: plan / LOAD, plan / TFLM greedy, and planning time (median of
// runs).  Cases are a list of (name, buffers), so real models can be added.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

#include "litegraph/planner/order.hpp"

using namespace litegraph::planner;

namespace {

struct bench_case {
    std::string name;
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
    return {"random_dag_" + std::to_string(n), buffers_for_order(ops, order), ops};
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

}  // namespace

int main(int argc, char** argv) {
    int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 3;
    std::vector<bench_case> cases{dag_case(40, 1), dag_case(100, 2), dag_case(1000, 3),
                                  dag_case(10000, 4)};
    const std::vector<segment> arena{{"arena", unbounded, 64}};
    std::printf("%-18s %-15s %10s %9s %9s %9s %9s %s\n", "case", "algorithm", "bytes", "plan/LOAD",
                "plan/TFLM", "cpu ms", "wall ms", "note");
    bool slow = false;
    for (auto& c : cases) {
        const auto load = lower_bound(c.buffers);
        const auto tflm = tflm_greedy(c.buffers, 64).total();
        struct algo {
            const char* name;
            std::function<plan()> run;
        };
        std::vector<algo> algos{
            {"tflm_greedy", [&] { return tflm_greedy(c.buffers, 64); }},
            {"size_first_fit", [&] { return size_first_fit(c.buffers, arena); }},
            {"strong_fit", [&] { return strong_fit(c.buffers, arena); }},
            {"default", [&] { return plan_memory(c.buffers, arena); }},
        };
        if (c.buffers.size() <= 60)
            algos.push_back({"exact", [&] { return exact_plan(c.buffers, arena); }});
        for (auto& a : algos) {
            plan p;
            auto ms = median_ms([&] { p = a.run(); }, runs);
            auto v = validate(c.buffers, arena, p);
            std::string note = v.ok ? "" : "INVALID: " + std::string(v.what);
            if (p.proven_optimal) note += "proven optimal";
            std::printf("%-18s %-15s %10zu %9.3f %9.3f %9.2f %9.2f %s\n", c.name.c_str(), a.name,
                        p.total(), double(p.total()) / double(load),
                        double(p.total()) / double(tflm), ms.cpu_ms, ms.wall_ms, note.c_str());
            if (std::string(a.name) == "default" && c.buffers.size() >= 10000 &&
                ms.cpu_ms >= 1000.0)
                slow = true;
        }
        if (!c.ops.empty()) {
            order_result r;
            auto ms = median_ms([&] { r = best_order(c.ops); }, runs);
            std::printf("%-18s %-15s LOAD %zu -> %zu (%.1f%% lower, %s%s) %.2f cpu ms\n",
                        c.name.c_str(), "order", r.given_load, r.load,
                        100.0 * double(r.given_load - r.load) / double(r.given_load),
                        std::string(r.method).c_str(), r.exact ? ", exact" : "", ms.cpu_ms);
        }
    }
    if (slow) std::printf("FAIL: the default planner took 1 s of CPU or more on 10,000 buffers\n");
    return slow ? 1 : 0;
}
