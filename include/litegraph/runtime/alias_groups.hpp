// Variables that share one buffer: an op run in place of its input, a concat
// whose inputs are slices of its output.  A union-find whose members keep a
// byte offset into their group's buffer, and the group's lifetime.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace litegraph::runtime {

class alias_groups {
public:
    /// `first`/`last`: each variable's lifetime in steps (-1: not in the arena).
    alias_groups(std::vector<int> first, std::vector<int> last)
        : parent_(first.size()),
          offset_(first.size(), 0),
          first_(std::move(first)),
          last_(std::move(last)) {
        for (std::size_t v = 0; v < parent_.size(); ++v) parent_[v] = static_cast<int>(v);
    }

    int root(int v) const {
        while (parent_[v] != v) v = parent_[v];
        return v;
    }
    /// Byte offset of `v` in its group's buffer.
    std::int64_t offset(int v) const {
        std::int64_t o = 0;
        while (parent_[v] != v) {
            o += offset_[v];
            v = parent_[v];
        }
        return o;
    }
    int first(int v) const { return first_[root(v)]; }
    int last(int v) const { return last_[root(v)]; }

    /// Puts `v`'s whole group into `host`'s group so that `v` lands at byte
    /// `at` of `host`.  False (and nothing changed) when they are already one
    /// group or `v`'s group would start before the host's buffer.
    bool place(int v, int host, std::int64_t at) {
        int rv = root(v), rh = root(host);
        if (rv == rh) return false;
        std::int64_t o = offset(host) + at - offset(v);
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
    std::vector<int> first_, last_;     // valid at roots: the group's lifetime
};

}  // namespace litegraph::runtime
