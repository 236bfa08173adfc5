// The planner's model of memory: ordered segments (fastest first) and buffers
// with lifetimes in execution steps.  Everything here works in constant
// evaluation, so a compile-time network gets a compile-time plan.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

namespace litegraph::planner {

inline constexpr std::size_t unbounded = std::numeric_limits<std::size_t>::max();

/// A memory region; segments are given fastest first.
struct segment {
    std::string_view name = "arena";
    std::size_t capacity = unbounded;
    std::size_t alignment = 64;
};

/// One activation buffer, live from step `first` to step `last` inclusive.
struct buffer {
    std::size_t size = 0;
    int first = 0;
    int last = 0;
    int pinned = -1;               // segment index it must go to, or -1
    int alias_of = -1;             // buffer index whose bytes this one shares (a slice), or -1
    std::size_t alias_offset = 0;  // byte offset of the slice inside the parent
};

/// Where one buffer goes: segment index and byte offset in it (-1: not placed).
struct placement {
    int segment = -1;
    std::size_t offset = 0;
};

struct plan {
    std::vector<placement> placements;  // one per buffer
    std::vector<std::size_t> used;      // high-water mark per segment
    bool fits = true;                   // every buffer placed within capacity

    constexpr std::size_t total() const {
        std::size_t t = 0;
        for (auto u : used) t += u;
        return t;
    }
};

constexpr std::size_t align_up(std::size_t v, std::size_t a) {
    return a <= 1 ? v : (v + a - 1) / a * a;
}

constexpr bool overlaps_in_time(const buffer& a, const buffer& b) {
    return a.first <= b.last && b.first <= a.last;
}

}  // namespace litegraph::planner
