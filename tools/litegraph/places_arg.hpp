// The JSON of a partition (run, info --places; the options are in options.hpp).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "litegraph/backends/backends.hpp"

namespace litegraph::cli {

/// {"partition": [{backend, ops}], "ops_per_place": {...}, "op_implementations": [...]}
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
    j["op_implementations"] = nlohmann::json::array();
    for (std::size_t i = 0; i < g.ops.size(); ++i) {
        const auto& op = g.ops[i];
        j["op_implementations"].push_back(
            {{"op", g.op_label(static_cast<int>(i))},
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
