// kernels::fc_gemm (the desktop form of mul / matmul / matmul_v2) against a
// plain loop in double on odd shapes: M, N, K off the vector width and the
// tiles, K = 1 and 0, one row (the GEMV), transposed X and Y, alpha; column
// ranges on fc_column_grain give bit-identical outputs to one call; and the
// thread pool of core/parallel.hpp runs every task once, nests, rethrows,
// gives each thread its own range of tasks first, and lets a task wait for
// earlier ones.
#include "litegraph/kernels/fc.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

#include "litegraph/core/parallel.hpp"
#include "random_vec.hpp"

using namespace litegraph;

namespace {

using kernel_test::random_vec;

// alpha * op(X) * op(Y) in double, the layouts of kernels::gemm_shape.
std::vector<double> plain(const kernels::gemm_shape& s, const std::vector<float>& x,
                          const std::vector<float>& y) {
    std::vector<double> c(static_cast<std::size_t>(s.m * s.n), 0.0);
    for (std::int64_t i = 0; i < s.m; ++i)
        for (std::int64_t j = 0; j < s.n; ++j) {
            double acc = 0;
            for (std::int64_t k = 0; k < s.k; ++k) {
                const double a = s.tx ? x[k * s.m + i] : x[i * s.k + k];
                const double b = s.ty ? y[j * s.k + k] : y[k * s.n + j];
                acc += a * b;
            }
            c[i * s.n + j] = s.alpha * acc;
        }
    return c;
}

void check_against_plain(const kernels::gemm_shape& s) {
    CAPTURE(s.m);
    CAPTURE(s.k);
    CAPTURE(s.n);
    CAPTURE(s.tx);
    CAPTURE(s.ty);
    CAPTURE(s.alpha);
    const auto x = random_vec(s.m * s.k, 1), y = random_vec(s.k * s.n, 2);
    std::vector<float> out(static_cast<std::size_t>(s.m * s.n), 12345.f);
    kernels::fc_gemm(s, x.data(), y.data(), out.data());
    const auto ref = plain(s, x, y);
    double worst = 0;
    for (std::size_t i = 0; i < ref.size(); ++i)
        worst = std::max(worst, std::abs(ref[i] - out[i]) / (1.0 + std::abs(ref[i])));
    CHECK(worst < 1e-5 * std::max<double>(1, std::sqrt(double(s.k))));
    // The same product split into column ranges on the grain: bit-identical.
    if (s.n > kernels::fc_column_grain) {
        std::vector<float> parts(out.size(), -1.f);
        for (std::int64_t n0 = 0; n0 < s.n; n0 += kernels::fc_column_grain)
            kernels::fc_gemm(s, x.data(), y.data(), parts.data(), n0,
                             n0 + kernels::fc_column_grain);
        CHECK(parts == out);
    }
}

}  // namespace

TEST_CASE("fc_gemm matches the plain loop on odd shapes, transposes and alpha") {
    const std::int64_t sizes[][3] = {
        {1, 1, 1},      {1, 7, 3},       {1, 1024, 1000}, {1, 37, 1300}, {2, 5, 3},
        {3, 1, 17},     {5, 0, 9},       {7, 13, 29},     {13, 300, 67}, {64, 1024, 1000},
        {6, 257, 1100}, {100, 33, 2049}, {25, 513, 7},    {1, 0, 5},
    };
    for (const auto& d : sizes)
        for (bool tx : {false, true})
            for (bool ty : {false, true})
                for (float alpha : {1.f, -0.75f})
                    check_against_plain({d[0], d[1], d[2], tx, ty, alpha});
}

