// Reductions: reduce_sum, reduce_mean, reduce_max, reduce_min, reduce_prod,
// reduce_all, reduce_any (attributes dim, keep_dim, reduce_all, out_dtype) and
// p_norm (porder, axis, keepdim, asvector; epsilon only matters to the
// gradient).
//
// The dims in `dim` (negative ones count from the end; repeats are one) are
// reduced; `reduce_all`, an empty `dim`, or a `dim` naming every dim reduces
// everything.  keep_dim keeps reduced dims as 1s; otherwise they are removed,
// and a result with no dim left is [1] (Paddle 2.x) or, with the attribute
// `decrease_to_0d` the PIR loader sets (Paddle 3.x's rule), 0-D.
// Float sums and means accumulate in double; integer sums and products wrap
// (no undefined behaviour).  reduce_sum takes what Paddle's CPU sum kernel
// takes but float16 (bool, int16, int32, int64, float32, float64); bool or
// int32 gives int64 unless out_dtype says otherwise (Paddle's SumInferMeta),
// and an out_dtype casts X to it before summing (float to int as ops::cast
// does), as Paddle's Reduce does.  reduce_max / reduce_min
// of an empty dim is an error (Paddle's kernels refuse it too).
// p_norm: porder 0 counts nonzeros, +inf / -inf give max / min |x|, any other p
// gives (sum |x|^p)^(1/p).  Float32 and float64.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "litegraph/ops/cast.hpp"
#include "litegraph/ops/detail/shape_args.hpp"
#include "litegraph/ops/op.hpp"

namespace litegraph::ops {

namespace detail {

/// Which dims of a rank-`rank` tensor a reduction removes (true = reduced).
inline std::vector<bool> reduced_dims(const op_io& io, const std::vector<std::int64_t>& dims,
                                      bool all, std::size_t rank, const char* what) {
    std::vector<bool> r(rank, all || dims.empty());
    for (auto d : dims) {
        const auto k =
            normalize_axis(io, d, static_cast<std::int64_t>(std::max<std::size_t>(rank, 1)), what);
        if (static_cast<std::size_t>(k) < rank) r[static_cast<std::size_t>(k)] = true;
    }
    return r;
}

/// The output shape of a reduction over `red`.
inline shape_t reduced_shape(const shape_t& in, const std::vector<bool>& red, bool keep_dim,
                             bool to_0d) {
    shape_t out;
    for (std::size_t i = 0; i < in.size(); ++i) {
        if (!red[i])
            out.push_back(in[i]);
        else if (keep_dim)
            out.push_back(1);
    }
    if (out.empty() && !in.empty() && !keep_dim && !to_0d) out.push_back(1);
    if (in.empty() && !to_0d && !keep_dim) out.push_back(1);
    return out;
}

/// Calls f(in_index, out_index) for every element of `in`, in order, where
/// out_index is the element of the reduction's output it belongs to.
template <class F>
void for_each_reduced(const shape_t& in, const std::vector<bool>& red, F f) {
    const std::size_t n = in.size();
    const std::int64_t total = numel(in);
    if (total == 0) return;
    if (n == 0) {  // 0-D: one element
        f(0, 0);
        return;
    }
    // Output strides of the kept dims (row-major over the kept dims only).
    std::vector<std::int64_t> os(n, 0);
    std::int64_t acc = 1;
    for (std::size_t i = n; i-- > 0;)
        if (!red[i]) {
            os[i] = acc;
            acc *= in[i];
        }
    std::vector<std::int64_t> idx(n, 0);
    std::int64_t o = 0;
    for (std::int64_t i = 0; i < total; ++i) {
        f(i, o);
        for (std::size_t d = n; d-- > 0;) {
            o += os[d];
            if (++idx[d] < in[d]) break;
            o -= os[d] * in[d];
            idx[d] = 0;
        }
    }
}

/// The number of input elements folded into each output element.
inline std::int64_t reduced_count(const shape_t& in, const std::vector<bool>& red) {
    std::int64_t c = 1;
    for (std::size_t i = 0; i < in.size(); ++i)
        if (red[i]) c *= in[i];
    return c;
}

}  // namespace detail

struct reduce {
    static constexpr std::string_view paddle_types[] = {"reduce_sum", "reduce_mean", "reduce_max",
                                                        "reduce_min", "reduce_prod", "reduce_all",
                                                        "reduce_any"};
    static constexpr pir_name pir_names[] = {{"1.sum", "reduce_sum"},   {"1.mean", "reduce_mean"},
                                             {"1.max", "reduce_max"},   {"1.min", "reduce_min"},
                                             {"1.prod", "reduce_prod"}, {"1.all", "reduce_all"},
                                             {"1.any", "reduce_any"}};
    enum class kind : std::uint8_t { sum, mean, max, min, prod, all, any };
    struct params {
        kind op = kind::sum;
        std::vector<std::int64_t> dim;
        bool keep_dim = false;
        bool reduce_all = false;
        int out_dtype = -1;
        bool to_0d = false;
    };

