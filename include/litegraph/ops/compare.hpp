// Comparisons and logical ops, all with a bool output:
//   equal, not_equal, less_than, less_equal, greater_than, greater_equal:
//     Out = X (op) Y with the broadcasting of the elementwise ops (Paddle's
//     `axis`, default -1); X and Y of the same dtype.  Floating-point `equal`
//     is Paddle's: |a - b| < 1e-8 (exact when either is infinite, false when
//     one is NaN); not_equal is its negation.
//   logical_and, logical_or, logical_xor: Out = bool(X) (op) bool(Y), numpy
//     broadcasting (trailing dims aligned); logical_not: Out = !bool(X).
// Paddle stores bool tensors one byte per element, as litegraph (dtype::boolean).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "litegraph/ops/elementwise.hpp"
#include "litegraph/ops/op.hpp"

namespace litegraph::ops {

namespace cmp {
/// Paddle's EqualFunctor (phi compare_functors.h).
struct equal {
    template <class T>
    bool operator()(T a, T b) const {
        if constexpr (std::is_floating_point_v<T>) {
            if (std::isinf(static_cast<double>(a)) || std::isinf(static_cast<double>(b)))
                return a == b;
            if (std::isnan(static_cast<double>(a)) || std::isnan(static_cast<double>(b)))
                return false;
            return std::fabs(static_cast<double>(a - b)) < 1e-8;
        } else {
            return a == b;
        }
    }
};
struct not_equal {
    template <class T>
    bool operator()(T a, T b) const {
        return !equal{}(a, b);
    }
};
struct less_than {
    template <class T>
    bool operator()(T a, T b) const {
        return a < b;
    }
};
struct less_equal {
    template <class T>
    bool operator()(T a, T b) const {
        return a <= b;
    }
};
struct greater_than {
    template <class T>
    bool operator()(T a, T b) const {
        return a > b;
    }
};
struct greater_equal {
    template <class T>
    bool operator()(T a, T b) const {
        return a >= b;
    }
};
struct logical_and {
    template <class T>
    bool operator()(T a, T b) const {
        return static_cast<bool>(a) && static_cast<bool>(b);
    }
};
struct logical_or {
    template <class T>
    bool operator()(T a, T b) const {
        return static_cast<bool>(a) || static_cast<bool>(b);
    }
};
struct logical_xor {
    template <class T>
    bool operator()(T a, T b) const {
        return static_cast<bool>(a) != static_cast<bool>(b);
    }
};
}  // namespace cmp

namespace detail {
/// X and Y of one dtype litegraph computes with (every one but float16).
inline void check_compare_inputs(const op_io& io, const tensor_ref& x, const tensor_ref& y) {
    io.check(x.type == y.type, [&] {
        return "X is " + std::string(name_of(x.type)) + " but Y is " + std::string(name_of(y.type));
    });
    io.check(x.type != dtype::f16, "float16 inputs are not supported");
}
}  // namespace detail

/// The comparisons and the binary logical ops: one struct, the kind from the type.
struct compare {
    static constexpr std::string_view paddle_types[] = {
        "equal",         "not_equal",   "less_than",  "less_equal", "greater_than",
        "greater_equal", "logical_and", "logical_or", "logical_xor"};
    static constexpr pir_name pir_names[] = {{"1.equal", "equal", pir_form::binary},
                                             {"1.not_equal", "not_equal", pir_form::binary},
                                             {"1.less_than", "less_than", pir_form::binary},
                                             {"1.less_equal", "less_equal", pir_form::binary},
                                             {"1.greater_than", "greater_than", pir_form::binary},
                                             {"1.greater_equal", "greater_equal", pir_form::binary},
                                             {"1.logical_and", "logical_and", pir_form::binary},
                                             {"1.logical_or", "logical_or", pir_form::binary},
                                             {"1.logical_xor", "logical_xor", pir_form::binary}};
    enum class kind : std::uint8_t {
        equal,
        not_equal,
        less_than,
        less_equal,
        greater_than,
        greater_equal,
        logical_and,
        logical_or,
        logical_xor
    };
    struct params {
        kind op = kind::equal;
        int axis = -1;
    };

    static params parse(const attr_map& a, std::string_view type) {
        params p;
        bool found = false;
        for (std::size_t i = 0; i < std::size(paddle_types); ++i)
            if (type == paddle_types[i]) {
                p.op = static_cast<kind>(i);
                found = true;
            }
        if (!found) throw unsupported_error("compare: unknown op type '" + std::string(type) + "'");
        // The logical ops broadcast numpy-style: no axis.
        p.axis = p.op >= kind::logical_and ? -1 : a.get<int>("axis", -1);
        return p;
    }

    static void infer(const params& p, op_io& io) {
        const auto& x = io.input("X");
        const auto& y = io.input("Y");
        detail::check_compare_inputs(io, x, y);
        auto bd = paddle_broadcast(x.shape, y.shape, p.axis, io);
        auto& out = io.output("Out");
        out.type = dtype::boolean;
        out.shape = bd.out;
    }

    template <class F>
    static void run_with(const params& p, op_io& io, F f) {
        const auto& x = io.input("X");
        const auto& y = io.input("Y");
        auto& out = io.output("Out");
        detail::check_compare_inputs(io, x, y);
        auto bd = paddle_broadcast(x.shape, y.shape, p.axis, io);
        visit_dtype(x.type, [&]<class T>(T) {
            broadcast_apply<T>(x.as<T>(), y.as<T>(), out.as<bool>(), bd, f);
        });
    }

    static void run(const params& p, op_io& io) {
        switch (p.op) {
            case kind::equal:
                return run_with(p, io, cmp::equal{});
            case kind::not_equal:
                return run_with(p, io, cmp::not_equal{});
            case kind::less_than:
                return run_with(p, io, cmp::less_than{});
            case kind::less_equal:
                return run_with(p, io, cmp::less_equal{});
            case kind::greater_than:
                return run_with(p, io, cmp::greater_than{});
            case kind::greater_equal:
                return run_with(p, io, cmp::greater_equal{});
            case kind::logical_and:
                return run_with(p, io, cmp::logical_and{});
            case kind::logical_or:
                return run_with(p, io, cmp::logical_or{});
            case kind::logical_xor:
                return run_with(p, io, cmp::logical_xor{});
        }
    }
};

/// logical_not: Out = !bool(X), bool, the shape of X.
struct logical_not {
    static constexpr std::string_view paddle_types[] = {"logical_not"};
    static constexpr pir_name pir_names[] = {{"1.logical_not", "logical_not", pir_form::unary}};
    struct params {};
    static params parse(const attr_map&, std::string_view) { return {}; }

    static void infer(const params&, op_io& io) {
        const auto& x = io.input("X");
        io.check(x.type != dtype::f16, "float16 inputs are not supported");
        auto& out = io.output("Out");
        out.type = dtype::boolean;
        out.shape = x.shape;
    }

    static void run(const params&, op_io& io) {
        const auto& x = io.input("X");
        auto& o = io.output("Out");
        bool* out = o.as<bool>();
        const std::int64_t n = o.numel();
        visit_dtype(x.type, [&]<class T>(T) {
            const T* in = x.as<T>();
            for (std::int64_t i = 0; i < n; ++i) out[i] = !static_cast<bool>(in[i]);
        });
    }
};

}  // namespace litegraph::ops
