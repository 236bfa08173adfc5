// What fusion saves: conv + bias + activation, and conv + batch_norm +
// activation, as three ops against one fused op, on conv shapes of the PP-OCR direction classifier
// (1x3x48x192) and text detector (1x3x640x640).
//
//   bench_fusion [--json] [--runs N] [--filter TEXT]
//   (--filter: cases whose "model shape activation" contains TEXT, e.g.
//   "cls 8x6x96->32 k1" or "relu")
//
// Per shape, timed alternately in one run: N rounds after a warm-up, each
// round one sample of each variant (a sample repeats the call to last
// ~0.3 ms), the order rotating from round to round:
//   unfused     conv2d op, elementwise_add(bias) op, activation op, each
//               writing its own buffer (as the runtime runs an unfused graph);
//   fused       fused_conv2d = fused<conv2d, bias, act<...>> (one write per
//               element);
//   conv        conv2d op alone (no bias, no activation);
//   bn unfused  conv2d op, batch_norm op, activation op (as these two models
//               have them: every conv is followed by a batch norm);
//   bn fused    the same fused_conv2d with the batch norm folded as
//               fold_batch_norm folds it: the bias stage's Scale k and Bias b'
//               (v * k + b', the filter as trained), one write per element.
// All three are the library's op kernels on the same fast conv kernels, with
// op_io bound once and shapes inferred once (so the filter is packed once, as
// in a loaded model).  Ratios: fused/conv (the epilogue's cost; target <= 1.05),
// fused/unfused (target < 1), and the same two for the batch-norm chain (its
// epilogue does one multiply more per element than the bias chain: the price
// of rounding as conv -> batch_norm does), each the median over rounds of the
// ratio of the two samples of one round (taken back to back, so a shared
// machine's slow phases cancel out); the medians of the times are printed too.
// Outputs of fused and unfused are compared (max |diff|; for the batch-norm
// chain 0 when they round alike).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <xsimd/xsimd.hpp>

#include "litegraph/fusion/fused.hpp"
#include "litegraph/ops/batch_norm.hpp"
#include "litegraph/ops/builtin_ops.hpp"
#include "litegraph/ops/elementwise.hpp"
#include "litegraph/runtime/op_table.hpp"

using namespace litegraph;

namespace {

struct conv_case {
    const char* model;
    std::int64_t c, h, w, oc, k, sh, sw, groups;
    const char* act;
};

// Convs of the two models (filter shapes and strides as in the models after
// batch-norm folding, planes at these input sizes) with the activation that
// follows each.
constexpr const char* relu = ops::act::relu::paddle_type.data();
constexpr const char* hswish = ops::act::hard_swish::paddle_type.data();
const conv_case cases[] = {
    // PP-OCR mobile v2.0 cls: MobileNetV3 small x0.35 at 3x48x192.
    {"cls", 3, 48, 192, 8, 3, 2, 2, 1, hswish},      // stem
    {"cls", 8, 24, 96, 8, 3, 2, 1, 8, relu},         // dw 3x3 s2,1
    {"cls", 8, 12, 96, 24, 1, 1, 1, 1, relu},        // expand
    {"cls", 24, 12, 96, 24, 3, 2, 1, 24, relu},      // dw 3x3 s2,1
    {"cls", 8, 6, 96, 32, 1, 1, 1, 1, relu},         // expand
    {"cls", 32, 6, 96, 32, 3, 1, 1, 32, relu},       // dw 3x3
    {"cls", 32, 6, 96, 32, 5, 2, 1, 32, hswish},     // dw 5x5 s2,1
    {"cls", 16, 3, 96, 88, 1, 1, 1, 1, hswish},      // expand
    {"cls", 88, 3, 96, 88, 5, 1, 1, 88, hswish},     // dw 5x5
    {"cls", 32, 2, 96, 200, 1, 1, 1, 1, hswish},     // expand
    {"cls", 200, 2, 96, 200, 5, 1, 1, 200, hswish},  // dw 5x5
    // PP-OCRv3 det: MobileNetV3 large x0.5 backbone and DB head at 3x640x640.
    {"det", 3, 640, 640, 8, 3, 2, 2, 1, hswish},      // stem
    {"det", 8, 320, 320, 8, 3, 1, 1, 8, relu},        // dw 3x3
    {"det", 8, 320, 320, 32, 1, 1, 1, 1, relu},       // expand
    {"det", 32, 320, 320, 32, 3, 2, 2, 32, relu},     // dw 3x3 s2
    {"det", 16, 160, 160, 40, 1, 1, 1, 1, relu},      // expand
    {"det", 40, 160, 160, 40, 5, 2, 2, 40, relu},     // dw 5x5 s2
    {"det", 24, 80, 80, 64, 1, 1, 1, 1, relu},        // expand
    {"det", 40, 40, 40, 120, 1, 1, 1, 1, hswish},     // expand
    {"det", 120, 40, 40, 120, 3, 1, 1, 120, hswish},  // dw 3x3
    {"det", 96, 160, 160, 24, 3, 1, 1, 1, relu},      // DB head 3x3
};

/// Tensor memory aligned as the runtime's arena aligns it (tensor_alignment),
/// so that no variant gains or loses by where its buffers happen to start.
using buffer = std::vector<float, xsimd::aligned_allocator<float, tensor_alignment>>;

buffer random_values(std::int64_t n, std::uint32_t seed) {
    buffer v(static_cast<std::size_t>(n));
    std::uint32_t s = seed * 2654435761u + 1;
    for (auto& x : v) {
        s = s * 1664525u + 1013904223u;
        x = static_cast<float>(s >> 8) / float(1 << 24) * 2.f - 1.f;
    }
    return v;
}

/// A tensor_ref over a vector the bench owns.
tensor_ref ref(buffer& v, shape_t s, const char* name) {
    tensor_ref r;
    r.name = name;
    r.type = dtype::f32;
    r.shape = std::move(s);
    r.data = reinterpret_cast<std::byte*>(v.data());
    return r;
}

/// One op kernel with its op_io bound once.
struct bound_op {
    std::unique_ptr<op_instance> k;
    op_io io;
    std::vector<std::unique_ptr<tensor_ref>> refs;

