// nearest_interp_v2 / bilinear_interp_v2 and the v1 ops nearest_interp /
// bilinear_interp (NCHW, 4-D): resize the spatial dims.
//
// Slots: X [N, C, H, W], optional OutSize (int [2]), SizeTensor (list of
// int [1]), Scale (float [1] or [2]) -> Out [N, C, OH, OW].  Attributes:
// out_h, out_w, scale, align_corners, align_mode, data_layout,
// interp_method.  The output size is decided as Paddle's CPU kernel does:
//   SizeTensor if given; otherwise the Scale input (one value for both
//   axes), else the `scale` attribute (v2: a list, used if it holds at least
//   two values, a one-element list is ignored; v1: one float, used if > 0),
//   giving OH = int(H * scale_h); else out_h/out_w; then OutSize, if given,
//   overrides the size.
// The sampling ratio is in/out, or (in-1)/(out-1) with align_corners; v2
// uses 1/scale instead of in/out when a scale was given (even with OutSize),
// v1 never does.  v1's align_corners defaults to true, v2's to false.
// The size inputs must be known during shape inference (weights or values
// computed from shapes).  Nearest copies a repeated source row with memcpy
// and writes an integer width upscale without an index table.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "litegraph/ops/detail/shape_args.hpp"
#include "litegraph/ops/op.hpp"

namespace litegraph::ops {

struct interp_v2 {
    static constexpr std::string_view paddle_types[] = {"nearest_interp_v2", "bilinear_interp_v2",
                                                        "nearest_interp", "bilinear_interp"};
    static constexpr pir_name pir_names[] = {{"1.nearest_interp", "nearest_interp_v2"},
                                             {"1.bilinear_interp", "bilinear_interp_v2"}};
    struct params {
        bool v1 = false;
        bool nearest = true;
        std::int64_t out_h = -1, out_w = -1;
        std::vector<float> scale;
        bool align_corners = false;
        std::int64_t align_mode = 1;
    };

    static params parse(const attr_map& a, std::string_view type) {
        params p;
        auto layout = a.get<std::string>("data_layout", "NCHW");
        if (layout != "NCHW" && layout != "AnyLayout" && !layout.empty())
            throw unsupported_error("op " + std::string(type) + ": data_layout '" + layout +
                                    "' is not supported (only NCHW)");
        p.v1 = type == "nearest_interp" || type == "bilinear_interp";
        const bool bilinear_type = type == "bilinear_interp_v2" || type == "bilinear_interp";
        auto method = a.get<std::string>("interp_method", bilinear_type ? "bilinear" : "nearest");
        if (method != "nearest" && method != "bilinear")
            throw unsupported_error("op " + std::string(type) + ": interp_method '" + method +
                                    "' is not supported");
        p.nearest = method == "nearest";
        p.out_h = a.get<std::int64_t>("out_h", -1);
        p.out_w = a.get<std::int64_t>("out_w", -1);
        if (p.v1) {
            const auto one = a.get<float>("scale", 0.f);
            if (one > 0) p.scale = {one, one};
        } else {
            p.scale = a.get<std::vector<float>>("scale", {});
        }
        p.align_corners = a.get<bool>("align_corners", p.v1);
        p.align_mode = a.get<std::int64_t>("align_mode", 1);
        return p;
    }

    struct geometry {
        std::int64_t n, c, in_h, in_w, out_h, out_w;
        float scale_h = -1.f, scale_w = -1.f;
    };

    static std::vector<float> read_floats(const op_io& io, const char* slot) {
        const auto& t = io.input(slot);
        io.check(t.type == dtype::f32 || t.type == dtype::f64, [&] {
            return std::string("input '") + slot + "' must be float32 or float64, got " +
                   std::string(name_of(t.type));
        });
        io.check(is_known(t.shape) && t.numel() >= 1, [&] {
            return std::string("input '") + slot + "' has shape " + to_string(t.shape);
        });
        io.check(t.has_data(), [&] {
            return std::string("the value of input '") + slot +
                   "' decides the output shape but is not known before the run";
        });
        std::vector<float> v;
        if (t.type == dtype::f32)
            for (auto x : t.span<float>()) v.push_back(x);
        else
            for (auto x : t.span<double>()) v.push_back(static_cast<float>(x));
        return v;
    }

