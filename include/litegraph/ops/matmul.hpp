// Matrix products: `mul` (flattens X and Y to matrices at x/y_num_col_dims),
// `matmul` (v1: transpose_X/Y, alpha, batch dims matched by their product,
// a 2-D side broadcasts) and `matmul_v2` (trans_x/y, numpy broadcasting of the
// batch dims).  1-D operands follow Paddle: X [K] is a row [1,K], Y [K] a
// column [K,1], and the added dim is dropped from the output again.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "litegraph/kernels/fc.hpp"
#include "litegraph/kernels/matmul.hpp"
#include "litegraph/ops/firmware.hpp"
#include "litegraph/ops/op.hpp"

namespace litegraph::ops {

namespace detail {
inline std::int64_t prod(const shape_t& s, std::size_t b, std::size_t e) {
    std::int64_t n = 1;
    for (std::size_t i = b; i < e; ++i) n *= s[i];
    return n;
}

/// One (M x K) * (K x N) product (kernels/matmul.hpp).
using kernels::gemm;

/// One product on the desktop kernel (kernels/fc.hpp: the packed SGEMM, a
/// GEMV for one row), split over the pool's threads: column ranges on
/// multiples of kernels::fc_column_grain (one row, or enough columns), else
/// row ranges on the SGEMM.  Either split gives every element the arithmetic
/// of one call, so the output does not depend on the number of threads.
inline void fast_gemm(thread_pool* pool, const kernels::gemm_shape& s, const float* x,
                      const float* y, float* out) {
    const auto T = static_cast<std::int64_t>(pool_threads(pool));
    if (T == 1 || s.m * s.n * std::max<std::int64_t>(s.k, 1) < (std::int64_t{1} << 16)) {
        kernels::fc_gemm(s, x, y, out);
        return;
    }
    constexpr std::int64_t grain = kernels::fc_column_grain;
    const std::int64_t chunks = (s.n + grain - 1) / grain;
    if (chunks >= T || s.m == 1 || s.tx) {
        const std::int64_t tasks = std::min(T, chunks);
        const std::int64_t per = (chunks + tasks - 1) / tasks * grain;
        parallel_tasks(pool, tasks, [&](std::int64_t t) {
            kernels::fc_gemm(s, x, y, out, t * per, std::min(s.n, (t + 1) * per));
        });
        return;
    }
    constexpr std::int64_t mr = kernels::gemm_tile::mr;
    const std::int64_t per = ((s.m + T - 1) / T + mr - 1) / mr * mr;
    const std::int64_t tasks = (s.m + per - 1) / per;
    parallel_tasks(pool, tasks, [&](std::int64_t t) {
        const std::int64_t m0 = t * per, m1 = std::min(s.m, m0 + per);
        const kernels::gemm_shape part{m1 - m0, s.k, s.n, false, s.ty, s.alpha};
        kernels::fc_sgemm(part, x + m0 * s.k, y, out + m0 * s.n, 0, s.n);
    });
}

/// Batched products: xb and yb are the batch dims of X and Y aligned to ob
/// (same length, 1 where a side broadcasts).  A Y shared by every batch of an
/// untransposed X is one product of all the batches' rows; else the batches
/// are split over the threads when there are enough of them, the columns of
/// each product otherwise.
inline void batched_gemm(thread_pool* pool, const float* x, const float* y, float* out,
                         const shape_t& xb, const shape_t& yb, const shape_t& ob, std::int64_t M,
                         std::int64_t K, std::int64_t N, bool tx, bool ty, float alpha) {
    const std::size_t n = ob.size();
    const std::int64_t batches = numel(ob);
    if (batches <= 0) return;
    if (!tx && numel(yb) == 1 && numel(xb) == batches) {
        fast_gemm(pool, {batches * M, K, N, false, ty, alpha}, x, y, out);
        return;
    }
    std::vector<std::int64_t> sx(n, 0), sy(n, 0);
    std::int64_t ax = 1, ay = 1;
    for (std::size_t d = n; d-- > 0;) {
        sx[d] = xb[d] == 1 ? 0 : ax;
        sy[d] = yb[d] == 1 ? 0 : ay;
        ax *= xb[d];
        ay *= yb[d];
    }
    auto offsets = [&](std::int64_t b) {
        std::int64_t rem = b, bx = 0, by = 0;
        for (std::size_t d = n; d-- > 0;) {
            const std::int64_t i = rem % ob[d];
            rem /= ob[d];
            bx += i * sx[d];
            by += i * sy[d];
        }
        return std::pair{bx, by};
    };
    const kernels::gemm_shape s{M, K, N, tx, ty, alpha};
    const auto T = static_cast<std::int64_t>(pool_threads(pool));
    if (T > 1 && batches >= T) {
        const std::int64_t per = (batches + T - 1) / T;
        parallel_tasks(pool, (batches + per - 1) / per, [&](std::int64_t t) {
            for (std::int64_t b = t * per; b < std::min(batches, (t + 1) * per); ++b) {
                const auto [bx, by] = offsets(b);
                kernels::fc_gemm(s, x + bx * M * K, y + by * K * N, out + b * M * N);
            }
        });
        return;
    }
    for (std::int64_t b = 0; b < batches; ++b) {
        const auto [bx, by] = offsets(b);
        fast_gemm(pool, s, x + bx * M * K, y + by * K * N, out + b * M * N);
    }
}

inline void check_float_inputs(const op_io& io) {
    const auto& x = io.input("X");
    const auto& y = io.input("Y");
    io.check(x.type == dtype::f32 && y.type == dtype::f32, [&] {
        return "X and Y must be float32, got " + std::string(name_of(x.type)) + " and " +
               std::string(name_of(y.type));
    });
}
}  // namespace detail

/// mul: Out[x[:xc] + y[yc:]] = flatten(X, xc) * flatten(Y, yc).
struct mul {
    static constexpr std::string_view paddle_types[] = {"mul"};
    /// quantize_int8 makes it a mul_int8 (ops/op.hpp).
    static constexpr int8_form int8 = int8_form::matrix;
    struct params {
        int x_num_col_dims = 1;
        int y_num_col_dims = 1;
    };
    static params parse(const attr_map& a, std::string_view) {
        return {a.get<int>("x_num_col_dims", 1), a.get<int>("y_num_col_dims", 1)};
    }

