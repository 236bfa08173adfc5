// Planning entry points, all constexpr and deterministic (fixed tie-breaks and
// a fixed-seed generator; budgets count work, never time):
//   lower_bound      LOAD, the most bytes live at one step
//   size_first_fit   the patent's method (size descending, first gap, segments in speed order)
//   tflm_greedy      TensorFlow Lite Micro's GreedyMemoryPlanner, one arena (baseline only)
//   strong_fit       several orders x {first, best} fit, then hill climbing on the best order
//   plan_memory      the default: best of the above, then exact search where it is small
//   validate         checks any plan against the buffers and segments (validate.hpp)
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "litegraph/planner/detail.hpp"
#include "litegraph/planner/exact.hpp"
#include "litegraph/planner/model.hpp"
#include "litegraph/planner/validate.hpp"

namespace litegraph::planner {

namespace detail {

/// Most bytes live at one step among the items (events sorted by time).
constexpr std::size_t items_load(const std::vector<item>& items) {
    std::vector<std::pair<long long, long long>> ev;  // (time, +-size); ends come first
    ev.reserve(items.size() * 2);
    for (auto& it : items) {
        ev.push_back({static_cast<long long>(it.first), static_cast<long long>(it.size)});
        ev.push_back({static_cast<long long>(it.last) + 1, -static_cast<long long>(it.size)});
    }
    std::sort(ev.begin(), ev.end());
    long long live = 0, best = 0;
    for (auto [t, d] : ev) {
        live += d;
        best = std::max(best, live);
    }
    return static_cast<std::size_t>(best);
}

}  // namespace detail

/// LOAD: the largest total of bytes live at one step.  Aliases and in-place
/// buffers share their root's bytes, so a family counts once, for the union of
/// its lifetimes.  No plan of one segment can be smaller.
constexpr std::size_t lower_bound(std::span<const buffer> buffers) {
    auto p = detail::make_problem(buffers, unbounded);
    if (p.error.empty()) return detail::items_load(p.items);
    std::vector<detail::item> raw;
    for (auto& b : buffers)
        if (b.alias_of < 0 && b.in_place_of < 0) raw.push_back({b.size, b.first, b.last});
    return detail::items_load(raw);
}

/// The patent's method: largest first; for each buffer try the segments in
/// speed order and take the first gap (in offset order) that collides with no
/// placed buffer whose lifetime overlaps.
constexpr plan size_first_fit(std::span<const buffer> buffers, std::span<const segment> segments) {
    auto p = detail::make_problem(buffers, segments.size());
    if (!p.error.empty()) return detail::invalid_plan(p, buffers.size(), segments.size());
    auto order = detail::size_order(p);
    return detail::to_plan(p, detail::decode(p, order, segments, detail::fit::first),
                           "size_first_fit");
}

/// Baseline only: TensorFlow Lite Micro's GreedyMemoryPlanner.  One arena of
/// unbounded size; buffers by size descending, each at the first gap among
/// the time-overlapping buffers already placed.  Constraints other than
/// aliases are ignored, as TFLM has none.
constexpr plan tflm_greedy(std::span<const buffer> buffers, std::size_t alignment = 1) {
    std::vector<buffer> plain(buffers.begin(), buffers.end());
    for (auto& b : plain) b.pinned = -1;
    const segment arena{"arena", unbounded, alignment};
    auto p = detail::make_problem(plain, 1);
    if (!p.error.empty()) return detail::invalid_plan(p, buffers.size(), 1);
    auto order = detail::size_order(p, detail::ties::by_index);
    return detail::to_plan(p, detail::decode(p, order, std::span(&arena, 1), detail::fit::first),
                           "tflm_greedy");
}

namespace detail {

/// tflm_greedy's layout on the only segment: pins removed first, as
/// tflm_greedy does (a pin to the only segment constrains nothing, but a
/// pinned item decodes in another order: fuzz_plan found exact_plan above
/// tflm_greedy that way).  Items are the same with and without pins.
constexpr layout tflm_layout(std::span<const buffer> buffers, std::span<const segment> segments) {
    std::vector<buffer> plain(buffers.begin(), buffers.end());
    for (auto& b : plain) b.pinned = -1;
    auto p = make_problem(plain, 1);
    return decode(p, size_order(p, ties::by_index), segments, fit::first);
}

}  // namespace detail

/// Knobs of strong_fit; the defaults plan 10,000 buffers well under a second.
struct strong_options {
    std::uint64_t seed = 0x11739a9e5eedull;
    std::size_t work_budget = 2'000'000;  // hill climbing: iterations x (items + conflicts)
    std::size_t max_iterations = 3000;
    std::size_t window = 16;  // how far a move reaches in the order
};

namespace detail {

/// The orders tried by strong_fit, each a different reason to go first:
/// size (the patent), size x lifetime, pressure (own size plus the sizes of
/// everything live with it), and the peak (largest live total during its
/// lifetime, as in "greedy by breadth").
constexpr std::vector<std::vector<int>> candidate_orders(const problem& p) {
    const int m = p.size();
    std::vector<std::vector<int>> orders;
    orders.push_back(size_order(p));
    auto by_key = [&](const std::vector<std::size_t>& key) {
        std::vector<int> o(m, 0);
        for (int i = 0; i < m; ++i) o[i] = i;
        std::sort(o.begin(), o.end(), [&](int a, int b) {
            if (key[a] != key[b]) return key[a] > key[b];
            if (p.items[a].size != p.items[b].size) return p.items[a].size > p.items[b].size;
            if (p.items[a].first != p.items[b].first) return p.items[a].first < p.items[b].first;
            return a < b;
        });
        return pinned_first(p, std::move(o));
    };
    std::vector<std::size_t> area(m, 0), pressure(m, 0), peak(m, 0);
    for (int i = 0; i < m; ++i) {
        const auto& it = p.items[i];
        area[i] = it.size * static_cast<std::size_t>(it.last - it.first + 1);
        std::size_t s = it.size;
        for (int k = p.adj_start[i]; k < p.adj_start[i + 1]; ++k) s += p.items[p.adj[k]].size;
        pressure[i] = s;
    }
    // Live bytes at each distinct first step, then the max over each lifetime
    // with a sparse table.
    std::vector<int> starts;
    for (auto& it : p.items) starts.push_back(it.first);
    std::sort(starts.begin(), starts.end());
    starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
    const int t = static_cast<int>(starts.size());
    std::vector<long long> diff(t + 1, 0);
    std::vector<int> lo(m, 0), hi(m, 0);
    for (int i = 0; i < m; ++i) {
        lo[i] = static_cast<int>(std::lower_bound(starts.begin(), starts.end(), p.items[i].first) -
                                 starts.begin());
        hi[i] = static_cast<int>(std::upper_bound(starts.begin(), starts.end(), p.items[i].last) -
                                 starts.begin()) -
                1;
        diff[lo[i]] += static_cast<long long>(p.items[i].size);
        diff[hi[i] + 1] -= static_cast<long long>(p.items[i].size);
    }
    std::vector<std::vector<std::size_t>> table(1, std::vector<std::size_t>(t, 0));
    long long run = 0;
    for (int s = 0; s < t; ++s) table[0][s] = static_cast<std::size_t>(run += diff[s]);
    for (int w = 1; (1 << w) <= t; ++w) {
        table.emplace_back(t, 0);
        for (int s = 0; s + (1 << w) <= t; ++s)
            table[w][s] = std::max(table[w - 1][s], table[w - 1][s + (1 << (w - 1))]);
    }
    for (int i = 0; i < m; ++i) {
        int len = hi[i] - lo[i] + 1, w = 0;
        while ((2 << w) <= len) ++w;
        peak[i] = std::max(table[w][lo[i]], table[w][hi[i] - (1 << w) + 1]);
    }
    orders.push_back(by_key(area));
    orders.push_back(by_key(pressure));
    orders.push_back(by_key(peak));
    // First use, for the two-sided fit (earliest first, larger first on ties).
    std::vector<std::size_t> early(m, 0);
    for (int i = 0; i < m; ++i)
        early[i] = static_cast<std::size_t>(std::numeric_limits<int>::max() - p.items[i].first);
    orders.push_back(by_key(early));
    return orders;
}

struct searched {
    layout best;
    std::vector<int> order;
    fit mode = fit::first;
    std::size_t ceiling = unbounded;
};

/// Every candidate order with first, best and two-sided fit (under the
/// LOAD as ceiling); keeps the best layout.
constexpr searched best_candidate(const problem& p, std::span<const segment> segments) {
    searched s;
    bool any = false;
    const std::size_t load = items_load(p.items);
    for (auto& order : candidate_orders(p))
        for (fit mode : {fit::first, fit::best, fit::two_sided}) {
            auto l = decode(p, order, segments, mode, load);
            if (!any || better(l, s.best)) {
                s.best = std::move(l);
                s.order = order;
                s.mode = mode;
                s.ceiling = load;
                any = true;
            }
        }
    return s;
}

/// Hill climbing on the order: swap two nearby items or move one earlier,
/// re-decode, keep the move unless it is worse (sideways moves cross plateaus).
constexpr searched hill_climb(const problem& p, std::span<const segment> segments, searched s,
                              const strong_options& opt, std::size_t lower) {
    const std::size_t m = p.items.size();
    if (m < 2) return s;
    std::size_t work = m + p.adj.size() + 1;
    std::size_t iterations = std::min(opt.max_iterations, opt.work_budget / work);
    std::vector<int> current = s.order;
    layout current_layout = s.best;
    auto optimal = [&] { return s.best.fits && segments.size() == 1 && total(s.best) <= lower; };
    auto try_move = [&](std::vector<int> next) {
        auto l = decode(p, next, segments, s.mode, s.ceiling);
        if (!better(current_layout, l)) {
            current = std::move(next);
            current_layout = l;
            if (better(l, s.best)) {
                s.best = std::move(l);
                s.order = current;
            }
        }
    };
    auto move_earlier = [](std::vector<int>& order, std::size_t i, std::size_t j) {
        int x = order[j];
        order.erase(order.begin() + static_cast<std::ptrdiff_t>(j));
        order.insert(order.begin() + static_cast<std::ptrdiff_t>(i), x);
    };
    // Phase 1: random local moves.
    rng r{opt.seed};
    for (std::size_t k = 0; k < iterations && !optimal(); ++k) {
        std::vector<int> next = current;
        std::size_t i = r.below(m - 1);
        std::size_t j = i + 1 + r.below(std::min(opt.window, m - 1 - i));
        if (r.next() & 1)
            std::swap(next[i], next[j]);
        else
            move_earlier(next, i, j);
        try_move(std::move(next));
    }
    // Phase 2, from the best order so far: every other move takes an item
    // that sets a segment's peak (or is left out) and places it anywhere
    // earlier in the order (a squeaky wheel); the others stay local.  Residual
    // networks need it: the items at the peak are rarely within reach of a
    // local move of the ones that block them.
    current = s.order;
    current_layout = s.best;
    rng t{opt.seed ^ 0x5157ea4f00dull};
    std::vector<std::size_t> top;
    for (std::size_t k = 0; k < iterations && !optimal(); ++k) {
        std::vector<int> next = current;
        top.clear();
        if (k % 2 == 1)
            for (std::size_t q = 1; q < m; ++q) {
                const auto& at = current_layout.at[current[q]];
                if (at.segment < 0 ||
                    at.offset + p.items[current[q]].size == current_layout.used[at.segment])
                    top.push_back(q);
            }
        if (!top.empty()) {
            std::size_t j = top[t.below(top.size())];
            move_earlier(next, t.below(j), j);
        } else {
            std::size_t i = t.below(m - 1);
            std::size_t j = i + 1 + t.below(std::min(opt.window, m - 1 - i));
            if (t.next() & 1)
                std::swap(next[i], next[j]);
            else
                move_earlier(next, i, j);
        }
        try_move(std::move(next));
    }
    return s;
}

}  // namespace detail

/// The strong heuristic: best of several orders with first and best fit, then
/// fixed-seed hill climbing on the order of the winner.
constexpr plan strong_fit(std::span<const buffer> buffers, std::span<const segment> segments,
                          const strong_options& opt = {}) {
    auto p = detail::make_problem(buffers, segments.size());
    if (!p.error.empty()) return detail::invalid_plan(p, buffers.size(), segments.size());
    auto s = detail::best_candidate(p, segments);
    s = detail::hill_climb(p, segments, std::move(s), opt, detail::items_load(p.items));
    return detail::to_plan(p, s.best, "strong_fit");
}

struct options {
    strong_options strong{};
    exact_options exact{};
    bool use_exact = true;  // branch and bound when there are at most exact.max_items items
};

/// Options light enough for constant evaluation (no hill climbing, a small
/// exact budget): use them in static_assert.
inline constexpr options compile_time_options{{0x11739a9e5eedull, 0, 0, 16}, {24, 2000}, true};

namespace detail {

/// Re-packs each segment's items exactly (the segment assignment is kept).
/// Returns true when the result is proven optimal (one segment, finished).
constexpr bool exact_improve(const problem& p, layout& l, std::span<const segment> segments,
                             const exact_options& opt) {
    if (p.items.size() > opt.max_items) return false;
    // An unplaced item may still fit with an exact packing, when there is one segment.
    if (!l.fits && segments.size() != 1) return false;
    bool proven = true;
    for (int s = 0; s < static_cast<int>(segments.size()); ++s) {
        std::vector<int> members;
        for (int i = 0; i < p.size(); ++i)
            if (l.at[i].segment == s || (segments.size() == 1 && l.at[i].segment < 0))
                members.push_back(i);
        std::size_t upper =
            l.fits ? l.used[s]
                   : (segments[s].capacity == unbounded ? unbounded : segments[s].capacity + 1);
        std::vector<item> sub;
        for (int i : members) sub.push_back(p.items[i]);
        if (l.fits && items_load(sub) >= upper) continue;  // already optimal
        auto r = exact_segment(p, members, segments[s].alignment, upper, opt.node_budget);
        if (r.improved) {
            for (std::size_t k = 0; k < members.size(); ++k) l.at[members[k]] = {s, r.offsets[k]};
            l.used[s] = r.peak;
            if (!l.fits) {
                l.fits = true;
                for (auto& a : l.at) l.fits = l.fits && a.segment >= 0;
            }
        }
        proven = proven && r.finished;
    }
    return proven && segments.size() == 1 && l.fits;
}

/// Bytes missing: with the slowest segment made unbounded (and all of them,
/// if a pinned buffer still does not fit), how far usage exceeds capacity.
constexpr std::size_t shortfall(const problem& p, std::span<const segment> segments) {
    std::vector<segment> open(segments.begin(), segments.end());
    auto excess = [&](const layout& l) {
        std::size_t e = 0;
        for (std::size_t s = 0; s < segments.size(); ++s)
            if (l.used[s] > segments[s].capacity) e += l.used[s] - segments[s].capacity;
        return e;
    };
    if (open.empty()) return 0;
    open.back().capacity = unbounded;
    auto l = best_candidate(p, open).best;
    if (l.fits) return std::max<std::size_t>(1, excess(l));
    for (auto& s : open) s.capacity = unbounded;
    return std::max<std::size_t>(1, excess(best_candidate(p, open).best));
}

}  // namespace detail

/// The default planner: the patent's size_first_fit and strong_fit, the best
/// kept, then exact branch and bound on small problems (proving optimality
/// when it finishes within its node budget).  When nothing fits, `shortfall`
/// says by how many bytes the segments are short.
constexpr plan plan_memory(std::span<const buffer> buffers, std::span<const segment> segments,
                           const options& opt = {}) {
    auto p = detail::make_problem(buffers, segments.size());
    if (!p.error.empty()) return detail::invalid_plan(p, buffers.size(), segments.size());
    const std::size_t load = detail::items_load(p.items);
    std::string_view name = "size_first_fit";
    auto best = detail::decode(p, detail::size_order(p), segments, detail::fit::first);
    auto strong =
        detail::hill_climb(p, segments, detail::best_candidate(p, segments), opt.strong, load);
    if (detail::better(strong.best, best)) {
        best = std::move(strong.best);
        name = "strong_fit";
    }
    if (segments.size() == 1) {
        // TFLM's layout: exact_plan starts from it too, so the default is never
        // above exact_plan (fuzz_plan found it could be, when only exact_plan's
        // search started from this layout).
        auto tflm = detail::tflm_layout(buffers, segments);
        if (detail::better(tflm, best)) {
            best = std::move(tflm);
            name = "size_first_fit";
        }
    }
    bool proven = best.fits && segments.size() == 1 && detail::total(best) <= load;
    if (!proven && opt.use_exact) {
        auto before = best;
        proven = detail::exact_improve(p, best, segments, opt.exact);
        if (detail::better(best, before)) name = "exact";
    }
    auto out = detail::to_plan(p, best, name);
    out.proven_optimal = proven;
    if (!out.fits) out.shortfall = detail::shortfall(p, segments);
    return out;
}

/// The exact search on its own: the best heuristic layout as the first bound
/// (strong_fit with its hill climbing under `seed`, the patent's size order,
/// and on one segment the TFLM greedy's order), then branch and bound.  So the
/// result is never larger than any heuristic's, whether or not the search
/// finishes within its node budget (fuzz_plan found it could be, when the
/// bound was strong_fit's first candidate alone).  `proven_optimal` tells
/// whether it finished.
constexpr plan exact_plan(std::span<const buffer> buffers, std::span<const segment> segments,
                          const exact_options& opt = {}, const strong_options& seed = {}) {
    auto p = detail::make_problem(buffers, segments.size());
    if (!p.error.empty()) return detail::invalid_plan(p, buffers.size(), segments.size());
    const std::size_t load = detail::items_load(p.items);
    auto best =
        detail::hill_climb(p, segments, detail::best_candidate(p, segments), seed, load).best;
    auto patent = detail::decode(p, detail::size_order(p), segments, detail::fit::first);
    if (detail::better(patent, best)) best = std::move(patent);
    if (segments.size() == 1) {
        auto tflm = detail::tflm_layout(buffers, segments);
        if (detail::better(tflm, best)) best = std::move(tflm);
    }
    bool proven = best.fits && segments.size() == 1 && detail::total(best) <= load;
    if (!proven) proven = detail::exact_improve(p, best, segments, opt);
    auto out = detail::to_plan(p, best, "exact");
    out.proven_optimal = proven;
    if (!out.fits) out.shortfall = detail::shortfall(p, segments);
    return out;
}

}  // namespace litegraph::planner
