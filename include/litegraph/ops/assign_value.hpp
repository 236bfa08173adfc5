// assign_value: Out, of dtype `dtype` (a Paddle VarType code) and shape
// `shape`, holds the values of the attribute that dtype names: bool_values,
// int32_values, int64_values, fp32_values or fp64_values (older exports), or
// `values` (Paddle 2.5+: a list of Scalars, read as int64 or double) when it
// is present and non-empty.  The count of values must be the shape's element
// count.  No input; the value is known when the program is built.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "litegraph/ops/detail/shape_args.hpp"
#include "litegraph/ops/fill_constant.hpp"

namespace litegraph::ops {

struct assign_value {
    static constexpr std::string_view paddle_types[] = {"assign_value"};
    static constexpr pir_name pir_names[] = {{"1.assign_value", "assign_value"}};
    struct params {
        shape_t shape;
        int dtype_code = 5;  // FP32
        bool integral = false;
        std::vector<std::int64_t> ints;  // bool, int32, int64 (exact)
        std::vector<double> reals;       // float, double
    };

    static params parse(const attr_map& a, std::string_view) {
        params p;
        p.shape = a.get<shape_t>("shape", {});
        p.dtype_code = a.get<int>("dtype", 5);
        // Paddle VarType codes: BOOL 0, INT16 1, INT32 2, INT64 3, UINT8 20, INT8 21.
        const int c = p.dtype_code;
        p.integral = c == 0 || c == 1 || c == 2 || c == 3 || c == 20 || c == 21;
        const bool scalars = a.has("values") && !a.get<std::vector<double>>("values", {}).empty();
        const char* slot = scalars  ? "values"
                           : c == 0 ? "bool_values"
                           : c == 2 ? "int32_values"
                           : c == 3 ? "int64_values"
                           : c == 6 ? "fp64_values"
                                    : "fp32_values";
        if (p.integral)
            p.ints = a.get<std::vector<std::int64_t>>(slot, {});
        else
            p.reals = a.get<std::vector<double>>(slot, {});
        return p;
    }

    static void infer(const params& p, op_io& io) {
        for (auto d : p.shape)
            io.check(d >= 0,
                     [&] { return "the shape " + to_string(p.shape) + " has a negative dim"; });
        auto& out = io.output("Out");
        out.type = detail::dtype_from_paddle(io, p.dtype_code);
        io.check(out.type != dtype::f16, "a float16 assign_value is not supported");
        out.shape = p.shape;
        const auto n = static_cast<std::int64_t>(p.integral ? p.ints.size() : p.reals.size());
        io.check(numel(p.shape) == n, [&] {
            return "the shape " + to_string(p.shape) + " holds " + std::to_string(numel(p.shape)) +
                   " values, the attribute " + std::to_string(n);
        });
    }

    static void run(const params& p, op_io& io) {
        infer(p, io);
        const auto& out = io.output("Out");
        visit_dtype(out.type, [&]<class T>(T) {
            auto o = out.span<T>();
            for (std::size_t i = 0; i < o.size(); ++i) {
                if (p.integral) {
                    const auto v = p.ints[i];
                    if constexpr (std::is_same_v<T, bool>) {
                        o[i] = v != 0;
                    } else if constexpr (std::is_integral_v<T>) {
                        io.check(std::in_range<T>(v), [&] {
                            return "value " + std::to_string(v) +
                                   " does not fit the output dtype " +
                                   std::string(name_of(out.type));
                        });
                        o[i] = static_cast<T>(v);
                    } else {
                        o[i] = static_cast<T>(v);
                    }
                } else {
                    o[i] = fill_constant::cast<T>(io, p.reals[i]);
                }
            }
        });
    }
};

}  // namespace litegraph::ops