TEST_CASE("fc_sgemm on row ranges gives the rows of one call") {
    const kernels::gemm_shape s{29, 70, 45, false, true, 1.f};
    const auto x = random_vec(s.m * s.k, 3), y = random_vec(s.k * s.n, 4);
    std::vector<float> whole(static_cast<std::size_t>(s.m * s.n)), parts(whole.size(), -1.f);
    kernels::fc_sgemm(s, x.data(), y.data(), whole.data(), 0, s.n);
    for (std::int64_t m0 = 0; m0 < s.m; m0 += 6) {  // the last part is one row
        const std::int64_t m1 = std::min(s.m, m0 + 6);
        kernels::fc_sgemm({m1 - m0, s.k, s.n, false, true, 1.f}, x.data() + m0 * s.k, y.data(),
                          parts.data() + m0 * s.n, 0, s.n);
    }
    CHECK(parts == whole);
}

TEST_CASE("thread_pool runs every task once, nests inline and rethrows") {
    for (unsigned threads : {1u, 2u, 4u}) {
        CAPTURE(threads);
        thread_pool pool(threads);
        CHECK(pool.size() >= 1);
        for (std::int64_t tasks : {0, 1, 3, 100}) {
            std::vector<std::atomic<int>> hits(static_cast<std::size_t>(tasks));
            parallel_tasks(&pool, tasks, [&](std::int64_t t) {
                // A region inside a task runs inline on the same pool.
                std::atomic<int> inner{0};
                parallel_tasks(&pool, 3, [&](std::int64_t) { ++inner; });
                if (inner == 3) ++hits[static_cast<std::size_t>(t)];
            });
            for (auto& h : hits) CHECK(h == 1);
        }
        CHECK_THROWS_WITH_AS(parallel_tasks(&pool, 8,
                                            [](std::int64_t t) {
                                                if (t == 5) throw std::runtime_error("task 5");
                                            }),
                             "task 5", std::runtime_error);
        // The pool still works after a throwing region.
        std::atomic<int> sum{0};
        parallel_tasks(&pool, 10, [&](std::int64_t t) { sum += static_cast<int>(t); });
        CHECK(sum == 45);
    }
}

TEST_CASE("thread_pool gives thread k of P the tasks [k T / P, (k + 1) T / P) first") {
    // Two threads, four tasks: the caller owns 0-1, the worker 2-3.  Task t
    // waits (10 s at most) until task (t + 2) % 4 has started, so both threads
    // are in the region before either finishes a task: then each takes its
    // own range first (a thread that finds another's range untouched after
    // its own would take it: a worker that came while the caller was still
    // waking it could otherwise run all four tiny tasks).
    thread_pool pool(2);
    REQUIRE(pool.size() == 2);
    const auto caller = std::this_thread::get_id();
    for (int round = 0; round < 20; ++round) {
        CAPTURE(round);
        std::vector<std::thread::id> who(4);
        std::atomic<bool> started[4] = {};
        parallel_tasks(&pool, 4, [&](std::int64_t t) {
            who[static_cast<std::size_t>(t)] = std::this_thread::get_id();
            started[t].store(true);
            const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
            while (!started[(t + 2) % 4].load() && std::chrono::steady_clock::now() < until)
                std::this_thread::yield();
        });
        CHECK(who[0] == caller);
        CHECK(who[1] == caller);
        CHECK(who[2] != caller);
        CHECK(who[3] == who[2]);
    }
}

TEST_CASE("thread_pool: a task may wait for any earlier task of its region") {
    // Every task waits for all the tasks before it (task_flags), the
    // strictest order an op may ask for; on 1-4 threads and task counts
    // that do and do not divide among them, every task runs, in order.
    for (unsigned threads : {1u, 2u, 3u, 4u})
        for (std::int64_t tasks : {2, 5, 7, 64}) {
            CAPTURE(threads);
            CAPTURE(tasks);
            thread_pool pool(threads);
            task_flags done(tasks);
            std::atomic<std::int64_t> next{0};
            std::atomic<int> out_of_order{0};
            parallel_tasks(&pool, tasks, [&](std::int64_t t) {
                flag_guard g{done, t};
                if (t > 0) done.wait(t - 1);
                if (next.fetch_add(1) != t) ++out_of_order;
            });
            CHECK(next == tasks);
            CHECK(out_of_order == 0);
        }
}
