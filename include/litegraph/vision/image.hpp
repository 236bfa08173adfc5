// Images for the models' preprocessing: an interleaved (H x W x C) float
// image whose values are 0..255 while they are still 8-bit pixels, the
// resizes Paddle's deployment code uses (OpenCV's nearest, bilinear and bicubic
// mappings), and the 180-degree turn.  Decoding files is the caller's (the CLI
// and the examples use stb_image): this layer sees pixels only, no files, no
// protobuf, no YAML.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "litegraph/core/error.hpp"

namespace litegraph::vision {

/// Channel order of a colour image.
enum class channel_order { rgb, bgr };

/// H x W x C values, row-major and interleaved (HWC) until `to_chw` makes it
/// planar.  `integral`: the values are still 8-bit pixels (a resize rounds and
/// clamps them as OpenCV does on uint8 images).
struct image {
    int width = 0, height = 0, channels = 3;
    std::vector<float> data;
    channel_order order = channel_order::rgb;
    bool integral = true;
    bool planar = false;  // CHW instead of HWC

    image() = default;
    image(int w, int h, int c = 3)
        : width(w), height(h), channels(c), data(static_cast<std::size_t>(w) * h * c) {}

    /// From 8-bit interleaved pixels; 4 channels are RGBA, composited onto white.
    static image from_pixels(const std::uint8_t* px, int w, int h, int c,
                             channel_order order = channel_order::rgb) {
        if (w <= 0 || h <= 0 || c < 1 || c > 4)
            throw usage_error("an image must have a positive size and 1 to 4 channels, got " +
                              std::to_string(w) + "x" + std::to_string(h) + "x" +
                              std::to_string(c));
        int out_c = c == 4 ? 3 : c;
        image out(w, h, out_c);
        out.order = order;
        for (std::size_t i = 0; i < static_cast<std::size_t>(w) * h; ++i)
            for (int k = 0; k < out_c; ++k) {
                float v = px[i * c + k];
                if (c == 4)
                    v = std::round(v * (px[i * c + 3] / 255.0f) +
                                   255.0f * (1.0f - px[i * c + 3] / 255.0f));
                out.data[i * out_c + k] = v;
            }
        return out;
    }

    float& at(int x, int y, int c) { return data[index(x, y, c)]; }
    float at(int x, int y, int c) const { return data[index(x, y, c)]; }
    std::size_t index(int x, int y, int c) const {
        return planar ? (static_cast<std::size_t>(c) * height + y) * width + x
                      : (static_cast<std::size_t>(y) * width + x) * channels + c;
    }

    /// The same pixels with the red and blue channels swapped.
    void swap_red_blue() {
        if (channels < 3) return;
        for (int y = 0; y < height; ++y)
            for (int x = 0; x < width; ++x) std::swap(at(x, y, 0), at(x, y, 2));
        order = order == channel_order::rgb ? channel_order::bgr : channel_order::rgb;
    }
};

/// Interpolation, numbered as OpenCV numbers them (the configs' `interp`).
enum class interpolation { nearest = 0, linear = 1, cubic = 2 };

inline interpolation interpolation_from(int code) {
    if (code < 0 || code > 2)
        throw usage_error("interpolation " + std::to_string(code) +
                          " is not supported (0 nearest, 1 linear, 2 cubic)");
    return static_cast<interpolation>(code);
}

/// Bilinear sample of channel c at (x, y) (pixel centres at integers), edges
/// replicated.
inline float sample(const image& img, double x, double y, int c) {
    x = std::clamp(x, 0.0, img.width - 1.0);
    y = std::clamp(y, 0.0, img.height - 1.0);
    int x0 = static_cast<int>(x), y0 = static_cast<int>(y);
    int x1 = std::min(x0 + 1, img.width - 1), y1 = std::min(y0 + 1, img.height - 1);
    float fx = float(x - x0), fy = float(y - y0);
    float top = img.at(x0, y0, c) * (1 - fx) + img.at(x1, y0, c) * fx;
    float bottom = img.at(x0, y1, c) * (1 - fx) + img.at(x1, y1, c) * fx;
    return top * (1 - fy) + bottom * fy;
}

namespace detail {

inline float cubic_weight(float t) {  // OpenCV's bicubic kernel, A = -0.75
    constexpr float a = -0.75f;
    t = std::abs(t);
    if (t <= 1) return ((a + 2) * t - (a + 3)) * t * t + 1;
    if (t < 2) return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a;
    return 0;
}

}  // namespace detail

/// `src` resized to w x h.  The source position of destination pixel x is
/// (x + 0.5) / sx - 0.5 with sx = w / src.width, or the given scale factors fx,
/// fy when > 0 (as cv2.resize(img, None, fx=, fy=) maps them).  Edges are
/// replicated; an integral image is rounded and clamped to 0..255.
inline image resize(const image& src, int w, int h, interpolation interp = interpolation::linear,
                    double fx = 0, double fy = 0) {
    if (src.planar)
        throw usage_error("resize: the image is already planar (CHW); resize before Permute");
    if (w <= 0 || h <= 0 || w > 1 << 15 || h > 1 << 15)
        throw usage_error("resize: target size " + std::to_string(w) + "x" + std::to_string(h) +
                          " is out of range (1 to 32768)");
    image out(w, h, src.channels);
    out.order = src.order;
    out.integral = src.integral;
    double sx = fx > 0 ? 1.0 / fx : double(src.width) / w,
           sy = fy > 0 ? 1.0 / fy : double(src.height) / h;
    auto clamp_x = [&](int x) { return std::clamp(x, 0, src.width - 1); };
    auto clamp_y = [&](int y) { return std::clamp(y, 0, src.height - 1); };
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            double px = (x + 0.5) * sx - 0.5, py = (y + 0.5) * sy - 0.5;
            for (int c = 0; c < src.channels; ++c) {
                float v = 0;
                if (interp == interpolation::nearest) {
                    // OpenCV's INTER_NEAREST: floor(x * scale).
                    v = src.at(clamp_x(int(std::floor(x * sx))), clamp_y(int(std::floor(y * sy))),
                               c);
                } else if (interp == interpolation::linear) {
                    v = sample(src, px, py, c);
                } else {
                    int x0 = int(std::floor(px)), y0 = int(std::floor(py));
                    float ax = float(px - x0), ay = float(py - y0);
                    for (int j = -1; j <= 2; ++j) {
                        float row = 0;
                        for (int i = -1; i <= 2; ++i)
                            row += src.at(clamp_x(x0 + i), clamp_y(y0 + j), c) *
                                   detail::cubic_weight(ax - i);
                        v += row * detail::cubic_weight(ay - j);
                    }
                }
                out.at(x, y, c) = src.integral ? std::clamp(std::round(v), 0.0f, 255.0f) : v;
            }
        }
    return out;
}

/// The image turned by 180 degrees.
inline image rotate180(const image& src) {
    image out = src;
    for (int y = 0; y < src.height; ++y)
        for (int x = 0; x < src.width; ++x)
            for (int c = 0; c < src.channels; ++c)
                out.at(src.width - 1 - x, src.height - 1 - y, c) = src.at(x, y, c);
    return out;
}

}  // namespace litegraph::vision
