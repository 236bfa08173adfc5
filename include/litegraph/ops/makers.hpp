// Tensor makers:
//   assign: Out = a copy of X (any dtype).
//   fill_any_like: Out of X's shape filled with `value` (float, default 0), of
//     dtype `dtype` (a Paddle VarType code; -1, the default: X's dtype).
//   fill_constant_batch_size_like: Out of shape `shape` with dim
//     `output_dim_idx` set to Input's dim `input_dim_idx` (both default 0),
//     filled with `value` (or `str_value`), of dtype `dtype` (default float32);
//     it reads only Input's shape, so its firmware form fills Out at run time
//     with the element's bytes computed when the network is generated.
//   range: Out = start, start + step, ... up to end (excluded), with Paddle's
//     size (ceil(|end - start| / |step|)) and its accumulation (each value is
//     the previous plus step).  Start, End and Step are one-element inputs of
//     one dtype (float32/64, int32/64) whose values must be known when the
//     program is planned (the output's size depends on them).
//   where: Out = Condition ? X : Y, Condition bool, X and Y of one dtype, the
//     three broadcast numpy-style (trailing dims aligned).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "litegraph/kernels/elementwise.hpp"
#include "litegraph/ops/detail/shape_args.hpp"
#include "litegraph/ops/elementwise.hpp"
#include "litegraph/ops/fill_constant.hpp"
#include "litegraph/ops/firmware.hpp"
#include "litegraph/ops/op.hpp"

namespace litegraph::ops {

struct assign {
    static constexpr std::string_view paddle_types[] = {"assign"};
    struct params {};
    static params parse(const attr_map&, std::string_view) { return {}; }
    static void infer(const params&, op_io& io) {
        const auto& x = io.input("X");
        auto& out = io.output("Out");
        out.type = x.type;
        out.shape = x.shape;
    }
    static void run(const params&, op_io& io) { detail::copy_all(io.input("X"), io.output("Out")); }
};

namespace detail {
/// Fills `out` with `v` converted to its dtype (float16 through fill_constant's rounding).
inline void fill_value(const op_io& io, const tensor_ref& out, double v) {
    if (out.type == dtype::f16) {
        auto h = fill_constant::to_half(static_cast<float>(v));
        auto* o = reinterpret_cast<std::uint16_t*>(out.data);
        for (std::int64_t i = 0; i < out.numel(); ++i) o[i] = h;
        return;
    }
    visit_dtype(out.type, [&]<class T>(T) {
        const T x = fill_constant::cast<T>(io, v);
        for (auto& e : out.span<T>()) e = x;
    });
}
}  // namespace detail

struct fill_any_like {
    static constexpr std::string_view paddle_types[] = {"fill_any_like"};
    static constexpr pir_name pir_names[] = {{"1.full_like", "fill_any_like"}};
    struct params {
        double value = 0;
        int dtype_code = -1;
    };
    static params parse(const attr_map& a, std::string_view) {
        return {a.get<double>("value", 0.0), a.get<int>("dtype", -1)};
    }
    static void infer(const params& p, op_io& io) {
        const auto& x = io.input("X");
        auto& out = io.output("Out");
        out.type = p.dtype_code == -1 ? x.type : detail::dtype_from_paddle(io, p.dtype_code);
        out.shape = x.shape;
        if (out.type != dtype::f16)
            visit_dtype(out.type, [&]<class T>(T) {
                (void)fill_constant::cast<T>(io, p.value);  // a value the dtype cannot hold: now
            });
    }
    static void run(const params& p, op_io& io) {
        detail::fill_value(io, io.output("Out"), p.value);
    }
};

struct fill_constant_batch_size_like {
    static constexpr std::string_view paddle_types[] = {"fill_constant_batch_size_like"};
    static constexpr pir_name pir_names[] = {
        {"1.full_batch_size_like", "fill_constant_batch_size_like"}};
    struct params {
        shape_t shape;
        int dtype_code = 5;
        double value = 0;
        std::string str_value;
        int input_dim_idx = 0;
        int output_dim_idx = 0;
    };
    static params parse(const attr_map& a, std::string_view) {
        return {a.get<shape_t>("shape", {}),    a.get<int>("dtype", 5),
                a.get<double>("value", 0.0),    a.get<std::string>("str_value", ""),
                a.get<int>("input_dim_idx", 0), a.get<int>("output_dim_idx", 0)};
    }
    static fill_constant::params as_fill(const params& p) {
        return {p.shape, p.dtype_code, p.value, p.str_value};
    }
    static void infer(const params& p, op_io& io) {
        const auto& in = io.input("Input");
        const auto ir = static_cast<int>(in.shape.size()), orank = static_cast<int>(p.shape.size());
        io.check(p.input_dim_idx >= 0 && p.input_dim_idx < ir, [&] {
            return "input_dim_idx " + std::to_string(p.input_dim_idx) +
                   " is out of range for Input of rank " + std::to_string(ir);
        });
        io.check(p.output_dim_idx >= 0 && p.output_dim_idx < orank, [&] {
            return "output_dim_idx " + std::to_string(p.output_dim_idx) +
                   " is out of range for a shape of rank " + std::to_string(orank);
        });
        shape_t s = p.shape;
        s[static_cast<std::size_t>(p.output_dim_idx)] =
            in.shape[static_cast<std::size_t>(p.input_dim_idx)];
        for (std::size_t i = 0; i < s.size(); ++i)
            io.check(s[i] >= 0 || (static_cast<int>(i) == p.output_dim_idx && s[i] == -1),
                     [&] { return "the shape " + to_string(s) + " has a negative dim"; });
        auto& out = io.output("Out");
        out.type = detail::dtype_from_paddle(io, p.dtype_code);
        out.shape = std::move(s);
        (void)fill_constant::value(as_fill(p), io);  // a bad str_value is an error now
    }
    /// The firmware form (ops/firmware.hpp): `count` elements of `elem`
    /// bytes, each the bytes of the value in Out's dtype (`bits`, as two
    /// 32-bit words in memory order).  Input is not read.
    struct form {
        std::int64_t count = 0, elem = 4;
        std::uint32_t bits_lo = 0, bits_hi = 0;
        constexpr auto fields() const { return std::tie(count, elem, bits_lo, bits_hi); }
    };
    static constexpr std::string_view firmware_inputs[] = {"Input"};
    static constexpr std::string_view firmware_output = "Out";
    static form form_of(const params& p, const op_io& io) {
        const auto& out = io.output("Out");
        // One element of Out's dtype holding the value, as the op converts it.
        alignas(8) unsigned char one[8] = {};
        tensor_ref e;
        e.type = out.type;
        e.shape = {1};
        e.data = reinterpret_cast<std::byte*>(one);
        detail::fill_value(io, e, fill_constant::value(as_fill(p), io));
        form f;
        f.count = out.numel();
        f.elem = static_cast<std::int64_t>(size_of(out.type));
        std::memcpy(&f.bits_lo, one, 4);
        std::memcpy(&f.bits_hi, one + 4, 4);
        return f;
    }
    static constexpr std::size_t scratch_bytes(const form&) { return 0; }
    static void run_form(const form& f, const firmware_io& io) {
        unsigned char one[8];
        std::memcpy(one, &f.bits_lo, 4);
        std::memcpy(one + 4, &f.bits_hi, 4);
        kernels::fill_elements(io.out, f.count, f.elem, one);
    }

