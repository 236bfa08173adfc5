// Execution order search: for a DAG of ops (each producing one output
// buffer), find a topological order whose LOAD (most bytes live at one step)
// is low, since no placement can beat LOAD.  Exact by dynamic programming
// over the down-closed sets of ops (the sets some order runs first) for small
// graphs, greedy list scheduling
// (three rules, best kept) for big ones; the given order is always a
// candidate, so the result is never worse.  constexpr, deterministic.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "litegraph/planner/planner.hpp"

namespace litegraph::planner {

/// One op of the DAG: the bytes of its output and the ops whose outputs it
/// reads.  A graph input is an op without inputs.  `is_output` keeps the
/// output live to the end.
struct op_node {
    std::size_t output_bytes = 0;
    std::vector<int> inputs;
    bool is_output = false;
};

struct order_options {
    int exact_max_ops = 20;  // dynamic programming over the down-closed sets up to this size
};

struct order_result {
    std::vector<int> order;      // op indices in execution order
    std::size_t load = 0;        // LOAD of that order
    std::size_t given_load = 0;  // LOAD of the given order (index order, or Kahn's by index)
    bool exact = false;          // `order` is proven to have the least LOAD
    std::string_view method = {};
    std::string_view problem = {};  // set when the ops are no DAG
    int problem_op = -1;

    constexpr std::size_t gain() const { return given_load - load; }
};

/// The buffers of an order: buffer i is op i's output, live from the step of
/// op i to the step of its last reader (to the end if it is a graph output).
constexpr std::vector<buffer> buffers_for_order(std::span<const op_node> ops,
                                                std::span<const int> order) {
    const int n = static_cast<int>(ops.size());
    std::vector<int> pos(n, 0);
    for (int k = 0; k < static_cast<int>(order.size()); ++k) pos[order[k]] = k;
    std::vector<buffer> out(n, buffer{});
    for (int i = 0; i < n; ++i)
        out[i] = {ops[i].output_bytes, pos[i], ops[i].is_output ? n - 1 : pos[i]};
    for (int i = 0; i < n; ++i)
        for (int u : ops[i].inputs) out[u].last = std::max(out[u].last, pos[i]);
    return out;
}

constexpr std::size_t order_load(std::span<const op_node> ops, std::span<const int> order) {
    return lower_bound(buffers_for_order(ops, order));
}

constexpr bool is_topological(std::span<const op_node> ops, std::span<const int> order) {
    const int n = static_cast<int>(ops.size());
    if (static_cast<int>(order.size()) != n) return false;
    std::vector<int> pos(n, -1);
    for (int k = 0; k < n; ++k) {
        if (order[k] < 0 || order[k] >= n || pos[order[k]] >= 0) return false;
        pos[order[k]] = k;
    }
    for (int i = 0; i < n; ++i)
        for (int u : ops[i].inputs)
            if (pos[u] >= pos[i]) return false;
    return true;
}

namespace detail {

struct dag {
    std::vector<std::vector<int>> inputs, consumers;  // deduplicated
};

enum class pick { least_growth, depth_first, least_peak };

/// Greedy list scheduling: run, among the ready ops, the one the rule prefers.
constexpr std::vector<int> list_schedule(std::span<const op_node> ops, const dag& g, pick rule) {
    const int n = static_cast<int>(ops.size());
    std::vector<int> waiting(n, 0), remaining(n, 0), produced_at(n, -1), order;
    std::vector<int> ready;
    for (int i = 0; i < n; ++i) {
        waiting[i] = static_cast<int>(g.inputs[i].size());
        remaining[i] = static_cast<int>(g.consumers[i].size());
        if (waiting[i] == 0) ready.push_back(i);
    }
    std::size_t live = 0;
    auto kept = [&](int v) { return ops[v].is_output || !g.consumers[v].empty(); };
    while (!ready.empty()) {
        int best = -1;
        long long best_key[3] = {0, 0, 0};
        for (int v : ready) {
            long long freed = 0;
            int recent = -1;
            for (int u : g.inputs[v]) {
                if (remaining[u] == 1 && !ops[u].is_output)
                    freed += static_cast<long long>(ops[u].output_bytes);
                recent = std::max(recent, produced_at[u]);
            }
            long long growth = (kept(v) ? static_cast<long long>(ops[v].output_bytes) : 0) - freed;
            long long peak = static_cast<long long>(live + ops[v].output_bytes);
            long long key[3] = {growth, -recent, v};
            if (rule == pick::depth_first) key[0] = -recent, key[1] = growth;
            if (rule == pick::least_peak) key[0] = peak, key[1] = growth;
            if (best < 0 || key[0] < best_key[0] ||
                (key[0] == best_key[0] &&
                 (key[1] < best_key[1] || (key[1] == best_key[1] && v < best)))) {
                best = v;
                for (int k = 0; k < 3; ++k) best_key[k] = key[k];
            }
        }
        ready.erase(std::find(ready.begin(), ready.end(), best));
        produced_at[best] = static_cast<int>(order.size());
        order.push_back(best);
        if (kept(best)) live += ops[best].output_bytes;
        for (int u : g.inputs[best])
            if (--remaining[u] == 0 && !ops[u].is_output) live -= ops[u].output_bytes;
        for (int c : g.consumers[best])
            if (--waiting[c] == 0) ready.push_back(c);
    }
    return order;
}

/// The down-closed sets of one size met so far: for each, the least peak over
/// its orders and the op run last in the order reaching it.  Open addressing on
/// the set's bits (constexpr: no std::unordered_map).
class ideal_table {
public:
    struct entry {
        std::uint32_t set = 0;
        std::int8_t last = -1;  // -1: an empty slot
        std::size_t peak = 0;
    };

