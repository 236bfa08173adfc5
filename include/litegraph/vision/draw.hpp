// Drawing on images: polygons and boxes for `litegraph run --draw` and the
// examples.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

#include "litegraph/vision/image.hpp"
#include "litegraph/vision/text_boxes.hpp"

namespace litegraph::vision {

/// Draws a closed polygon, `thickness` pixels wide, in colour (in the image's
/// channel order).
inline void draw_polygon(image& img, const quad& q, std::array<std::uint8_t, 3> colour,
                         int thickness = 2) {
    for (int i = 0; i < 4; ++i) {
        const point& a = q[i];
        const point& b = q[(i + 1) % 4];
        int steps = int(std::ceil(std::max(std::abs(b[0] - a[0]), std::abs(b[1] - a[1])))) + 1;
        for (int s = 0; s <= steps; ++s) {
            double t = double(s) / steps;
            int cx = int(std::lround(a[0] + t * (b[0] - a[0]))),
                cy = int(std::lround(a[1] + t * (b[1] - a[1])));
            for (int dy = -thickness / 2; dy < thickness - thickness / 2; ++dy)
                for (int dx = -thickness / 2; dx < thickness - thickness / 2; ++dx) {
                    int x = cx + dx, y = cy + dy;
                    if (x < 0 || y < 0 || x >= img.width || y >= img.height) continue;
                    for (int c = 0; c < 3; ++c) img.at(x, y, c) = colour[c];
                }
        }
    }
}

}  // namespace litegraph::vision
