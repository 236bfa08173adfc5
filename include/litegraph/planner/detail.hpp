// Shared machinery of the planners: alias families folded into the items that
// are actually placed, the conflict graph (who is live with whom), and the
// decoder that turns an order of items into offsets.  All constexpr.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "litegraph/planner/families.hpp"
#include "litegraph/planner/model.hpp"

namespace litegraph::planner::detail {

/// One placed unit: a buffer that is no alias, with its family folded in.
struct item {
    std::size_t size = 0;
    int first = 0;
    int last = 0;
    int pinned = -1;
    std::size_t alignment = 1;
};

/// The buffers folded into items, with the conflict graph between items.
struct problem {
    std::vector<item> items;
    std::vector<int> item_of;                 // per buffer: the item holding its bytes
    std::vector<std::size_t> offset_in_item;  // per buffer: its offset inside that item
    std::vector<int> adj_start;               // CSR of the conflict graph (items live together)
    std::vector<int> adj;
    std::string_view error = {};
    int error_buffer = -1;

    constexpr int size() const { return static_cast<int>(items.size()); }
};

constexpr problem fail(problem p, std::string_view why, int b) {
    p.error = why;
    p.error_buffer = b;
    return p;
}

/// Folds the buffers' alias and in-place links into families (families.hpp)
/// and each family into its root's item: sizes, lifetimes, pins, alignments.
constexpr problem make_problem(std::span<const buffer> buffers, std::size_t nsegments) {
    problem p;
    const int n = static_cast<int>(buffers.size());
    std::vector<int> first(n, 0), last(n, 0);
    for (int i = 0; i < n; ++i) first[i] = buffers[i].first, last[i] = buffers[i].last;
    families fam(std::move(first), std::move(last));
    for (int i = 0; i < n; ++i) {
        const auto& b = buffers[i];
        if (b.alias_of >= 0 && b.in_place_of >= 0)
            return fail(std::move(p), "a buffer is both an alias and in place", i);
        if (b.alias_of >= n || b.in_place_of >= n || b.alias_of == i || b.in_place_of == i)
            return fail(std::move(p), "a buffer links to a buffer that does not exist", i);
        if (b.first > b.last)
            return fail(std::move(p), "a buffer's last use is before its first", i);
        if (b.pinned >= 0 && static_cast<std::size_t>(b.pinned) >= nsegments)
            return fail(std::move(p), "a buffer is pinned to a segment that does not exist", i);
        if (b.alias_of >= 0 && b.alias_offset + b.size > buffers[b.alias_of].size)
            return fail(std::move(p), "an alias does not lie inside its parent", i);
        if (b.in_place_of >= 0 && buffers[b.in_place_of].last > b.first)
            return fail(std::move(p), "an in-place buffer's input is read after it is overwritten",
                        i);
        // `i` is still its family's root here (only its own link moves it),
        // so placing it fails only when the parent's family is i's: a cycle.
        const int parent = b.alias_of >= 0 ? b.alias_of : b.in_place_of;
        const auto at = static_cast<std::int64_t>(b.alias_of >= 0 ? b.alias_offset : 0);
        if (parent >= 0 && !fam.place(i, parent, at))
            return fail(std::move(p), "alias links form a cycle", i);
    }
    std::vector<int> item_index(n, -1);
    for (int i = 0; i < n; ++i)
        if (fam.root(i) == i) {
            item_index[i] = static_cast<int>(p.items.size());
            const auto& b = buffers[i];
            p.items.push_back({b.size, fam.first(i), fam.last(i), b.pinned,
                               std::max<std::size_t>(1, b.alignment)});
        }
    p.item_of.assign(n, -1);
    p.offset_in_item.assign(n, 0);
    for (int i = 0; i < n; ++i) {
        const auto& b = buffers[i];
        const auto off = static_cast<std::size_t>(fam.offset(i));
        auto& it = p.items[item_index[fam.root(i)]];
        p.item_of[i] = item_index[fam.root(i)];
        p.offset_in_item[i] = off;
        it.size = std::max(it.size, off + b.size);
        it.alignment = std::max(it.alignment, std::max<std::size_t>(1, b.alignment));
        if (b.pinned >= 0) {
            if (it.pinned >= 0 && it.pinned != b.pinned)
                return fail(std::move(p), "buffers sharing bytes are pinned to different segments",
                            i);
            it.pinned = b.pinned;
        }
    }
    // Conflict graph by a sweep over first use: O(n log n + edges).
    const int m = p.size();
    std::vector<int> by_first(m, 0);
    for (int i = 0; i < m; ++i) by_first[i] = i;
    std::sort(by_first.begin(), by_first.end(), [&](int a, int b) {
        return p.items[a].first != p.items[b].first ? p.items[a].first < p.items[b].first : a < b;
    });
    std::vector<int> deg(m, 0);
    std::vector<std::pair<int, int>> edges;
    for (int x = 0; x < m; ++x) {
        int a = by_first[x];
        for (int y = x + 1; y < m && p.items[by_first[y]].first <= p.items[a].last; ++y) {
            int b = by_first[y];
            edges.push_back({a, b});
            ++deg[a];
            ++deg[b];
        }
    }
    p.adj_start.assign(m + 1, 0);
    for (int i = 0; i < m; ++i) p.adj_start[i + 1] = p.adj_start[i] + deg[i];
    p.adj.assign(p.adj_start[m], 0);
    std::vector<int> fill(p.adj_start.begin(), p.adj_start.end() - 1);
    for (auto [a, b] : edges) {
        p.adj[fill[a]++] = b;
        p.adj[fill[b]++] = a;
    }
    return p;
}

/// first: the lowest gap; best: the smallest gap that fits; two_sided: offset 0
/// when free, else the highest gap under a ceiling (the LOAD), else the lowest
/// gap (what a chain needs: neighbours alternate between bottom and top).
enum class fit { first, best, two_sided };

/// Placements of the items (not yet of the buffers).
struct layout {
    std::vector<placement> at;  // per item
    std::vector<std::size_t> used;
    bool fits = true;
};

/// Places the items in `order`: each goes to the first segment (in speed
/// order) that has room, in the first gap (or the smallest gap that fits, for
/// best fit) between the time-overlapping items already placed there.
constexpr layout decode(const problem& p, std::span<const int> order,
                        std::span<const segment> segments, fit mode,
                        std::size_t ceiling = unbounded) {
    layout l;
    l.at.assign(p.items.size(), placement{});
    l.used.assign(segments.size(), 0);
    std::vector<std::pair<std::size_t, std::size_t>> near;  // (offset, end) of placed neighbours
    for (int i : order) {
        const auto& it = p.items[i];
        bool done = false;
        for (int s = 0; s < static_cast<int>(segments.size()) && !done; ++s) {
            if (it.pinned >= 0 && it.pinned != s) continue;
            const auto& seg = segments[s];
            const std::size_t a = std::max(seg.alignment, it.alignment);
            near.clear();
            for (int k = p.adj_start[i]; k < p.adj_start[i + 1]; ++k) {
                int j = p.adj[k];
                if (l.at[j].segment == s)
                    near.push_back({l.at[j].offset, l.at[j].offset + p.items[j].size});
            }
            std::sort(near.begin(), near.end());
            std::size_t cursor = 0, chosen = unbounded, chosen_gap = unbounded;
            for (auto [o, e] : near) {
                std::size_t c = align_up(cursor, a);
                if (c + it.size <= o) {
                    if (mode == fit::first) {
                        chosen = c;
                        break;
                    }
                    if (o - c < chosen_gap) {
                        chosen_gap = o - c;
                        chosen = c;
                    }
                }
                cursor = std::max(cursor, e);
            }
            if (chosen == unbounded) chosen = align_up(cursor, a);
            if (mode == fit::two_sided && chosen != 0) {
                // Highest gap under the ceiling.  Gap k lies between the
                // highest end among near[0..k) and the offset of near[k].
                const std::size_t top = std::min(ceiling, seg.capacity);
                std::size_t high = unbounded;
                std::vector<std::size_t> ends(near.size() + 1, 0);
                for (std::size_t q = 0; q < near.size(); ++q)
                    ends[q + 1] = std::max(ends[q], near[q].second);
                for (std::size_t k = near.size() + 1; k-- > 0;) {
                    const std::size_t lo = ends[k];
                    std::size_t hi = k < near.size() ? std::min(top, near[k].first) : top;
                    if (hi >= lo + it.size) {
                        std::size_t c = (hi - it.size) / a * a;
                        if (c >= lo) {
                            high = c;
                            break;
                        }
                    }
                }
                if (high != unbounded) chosen = high;
            }
            if (chosen > seg.capacity || it.size > seg.capacity - chosen) continue;
            l.at[i] = {s, chosen};
            l.used[s] = std::max(l.used[s], chosen + it.size);
            done = true;
        }
        if (!done) l.fits = false;
    }
    return l;
}

constexpr std::size_t total(const layout& l) {
    std::size_t t = 0;
    for (auto u : l.used) t += u;
    return t;
}

/// Strict order on layouts: fitting first, then fewer bytes in all, then
/// fewer bytes in the slower segments (the fast ones are used first).
constexpr bool better(const layout& a, const layout& b) {
    if (a.fits != b.fits) return a.fits;
    if (!a.fits) {  // both fail: fewer items left out is better
        auto missing = [](const layout& l) {
            std::size_t c = 0;
            for (auto& x : l.at) c += x.segment < 0;
            return c;
        };
        if (missing(a) != missing(b)) return missing(a) < missing(b);
    }
    auto ta = total(a), tb = total(b);
    if (ta != tb) return ta < tb;
    for (std::size_t s = a.used.size(); s-- > 0;)
        if (a.used[s] != b.used[s]) return a.used[s] < b.used[s];
    return false;
}

/// The buffers' placements from the items'.
constexpr plan to_plan(const problem& p, const layout& l, std::string_view algorithm) {
    plan out;
    out.placements.assign(p.item_of.size(), placement{});
    for (std::size_t b = 0; b < p.item_of.size(); ++b) {
        auto at = l.at[p.item_of[b]];
        if (at.segment >= 0) at.offset += p.offset_in_item[b];
        out.placements[b] = at;
    }
    out.used = l.used;
    out.fits = l.fits;
    out.algorithm = algorithm;
    return out;
}

constexpr plan invalid_plan(const problem& p, std::size_t nbuffers, std::size_t nsegments) {
    plan out;
    out.placements.assign(nbuffers, placement{});
    out.used.assign(nsegments, 0);
    out.fits = false;
    out.problem = p.error;
    out.problem_buffer = p.error_buffer;
    out.algorithm = "none";
    return out;
}

/// Pinned items first (they have no other segment to fall to), keeping the
/// order among the pinned and among the rest.
constexpr std::vector<int> pinned_first(const problem& p, std::vector<int> order) {
    std::vector<int> out;
    out.reserve(order.size());
    for (int i : order)
        if (p.items[i].pinned >= 0) out.push_back(i);
    for (int i : order)
        if (p.items[i].pinned < 0) out.push_back(i);
    return out;
}

/// How size_order breaks ties between items of equal size.
enum class ties { by_index, by_first };

/// Items sorted by size descending, pinned ones first.  Ties go to the lower
/// index (TFLM's order), or to the earlier first use (then the lower index):
/// equal sizes in order of first use, placed first fit, is the interval-graph
/// colouring that needs no more slots than the most of them live at one step.
constexpr std::vector<int> size_order(const problem& p, ties t = ties::by_first) {
    std::vector<int> order(p.items.size(), 0);
    for (int i = 0; i < p.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](int a, int b) {
        const auto &x = p.items[a], &y = p.items[b];
        if (x.size != y.size) return x.size > y.size;
        if (t == ties::by_first && x.first != y.first) return x.first < y.first;
        return a < b;
    });
    return pinned_first(p, std::move(order));
}

/// A small fixed-seed generator (splitmix64), the same on every machine.
struct rng {
    std::uint64_t state;
    constexpr std::uint64_t next() {
        std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    constexpr std::size_t below(std::size_t n) { return n == 0 ? 0 : next() % n; }
};

}  // namespace litegraph::planner::detail
