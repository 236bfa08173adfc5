// litegraph run: runs a model on given or deterministic inputs.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "litegraph/core/npy.hpp"
#include "litegraph/passes/pipeline.hpp"
#include "litegraph/runtime/program.hpp"
#include "model_arg.hpp"
#include "places_arg.hpp"

namespace litegraph::cli {

/// The input litegraph feeds when none is given: element i of a float input
/// is sin(0.37 i) cos(0.011 i) (the formula of the classifier's reference
/// inputs); integer inputs get i mod 7 (valid ids and small shapes).
inline tensor deterministic_input(dtype type, const shape_t& shape) {
    tensor t(type, shape);
    auto n = static_cast<std::size_t>(t.numel());
    visit_dtype(type, [&]<class T>(T) {
        auto* p = reinterpret_cast<T*>(t.data());
        for (std::size_t i = 0; i < n; ++i) {
            if constexpr (std::is_floating_point_v<T>)
                p[i] = static_cast<T>(std::sin(0.37 * double(i)) * std::cos(0.011 * double(i)));
            else
                p[i] = static_cast<T>(i % 7);
        }
    });
    return t;
}

/// The shape litegraph feeds input `v` when no data is given: `shapes[v.name]`
/// (which must have the input's rank), else the declared shape with -1 as 1.
inline shape_t input_shape(const graph::var_node& v, const std::map<std::string, shape_t>& shapes) {
    shape_t shape = v.shape;
    if (auto it = shapes.find(v.name); it != shapes.end()) {
        if (!shape.empty() && it->second.size() != shape.size())
            throw usage_error("--shape " + v.name + ": the input has rank " +
                              std::to_string(shape.size()) + ", got " +
                              std::to_string(it->second.size()) + " dims");
        shape = it->second;
    }
    for (auto& d : shape)
        if (d < 0) d = 1;
    return shape;
}

inline nlohmann::json tensor_summary(const tensor_ref& t, std::size_t max_values = 10) {
    nlohmann::json values = nlohmann::json::array();
    auto n = static_cast<std::size_t>(t.numel());
    visit_dtype(t.type, [&]<class T>(T) {
        auto* p = reinterpret_cast<const T*>(t.data);
        for (std::size_t i = 0; i < std::min(n, max_values); ++i) values.push_back(p[i]);
    });
    return values;
}

inline bool is_integer_type(dtype t) {
    return t == dtype::i32 || t == dtype::i64 || t == dtype::i16 || t == dtype::i8 ||
           t == dtype::u8 || t == dtype::boolean;
}

/// How many executed instructions run int8 kernels, fp32 kernels, or convert
/// float to int8 (quantize_int8), and which op types ran in fp32: the report
/// of the int8 fallback.
inline nlohmann::json kernel_summary(const runtime::program& prog) {
    int int8 = 0, fp32 = 0, conversions = 0;
    nlohmann::json fp32_ops = nlohmann::json::object();
    for (int i : prog.execution_order()) {
        const auto& ins = prog.instructions()[static_cast<std::size_t>(i)];
        if (ins.elided) continue;
        const std::string name(ins.k->name());
        bool on_int8 = name.size() > 5 && name.compare(name.size() - 5, 5, "_int8") == 0;
        for (auto& s : ins.io.inputs)
            for (auto* a : s.args) on_int8 = on_int8 || a->type == dtype::i8;
        if (name == "quantize_int8" || name == "dequantize_int8") {
            ++conversions;
        } else if (on_int8) {
            ++int8;
        } else {
            ++fp32;
            const auto& type = prog.graph().ops[static_cast<std::size_t>(ins.op)].type;
            fp32_ops[type] = fp32_ops.value(type, 0) + 1;
        }
    }
    return {{"int8", int8}, {"fp32", fp32}, {"conversions", conversions}, {"fp32_ops", fp32_ops}};
}

/// Bytes of memory the system has available for a new allocation
/// (MemAvailable of /proc/meminfo), or 0 when unknown.
inline std::uint64_t memory_available() {
    std::ifstream f("/proc/meminfo");
    std::string key;
    std::uint64_t kib = 0;
    std::string unit;
    while (f >> key >> kib >> unit)
        if (key == "MemAvailable:") return kib * 1024;
    return 0;
}

/// Refuses (before any input or the arena is allocated) a run whose planned
/// arena is over `cap` (--max-arena-bytes, else program_limits::max_arena_bytes)
/// or whose arena and inputs together are over the memory available.
inline void check_memory(runtime::program& prog, std::uint64_t inputs_bytes, bool cap_given) {
    const auto arena = prog.planned_arena_bytes();
    const auto cap = prog.limits().max_arena_bytes;
    if (arena > cap)
        throw shape_error("the plan needs an arena of " + std::to_string(arena) +
                          " bytes, over the cap of " + std::to_string(cap) + " bytes (" +
                          (cap_given ? "--max-arena-bytes"
                                     : "the default program_limits::max_arena_bytes; raise it "
                                       "with --max-arena-bytes") +
                          ")");
    const auto available = memory_available();
    if (available && (arena > available || inputs_bytes > available - arena))
        throw shape_error("the plan needs " + std::to_string(arena) + " bytes of arena and " +
                          std::to_string(inputs_bytes) +
                          " bytes of inputs, over the memory "
                          "available (" +
                          std::to_string(available) + " bytes, MemAvailable of /proc/meminfo)");
}

inline int cmd_run(const std::vector<std::string>& argv) {
    arg_spec spec;
    spec.with_value = {"--input",  "--shape",     "--output-dir",
                       "--repeat", "--precision", "--max-arena-bytes"};
    spec.flags = {"--json", "--no-fuse", "--help", "-h"};
    add_model_options(spec);
    add_places_options(spec);
    auto a = parse_args(argv, spec);
    if (a.flag("--help") || a.flag("-h")) {
        std::cout
            << "usage: litegraph run MODEL [--input NAME=FILE.npy]... [--shape NAME=D0,D1,...]...\n"
               "                     [--output-dir DIR] [--repeat N] [--no-fuse] [--json]\n"
               "                     [--precision int8|fp32] [--max-arena-bytes N]\n"
               "                     [--places P1,P2,... [--min-subgraph-size N]]\n\n"
               "Runs the model.  Inputs not given by --input get a deterministic tensor of the\n"
               "feed's shape (-1 dims become 1, or as --shape says): float element i is\n"
               "sin(0.37 i) cos(0.011 i), integer element i is i mod 7.  The activations are\n"
               "planned before anything is allocated: a plan over the arena cap or over the\n"
               "memory available (MemAvailable) is an error (exit 1) saying how many bytes it\n"
               "needs.  An input with a zero dim (an empty batch) is refused (exit 2).\n\n"
            << model_help
            << "  --input NAME=FILE     feed NAME from a .npy file (repeatable)\n"
               "  --shape NAME=DIMS     shape of the deterministic input NAME (repeatable)\n"
               "  --output-dir DIR      write output_<col>.npy for every fetch\n"
               "  --repeat N            time N runs after one warm-up (default 1)\n"
               "  --no-fuse             run the graph as loaded, without the fusion passes\n"
               "  --precision P         int8 (default): fake-quantized convs and fcs run int8\n"
               "                        kernels; fp32: in float, fake quant ops simulated\n"
               "  --max-arena-bytes N   refuse a model whose planned activation arena is over N\n"
               "                        bytes (default 17179869184, 16 GiB)\n"
               "  --json                one JSON object: outputs, latency_ms, memory, passes,\n"
               "                        kernels {int8, fp32, conversions, fp32_ops}\n"
               "                        (with --places: partition, fallbacks, ops_per_place,\n"
               "                        op_kernels)\n"
            << places_help;
        return 0;
    }
    int repeat = 1;
    if (a.has("--repeat"))
        repeat = static_cast<int>(parse_count("--repeat", a.value("--repeat"), 1, 1000000));
    std::optional<std::uint64_t> max_arena;
    if (a.has("--max-arena-bytes"))
        max_arena = static_cast<std::uint64_t>(
            parse_count("--max-arena-bytes", a.value("--max-arena-bytes"), 1, 1LL << 50));
    auto m = load_model(a);
    passes::pass_report report;
    const auto options = precision_options(a);
    if (!a.flag("--no-fuse")) report = passes::run_passes(m.graph, options);
    auto places = places_options(a);
    backends::partition_report partition;
    nlohmann::json places_j;
    if (places) {
        partition = backends::apply_places(m.graph, *places);
        partition_json(places_j, partition, m.graph);
    }
    runtime::program prog = places ? backends::make_program(std::move(m.graph), *places)
                                   : runtime::program(std::move(m.graph));
    if (max_arena) {
        auto limits = prog.limits();
        limits.max_arena_bytes = *max_arena;
        prog.set_limits(limits);
    }

    std::map<std::string, tensor> given;
    for (auto& spec_s : a.all("--input")) {
        auto eq = spec_s.find('=');
        if (eq == std::string::npos || eq == 0)
            throw usage_error("--input expects NAME=FILE.npy, got '" + spec_s + "'");
        auto name = spec_s.substr(0, eq);
        prog.input_index(name);  // names the feeds when it is wrong
        given[name] = load_npy(spec_s.substr(eq + 1));
    }
    std::map<std::string, shape_t> shapes;
    for (auto& s : a.all("--shape")) {
        auto [name, dims] = parse_shape_arg(s);
        prog.input_index(name);
        if (given.count(name))
            throw usage_error("input '" + name + "' has both --input and --shape");
        shapes[name] = dims;
    }
    // Plan with the deterministic inputs' shapes alone: a plan too large for
    // the cap or the machine is refused before anything is allocated.
    std::uint64_t inputs_bytes = 0;
    for (std::size_t i = 0; i < prog.input_count(); ++i) {
        const auto& v = prog.input_var(i);
        if (auto it = given.find(v.name); it != given.end()) {
            prog.set_input(i, std::move(it->second));
            continue;
        }
        const auto shape = input_shape(v, shapes);
        if (is_integer_type(v.type)) {
            // Small (ids, shapes), and shape inference may read its values.
            prog.set_input(i, deterministic_input(v.type, shape));
        } else {
            prog.set_input_shape(i, shape);
            inputs_bytes += checked_bytes(numel(shape), size_of(v.type));
        }
    }
    check_memory(prog, inputs_bytes, max_arena.has_value());
    for (std::size_t i = 0; i < prog.input_count(); ++i) {
        const auto& v = prog.input_var(i);
        if (given.count(v.name) || is_integer_type(v.type)) continue;
        prog.set_input(i, deterministic_input(v.type, input_shape(v, shapes)));
    }

    using clock = std::chrono::steady_clock;
    prog.run();  // warm-up (and shape inference, planning)
    std::vector<double> times;
    for (int r = 0; r < repeat; ++r) {
        auto t0 = clock::now();
        prog.run();
        times.push_back(std::chrono::duration<double, std::milli>(clock::now() - t0).count());
    }
    std::sort(times.begin(), times.end());
    double median = times.size() % 2 ? times[times.size() / 2]
                                     : (times[times.size() / 2 - 1] + times[times.size() / 2]) / 2;

    nlohmann::json j;
    j["outputs"] = nlohmann::json::array();
    std::filesystem::path out_dir;
    if (a.has("--output-dir")) {
        out_dir = a.value("--output-dir");
        std::error_code ec;
        std::filesystem::create_directories(out_dir, ec);
        if (ec) throw io_error("cannot create " + out_dir.string() + ": " + ec.message());
    }
    for (std::size_t i = 0; i < prog.output_count(); ++i) {
        const auto& t = prog.output(i);
        nlohmann::json o{{"name", prog.output_var(i).name},
                         {"shape", t.shape},
                         {"dtype", std::string(name_of(t.type))}};
        if (!out_dir.empty()) {
            auto file =
                out_dir / ("output_" + std::to_string(prog.graph().fetches[i].col) + ".npy");
            save_npy(file, t);
            o["file"] = file.string();
        }
        o["first_values"] = tensor_summary(t);
        j["outputs"].push_back(o);
    }
    j["latency_ms"] = median;
    j["repeat"] = repeat;
    j["memory"] = {{"arena_bytes", prog.memory().arena_bytes},
                   {"lower_bound_bytes", prog.memory().lower_bound_bytes},
                   {"order_gain_bytes", prog.memory().order_gain_bytes}};
    j["passes"] = nlohmann::json::object();
    for (auto& [name, n] : report.counts) j["passes"][name] = n;
    j["fused"] = !a.flag("--no-fuse");
    j["kernels"] = kernel_summary(prog);
    std::vector<backends::fallback> fallbacks;
    if (places) {
        fallbacks = backends::fallbacks(prog);
        j.update(places_j);
        j["fallbacks"] = fallback_json(prog.graph(), fallbacks);
    }
    if (a.flag("--json")) {
        std::cout << j.dump(2) << "\n";
        return 0;
    }
    for (auto& o : j["outputs"]) {
        std::cout << "output " << o["name"].get<std::string>() << " " << o["shape"].dump() << " "
                  << o["dtype"].get<std::string>()
                  << "\n  first values: " << o["first_values"].dump() << "\n";
        if (o.contains("file"))
            std::cout << "  written to " << o["file"].get<std::string>() << "\n";
    }
    std::cout << "latency:      " << median << " ms (median of " << repeat << ")\n"
              << "arena:        " << prog.memory().arena_bytes << " bytes\n"
              << "lower bound:  " << prog.memory().lower_bound_bytes
              << " bytes (most activation bytes live at one step)\n"
              << "passes:       " << (a.flag("--no-fuse") ? "none (--no-fuse)" : report.to_string())
              << "\n"
              << "kernels:      " << j["kernels"].dump() << "\n";
    if (places) {
        std::cout << "places:       " << a.value("--places") << ": " << partition.subgraphs.size()
                  << " subgraph(s);";
        for (auto& [p, n] : partition.ops_per_place) std::cout << " " << p << " " << n << " ops";
        std::cout << "\n";
        for (auto& f : j["fallbacks"])
            std::cout << "fallback:     subgraph #" << f["sub_block"] << " ("
                      << f["backend"].get<std::string>()
                      << ") runs on the host: " << f["reason"].get<std::string>() << "\n";
    }
    return 0;
}

}  // namespace litegraph::cli
