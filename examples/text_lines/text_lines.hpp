// text_lines: PP-OCR text-line finding as PaddleOCR's inference does it, on
// litegraph.  An image goes through the PP-OCRv3 detector (resized so that
// its longer side is at most `limit_side` and both sides are multiples of 32,
// normalised with the ImageNet mean and deviation), the probability map
// through DB post-processing (threshold, connected regions, minimum-area
// rotated boxes, box score, unclip by area * ratio / perimeter), each line is
// cropped and rectified, and ppocr_mobile_v2.0_cls says whether it is upside
// down (then it is turned by 180 degrees).  A recogniser would take the
// rectified, upright crops of `line::crop` next: that slot is `find_lines`'s
// result, nothing else changes.
//
// Images are litegraph::vision images (RGB as decoded; the models' pipelines
// turn them to B, G, R, the order PaddleOCR's models were trained on); the
// resizes and normalisation are vision's preprocessing steps.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "litegraph/paddle.hpp"
#include "litegraph/passes/pipeline.hpp"
#include "litegraph/runtime/program.hpp"
#include "litegraph/vision/image.hpp"
#include "litegraph/vision/preprocess.hpp"

namespace text_lines {

using litegraph::vision::image;

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

/// A found line, in the input image's pixel coordinates.
struct line {
    quad box;
    double score = 0;        // the detector's box score
    int angle = 0;           // 0 or 180: how the line was turned to read upright
    double angle_score = 0;  // the classifier's probability of that angle
    image crop;              // rectified and upright (the recogniser's input)
};

/// The line's pixels: the quadrilateral mapped onto a w x h rectangle
/// (PaddleOCR's get_rotate_crop_image; tall crops are turned by 90 degrees).
inline image crop_line(const image& img, const quad& q) {
    auto dist = [](const point& a, const point& b) { return std::hypot(a[0] - b[0], a[1] - b[1]); };
    int w = std::max(1, int(std::max(dist(q[0], q[1]), dist(q[2], q[3]))));
    int h = std::max(1, int(std::max(dist(q[0], q[3]), dist(q[1], q[2]))));
    image out(w, h, img.channels);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            // Bilinear interpolation of the four corners (exact for a rectangle).
            double u = (x + 0.5) / w, v = (y + 0.5) / h;
            double sx =
                (1 - v) * ((1 - u) * q[0][0] + u * q[1][0]) + v * ((1 - u) * q[3][0] + u * q[2][0]);
            double sy =
                (1 - v) * ((1 - u) * q[0][1] + u * q[1][1]) + v * ((1 - u) * q[3][1] + u * q[2][1]);
            for (int c = 0; c < img.channels; ++c)
                out.at(x, y, c) = std::round(litegraph::vision::sample(img, sx - 0.5, sy - 0.5, c));
        }
    out.order = img.order;
    if (h >= 1.5 * w) {  // a vertical line: turn it to read left to right
        image r(h, w, img.channels);
        r.order = img.order;
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                for (int c = 0; c < img.channels; ++c) r.at(y, w - 1 - x, c) = out.at(x, y, c);
        return r;
    }
    return out;
}

struct options {
    std::filesystem::path det_model, cls_model;
    int limit_side = 960;  // the detector's input: longer side at most this
    db_options db;
    double cls_thresh = 0.9;  // turn a line only when the classifier is this sure
};

/// Loads a model and runs the fusion passes on it.
inline litegraph::runtime::program load_program(const std::filesystem::path& dir) {
    auto m = litegraph::paddle::load(dir);
    litegraph::passes::run_passes(m.graph);
    return litegraph::runtime::program(std::move(m.graph));
}

/// The detector and the classifier, loaded once, run on any number of images.
class finder {
public:
    explicit finder(options o)
        : o_(std::move(o)), det_(load_program(o_.det_model)), cls_(load_program(o_.cls_model)) {}

