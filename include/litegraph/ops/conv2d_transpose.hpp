// conv2d_transpose / depthwise_conv2d_transpose (NCHW), the gradient of conv2d
// with respect to its input: every input pixel scatters its filter window.
//
// Slots: Input [N, C, H, W], Filter [C, OC/groups, KH, KW], optional Bias [OC]
// -> Output [N, OC, OH, OW] with
//   OH = (H - 1) * stride - pad_top - pad_bottom + dilation * (KH - 1) + 1
// plus output_padding, or exactly output_size when given (which must lie in
// [OH, OH + stride)).  Attributes: strides, paddings (2 or 4 values),
// dilations, groups, output_padding, output_size, padding_algorithm (SAME
// resets dilation to 1), data_format (NCHW or AnyLayout).
// Windows that tile the output (window == stride, no padding) run as one
// SGEMM per block of input rows and an interleaved write; other disjoint
// windows as an SGEMM scattered into the output; the rest as a scatter loop.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <vector>

#include "litegraph/kernels/gemm.hpp"
#include "litegraph/ops/detail/window.hpp"
#include "litegraph/ops/op.hpp"

namespace litegraph::ops {

struct conv2d_transpose {
    static constexpr std::string_view paddle_types[] = {"conv2d_transpose",
                                                        "depthwise_conv2d_transpose"};
    static constexpr pir_name pir_names[] = {
        {"1.conv2d_transpose", "conv2d_transpose"},
        {"1.depthwise_conv2d_transpose", "depthwise_conv2d_transpose"}};
    struct params {
        std::vector<std::int64_t> strides{1, 1};
        std::vector<std::int64_t> paddings{0, 0};
        std::vector<std::int64_t> dilations{1, 1};
        std::vector<std::int64_t> output_padding;
        std::vector<std::int64_t> output_size;
        std::int64_t groups = 1;
        detail::padding_algorithm padding = detail::padding_algorithm::explicit_pads;
    };

    static params parse(const attr_map& a, std::string_view type) {
        detail::require_nchw(a, "data_format", type);
        params p;
        p.strides = a.get<std::vector<std::int64_t>>("strides", {1, 1});
        p.paddings = a.get<std::vector<std::int64_t>>("paddings", {0, 0});
        p.dilations = a.get<std::vector<std::int64_t>>("dilations", {1, 1});
        p.output_padding = a.get<std::vector<std::int64_t>>("output_padding", {});
        p.output_size = a.get<std::vector<std::int64_t>>("output_size", {});
        p.groups = a.get<std::int64_t>("groups", 1);
        p.padding = detail::parse_padding_algorithm(a, type);
        return p;
    }

    struct geometry {
        std::int64_t n, c, h, w;      // input
        std::int64_t oc, kh, kw;      // OC = Filter[1] * groups
        std::int64_t oh, ow;          // output (-1 when an input dim is unknown)
        std::int64_t sh, sw, dh, dw;  // strides, dilations (after SAME)
        std::int64_t pt, pl;          // top and left padding (the kernel's offsets)
        std::int64_t groups;
    };

