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
// resizes and normalisation are vision's preprocessing steps, the DB
// post-processing vision/text_boxes.hpp.
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
#include "litegraph/vision/draw.hpp"
#include "litegraph/vision/image.hpp"
#include "litegraph/vision/preprocess.hpp"
#include "litegraph/vision/text_boxes.hpp"

namespace text_lines {

using litegraph::vision::image;

using litegraph::vision::db_boxes;
using litegraph::vision::db_options;
using litegraph::vision::point;
using litegraph::vision::quad;

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

/// The detector and the classifier, loaded once, run on any number of images.
class finder {
public:
    explicit finder(options o) : o_(std::move(o)), det_(o_.det_model), cls_(o_.cls_model) {}

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
        auto outs = det_.run({{det_.input_names().at(0), std::move(in.input)}});
        const auto& out = outs.at(det_.output_names().at(0));
        if (out.shape().size() != 4 || out.shape()[2] != h || out.shape()[3] != w)
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
        auto outs =
            cls_.run({{cls_.input_names().at(0), litegraph::vision::preprocess(crop, p).input}});
        auto out = outs.at(cls_.output_names().at(0)).span<float>();
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
    litegraph::session det_, cls_;  // each loaded, fused and planned once
};

}  // namespace text_lines