    static params parse(const attr_map& a, std::string_view type) {
        params p;
        bool found = false;
        for (std::size_t i = 0; i < std::size(paddle_types); ++i)
            if (type == paddle_types[i]) {
                p.op = static_cast<kind>(i);
                found = true;
            }
        if (!found) throw unsupported_error("reduce: unknown op type '" + std::string(type) + "'");
        p.dim = a.get<std::vector<std::int64_t>>("dim", {0});
        p.keep_dim = a.get<bool>("keep_dim", false);
        p.reduce_all = a.get<bool>("reduce_all", false);
        p.out_dtype = a.get<int>("out_dtype", -1);
        p.to_0d = a.get<bool>("decrease_to_0d", false);
        if (p.out_dtype != -1 && !dtype_from_paddle(p.out_dtype))
            throw unsupported_error(std::string(type) + ": out_dtype " +
                                    std::to_string(p.out_dtype) +
                                    " is not a supported Paddle data type code");
        return p;
    }

    static dtype out_type(const params& p, dtype in) {
        if (p.op == kind::all || p.op == kind::any) return dtype::boolean;
        if (p.out_dtype != -1) return *dtype_from_paddle(p.out_dtype);
        if (p.op == kind::sum && (in == dtype::boolean || in == dtype::i32)) return dtype::i64;
        return in;
    }

    static void check(const params& p, const op_io& io, const tensor_ref& x) {
        const auto t = x.type;
        if (p.op == kind::all || p.op == kind::any) {
            io.check(t == dtype::boolean,
                     [&] { return "X must be bool, got " + std::string(name_of(t)); });
            return;
        }
        // reduce_sum: every dtype of Paddle's CPU sum kernel litegraph computes in
        // (bool, int16, int32, int64, float32, float64; not float16).
        const bool sum_only = t == dtype::boolean || t == dtype::i16;
        const bool num = t == dtype::f32 || t == dtype::f64 || t == dtype::i32 || t == dtype::i64 ||
                         (p.op == kind::sum && sum_only);
        io.check(num && !(p.op == kind::mean && (t == dtype::i32 || t == dtype::i64)),
                 [&] { return "X of dtype " + std::string(name_of(t)) + " is not supported"; });
        const auto o = out_type(p, t);
        const bool o_float = o == dtype::f32 || o == dtype::f64;
        io.check(
            o_float || o == dtype::i32 || o == dtype::i64 || (p.op == kind::sum && o == dtype::i16),
            [&] { return "out_dtype " + std::string(name_of(o)) + " is not supported"; });
        // A sum casts X to out_dtype first (Paddle's Reduce with out_dtype); the
        // other reductions keep floats float and integers integer.
        io.check(p.op == kind::sum || o_float == (t == dtype::f32 || t == dtype::f64), [&] {
            return "out_dtype " + std::string(name_of(o)) + " for X of dtype " +
                   std::string(name_of(t)) + " is not supported";
        });
    }