    static geometry resolve(const params& p, const op_io& io) {
        const auto& x = detail::f32_input(io, "Input", 4);
        const auto& f = detail::f32_input(io, "Filter", 4);
        io.check(is_known(f.shape),
                 [&] { return "Filter shape " + to_string(f.shape) + " is not known"; });
        io.check(io.input_count("OutputSize") == 0, "an OutputSize input is not supported");
        detail::check_pair(io, p.strides, "strides", 1);
        detail::check_pair(io, p.dilations, "dilations", 1);
        io.check(p.groups >= 1,
                 [&] { return "attribute groups must be >= 1, got " + std::to_string(p.groups); });
        geometry g{};
        g.n = x.shape[0], g.c = x.shape[1], g.h = x.shape[2], g.w = x.shape[3];
        g.oc = f.shape[1] * p.groups, g.kh = f.shape[2], g.kw = f.shape[3];
        g.groups = p.groups;
        io.check(f.shape[0] % p.groups == 0, [&] {
            return "Filter input channels " + std::to_string(f.shape[0]) + " (Filter shape " +
                   to_string(f.shape) + ") are not divisible by groups " + std::to_string(p.groups);
        });
        if (g.c >= 0)
            io.check(g.c == f.shape[0], [&] {
                return "Input channels " + std::to_string(g.c) + " (Input shape " +
                       to_string(x.shape) + ") != Filter dim 0 " + std::to_string(f.shape[0]) +
                       " (Filter shape " + to_string(f.shape) + ")";
            });
        io.check(g.kh >= 1 && g.kw >= 1,
                 [&] { return "empty Filter window " + to_string(f.shape); });
        auto dil = p.dilations;
        const std::int64_t in[2] = {g.h, g.w}, k[2] = {g.kh, g.kw};
        auto pads = detail::resolve_padding(io, p.paddings, p.padding, in, p.strides, k, &dil);
        g.sh = p.strides[0], g.sw = p.strides[1], g.dh = dil[0], g.dw = dil[1];
        g.pt = pads[0], g.pl = pads[2];
        if (!p.output_size.empty())
            io.check(p.output_size.size() == 2, [&] {
                return "attribute output_size must hold 2 values, got " +
                       detail::list_string(p.output_size);
            });
        else if (!p.output_padding.empty())
            io.check(p.output_padding.size() == 2, [&] {
                return "attribute output_padding must hold 2 values, got " +
                       detail::list_string(p.output_padding);
            });
        std::int64_t out[2] = {-1, -1};
        for (int i = 0; i < 2; ++i) {
            if (in[i] < 0) continue;
            const std::int64_t s = p.strides[i], d = dil[i];
            const std::int64_t natural =
                (in[i] - 1) * s - pads[2 * i] - pads[2 * i + 1] + d * (k[i] - 1) + 1;
            out[i] = natural;
            if (!p.output_size.empty()) {
                const auto want = p.output_size[i];
                io.check(want >= natural && want < natural + s, [&] {
                    return "output_size " + detail::list_string(p.output_size) + " must lie in [" +
                           std::to_string(natural) + ", " + std::to_string(natural + s) +
                           ") for Input shape " + to_string(x.shape);
                });
                out[i] = want;
            } else if (!p.output_padding.empty()) {
                const auto op = p.output_padding[i];
                io.check(op >= 0 && op < std::max(s, d), [&] {
                    return "output_padding " + detail::list_string(p.output_padding) +
                           " must be >= 0 and < max(stride, dilation)";
                });
                out[i] = natural + op;
            }
            io.check(out[i] > 0, [&] {
                return "output size " + std::to_string(out[i]) + " <= 0 for Input shape " +
                       to_string(x.shape);
            });
        }
        g.oh = out[0], g.ow = out[1];
        return g;
    }

    static void infer(const params& p, op_io& io) {
        auto g = resolve(p, io);
        detail::check_bias(io, g.oc);
        auto& out = io.output("Output");
        out.type = dtype::f32;
        out.shape = {g.n, g.oc, g.oh, g.ow};
    }

    /// Whether no two taps of the window reach the same output pixel (the
    /// window no wider than the stride, e.g. the 2x2 stride-2 upsampling of
    /// detection heads): then run_gemm computes each output once.
    static bool windows_disjoint(const geometry& g) {
        return (g.kh - 1) * g.dh < g.sh && (g.kw - 1) * g.dw < g.sw;
    }

    /// A[(oc, i, j), ic] = Filter[ic, oc, i, j], packed per group.
    static std::vector<kernels::packed_a> pack_filter(const geometry& g, const float* f) {
        const std::int64_t cin_g = g.c / g.groups, m = g.oc / g.groups * g.kh * g.kw;
        std::vector<kernels::packed_a> a(static_cast<std::size_t>(g.groups));
        std::vector<float> t(static_cast<std::size_t>(m * cin_g));
        for (std::int64_t grp = 0; grp < g.groups; ++grp) {
            for (std::int64_t ic = 0; ic < cin_g; ++ic)
                for (std::int64_t r = 0; r < m; ++r)
                    t[r * cin_g + ic] = f[(grp * cin_g + ic) * m + r];
            a[grp].pack(m, cin_g, t.data(), cin_g);
        }
        return a;
    }

    /// Whether the windows tile the output: window == stride, no padding or
    /// output padding, one group (the 2x2 stride-2 upsampling of detection
    /// heads), so every output pixel takes exactly one tap:
    ///   out[oc, ih * s + i, iw * s + j] = bias[oc] + sum_c x[c, ih, iw] * w[c, oc, i, j].
    static bool windows_tile(const geometry& g) {
        return g.groups == 1 && g.kh == g.sh && g.kw == g.sw && g.dh == 1 && g.dw == 1 &&
               g.pt == 0 && g.pl == 0 && g.oh == g.h * g.sh && g.ow == g.w * g.sw;
    }

