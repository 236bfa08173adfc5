// im2sequence: the patches of each image as a sequence, as Paddle's CPU
// kernel.  X [N, C, H, W] -> Out [rows, C * KH * KW] with a level-1 LoD of one
// sequence per image: image i gives OH_i * OW_i rows, row (oh, ow) holding
// X[i, c, oh * SH - PU + kh, ow * SW - PL + kw] in (c, kh, kw) order, 0
// outside the image.  Attributes: kernels [KH, KW], strides [SH, SW] (1, 1),
// paddings [up, left, down, right] (0s), out_stride (1, 1).  Without Y (or
// with a batch of one, as Paddle) every image gives OH = (H + PU + PD - KH) /
// SH + 1 (truncating division) and OW likewise.  With Y [N, 2] (each image's
// real height and width, X's dtype) and N > 1, image i's sizes are
// ceil(Y[i] / out_stride), and OH_i, OW_i follow from them; the windows still
// read the whole X.  The rows then depend on Y's values: shape inference
// reserves the full-image rows (or the exact ones when Y is known), the run
// sets the actual rows (shapes_at_run) and fails naming Y when they would not
// fit.  float32 and float64.
#pragma once

#include <limits>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "litegraph/ops/detail/window.hpp"

namespace litegraph::ops {

struct im2sequence {
    static constexpr std::string_view paddle_types[] = {"im2sequence"};
    static constexpr pir_name pir_names[] = {{"1.im2sequence", "im2sequence"}};
    static constexpr bool sets_lod = true;
    static constexpr bool shapes_at_run = true;
    struct params {
        std::vector<std::int64_t> kernels, strides{1, 1}, paddings{0, 0, 0, 0}, out_stride{1, 1};
    };

    static params parse(const attr_map& a, std::string_view) {
        params p;
        p.kernels = a.get<std::vector<std::int64_t>>("kernels", {});
        p.strides = a.get<std::vector<std::int64_t>>("strides", {1, 1});
        p.paddings = a.get<std::vector<std::int64_t>>("paddings", {0, 0, 0, 0});
        p.out_stride = a.get<std::vector<std::int64_t>>("out_stride", {1, 1});
        return p;
    }

    static std::int64_t out_size(std::int64_t in, std::int64_t k, std::int64_t p0, std::int64_t p1,
                                 std::int64_t s) {
        return (in + p0 + p1 - k) / s + 1;
    }

    static void check_attrs(const params& p, const op_io& io) {
        detail::check_pair(io, p.kernels, "kernels", 1);
        detail::check_pair(io, p.strides, "strides", 1);
        detail::check_pair(io, p.out_stride, "out_stride", 1);
        io.check(p.paddings.size() == 4, [&] {
            return "attribute paddings must hold 4 values (up, left, down, right), got " +
                   detail::list_string(p.paddings);
        });
        for (auto v : p.paddings)
            io.check(v >= 0, [&] {
                return "negative padding in " + detail::list_string(p.paddings) +
                       " is not supported";
            });
    }

    static bool uses_y(const op_io& io) {
        return io.input_count("Y") > 0 && io.input("X").shape[0] > 1;
    }

    /// Rows per image (from Y's values when they count).
    static std::vector<std::int64_t> rows_per_image(const params& p, const op_io& io) {
        const auto& x = io.input("X");
        const std::int64_t n = x.shape[0];
        std::vector<std::int64_t> rows(static_cast<std::size_t>(n));
        auto one = [&](std::int64_t i, std::int64_t h, std::int64_t w) {
            const std::int64_t oh =
                out_size(h, p.kernels[0], p.paddings[0], p.paddings[2], p.strides[0]);
            const std::int64_t ow =
                out_size(w, p.kernels[1], p.paddings[1], p.paddings[3], p.strides[1]);
            io.check(oh >= 0 && ow >= 0, [&] {
                return "image " + std::to_string(i) + " of height " + std::to_string(h) +
                       " and width " + std::to_string(w) + " gives " + std::to_string(oh) + " x " +
                       std::to_string(ow) + " patches";
            });
            rows[static_cast<std::size_t>(i)] = oh * ow;
        };
        if (!uses_y(io)) {
            for (std::int64_t i = 0; i < n; ++i) one(i, x.shape[2], x.shape[3]);
            return rows;
        }
        const auto& y = io.input("Y");
        // Paddle truncates each real size to int; a size outside [0, INT_MAX] (or NaN)
        // is refused before the conversion.
        auto read = [&](std::int64_t k) -> double {
            return y.type == dtype::f64 ? y.as<double>()[k] : double(y.as<float>()[k]);
        };
        for (std::int64_t i = 0; i < n; ++i) {
            const double hr = read(2 * i), wr = read(2 * i + 1);
            constexpr double int_max = double(std::numeric_limits<int>::max());
            io.check(hr >= 0 && wr >= 0 && hr <= int_max && wr <= int_max, [&] {
                std::ostringstream m;
                m << "Y[" << i << "] = (" << hr << ", " << wr << ") is not an image size";
                return m.str();
            });
            std::int64_t h = static_cast<int>(hr), w = static_cast<int>(wr);
            h = h % p.out_stride[0] == 0 ? h / p.out_stride[0] : h / p.out_stride[0] + 1;
            w = w % p.out_stride[1] == 0 ? w / p.out_stride[1] : w / p.out_stride[1] + 1;
            one(i, h, w);
        }
        return rows;
    }

