// Records the op cases the tests run as seeds of the fuzz_model target, so
// that every op a test covers is reachable by the fuzzers (tools/record-op-seeds.sh
// runs the op tests with it and merges the seeds into tests/fuzz/corpus/model).
//
// With LITEGRAPH_RECORD_OP_SEEDS=DIR in the environment, the test main
// (tests/main.cpp) sets `invoke_observer()`: every op a test runs through
// `litegraph::invoke(type, attrs, ...)` without error is written as one-op
// models in fuzz_model's layout (tests/fuzz/harness.hpp, `model_input`):
//   DIR/<type>-<pid>-<n>-const.bin   every input a parameter holding the test's
//                                    value (the op folds at plan time);
//   DIR/<type>-<pid>-<n>-feed.bin    the first float input a feed instead (the
//                                    op runs in the program); an input with a
//                                    LoD is declared with its LoD level, and the
//                                    model's flags ask the harness to feed it a
//                                    LoD of that many levels (harness.hpp
//                                    feed_lod; a parameter file keeps no LoD).
// A case whose model is over 16 KiB is not written (seeds stay small), and at
// most 24 cases per op type and process are.  The PIR reader's tests record the
// programs they write the same way (`record_pir`, DIR/pir/, fuzz_pir's layout),
// and loader tests the ProgramDescs they build by hand (`record_topology`,
// DIR/topology/, fuzz_topology's layout; those that run without parameters,
// the control-flow programs, also as fuzz_model seeds, `record_program`,
// DIR/model/, which the model target loads, plans and runs).
#pragma once

#include <unistd.h>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <string_view>

#include "litegraph/ops/invoke.hpp"
#include "litegraph/paddle.hpp"

namespace litegraph::fuzz::op_seeds {

inline constexpr std::size_t max_seed_bytes = 16 << 10;
inline constexpr int max_cases_per_type = 24;

/// The one-op model of a recorded case, in fuzz_model's input layout; empty
/// when `feed_first` finds no input to feed.
inline std::string model_bytes(std::string_view type, const attr_map& attrs,
                               const named_tensors& inputs, const named_tensors& outputs,
                               bool feed_first) {
    graph::graph g;
    graph::builder b(g);
    graph::named_slots in_slots, out_slots;
    int k = 0;
    bool fed = false, lod = false;
    for (const auto& [slot, ts] : inputs.slots) {
        std::vector<std::string> names;
        for (const auto& t : ts) {
            graph::var_node v;
            v.name = "in" + std::to_string(k++);
            v.type = t.type();
            v.shape = t.shape();
            names.push_back(v.name);
            if (feed_first && !fed && t.type() == dtype::f32 && t.numel() > 0) {
                fed = true;
                v.lod_level = static_cast<int>(t.lod().size());
                lod = v.lod_level > 0;
                b.declare(std::move(v));
                b.feed(names.back(), 0);
            } else {
                v.persistable = true;
                v.value = t;
                b.declare(std::move(v));
            }
        }
        in_slots.emplace_back(slot, std::move(names));
    }
    if (feed_first && !fed) return {};
    int col = 0;
    for (const auto& [slot, ts] : outputs.slots) {
        std::vector<std::string> names;
        for (const auto& t : ts) {
            names.push_back("out" + std::to_string(col));
            b.declare(names.back(), t.shape(), t.type());
            b.fetch(names.back(), col++);
        }
        out_slots.emplace_back(slot, std::move(names));
    }
    b.add_op(std::string(type), in_slots, out_slots, attrs);
    b.finish();
    const auto topology = paddle::serialize_program(g);
    bool any_param = false;
    for (const auto& v : g.vars) any_param = any_param || v.persistable;
    const auto params = any_param ? paddle::serialize_params(g) : std::string();
    std::string s(1, static_cast<char>((any_param ? 1 : 0) | (lod ? 16 : 0)));
    const auto n = static_cast<std::uint32_t>(topology.size());
    s.append(reinterpret_cast<const char*>(&n), 4);
    s += topology;
    s += params;
    return s;
}

/// The observer the test main installs (see the top of this file).
inline void record(std::string_view type, const attr_map& attrs, const named_tensors& inputs,
                   const named_tensors& outputs) {
    static const char* dir = std::getenv("LITEGRAPH_RECORD_OP_SEEDS");
    static std::map<std::string, int, std::less<>> counts;
    if (!dir || !is_supported(type)) return;  // ops outside the library (examples) are not seeds
    auto& n = counts[std::string(type)];
    if (n >= max_cases_per_type) return;
    bool wrote = false;
    for (bool feed : {false, true}) {
        std::string bytes;
        try {
            bytes = model_bytes(type, attrs, inputs, outputs, feed);
        } catch (const error&) {
            continue;  // a case the writer cannot express (an attribute without a Paddle form)
        }
        if (bytes.empty() || bytes.size() > max_seed_bytes) continue;
        const auto file = std::filesystem::path(dir) /
                          (std::string(type) + "-" + std::to_string(::getpid()) + "-" +
                           std::to_string(n) + (feed ? "-feed.bin" : "-const.bin"));
        std::filesystem::create_directories(file.parent_path());
        std::ofstream(file, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
        wrote = true;
    }
    n += wrote ? 1 : 0;
}

/// Writes `bytes` as DIR/<sub>/<pid>-<n>.bin when LITEGRAPH_RECORD_OP_SEEDS=DIR
/// is set and the seed is small.
inline void write_seed(const char* sub, std::string_view bytes) {
    static const char* dir = std::getenv("LITEGRAPH_RECORD_OP_SEEDS");
    static int n = 0;
    if (!dir || bytes.size() > max_seed_bytes) return;
    const auto file = std::filesystem::path(dir) / sub /
                      (std::to_string(::getpid()) + "-" + std::to_string(n++) + ".bin");
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
}

/// Records a PIR program a test wrote (never one of ../shared: the committed
/// corpora hold no bytes of the shared models) as DIR/pir/<pid>-<n>.bin, in
/// fuzz_pir's layout.  The PIR reader's tests call it on each program they load.
inline void record_pir(std::string_view text, std::string_view params) {
    if (!std::getenv("LITEGRAPH_RECORD_OP_SEEDS")) return;
    std::string s(1, params.empty() ? '\x00' : '\x01');
    const auto len = static_cast<std::uint32_t>(text.size());
    s.append(reinterpret_cast<const char*>(&len), 4);
    s += text;
    s += params;
    write_seed("pir", s);
}

/// Records a ProgramDesc a loader test wrote as DIR/topology/<pid>-<n>.bin
/// (fuzz_topology's layout: the bytes as they are), as record_pir does.
inline void record_topology(std::string_view bytes) {
    write_seed("topology", bytes);
}

/// Records a ProgramDesc a loader test wrote, one that needs no parameters,
/// as DIR/model/<pid>-<n>.bin in fuzz_model's layout (flags 0, the program's
/// size, the program): the model target loads, plans and runs it.
inline void record_program(std::string_view bytes) {
    if (!std::getenv("LITEGRAPH_RECORD_OP_SEEDS")) return;
    std::string s(1, '\x00');
    const auto len = static_cast<std::uint32_t>(bytes.size());
    s.append(reinterpret_cast<const char*>(&len), 4);
    s += bytes;
    write_seed("model", s);
}

/// Installs `record` when LITEGRAPH_RECORD_OP_SEEDS is set.
inline bool install() {
    if (!std::getenv("LITEGRAPH_RECORD_OP_SEEDS")) return false;
    invoke_observer() = &record;
    return true;
}

}  // namespace litegraph::fuzz::op_seeds