    static void run(const params& p, op_io& io) {
        run_firmware_form<fill_constant_batch_size_like>(p, io);
    }
};

struct range {
    static constexpr std::string_view paddle_types[] = {"range"};
    static constexpr pir_name pir_names[] = {{"1.arange", "range"}};
    struct params {};
    static params parse(const attr_map&, std::string_view) { return {}; }

    /// The one value of input `slot`; fails when it is not known yet.
    static double scalar(const op_io& io, const char* slot) {
        const auto& t = io.input(slot);
        io.check(is_known(t.shape) && t.numel() == 1, [&] {
            return "input '" + std::string(slot) + "' must hold one value, its shape is " +
                   to_string(t.shape);
        });
        if (!t.has_data())
            io.fail("the value of input '" + std::string(slot) + "' ('" + std::string(t.name) +
                    "') decides the output size but is not known before the run (it must be a "
                    "weight, a feed or computed from shapes)");
        double r = 0;
        visit_dtype(t.type, [&]<class T>(T) { r = static_cast<double>(t.as<T>()[0]); });
        return r;
    }

    /// Paddle's GetSize, checked.
    template <class T>
    static std::int64_t size_of_range(const op_io& io, T start, T end, T step) {
        io.check(step != T(0), "the step is 0");
        if (start < end) io.check(step > T(0), "the step must be positive when start < end");
        if (start > end) io.check(step < T(0), "the step must be negative when start > end");
        if constexpr (std::is_integral_v<T>) {
            const double n =
                (std::fabs(double(end) - double(start)) + std::fabs(double(step)) - 1) /
                std::fabs(double(step));
            return static_cast<std::int64_t>(n);
        } else {
            const double n = std::ceil(std::fabs((double(end) - double(start)) / double(step)));
            io.check(n < 9e15, "the range has too many elements");
            return static_cast<std::int64_t>(n);
        }
    }