    /// The detector's preprocessing: DetResizeForTest (longer side at most
    /// limit_side, sides rounded to multiples of 32), the ImageNet
    /// normalisation, planar, in B, G, R.
    litegraph::vision::pipeline det_pipeline() const {
        litegraph::vision::pipeline p;
        p.order = litegraph::vision::channel_order::bgr;
        litegraph::vision::det_resize_step r;
        r.limit_side_len = o_.limit_side, r.limit_type = "max";
        p.steps.emplace_back(r);
        p.steps.emplace_back(litegraph::vision::normalize_step{});
        p.steps.emplace_back(litegraph::vision::permute_step{});
        return p;
    }

    /// The detector's probability map for `img`, and its width and height.
    std::vector<float> probability_map(const image& img, int& mw, int& mh) {
        auto in = litegraph::vision::preprocess(img, det_pipeline());
        auto h = in.input.shape()[2], w = in.input.shape()[3];
        det_.set_input(0, std::move(in.input));
        det_.run();
        auto out = det_.output(0);
        if (out.shape.size() != 4 || out.shape[2] != h || out.shape[3] != w)
            throw std::runtime_error("the detector's output is not a 1x1x" + std::to_string(h) +
                                     "x" + std::to_string(w) + " map");
        auto s = out.span<float>();
        mw = int(w), mh = int(h);
        return {s.begin(), s.end()};
    }

    /// The classifier's verdict on a rectified line: {angle, probability}.
    /// Its preprocessing is PaddleOCR's for the classifier: height 48, width
    /// by the ratio up to 192, [-1, 1], zero-padded, in B, G, R.
    std::pair<int, double> orientation(const image& crop) {
        litegraph::vision::pipeline p;
        p.order = litegraph::vision::channel_order::bgr;
        p.steps.emplace_back(litegraph::vision::rec_resize_step{3, 48, 192});
        cls_.set_input(0, litegraph::vision::preprocess(crop, p).input);
        cls_.run();
        auto out = cls_.output(0).span<float>();
        if (out.size() != 2) throw std::runtime_error("the classifier does not output two classes");
        return out[1] > out[0] ? std::pair{180, double(out[1])} : std::pair{0, double(out[0])};
    }

    /// Every line of `img`, top to bottom (then left to right).
    std::vector<line> find_lines(const image& img) {
        int mw = 0, mh = 0;
        auto map = probability_map(img, mw, mh);
        auto boxes = db_boxes(map.data(), mw, mh, o_.db);
        std::vector<line> lines;
        for (auto& b : boxes) {
            line l;
            for (int i = 0; i < 4; ++i) {
                l.box[i][0] =
                    std::clamp(std::round(b.box[i][0] / mw * img.width), 0.0, double(img.width));
                l.box[i][1] =
                    std::clamp(std::round(b.box[i][1] / mh * img.height), 0.0, double(img.height));
            }
            auto dist = [](const point& a, const point& c) {
                return std::hypot(a[0] - c[0], a[1] - c[1]);
            };
            if (dist(l.box[0], l.box[1]) <= 3 || dist(l.box[0], l.box[3]) <= 3) continue;
            l.score = b.score;
            lines.push_back(std::move(l));
        }
        // Top to bottom; lines within 10 pixels of height left to right.
        std::sort(lines.begin(), lines.end(), [](const line& a, const line& b) {
            return a.box[0][1] != b.box[0][1] ? a.box[0][1] < b.box[0][1]
                                              : a.box[0][0] < b.box[0][0];
        });
        for (std::size_t i = 0; i + 1 < lines.size(); ++i)
            for (std::size_t j = i + 1; j-- > 0;) {
                if (std::abs(lines[j + 1].box[0][1] - lines[j].box[0][1]) < 10 &&
                    lines[j + 1].box[0][0] < lines[j].box[0][0])
                    std::swap(lines[j], lines[j + 1]);
                else
                    break;
            }
        for (auto& l : lines) {
            l.crop = crop_line(img, l.box);
            auto [angle, p] = orientation(l.crop);
            l.angle = angle == 180 && p >= o_.cls_thresh ? 180 : 0;
            l.angle_score = l.angle == angle ? p : 1 - p;
            if (l.angle == 180) l.crop = litegraph::vision::rotate180(l.crop);
        }
        return lines;
    }

private:
    options o_;
    litegraph::runtime::program det_, cls_;
};

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

}  // namespace text_lines
