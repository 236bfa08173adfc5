// Fast fp32 kernels against plain loops on the conv shapes of PP-OCR's
// direction classifier (MobileNetV3 small x0.35, input 3x48x192), batch 1 and 8.
//
//   bench_kernels [--json] [--runs N] [--filter TEXT]   (e.g. --filter handoff)
//
// Then fully connected layers (kernels::fc_gemm, what mul / matmul /
// matmul_v2 run) against the plain loop they ran before: GFLOP/s over the
// square M256 N256 K256 SGEMM's, and at batch 1 (a matrix-vector product,
// bound by memory) the weights' read rate over a memcpy of as many bytes.
//
// Then the cost of handing data between threads (what an op split over the
// pool pays when it reads what another core wrote): a copy of 1 MiB that this
// thread wrote against a copy of 1 MiB that the pool's other thread wrote,
// and overwriting each (--filter handoff; a pool of two threads).
//
// Per shape: the plain loop (the direct convolution the conv2d op runs; an
// i-k-j triple loop for GEMM) and the fast kernel are timed alternately; each
// sample repeats the call enough to last ~0.5 ms; the median of N samples
// after a warm-up is printed as ms per call, with their ratio and the fast
// kernel's GFLOP/s.  Conv filters are prepared (kernels::conv_weights) once,
// as a model does at load time; sgemm packs A on every call.
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "../../tests/kernels/random_vec.hpp"
#include "litegraph/core/parallel.hpp"
#include "litegraph/kernels/conv.hpp"
#include "litegraph/kernels/fc.hpp"
#include "litegraph/kernels/gemm.hpp"
#include "litegraph/kernels/matmul.hpp"

using namespace litegraph;
using kernels::conv_geometry;

namespace {

using kernel_test::random_vec;

// The conv2d op's direct convolution: each (input channel, kernel tap) adds a
// scaled input row segment into the output row.
void loop_conv(const conv_geometry& g, const float* x, const float* f, float* y) {
    const std::int64_t cin_g = g.c / g.groups, cout_g = g.oc / g.groups;
    const std::int64_t in_plane = g.h * g.w, out_plane = g.oh * g.ow, ksize = g.kh * g.kw;
    std::vector<std::int64_t> ow_lo(g.kw), ow_hi(g.kw), x_off(g.kw);
    for (std::int64_t j = 0; j < g.kw; ++j) {
        const std::int64_t off = j * g.dw - g.pl;
        std::int64_t lo = off >= 0 ? 0 : (-off + g.sw - 1) / g.sw;
        std::int64_t hi = off > g.w - 1 ? 0 : (g.w - 1 - off) / g.sw + 1;
        ow_lo[j] = std::min(lo, g.ow);
        ow_hi[j] = std::max(ow_lo[j], std::min(hi, g.ow));
        x_off[j] = off;
    }
    for (std::int64_t n = 0; n < g.n; ++n)
        for (std::int64_t oc = 0; oc < g.oc; ++oc) {
            const std::int64_t grp = oc / cout_g;
            const float* xg = x + (n * g.c + grp * cin_g) * in_plane;
            const float* fo = f + oc * cin_g * ksize;
            float* yo = y + (n * g.oc + oc) * out_plane;
            for (std::int64_t oh = 0; oh < g.oh; ++oh) {
                float* yr = yo + oh * g.ow;
                std::fill(yr, yr + g.ow, 0.f);
                for (std::int64_t ic = 0; ic < cin_g; ++ic) {
                    const float* xc = xg + ic * in_plane;
                    const float* fc = fo + ic * ksize;
                    for (std::int64_t i = 0; i < g.kh; ++i) {
                        const std::int64_t ih = oh * g.sh - g.pt + i * g.dh;
                        if (ih < 0 || ih >= g.h) continue;
                        const float* xr = xc + ih * g.w;
                        for (std::int64_t j = 0; j < g.kw; ++j) {
                            const float wv = fc[i * g.kw + j];
                            const std::int64_t off = x_off[j];
                            if (g.sw == 1)
                                for (std::int64_t o = ow_lo[j]; o < ow_hi[j]; ++o)
                                    yr[o] += wv * xr[o + off];
                            else
                                for (std::int64_t o = ow_lo[j]; o < ow_hi[j]; ++o)
                                    yr[o] += wv * xr[o * g.sw + off];
                        }
                    }
                }
            }
        }
}

void loop_gemm(std::int64_t m, std::int64_t n, std::int64_t k, const float* a, const float* b,
               float* c) {
    for (std::int64_t i = 0; i < m; ++i) {
        float* cr = c + i * n;
        std::fill(cr, cr + n, 0.f);
        for (std::int64_t p = 0; p < k; ++p) {
            const float av = a[i * k + p];
            const float* br = b + p * n;
            for (std::int64_t j = 0; j < n; ++j) cr[j] += av * br[j];
        }
    }
}

double seconds(const std::function<void()>& f, int reps) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int r = 0; r < reps; ++r) f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / reps;
}

