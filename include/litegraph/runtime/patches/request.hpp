// Patched stages (runtime/patches.hpp, docs/patches.md): what to patch, as
// the CLI's `--patches auto|NxM` and a session's options ask for it.
#pragma once

#include <cstddef>
#include <map>
#include <string>

#include "litegraph/core/error.hpp"
#include "litegraph/core/shape.hpp"

namespace litegraph::runtime {

/// What to patch: `automatic` chooses the split and the grid (the least peak
/// within `budget`, the network's conv MACs tiled over untiled); else the
/// grid is `rows` x `cols` and the split the one with the least peak.
struct patch_request {
    bool automatic = true;
    int rows = 0, cols = 0;
    double budget = 1.3;
    int max_grid = 8;  // automatic: grids up to max_grid x max_grid
    /// Input shapes to choose for (name -> shape); others as declared, -1 as 1.
    std::map<std::string, shape_t> shapes{};
    /// The split tensor by name (`--patch-split`); empty: chosen.
    std::string split{};
};

/// Parses "auto" or "NxM" (`--patches`); throws usage_error otherwise.
inline patch_request parse_patch_request(const std::string& s, double budget = 1.3) {
    patch_request r;
    r.budget = budget;
    if (s == "auto") return r;
    auto x = s.find('x');
    auto bad = [&] {
        return usage_error("--patches '" + s + "': expected auto or NxM (rows x cols, e.g. 4x4)");
    };
    if (x == std::string::npos || x == 0 || x + 1 >= s.size()) throw bad();
    for (std::size_t i = 0; i < s.size(); ++i)
        if (i != x && (s[i] < '0' || s[i] > '9')) throw bad();
    if (x > 3 || s.size() - x - 1 > 3) throw bad();
    r.automatic = false;
    r.rows = std::stoi(s.substr(0, x));
    r.cols = std::stoi(s.substr(x + 1));
    if (r.rows < 1 || r.cols < 1) throw bad();
    return r;
}

}  // namespace litegraph::runtime
