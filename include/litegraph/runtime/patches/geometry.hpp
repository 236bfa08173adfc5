// Patched stages (runtime/patches.hpp, docs/patches.md): the geometry of a
// patch.  A region of a feature map, the input window (and padding) a run
// of output rows reads through a layer's kernel, and the copy of a window
// between two maps of different extents (kernels::copy_window).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "litegraph/core/shape.hpp"
#include "litegraph/kernels/window_copy.hpp"

namespace litegraph::runtime {

/// Rows [y0, y1) and columns [x0, x1) of a feature map.
struct patch_region {
    std::int64_t y0 = 0, y1 = 0, x0 = 0, x1 = 0;
    std::int64_t h() const noexcept { return y1 - y0; }
    std::int64_t w() const noexcept { return x1 - x0; }
    bool empty() const noexcept { return y1 <= y0 || x1 <= x0; }
    bool operator==(const patch_region&) const = default;
};

namespace patch_detail {

/// The input window (clipped to the map) that output rows [o0, o1) read
/// along one axis, and the padding the patch's op then needs before and after.
struct span {
    std::int64_t lo, hi, pad0, pad1;
};
inline span window_span(std::int64_t o0, std::int64_t o1, std::int64_t in, std::int64_t k,
                        std::int64_t s, std::int64_t d, std::int64_t pad0) {
    const std::int64_t need_lo = o0 * s - pad0;
    const std::int64_t need_hi = (o1 - 1) * s - pad0 + d * (k - 1) + 1;
    const std::int64_t lo = std::clamp<std::int64_t>(need_lo, 0, in);
    const std::int64_t hi = std::clamp<std::int64_t>(need_hi, 0, in);
    return {lo, hi, lo - need_lo, need_hi - hi};
}

inline patch_region bounding(const patch_region& a, const patch_region& b) {
    if (a.empty()) return b;
    return {std::min(a.y0, b.y0), std::max(a.y1, b.y1), std::min(a.x0, b.x0), std::max(a.x1, b.x1)};
}

inline std::int64_t plane_count(const shape_t& s) {
    return s[0] * s[1];
}

/// Copies `win` (inside both regions) from a [planes, src.h, src.w] map whose
/// origin is `src` into one whose origin is `dst` (kernels::copy_window).
inline kernels::window_copy window_copy_of(const patch_region& src, const patch_region& dst,
                                           const patch_region& win, std::int64_t planes,
                                           std::size_t elem) {
    return {planes,          static_cast<std::int64_t>(elem),
            src.h(),         src.w(),
            win.y0 - src.y0, win.x0 - src.x0,
            dst.h(),         dst.w(),
            win.y0 - dst.y0, win.x0 - dst.x0,
            win.h(),         win.w()};
}
inline void copy_window(const std::byte* from, const patch_region& src, std::byte* to,
                        const patch_region& dst, const patch_region& win, std::int64_t planes,
                        std::size_t elem) {
    kernels::copy_window(window_copy_of(src, dst, win, planes, elem), from, to);
}

}  // namespace patch_detail

}  // namespace litegraph::runtime