    struct dims {
        std::int64_t M, K, N;
    };
    static dims check(const params& p, const op_io& io, shape_t* out_shape) {
        detail::check_float_inputs(io);
        const auto& xs = io.input("X").shape;
        const auto& ys = io.input("Y").shape;
        io.check(p.x_num_col_dims >= 1 && static_cast<std::size_t>(p.x_num_col_dims) < xs.size(),
                 [&] {
                     return "x_num_col_dims " + std::to_string(p.x_num_col_dims) +
                            " must be in [1, rank of X " + to_string(xs) + ")";
                 });
        io.check(p.y_num_col_dims >= 1 && static_cast<std::size_t>(p.y_num_col_dims) < ys.size(),
                 [&] {
                     return "y_num_col_dims " + std::to_string(p.y_num_col_dims) +
                            " must be in [1, rank of Y " + to_string(ys) + ")";
                 });
        const auto xc = static_cast<std::size_t>(p.x_num_col_dims);
        const auto yc = static_cast<std::size_t>(p.y_num_col_dims);
        if (out_shape) {
            out_shape->assign(xs.begin(), xs.begin() + static_cast<std::ptrdiff_t>(xc));
            out_shape->insert(out_shape->end(), ys.begin() + static_cast<std::ptrdiff_t>(yc),
                              ys.end());
        }
        if (!is_known(xs) || !is_known(ys)) return {-1, -1, -1};
        dims d{detail::prod(xs, 0, xc), detail::prod(xs, xc, xs.size()),
               detail::prod(ys, yc, ys.size())};
        const auto ky = detail::prod(ys, 0, yc);
        io.check(d.K == ky, [&] {
            return "X " + to_string(xs) + " flattened at " + std::to_string(xc) + " has " +
                   std::to_string(d.K) + " columns but Y " + to_string(ys) + " flattened at " +
                   std::to_string(yc) + " has " + std::to_string(ky) + " rows";
        });
        return d;
    }

