// What loading a Paddle model gives (the graph and what `litegraph info` prints)
// and the options of every loader (ProgramDesc and PIR JSON).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "litegraph/core/dtype.hpp"
#include "litegraph/core/shape.hpp"
#include "litegraph/graph/graph.hpp"

namespace litegraph::paddle {

struct load_options {
    /// Every persistable variable must get data; false loads topology-only models
    /// (persistables keep their declared shape and no value).
    bool require_params = true;
    /// Larger topologies are a format_error before protobuf (or the JSON
    /// parser) sees them (the allocation bound of docs/hardening.md is a
    /// multiple of this size).
    std::size_t max_topology_bytes = std::size_t{256} << 20;
};

/// Where a model's files are.
struct model_files {
    std::filesystem::path topology;    // a ProgramDesc, or a PIR program (JSON)
    std::filesystem::path params;      // combined parameter file, or empty
    std::filesystem::path params_dir;  // folder of separate files when `params` is empty
};

/// A feed or fetch as the program declares it.
struct io_info {
    std::string name;
    dtype type = dtype::f32;
    shape_t dims;
    int col = 0;
};

/// What `litegraph info` prints about a model.
struct model_info {
    std::string format;  // "combined", "separate", "topology-only" or "pir-json"
    std::filesystem::path topology_file;
    std::filesystem::path params_file;  // combined form
    std::filesystem::path params_dir;   // separate form
    std::int64_t program_version = 0;   // absent (2018 models) -> 0; PIR: base_code.version
    std::size_t num_blocks = 0;         // PIR: blocks of every region, nested ones included
    /// ProgramDesc: the ops of block 0, feed and fetch included.  PIR: the ops
    /// of the whole program by their PIR names (`1.conv2d`), nested regions
    /// included, parameters (`p`) not.
    std::map<std::string, int> op_counts;
    /// PIR only: for each op name of op_counts, the op type its instances
    /// became in the graph (`conv2d` for `1.conv2d`), or "" when the loader
    /// resolves it itself (`1.data`, `1.fetch`, constants, `0.combine`, ...).
    /// An op litegraph cannot translate keeps its PIR name (no kernel has it)
    /// and `op_notes` says why when there is more to say ("control flow").
    std::map<std::string, std::string> op_types;
    std::map<std::string, std::string> op_notes;
    std::vector<io_info> feeds, fetches;
    std::size_t num_params = 0;  // persistable variables (PIR: parameter records) with data
    std::int64_t param_elements = 0;
    std::uint64_t param_bytes = 0;
};

struct model {
    graph::graph graph;
    model_info info;
};

}  // namespace litegraph::paddle
