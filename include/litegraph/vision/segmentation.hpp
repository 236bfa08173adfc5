// Semantic segmentation post-processing, as PaddleSeg's deployment does it:
// the label map of one image from the model's output (the exported argmax's
// labels, int32 / int64 [N, H, W] or [N, 1, H, W]; or logits / probabilities
// [N, C, H, W] without it, argmax over the channels, the first maximum
// winning as numpy's does), taken back to the picture (the content region the
// preprocessing's resize left at the top left of the input, then a nearest
// resize to the picture's size, as PaddleSeg's reverse_transform undoes
// Padding and Resize), the pixels of each label, and PaddleSeg's colour
// palette (get_color_map_list) for an overlay.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "litegraph/core/error.hpp"
#include "litegraph/core/tensor.hpp"
#include "litegraph/vision/image.hpp"

namespace litegraph::vision {

/// Labels of width x height pixels, row-major.
struct label_map {
    int width = 0, height = 0;
    std::vector<std::int32_t> labels;
    std::int32_t at(int x, int y) const {
        return labels[static_cast<std::size_t>(y) * static_cast<std::size_t>(width) +
                      static_cast<std::size_t>(x)];
    }
};

/// Whether `out` is a segmentation output: labels (int32 / int64, [N, H, W]
/// or [N, 1, H, W]) or scores (float [N, C, H, W]).
inline bool is_segmentation_output(const tensor_ref& out) {
    if (out.type == dtype::i32 || out.type == dtype::i64)
        return out.shape.size() == 3 || (out.shape.size() == 4 && out.shape[1] == 1);
    return out.type == dtype::f32 && out.shape.size() == 4 && out.shape[1] >= 1;
}

/// The label map of image `index` of a segmentation output, at the output's
/// resolution.
inline label_map labels_of(const tensor_ref& out, std::size_t index) {
    if (!is_segmentation_output(out))
        throw usage_error("segmentation: the model's output " + to_string(out.shape) + " " +
                          std::string(name_of(out.type)) +
                          " is neither labels (int32 / int64 [N, H, W] or [N, 1, H, W]) nor "
                          "scores (float [N, C, H, W])");
    const auto& s = out.shape;
    if (index >= static_cast<std::size_t>(s[0]))
        throw usage_error("segmentation: image " + std::to_string(index) + " of a batch of " +
                          std::to_string(s[0]));
    label_map m;
    m.height = static_cast<int>(s[s.size() - 2]);
    m.width = static_cast<int>(s[s.size() - 1]);
    const std::size_t plane =
        static_cast<std::size_t>(m.width) * static_cast<std::size_t>(m.height);
    m.labels.resize(plane);
    if (out.type == dtype::i32 || out.type == dtype::i64) {
        const std::int32_t* p32 =
            out.type == dtype::i32 ? out.span<std::int32_t>().data() + index * plane : nullptr;
        const std::int64_t* p64 =
            out.type == dtype::i64 ? out.span<std::int64_t>().data() + index * plane : nullptr;
        for (std::size_t i = 0; i < plane; ++i) {
            const std::int64_t v = p32 ? std::int64_t(p32[i]) : p64[i];
            if (v < 0 || v > INT32_MAX)
                throw usage_error("segmentation: label " + std::to_string(v) +
                                  " in the model's output is out of range");
            m.labels[i] = static_cast<std::int32_t>(v);
        }
        return m;
    }
    const auto classes = static_cast<std::size_t>(s[1]);
    const float* p = out.span<float>().data() + index * classes * plane;
    std::vector<float> best(p, p + plane);
    for (std::size_t c = 1; c < classes; ++c)
        for (std::size_t i = 0; i < plane; ++i)
            if (p[c * plane + i] > best[i]) best[i] = p[c * plane + i], m.labels[i] = int(c);
    return m;
}

/// `m` taken back to a picture of width x height: the top-left content_w x
/// content_h of the model input (input_w x input_h: the resized picture
/// before padding; a map of another size than the input is first scaled to
/// it), resized to the picture with nearest neighbours (OpenCV's and Paddle's
/// nearest: source = floor(destination * in / out)).
inline label_map to_picture(const label_map& m, int input_w, int input_h, int content_w,
                            int content_h, int width, int height) {
    if (m.width <= 0 || m.height <= 0 || input_w <= 0 || input_h <= 0 || width <= 0 || height <= 0)
        throw usage_error("segmentation: an empty label map or picture");
    content_w = std::clamp(content_w, 1, input_w), content_h = std::clamp(content_h, 1, input_h);
    // Label-map pixels per input pixel, then the content region in map pixels.
    const double kx = double(m.width) / input_w, ky = double(m.height) / input_h;
    const double cw = content_w * kx, ch = content_h * ky;
    label_map r;
    r.width = width, r.height = height;
    r.labels.resize(static_cast<std::size_t>(width) * static_cast<std::size_t>(height));
    for (int y = 0; y < height; ++y) {
        const int sy = std::min(int(double(y) * ch / height), m.height - 1);
        for (int x = 0; x < width; ++x) {
            const int sx = std::min(int(double(x) * cw / width), m.width - 1);
            r.labels[static_cast<std::size_t>(y) * static_cast<std::size_t>(width) +
                     static_cast<std::size_t>(x)] = m.at(sx, sy);
        }
    }
    return r;
}

/// Pixels per label.
inline std::map<std::int32_t, std::int64_t> pixel_counts(const label_map& m) {
    std::map<std::int32_t, std::int64_t> counts;
    for (auto l : m.labels) ++counts[l];
    return counts;
}

/// PaddleSeg's colour of `label` (get_color_map_list: label k gets the VOC
/// palette's colour k + 1, the bits of k + 1 spread over R, G, B from the
/// high bit down), R, G, B.
inline std::array<std::uint8_t, 3> label_colour(std::int32_t label) {
    std::array<std::uint8_t, 3> c{0, 0, 0};
    std::uint32_t lab = static_cast<std::uint32_t>(label) + 1;
    for (int j = 0; lab && j < 8; ++j, lab >>= 3)
        for (int k = 0; k < 3; ++k)
            c[static_cast<std::size_t>(k)] |=
                static_cast<std::uint8_t>(((lab >> k) & 1) << (7 - j));
    return c;
}

/// `img` (RGB, the picture's size) blended with the colours of `m`'s labels:
/// picture * weight + colour * (1 - weight), as PaddleSeg's visualize does
/// with weight 0.6.
inline image overlay(image img, const label_map& m, float weight = 0.6f) {
    if (img.width != m.width || img.height != m.height || img.planar || img.channels != 3)
        throw usage_error("segmentation overlay: the label map is " + std::to_string(m.width) +
                          "x" + std::to_string(m.height) + ", the picture " +
                          std::to_string(img.width) + "x" + std::to_string(img.height));
    const bool bgr = img.order == channel_order::bgr;
    for (int y = 0; y < img.height; ++y)
        for (int x = 0; x < img.width; ++x) {
            const auto c = label_colour(m.at(x, y));
            for (int k = 0; k < 3; ++k) {
                float& v = img.at(x, y, k);
                v = std::round(v * weight +
                               c[static_cast<std::size_t>(bgr ? 2 - k : k)] * (1.0f - weight));
            }
        }
    return img;
}

}  // namespace litegraph::vision