    constexpr ideal_table() : slots_(16) {}

    /// Keeps (peak, v) for `set` when it is the first, the lower peak, or the
    /// same peak reached from the smaller set (the larger v): the choice of the
    /// dense table this replaces, which met the sets in increasing order.
    constexpr void offer(std::uint32_t set, std::size_t peak, std::int8_t v) {
        if (2 * (filled_.size() + 1) > slots_.size()) grow();
        auto& e = slots_[find(set)];
        if (e.last < 0) {
            e = {set, v, peak};
            filled_.push_back(set);
        } else if (peak < e.peak || (peak == e.peak && v > e.last)) {
            e.peak = peak;
            e.last = v;
        }
    }
    constexpr const entry& at(std::uint32_t set) const { return slots_[find(set)]; }
    constexpr std::span<const std::uint32_t> sets() const { return filled_; }

private:
    constexpr std::size_t find(std::uint32_t set) const {
        const std::size_t mask = slots_.size() - 1;
        std::size_t h = (std::size_t{set} * 0x9E3779B97F4A7C15ull >> 32) & mask;
        while (slots_[h].last >= 0 && slots_[h].set != set) h = (h + 1) & mask;
        return h;
    }
    constexpr void grow() {
        std::vector<entry> old = std::move(slots_);
        slots_.assign(old.size() * 2, entry{});
        for (const auto& e : old)
            if (e.last >= 0) slots_[find(e.set)] = e;
    }
    std::vector<entry> slots_;
    std::vector<std::uint32_t> filled_;
};

/// Exact: the least peak over the orders of each down-closed set S, found
/// size by size over the down-closed sets only (a chain of n ops has n + 1
/// of them, not 2^n; n independent ops still have 2^n).
constexpr std::vector<int> exact_schedule(std::span<const op_node> ops, const dag& g) {
    const int n = static_cast<int>(ops.size());
    std::vector<std::uint32_t> need(n, 0), users(n, 0);
    for (int i = 0; i < n; ++i) {
        for (int u : g.inputs[i]) need[i] |= std::uint32_t{1} << u;
        for (int c : g.consumers[i]) users[i] |= std::uint32_t{1} << c;
    }
    // levels[k]: the down-closed sets of k ops.
    std::vector<ideal_table> levels(n + 1);
    auto extend = [&](std::uint32_t s, std::size_t best, ideal_table& next) {
        std::size_t live = 0;
        for (int u = 0; u < n; ++u)
            if ((s >> u & 1) && (ops[u].is_output || (users[u] & ~s) != 0))
                live += ops[u].output_bytes;
        for (int v = 0; v < n; ++v) {
            if ((s >> v & 1) || (need[v] & ~s) != 0) continue;
            next.offer(s | (std::uint32_t{1} << v), std::max(best, live + ops[v].output_bytes),
                       static_cast<std::int8_t>(v));
        }
    };
    if (n > 0) extend(0, 0, levels[1]);
    for (int k = 1; k < n; ++k)
        for (std::uint32_t s : levels[k].sets()) extend(s, levels[k].at(s).peak, levels[k + 1]);
    std::vector<int> order(n, 0);
    std::uint32_t s = n == 0 ? 0 : (std::uint32_t{1} << n) - 1;
    for (int k = n - 1; k >= 0; --k) {
        order[k] = levels[k + 1].at(s).last;
        s &= ~(std::uint32_t{1} << order[k]);
    }
    return order;
}

}  // namespace detail

/// A topological order of `ops` with low LOAD, and the gain over the given one.
constexpr order_result best_order(std::span<const op_node> ops, const order_options& opt = {}) {
    order_result r;
    const int n = static_cast<int>(ops.size());
    detail::dag g;
    g.inputs.resize(n);
    g.consumers.resize(n);
    for (int i = 0; i < n; ++i) {
        for (int u : ops[i].inputs) {
            if (u < 0 || u >= n || u == i) {
                r.problem = "an op reads an op that does not exist (or itself)";
                r.problem_op = i;
                return r;
            }
            if (std::find(g.inputs[i].begin(), g.inputs[i].end(), u) == g.inputs[i].end()) {
                g.inputs[i].push_back(u);
                g.consumers[u].push_back(i);
            }
        }
    }
    // The given order: index order when it is topological, else Kahn's by index.
    std::vector<int> given(n, 0);
    for (int i = 0; i < n; ++i) given[i] = i;
    if (!is_topological(ops, given)) {
        given.clear();
        std::vector<int> waiting(n, 0);
        std::vector<int> ready;
        for (int i = 0; i < n; ++i)
            if ((waiting[i] = static_cast<int>(g.inputs[i].size())) == 0) ready.push_back(i);
        while (!ready.empty()) {
            auto it = std::min_element(ready.begin(), ready.end());
            int v = *it;
            ready.erase(it);
            given.push_back(v);
            for (int c : g.consumers[v])
                if (--waiting[c] == 0) ready.push_back(c);
        }
        if (static_cast<int>(given.size()) != n) {
            r.problem = "the ops form a cycle";
            for (int i = 0; i < n; ++i)
                if (std::find(given.begin(), given.end(), i) == given.end()) {
                    r.problem_op = i;
                    break;
                }
            return r;
        }
    }
    r.order = given;
    r.given_load = r.load = order_load(ops, given);
    r.method = "given";
    if (n <= opt.exact_max_ops && n <= 30) {
        auto o = detail::exact_schedule(ops, g);
        auto l = order_load(ops, o);
        if (l < r.load) {
            r.order = std::move(o);
            r.load = l;
            r.method = "exact";
        }
        r.exact = true;
        return r;
    }
    for (auto rule :
         {detail::pick::least_growth, detail::pick::depth_first, detail::pick::least_peak}) {
        auto o = detail::list_schedule(ops, g, rule);
        auto l = order_load(ops, o);
        if (l < r.load) {
            r.order = std::move(o);
            r.load = l;
            r.method = rule == detail::pick::least_growth  ? "greedy_least_growth"
                       : rule == detail::pick::depth_first ? "greedy_depth_first"
                                                           : "greedy_least_peak";
        }
    }
    return r;
}

}  // namespace litegraph::planner