struct result {
    std::string kind, shape;
    double loop_ms, fast_ms, gflops, max_abs_diff;
};

result measure(std::string kind, std::string shape, double flops, const std::function<void()>& ref,
               const std::function<void()>& fast, int runs) {
    // Warm up, then size a sample to ~0.5 ms.
    ref(), fast();
    const double est = std::max(seconds(ref, 1), seconds(fast, 1));
    const int reps = std::clamp(static_cast<int>(5e-4 / std::max(est, 1e-9)), 1, 1000);
    std::vector<double> tr, tf;
    for (int i = 0; i < runs; ++i) {  // alternating
        tr.push_back(seconds(ref, reps));
        tf.push_back(seconds(fast, reps));
    }
    auto median = [](std::vector<double> v) {
        std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
        return v[v.size() / 2];
    };
    const double r = median(tr), f = median(tf);
    return {std::move(kind), std::move(shape), r * 1e3, f * 1e3, flops / f * 1e-9, 0.0};
}

struct conv_case {
    const char* kind;
    std::int64_t c, h, w, oc, k, sh, sw, groups;
};

conv_geometry geometry(const conv_case& cc, std::int64_t n) {
    const std::int64_t p = cc.k / 2;
    conv_geometry g{n,     cc.c,  cc.h, cc.w, cc.oc, cc.k, cc.k, 0, 0,
                    cc.sh, cc.sw, 1,    1,    p,     p,    p,    p, cc.groups};
    g.oh = conv_geometry::out_size(g.h, g.kh, g.dh, g.pt, g.pb, g.sh);
    g.ow = conv_geometry::out_size(g.w, g.kw, g.dw, g.pl, g.pr, g.sw);
    return g;
}

}  // namespace