    static void infer(const params& p, op_io& io) {
        const auto& x = io.input("X");
        check(p, io, x);
        auto red = detail::reduced_dims(io, p.dim, p.reduce_all, x.shape.size(), "dim");
        if (p.op == kind::max || p.op == kind::min)
            io.check(!is_known(x.shape) || detail::reduced_count(x.shape, red) > 0 ||
                         numel(detail::reduced_shape(x.shape, red, p.keep_dim, p.to_0d)) == 0,
                     "reduces an empty dim (max / min of no elements)");
        auto& out = io.output("Out");
        out.type = out_type(p, x.type);
        out.shape = detail::reduced_shape(x.shape, red, p.keep_dim, p.to_0d);
    }

    static void run(const params& p, op_io& io) {
        const auto& x = io.input("X");
        auto& o = io.output("Out");
        check(p, io, x);
        auto red = detail::reduced_dims(io, p.dim, p.reduce_all, x.shape.size(), "dim");
        const std::int64_t n_out = o.numel();
        const std::int64_t count = detail::reduced_count(x.shape, red);
        if ((p.op == kind::max || p.op == kind::min) && count == 0 && n_out > 0)
            io.fail("reduces an empty dim (max / min of no elements)");
        if (p.op == kind::all || p.op == kind::any) {
            const bool* in = x.as<bool>();
            bool* out = o.as<bool>();
            const bool init = p.op == kind::all;
            std::fill(out, out + n_out, init);
            detail::for_each_reduced(x.shape, red, [&](std::int64_t i, std::int64_t k) {
                out[k] = init ? (out[k] && in[i]) : (out[k] || in[i]);
            });
            return;
        }
        visit_dtype(x.type, [&]<class T>(T) {
            if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> ||
                          std::is_same_v<T, std::int16_t> || std::is_same_v<T, std::int32_t> ||
                          std::is_same_v<T, std::int64_t> || std::is_same_v<T, bool>) {
                const T* in = x.as<T>();
                visit_dtype(o.type, [&]<class O>(O) {
                    if constexpr (std::is_same_v<O, float> || std::is_same_v<O, double> ||
                                  std::is_same_v<O, std::int16_t> ||
                                  std::is_same_v<O, std::int32_t> ||
                                  std::is_same_v<O, std::int64_t>) {
                        run_typed<T, O>(p.op, in, o.as<O>(), x.shape, red, n_out, count);
                    }
                });
            }
        });
    }

    template <class T, class O>
    static void run_typed(kind op, const T* in, O* out, const shape_t& shape,
                          const std::vector<bool>& red, std::int64_t n_out, std::int64_t count) {
        // Accumulator: double for floats, the unsigned form of O for integers (wraps).
        using A = std::conditional_t<
            std::is_floating_point_v<O>, double,
            std::make_unsigned_t<std::conditional_t<std::is_floating_point_v<O>, std::int64_t, O>>>;
        std::vector<A> acc(static_cast<std::size_t>(n_out));
        if constexpr (!std::is_same_v<T, bool>)  // (check() allows bool for reduce_sum only)
            if (op == kind::max || op == kind::min) {
                std::vector<bool> seen(static_cast<std::size_t>(n_out), false);
                std::vector<T> m(static_cast<std::size_t>(n_out));
                detail::for_each_reduced(shape, red, [&](std::int64_t i, std::int64_t k) {
                    auto& v = m[static_cast<std::size_t>(k)];
                    const T e = in[i];
                    if (!seen[static_cast<std::size_t>(k)]) {
                        v = e;
                        seen[static_cast<std::size_t>(k)] = true;
                    } else if constexpr (std::is_floating_point_v<T>) {
                        // NaN propagates, as Eigen's max / min in Paddle's kernels.
                        if (std::isnan(e) || (!std::isnan(v) && (op == kind::max ? e > v : e < v)))
                            v = e;
                    } else if (op == kind::max ? e > v : e < v) {
                        v = e;
                    }
                });
                for (std::int64_t k = 0; k < n_out; ++k)
                    out[k] = static_cast<O>(m[static_cast<std::size_t>(k)]);
                return;
            }
        const A init = op == kind::prod ? A(1) : A(0);
        std::fill(acc.begin(), acc.end(), init);
        detail::for_each_reduced(shape, red, [&](std::int64_t i, std::int64_t k) {
            auto& a = acc[static_cast<std::size_t>(k)];
            A e;
            if constexpr (std::is_floating_point_v<O>)
                e = static_cast<A>(in[i]);
            else  // X cast to O first (a float that does not fit: as ops::cast)
                e = static_cast<A>(convert_element<O>(in[i]));
            a = op == kind::prod ? static_cast<A>(a * e) : static_cast<A>(a + e);
        });
        for (std::int64_t k = 0; k < n_out; ++k) {
            const A a = acc[static_cast<std::size_t>(k)];
            if constexpr (std::is_floating_point_v<O>)
                out[k] = static_cast<O>(op == kind::mean ? a / static_cast<double>(count) : a);
            else
                out[k] = static_cast<O>(a);
        }
    }
};