    static void infer(const params& p, op_io& io) {
        shape_t s;
        check(p, io, &s);
        auto& out = io.output("Out");
        out.type = dtype::f32;
        out.shape = std::move(s);
    }

    /// The firmware form (ops/firmware.hpp): one product, Y a constant or a
    /// tensor.
    using form = kernels::gemm_shape;
    static constexpr std::string_view firmware_inputs[] = {"X", "Y"};
    static constexpr std::string_view firmware_output = "Out";
    static form form_of(const params& p, const op_io& io) {
        const auto d = check(p, io, nullptr);
        return {d.M, d.K, d.N, false, false, 1.f};
    }
    static constexpr std::size_t scratch_bytes(const form&) { return 0; }
    static void run_form(const form& f, const firmware_io& io) {
        kernels::gemm(f, io.input<float>(0), io.input<float>(1), io.output<float>());
    }

    /// The desktop kernel (detail::fast_gemm); firmware runs run_form.
    static void run(const params& p, op_io& io) {
        const auto d = check(p, io, nullptr);
        detail::fast_gemm(io.pool, {d.M, d.K, d.N, false, false, 1.f}, io.input("X").as<float>(),
                          io.input("Y").as<float>(), io.output("Out").as<float>());
    }
};

/// matmul (v1): Out = alpha * op(X) * op(Y).
struct matmul {
    static constexpr std::string_view paddle_types[] = {"matmul"};
    /// quantize_int8 makes it a mul_int8 (ops/op.hpp).
    static constexpr int8_form int8 = int8_form::matrix;
    struct params {
        bool transpose_x = false;
        bool transpose_y = false;
        float alpha = 1.f;
    };
    static params parse(const attr_map& a, std::string_view) {
        if (a.get<int>("head_number", 1) != 1)
            LITEGRAPH_THROW(unsupported_error("matmul: head_number != 1 is not supported"));
        for (const char* n : {"fused_reshape_X", "fused_reshape_Y", "fused_transpose_X",
                              "fused_transpose_Y", "fused_reshape_Out", "fused_transpose_Out"})
            if (!a.get<std::vector<int>>(n, {}).empty())
                LITEGRAPH_THROW(
                    unsupported_error(std::string("matmul: attribute ") + n + " is not supported"));
        return {a.get<bool>("transpose_X", false), a.get<bool>("transpose_Y", false),
                a.get<float>("alpha", 1.f)};
    }

    /// Paddle's MatDescriptor: batch (0 for a 2-D matrix), height, width after
    /// transposition.
    struct desc {
        std::int64_t batch = 0, h = 0, w = 0;
    };
    static desc describe(const shape_t& s, bool trans) {
        desc d;
        const std::size_t n = s.size();
        if (n > 2) d.batch = detail::prod(s, 0, n - 2);
        d.h = s[n - 2];
        d.w = s[n - 1];
        if (trans) std::swap(d.h, d.w);
        return d;
    }