    template <class F>
    static void with_values(op_io& io, F f) {
        const auto t = io.input("Start").type;
        for (const char* s : {"End", "Step"})
            io.check(io.input(s).type == t, [&] {
                return std::string(s) + " is " + std::string(name_of(io.input(s).type)) +
                       " but Start is " + std::string(name_of(t));
            });
        io.check(t == dtype::f32 || t == dtype::f64 || t == dtype::i32 || t == dtype::i64,
                 [&] { return "Start of dtype " + std::string(name_of(t)) + " is not supported"; });
        const double s = scalar(io, "Start"), e = scalar(io, "End"), st = scalar(io, "Step");
        visit_dtype(t, [&]<class T>(T) {
            if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> ||
                          std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t>)
                f(static_cast<T>(s), static_cast<T>(e), static_cast<T>(st));
        });
    }

    static void infer(const params&, op_io& io) {
        auto& out = io.output("Out");
        out.type = io.input("Start").type;
        with_values(io,
                    [&]<class T>(T s, T e, T st) { out.shape = {size_of_range(io, s, e, st)}; });
    }
    static void run(const params&, op_io& io) {
        auto& out = io.output("Out");
        with_values(io, [&]<class T>(T s, T e, T st) {
            const auto n = size_of_range(io, s, e, st);
            io.check(n == out.numel(), "the output was sized for other Start/End/Step values");
            T* o = out.as<T>();
            T v = s;
            for (std::int64_t i = 0; i < n; ++i) {
                o[i] = v;
                v = static_cast<T>(v + st);
            }
        });
    }
};

struct where {
    static constexpr std::string_view paddle_types[] = {"where"};
    static constexpr pir_name pir_names[] = {{"1.where", "where"}};
    struct params {};
    static params parse(const attr_map&, std::string_view) { return {}; }

    static shape_t out_shape(const op_io& io) {
        const auto& c = io.input("Condition");
        const auto& x = io.input("X");
        const auto& y = io.input("Y");
        const auto xy = paddle_broadcast(x.shape, y.shape, -1, io).out;
        return paddle_broadcast(c.shape, xy, -1, io).out;
    }
    static void infer(const params&, op_io& io) {
        const auto& c = io.input("Condition");
        const auto& x = io.input("X");
        const auto& y = io.input("Y");
        io.check(c.type == dtype::boolean,
                 [&] { return "Condition must be bool, got " + std::string(name_of(c.type)); });
        io.check(x.type == y.type, [&] {
            return "X is " + std::string(name_of(x.type)) + " but Y is " +
                   std::string(name_of(y.type));
        });
        io.check(x.type != dtype::f16, "float16 inputs are not supported");
        auto& out = io.output("Out");
        out.type = x.type;
        out.shape = out_shape(io);
    }
    static void run(const params&, op_io& io) {
        const auto& c = io.input("Condition");
        const auto& x = io.input("X");
        const auto& y = io.input("Y");
        auto& out = io.output("Out");
        const shape_t os = out_shape(io);
        const std::size_t n = os.size();
        auto padded = [&](const shape_t& s) {
            shape_t p(n - s.size(), 1);
            p.insert(p.end(), s.begin(), s.end());
            return broadcast_strides(p, os);
        };
        const auto sc = padded(c.shape), sx = padded(x.shape), sy = padded(y.shape);
        const std::int64_t total = numel(os);
        const bool* cd = c.as<bool>();
        visit_dtype(x.type, [&]<class T>(T) {
            const T* xd = x.as<T>();
            const T* yd = y.as<T>();
            T* o = out.as<T>();
            std::vector<std::int64_t> idx(n, 0);
            std::int64_t ic = 0, ix = 0, iy = 0;
            for (std::int64_t i = 0; i < total; ++i) {
                o[i] = cd[ic] ? xd[ix] : yd[iy];
                for (std::size_t d = n; d-- > 0;) {
                    ic += sc[d];
                    ix += sx[d];
                    iy += sy[d];
                    if (++idx[d] < os[d]) break;
                    ic -= sc[d] * os[d];
                    ix -= sx[d] * os[d];
                    iy -= sy[d] * os[d];
                    idx[d] = 0;
                }
            }
        });
    }
};

}  // namespace litegraph::ops