    static geometry resolve(const params& p, const op_io& io) {
        const auto& x = io.input("X");
        io.check(x.type == dtype::f32,
                 [&] { return "X must be float32, got " + std::string(name_of(x.type)); });
        if (x.shape.size() != 4)
            throw unsupported_error("op " + io.type + " ('" + io.label + "'): X shape " +
                                    to_string(x.shape) + " is not supported (only 4-D NCHW input)");
        geometry g;
        g.n = x.shape[0], g.c = x.shape[1], g.in_h = x.shape[2], g.in_w = x.shape[3];
        g.out_h = p.out_h, g.out_w = p.out_w;
        if (io.input_count("SizeTensor") > 0) {
            auto v = detail::read_int_list(io, "SizeTensor");
            io.check(v.size() == 2, [&] {
                return "SizeTensor must hold 2 tensors, got " + std::to_string(v.size());
            });
            g.out_h = v[0], g.out_w = v[1];
        } else {
            if (io.input_count("Scale") > 0) {
                auto v = read_floats(io, "Scale");
                g.scale_h = v[0];
                g.scale_w = v.size() > 1 && !p.v1 ? v[1] : v[0];  // v1 reads one value
                if (!p.v1)                                        // v1 ignores a scale <= 0
                    io.check(g.scale_h > 0 && g.scale_w > 0,
                             "the values of input 'Scale' must be > 0");
            } else if (p.scale.size() > 1) {
                g.scale_h = p.scale[0], g.scale_w = p.scale[1];
                io.check(g.scale_h > 0 && g.scale_w > 0, "attribute scale must be > 0");
            }
            if (g.scale_h > 0 && g.scale_w > 0) {
                io.check(g.scale_h < 1e9f && g.scale_w < 1e9f, [&] {
                    return "scale (" + std::to_string(g.scale_h) + ", " +
                           std::to_string(g.scale_w) + ") is too large";
                });
                // Paddle: static_cast<int>(in_h * scale_h), a float product.
                g.out_h = g.in_h < 0
                              ? -1
                              : static_cast<std::int64_t>(static_cast<float>(g.in_h) * g.scale_h);
                g.out_w = g.in_w < 0
                              ? -1
                              : static_cast<std::int64_t>(static_cast<float>(g.in_w) * g.scale_w);
            }
            if (io.input_count("OutSize") > 0) {
                auto v = detail::read_ints(io, io.input("OutSize"), "OutSize");
                io.check(v.size() == 2, [&] {
                    return "OutSize must hold 2 values, got " + std::to_string(v.size());
                });
                g.out_h = v[0], g.out_w = v[1];
            }
        }
        const bool from_scale = g.scale_h > 0;
        if (p.v1) g.scale_h = g.scale_w = -1.f;  // v1 samples at in/out whatever decided the size
        const bool from_scale_unknown = from_scale && (g.in_h < 0 || g.in_w < 0) &&
                                        io.input_count("OutSize") == 0 &&
                                        io.input_count("SizeTensor") == 0;
        if (!from_scale_unknown)
            io.check(g.out_h > 0 && g.out_w > 0, [&] {
                return "output size [" + std::to_string(g.out_h) + ", " + std::to_string(g.out_w) +
                       "] must be positive (set out_h/out_w, a two-value scale, or a size "
                       "input) for X shape " +
                       to_string(x.shape);
            });
        return g;
    }

    static void infer(const params& p, op_io& io) {
        auto g = resolve(p, io);
        auto& out = io.output("Out");
        out.type = dtype::f32;
        out.shape = {g.n, g.c, g.out_h, g.out_w};
    }

    // Paddle's ratio: in/out, or 1/scale when a scale was given, or
    // (in-1)/(out-1) with align_corners; 0 for an output of size 1.
    static float ratio(const params& p, std::int64_t in, std::int64_t out, float scale) {
        if (out <= 1) return 0.f;
        const float plain = scale > 0 ? static_cast<float>(1. / scale)
                                      : static_cast<float>(in) / static_cast<float>(out);
        return p.align_corners ? static_cast<float>(in - 1) / static_cast<float>(out - 1) : plain;
    }