int main(int argc, char** argv) {
    bool json = false;
    int runs = 21;
    std::string filter;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--json")
            json = true;
        else if (a == "--runs" && i + 1 < argc)
            runs = std::max(1, std::atoi(argv[++i]));
        else if (a == "--filter" && i + 1 < argc)
            filter = argv[++i];
        else {
            std::fprintf(a == "--help" || a == "-h" ? stdout : stderr,
                         "usage: bench_kernels [--json] [--runs N] [--filter TEXT]\n");
            return a == "--help" || a == "-h" ? 0 : 2;
        }
    }

    // MobileNetV3 small x0.35 (PP-OCR cls) at 3x48x192.
    const conv_case cases[] = {
        {"conv3x3", 3, 48, 192, 8, 3, 2, 2, 1},    // stem
        {"conv1x1", 8, 24, 96, 8, 1, 1, 1, 1},     //
        {"conv1x1", 16, 24, 96, 8, 1, 1, 1, 1},    //
        {"conv1x1", 8, 24, 96, 16, 1, 1, 1, 1},    //
        {"conv1x1", 8, 12, 48, 24, 1, 1, 1, 1},    //
        {"conv1x1", 16, 12, 48, 48, 1, 1, 1, 1},   //
        {"conv1x1", 48, 12, 48, 24, 1, 1, 1, 1},   //
        {"conv1x1", 24, 6, 24, 8, 1, 1, 1, 1},     //
        {"conv1x1", 8, 6, 24, 32, 1, 1, 1, 1},     //
        {"conv1x1", 16, 3, 24, 88, 1, 1, 1, 1},    //
        {"conv1x1", 88, 3, 24, 16, 1, 1, 1, 1},    //
        {"conv1x1", 32, 3, 24, 200, 1, 1, 1, 1},   //
        {"conv1x1", 200, 3, 24, 32, 1, 1, 1, 1},   //
        {"dw3x3", 8, 24, 96, 8, 3, 2, 2, 8},       //
        {"dw3x3", 16, 24, 96, 16, 3, 1, 1, 16},    //
        {"dw3x3", 24, 12, 48, 24, 3, 2, 2, 24},    //
        {"dw3x3", 32, 6, 24, 32, 3, 1, 1, 32},     //
        {"dw5x5", 32, 6, 24, 32, 5, 2, 1, 32},     //
        {"dw5x5", 88, 3, 24, 88, 5, 1, 1, 88},     //
        {"dw5x5", 200, 3, 24, 200, 5, 1, 1, 200},  //
    };

    std::vector<result> results;
    auto wanted = [&](const std::string& s) {
        return filter.empty() || s.find(filter) != std::string::npos;
    };
    for (std::int64_t n : {1, 8})
        for (const auto& cc : cases) {
            const auto g = geometry(cc, n);
            char shape[160];
            std::snprintf(shape, sizeof shape, "%lldx%lldx%lldx%lld->%lld s%lld,%lld",
                          (long long)g.n, (long long)g.c, (long long)g.h, (long long)g.w,
                          (long long)g.oc, (long long)g.sh, (long long)g.sw);
            if (!wanted(std::string(cc.kind) + " " + shape)) continue;
            const auto x = random_vec(g.n * g.c * g.h * g.w, 1);
            const auto w = random_vec(g.oc * (g.c / g.groups) * g.kh * g.kw, 2);
            std::vector<float> y0(static_cast<std::size_t>(g.n * g.oc * g.oh * g.ow));
            auto y1 = y0;
            const kernels::conv_weights cw(g, w.data());  // prepared once, as at load time
            auto r = measure(
                cc.kind, shape, g.flops(), [&] { loop_conv(g, x.data(), w.data(), y0.data()); },
                [&] {
                    kernels::conv2d(g, x.data(), cw, kernels::conv_store_epilogue(y1.data(), g));
                },
                runs);
            for (std::size_t i = 0; i < y0.size(); ++i)
                r.max_abs_diff = std::max<double>(r.max_abs_diff, std::abs(y0[i] - y1[i]));
            results.push_back(r);
        }
    for (auto [m, n, k] : {std::array<std::int64_t, 3>{64, 2304, 16},
                           {128, 128, 128},
                           {256, 256, 256},
                           {200, 72, 32},
                           {512, 512, 512}}) {
        char shape[96];
        std::snprintf(shape, sizeof shape, "M%lld N%lld K%lld", (long long)m, (long long)n,
                      (long long)k);
        if (!wanted(std::string("sgemm ") + shape)) continue;
        const auto a = random_vec(m * k, 3), b = random_vec(k * n, 4);
        std::vector<float> c0(static_cast<std::size_t>(m * n)), c1 = c0;
        auto r = measure(
            "sgemm", shape, 2.0 * m * n * k,
            [&] { loop_gemm(m, n, k, a.data(), b.data(), c0.data()); },
            [&] {
                kernels::sgemm(m, n, k, a.data(), k, b.data(), n,
                               kernels::store_epilogue{c1.data(), n});
            },
            runs);
        for (std::size_t i = 0; i < c0.size(); ++i)
            r.max_abs_diff = std::max<double>(r.max_abs_diff, std::abs(c0[i] - c1[i]));
        results.push_back(r);
    }

    // Fully connected layers (mul / matmul / matmul_v2): the plain loop they
    // ran before (kernels::gemm, still the firmware form) against
    // kernels::fc_gemm; at batch 1 (a matrix-vector product, bound by memory)
    // the weights' read rate against a copy's read rate of as many bytes.
    struct fc_figures {
        std::string shape;
        double gflops = 0, gbps = 0, copy_gbps = 0;
    };
    std::vector<fc_figures> fcs;
    for (auto [m, k, n] :
         {std::array<std::int64_t, 3>{64, 1024, 1000}, {1, 1024, 1000}, {1, 4096, 4096}}) {
        char shape[96];
        std::snprintf(shape, sizeof shape, "M%lld K%lld N%lld", (long long)m, (long long)k,
                      (long long)n);
        if (!wanted(std::string("fc ") + shape)) continue;
        const kernels::gemm_shape s{m, k, n, false, false, 1.f};
        const auto x = random_vec(m * k, 5), y = random_vec(k * n, 6);
        std::vector<float> c0(static_cast<std::size_t>(m * n)), c1 = c0;
        auto r = measure(
            "fc", shape, 2.0 * m * n * k, [&] { kernels::gemm(s, x.data(), y.data(), c0.data()); },
            [&] { kernels::fc_gemm(s, x.data(), y.data(), c1.data()); }, runs);
        for (std::size_t i = 0; i < c0.size(); ++i)
            r.max_abs_diff = std::max<double>(r.max_abs_diff, std::abs(c0[i] - c1[i]));
        results.push_back(r);
        fc_figures f{shape, r.gflops, 0, 0};
        if (m != 1) {  // bound by arithmetic, not by the weights' bytes
            fcs.push_back(f);
            continue;
        }
        const double bytes = double(k * n) * sizeof(float);
        f.gbps = bytes / (r.fast_ms * 1e-3) * 1e-9;
        std::vector<float> dst(y.size());
        auto copy = measure(
            "copy", shape, 0, [&] { std::memcpy(dst.data(), y.data(), y.size() * sizeof(float)); },
            [&] { std::memcpy(dst.data(), y.data(), y.size() * sizeof(float)); }, runs);
        f.copy_gbps = bytes / (copy.fast_ms * 1e-3) * 1e-9;
        fcs.push_back(f);
    }
    // The square SGEMM the fc figures are compared with, measured here
    // whatever --filter selected.
    double sgemm256 = 0;
    if (!fcs.empty()) {
        const auto a = random_vec(256 * 256, 3), b = random_vec(256 * 256, 4);
        std::vector<float> c(256 * 256);
        auto fast = [&] {
            kernels::sgemm(256, 256, 256, a.data(), 256, b.data(), 256,
                           kernels::store_epilogue{c.data(), 256});
        };
        sgemm256 =
            measure("sgemm", "M256 N256 K256", 2.0 * 256 * 256 * 256, fast, fast, runs).gflops;
    }

    // Handing 1 MiB between the two threads of a pool: task 0 (the caller's
    // range) writes `mine`, task 1 (the other thread's) writes `theirs`, each
    // waiting until the other has started so both threads run one; then the
    // caller copies (reads) each into `dst`, or overwrites each, and times it.
    struct handoff_figures {
        double read_mine_us = 0, read_theirs_us = 0, write_mine_us = 0, write_theirs_us = 0;
    } handoff;
    const bool do_handoff = wanted("handoff") && std::thread::hardware_concurrency() >= 2;
    if (do_handoff) {
        thread_pool pool(2);
        const std::size_t n = (std::size_t{1} << 20) / sizeof(float);
        std::vector<float> mine(n), theirs(n), dst(n);
        std::vector<double> rm, rt, wm, wt;
        auto us = [](auto a, auto b) {
            return std::chrono::duration<double, std::micro>(b - a).count();
        };
        for (int i = 0; i < runs * 10; ++i) {
            for (int write = 0; write < 2; ++write) {
                std::atomic<int> started{0};
                parallel_tasks(&pool, 2, [&](std::int64_t t) {
                    ++started;
                    auto& v = t == 0 ? mine : theirs;
                    for (std::size_t e = 0; e < n; ++e) v[e] = static_cast<float>(e + i);
                    while (started.load() < 2) std::this_thread::yield();
                });
                // Alternate which buffer goes first.
                for (int k = 0; k < 2; ++k) {
                    const bool own = (k + i) % 2 == 0;
                    auto& v = own ? mine : theirs;
                    const auto t0 = std::chrono::steady_clock::now();
                    if (write)
                        std::fill(v.begin(), v.end(), static_cast<float>(i));
                    else
                        std::memcpy(dst.data(), v.data(), n * sizeof(float));
                    const auto t1 = std::chrono::steady_clock::now();
                    (write ? (own ? wm : wt) : (own ? rm : rt)).push_back(us(t0, t1));
                }
            }
        }
        auto median = [](std::vector<double> v) {
            std::sort(v.begin(), v.end());
            return v[v.size() / 2];
        };
        handoff = {median(rm), median(rt), median(wm), median(wt)};
    }

    if (json) {
        nlohmann::json j;
        j["simd"] = kernels::simd::active_name();
        j["runs"] = runs;
        for (const auto& r : results)
            j["results"].push_back({{"kind", r.kind},
                                    {"shape", r.shape},
                                    {"loop_ms", r.loop_ms},
                                    {"fast_ms", r.fast_ms},
                                    {"speedup", r.loop_ms / r.fast_ms},
                                    {"gflops", r.gflops},
                                    {"max_abs_diff", r.max_abs_diff}});
        for (const auto& f : fcs) {
            nlohmann::json e{{"shape", f.shape}, {"gflops", f.gflops}};
            if (f.copy_gbps > 0) {
                e["weights_gbps"] = f.gbps;
                e["copy_gbps"] = f.copy_gbps;
                e["weights_over_copy"] = f.gbps / f.copy_gbps;
            }
            if (sgemm256 > 0) e["over_sgemm256"] = f.gflops / sgemm256;
            j["fc"].push_back(e);
        }
        if (do_handoff)
            j["handoff_1mib_us"] = {{"copy_written_here", handoff.read_mine_us},
                                    {"copy_written_by_other_thread", handoff.read_theirs_us},
                                    {"overwrite_written_here", handoff.write_mine_us},
                                    {"overwrite_written_by_other_thread", handoff.write_theirs_us}};
        std::printf("%s\n", j.dump(2).c_str());
        return 0;
    }
    std::printf("simd: %s, median of %d samples\n", kernels::simd::active_name().c_str(), runs);
    std::printf("%-8s %-28s %10s %10s %8s %9s %9s\n", "kernel", "shape", "loop ms", "fast ms",
                "speedup", "GFLOP/s", "max|diff|");
    for (const auto& r : results)
        std::printf("%-8s %-28s %10.4f %10.4f %8.2f %9.2f %9.1e\n", r.kind.c_str(), r.shape.c_str(),
                    r.loop_ms, r.fast_ms, r.loop_ms / r.fast_ms, r.gflops, r.max_abs_diff);
    if (!fcs.empty()) {
        std::printf(
            "\nfc (fc_gemm): GFLOP/s against sgemm M256 N256 K256 (%.2f GFLOP/s);\n"
            "weights read GB/s against a memcpy of the weights (read GB/s)\n",
            sgemm256);
        std::printf("%-22s %9s %10s %10s %10s %10s\n", "shape", "GFLOP/s", "/sgemm256",
                    "weights GB/s", "copy GB/s", "/copy");
        for (const auto& f : fcs)
            if (f.copy_gbps > 0)
                std::printf("%-22s %9.2f %10.2f %12.2f %10.2f %10.2f\n", f.shape.c_str(), f.gflops,
                            f.gflops / sgemm256, f.gbps, f.copy_gbps, f.gbps / f.copy_gbps);
            else
                std::printf("%-22s %9.2f %10.2f\n", f.shape.c_str(), f.gflops, f.gflops / sgemm256);
    }
    if (do_handoff)
        std::printf(
            "\nhandoff, 1 MiB between the two threads of a pool (us, median):\n"
            "  copy out, written by this thread  %8.1f   by the other thread %8.1f   (x%.2f)\n"
            "  overwrite, written by this thread %8.1f   by the other thread %8.1f   (x%.2f)\n",
            handoff.read_mine_us, handoff.read_theirs_us,
            handoff.read_theirs_us / handoff.read_mine_us, handoff.write_mine_us,
            handoff.write_theirs_us, handoff.write_theirs_us / handoff.write_mine_us);
    return 0;
}