/// p_norm over one axis (or the whole tensor with asvector).
struct p_norm {
    static constexpr std::string_view paddle_types[] = {"p_norm"};
    static constexpr pir_name pir_names[] = {{"1.p_norm", "p_norm"}};
    struct params {
        float porder = 2.f;
        int axis = -1;
        bool keepdim = false;
        bool asvector = false;
        bool to_0d = false;
    };

    static params parse(const attr_map& a, std::string_view) {
        params p;
        p.porder = a.get<float>("porder", 2.f);
        p.axis = a.get<int>("axis", -1);
        p.keepdim = a.get<bool>("keepdim", false);
        p.asvector = a.get<bool>("asvector", false);
        p.to_0d = a.get<bool>("decrease_to_0d", false);
        if (std::isnan(p.porder)) throw unsupported_error("p_norm: porder is NaN");
        return p;
    }

    static std::vector<bool> reduced(const params& p, const op_io& io, const shape_t& s) {
        if (p.asvector) return std::vector<bool>(s.size(), true);
        return detail::reduced_dims(io, {p.axis}, false, s.size(), "axis");
    }

    static void infer(const params& p, op_io& io) {
        const auto& x = io.input("X");
        io.check(x.type == dtype::f32 || x.type == dtype::f64, [&] {
            return "X must be float32 or float64, got " + std::string(name_of(x.type));
        });
        auto red = reduced(p, io, x.shape);
        auto& out = io.output("Out");
        out.type = x.type;
        out.shape = detail::reduced_shape(x.shape, red, p.keepdim, p.to_0d);
    }

    static void run(const params& p, op_io& io) {
        const auto& x = io.input("X");
        auto& o = io.output("Out");
        auto red = reduced(p, io, x.shape);
        const std::int64_t n_out = o.numel();
        const double q = p.porder;
        const bool inf = std::isinf(q);
        visit_dtype(x.type, [&]<class T>(T) {
            if constexpr (std::is_floating_point_v<T>) {
                const T* in = x.as<T>();
                T* out = o.as<T>();
                std::vector<double> acc(static_cast<std::size_t>(n_out),
                                        inf ? (q > 0 ? 0.0 : INFINITY) : 0.0);
                detail::for_each_reduced(x.shape, red, [&](std::int64_t i, std::int64_t k) {
                    const double a = std::fabs(static_cast<double>(in[i]));
                    auto& s = acc[static_cast<std::size_t>(k)];
                    if (inf)
                        s = q > 0 ? std::max(s, a) : std::min(s, a);
                    else if (q == 0)
                        s += a != 0 ? 1.0 : 0.0;
                    else
                        s += std::pow(a, q);
                });
                for (std::int64_t k = 0; k < n_out; ++k) {
                    const double s = acc[static_cast<std::size_t>(k)];
                    out[k] = static_cast<T>(inf || q == 0 ? s : std::pow(s, 1.0 / q));
                }
            }
        });
    }
};

}  // namespace litegraph::ops
