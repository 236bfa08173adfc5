// The steps of PaddleOCR's text system between and after its models, on
// pixels and tensors only (no model, no files): the detector's boxes in
// reading order (sorted_boxes), each box cut out by a perspective warp of its
// quadrilateral (get_rotate_crop_image), the recognizer's batched input
// (resize_norm_img: height H, width ceil(H w / h) up to the batch's widest
// ratio, zero-padded, [-1, 1], B, G, R) and the CTC greedy decode
// (CTCLabelDecode: argmax per step, repeats merged, blank dropped, the mean
// probability of the kept steps as the line's score) over a dictionary
// (BaseRecLabelDecode: one character a line, `use_space_char` appends " "),
// and the edit distance that measures a read line against the truth.
// Facts from PaddleOCR/tools/infer/predict_system.py, predict_rec.py,
// predict_cls.py and ppocr/postprocess/rec_postprocess.py.  The models and
// the whole pipeline: litegraph/ocr.hpp.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "litegraph/core/error.hpp"
#include "litegraph/core/tensor.hpp"
#include "litegraph/vision/image.hpp"
#include "litegraph/vision/preprocess.hpp"
#include "litegraph/vision/text_boxes.hpp"

namespace litegraph::vision::ocr {

/// The order PaddleOCR reads boxes in (sorted_boxes): by the top-left
/// corner's y, then x; then, pass by pass, a box whose top-left y is within
/// 10 pixels of the one before it and left of it moves before it.  Returns
/// the boxes' indices in that order.
inline std::vector<std::size_t> reading_order(const std::vector<quad>& boxes) {
    std::vector<std::size_t> idx(boxes.size());
    std::iota(idx.begin(), idx.end(), std::size_t{0});
    std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
        const point &pa = boxes[a][0], &pb = boxes[b][0];
        return pa[1] != pb[1] ? pa[1] < pb[1] : pa[0] < pb[0];
    });
    for (std::size_t i = 0; i + 1 < idx.size(); ++i)
        for (std::size_t j = i + 1; j-- > 0;) {
            const point &next = boxes[idx[j + 1]][0], &cur = boxes[idx[j]][0];
            if (std::abs(next[1] - cur[1]) < 10 && next[0] < cur[0])
                std::swap(idx[j], idx[j + 1]);
            else
                break;
        }
    return idx;
}

/// A 3 x 3 projective map (row-major, m[8] = 1): (x, y) -> ((m0 x + m1 y +
/// m2) / w, (m3 x + m4 y + m5) / w), w = m6 x + m7 y + 1.
using homography = std::array<double, 9>;

inline point apply(const homography& m, double x, double y) {
    double w = m[6] * x + m[7] * y + m[8];
    return {(m[0] * x + m[1] * y + m[2]) / w, (m[3] * x + m[4] * y + m[5]) / w};
}

/// The projective map taking from[i] to to[i] (OpenCV's
/// getPerspectiveTransform: the 8 x 8 system, solved by Gaussian elimination
/// with partial pivoting).  Throws usage_error when the points are
/// degenerate (three on a line).
inline homography perspective_transform(const quad& from, const quad& to) {
    double a[8][9] = {};
    for (int i = 0; i < 4; ++i) {
        double x = from[i][0], y = from[i][1], u = to[i][0], v = to[i][1];
        double r0[9] = {x, y, 1, 0, 0, 0, -x * u, -y * u, u};
        double r1[9] = {0, 0, 0, x, y, 1, -x * v, -y * v, v};
        std::copy(r0, r0 + 9, a[2 * i]);
        std::copy(r1, r1 + 9, a[2 * i + 1]);
    }
    for (int c = 0; c < 8; ++c) {
        int p = c;
        for (int r = c + 1; r < 8; ++r)
            if (std::abs(a[r][c]) > std::abs(a[p][c])) p = r;
        if (std::abs(a[p][c]) < 1e-12)
            throw usage_error("perspective_transform: the quadrilateral is degenerate");
        std::swap(a[p], a[c]);
        for (int r = 0; r < 8; ++r) {
            if (r == c) continue;
            double f = a[r][c] / a[c][c];
            for (int k = c; k < 9; ++k) a[r][k] -= f * a[c][k];
        }
    }
    homography m{};
    for (int i = 0; i < 8; ++i) m[i] = a[i][8] / a[i][i];
    m[8] = 1;
    return m;
}

