// Text boxes from a text detector's probability map: DB post-processing as
// PaddleOCR's DBPostProcess does it (threshold, connected regions, minimum-area
// rotated boxes, box score, unclip by area * ratio / perimeter), and the
// geometry it needs (convex hull, rotating calipers).  Used by `litegraph run
// --draw` on text detectors and by examples/text_lines.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

namespace litegraph::vision {

using point = std::array<double, 2>;
using quad = std::array<point, 4>;  // top-left, top-right, bottom-right, bottom-left

/// Convex hull (Andrew's monotone chain), counter-clockwise, no repeats.
inline std::vector<point> convex_hull(std::vector<point> pts) {
    std::sort(pts.begin(), pts.end());
    pts.erase(std::unique(pts.begin(), pts.end()), pts.end());
    if (pts.size() < 3) return pts;
    auto cross = [](const point& o, const point& a, const point& b) {
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
    };
    std::vector<point> hull(2 * pts.size());
    std::size_t k = 0;
    for (std::size_t i = 0; i < pts.size(); ++i) {
        while (k >= 2 && cross(hull[k - 2], hull[k - 1], pts[i]) <= 0) --k;
        hull[k++] = pts[i];
    }
    for (std::size_t i = pts.size() - 1, t = k + 1; i > 0; --i) {
        while (k >= t && cross(hull[k - 2], hull[k - 1], pts[i - 1]) <= 0) --k;
        hull[k++] = pts[i - 1];
    }
    hull.resize(k - 1);
    return hull;
}

/// A rotated rectangle: centre, unit axis u (and its normal), half extents.
struct rotated_rect {
    point centre{};
    point u{1, 0};
    double half_w = 0, half_h = 0;

    double short_side() const { return 2 * std::min(half_w, half_h); }

