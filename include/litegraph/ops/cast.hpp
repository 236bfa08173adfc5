// cast: Out = X converted to `out_dtype` (a Paddle VarType code: BOOL 0,
// INT16 1, INT32 2, INT64 3, FP16 4, FP32 5, FP64 6, UINT8 20, INT8 21).
// Float -> int truncates toward zero; X's actual dtype decides the source type
// (as Paddle's kernel does; `in_dtype` is informational).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "litegraph/ops/op.hpp"

namespace litegraph::ops {

/// One element converted like a C++ static_cast, but defined everywhere: a
/// float that does not fit (or NaN) gives what x86's truncating conversion
/// gives (the lowest value of int32/int64; narrower ints go through int32 and
/// wrap), where the plain cast would be undefined.
template <class To, class From>
To convert_element(From v) {
    if constexpr (std::is_same_v<To, bool>) {
        return v != From(0);
    } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
        using Wide = std::conditional_t<(sizeof(To) > 4), std::int64_t, std::int32_t>;
        const double d = static_cast<double>(v);
        // Wide's range is [-2^(b-1), 2^(b-1)); -min is exactly representable.
        constexpr double lo = static_cast<double>(std::numeric_limits<Wide>::min());
        Wide w = (d >= lo && d < -lo) ? static_cast<Wide>(d) : std::numeric_limits<Wide>::min();
        return static_cast<To>(w);  // modular for narrower To (C++20)
    } else {
        return static_cast<To>(v);
    }
}

struct cast {
    static constexpr std::string_view paddle_types[] = {"cast"};
    static constexpr pir_name pir_names[] = {{"1.cast", "cast"}};
    struct params {
        dtype out = dtype::f32;
    };

    static params parse(const attr_map& a, std::string_view) {
        const int code = a.require<int>("out_dtype");
        auto t = dtype_from_paddle(code);
        if (!t)
            LITEGRAPH_THROW(
                unsupported_error("cast: out_dtype " + std::to_string(code) + " is not supported"));
        if (*t == dtype::f16)
            LITEGRAPH_THROW(unsupported_error("cast: float16 output is not supported"));
        return {*t};
    }

    static void infer(const params& p, op_io& io) {
        const auto& x = io.input("X");
        io.check(x.type != dtype::f16, "X is float16, which is not supported");
        auto& out = io.output("Out");
        out.type = p.out;
        out.shape = x.shape;
    }

    static void run(const params& p, op_io& io) {
        const auto& x = io.input("X");
        auto& out = io.output("Out");
        const std::int64_t n = x.numel();
        visit_dtype(x.type, [&]<class From>(From) {
            const From* src = x.as<From>();
            visit_dtype(p.out, [&]<class To>(To) {
                To* dst = out.as<To>();
                for (std::int64_t i = 0; i < n; ++i) dst[i] = convert_element<To>(src[i]);
            });
        });
    }
};

}  // namespace litegraph::ops
