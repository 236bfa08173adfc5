// --places P1,P2,... and --min-subgraph-size N, shared by run, info and dot;
// and the JSON of a partition.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "args.hpp"
#include "litegraph/backends/backends.hpp"

namespace litegraph::cli {

inline const char* places_help =
    "  --places P1,P2,...    places in order of preference: host, opencl (subgraphs),\n"
    "                        cortex_m_dsp; each TARGET[/f32|i8[/nchw]]; host is always\n"
    "                        the last resort\n"
    "  --min-subgraph-size N subgraphs with fewer ops stay on the host (default 1)\n";

inline void add_places_options(arg_spec& spec) {
    spec.with_value.insert({"--places", "--min-subgraph-size"});
}

/// The options, or nothing when --places is not given.
inline std::optional<backends::options> places_options(const args& a) {
    if (!a.has("--places")) {
        if (a.has("--min-subgraph-size")) throw usage_error("--min-subgraph-size needs --places");
        return std::nullopt;
    }
    backends::options o;
    o.places = backends::parse_places(a.value("--places"));
    if (a.has("--min-subgraph-size"))
        o.min_subgraph_size = static_cast<int>(
            parse_count("--min-subgraph-size", a.value("--min-subgraph-size"), 1, 1000000));
    for (auto& p : o.places) backends::backend_of(o, p.where);  // an absent backend says so now
    return o;
}

/// {"partition": [{backend, ops}], "ops_per_place": {...}, "op_kernels": [...]}
/// of a partitioned graph.
inline void partition_json(nlohmann::json& j, const backends::partition_report& r,
                           const graph::graph& g) {
    j["partition"] = nlohmann::json::array();
    for (auto& s : r.subgraphs)
        j["partition"].push_back(
            {{"backend", s.backend}, {"sub_block", s.sub_block}, {"ops", s.ops}});
    j["ops_per_place"] = r.ops_per_place;
    j["refused"] = nlohmann::json::array();
    for (auto& x : r.refused)
        j["refused"].push_back({{"op", x.op}, {"backend", x.backend}, {"reason", x.reason}});
    j["op_kernels"] = nlohmann::json::array();
    for (std::size_t i = 0; i < g.ops.size(); ++i) {
        const auto& op = g.ops[i];
        j["op_kernels"].push_back({{"op", g.op_label(static_cast<int>(i))},
                                   {"place", op.attrs.get<std::string>("litegraph_place", "")},
                                   {"kernel", op.attrs.get<std::string>("litegraph_pick", "")}});
    }
}

/// The fallback entries of subgraph ops, by sub-block index.
inline nlohmann::json fallback_json(const graph::graph& g,
                                    const std::vector<backends::fallback>& f) {
    auto arr = nlohmann::json::array();
    for (auto& x : f)
        arr.push_back({{"sub_block", g.ops[x.op].attrs.get<std::int64_t>("sub_block", -1)},
                       {"backend", x.backend},
                       {"reason", x.reason}});
    return arr;
}

}  // namespace litegraph::cli