    struct plan {
        desc x, y;
        shape_t out;
    };
    static plan make_plan(const params& p, const op_io& io) {
        detail::check_float_inputs(io);
        const auto& xs = io.input("X").shape;
        const auto& ys = io.input("Y").shape;
        io.check(!xs.empty() && !ys.empty(), [&] {
            return "X " + to_string(xs) + " and Y " + to_string(ys) + " must have at least one dim";
        });
        const shape_t xm = xs.size() == 1 ? shape_t{1, xs[0]} : xs;
        const shape_t ym = ys.size() == 1 ? shape_t{ys[0], 1} : ys;
        plan pl{describe(xm, p.transpose_x), describe(ym, p.transpose_y), {}};
        const bool known = is_known(xs) && is_known(ys);
        io.check(!known || pl.x.batch == pl.y.batch || pl.x.batch == 0 || pl.y.batch == 0, [&] {
            return "batch sizes of X " + to_string(xs) + " and Y " + to_string(ys) + " differ";
        });
        io.check(!known || pl.x.w == pl.y.h, [&] {
            return "X " + to_string(xs) + (p.transpose_x ? " (transposed)" : "") + " has " +
                   std::to_string(pl.x.w) + " columns but Y " + to_string(ys) +
                   (p.transpose_y ? " (transposed)" : "") + " has " + std::to_string(pl.y.h) +
                   " rows";
        });
        if (xs.size() > 2)
            pl.out = xs;
        else if (ys.size() > 2)
            pl.out = ys;
        else
            pl.out = {0, 0};
        pl.out[pl.out.size() - 2] = pl.x.h;
        pl.out[pl.out.size() - 1] = pl.y.w;
        if (xs.size() == 1 && pl.out[pl.out.size() - 2] == 1) {
            std::swap(pl.out[pl.out.size() - 2], pl.out[pl.out.size() - 1]);
            pl.out.pop_back();
        }
        if (ys.size() == 1 && pl.out.back() == 1) pl.out.pop_back();
        if (pl.out.empty()) pl.out = {1};
        return pl;
    }

    static void infer(const params& p, op_io& io) {
        auto pl = make_plan(p, io);
        auto& out = io.output("Out");
        out.type = dtype::f32;
        out.shape = std::move(pl.out);
    }

    /// The firmware form (ops/firmware.hpp): one product, Y a constant or a
    /// tensor.
    using form = kernels::gemm_shape;
    static constexpr std::string_view firmware_inputs[] = {"X", "Y"};
    static constexpr std::string_view firmware_output = "Out";
    static form form_of(const params& p, const op_io& io) {
        const auto pl = make_plan(p, io);
        if (pl.x.batch > 1 || pl.y.batch > 1) no_firmware_form("a batched matmul");
        return {pl.x.h, pl.x.w, pl.y.w, p.transpose_x, p.transpose_y, p.alpha};
    }
    static constexpr std::size_t scratch_bytes(const form&) { return 0; }
    static void run_form(const form& f, const firmware_io& io) {
        kernels::gemm(f, io.input<float>(0), io.input<float>(1), io.output<float>());
    }

    static void run(const params& p, op_io& io) {
        auto pl = make_plan(p, io);
        const std::int64_t B = std::max<std::int64_t>({pl.x.batch, pl.y.batch, 1});
        const shape_t xb{pl.x.batch > 0 ? B : 1}, yb{pl.y.batch > 0 ? B : 1}, ob{B};
        detail::batched_gemm(io.pool, io.input("X").as<float>(), io.input("Y").as<float>(),
                             io.output("Out").as<float>(), xb, yb, ob, pl.x.h, pl.x.w, pl.y.w,
                             p.transpose_x, p.transpose_y, p.alpha);
    }
};

/// matmul_v2: Out = op(X) * op(Y) with numpy broadcasting of the batch dims.
struct matmul_v2 {
    static constexpr std::string_view paddle_types[] = {"matmul_v2"};
    static constexpr pir_name pir_names[] = {{"1.matmul", "matmul_v2"}};
    /// quantize_int8 makes it a mul_int8 (ops/op.hpp).
    static constexpr int8_form int8 = int8_form::matrix;
    struct params {
        bool trans_x = false;
        bool trans_y = false;
    };
    static params parse(const attr_map& a, std::string_view) {
        return {a.get<bool>("trans_x", false), a.get<bool>("trans_y", false)};
    }

