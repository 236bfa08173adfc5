// density_prior_box: for every cell of the feature map Input [N, C, H, W]
// over Image [N, C, IH, IW], for each fixed size s (with its density d) and
// each fixed ratio r, a d x d grid of boxes of size s * sqrt(r) by s /
// sqrt(r), normalised by the image size; Boxes [H, W, num_priors, 4] (or
// [H * W * num_priors, 4] with flatten_to_2d) and Variances of the same shape
// holding `variances`.  As Paddle's CPU kernel, with its mixed float/double
// arithmetic: step_w/step_h (or IW/W, IH/H when either is 0), step_average =
// int((step_w + step_h) * 0.5), shift = step_average / d (integer), grid
// centres from centre - step_average / 2 + shift / 2 in steps of shift; x1,
// y1 clamped at 0 and x2, y2 at 1, and all to [0, 1] with `clip`.
// clip defaults to true, as in Paddle's op definition.
// num_priors = sum of ratios * d^2.  Only the shapes of Input and Image are
// read (not folded, as prior_box).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "litegraph/ops/prior_box.hpp"

namespace litegraph::ops {

struct density_prior_box {
    static constexpr std::string_view paddle_types[] = {"density_prior_box"};
    static constexpr pir_name pir_names[] = {{"1.density_prior_box", "density_prior_box"}};
    struct params {
        std::vector<float> fixed_sizes, fixed_ratios, variances;
        std::vector<std::int64_t> densities;
        bool clip = false, flatten = false;
        float step_w = 0, step_h = 0, offset = 0.5f;
    };

    static params parse(const attr_map& a, std::string_view) {
        params p;
        p.fixed_sizes = a.get<std::vector<float>>("fixed_sizes", {});
        p.fixed_ratios = a.get<std::vector<float>>("fixed_ratios", {});
        p.densities = a.get<std::vector<std::int64_t>>("densities", {});
        p.variances = a.get<std::vector<float>>("variances", {});  // required by Paddle
        p.clip = a.get<bool>("clip", true);
        p.flatten = a.get<bool>("flatten_to_2d", false);
        p.step_w = a.get<float>("step_w", 0.f);
        p.step_h = a.get<float>("step_h", 0.f);
        p.offset = a.get<float>("offset", 0.5f);
        return p;
    }

    static std::int64_t num_priors(const params& p, const op_io& io) {
        io.check(p.fixed_sizes.size() == p.densities.size(), [&] {
            return "fixed_sizes holds " + std::to_string(p.fixed_sizes.size()) +
                   " values, densities " + std::to_string(p.densities.size()) +
                   " (one density per fixed size)";
        });
        for (auto s : p.fixed_sizes) io.check(s > 0, "fixed_sizes must be positive");
        for (auto r : p.fixed_ratios) io.check(r > 0, "fixed_ratios must be positive");
        for (auto d : p.densities)
            io.check(d > 0 && d <= 1024, [&] {
                return "density " + std::to_string(d) +
                       " is not in 1..1024 (d x d priors per cell)";
            });
        io.check(std::isfinite(p.step_w) && std::isfinite(p.step_h) && std::fabs(p.step_w) < 1e9f &&
                     std::fabs(p.step_h) < 1e9f,
                 "step_w and step_h must be finite and below 1e9");
        detail::check_variances(io, p.variances);
        std::int64_t n = 0;
        for (auto d : p.densities) n += static_cast<std::int64_t>(p.fixed_ratios.size()) * d * d;
        return n;
    }

    static void infer(const params& p, op_io& io) {
        std::int64_t fh, fw, ih, iw;
        detail::feature_and_image(io, fh, fw, ih, iw);
        const auto n = num_priors(p, io);
        for (const char* s : {"Boxes", "Variances"}) {
            auto& o = io.output(s);
            o.type = dtype::f32;
            if (p.flatten)
                o.shape = {fh < 0 || fw < 0 ? -1 : fh * fw * n, 4};
            else
                o.shape = {fh, fw, n, 4};
        }
    }

    static void run(const params& p, op_io& io) {
        std::int64_t fh, fw, ih, iw;
        detail::feature_and_image(io, fh, fw, ih, iw);
        const auto n = num_priors(p, io);
        const auto count = fh * fw * n * 4;
        io.check(io.output("Boxes").numel() == count, "Boxes does not fit");
        float* b = io.output("Boxes").as<float>();
        float* v = io.output("Variances").as<float>();
        float step_wd = p.step_w, step_ht = p.step_h;
        if (p.step_w == 0 || p.step_h == 0) {
            step_wd = static_cast<float>(iw) / static_cast<float>(fw);
            step_ht = static_cast<float>(ih) / static_cast<float>(fh);
        }
        if (fh == 0 || fw == 0) return;  // no cell (and no step from IW / W)
        const auto step_average = static_cast<int>((step_wd + step_ht) * 0.5);
        std::vector<float> sqrt_ratios;
        for (float r : p.fixed_ratios) sqrt_ratios.push_back(std::sqrt(r));
        const auto img_w = static_cast<double>(iw), img_h = static_cast<double>(ih);
        for (std::int64_t h = 0; h < fh; ++h)
            for (std::int64_t w = 0; w < fw; ++w) {
                const float cx = (static_cast<float>(w) + p.offset) * step_wd;
                const float cy = (static_cast<float>(h) + p.offset) * step_ht;
                for (std::size_t s = 0; s < p.fixed_sizes.size(); ++s) {
                    const float size = p.fixed_sizes[s];
                    const auto density = static_cast<int>(p.densities[s]);
                    const int shift = step_average / density;
                    for (std::size_t r = 0; r < sqrt_ratios.size(); ++r) {
                        const float bw = size * sqrt_ratios[r];
                        const float bh = size / sqrt_ratios[r];
                        const auto dcx = static_cast<float>(cx - step_average / 2. + shift / 2.);
                        const auto dcy = static_cast<float>(cy - step_average / 2. + shift / 2.);
                        for (int di = 0; di < density; ++di)
                            for (int dj = 0; dj < density; ++dj) {
                                const float x = dcx + static_cast<float>(dj * shift);
                                const float y = dcy + static_cast<float>(di * shift);
                                b[0] = static_cast<float>(std::max((x - bw / 2.) / img_w, 0.));
                                b[1] = static_cast<float>(std::max((y - bh / 2.) / img_h, 0.));
                                b[2] = static_cast<float>(std::min((x + bw / 2.) / img_w, 1.));
                                b[3] = static_cast<float>(std::min((y + bh / 2.) / img_h, 1.));
                                b += 4;
                            }
                    }
                }
            }
        float* all = io.output("Boxes").as<float>();
        if (p.clip)
            for (std::int64_t i = 0; i < count; ++i) all[i] = std::min(std::max(all[i], 0.f), 1.f);
        for (std::int64_t i = 0; i < count; ++i)
            v[i] = p.variances[static_cast<std::size_t>(i % 4)];
    }
};

}  // namespace litegraph::ops