    /// Tiling windows: per image and block of whole input rows, the SGEMM
    /// [OC * KH * KW, C] x [C, rows * W] into a buffer, then every output row
    /// written once, its KW source rows interleaved (no fill, no scatter).
    /// The same SGEMM elements as run_gemm (each one value of the product,
    /// whatever the blocks), plus the bias, as there: the same bits.  Blocks
    /// split over the pool in contiguous ranges, one buffer per task (its
    /// thread's workspace).
    static void run_tiles(const geometry& g, const float* x, const float* f, const float* bias,
                          float* y, thread_pool* pool) {
        const auto a = pack_filter(g, f);
        const std::int64_t in_plane = g.h * g.w, out_plane = g.oh * g.ow;
        const std::int64_t ksize = g.kh * g.kw, m = g.oc * ksize;
        const std::int64_t rows = std::max<std::int64_t>(
            1, kernels::gemm_tile::column_block(g.c) / std::max<std::int64_t>(1, g.w));
        const std::int64_t blocks = (g.h + rows - 1) / rows, units = g.n * blocks;
        if (units == 0) return;
        const std::int64_t tasks = std::min<std::int64_t>(units, pool_threads(pool));
        const std::int64_t per = (units + tasks - 1) / tasks, cols_max = rows * g.w;
        parallel_tasks(pool, tasks, [&](std::int64_t t) {
            // The task's product buffer: its thread's kernel workspace (kept
            // between runs; the SGEMM below uses the workspace's other buffers).
            float* c = kernels::workspace::grow(kernels::workspace::local().d, m * cols_max);
            for (std::int64_t u = t * per; u < std::min(units, (t + 1) * per); ++u) {
                const std::int64_t n = u / blocks, r0 = u % blocks * rows;
                const std::int64_t r1 = std::min(g.h, r0 + rows), cols = (r1 - r0) * g.w;
                kernels::sgemm(a[0], cols, x + n * g.c * in_plane + r0 * g.w, in_plane,
                               kernels::store_epilogue{c, cols});
                for (std::int64_t oc = 0; oc < g.oc; ++oc) {
                    const float b = bias ? bias[oc] : 0.f;
                    for (std::int64_t i = 0; i < g.kh; ++i) {
                        const float* ci = c + (oc * ksize + i * g.kw) * cols;
                        for (std::int64_t ih = r0; ih < r1; ++ih) {
                            float* yr = y + (n * g.oc + oc) * out_plane + (ih * g.sh + i) * g.ow;
                            const float* v = ci + (ih - r0) * g.w;
                            if (g.kw == 2) {
                                const float* v1 = v + cols;
                                for (std::int64_t iw = 0; iw < g.w; ++iw) {
                                    yr[2 * iw] = b + v[iw];
                                    yr[2 * iw + 1] = b + v1[iw];
                                }
                            } else {
                                for (std::int64_t iw = 0; iw < g.w; ++iw)
                                    for (std::int64_t j = 0; j < g.kw; ++j)
                                        yr[iw * g.kw + j] = b + v[j * cols + iw];
                            }
                        }
                    }
                }
            }
        });
    }

    /// Disjoint windows on the SGEMM: per image and group,
    /// cols[(oc, i, j), (ih, iw)] = sum over the input channels of
    /// Filter * Input, and the epilogue adds each value to the bias at its
    /// one output pixel.  Units of the SGEMM's column blocks of the input
    /// plane (gemm_tile::column_block) split over the pool: every value is one
    /// SGEMM element whatever the split, so the output is too.
    static void run_gemm(const geometry& g, const float* x, const float* f, const float* bias,
                         float* y, thread_pool* pool, const std::vector<std::int64_t>& iw_lo,
                         const std::vector<std::int64_t>& iw_hi,
                         const std::vector<std::int64_t>& y_off) {
        const std::int64_t cin_g = g.c / g.groups, cout_g = g.oc / g.groups;
        const std::int64_t in_plane = g.h * g.w, out_plane = g.oh * g.ow, ksize = g.kh * g.kw;
        const auto a = pack_filter(g, f);
        const std::int64_t planes = g.n * g.oc;
        parallel_tasks(
            pool, std::min<std::int64_t>(planes, pool_threads(pool)), [&](std::int64_t t) {
                const std::int64_t per = (planes + pool_threads(pool) - 1) / pool_threads(pool);
                for (std::int64_t i = t * per; i < std::min(planes, (t + 1) * per); ++i)
                    std::fill(y + i * out_plane, y + (i + 1) * out_plane,
                              bias ? bias[i % g.oc] : 0.f);
            });
        const std::int64_t nb = kernels::gemm_tile::column_block(cin_g);
        const std::int64_t blocks = (in_plane + nb - 1) / nb;
        parallel_tasks(pool, g.n * g.groups * blocks, [&](std::int64_t u) {
            const std::int64_t n = u / (g.groups * blocks), grp = u / blocks % g.groups;
            const std::int64_t j0 = u % blocks * nb, cols = std::min(nb, in_plane - j0);
            const float* b = x + (n * g.c + grp * cin_g) * in_plane + j0;
            kernels::sgemm(
                a[grp], cols, b, in_plane,
                [&](std::int64_t row, std::int64_t col0, const float* v, std::int64_t count) {
                    const std::int64_t oc = grp * cout_g + row / ksize;
                    const std::int64_t i = row % ksize / g.kw, j = row % g.kw;
                    float* yo = y + (n * g.oc + oc) * out_plane;
                    // Input pixels [q, q + count), row by row.
                    for (std::int64_t q = j0 + col0, e = q + count; q < e;) {
                        const std::int64_t ih = q / g.w, iw0 = q % g.w;
                        const std::int64_t iw1 = std::min(g.w, iw0 + (e - q));
                        const std::int64_t oh = ih * g.sh - g.pt + i * g.dh;
                        if (oh >= 0 && oh < g.oh) {
                            float* yr = yo + oh * g.ow + y_off[j];
                            const float* vr = v + (q - j0 - col0) - iw0;
                            const std::int64_t lo = std::max(iw0, iw_lo[j]);
                            const std::int64_t hi = std::min(iw1, iw_hi[j]);
                            for (std::int64_t iw = lo; iw < hi; ++iw) yr[iw * g.sw] += vr[iw];
                        }
                        q += iw1 - iw0;
                    }
                });
        });
    }