    bound_op(std::unique_ptr<op_instance> kk, std::string type) : k(std::move(kk)) {
        io.type = std::move(type);
        io.label = io.type;
    }
    void in(const char* slot, tensor_ref r) {
        refs.push_back(std::make_unique<tensor_ref>(std::move(r)));
        io.inputs.push_back({slot, {refs.back().get()}});
    }
    /// Infers the output's shape, then points it at `buf` (sized to fit).
    void out(const char* slot, buffer& buf) {
        refs.push_back(std::make_unique<tensor_ref>());
        refs.back()->name = slot;
        io.outputs.push_back({slot, {refs.back().get()}});
        k->infer(io);
        buf.assign(static_cast<std::size_t>(refs.back()->numel()), 0.f);
        refs.back()->data = reinterpret_cast<std::byte*>(buf.data());
    }
    void run() { k->run(io); }
};

double seconds(const std::function<void()>& f, int reps) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int r = 0; r < reps; ++r) f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / reps;
}

double median(std::vector<double> v) {
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
}

struct result {
    std::string model, shape, act;
    double unfused_ms, fused_ms, conv_ms, max_abs_diff;
    double fused_over_conv, fused_over_unfused;        // medians of per-round ratios
    double unfused_min_ms, fused_min_ms, conv_min_ms;  // the least disturbed samples
    double bn_unfused_ms, bn_fused_ms, bn_max_abs_diff;
    double bn_fused_over_conv, bn_fused_over_unfused;
};

std::string shape_name(const conv_case& cc) {
    char shape[128];
    std::snprintf(shape, sizeof shape, "%lldx%lldx%lld->%lld k%lld s%lld,%lld%s", (long long)cc.c,
                  (long long)cc.h, (long long)cc.w, (long long)cc.oc, (long long)cc.k,
                  (long long)cc.sh, (long long)cc.sw, cc.groups > 1 ? " dw" : "");
    return shape;
}