/// Bicubic sample (OpenCV's kernel, A = -0.75) of channel c at (x, y), pixel
/// centres at integers, edges replicated (BORDER_REPLICATE).
inline float sample_cubic(const image& img, double x, double y, int c) {
    auto cubic = [](double t) {
        constexpr double a = -0.75;
        t = std::abs(t);
        if (t <= 1) return ((a + 2) * t - (a + 3)) * t * t + 1;
        if (t < 2) return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a;
        return 0.0;
    };
    // Far outside, every tap is the edge pixel: clamp first so the index
    // arithmetic stays in range.
    x = std::clamp(x, -2.0, img.width + 1.0);
    y = std::clamp(y, -2.0, img.height + 1.0);
    int x0 = int(std::floor(x)), y0 = int(std::floor(y));
    double fx = x - x0, fy = y - y0, v = 0;
    for (int j = -1; j <= 2; ++j) {
        int yy = std::clamp(y0 + j, 0, img.height - 1);
        double row = 0;
        for (int i = -1; i <= 2; ++i)
            row += img.at(std::clamp(x0 + i, 0, img.width - 1), yy, c) * cubic(fx - i);
        v += row * cubic(fy - j);
    }
    return float(v);
}

/// The line's pixels (get_rotate_crop_image): width the longer of the top and
/// bottom edges, height the longer of the left and right edges (both
/// truncated, at least 1), the quadrilateral warped onto that rectangle
/// (corner i onto (0, 0), (w, 0), (w, h), (0, h)) with bicubic sampling and
/// replicated edges; a crop at least 1.5 times as tall as wide is turned 90
/// degrees counter-clockwise (np.rot90) to read left to right.
inline image crop_quad(const image& img, const quad& q) {
    if (img.planar || img.width <= 0 || img.height <= 0)
        throw usage_error("crop_quad: needs an interleaved, non-empty image");
    auto dist = [](const point& a, const point& b) { return std::hypot(a[0] - b[0], a[1] - b[1]); };
    int w = std::max(1, int(std::max(dist(q[0], q[1]), dist(q[2], q[3]))));
    int h = std::max(1, int(std::max(dist(q[0], q[3]), dist(q[1], q[2]))));
    quad rect{point{0, 0}, point{double(w), 0}, point{double(w), double(h)}, point{0, double(h)}};
    image out(w, h, img.channels);
    out.order = img.order;
    out.integral = img.integral;
    homography to_src{};
    bool affine = false;
    try {
        to_src = perspective_transform(rect, q);
    } catch (const usage_error&) {
        affine = true;  // a degenerate quad (a line or a point): spread its corners
    }
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            point s =
                affine ? point{q[0][0] + (q[1][0] - q[0][0]) * x / w + (q[3][0] - q[0][0]) * y / h,
                               q[0][1] + (q[1][1] - q[0][1]) * x / w + (q[3][1] - q[0][1]) * y / h}
                       : apply(to_src, x, y);
            for (int c = 0; c < img.channels; ++c) {
                float v = sample_cubic(img, s[0], s[1], c);
                out.at(x, y, c) = img.integral ? std::clamp(std::round(v), 0.0f, 255.0f) : v;
            }
        }
    if (h >= 1.5 * w) {
        image r(h, w, img.channels);
        r.order = out.order;
        r.integral = out.integral;
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                for (int c = 0; c < img.channels; ++c) r.at(y, w - 1 - x, c) = out.at(x, y, c);
        return r;
    }
    return out;
}

/// The recognizer's (or the classifier's) input for a batch of crops
/// (resize_norm_img): each crop in B, G, R, resized (bilinear) to height `h`
/// and width min(W, ceil(h * width / height)), [-1, 1], zero-padded on the
/// right to W = max(min_width, int(h * the widest crop's width / height))
/// (with `fixed_width`, W = min_width: the classifier's 192).  [N, 3, h, W].
inline tensor batch_input(const std::vector<const image*>& crops, int h, int min_width,
                          bool fixed_width = false) {
    if (crops.empty()) throw usage_error("batch_input: no crops");
    if (h <= 0 || min_width <= 0)
        throw usage_error("batch_input: height and width must be positive");
    double ratio = double(min_width) / h;
    if (!fixed_width)
        for (const image* c : crops) ratio = std::max(ratio, double(c->width) / c->height);
    int w = fixed_width ? min_width : int(h * ratio);
    pipeline p;
    p.order = channel_order::bgr;
    p.steps.emplace_back(rec_resize_step{3, h, w});
    tensor out(dtype::f32, {std::int64_t(crops.size()), 3, h, w});
    float* dst = out.span<float>().data();
    for (const image* c : crops) {
        image rgb = *c;
        if (rgb.channels == 1) {  // grey: three equal planes
            image g(rgb.width, rgb.height, 3);
            g.order = rgb.order;
            for (int y = 0; y < rgb.height; ++y)
                for (int x = 0; x < rgb.width; ++x)
                    for (int k = 0; k < 3; ++k) g.at(x, y, k) = rgb.at(x, y, 0);
            rgb = std::move(g);
        }
        const auto in = preprocess(std::move(rgb), p);
        const auto v = in.input.span<float>();
        dst = std::copy(v.begin(), v.end(), dst);
    }
    return out;
}

