// What the fuzz targets (tests/fuzz/targets/) and the regression test of
// tests/broken/ run on a byte string.  Each function either returns (the
// input was accepted, or skipped for a documented reason) or throws a
// litegraph::error; anything else (a crash, a sanitizer report, another
// exception, a leak, an allocation over the documented bound) is a bug.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>

#include "fuzz/fusion_target.hpp"
#include "fuzz/pir_recipe.hpp"
#include "fuzz/plan_target.hpp"
#include "litegraph.hpp"
#include "litegraph/paddle.hpp"
#include "litegraph/passes/pipeline.hpp"

namespace litegraph::fuzz {

/// Input layouts (all integers little-endian):
///   topology: the bytes of a ProgramDesc.
///   params:   flags byte (bit 0: separate files, bit 1: parameters optional), then
///             combined: the bytes of a combined parameter file;
///             separate: per persistable of `params_topology()` in byte-wise name
///             order, u32 length + that many bytes of its file (length 0xFFFFFFFF:
///             the file is missing); bytes after the last one are ignored.
///   model:    flags byte (bit 0: with parameters; bit 1: written to files and
///             loaded from them, bits 2-3 naming them: load_model_files; bit 4:
///             feeds that declare a LoD level get one, feed_lod), u32
///             topology length, the topology, then (with parameters) a combined
///             parameter file.
///   pir:      as model, the topology a PIR program (JSON text, inference.json);
///             or flags bit 1 set: the rest of the bytes a recipe that
///             tests/fuzz/pir_recipe.hpp turns into a PIR program (no parameters);
///             bits 2-3 (JSON text only) write it to files and load those:
///             1 `inference.json`, 2 `net.json`, 3 `program` (a file path).
///   plan:     a planning problem (tests/fuzz/plan_target.hpp).
///   fusion:   a random valid program (tests/fuzz/fusion_target.hpp).
/// plan and fusion are differential: a property that fails is a finding (an
/// exception that is not a litegraph::error), never a rejected input.
enum class target { topology, params, model, pir, plan, fusion };

/// The limits the targets load and plan with (docs/hardening.md): small enough
/// that libFuzzer's -malloc_limit_mb=512 catches any allocation past them.
inline paddle::load_options fuzz_load_options(bool require_params) {
    paddle::load_options o;
    o.require_params = require_params;
    o.max_topology_bytes = std::size_t{16} << 20;
    return o;
}

inline runtime::program_limits fuzz_program_limits() {
    runtime::program_limits l;
    l.max_tensor_elements = std::int64_t{1} << 24;
    l.max_folded_bytes = std::uint64_t{64} << 20;
    l.max_arena_bytes = std::uint64_t{128} << 20;
    l.max_loop_iterations = 1024;  // a loop whose condition stays true ends in time
    return l;
}

/// Feeds get their declared dims with -1 as 1; a feed dim above this or a
/// feed above `max_feed_elements` skips the input (inputs are the caller's).
inline constexpr std::int64_t max_feed_dim = 4096;
inline constexpr std::int64_t max_feed_elements = std::int64_t{1} << 20;

/// The fixed topology the params target reads records against: persistables
/// of several dtypes and ranks, one with an unknown (-1) dim.
inline const std::string& params_topology() {
    static const std::string bytes = [] {
        graph::graph g;
        graph::builder b(g);
        b.declare("x", {-1, 4});
        auto param = [&](std::string name, shape_t shape, dtype t) {
            graph::var_node v;
            v.name = std::move(name);
            v.shape = std::move(shape);
            v.type = t;
            v.persistable = true;
            b.declare(std::move(v));
        };
        param("bias", {3}, dtype::f32);
        param("emb", {-1, 2}, dtype::i64);
        param("half", {2}, dtype::f16);
        param("q", {2, 2, 2}, dtype::i8);
        param("w", {4, 3}, dtype::f32);
        b.feed("x", 0);
        b.fetch("x", 0);
        b.finish();
        return paddle::serialize_program(g);
    }();
    return bytes;
}

/// The persistables of `params_topology()`, in the order records follow.
inline const std::vector<std::string>& params_names() {
    static const std::vector<std::string> names = {"bias", "emb", "half", "q", "w"};
    return names;
}

/// Where the fuzz targets watch allocations (tests/fuzz/alloc_bound.hpp): called
/// right before a model is loaded, with its topology and parameter bytes, and
/// right after it loaded (set by the fuzz targets, and by the regression test
/// under ASan).  Unset: nothing is called.
struct load_hooks {
    void (*begin_load)(std::size_t topology_bytes, std::size_t params_bytes) = nullptr;
    void (*loaded)() = nullptr;
};
inline load_hooks& hooks() {
    static load_hooks h;
    return h;
}

template <class Load>
auto watched_load(std::size_t topology_bytes, std::size_t params_bytes, Load&& load) {
    if (hooks().begin_load) hooks().begin_load(topology_bytes, params_bytes);
    auto m = load();
    if (hooks().loaded) hooks().loaded();
    return m;
}

inline std::uint32_t read_u32(std::string_view s, std::size_t at) {
    std::uint32_t v = 0;
    std::memcpy(&v, s.data() + at, sizeof v);
    return v;
}

inline void run_topology(std::string_view bytes) {
    const std::map<std::string, std::string, std::less<>> none;
    auto m = watched_load(bytes.size(), 0, [&] {
        return paddle::load_from_memory(bytes, none, fuzz_load_options(false));
    });
    (void)m;
}

inline void run_params(std::string_view bytes) {
    if (bytes.empty()) return;
    const auto flags = static_cast<std::uint8_t>(bytes[0]);
    bytes.remove_prefix(1);
    const auto options = fuzz_load_options(!(flags & 2));
    const auto& topology = params_topology();
    if (!(flags & 1)) {
        watched_load(topology.size(), bytes.size(),
                     [&] { return paddle::load_from_memory(topology, bytes, options); });
        return;
    }
    std::map<std::string, std::string, std::less<>> files;
    std::size_t at = 0, total = 0;
    for (auto& name : params_names()) {
        if (bytes.size() - at < 4) break;
        const auto n = read_u32(bytes, at);
        at += 4;
        if (n == 0xFFFFFFFFu) continue;
        const auto len = std::min<std::size_t>(n, bytes.size() - at);
        files.emplace(name, std::string(bytes.substr(at, len)));
        at += len;
        total += len;
    }
    watched_load(topology.size(), total,
                 [&] { return paddle::load_from_memory(topology, files, options); });
}

/// The LoD a feed declared with `levels` LoD levels gets over its `rows` rows
/// (Paddle's offsets; the last level over rows): sequences of 1, 2, 3, 1, 2, 3,
/// ... rows, and above them groups of two sequences of the level below.
inline lod_t feed_lod(std::int64_t rows, int levels) {
    lod_t lod;
    std::vector<std::int64_t> off{0};
    for (std::int64_t k = 0; off.back() < rows; ++k)
        off.push_back(std::min(rows, off.back() + k % 3 + 1));
    lod.push_back(std::move(off));
    for (int l = 1; l < levels; ++l) {
        const auto below = static_cast<std::int64_t>(lod.front().size()) - 1;
        std::vector<std::int64_t> up{0};
        while (up.back() < below) up.push_back(std::min(below, up.back() + 2));
        lod.insert(lod.begin(), std::move(up));
    }
    return lod;
}

/// Deterministic inputs for every feed: declared dims (-1 as 1), values a
/// small repeating pattern (zeros for integer feeds: valid indices); with
/// `lods`, a LoD (feed_lod, at most 3 levels) for a feed declaring a LoD level.
/// False when a feed is too large to make (the input is skipped).
inline bool set_inputs(runtime::program& p, bool lods) {
    for (std::size_t i = 0; i < p.input_count(); ++i) {
        const auto& v = p.input_var(i);
        shape_t s = v.shape.empty() ? shape_t{1} : v.shape;
        std::int64_t n = 1;
        for (auto& d : s) {
            if (d < 0) d = 1;
            if (d > max_feed_dim) return false;
            n *= d;
            if (n > max_feed_elements) return false;
        }
        tensor t(v.type, s);
        if (v.type == dtype::f32) {
            auto x = t.span<float>();
            for (std::size_t k = 0; k < x.size(); ++k)
                x[k] = static_cast<float>(k % 7) * 0.25f - 0.5f;
        }
        if (lods && v.lod_level > 0 && !s.empty())
            t.set_lod(feed_lod(s[0], std::min(v.lod_level, 3)));
        p.set_input(i, std::move(t));
    }
    return true;
}

/// A program runs its kernels after planning only when that is cheap: an arena
/// of at most `max_run_arena_bytes`, and for every instruction that runs, the
/// elements of its inputs times the elements of its outputs at most
/// `max_run_work` (a bound on the work of a kernel whose every output reads
/// each input element at most once: convs, GEMMs, pools, element-wise ops,
/// NMS), so that an input runs in well under libFuzzer's -timeout.
inline constexpr std::uint64_t max_run_arena_bytes = std::uint64_t{4} << 20;
inline constexpr double max_run_work = double(std::uint64_t{1} << 27);

/// Whether the model targets run the kernels of cheap programs (below).  On
/// in the regression test and for long runs and coverage replays
/// (LITEGRAPH_FUZZ_RUN_KERNELS=1, read by the fuzz executable); off in CI's
/// short runs until the kernel findings of the first long runs are fixed.
inline bool& run_kernels() {
    static bool on = true;
    return on;
}

/// Whether `p` (planned) is cheap enough to run (see `max_run_work`).
inline bool cheap_to_run(const runtime::program& p) {
    if (p.memory().arena_bytes > max_run_arena_bytes) return false;
    auto elements = [](const std::vector<op_slot>& slots) {
        double n = 0;
        for (auto& s : slots)
            for (const auto* r : s.args)
                if (r) n += static_cast<double>(numel(r->shape));
        return n;
    };
    for (int i : p.execution_order()) {
        const auto& ins = p.instructions()[static_cast<std::size_t>(i)];
        if (ins.elided) continue;
        if (elements(ins.io.inputs) * elements(ins.io.outputs) > max_run_work) return false;
    }
    return true;
}

/// Plans `p` and, when cheap, runs it: shape inference, folding and planning
/// on every input, the kernels (the ops' own checks of their operands
/// included) on the small ones.
inline void plan_and_run(runtime::program& p, bool lods = false) {
    p.set_limits(fuzz_program_limits());
    if (!set_inputs(p, lods)) return;
    p.prepare_plan();
    if (run_kernels() && cheap_to_run(p)) p.run();
}

/// A folder of this process's own (under the system's temporary folder) that
/// the model targets write a model into to load it through the file-system
/// path (loader.hpp: finding the files of a folder, then reading them);
/// emptied on each call, removed at exit.
inline std::filesystem::path scratch_dir() {
    struct owned {
        std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("litegraph-fuzz-" + std::to_string(::getpid()));
        ~owned() {
            std::error_code ec;
            std::filesystem::remove_all(dir, ec);
        }
    };
    static owned o;
    std::filesystem::remove_all(o.dir);
    std::filesystem::create_directories(o.dir);
    return o.dir;
}

/// Loads a model written as files (flags bit 1 of the model layout), named by
/// flags bits 2-3: 0 `m.pdmodel` + `m.pdiparams`, the folder loaded; 1
/// `__model__` + `__params__`, the folder; 2 `model` + `params`, the topology
/// file; 3 `inference.pdmodel` and no parameter file, the folder (parameters
/// then separate files, none of which exists).  The parameter file is
/// written only with flags bit 0.
inline paddle::model load_model_files(std::uint8_t flags, std::string_view topology,
                                      std::string_view params) {
    static constexpr const char* names[4][2] = {{"m.pdmodel", "m.pdiparams"},
                                                {"__model__", "__params__"},
                                                {"model", "params"},
                                                {"inference.pdmodel", nullptr}};
    const int naming = (flags >> 2) & 3;
    const bool with_params = (flags & 1) && names[naming][1];
    const auto dir = scratch_dir();
    paddle::detail::write_file(dir / names[naming][0], std::string(topology));
    if (with_params) paddle::detail::write_file(dir / names[naming][1], std::string(params));
    return watched_load(topology.size(), with_params ? params.size() : 0, [&] {
        return paddle::load(naming == 2 ? dir / names[naming][0] : dir,
                            fuzz_load_options(with_params));
    });
}

inline void run_model(std::string_view bytes) {
    if (bytes.size() < 5) return;
    const auto flags = static_cast<std::uint8_t>(bytes[0]);
    const std::size_t topo_size = std::min<std::size_t>(read_u32(bytes, 1), bytes.size() - 5);
    const auto topology = bytes.substr(5, topo_size);
    const auto params = bytes.substr(5 + topo_size);
    const std::map<std::string, std::string, std::less<>> none;
    auto m =
        (flags & 2)
            ? load_model_files(flags, topology, params)
            : watched_load(topology.size(), (flags & 1) ? params.size() : 0, [&] {
                  return (flags & 1)
                             ? paddle::load_from_memory(topology, params, fuzz_load_options(true))
                             : paddle::load_from_memory(topology, none, fuzz_load_options(false));
              });
    passes::run_passes(m.graph);
    runtime::program p(std::move(m.graph));
    plan_and_run(p, (flags & 16) != 0);
}

/// A PIR program (JSON) -> graph -> passes -> shape inference, folding, plan
/// (and a run when cheap), as run_model does for a ProgramDesc; a program
/// generated from a recipe (flags bit 1) the same way.
inline void run_pir(std::string_view bytes) {
    if (bytes.empty()) return;
    const auto flags = static_cast<std::uint8_t>(bytes[0]);
    if (flags & 2) {
        const auto text = pir_program_from_recipe(
            reinterpret_cast<const std::uint8_t*>(bytes.data()) + 1, bytes.size() - 1);
        auto m = watched_load(text.size(), 0, [&] {
            return paddle::load_pir_from_memory(text, std::string_view(), fuzz_load_options(false));
        });
        passes::run_passes(m.graph);
        runtime::program p(std::move(m.graph));
        return plan_and_run(p);
    }
    if (bytes.size() < 5) return;
    const std::size_t json_size = std::min<std::size_t>(read_u32(bytes, 1), bytes.size() - 5);
    const auto text = bytes.substr(5, json_size);
    const auto params = bytes.substr(5 + json_size);
    const bool with_params = (flags & 1) != 0;
    auto m = watched_load(text.size(), with_params ? params.size() : 0, [&] {
        const int naming = (flags >> 2) & 3;
        if (naming == 0)
            return paddle::load_pir_from_memory(text, with_params ? params : std::string_view(),
                                                fuzz_load_options(with_params));
        // Through files: 1 inference.json, 2 a .json found by its first
        // bytes, 3 a topology file without extension.
        static constexpr const char* names[4][2] = {{"", ""},
                                                    {"inference.json", "inference.pdiparams"},
                                                    {"net.json", "net.pdiparams"},
                                                    {"program", "weights.pdiparams"}};
        const auto dir = scratch_dir();
        paddle::detail::write_file(dir / names[naming][0], std::string(text));
        if (with_params) paddle::detail::write_file(dir / names[naming][1], std::string(params));
        return paddle::load(naming == 3 ? dir / names[naming][0] : dir,
                            fuzz_load_options(with_params));
    });
    passes::run_passes(m.graph);
    runtime::program p(std::move(m.graph));
    plan_and_run(p);
}

inline void run(target t, std::string_view bytes) {
    switch (t) {
        case target::topology:
            return run_topology(bytes);
        case target::params:
            return run_params(bytes);
        case target::model:
            return run_model(bytes);
        case target::pir:
            return run_pir(bytes);
        case target::plan:
            return run_plan(bytes);
        case target::fusion:
            return run_fusion(bytes);
    }
}

/// Builds a model-target input from model bytes (what the seed corpus holds).
inline std::string model_input(std::string_view topology, const std::string* params) {
    std::string s(1, params ? '\x01' : '\x00');
    const auto n = static_cast<std::uint32_t>(topology.size());
    s.append(reinterpret_cast<const char*>(&n), 4);
    s += topology;
    if (params) s += *params;
    return s;
}

}  // namespace litegraph::fuzz
