// fill_constant: Out of dtype `dtype` (a Paddle VarType code) filled with one
// value.  The shape comes from, by priority, the `ShapeTensor` input (1-D
// int32/int64), the `ShapeTensorList` inputs (one value each), the `shape`
// attribute.  The value is the `ValueTensor` input when given, else
// `str_value` when non-empty ("inf", "-inf", "nan" or a number), else `value`;
// it is converted to the output dtype as C++ does (float -> int truncates).
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>

#include "litegraph/ops/detail/shape_args.hpp"

namespace litegraph::ops {

struct fill_constant {
    static constexpr std::string_view paddle_types[] = {"fill_constant"};
    /// `1.full_with_tensor(value, shape)`: ValueTensor, ShapeTensor (translate_ops.hpp).
    static constexpr pir_name pir_names[] = {{"1.full_with_tensor", "fill_constant"}};
    struct params {
        shape_t shape;
        int dtype_code = 5;  // FP32
        double value = 0;
        std::string str_value;
    };

    static params parse(const attr_map& a, std::string_view) {
        return {a.get<shape_t>("shape", {}), a.get<int>("dtype", 5), a.get<double>("value", 0.0),
                a.get<std::string>("str_value", "")};
    }

    static void infer(const params& p, op_io& io) {
        shape_t s;
        if (io.has_input("ShapeTensor"))
            s = detail::read_ints(io, io.input("ShapeTensor"), "ShapeTensor");
        else if (io.has_input("ShapeTensorList"))
            s = detail::read_int_list(io, "ShapeTensorList");
        else
            s = p.shape;
        for (auto d : s)
            io.check(d >= 0, [&] { return "the shape " + to_string(s) + " has a negative dim"; });
        if (io.has_input("ValueTensor")) {
            const auto& v = io.input("ValueTensor");
            io.check(is_known(v.shape) && v.numel() == 1, [&] {
                return "ValueTensor must hold one value, has shape " + to_string(v.shape);
            });
            io.check(v.type != dtype::f16, "a float16 ValueTensor is not supported");
        }
        auto& out = io.output("Out");
        out.type = detail::dtype_from_paddle(io, p.dtype_code);
        out.shape = std::move(s);
        (void)value(p, io);  // a bad str_value is an error before the run
    }

    static void run(const params& p, op_io& io) {
        const auto& out = io.output("Out");
        const double v = value(p, io);
        if (out.type == dtype::f16) {
            auto h = to_half(static_cast<float>(v));
            auto* o = reinterpret_cast<std::uint16_t*>(out.data);
            for (std::int64_t i = 0; i < out.numel(); ++i) o[i] = h;
            return;
        }
        visit_dtype(out.type, [&]<class T>(T) {
            const T x = cast<T>(io, v);
            auto o = out.span<T>();
            for (auto& e : o) e = x;
        });
    }

    /// The fill value as a double (exact for every int32 and for int64 up to 2^53;
    /// an int64 str_value is range-checked by `cast`).
    static double value(const params& p, const op_io& io) {
        if (io.has_input("ValueTensor")) {
            const auto& t = io.input("ValueTensor");
            if (!t.has_data()) return 0;  // known at run time only
            double r = 0;
            visit_dtype(t.type, [&]<class T>(T) { r = static_cast<double>(t.as<T>()[0]); });
            return r;
        }
        if (p.str_value.empty()) return p.value;
        const auto& s = p.str_value;
        if (s == "inf") return std::numeric_limits<double>::infinity();
        if (s == "-inf") return -std::numeric_limits<double>::infinity();
        if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
        const char* b = s.c_str();
        char* e = nullptr;
        double r = std::strtod(b, &e);
        if (e == b || *e != '\0') io.fail("str_value '" + s + "' is not a number");
        return r;
    }

    template <class T>
    static T cast(const op_io& io, double v) {
        if constexpr (std::is_same_v<T, bool>) {
            return v != 0;
        } else if constexpr (std::is_integral_v<T>) {
            // float -> int truncates; out of range would be undefined behaviour.
            if (!(v > static_cast<double>(std::numeric_limits<T>::min()) - 1.0 &&
                  v < static_cast<double>(std::numeric_limits<T>::max()) + 1.0))
                io.fail("value " + std::to_string(v) + " does not fit the output dtype " +
                        std::string(name_of(dtype_v<T>)));
            return static_cast<T>(v);
        } else {
            return static_cast<T>(v);
        }
    }

    /// IEEE half bits of `f`, rounding to nearest even.
    static std::uint16_t to_half(float f) {
        std::uint32_t x;
        std::memcpy(&x, &f, 4);
        const std::uint16_t sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
        const std::uint32_t abs = x & 0x7fffffffu;
        if (abs >= 0x7f800000u)  // inf or nan
            return sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u);
        if (abs >= 0x477ff000u) return sign | 0x7c00u;  // rounds to >= 65520: inf
        if (abs < 0x38800000u) {                        // subnormal half (or zero)
            if (abs < 0x33000000u) return sign;         // below half the smallest subnormal
            const std::uint32_t m = (abs & 0x7fffffu) | 0x800000u;
            const int shift = 126 - static_cast<int>(abs >> 23);  // 14..24
            std::uint32_t h = m >> shift;
            const std::uint32_t rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
            if (rem > half || (rem == half && (h & 1u))) ++h;
            return sign | static_cast<std::uint16_t>(h);
        }
        std::uint32_t h = ((abs >> 13) - (112u << 10));
        const std::uint32_t rem = abs & 0x1fffu;
        if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
        return sign | static_cast<std::uint16_t>(h);
    }
};

}  // namespace litegraph::ops
