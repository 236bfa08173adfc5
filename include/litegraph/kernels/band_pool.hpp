// A float global pool accumulated over row bands, heap-free on raw NCHW
// arrays: one of the two loops of a patched stage (docs/patches.md) besides
// its layers' own kernels (the other: kernels/window_copy.hpp), what a tail
// stage ending in a global pool runs.  The runtime's patched stage
// (runtime/patches/instance.hpp) and a firmware network's patch layers
// both run it.
#pragma once

#include <cfloat>
#include <cstdint>
#include <tuple>

namespace litegraph::kernels {

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
