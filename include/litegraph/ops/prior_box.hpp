// prior_box (SSD anchors): for every cell of the feature map Input [N, C, H,
// W] over the image Image [N, C, IH, IW], num_priors boxes (x1, y1, x2, y2)
// normalised by the image size, Boxes [H, W, num_priors, 4], and Variances of
// the same shape holding `variances` (4 values) for every box.  As Paddle's
// CPU kernel, in float32 with the same order of operations:
//   aspect ratios: 1, then each of `aspect_ratios` not already present
//     (within 1e-6), followed by its inverse with `flip`;
//   step: step_w/step_h, or IW/W and IH/H when either is 0; centre
//     ((w + offset) * step_w, (h + offset) * step_h);
//   per min size: the aspect-ratio boxes (min * sqrt(ar) by min / sqrt(ar)),
//     then the square sqrt(min * max) box when max_sizes is given; with
//     min_max_aspect_ratios_order, the min square, the max square, then the
//     other ratios (Caffe's order);
//   clip clamps every coordinate to [0, 1].
// flip and clip default to true, as in Paddle's op definition.
// num_priors = ratios * min_sizes + max_sizes.  Only the shapes of Input and
// Image are read; the op does not declare folds_from_shapes (a plan whose
// feature map size is still unknown would fold it with unknown dims), so it
// runs with the program.  (A build that lets the compiler contract a * b + c into
// fused multiply-adds may differ from Paddle in the last bit.)
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "litegraph/ops/op.hpp"

namespace litegraph::ops {

namespace detail {
/// The feature map's and the image's H and W; checks both are 4-D.
inline void feature_and_image(const op_io& io, std::int64_t& fh, std::int64_t& fw, std::int64_t& ih,
                              std::int64_t& iw) {
    const auto& in = io.input("Input");
    const auto& im = io.input("Image");
    io.check(in.shape.size() == 4,
             [&] { return "Input must be 4-D (NCHW), has shape " + to_string(in.shape); });
    io.check(im.shape.size() == 4,
             [&] { return "Image must be 4-D (NCHW), has shape " + to_string(im.shape); });
    fh = in.shape[2], fw = in.shape[3], ih = im.shape[2], iw = im.shape[3];
}

inline void check_variances(const op_io& io, const std::vector<float>& v) {
    io.check(v.size() == 4,
             [&] { return "variances must hold 4 values, holds " + std::to_string(v.size()); });
    for (auto x : v) io.check(x > 0, "variances must be positive");
}
}  // namespace detail

struct prior_box {
    static constexpr std::string_view paddle_types[] = {"prior_box"};
    static constexpr pir_name pir_names[] = {{"1.prior_box", "prior_box"}};
    struct params {
        std::vector<float> min_sizes, max_sizes, ratios, variances;
        bool clip = false;
        float step_w = 0, step_h = 0, offset = 0.5f;
        bool min_max_order = false;
    };

    static params parse(const attr_map& a, std::string_view) {
        params p;
        p.min_sizes = a.get<std::vector<float>>("min_sizes", {});
        p.max_sizes = a.get<std::vector<float>>("max_sizes", {});
        p.variances = a.get<std::vector<float>>("variances", {});  // required by Paddle
        p.clip = a.get<bool>("clip", true);
        p.step_w = a.get<float>("step_w", 0.f);
        p.step_h = a.get<float>("step_h", 0.f);
        p.offset = a.get<float>("offset", 0.5f);
        p.min_max_order = a.get<bool>("min_max_aspect_ratios_order", false);
        // Paddle's ExpandAspectRatios.
        const bool flip = a.get<bool>("flip", true);
        p.ratios = {1.f};
        for (float ar : a.get<std::vector<float>>("aspect_ratios", {})) {
            bool seen = false;
            for (float r : p.ratios) seen = seen || std::fabs(ar - r) < 1e-6;
            if (seen) continue;
            p.ratios.push_back(ar);
            if (flip) p.ratios.push_back(1.0f / ar);
        }
        return p;
    }

