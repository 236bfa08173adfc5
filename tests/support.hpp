// Helpers shared by tests: where the shared models are, deterministic data,
// and comparisons with a tolerance.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "litegraph/core/tensor.hpp"
#include "litegraph/graph/edit.hpp"
#include "litegraph/graph/graph.hpp"

namespace litegraph::test {

/// The shared test data folder (env LITEGRAPH_SHARED overrides the build's default).
inline std::filesystem::path shared_dir() {
    if (const char* e = std::getenv("LITEGRAPH_SHARED")) return e;
    return LITEGRAPH_SHARED_DIR;
}

/// Every model folder of the shared folder's models/ and
/// models_topology_only/, sorted within each; empty when they are absent.
inline std::vector<std::filesystem::path> shared_model_dirs() {
    std::vector<std::filesystem::path> out;
    for (const char* sub : {"models", "models_topology_only"}) {
        const auto root = shared_dir() / sub;
        if (!std::filesystem::is_directory(root)) continue;
        std::vector<std::filesystem::path> dirs;
        for (auto& e : std::filesystem::directory_iterator(root))
            if (e.is_directory()) dirs.push_back(e.path());
        std::sort(dirs.begin(), dirs.end());
        out.insert(out.end(), dirs.begin(), dirs.end());
    }
    return out;
}

/// Path of a shared model folder, or empty (with a doctest message) when absent,
/// so the test can skip: `auto dir = shared_model("lenet_mnist"); if (dir.empty()) return;`
inline std::filesystem::path shared_model(const std::string& name,
                                          const std::string& sub = "models") {
    auto p = shared_dir() / sub / name;
    if (!std::filesystem::exists(p)) {
        MESSAGE("skipped: shared model folder " << p.string() << " is absent");
        return {};
    }
    return p;
}

/// What the CLI printed (stdout and stderr together) and its exit code.
struct cli_result {
    int code = -1;
    std::string out;
};

/// The CLI built beside the tests (build/bin/litegraph).
inline std::filesystem::path cli_path() {
    return std::filesystem::path(LITEGRAPH_BINARY_DIR) / "bin" / "litegraph";
}

/// Runs `litegraph ARGS` through the shell (quote paths with single quotes);
/// in a cross build through its emulator (LITEGRAPH_TEST_EMULATOR, e.g.
/// `qemu-aarch64 -L /`).
inline cli_result run_cli(const std::string& args) {
#if defined(LITEGRAPH_TEST_EMULATOR)
    const std::string emulator = LITEGRAPH_TEST_EMULATOR " ";
#else
    const std::string emulator;
#endif
    std::string cmd = emulator + "'" + cli_path().string() + "' " + args + " 2>&1";
    cli_result r;
    FILE* pipe = popen(cmd.c_str(), "r");
    REQUIRE(pipe != nullptr);
    std::array<char, 4096> buf{};
    std::size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) r.out.append(buf.data(), n);
    int status = pclose(pipe);
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return r;
}

/// A float tensor of `shape` filled with uniform values in [lo, hi) from `seed`.
inline tensor random_tensor(const shape_t& shape, std::uint32_t seed, float lo = -1.f,
                            float hi = 1.f) {
    tensor t(dtype::f32, shape);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> d(lo, hi);
    for (auto& v : t.span<float>()) v = d(rng);
    return t;
}

/// A parameter variable of `shape` holding random_tensor(shape, seed).
inline graph::var_node param_var(const std::string& name, const shape_t& shape,
                                 std::uint32_t seed) {
    graph::var_node v;
    v.name = name;
    v.shape = shape;
    v.persistable = true;
    v.value = random_tensor(shape, seed);
    return v;
}

/// Largest |a-b| / max(1, |b|) (mixed absolute/relative error).
inline double max_rel_diff(std::span<const float> a, std::span<const float> b) {
    REQUIRE(a.size() == b.size());
    double worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        double d = std::abs(double(a[i]) - double(b[i])) / std::max(1.0, std::abs(double(b[i])));
        if (std::isnan(d)) return INFINITY;
        worst = std::max(worst, d);
    }
    return worst;
}

inline double max_abs_diff(std::span<const float> a, std::span<const float> b) {
    REQUIRE(a.size() == b.size());
    double worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        double d = std::abs(double(a[i]) - double(b[i]));
        if (std::isnan(d)) return INFINITY;
        worst = std::max(worst, d);
    }
    return worst;
}

/// A fused conv's `stages` attribute (fusion/stages.hpp), for tests that
/// speak of an activation and a writing stage: "bias", then `activation`
/// unless empty, then `last` unless "store"; `int8` puts "rescale" in front.
inline std::vector<std::string> conv_stages(const std::string& activation,
                                            const std::string& last = "store", bool int8 = false) {
    std::vector<std::string> s;
    if (int8) s.push_back("rescale");
    s.push_back("bias");
    if (!activation.empty()) s.push_back(activation);
    if (last != "store") s.push_back(last);
    return s;
}

/// A node's `stages` attribute (empty when absent).
inline std::vector<std::string> stages_of(const graph::op_node& op) {
    return op.attrs.get<std::vector<std::string>>("stages", {});
}

/// Fills every float parameter of `g` that has no value (a topology-only
/// model: declared shapes only) with seeded values: conv filters and fc
/// weights uniform with variance 2 / fan-in, batch norms near the identity
/// (positive variances), element-wise scales near 1.
inline void synthesize_weights(graph::graph& g, std::uint32_t seed) {
    std::mt19937 rng(seed);
    auto uniform = [&](float lo, float hi) {
        return std::uniform_real_distribution<float>(lo, hi)(rng);
    };
    for (auto& v : g.vars) {
        if (!v.persistable || v.value || v.type != dtype::f32) continue;
        for (auto d : v.shape) REQUIRE_MESSAGE(d > 0, "parameter " << v.name << " has an open dim");
        tensor t(dtype::f32, v.shape);
        const auto n = t.numel();
        // A conv filter [O, I, kh, kw] and an fc weight [in, out]: variance
        // 2 / fan-in (He), so that the signal neither dies nor explodes
        // through the hardswish layers.
        double fan_in = v.shape.size() == 4   ? double(n) / double(v.shape[0])
                        : v.shape.size() == 2 ? double(v.shape[0])
                                              : 0.0;
        const float a = fan_in > 0 ? float(std::sqrt(6.0 / fan_in)) : 0.1f;
        for (auto& x : t.span<float>()) x = uniform(-a, a);
        v.value = std::move(t);
    }
    for (auto& op : g.ops) {
        auto refill = [&](const char* slot, float lo, float hi) {
            const int var = graph::input_var(op, slot);
            if (var < 0 || !g.vars[var].persistable || !g.vars[var].value) return;
            for (auto& x : g.vars[var].value->span<float>()) x = uniform(lo, hi);
        };
        if (op.type == "batch_norm") {
            refill("Scale", 0.8f, 1.2f);
            refill("Variance", 0.5f, 1.5f);
            refill("Mean", -0.1f, 0.1f);
        } else if (op.type == "elementwise_mul") {
            refill("Y", 0.8f, 1.2f);  // a learnt scale (PP-LCNetV3's affine blocks)
        }
    }
}

}  // namespace litegraph::test
