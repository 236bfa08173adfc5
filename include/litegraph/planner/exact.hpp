// Exact placement of the items of one segment by branch and bound.
//
// Why it is complete: any placement can be pushed down ("gravity") until each
// item sits at the aligned end of the highest time-overlapping item below it
// (or at 0) without growing; sorting that canonical placement by (offset,
// index) gives an order in which every item's offset is exactly the aligned
// maximum end of the items placed before it that it overlaps in time, and
// those offsets never decrease.  So the search only enumerates orders with
// non-decreasing (offset, index), each item at that "floor", which covers an
// optimal placement.  Bound: at every step t, the items not yet placed and the
// parts of placed ones above the current offset stack up disjointly above it.
// The budget counts nodes, not time, so the result is the same everywhere.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "litegraph/planner/detail.hpp"

namespace litegraph::planner {

struct exact_options {
    std::size_t max_items = 60;          // larger problems are left to the heuristics
    std::uint64_t node_budget = 200000;  // nodes per segment searched
};

namespace detail {

struct exact_result {
    bool improved = false;  // found a placement with peak below the bound given
    bool finished = false;  // the search space was exhausted: the best is optimal
    std::size_t peak = 0;
    std::vector<std::size_t> offsets;  // per local item, when improved
    std::uint64_t nodes = 0;
};

struct exact_search {
    // Inputs, local to the segment.
    std::vector<std::size_t> size, align;
    std::vector<int> lo, hi;                   // range of compressed steps
    std::vector<std::vector<int>> neighbours;  // local conflict lists
    std::size_t seg_align = 1;
    std::uint64_t budget = 0;
    // State.
    std::vector<int> placed_order;
    std::vector<std::size_t> off;
    std::vector<char> placed;
    std::vector<std::size_t> unplaced_at;  // per compressed step
    std::size_t ub = 0;
    exact_result result;
    bool out_of_budget = false;

    constexpr std::size_t floor_of(int b) const {
        std::size_t f = 0;
        for (int j : neighbours[b])
            if (placed[j]) f = std::max(f, off[j] + size[j]);
        return align_up(f, std::max(seg_align, align[b]));
    }

    constexpr std::size_t bound(std::size_t last_off, std::size_t peak) const {
        std::vector<std::size_t> above(unplaced_at);
        for (int p : placed_order) {
            std::size_t end = off[p] + size[p];
            if (end <= last_off) continue;
            std::size_t part = end - std::max(off[p], last_off);
            for (int t = lo[p]; t <= hi[p]; ++t) above[t] += part;
        }
        std::size_t best = 0;
        for (auto a : above) best = std::max(best, a);
        return std::max(peak, last_off + best);
    }

    constexpr void dfs(std::size_t last_off, int last_idx, std::size_t peak) {
        if (out_of_budget) return;
        if (++result.nodes > budget) {
            out_of_budget = true;
            return;
        }
        const int k = static_cast<int>(size.size());
        if (static_cast<int>(placed_order.size()) == k) {
            if (peak < ub) {
                ub = peak;
                result.improved = true;
                result.peak = peak;
                result.offsets = off;
            }
            return;
        }
        if (bound(last_off, peak) >= ub) return;
        struct cand {
            std::size_t floor;
            int b;
        };
        std::vector<cand> cands;
        for (int b = 0; b < k; ++b) {
            if (placed[b]) continue;
            std::size_t f = floor_of(b);
            if (f < last_off || (f == last_off && b < last_idx)) continue;
            if (std::max(peak, f + size[b]) >= ub) continue;
            cands.push_back({f, b});
        }
        std::sort(cands.begin(), cands.end(), [&](const cand& x, const cand& y) {
            if (x.floor != y.floor) return x.floor < y.floor;
            if (size[x.b] != size[y.b]) return size[x.b] > size[y.b];
            return x.b < y.b;
        });
        for (auto c : cands) {
            if (std::max(peak, c.floor + size[c.b]) >= ub) continue;  // ub may have dropped
            placed[c.b] = 1;
            off[c.b] = c.floor;
            placed_order.push_back(c.b);
            for (int t = lo[c.b]; t <= hi[c.b]; ++t) unplaced_at[t] -= size[c.b];
            dfs(c.floor, c.b, std::max(peak, c.floor + size[c.b]));
            for (int t = lo[c.b]; t <= hi[c.b]; ++t) unplaced_at[t] += size[c.b];
            placed_order.pop_back();
            placed[c.b] = 0;
            if (out_of_budget) return;
        }
    }
};

/// Searches the placement of `members` (item indices of `p`) in one segment
/// for a peak strictly below `upper`.
constexpr exact_result exact_segment(const problem& p, std::span<const int> members,
                                     std::size_t seg_alignment, std::size_t upper,
                                     std::uint64_t node_budget) {
    exact_search s;
    const int k = static_cast<int>(members.size());
    std::vector<int> local(p.items.size(), -1);
    for (int i = 0; i < k; ++i) local[members[i]] = i;
    std::vector<int> starts;
    for (int m : members) starts.push_back(p.items[m].first);
    std::sort(starts.begin(), starts.end());
    starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
    s.unplaced_at.assign(starts.size(), 0);
    s.neighbours.resize(k);
    for (int i = 0; i < k; ++i) {
        const auto& it = p.items[members[i]];
        s.size.push_back(it.size);
        s.align.push_back(it.alignment);
        int lo = static_cast<int>(std::lower_bound(starts.begin(), starts.end(), it.first) -
                                  starts.begin());
        int hi = static_cast<int>(std::upper_bound(starts.begin(), starts.end(), it.last) -
                                  starts.begin()) -
                 1;
        s.lo.push_back(lo);
        s.hi.push_back(hi);
        for (int t = lo; t <= hi; ++t) s.unplaced_at[t] += it.size;
        for (int a = p.adj_start[members[i]]; a < p.adj_start[members[i] + 1]; ++a)
            if (local[p.adj[a]] >= 0) s.neighbours[i].push_back(local[p.adj[a]]);
    }
    s.seg_align = seg_alignment;
    s.budget = node_budget;
    s.off.assign(k, 0);
    s.placed.assign(k, 0);
    s.ub = upper;
    if (k == 0) {
        s.result.finished = true;
        return s.result;
    }
    s.dfs(0, -1, 0);
    s.result.finished = !s.out_of_budget;
    return s.result;
}

}  // namespace detail
}  // namespace litegraph::planner
