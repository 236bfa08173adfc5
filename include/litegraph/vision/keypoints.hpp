// Top-down keypoints: PaddleDetection's HRNetPostProcess (HRNet, PP-TinyPose
// exports: infer_cfg.yml `arch: HRNet` / `metric: KeyPointTopDown...`) as its
// deployment code (deploy/python/keypoint_infer.py) runs it on a whole
// picture preprocessed by TopDownEvalAffine:
//   1. per joint, the first maximum of the heatmap [K, h, w]; its value is the
//      score; a joint whose maximum is not above 0 sits at (0, 0);
//   2. without DARK: a quarter pixel towards the higher neighbour in x and in y
//      (get_final_preds), when 1 < x < w - 1 and 1 < y < h - 1;
//      with DARK (dark_postprocess; the deployment's default, `use_dark`): the
//      heatmaps blurred with OpenCV's 3x3 Gaussian ([1/4, 1/2, 1/4], zeros
//      outside) and rescaled to their maximum, floored at 1e-10, logged, and
//      the maximum moved by the Newton step -H^-1 g of the log heatmap
//      (central differences) when 1 < x < w - 2 and 1 < y < h - 2 and H is
//      regular;
//   3. back to the picture by the inverse of TopDownEvalAffine as
//      transform_preds does: centre round(W / 2), round(H / 2) (half to
//      even, as numpy), one scale W / w for both axes:
//      X = round(W / 2) + (x - w / 2) W / w, Y = round(H / 2) + (y - h / 2) W / w.
// litegraph then clamps the points to the picture's pixels ([0, W - 1] x
// [0, H - 1]): a maximum in the padding of a picture wider than the model's
// aspect ratio has no pixel (PaddleDetection leaves such points outside).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "litegraph/core/error.hpp"
#include "litegraph/vision/image.hpp"

namespace litegraph::vision {

/// One joint: where it is and its score (the heatmap's maximum).
struct keypoint {
    double x = 0, y = 0, score = 0;
};

/// The lines PaddleDetection's visualize_pose draws between the 17 COCO
/// keypoints (nose, eyes, ears, shoulders, elbows, wrists, hips, knees, ankles).
inline const std::vector<std::array<int, 2>>& coco_skeleton() {
    static const std::vector<std::array<int, 2>> edges{
        {0, 1},  {0, 2},  {1, 3},  {2, 4},   {3, 5},   {4, 6},   {5, 7},   {6, 8},  {7, 9},
        {8, 10}, {5, 11}, {6, 12}, {11, 13}, {12, 14}, {13, 15}, {14, 16}, {11, 12}};
    return edges;
}

namespace detail {

/// OpenCV's GaussianBlur of ksize 3, sigma 0 ([1/4, 1/2, 1/4] both ways) of a
/// map padded with zeros, rescaled so that its maximum is the map's: what
/// HRNetPostProcess.gaussian_blur makes of one joint.
inline std::vector<double> dark_blur(const float* hm, int h, int w) {
    auto at = [&](int x, int y) -> double {
        return x >= 0 && y >= 0 && x < w && y < h ? double(hm[std::size_t(y) * w + x]) : 0.0;
    };
    static constexpr double k[3] = {0.25, 0.5, 0.25};
    std::vector<double> out(std::size_t(w) * h);
    double origin_max = -INFINITY, blurred_max = -INFINITY;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            double s = 0;
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -1; dx <= 1; ++dx) s += k[dy + 1] * k[dx + 1] * at(x + dx, y + dy);
            out[std::size_t(y) * w + x] = s;
            origin_max = std::max(origin_max, at(x, y));
            blurred_max = std::max(blurred_max, s);
        }
    if (blurred_max != 0)  // an all-zero map stays as it is (numpy would make NaNs)
        for (auto& v : out) v *= origin_max / blurred_max;
    return out;
}

}  // namespace detail

/// The keypoints of one picture's heatmaps [K, h, w] (`heatmaps` holds
/// K * h * w floats, joint after joint) in heatmap pixels, before the
/// affine back: steps 1 and 2 of the file's comment.  Throws usage_error on
/// an empty map or a value that is not finite.
inline std::vector<keypoint> heatmap_keypoints(const float* heatmaps, int k, int h, int w,
                                               bool use_dark) {
    if (k <= 0 || h <= 0 || w <= 0)
        throw usage_error("keypoints: the heatmaps [" + std::to_string(k) + ", " +
                          std::to_string(h) + ", " + std::to_string(w) + "] are empty");
    const std::size_t plane = std::size_t(h) * w;
    std::vector<keypoint> out(static_cast<std::size_t>(k));
    for (int j = 0; j < k; ++j) {
        const float* hm = heatmaps + std::size_t(j) * plane;
        std::size_t best = 0;
        for (std::size_t i = 0; i < plane; ++i) {
            if (!std::isfinite(hm[i]))
                throw usage_error("keypoints: heatmap " + std::to_string(j) + " has a value " +
                                  "that is not finite (" + std::to_string(hm[i]) + ")");
            if (hm[i] > hm[best]) best = i;
        }
        keypoint& p = out[std::size_t(j)];
        p.score = hm[best];
        if (!(hm[best] > 0)) continue;  // get_max_preds' mask: (0, 0)
        const int px = int(best % std::size_t(w)), py = int(best / std::size_t(w));
        p.x = px, p.y = py;
        if (use_dark) {
            if (!(1 < px && px < w - 2 && 1 < py && py < h - 2)) continue;
            auto blurred = detail::dark_blur(hm, h, w);
            auto l = [&](int x, int y) {
                return std::log(std::max(blurred[std::size_t(y) * w + x], 1e-10));
            };
            const double dx = 0.5 * (l(px + 1, py) - l(px - 1, py)),
                         dy = 0.5 * (l(px, py + 1) - l(px, py - 1)),
                         dxx = 0.25 * (l(px + 2, py) - 2 * l(px, py) + l(px - 2, py)),
                         dxy = 0.25 * (l(px + 1, py + 1) - l(px + 1, py - 1) - l(px - 1, py + 1) +
                                       l(px - 1, py - 1)),
                         dyy = 0.25 * (l(px, py + 2) - 2 * l(px, py) + l(px, py - 2));
            const double det = dxx * dyy - dxy * dxy;
            if (det != 0) {
                // -H^-1 g with H^-1 = [[dyy, -dxy], [-dxy, dxx]] / det.
                p.x -= (dyy * dx - dxy * dy) / det;
                p.y -= (-dxy * dx + dxx * dy) / det;
            }
        } else if (1 < px && px < w - 1 && 1 < py && py < h - 1) {
            auto v = [&](int x, int y) { return hm[std::size_t(y) * w + x]; };
            auto sign = [](float d) { return d > 0 ? 1.0 : d < 0 ? -1.0 : 0.0; };
            p.x += 0.25 * sign(v(px + 1, py) - v(px - 1, py));
            p.y += 0.25 * sign(v(px, py + 1) - v(px, py - 1));
        }
    }
    return out;
}

