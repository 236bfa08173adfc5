// A plan as JSON-ready data (nlohmann::json), for the CLI and tools.
#pragma once

#include <nlohmann/json.hpp>
#include <span>
#include <string>

#include "litegraph/planner/planner.hpp"

namespace litegraph::planner {

/// {"segments": [...], "buffers": [...], "total", "load", "plan_over_load",
///  "fits", "shortfall", "algorithm", "proven_optimal", "valid", "problem"}.
inline nlohmann::json plan_to_json(std::span<const buffer> buffers,
                                   std::span<const segment> segments, const plan& p,
                                   std::span<const std::string> names = {}) {
    using nlohmann::json;
    json segs = json::array();
    for (std::size_t s = 0; s < segments.size(); ++s) {
        json j{{"name", std::string(segments[s].name)},
               {"rank", s},
               {"alignment", segments[s].alignment},
               {"used", s < p.used.size() ? p.used[s] : 0}};
        j["capacity"] =
            segments[s].capacity == unbounded ? json(nullptr) : json(segments[s].capacity);
        segs.push_back(std::move(j));
    }
    json bufs = json::array();
    for (std::size_t i = 0; i < buffers.size(); ++i) {
        const auto& b = buffers[i];
        json j{{"index", i},
               {"size", b.size},
               {"first", b.first},
               {"last", b.last},
               {"segment", p.placements[i].segment},
               {"offset", p.placements[i].offset}};
        if (i < names.size()) j["name"] = names[i];
        if (b.pinned >= 0) j["pinned"] = b.pinned;
        if (b.alias_of >= 0) j["alias_of"] = b.alias_of, j["alias_offset"] = b.alias_offset;
        if (b.in_place_of >= 0) j["in_place_of"] = b.in_place_of;
        bufs.push_back(std::move(j));
    }
    const auto load = lower_bound(buffers);
    auto v = validate(buffers, segments, p);
    json out{{"segments", segs},
             {"buffers", bufs},
             {"total", p.total()},
             {"load", load},
             {"plan_over_load", load ? double(p.total()) / double(load) : 1.0},
             {"fits", p.fits},
             {"shortfall", p.shortfall},
             {"algorithm", std::string(p.algorithm)},
             {"proven_optimal", p.proven_optimal},
             {"valid", v.ok}};
    if (!v.ok) out["invalid"] = std::string(v.what);
    if (!p.problem.empty())
        out["problem"] = std::string(p.problem), out["problem_buffer"] = p.problem_buffer;
    return out;
}

}  // namespace litegraph::planner