    struct plan {
        std::int64_t M = 0, K = 0, N = 0;
        bool tx = false, ty = false;
        shape_t xb, yb, ob, out;
    };
    static plan make_plan(const params& p, const op_io& io) {
        detail::check_float_inputs(io);
        const auto& xs = io.input("X").shape;
        const auto& ys = io.input("Y").shape;
        io.check(!xs.empty() && !ys.empty(), [&] {
            return "X " + to_string(xs) + " and Y " + to_string(ys) + " must have at least one dim";
        });
        plan pl;
        // A 1-D side ignores its transpose flag (Paddle's kernel does).
        const shape_t xm = xs.size() == 1 ? shape_t{1, xs[0]} : xs;
        const shape_t ym = ys.size() == 1 ? shape_t{ys[0], 1} : ys;
        pl.tx = xs.size() > 1 && p.trans_x;
        pl.ty = ys.size() > 1 && p.trans_y;
        const std::size_t nx = xm.size(), ny = ym.size();
        pl.M = pl.tx ? xm[nx - 1] : xm[nx - 2];
        pl.K = pl.tx ? xm[nx - 2] : xm[nx - 1];
        const std::int64_t ky = pl.ty ? ym[ny - 1] : ym[ny - 2];
        pl.N = pl.ty ? ym[ny - 2] : ym[ny - 1];
        io.check(pl.K < 0 || ky < 0 || pl.K == ky, [&] {
            return "X " + to_string(xs) + (pl.tx ? " (transposed)" : "") + " has " +
                   std::to_string(pl.K) + " columns but Y " + to_string(ys) +
                   (pl.ty ? " (transposed)" : "") + " has " + std::to_string(ky) + " rows";
        });
        const std::size_t nb = std::max(nx, ny) - 2;
        pl.xb.assign(nb, 1);
        pl.yb.assign(nb, 1);
        pl.ob.assign(nb, 1);
        std::copy(xm.begin(), xm.end() - 2,
                  pl.xb.begin() + static_cast<std::ptrdiff_t>(nb - (nx - 2)));
        std::copy(ym.begin(), ym.end() - 2,
                  pl.yb.begin() + static_cast<std::ptrdiff_t>(nb - (ny - 2)));
        for (std::size_t i = 0; i < nb; ++i) {
            const auto a = pl.xb[i], b = pl.yb[i];
            io.check(a == b || a == 1 || b == 1 || a < 0 || b < 0, [&] {
                return "batch dims of X " + to_string(xs) + " and Y " + to_string(ys) +
                       " do not broadcast";
            });
            pl.ob[i] = a == 1 ? b : (b == 1 ? a : std::max(a, b));
        }
        pl.out = pl.ob;
        if (xs.size() > 1) pl.out.push_back(pl.M);
        if (ys.size() > 1) pl.out.push_back(pl.N);
        if (xs.size() == 1 && ys.size() == 1) pl.out.push_back(1);  // Paddle <= 2.4: [1]
        return pl;
    }

    static void infer(const params& p, op_io& io) {
        auto pl = make_plan(p, io);
        auto& out = io.output("Out");
        out.type = dtype::f32;
        out.shape = std::move(pl.out);
    }

    /// The firmware form (ops/firmware.hpp): one product, Y a constant or a
    /// tensor.
    using form = kernels::gemm_shape;
    static constexpr std::string_view firmware_inputs[] = {"X", "Y"};
    static constexpr std::string_view firmware_output = "Out";
    static form form_of(const params& p, const op_io& io) {
        const auto pl = make_plan(p, io);
        if (numel(pl.ob) > 1) no_firmware_form("a batched matmul_v2");
        return {pl.M, pl.K, pl.N, pl.tx, pl.ty, 1.f};
    }
    static constexpr std::size_t scratch_bytes(const form&) { return 0; }
    static void run_form(const form& f, const firmware_io& io) {
        kernels::gemm(f, io.input<float>(0), io.input<float>(1), io.output<float>());
    }

    static void run(const params& p, op_io& io) {
        auto pl = make_plan(p, io);
        detail::batched_gemm(io.pool, io.input("X").as<float>(), io.input("Y").as<float>(),
                             io.output("Out").as<float>(), pl.xb, pl.yb, pl.ob, pl.M, pl.K, pl.N,
                             pl.tx, pl.ty, 1.f);
    }
};

}  // namespace litegraph::ops