/// A heatmap point (x, y) of a map w x h, back in a picture of width x
/// height that TopDownEvalAffine warped whole (step 3 of the file's comment).
inline std::array<double, 2> heatmap_to_picture(double x, double y, int w, int h, int width,
                                                int height) {
    const double s = double(width) / w;
    return {std::nearbyint(width / 2.0) + (x - w / 2.0) * s,
            std::nearbyint(height / 2.0) + (y - h / 2.0) * s};
}

/// The keypoints of one picture (width x height) from its heatmaps [K, h, w]:
/// heatmap_keypoints, mapped back by heatmap_to_picture and clamped to the
/// picture's pixels.
inline std::vector<keypoint> top_down_keypoints(const float* heatmaps, int k, int h, int w,
                                                int width, int height, bool use_dark) {
    if (width <= 0 || height <= 0)
        throw usage_error("keypoints: the picture is empty (" + std::to_string(width) + "x" +
                          std::to_string(height) + ")");
    auto points = heatmap_keypoints(heatmaps, k, h, w, use_dark);
    for (auto& p : points) {
        auto [x, y] = heatmap_to_picture(p.x, p.y, w, h, width, height);
        p.x = std::clamp(x, 0.0, width - 1.0);
        p.y = std::clamp(y, 0.0, height - 1.0);
    }
    return points;
}

/// Throws usage_error unless every joint `skeleton` names is below k.
inline void check_skeleton(const std::vector<std::array<int, 2>>& skeleton, int k) {
    for (auto& e : skeleton)
        for (int j : e)
            if (j < 0 || j >= k)
                throw usage_error("keypoints: the skeleton's line [" + std::to_string(e[0]) + ", " +
                                  std::to_string(e[1]) + "] names joint " + std::to_string(j) +
                                  ", the model gives " + std::to_string(k) + " (0 to " +
                                  std::to_string(k - 1) + ")");
}

/// Draws the lines of `skeleton` between the points, `thickness` pixels wide,
/// then each point as a disc of `radius` pixels in a black rim (colours in
/// the image's channel order; a joint's colour from its index).
inline void draw_keypoints(image& img, const std::vector<keypoint>& points,
                           const std::vector<std::array<int, 2>>& skeleton, int radius = 3,
                           int thickness = 2) {
    check_skeleton(skeleton, static_cast<int>(points.size()));
    auto put = [&](int x, int y, const std::array<std::uint8_t, 3>& c) {
        if (x < 0 || y < 0 || x >= img.width || y >= img.height) return;
        for (int ch = 0; ch < 3 && ch < img.channels; ++ch) img.at(x, y, ch) = c[ch];
    };
    auto colour = [](std::size_t j) {
        static constexpr std::array<std::array<std::uint8_t, 3>, 8> palette{{{255, 0, 0},
                                                                             {255, 170, 0},
                                                                             {170, 255, 0},
                                                                             {0, 255, 85},
                                                                             {0, 255, 255},
                                                                             {0, 85, 255},
                                                                             {170, 0, 255},
                                                                             {255, 0, 170}}};
        return palette[j % palette.size()];
    };
    for (auto& e : skeleton) {
        const auto &a = points[std::size_t(e[0])], &b = points[std::size_t(e[1])];
        const int steps = int(std::ceil(std::max(std::abs(b.x - a.x), std::abs(b.y - a.y)))) + 1;
        for (int s = 0; s <= steps; ++s) {
            const double t = double(s) / steps;
            const int cx = int(std::lround(a.x + t * (b.x - a.x))),
                      cy = int(std::lround(a.y + t * (b.y - a.y)));
            for (int dy = -thickness / 2; dy < thickness - thickness / 2; ++dy)
                for (int dx = -thickness / 2; dx < thickness - thickness / 2; ++dx)
                    put(cx + dx, cy + dy, {230, 230, 230});
        }
    }
    for (std::size_t j = 0; j < points.size(); ++j) {
        const int cx = int(std::lround(points[j].x)), cy = int(std::lround(points[j].y));
        const int ring = radius + 1;  // a black rim: the point stands out on any picture
        for (int dy = -ring; dy <= ring; ++dy)
            for (int dx = -ring; dx <= ring; ++dx) {
                const int d2 = dx * dx + dy * dy;
                if (d2 <= radius * radius)
                    put(cx + dx, cy + dy, colour(j));
                else if (d2 <= ring * ring)
                    put(cx + dx, cy + dy, {0, 0, 0});
            }
    }
}

}  // namespace litegraph::vision