/// The characters of a CTC recognizer: class 0 is the blank, class i >= 1 is
/// chars[i - 1].
struct dictionary {
    std::vector<std::string> chars;

    /// One character a line (PaddleOCR strips each line's \n and \r, nothing
    /// else: a line holding a space is the space); `use_space_char` appends " ".
    static dictionary from_text(std::string_view text, bool use_space_char) {
        dictionary d;
        std::size_t pos = 0;
        while (pos < text.size()) {
            std::size_t end = text.find('\n', pos);
            std::string_view l =
                text.substr(pos, end == std::string_view::npos ? text.size() - pos : end - pos);
            pos = end == std::string_view::npos ? text.size() : end + 1;
            while (!l.empty() && (l.back() == '\r' || l.back() == '\n')) l.remove_suffix(1);
            while (!l.empty() && (l.front() == '\r' || l.front() == '\n')) l.remove_prefix(1);
            d.chars.emplace_back(l);
        }
        if (use_space_char) d.chars.emplace_back(" ");
        return d;
    }

    /// The classes it decodes: the blank and one a character.
    std::size_t classes() const { return chars.size() + 1; }
};

/// Whether to append a space: PaddleOCR's `use_space_char` when the model's
/// config says it; otherwise what makes the dictionary fit the model's
/// `classes` (lines + 1: no; lines + 2: yes).  A dictionary that fits neither
/// is a usage_error naming both numbers.
inline bool space_char_for(std::size_t dict_lines, std::int64_t classes, int use_space_char = -1,
                           const std::string& what = "the dictionary") {
    auto fits = [&](bool space) {
        return classes <= 0 || std::int64_t(dict_lines + 1 + (space ? 1 : 0)) == classes;
    };
    if (use_space_char >= 0) {
        if (!fits(use_space_char != 0))
            throw usage_error(what + " has " + std::to_string(dict_lines) + " characters" +
                              (use_space_char ? " (+ a space)" : "") +
                              " but the recognizer outputs " + std::to_string(classes) +
                              " classes (the blank + one a character)");
        return use_space_char != 0;
    }
    if (fits(false)) return false;
    if (fits(true)) return true;
    throw usage_error(what + " has " + std::to_string(dict_lines) +
                      " characters but the recognizer outputs " + std::to_string(classes) +
                      " classes: it needs " + std::to_string(classes - 1) +
                      " (or one fewer, with use_space_char)");
}

/// A decoded line: its text and score (the mean probability of the kept
/// steps, 0 when none is kept), and the kept classes.
struct decoded {
    std::string text;
    double score = 0;
    std::vector<int> classes;
};

/// CTC greedy decode of one sequence of `steps` x `classes` probabilities
/// (row-major): the first maximum of each step, repeats merged, the blank (0)
/// dropped.  `dict` may be null (then `text` stays empty).
inline decoded ctc_greedy(const float* probs, std::int64_t steps, std::int64_t classes,
                          const dictionary* dict = nullptr) {
    if (dict && std::int64_t(dict->classes()) != classes)
        throw usage_error("ctc_greedy: the dictionary decodes " + std::to_string(dict->classes()) +
                          " classes, the output has " + std::to_string(classes));
    decoded d;
    double sum = 0;
    int prev = -1;
    for (std::int64_t t = 0; t < steps; ++t) {
        const float* row = probs + t * classes;
        int best = int(std::max_element(row, row + classes) - row);
        if (best != 0 && best != prev) {
            d.classes.push_back(best);
            sum += row[best];
            if (dict) d.text += dict->chars[std::size_t(best - 1)];
        }
        prev = best;
    }
    d.score = d.classes.empty() ? 0 : sum / double(d.classes.size());
    return d;
}

/// The edit (Levenshtein) distance between two sequences (strings, class
/// lists): insertions, deletions and substitutions of one element each; over
/// a reference line's length, its character error rate.
template <class A, class B>
std::size_t edit_distance(const A& a, const B& b) {
    std::vector<std::size_t> row(std::size(b) + 1);
    std::iota(row.begin(), row.end(), std::size_t{0});
    for (std::size_t i = 1; i <= std::size(a); ++i) {
        std::size_t diag = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= std::size(b); ++j) {
            const std::size_t up = row[j];
            row[j] =
                std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1] ? 1u : 0u)});
            diag = up;
        }
    }
    return row[std::size(b)];
}

}  // namespace litegraph::vision::ocr
