// LoD ("level of details"): Paddle's variable-length sequences.  A tensor of R
// rows (its dim 0) carries, per level, the offsets where each sequence starts:
// level 1 {0, 3, 3, 7} over 7 rows is three sequences of 3, 0 and 4 rows.
// With several levels each level indexes the entries of the next one (level
// 0 is the outermost), and the last level indexes rows.  An empty lod_t means
// "no LoD".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "litegraph/core/error.hpp"

namespace litegraph {

using lod_t = std::vector<std::vector<std::int64_t>>;

/// "[[0,3,3,7]]".
inline std::string lod_to_string(const lod_t& lod) {
    std::string r = "[";
    for (std::size_t l = 0; l < lod.size(); ++l) {
        if (l) r += ',';
        r += '[';
        for (std::size_t i = 0; i < lod[l].size(); ++i) {
            if (i) r += ',';
            r += std::to_string(lod[l][i]);
        }
        r += "]";
    }
    return r + "]";
}

/// What is wrong with `lod` for a tensor of `rows` rows, or "" when it is
/// valid: every level starts at 0 and never decreases, each level ends at the
/// entry count of the next one, and the last level ends at `rows`.
inline std::string lod_problem(const lod_t& lod, std::int64_t rows) {
    for (std::size_t l = 0; l < lod.size(); ++l) {
        const auto& lv = lod[l];
        std::string where = "LoD level ";
        where += std::to_string(l);
        where += ' ';
        where += lod_to_string({lv});
        if (lv.size() < 2) return where + " needs at least two offsets (0 and the end)";
        if (lv.front() != 0) return where + " must start at 0";
        for (std::size_t i = 1; i < lv.size(); ++i)
            if (lv[i] < lv[i - 1]) return where + " decreases at entry " + std::to_string(i);
        const std::int64_t end =
            l + 1 < lod.size() ? static_cast<std::int64_t>(lod[l + 1].size()) - 1 : rows;
        if (lv.back() != end)
            return where + " ends at " + std::to_string(lv.back()) + " but " +
                   (l + 1 < lod.size() ? "level " + std::to_string(l + 1) + " has " +
                                             std::to_string(end) + " entries"
                                       : "the tensor has " + std::to_string(rows) + " rows");
    }
    return {};
}

/// Throws a shape_error naming `what` unless lod_problem(lod, rows) is "".
inline void check_lod(const lod_t& lod, std::int64_t rows, std::string_view what) {
    auto p = lod_problem(lod, rows);
    if (!p.empty()) LITEGRAPH_THROW(shape_error(std::string(what) + ": " + p));
}

}  // namespace litegraph
