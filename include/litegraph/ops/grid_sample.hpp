// grid_sampler (Paddle 3.x: grid_sample): Output[n, c, h, w] = X[n, c] sampled
// at the point Grid[n, h, w] = (x, y), both in [-1, 1] across X's width and
// height.  X is NCHW float32 / float64, Grid N x Hout x Wout x 2 of the same
// dtype; Output is N x C x Hout x Wout.  The 5-D (volumetric) form is refused.
//
// As Paddle's CPU kernel (phi/kernels/cpu/grid_sample_kernel.cc and
// grid_sample_utils.h), in X's dtype:
//   - un-normalise, with max = W - 1 (x) or H - 1 (y):
//       align_corners:  (g + 1) * (max / 2)
//       otherwise:      (g + 1) * ((max + 1) / 2) - 0.5
//   - padding_mode "border" clamps to [0, max]; "reflection" reflects about
//     0 and max (align_corners) or about -0.5 and max + 0.5 (then clamps to
//     [0, max]); "zeros" leaves the point as it is;
//   - "bilinear": the four neighbours floor(p), floor(p) + 1, weighted by the
//     distances to the opposite sides, a neighbour outside X counting 0;
//     "nearest": the point rounded half away from zero (std::round), 0
//     outside X.
// align_corners defaults to true, mode to "bilinear", padding_mode to "zeros"
// (Paddle's op definition).  A NaN grid point never indexes X (Paddle's
// kernel would): nearest gives 0 there, bilinear NaN.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "litegraph/ops/op.hpp"

namespace litegraph::ops {

struct grid_sampler {
    static constexpr std::string_view paddle_types[] = {"grid_sampler"};
    static constexpr pir_name pir_names[] = {{"1.grid_sample", "grid_sampler"}};
    enum class sample_mode : std::uint8_t { bilinear, nearest };
    enum class padding_kind : std::uint8_t { zeros, border, reflection };
    struct params {
        sample_mode mode = sample_mode::bilinear;
        padding_kind padding = padding_kind::zeros;
        bool align_corners = true;
    };

    static params parse(const attr_map& a, std::string_view type) {
        params p;
        const auto m = a.get<std::string>("mode", "bilinear");
        if (m == "bilinear")
            p.mode = sample_mode::bilinear;
        else if (m == "nearest")
            p.mode = sample_mode::nearest;
        else
            throw unsupported_error(std::string(type) + ": mode '" + m +
                                    "' is not supported (bilinear or nearest)");
        const auto pm = a.get<std::string>("padding_mode", "zeros");
        if (pm == "zeros")
            p.padding = padding_kind::zeros;
        else if (pm == "border")
            p.padding = padding_kind::border;
        else if (pm == "reflection")
            p.padding = padding_kind::reflection;
        else
            throw unsupported_error(std::string(type) + ": padding_mode '" + pm +
                                    "' is not supported (zeros, border or reflection)");
        p.align_corners = a.get<bool>("align_corners", true);
        return p;
    }

    static void infer(const params&, op_io& io) {
        const auto& x = io.input("X");
        const auto& g = io.input("Grid");
        io.check(x.shape.size() != 5,
                 "X is 5-D: the volumetric (3-D) grid_sample is not supported");
        io.check(x.shape.size() == 4, [&] {
            return "X must be 4-D (N, C, H, W), got rank " + std::to_string(x.shape.size());
        });
        io.check(x.type == dtype::f32 || x.type == dtype::f64, [&] {
            return "X must be float32 or float64, got " + std::string(name_of(x.type));
        });
        io.check(g.type == x.type, [&] {
            return "Grid is " + std::string(name_of(g.type)) + " but X is " +
                   std::string(name_of(x.type));
        });
        io.check(g.shape.size() == 4 && (g.shape[3] == 2 || g.shape[3] < 0),
                 [&] { return "Grid must be N x Hout x Wout x 2, got " + to_string(g.shape); });
        io.check(x.shape[0] < 0 || g.shape[0] < 0 || x.shape[0] == g.shape[0], [&] {
            return "Grid's batch " + std::to_string(g.shape[0]) + " is not X's " +
                   std::to_string(x.shape[0]);
        });
        auto& out = io.output("Output");
        out.type = x.type;
        out.shape = {x.shape[0] >= 0 ? x.shape[0] : g.shape[0], x.shape[1], g.shape[1], g.shape[2]};
    }