    static std::int64_t num_priors(const params& p, const op_io& io) {
        io.check(!p.min_sizes.empty(), "min_sizes must not be empty");
        for (auto m : p.min_sizes) io.check(m > 0, "min_sizes must be positive");
        io.check(p.max_sizes.empty() || p.max_sizes.size() == p.min_sizes.size(), [&] {
            return "max_sizes holds " + std::to_string(p.max_sizes.size()) + " values, min_sizes " +
                   std::to_string(p.min_sizes.size());
        });
        for (std::size_t i = 0; i < p.max_sizes.size(); ++i)
            io.check(p.max_sizes[i] > p.min_sizes[i], [&] {
                return "max_sizes[" + std::to_string(i) + "] must be greater than min_sizes[" +
                       std::to_string(i) + "]";
            });
        for (auto r : p.ratios) io.check(r > 0, "aspect_ratios must be positive");
        detail::check_variances(io, p.variances);
        return static_cast<std::int64_t>(p.ratios.size() * p.min_sizes.size() + p.max_sizes.size());
    }

    static void infer(const params& p, op_io& io) {
        std::int64_t fh, fw, ih, iw;
        detail::feature_and_image(io, fh, fw, ih, iw);
        const auto n = num_priors(p, io);
        for (const char* s : {"Boxes", "Variances"}) {
            auto& o = io.output(s);
            o.type = dtype::f32;
            o.shape = {fh, fw, n, 4};
        }
    }

    static void run(const params& p, op_io& io) {
        std::int64_t fh, fw, ih, iw;
        detail::feature_and_image(io, fh, fw, ih, iw);
        const auto n = num_priors(p, io);
        float* b = io.output("Boxes").as<float>();
        float* v = io.output("Variances").as<float>();
        io.check(io.output("Boxes").numel() == fh * fw * n * 4, "Boxes does not fit");
        float step_wd = p.step_w, step_ht = p.step_h;
        if (p.step_w == 0 || p.step_h == 0) {
            step_wd = static_cast<float>(iw) / static_cast<float>(fw);
            step_ht = static_cast<float>(ih) / static_cast<float>(fh);
        }
        const auto img_w = static_cast<float>(iw), img_h = static_cast<float>(ih);
        float cx = 0, cy = 0;
        auto put = [&](float bw, float bh) {
            b[0] = (cx - bw) / img_w;
            b[1] = (cy - bh) / img_h;
            b[2] = (cx + bw) / img_w;
            b[3] = (cy + bh) / img_h;
            b += 4;
        };
        for (std::int64_t h = 0; h < fh; ++h)
            for (std::int64_t w = 0; w < fw; ++w) {
                cx = (static_cast<float>(w) + p.offset) * step_wd;
                cy = (static_cast<float>(h) + p.offset) * step_ht;
                for (std::size_t s = 0; s < p.min_sizes.size(); ++s) {
                    const float mn = p.min_sizes[s];
                    auto square_max = [&] {
                        if (p.max_sizes.empty()) return;
                        const auto half = static_cast<float>(std::sqrt(mn * p.max_sizes[s]) / 2.);
                        put(half, half);
                    };
                    auto ratio_box = [&](float ar) {
                        put(static_cast<float>(mn * std::sqrt(ar) / 2.),
                            static_cast<float>(mn / std::sqrt(ar) / 2.));
                    };
                    if (p.min_max_order) {
                        const auto half = static_cast<float>(mn / 2.);
                        put(half, half);
                        square_max();
                        for (float ar : p.ratios)
                            if (!(std::fabs(ar - 1.) < 1e-6)) ratio_box(ar);
                    } else {
                        for (float ar : p.ratios) ratio_box(ar);
                        square_max();
                    }
                }
            }
        float* all = io.output("Boxes").as<float>();
        const auto count = fh * fw * n * 4;
        if (p.clip)
            for (std::int64_t i = 0; i < count; ++i) all[i] = std::min(std::max(all[i], 0.f), 1.f);
        for (std::int64_t i = 0; i < count; ++i)
            v[i] = p.variances[static_cast<std::size_t>(i % 4)];
    }
};

}  // namespace litegraph::ops
