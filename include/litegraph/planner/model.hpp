// The planner's model of memory: ordered segments (fastest first) and buffers
// with lifetimes in execution steps.  Everything here works in constant
// evaluation, so a firmware network gets a compile-time plan.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

namespace litegraph::planner {

inline constexpr std::size_t unbounded = std::numeric_limits<std::size_t>::max();

/// A memory region.  Segments are given fastest first: the index in the list
/// is the speed rank (0 = fastest), and every planner tries them in that order.
struct segment {
    std::string_view name = "arena";
    std::size_t capacity = unbounded;
    std::size_t alignment = 64;  // every offset in this segment is a multiple of it
};

/// One activation buffer, live from step `first` to step `last` inclusive
/// (steps of the execution order).  Constraints are optional:
///  - `pinned`: it must go to that segment;
///  - `alias_of`: it is a slice of another buffer (concat in place) at
///    `alias_offset`; it shares the parent's bytes and is not placed itself;
///  - `in_place_of`: it overwrites its input (an element-wise op run in place):
///    same offset as that buffer, which must not be read after this one is
///    written (`last` of the input <= `first` of this one).
/// A derived buffer (alias or in place) makes its root live for the union of
/// the lifetimes of the family.
struct buffer {
    std::size_t size = 0;
    int first = 0;
    int last = 0;
    int pinned = -1;               // segment index it must go to, or -1
    int alias_of = -1;             // buffer index whose bytes this one shares (a slice), or -1
    std::size_t alias_offset = 0;  // byte offset of the slice inside the parent
    int in_place_of = -1;          // buffer index it overwrites in place, or -1
    std::size_t alignment = 1;     // its own alignment; the segment's applies as well
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
    std::size_t shortfall = 0;          // when it does not fit: bytes missing (see plan_memory)
    std::string_view algorithm = {};    // which algorithm produced the placements
    bool proven_optimal = false;        // the exact search proved no smaller arena exists
    std::string_view problem = {};      // set when the input itself is invalid (bad alias, ...)
    int problem_buffer = -1;            // the buffer that `problem` is about

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
