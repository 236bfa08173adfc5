// The one model of buffers that share bytes: a family is a union-find whose
// members keep a byte offset into the family's root, and the family lives over
// the union of its members' lifetimes.  The planner folds a buffer list's
// `alias_of` / `in_place_of` links into families (detail::make_problem); the
// runtime places its in-place ops and in-place concats into families as it
// decides them (runtime/program.hpp) and hands the planner one buffer per
// family.  Everything here works in constant evaluation.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace litegraph::planner {

class families {
public:
    /// `first` / `last`: each member's own lifetime in steps.
    constexpr families(std::vector<int> first, std::vector<int> last)
        : parent_(first.size(), 0),
          offset_(first.size(), 0),
          first_(std::move(first)),
          last_(std::move(last)) {
        for (std::size_t v = 0; v < parent_.size(); ++v) parent_[v] = static_cast<int>(v);
    }

    constexpr int size() const { return static_cast<int>(parent_.size()); }
    constexpr int root(int v) const {
        while (parent_[v] != v) v = parent_[v];
        return v;
    }
    /// Byte offset of `v` in its family's root.
    constexpr std::int64_t offset(int v) const {
        std::int64_t o = 0;
        while (parent_[v] != v) {
            o += offset_[v];
            v = parent_[v];
        }
        return o;
    }
    /// The family's lifetime: the union of its members'.
    constexpr int first(int v) const { return first_[root(v)]; }
    constexpr int last(int v) const { return last_[root(v)]; }

    /// Puts `v`'s whole family into `host`'s so that `v` lands at byte `at`
    /// of `host`.  False (and nothing changed) when they are already one
    /// family (a link would close a cycle) or `v`'s family would start before
    /// the host's root.
    constexpr bool place(int v, int host, std::int64_t at) {
        const int rv = root(v), rh = root(host);
        if (rv == rh) return false;
        const std::int64_t o = offset(host) + at - offset(v);
        if (o < 0) return false;
        parent_[rv] = rh;
        offset_[rv] = o;
        first_[rh] = std::min(first_[rh], first_[rv]);
        last_[rh] = std::max(last_[rh], last_[rv]);
        return true;
    }

private:
    std::vector<int> parent_;
    std::vector<std::int64_t> offset_;  // relative to the parent
    std::vector<int> first_, last_;     // valid at roots: the family's lifetime
};

}  // namespace litegraph::planner
