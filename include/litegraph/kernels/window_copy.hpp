// A window copied between two NCHW maps of different extents (a crop, a
// patch into the split tensor, a channel slice of a concat), heap-free on raw
// arrays: one of the two loops of a patched stage (docs/patches.md) besides
// its layers' own kernels (the other: kernels/band_pool.hpp).  The runtime's
// patched stage (runtime/patches/instance.hpp) and a firmware network's
// patch layers both run it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <tuple>

namespace litegraph::kernels {

/// A window of h x w elements of `planes` planes: in the source map
/// (src_h x src_w per plane) at (src_y, src_x), in the destination map
/// (dst_h x dst_w) at (dst_y, dst_x); `elem` bytes per element.
struct window_copy {
    std::int64_t planes = 0, elem = 1;
    std::int64_t src_h = 0, src_w = 0, src_y = 0, src_x = 0;
    std::int64_t dst_h = 0, dst_w = 0, dst_y = 0, dst_x = 0;
    std::int64_t h = 0, w = 0;
    constexpr auto fields() const {
        return std::tie(planes, elem, src_h, src_w, src_y, src_x, dst_h, dst_w, dst_y, dst_x, h, w);
    }
};

/// Copies the window of `c` from `from` to `to` (the maps do not overlap).
inline void copy_window(const window_copy& c, const void* from, void* to) noexcept {
    const auto* src = static_cast<const std::byte*>(from);
    auto* dst = static_cast<std::byte*>(to);
    const auto e = static_cast<std::size_t>(c.elem);
    const bool rows_whole = c.w == c.src_w && c.w == c.dst_w;
    if (rows_whole && c.h == c.src_h && c.h == c.dst_h) {  // whole planes: one copy
        std::memcpy(dst, src, static_cast<std::size_t>(c.planes * c.h * c.w) * e);
        return;
    }
    for (std::int64_t p = 0; p < c.planes; ++p) {
        const auto* s =
            src + static_cast<std::size_t>((p * c.src_h + c.src_y) * c.src_w + c.src_x) * e;
        auto* d = dst + static_cast<std::size_t>((p * c.dst_h + c.dst_y) * c.dst_w + c.dst_x) * e;
        if (rows_whole) {
            std::memcpy(d, s, static_cast<std::size_t>(c.h * c.w) * e);
            continue;
        }
        for (std::int64_t y = 0; y < c.h; ++y)
            std::memcpy(d + static_cast<std::size_t>(y * c.dst_w) * e,
                        s + static_cast<std::size_t>(y * c.src_w) * e,
                        static_cast<std::size_t>(c.w) * e);
    }
}

}  // namespace litegraph::kernels