    static void run(const params& p, op_io& io) {
        const auto g = resolve(p, io);
        const float* x = io.input("X").as<float>();
        float* y = io.output("Out").as<float>();
        const std::int64_t planes = g.n * g.c, in_plane = g.in_h * g.in_w;
        const std::int64_t out_plane = g.out_h * g.out_w;
        if (g.in_h == g.out_h && g.in_w == g.out_w) {
            if (planes * in_plane > 0)
                std::memcpy(y, x, static_cast<std::size_t>(planes * in_plane) * sizeof(float));
            return;
        }
        const float rh = ratio(p, g.in_h, g.out_h, g.scale_h);
        const float rw = ratio(p, g.in_w, g.out_w, g.scale_w);
        if (p.nearest) {
            auto index = [&](float r, std::int64_t o, std::int64_t in) {
                const float f = r * static_cast<float>(o);
                const auto i = p.align_corners ? static_cast<std::int64_t>(f + 0.5)
                                               : static_cast<std::int64_t>(f);
                return std::clamp<std::int64_t>(i, 0, in - 1);
            };
            std::vector<std::int64_t> iy(g.out_h), ix(g.out_w);
            for (std::int64_t k = 0; k < g.out_h; ++k) iy[k] = index(rh, k, g.in_h);
            for (std::int64_t l = 0; l < g.out_w; ++l) ix[l] = index(rw, l, g.in_w);
            // An integer upscale of the width (ix[l] == l / s, as scale 2 gives):
            // each input value written s times in a row, no index table.
            std::int64_t s = g.in_w > 0 ? g.out_w / g.in_w : 0;
            for (std::int64_t l = 0; s > 0 && l < g.out_w; ++l)
                if (ix[l] != l / s) s = 0;
            split_rows(io.pool, planes, g.out_h, out_plane,
                       [&](std::int64_t pc, std::int64_t k0, std::int64_t k1) {
                           const float* xp = x + pc * in_plane;
                           float* yp = y + pc * out_plane;
                           for (std::int64_t k = k0; k < k1; ++k) {
                               float* yr = yp + k * g.out_w;
                               if (k > k0 && iy[k] == iy[k - 1]) {  // the row above again
                                   std::memcpy(yr, yr - g.out_w,
                                               static_cast<std::size_t>(g.out_w) * sizeof(float));
                                   continue;
                               }
                               const float* xr = xp + iy[k] * g.in_w;
                               if (s == 2)
                                   for (std::int64_t l = 0; l < g.in_w; ++l)
                                       yr[2 * l] = yr[2 * l + 1] = xr[l];
                               else if (s > 0)
                                   for (std::int64_t l = 0; l < g.in_w; ++l)
                                       for (std::int64_t t = 0; t < s; ++t) yr[l * s + t] = xr[l];
                               else
                                   for (std::int64_t l = 0; l < g.out_w; ++l) yr[l] = xr[ix[l]];
                           }
                       });
            return;
        }
        // Bilinear, Paddle's source indices and weights (align_mode 0 without
        // align_corners is the half-pixel form).
        const bool half_pixel = p.align_mode == 0 && !p.align_corners;
        struct tap {
            std::int64_t lo, hi;
            float w_lo, w_hi;
        };
        auto taps = [&](float r, std::int64_t out, std::int64_t in) {
            std::vector<tap> v(out);
            for (std::int64_t o = 0; o < out; ++o) {
                const double centre = r * (static_cast<double>(o) + 0.5) - 0.5;
                std::int64_t lo = half_pixel ? static_cast<std::int64_t>(centre)
                                             : static_cast<std::int64_t>(r * static_cast<float>(o));
                lo = lo > 0 ? lo : 0;
                const std::int64_t hi = std::min(lo + 1, in - 1);
                float src = static_cast<float>(centre);
                src = src > 0 ? src : 0;
                const float d = half_pixel ? src - static_cast<float>(lo)
                                           : r * static_cast<float>(o) - static_cast<float>(lo);
                v[o] = {std::min(lo, in - 1), hi, 1.f - d, d};
            }
            return v;
        };
        const auto ty = taps(rh, g.out_h, g.in_h);
        const auto tx = taps(rw, g.out_w, g.in_w);
        split_rows(io.pool, planes, g.out_h, out_plane,
                   [&](std::int64_t pc, std::int64_t k0, std::int64_t k1) {
                       const float* xp = x + pc * in_plane;
                       float* yp = y + pc * out_plane;
                       for (std::int64_t k = k0; k < k1; ++k) {
                           const auto a = ty[k];
                           const float* r0 = xp + a.lo * g.in_w;
                           const float* r1 = xp + a.hi * g.in_w;
                           float* yr = yp + k * g.out_w;
                           for (std::int64_t l = 0; l < g.out_w; ++l) {
                               const auto b = tx[l];
                               yr[l] = r0[b.lo] * a.w_lo * b.w_lo + r1[b.lo] * a.w_hi * b.w_lo +
                                       r0[b.hi] * a.w_lo * b.w_hi + r1[b.hi] * a.w_hi * b.w_hi;
                           }
                       }
                   });
    }

    /// rows(pc, k0, k1) for the output rows [k0, k1) of every plane pc, split
    /// over the pool when the output is large enough: bands of output rows
    /// of every plane (the k-th of P threads the k-th band, as the convs
    /// around it split: core/parallel.hpp, plane_bands); each row alone, so
    /// the same output for every split.
    template <class F>
    static void split_rows(thread_pool* pool, std::int64_t planes, std::int64_t out_h,
                           std::int64_t out_plane, F&& rows) {
        const auto T = static_cast<std::int64_t>(pool_threads(pool));
        const std::int64_t tasks =
            T > 1 && planes * out_plane >= (std::int64_t{1} << 15) ? std::min(T, out_h) : 1;
        parallel_tasks(pool, tasks, [&](std::int64_t t) {
            const std::int64_t k0 = out_h * t / tasks, k1 = out_h * (t + 1) / tasks;
            for (std::int64_t pc = 0; pc < planes; ++pc) rows(pc, k0, k1);
        });
    }
};

}  // namespace litegraph::ops
