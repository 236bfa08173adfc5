// Planning entry points.  Seed version: the patent's size_first_fit and the
// LOAD lower bound; stronger algorithms live beside it.
#pragma once

#include <algorithm>
#include <span>
#include <vector>

#include "litegraph/planner/model.hpp"

namespace litegraph::planner {

/// LOAD: the largest total of bytes live at one step (aliases excluded).
constexpr std::size_t lower_bound(std::span<const buffer> buffers) {
    int last_step = -1;
    for (auto& b : buffers) last_step = std::max(last_step, b.last);
    std::size_t best = 0;
    for (int s = 0; s <= last_step; ++s) {
        std::size_t live = 0;
        for (auto& b : buffers)
            if (b.alias_of < 0 && b.first <= s && s <= b.last) live += b.size;
        best = std::max(best, live);
    }
    return best;
}

/// The patent's method: largest first; for each buffer try the segments in
/// speed order and take the first gap (in offset order) that collides with no
/// placed buffer whose lifetime overlaps.
constexpr plan size_first_fit(std::span<const buffer> buffers, std::span<const segment> segments) {
    plan p;
    p.placements.assign(buffers.size(), placement{});
    p.used.assign(segments.size(), 0);
    std::vector<int> order;
    for (int i = 0; i < static_cast<int>(buffers.size()); ++i)
        if (buffers[i].alias_of < 0) order.push_back(i);
    // Ties go to the lower index, so the order is the same on every machine.
    std::sort(order.begin(), order.end(), [&](int a, int b) {
        return buffers[a].size != buffers[b].size ? buffers[a].size > buffers[b].size : a < b;
    });
    std::vector<std::vector<int>> placed(segments.size());  // offset-ordered per segment
    for (int i : order) {
        const auto& b = buffers[i];
        bool done = false;
        for (int s = 0; s < static_cast<int>(segments.size()) && !done; ++s) {
            if (b.pinned >= 0 && b.pinned != s) continue;
            const auto& seg = segments[s];
            std::size_t offset = 0;
            for (int j : placed[s]) {
                if (!overlaps_in_time(b, buffers[j])) continue;
                auto jo = p.placements[j].offset;
                if (offset + b.size <= jo) break;
                offset = std::max(offset, align_up(jo + buffers[j].size, seg.alignment));
            }
            if (offset > seg.capacity || b.size > seg.capacity - offset) continue;
            p.placements[i] = {s, offset};
            auto& list = placed[s];
            auto at = std::upper_bound(list.begin(), list.end(), offset, [&](std::size_t o, int j) {
                return o < p.placements[j].offset;
            });
            list.insert(at, i);
            p.used[s] = std::max(p.used[s], offset + b.size);
            done = true;
        }
        if (!done) p.fits = false;
    }
    for (int i = 0; i < static_cast<int>(buffers.size()); ++i) {
        const auto& b = buffers[i];
        if (b.alias_of < 0) continue;
        auto parent = p.placements[b.alias_of];
        p.placements[i] = {parent.segment, parent.offset + b.alias_offset};
    }
    return p;
}

}  // namespace litegraph::planner
