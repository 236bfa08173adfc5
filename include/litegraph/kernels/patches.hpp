// The two loops of a patched stage (docs/patches.md) besides its layers' own
// kernels, heap-free on raw NCHW arrays: a window copied between two maps of
// different extents (a crop, a patch into the split tensor, a channel slice
// of a concat) and a global pool accumulated over row bands.  The runtime's
// patched stage (runtime/patches.hpp) and a firmware network's patch
// layers (firmware/patch_layers.hpp) both run these.
#pragma once

#include <cfloat>
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

/// One row band of a float global pool: x holds `rows` full rows (width w)
/// of each of `planes` planes; y the running max or sum per plane, in the
/// row-major order of kernels::pool2d's loop.  The first band starts it, the
/// last divides an average by the plane's size `area`, so the result is
/// bit for bit the untiled pool's.
struct band_pool_geometry {
    std::int64_t planes = 0, rows = 0, w = 0, area = 1;
    bool max = false, first = false, last = false;
    constexpr auto fields() const { return std::tie(planes, rows, w, area, max, first, last); }
};

inline void band_pool(const band_pool_geometry& g, const float* x, float* y) noexcept {
    const std::int64_t n = g.rows * g.w;
    for (std::int64_t pc = 0; pc < g.planes; ++pc) {
        float m = g.first ? (g.max ? -FLT_MAX : 0.f) : y[pc];
        const float* xp = x + pc * n;
        for (std::int64_t i = 0; i < n; ++i) {
            const float v = xp[i];
            if (g.max)
                m = m > v ? m : v;
            else
                m += v;
        }
        if (g.last && !g.max) m = m / static_cast<float>(g.area);
        y[pc] = m;
    }
}

}  // namespace litegraph::kernels