result measure(const conv_case& cc, int runs) {
    const std::int64_t n = 1, p = cc.k / 2;
    const shape_t xs{n, cc.c, cc.h, cc.w}, fs{cc.oc, cc.c / cc.groups, cc.k, cc.k};
    auto x = random_values(n * cc.c * cc.h * cc.w, 1);
    auto f = random_values(cc.oc * (cc.c / cc.groups) * cc.k * cc.k, 2);
    auto b = random_values(cc.oc, 3);
    // Batch norm statistics (gamma, beta, mean, var > 0) and their fold.
    auto gamma = random_values(cc.oc, 4), beta = random_values(cc.oc, 5);
    auto mean = random_values(cc.oc, 6), var = random_values(cc.oc, 7);
    const auto oc = static_cast<std::size_t>(cc.oc);
    buffer bn_k(oc), bn_b(oc);
    for (std::size_t c = 0; c < oc; ++c) {
        var[c] = 0.1f + std::abs(var[c]);
        bn_k[c] = gamma[c] * (1.f / std::sqrt(var[c] + 1e-5f));
        bn_b[c] = beta[c] - mean[c] * bn_k[c];
    }
    attr_map ca;
    ca.set("strides", std::vector<std::int32_t>{int(cc.sh), int(cc.sw)});
    ca.set("paddings", std::vector<std::int32_t>{int(p), int(p)});
    ca.set("dilations", std::vector<std::int32_t>{1, 1});
    ca.set("groups", std::int32_t(cc.groups));
    const std::string conv_type(
        ops::conv2d::paddle_types[cc.groups == cc.c && cc.groups > 1 ? 1 : 0]);
    const std::string add_type(ops::elementwise::type_of(ops::elementwise::kind::add));
    const std::string bn_type = op_type<ops::batch_norm>();
    const std::string fused_type = op_type<fusion::fused<ops::conv2d, fusion::bias>>();

    buffer y_conv, y_add, y_act, y_fused, y_alone, y_bn_conv, y_bn, y_bn_act, y_bn_fused;
    // (a) unfused: three ops, three buffers.
    bound_op conv(make_instance(conv_type, ca), conv_type);
    conv.in("Input", ref(x, xs, "x"));
    conv.in("Filter", ref(f, fs, "filter"));
    conv.out("Output", y_conv);
    const shape_t ys = conv.refs.back()->shape;
    attr_map add_a;
    add_a.set("axis", std::int32_t{1});
    bound_op add(make_instance(add_type, add_a), add_type);
    add.in("X", ref(y_conv, ys, "conv"));
    add.in("Y", ref(b, {cc.oc}, "bias"));
    add.out("Out", y_add);
    bound_op act(make_instance(cc.act, {}), cc.act);
    act.in("X", ref(y_add, ys, "added"));
    act.out("Out", y_act);
    // (b) fused.
    attr_map fa = ca;
    fusion::set_stages<fusion::stage_set<fusion::bias>>(fa);
    fusion::append_stage(fa, cc.act);
    bound_op fused(make_instance<runtime::op_table>(fused_type, fa), fused_type);
    fused.in("Input", ref(x, xs, "x"));
    fused.in("Filter", ref(f, fs, "filter"));
    fused.in("Bias", ref(b, {cc.oc}, "bias"));
    fused.out("Output", y_fused);
    // (c) the conv alone.
    bound_op alone(make_instance(conv_type, ca), conv_type);
    alone.in("Input", ref(x, xs, "x"));
    alone.in("Filter", ref(f, fs, "filter"));
    alone.out("Output", y_alone);
    // (d) batch norm unfused: conv, batch_norm, activation.
    bound_op bn_conv(make_instance(conv_type, ca), conv_type);
    bn_conv.in("Input", ref(x, xs, "x"));
    bn_conv.in("Filter", ref(f, fs, "filter"));
    bn_conv.out("Output", y_bn_conv);
    attr_map bn_a;
    bn_a.set("epsilon", 1e-5f);
    bound_op bn(make_instance(bn_type, bn_a), bn_type);
    bn.in("X", ref(y_bn_conv, ys, "conv"));
    bn.in("Scale", ref(gamma, {cc.oc}, "gamma"));
    bn.in("Bias", ref(beta, {cc.oc}, "beta"));
    bn.in("Mean", ref(mean, {cc.oc}, "mean"));
    bn.in("Variance", ref(var, {cc.oc}, "var"));
    bn.out("Y", y_bn);
    bound_op bn_act(make_instance(cc.act, {}), cc.act);
    bn_act.in("X", ref(y_bn, ys, "normalised"));
    bn_act.out("Out", y_bn_act);
    // (e) batch norm fused.
    bound_op bn_fused(make_instance<runtime::op_table>(fused_type, fa), fused_type);
    bn_fused.in("Input", ref(x, xs, "x"));
    bn_fused.in("Filter", ref(f, fs, "filter"));
    bn_fused.in("Scale", ref(bn_k, {cc.oc}, "bn_scale"));
    bn_fused.in("Bias", ref(bn_b, {cc.oc}, "bias"));
    bn_fused.out("Output", y_bn_fused);

    constexpr int nv = 5;
    const std::function<void()> fns[nv] = {
        [&] { conv.run(), add.run(), act.run(); }, [&] { fused.run(); }, [&] { alone.run(); },
        [&] { bn_conv.run(), bn.run(), bn_act.run(); }, [&] { bn_fused.run(); }};
    double est = 0;
    for (auto& fn : fns) fn(), est = std::max(est, seconds(fn, 1));  // warm-up
    const int reps = std::clamp(static_cast<int>(3e-4 / std::max(est, 1e-9)), 1, 2000);
    std::vector<double> t[nv], r_conv, r_unfused, r_bn_conv, r_bn_unfused;
    for (int i = 0; i < runs; ++i) {
        double s[nv];
        for (int k = 0; k < nv; ++k) {
            const int j = (i + k) % nv;
            s[j] = seconds(fns[j], reps);
            t[j].push_back(s[j]);
        }
        r_unfused.push_back(s[1] / s[0]);
        r_conv.push_back(s[1] / s[2]);
        r_bn_unfused.push_back(s[4] / s[3]);
        r_bn_conv.push_back(s[4] / s[2]);
    }

    auto max_diff = [](const buffer& a, const buffer& b) {
        double d = 0;
        for (std::size_t i = 0; i < a.size(); ++i) d = std::max(d, double(std::abs(a[i] - b[i])));
        return d;
    };
    const double diff = max_diff(y_act, y_fused);
    const std::string shape = shape_name(cc);
    auto least = [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); };
    return {cc.model,
            shape,
            cc.act,
            median(t[0]) * 1e3,
            median(t[1]) * 1e3,
            median(t[2]) * 1e3,
            diff,
            median(r_conv),
            median(r_unfused),
            least(t[0]) * 1e3,
            least(t[1]) * 1e3,
            least(t[2]) * 1e3,
            median(t[3]) * 1e3,
            median(t[4]) * 1e3,
            max_diff(y_bn_act, y_bn_fused),
            median(r_bn_conv),
            median(r_bn_unfused)};
}

}  // namespace