    /// One coordinate un-normalised and padded, as Paddle's CalcGridLocations.
    template <class T>
    static T locate(const params& p, T g, std::int64_t size) {
        const int max_val = static_cast<int>(size - 1);
        T v = p.align_corners
                  ? (g + T(1)) * static_cast<T>(max_val * 0.5)
                  : (g + T(1)) * static_cast<T>((max_val + 1) * 0.5) - static_cast<T>(0.5);
        if (p.padding == padding_kind::border) {
            v = std::min(std::max(v, T(0)), static_cast<T>(max_val));
        } else if (p.padding == padding_kind::reflection) {
            if (p.align_corners) {
                const auto range2 = static_cast<T>(max_val * 2);
                const T a = std::abs(v);
                const T extra = a - std::floor(a / range2) * range2;
                v = max_val == 0 ? T(0) : std::min(extra, range2 - extra);
            } else {
                const auto range2 = static_cast<T>((max_val + 1) * 2);
                const T a = std::abs(v + static_cast<T>(0.5));
                const T extra = a - std::floor(a / range2) * range2;
                v = std::min(extra, range2 - extra) - static_cast<T>(0.5);
                v = std::min(std::max(v, T(0)), static_cast<T>(max_val));
            }
        }
        return v;
    }

    static void run(const params& p, op_io& io) {
        const auto& x = io.input("X");
        const auto& g = io.input("Grid");
        const auto& out = io.output("Output");
        const auto n = x.shape[0], c = x.shape[1], h = x.shape[2], w = x.shape[3];
        const auto ho = g.shape[1], wo = g.shape[2];
        io.check(g.shape[0] == n && g.shape[3] == 2, [&] {
            return "Grid " + to_string(g.shape) + " does not fit X " + to_string(x.shape);
        });
        visit_dtype(x.type, [&]<class T>(T) {
            if constexpr (std::is_floating_point_v<T>) {
                const T* in = x.as<T>();
                const T* gd = g.as<T>();
                T* o = out.as<T>();
                const auto plane = h * w, opl = ho * wo;
                // The value of X[b, ch] at integral (xi, yi), 0 outside (IsInBound).
                auto at = [&](const T* img, T xi, T yi) -> T {
                    if (!(xi >= 0 && xi <= static_cast<T>(w - 1) && yi >= 0 &&
                          yi <= static_cast<T>(h - 1)))
                        return T(0);
                    return img[static_cast<std::int64_t>(yi) * w + static_cast<std::int64_t>(xi)];
                };
                for (std::int64_t b = 0; b < n; ++b)
                    for (std::int64_t k = 0; k < opl; ++k) {
                        const T gx = locate(p, gd[(b * opl + k) * 2], w);
                        const T gy = locate(p, gd[(b * opl + k) * 2 + 1], h);
                        for (std::int64_t ch = 0; ch < c; ++ch) {
                            const T* img = in + (b * c + ch) * plane;
                            T& r = o[(b * c + ch) * opl + k];
                            if (p.mode == sample_mode::nearest) {
                                r = at(img, std::round(gx), std::round(gy));
                                continue;
                            }
                            const T xw = std::floor(gx), xe = xw + T(1);
                            const T yn = std::floor(gy), ys = yn + T(1);
                            const T dw = gx - xw, de = xe - gx, dn = gy - yn, ds = ys - gy;
                            r = at(img, xw, yn) * de * ds + at(img, xe, yn) * dw * ds +
                                at(img, xw, ys) * de * dn + at(img, xe, ys) * dw * dn;
                        }
                    }
            }
        });
    }
};

}  // namespace litegraph::ops