    // Scatter form: for each output channel and input row, every input channel
    // and kernel position adds a scaled input row into one output row.  The
    // innermost loop is contiguous in the input (and in the output at stride 1).
    static void run(const params& p, op_io& io) {
        const auto g = resolve(p, io);
        const float* x = io.input("Input").as<float>();
        const float* f = io.input("Filter").as<float>();
        const float* bias = io.input_count("Bias") > 0 ? io.input("Bias").as<float>() : nullptr;
        float* y = io.output("Output").as<float>();
        const std::int64_t cin_g = g.c / g.groups, cout_g = g.oc / g.groups;
        const std::int64_t in_plane = g.h * g.w, out_plane = g.oh * g.ow, ksize = g.kh * g.kw;

        // Per kernel column: input columns whose output column is inside the
        // output (ow = iw * sw + off), and the offset.
        std::vector<std::int64_t> iw_lo(g.kw), iw_hi(g.kw), y_off(g.kw);
        for (std::int64_t j = 0; j < g.kw; ++j) {
            const std::int64_t off = j * g.dw - g.pl;
            std::int64_t lo = off >= 0 ? 0 : (-off + g.sw - 1) / g.sw;
            std::int64_t hi = off > g.ow - 1 ? 0 : (g.ow - 1 - off) / g.sw + 1;
            iw_lo[j] = std::min(lo, g.w);
            iw_hi[j] = std::max(iw_lo[j], std::min(hi, g.w));
            y_off[j] = off;
        }

        if (windows_tile(g)) {
            run_tiles(g, x, f, bias, y, io.pool);
            return;
        }
        if (windows_disjoint(g)) {
            run_gemm(g, x, f, bias, y, io.pool, iw_lo, iw_hi, y_off);
            return;
        }

        // One output plane at a time, planes split over the pool (each plane
        // computed alone: the same output for every split).
        auto plane = [&](std::int64_t n, std::int64_t oc) {
            {
                const std::int64_t grp = oc / cout_g, ocg = oc % cout_g;
                const float* xg = x + (n * g.c + grp * cin_g) * in_plane;
                float* yo = y + (n * g.oc + oc) * out_plane;
                std::fill(yo, yo + out_plane, bias ? bias[oc] : 0.f);
                for (std::int64_t ih = 0; ih < g.h; ++ih) {
                    for (std::int64_t ic = 0; ic < cin_g; ++ic) {
                        const float* xr = xg + ic * in_plane + ih * g.w;
                        const float* fc = f + ((grp * cin_g + ic) * cout_g + ocg) * ksize;
                        for (std::int64_t i = 0; i < g.kh; ++i) {
                            const std::int64_t oh = ih * g.sh - g.pt + i * g.dh;
                            if (oh < 0 || oh >= g.oh) continue;
                            float* yr = yo + oh * g.ow;
                            for (std::int64_t j = 0; j < g.kw; ++j) {
                                const float wv = fc[i * g.kw + j];
                                const std::int64_t off = y_off[j];
                                if (g.sw == 1) {
                                    for (std::int64_t iw = iw_lo[j]; iw < iw_hi[j]; ++iw)
                                        yr[iw + off] += wv * xr[iw];
                                } else {
                                    for (std::int64_t iw = iw_lo[j]; iw < iw_hi[j]; ++iw)
                                        yr[iw * g.sw + off] += wv * xr[iw];
                                }
                            }
                        }
                    }
                }
            }
        };
        const std::int64_t planes = g.n * g.oc;
        const auto threads = static_cast<std::int64_t>(pool_threads(io.pool));
        const std::int64_t per = (planes + threads - 1) / threads;
        parallel_tasks(io.pool, (planes + per - 1) / per, [&](std::int64_t t) {
            for (std::int64_t i = t * per; i < std::min(planes, (t + 1) * per); ++i)
                plane(i / g.oc, i % g.oc);
        });
    }
};

}  // namespace litegraph::ops