int main(int argc, char** argv) {
    bool json = false;
    int runs = 51;
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
                         "usage: bench_fusion [--json] [--runs N] [--filter TEXT]\n");
            return a == "--help" || a == "-h" ? 0 : 2;
        }
    }
    std::vector<result> results;
    for (const auto& cc : cases) {
        const std::string name = std::string(cc.model) + " " + shape_name(cc) + " " + cc.act;
        if (!filter.empty() && name.find(filter) == std::string::npos) continue;
        results.push_back(measure(cc, runs));
    }
    if (json) {
        nlohmann::json j;
        j["runs"] = runs;
        j["simd"] = kernels::simd::active_name();
        for (const auto& r : results)
            j["results"].push_back({{"model", r.model},
                                    {"shape", r.shape},
                                    {"activation", r.act},
                                    {"unfused_ms", r.unfused_ms},
                                    {"fused_ms", r.fused_ms},
                                    {"conv_ms", r.conv_ms},
                                    {"fused_over_conv", r.fused_over_conv},
                                    {"fused_over_unfused", r.fused_over_unfused},
                                    {"unfused_min_ms", r.unfused_min_ms},
                                    {"fused_min_ms", r.fused_min_ms},
                                    {"conv_min_ms", r.conv_min_ms},
                                    {"max_abs_diff", r.max_abs_diff},
                                    {"bn_unfused_ms", r.bn_unfused_ms},
                                    {"bn_fused_ms", r.bn_fused_ms},
                                    {"bn_fused_over_conv", r.bn_fused_over_conv},
                                    {"bn_fused_over_unfused", r.bn_fused_over_unfused},
                                    {"bn_max_abs_diff", r.bn_max_abs_diff}});
        std::printf("%s\n", j.dump(2).c_str());
        return 0;
    }
    std::printf(
        "bench_fusion: medians of %d rounds (ms per call; ratios: medians of per-round "
        "ratios), simd %s\n",
        runs, kernels::simd::active_name().c_str());
    std::printf("%-5s %-28s %-11s %9s %9s %9s %10s %12s %9s | %9s %9s %8s %8s %9s\n", "model",
                "conv", "act", "unfused", "fused", "conv", "fused/conv", "fused/unfus", "max diff",
                "bn unfus", "bn fused", "bn/conv", "bn/unfus", "bn diff");
    for (const auto& r : results)
        std::printf(
            "%-5s %-28s %-11s %9.4f %9.4f %9.4f %10.3f %12.3f %9.1e | %9.4f %9.4f %8.3f %8.3f "
            "%9.1e\n",
            r.model.c_str(), r.shape.c_str(), r.act.c_str(), r.unfused_ms, r.fused_ms, r.conv_ms,
            r.fused_over_conv, r.fused_over_unfused, r.max_abs_diff, r.bn_unfused_ms, r.bn_fused_ms,
            r.bn_fused_over_conv, r.bn_fused_over_unfused, r.bn_max_abs_diff);
    return 0;
}