    /// Its corners ordered as PaddleOCR's get_mini_boxes orders them: of the two
    /// leftmost, the upper is top-left; of the two rightmost, the upper is top-right.
    quad corners() const {
        point v{-u[1], u[0]};
        std::array<point, 4> p;
        int i = 0;
        for (double a : {-1.0, 1.0})
            for (double b : {-1.0, 1.0})
                p[i++] = {centre[0] + a * half_w * u[0] + b * half_h * v[0],
                          centre[1] + a * half_w * u[1] + b * half_h * v[1]};
        std::sort(p.begin(), p.end(), [](const point& a, const point& b) { return a[0] < b[0]; });
        point tl = p[0][1] <= p[1][1] ? p[0] : p[1], bl = p[0][1] <= p[1][1] ? p[1] : p[0];
        point tr = p[2][1] <= p[3][1] ? p[2] : p[3], br = p[2][1] <= p[3][1] ? p[3] : p[2];
        return {tl, tr, br, bl};
    }
};

/// The smallest-area rectangle around a point set (rotating calipers over the
/// convex hull's edges).
inline rotated_rect min_area_rect(const std::vector<point>& pts) {
    auto hull = convex_hull(pts);
    rotated_rect best;
    if (hull.empty()) return best;
    if (hull.size() == 1) {
        best.centre = hull[0];
        return best;
    }
    double best_area = -1;
    for (std::size_t i = 0; i < hull.size(); ++i) {
        const point& a = hull[i];
        const point& b = hull[(i + 1) % hull.size()];
        double len = std::hypot(b[0] - a[0], b[1] - a[1]);
        if (len == 0) continue;
        point u{(b[0] - a[0]) / len, (b[1] - a[1]) / len}, v{-u[1], u[0]};
        double lo_u = 1e300, hi_u = -1e300, lo_v = 1e300, hi_v = -1e300;
        for (const point& p : hull) {
            double pu = p[0] * u[0] + p[1] * u[1], pv = p[0] * v[0] + p[1] * v[1];
            lo_u = std::min(lo_u, pu), hi_u = std::max(hi_u, pu);
            lo_v = std::min(lo_v, pv), hi_v = std::max(hi_v, pv);
        }
        double area = (hi_u - lo_u) * (hi_v - lo_v);
        if (best_area < 0 || area < best_area) {
            best_area = area;
            double cu = (lo_u + hi_u) / 2, cv = (lo_v + hi_v) / 2;
            best.centre = {cu * u[0] + cv * v[0], cu * u[1] + cv * v[1]};
            best.u = u;
            best.half_w = (hi_u - lo_u) / 2;
            best.half_h = (hi_v - lo_v) / 2;
        }
    }
    return best;
}

/// Whether (x, y) lies inside the convex quadrilateral q (either orientation).
inline bool inside(const quad& q, double x, double y) {
    int pos = 0, neg = 0;
    for (int i = 0; i < 4; ++i) {
        const point& a = q[i];
        const point& b = q[(i + 1) % 4];
        double c = (b[0] - a[0]) * (y - a[1]) - (b[1] - a[1]) * (x - a[0]);
        pos += c > 0, neg += c < 0;
    }
    return pos == 0 || neg == 0;
}

struct db_options {
    double thresh = 0.3;        // binarisation of the probability map
    double box_thresh = 0.6;    // a region's mean probability must reach this
    double unclip_ratio = 1.5;  // the region grows by area * ratio / perimeter
    int min_size = 3;           // shorter side of a region's box, in map pixels
    int max_candidates = 1000;
};

struct scored_box {
    quad box;  // in map pixels
    double score = 0;
};

/// DB post-processing of one probability map (h x w, row-major), as
/// PaddleOCR's DBPostProcess does it, with 8-connected regions.
inline std::vector<scored_box> db_boxes(const float* prob, int w, int h, const db_options& o = {}) {
    std::vector<int> label(static_cast<std::size_t>(w) * h, -1);
    std::vector<scored_box> out;
    std::vector<int> stack;
    int regions = 0;
    for (int start = 0; start < w * h && regions < o.max_candidates; ++start) {
        if (prob[start] <= o.thresh || label[start] >= 0) continue;
        // The region's pixels, as (row -> leftmost, rightmost) extents.
        std::vector<point> extent;
        label[start] = regions;
        stack.assign(1, start);
        while (!stack.empty()) {
            int i = stack.back();
            stack.pop_back();
            int x = i % w, y = i / w;
            extent.push_back({double(x), double(y)});
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -1; dx <= 1; ++dx) {
                    int nx = x + dx, ny = y + dy;
                    if (nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
                    int j = ny * w + nx;
                    if (prob[j] > o.thresh && label[j] < 0) {
                        label[j] = regions;
                        stack.push_back(j);
                    }
                }
        }
        ++regions;
        auto rect = min_area_rect(extent);
        if (rect.short_side() < o.min_size) continue;
        quad q = rect.corners();
        // Box score: the mean probability inside the box (over the map, not
        // the binarised region), as box_score_fast computes it.
        double xmin = w, xmax = 0, ymin = h, ymax = 0;
        for (auto& p : q) {
            xmin = std::min(xmin, p[0]), xmax = std::max(xmax, p[0]);
            ymin = std::min(ymin, p[1]), ymax = std::max(ymax, p[1]);
        }
        int x0 = std::clamp(int(std::floor(xmin)), 0, w - 1),
            x1 = std::clamp(int(std::ceil(xmax)), 0, w - 1);
        int y0 = std::clamp(int(std::floor(ymin)), 0, h - 1),
            y1 = std::clamp(int(std::ceil(ymax)), 0, h - 1);
        double sum = 0;
        int n = 0;
        for (int y = y0; y <= y1; ++y)
            for (int x = x0; x <= x1; ++x)
                if (inside(q, x, y)) sum += prob[y * w + x], ++n;
        double score = n ? sum / n : 0;
        if (score < o.box_thresh) continue;
        // Unclip: offsetting the rectangle by d (round joins) and taking the
        // minimum-area box again gives the rectangle grown by d on each side.
        double area = 4 * rect.half_w * rect.half_h, perimeter = 4 * (rect.half_w + rect.half_h);
        double d = perimeter > 0 ? area * o.unclip_ratio / perimeter : 0;
        rect.half_w += d, rect.half_h += d;
        if (rect.short_side() < o.min_size + 2) continue;
        out.push_back({rect.corners(), score});
    }
    return out;
}

}  // namespace litegraph::vision