    static void infer(const params& p, op_io& io) {
        check_attrs(p, io);
        const auto& x = io.input("X");
        io.check(x.type == dtype::f32 || x.type == dtype::f64, [&] {
            return "X must be float32 or float64, got " + std::string(name_of(x.type));
        });
        io.check(x.shape.size() == 4 && is_known(x.shape),
                 [&] { return "X must be [N, C, H, W], has shape " + to_string(x.shape); });
        if (io.input_count("Y") > 0) {
            const auto& y = io.input("Y");
            io.check(y.type == x.type && y.numel() == 2 * x.shape[0], [&] {
                return "Y must hold a (height, width) pair per image of X's dtype: " +
                       std::to_string(2 * x.shape[0]) + " values, has shape " + to_string(y.shape) +
                       " of " + std::string(name_of(y.type));
            });
        }
        // The full-image rows: the bound, and the answer without Y.
        const std::int64_t oh =
            out_size(x.shape[2], p.kernels[0], p.paddings[0], p.paddings[2], p.strides[0]);
        const std::int64_t ow =
            out_size(x.shape[3], p.kernels[1], p.paddings[1], p.paddings[3], p.strides[1]);
        io.check(oh > 0 && ow > 0, [&] {
            return "kernels " + detail::list_string(p.kernels) + " give " + std::to_string(oh) +
                   " x " + std::to_string(ow) + " patches for X shape " + to_string(x.shape);
        });
        std::int64_t rows = x.shape[0] * oh * ow;
        auto& out = io.output("Out");
        out.type = x.type;
        lod_t lod{{0}};
        if (!uses_y(io) || io.input("Y").has_data()) {
            rows = 0;
            for (auto r : rows_per_image(p, io)) lod[0].push_back(rows += r);
            out.lod = std::move(lod);
        }
        out.shape = {rows, x.shape[1] * p.kernels[0] * p.kernels[1]};
    }

    static void run(const params& p, op_io& io) {
        if (io.input("X").type == dtype::f64)
            compute<double>(p, io);
        else
            compute<float>(p, io);
    }

private:
    template <class T>
    static void compute(const params& p, op_io& io) {
        const auto& x = io.input("X");
        auto& out = io.output("Out");
        const auto rows = rows_per_image(p, io);
        std::int64_t total = 0;
        lod_t lod{{0}};
        for (auto r : rows) lod[0].push_back(total += r);
        io.check(total <= out.shape[0], [&] {
            return "Y's image sizes give " + std::to_string(total) + " rows, more than the " +
                   std::to_string(out.shape[0]) + " of X's full images";
        });
        const std::int64_t c = x.shape[1], h = x.shape[2], w = x.shape[3];
        const std::int64_t kh = p.kernels[0], kw = p.kernels[1];
        const std::int64_t ow_full = out_size(w, kw, p.paddings[1], p.paddings[3], p.strides[1]);
        const T* in = x.as<T>();
        T* o = out.as<T>();
        for (std::size_t i = 0; i < rows.size(); ++i) {
            // The image's patch grid: OW_i columns (OW of the whole image without Y).
            std::int64_t owi = ow_full;
            if (uses_y(io)) {
                const auto& y = io.input("Y");
                std::int64_t ww = y.type == dtype::f64 ? static_cast<int>(y.as<double>()[2 * i + 1])
                                                       : static_cast<int>(y.as<float>()[2 * i + 1]);
                ww = ww % p.out_stride[1] == 0 ? ww / p.out_stride[1] : ww / p.out_stride[1] + 1;
                owi = out_size(ww, kw, p.paddings[1], p.paddings[3], p.strides[1]);
            }
            const T* img = in + static_cast<std::int64_t>(i) * c * h * w;
            for (std::int64_t r = 0; r < rows[i]; ++r) {
                const std::int64_t oh = r / owi, ow = r % owi;
                T* dst = o + (lod[0][i] + r) * c * kh * kw;
                for (std::int64_t ch = 0; ch < c; ++ch)
                    for (std::int64_t a = 0; a < kh; ++a) {
                        const std::int64_t ih = oh * p.strides[0] + a - p.paddings[0];
                        for (std::int64_t b = 0; b < kw; ++b) {
                            const std::int64_t iw = ow * p.strides[1] + b - p.paddings[1];
                            *dst++ = ih < 0 || ih >= h || iw < 0 || iw >= w
                                         ? T(0)
                                         : img[(ch * h + ih) * w + iw];
                        }
                    }
            }
        }
        out.shape[0] = total;
        out.lod = std::move(lod);
    }
};

}  // namespace litegraph::ops
