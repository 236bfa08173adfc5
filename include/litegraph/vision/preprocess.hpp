// Preprocessing as data: the list of steps a Paddle export's config names
// (PaddleDetection's infer_cfg.yml `Preprocess`, PaddleOCR / PaddleX / PaddleClas
// inference.yml `PreProcess.transform_ops`), applied to an image to give the
// model's input tensor and the feeds a detector needs besides it (`im_shape`,
// `scale_factor`, from what the resize did).  Each step does what the
// exporter's deployment code does; vision/config.hpp reads the steps from a
// parsed config.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <variant>
#include <vector>

#include "litegraph/core/error.hpp"
#include "litegraph/core/tensor.hpp"
#include "litegraph/vision/image.hpp"

namespace litegraph::vision {

/// PaddleDetection `Resize`: to target_size [h, w]; keep_ratio scales by
/// min(target_min / image_min, target_max / image_max) as its generate_scale does.
struct resize_step {
    int target_h = 0, target_w = 0;
    bool keep_ratio = true;
    interpolation interp = interpolation::linear;
};
/// PaddleClas `ResizeImage`: to size [w, h], or the shorter side to
/// resize_short (PaddleSeg's ResizeByShort); PaddleSeg's ResizeByLong: the
/// longer side to resize_long.
struct resize_image_step {
    int w = 0, h = 0, resize_short = 0, resize_long = 0;
    interpolation interp = interpolation::linear;
};
/// PaddleOCR `DetResizeForTest`: limit_side_len with limit_type max / min /
/// resize_long, sides rounded to multiples of 32; or resize_long (type 2: sides
/// rounded up to multiples of 128); or a fixed image_shape [h, w].
struct det_resize_step {
    enum class kind { limit, resize_long, fixed } k = kind::limit;
    int limit_side_len = 736;
    std::string limit_type = "min";
    int resize_long = 960;
    int fixed_h = 0, fixed_w = 0;
};
/// PaddleOCR `RecResizeImg`: height to image_shape's, width by the ratio up to
/// its width, normalised to [-1, 1], zero-padded on the right (planar).
struct rec_resize_step {
    int c = 3, h = 48, w = 320;
};
/// PaddleClas `CropImage`: the centre size x size (or [w, h]) pixels.
struct crop_step {
    int w = 0, h = 0;
};
/// `NormalizeImage`: v * scale (1/255 when is_scale), minus mean, over std.
struct normalize_step {
    float scale = 1.0f / 255.0f;
    std::vector<float> mean{0.485f, 0.456f, 0.406f}, std{0.229f, 0.224f, 0.225f};
};
/// `Permute` / `ToCHWImage`: interleaved to planar.
struct permute_step {};
/// PaddleDetection `PadStride`: zeros right and below up to multiples of stride.
struct pad_stride_step {
    int stride = 32;
};
/// PaddleDetection `Pad`: zeros (or fill) right and below up to size [h, w].
struct pad_step {
    int h = 0, w = 0;
    std::vector<float> fill{127.5f, 127.5f, 127.5f};
};
/// `DecodeImage`: the channel order the model expects.
struct channel_order_step {
    channel_order order = channel_order::bgr;
};

/// PaddleDetection `TopDownEvalAffine` (also read as `TopDownAffine`), for
/// the whole image as its deployment code runs it (centre = the image's centre,
/// scale = its size, no rotation): warped to trainsize [w, h] bilinearly,
/// pixels outside the image 0.  Default: one scale, trainsize_w / image
/// width, about the centres (the height keeps the aspect ratio, cropped or
/// padded); `use_udp` (unbiased data processing): x by (trainsize_w - 1) /
/// width and y by (trainsize_h - 1) / height from the top-left corner.
struct top_down_affine_step {
    int w = 0, h = 0;
    bool use_udp = false;
};

using step = std::variant<resize_step, resize_image_step, det_resize_step, rec_resize_step,
                          crop_step, normalize_step, permute_step, pad_stride_step, pad_step,
                          channel_order_step, top_down_affine_step>;

/// The steps of one model's preprocessing; `order` is the channel order its
/// training used (PaddleDetection's deployment decodes to RGB, PaddleOCR's
/// and PaddleClas's to BGR).
struct pipeline {
    std::vector<step> steps;
    channel_order order = channel_order::rgb;
};

/// A preprocessed image: the model input (1 x C x H x W float) and the feeds
/// a detector takes with it.
struct result {
    tensor input;
    float im_shape[2] = {0, 0};      // the resized image's height, width
    float scale_factor[2] = {1, 1};  // resized / original, for y and x
    int original_width = 0, original_height = 0;
};

namespace detail {

inline int round_half_even(double v) {
    return static_cast<int>(std::nearbyint(v));  // Python's round()
}

inline void apply(image& img, result& r, const resize_step& s) {
    double sy, sx;
    if (s.keep_ratio) {
        double im_min = std::min(img.width, img.height), im_max = std::max(img.width, img.height);
        double t_min = std::min(s.target_h, s.target_w), t_max = std::max(s.target_h, s.target_w);
        double scale = t_min / im_min;
        if (std::nearbyint(scale * im_max) > t_max) scale = t_max / im_max;
        sy = sx = scale;
    } else {
        sy = double(s.target_h) / img.height;
        sx = double(s.target_w) / img.width;
    }
    int w = round_half_even(img.width * sx), h = round_half_even(img.height * sy);
    img = resize(img, w, h, s.interp, sx, sy);
    r.im_shape[0] = float(h), r.im_shape[1] = float(w);
    r.scale_factor[0] = float(sy), r.scale_factor[1] = float(sx);
}

inline void scaled_to(image& img, result& r, int w, int h,
                      interpolation interp = interpolation::linear) {
    double sy = double(h) / img.height, sx = double(w) / img.width;
    img = resize(img, w, h, interp);
    r.im_shape[0] = float(h), r.im_shape[1] = float(w);
    r.scale_factor[0] *= float(sy), r.scale_factor[1] *= float(sx);
}

inline void apply(image& img, result& r, const resize_image_step& s) {
    int w = s.w, h = s.h;
    if (s.resize_short > 0) {
        double p = double(s.resize_short) / std::min(img.width, img.height);
        w = round_half_even(img.width * p), h = round_half_even(img.height * p);
    } else if (s.resize_long > 0) {
        double p = double(s.resize_long) / std::max(img.width, img.height);
        w = round_half_even(img.width * p), h = round_half_even(img.height * p);
    }
    scaled_to(img, r, w, h, s.interp);
}

inline void apply(image& img, result& r, const det_resize_step& s) {
    int h = img.height, w = img.width, rh, rw;
    if (s.k == det_resize_step::kind::fixed) {
        rh = s.fixed_h, rw = s.fixed_w;
    } else if (s.k == det_resize_step::kind::resize_long) {
        double ratio = double(s.resize_long) / std::max(h, w);
        rh = int(h * ratio), rw = int(w * ratio);
        rh = (rh + 127) / 128 * 128, rw = (rw + 127) / 128 * 128;
    } else {
        double ratio = 1.0, limit = s.limit_side_len;
        if (s.limit_type == "max") {
            if (std::max(h, w) > limit) ratio = h > w ? limit / h : limit / w;
        } else if (s.limit_type == "min") {
            if (std::min(h, w) < limit) ratio = h < w ? limit / h : limit / w;
        } else if (s.limit_type == "resize_long") {
            ratio = limit / std::max(h, w);
        } else {
            throw usage_error("DetResizeForTest: limit_type '" + s.limit_type +
                              "' is not supported (max, min, resize_long)");
        }
        rh = int(h * ratio), rw = int(w * ratio);
        rh = std::max(round_half_even(rh / 32.0) * 32, 32),
        rw = std::max(round_half_even(rw / 32.0) * 32, 32);
    }
    scaled_to(img, r, rw, rh);
}

inline void apply(image& img, result& r, const rec_resize_step& s) {
    double ratio = double(img.width) / img.height;
    int rw = std::ceil(s.h * ratio) > s.w ? s.w : int(std::ceil(s.h * ratio));
    scaled_to(img, r, std::max(rw, 1), s.h);
    image out(s.w, s.h, img.channels);
    out.order = img.order;
    out.integral = false;
    out.planar = true;
    for (int c = 0; c < img.channels; ++c)
        for (int y = 0; y < s.h; ++y)
            for (int x = 0; x < img.width; ++x)
                out.at(x, y, c) = (img.at(x, y, c) / 255.0f - 0.5f) / 0.5f;
    img = std::move(out);
}

inline void apply(image& img, result&, const crop_step& s) {
    if (s.w > img.width || s.h > img.height)
        throw usage_error("CropImage: " + std::to_string(s.w) + "x" + std::to_string(s.h) +
                          " is larger than the " + std::to_string(img.width) + "x" +
                          std::to_string(img.height) + " image");
    int x0 = (img.width - s.w) / 2, y0 = (img.height - s.h) / 2;
    image out(s.w, s.h, img.channels);
    out.order = img.order;
    out.integral = img.integral;
    out.planar = img.planar;
    for (int y = 0; y < s.h; ++y)
        for (int x = 0; x < s.w; ++x)
            for (int c = 0; c < img.channels; ++c) out.at(x, y, c) = img.at(x0 + x, y0 + y, c);
    img = std::move(out);
}

inline void apply(image& img, result&, const normalize_step& s) {
    auto per_channel = [&](const std::vector<float>& v, const char* what) {
        if (v.size() != 1 && v.size() != static_cast<std::size_t>(img.channels))
            throw usage_error(std::string("NormalizeImage: ") + what + " has " +
                              std::to_string(v.size()) + " values for an image of " +
                              std::to_string(img.channels) + " channels");
    };
    per_channel(s.mean, "mean");
    per_channel(s.std, "std");
    for (float d : s.std)
        if (d == 0.0f) throw usage_error("NormalizeImage: std has a zero");
    for (int y = 0; y < img.height; ++y)
        for (int x = 0; x < img.width; ++x)
            for (int c = 0; c < img.channels; ++c) {
                float m = s.mean.size() == 1 ? s.mean[0] : s.mean[c],
                      d = s.std.size() == 1 ? s.std[0] : s.std[c];
                float& v = img.at(x, y, c);
                v = (v * s.scale - m) / d;
            }
    img.integral = false;
}

inline void apply(image& img, result&, const permute_step&) {
    if (img.planar) return;
    image out(img.width, img.height, img.channels);
    out.order = img.order;
    out.integral = img.integral;
    out.planar = true;
    for (int y = 0; y < img.height; ++y)
        for (int x = 0; x < img.width; ++x)
            for (int c = 0; c < img.channels; ++c) out.at(x, y, c) = img.at(x, y, c);
    img = std::move(out);
}

inline void pad_to(image& img, int w, int h, const std::vector<float>& fill) {
    if (w < img.width || h < img.height)
        throw usage_error("Pad: " + std::to_string(w) + "x" + std::to_string(h) +
                          " is smaller than the " + std::to_string(img.width) + "x" +
                          std::to_string(img.height) + " image");
    image out(w, h, img.channels);
    out.order = img.order;
    out.integral = img.integral;
    out.planar = img.planar;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            for (int c = 0; c < img.channels; ++c)
                out.at(x, y, c) = x < img.width && y < img.height ? img.at(x, y, c)
                                  : fill.empty()                  ? 0.0f
                                  : fill.size() == 1
                                      ? fill[0]
                                      : fill[std::min<std::size_t>(c, fill.size() - 1)];
    img = std::move(out);
}

inline void apply(image& img, result&, const pad_stride_step& s) {
    if (s.stride <= 0) return;
    pad_to(img, (img.width + s.stride - 1) / s.stride * s.stride,
           (img.height + s.stride - 1) / s.stride * s.stride, {});
}

inline void apply(image& img, result&, const pad_step& s) {
    pad_to(img, s.w, s.h, s.fill);
}

inline void apply(image& img, result& r, const top_down_affine_step& s) {
    if (img.planar)
        throw usage_error("preprocess: TopDownEvalAffine after Permute (it warps an HWC image)");
    // The inverse map, output pixel -> source pixel: src = (dst - t) / k.
    double kx, ky, tx, ty;
    if (s.use_udp) {
        kx = (s.w - 1.0) / img.width, ky = (s.h - 1.0) / img.height, tx = ty = 0;
    } else {
        kx = ky = double(s.w) / img.width;
        tx = s.w * 0.5 - kx * img.width * 0.5, ty = s.h * 0.5 - ky * img.height * 0.5;
    }
    image out(s.w, s.h, img.channels);
    out.order = img.order;
    auto px = [&](int x, int y, int c) {
        return x >= 0 && y >= 0 && x < img.width && y < img.height ? img.at(x, y, c) : 0.f;
    };
    for (int y = 0; y < s.h; ++y)
        for (int x = 0; x < s.w; ++x) {
            const double sx = (x - tx) / kx, sy = (y - ty) / ky;
            const int x0 = static_cast<int>(std::floor(sx)), y0 = static_cast<int>(std::floor(sy));
            const float fx = float(sx - x0), fy = float(sy - y0);
            for (int c = 0; c < img.channels; ++c) {
                float v = (px(x0, y0, c) * (1 - fx) + px(x0 + 1, y0, c) * fx) * (1 - fy) +
                          (px(x0, y0 + 1, c) * (1 - fx) + px(x0 + 1, y0 + 1, c) * fx) * fy;
                if (img.integral) v = std::clamp(std::round(v), 0.f, 255.f);
                out.at(x, y, c) = v;
            }
        }
    out.integral = img.integral;
    img = std::move(out);
    r.im_shape[0] = float(s.h), r.im_shape[1] = float(s.w);
    r.scale_factor[0] *= float(ky), r.scale_factor[1] *= float(kx);
}

inline void apply(image& img, result&, const channel_order_step& s) {
    if (img.order != s.order) img.swap_red_blue();
}

}  // namespace detail

/// Runs `p` on `img` (converted to p.order first): the model input, 1 x C x H x W.
inline result preprocess(image img, const pipeline& p) {
    result r;
    r.original_width = img.width, r.original_height = img.height;
    r.im_shape[0] = float(img.height), r.im_shape[1] = float(img.width);
    if (img.order != p.order) img.swap_red_blue();
    for (const auto& s : p.steps) std::visit([&](const auto& st) { detail::apply(img, r, st); }, s);
    if (!img.planar) detail::apply(img, r, permute_step{});
    r.input = tensor::from<float>({1, img.channels, img.height, img.width}, img.data);
    return r;
}

}  // namespace litegraph::vision
