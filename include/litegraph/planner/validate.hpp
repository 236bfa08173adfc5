// Checks a plan against its buffers and segments, whichever algorithm made
// it: no two time-overlapping buffers share bytes (unless one is an alias or
// in-place form of the other), every buffer lies within its segment's
// capacity and alignment and honours its pin, and aliases lie inside their
// parent.  constexpr, so compile-time plans are checked too.
#pragma once

#include <algorithm>
#include <span>
#include <string_view>
#include <vector>

#include "litegraph/planner/model.hpp"

namespace litegraph::planner {

struct validation {
    bool ok = true;
    std::string_view what = {};  // the first problem found
    int buffer = -1;             // the buffer at fault
    int other = -1;              // the buffer it collides with, if any

    constexpr explicit operator bool() const { return ok; }
};

constexpr validation validate(std::span<const buffer> buffers, std::span<const segment> segments,
                              const plan& p) {
    const int n = static_cast<int>(buffers.size());
    auto bad = [](std::string_view what, int b, int other = -1) {
        return validation{false, what, b, other};
    };
    if (static_cast<int>(p.placements.size()) != n) return bad("one placement per buffer", -1);
    if (p.used.size() != segments.size()) return bad("one usage per segment", -1);
    // Family roots (alias and in-place links), with a cycle guard.
    std::vector<int> root(n, 0);
    for (int i = 0; i < n; ++i) {
        int r = i;
        for (int k = 0;; ++k) {
            if (k > n) return bad("alias links form a cycle", i);
            const auto& b = buffers[r];
            int next = b.alias_of >= 0 ? b.alias_of : b.in_place_of;
            if (next < 0) break;
            if (next >= n) return bad("a buffer links to a buffer that does not exist", r);
            r = next;
        }
        root[i] = r;
    }
    for (int i = 0; i < n; ++i) {
        const auto& b = buffers[i];
        const auto& at = p.placements[i];
        if (at.segment < 0) {
            if (p.fits) return bad("the plan says it fits but a buffer is not placed", i);
            continue;
        }
        if (at.segment >= static_cast<int>(segments.size()))
            return bad("a buffer is placed in a segment that does not exist", i);
        const auto& seg = segments[at.segment];
        if (b.pinned >= 0 && b.pinned != at.segment)
            return bad("a pinned buffer is placed in another segment", i);
        if (at.offset > seg.capacity || b.size > seg.capacity - at.offset)
            return bad("a buffer ends past its segment's capacity", i);
        if (at.offset + b.size > p.used[at.segment])
            return bad("a buffer ends past its segment's reported usage", i);
        if (b.alias_of >= 0) {
            const auto& parent = p.placements[b.alias_of];
            if (b.alias_offset + b.size > buffers[b.alias_of].size)
                return bad("an alias does not lie inside its parent", i, b.alias_of);
            if (parent.segment != at.segment || parent.offset + b.alias_offset != at.offset)
                return bad("an alias is not at its offset inside its parent", i, b.alias_of);
        } else if (b.in_place_of >= 0) {
            const auto& input = p.placements[b.in_place_of];
            if (input.segment != at.segment || input.offset != at.offset)
                return bad("an in-place buffer is not at its input's offset", i, b.in_place_of);
            if (buffers[b.in_place_of].last > b.first)
                return bad("an in-place buffer's input is read after it is overwritten", i,
                           b.in_place_of);
        } else {
            std::size_t a = std::max<std::size_t>(std::max<std::size_t>(1, seg.alignment),
                                                  std::max<std::size_t>(1, b.alignment));
            if (at.offset % a != 0) return bad("a buffer's offset is not aligned", i);
        }
    }
    for (std::size_t s = 0; s < segments.size(); ++s)
        if (p.used[s] > segments[s].capacity)
            return bad("a segment's usage exceeds its capacity", static_cast<int>(s));
    // Pairs that overlap in time, by a sweep over first use.
    std::vector<int> by_first(n, 0);
    for (int i = 0; i < n; ++i) by_first[i] = i;
    std::sort(by_first.begin(), by_first.end(), [&](int a, int b) {
        return buffers[a].first != buffers[b].first ? buffers[a].first < buffers[b].first : a < b;
    });
    for (int x = 0; x < n; ++x) {
        int i = by_first[x];
        const auto& pi = p.placements[i];
        if (pi.segment < 0 || buffers[i].size == 0) continue;
        for (int y = x + 1; y < n && buffers[by_first[y]].first <= buffers[i].last; ++y) {
            int j = by_first[y];
            const auto& pj = p.placements[j];
            if (pj.segment != pi.segment || root[i] == root[j] || buffers[j].size == 0) continue;
            if (pi.offset < pj.offset + buffers[j].size && pj.offset < pi.offset + buffers[i].size)
                return bad("two buffers live at the same time share bytes", i, j);
        }
    }
    return {};
}

}  // namespace litegraph::planner
