// cumsum: running sum along `axis` (default -1).  `flatten` sums over all
// elements in order (output [numel]); `exclusive` leaves out the element
// itself (the first output is 0); `reverse` sums from the end.  float32,
// float64, int32, int64; integer sums wrap (no undefined behaviour).  A 0-D X
// is one element (axis 0 or -1).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "litegraph/ops/detail/shape_args.hpp"
#include "litegraph/ops/op.hpp"

namespace litegraph::ops {

struct cumsum {
    static constexpr std::string_view paddle_types[] = {"cumsum"};
    static constexpr pir_name pir_names[] = {{"1.cumsum", "cumsum"}};
    struct params {
        std::int64_t axis = -1;
        bool flatten = false;
        bool exclusive = false;
        bool reverse = false;
    };

    static params parse(const attr_map& a, std::string_view) {
        return {a.get<std::int64_t>("axis", -1), a.get<bool>("flatten", false),
                a.get<bool>("exclusive", false), a.get<bool>("reverse", false)};
    }

    static void infer(const params& p, op_io& io) {
        const auto& x = io.input("X");
        const bool numeric = x.type == dtype::f32 || x.type == dtype::f64 || x.type == dtype::i32 ||
                             x.type == dtype::i64;
        io.check(numeric, [&] {
            return "X of dtype " + std::string(name_of(x.type)) + " is not supported";
        });
        auto& out = io.output("Out");
        out.type = x.type;
        if (p.flatten) {
            out.shape = {x.numel()};
            return;
        }
        const auto rank = static_cast<std::int64_t>(x.shape.size());
        detail::normalize_axis(io, p.axis, rank == 0 ? 1 : rank, "axis");
        out.shape = x.shape;
    }

    static void run(const params& p, op_io& io) {
        const auto& x = io.input("X");
        const auto& out = io.output("Out");
        // X as [outer, n, inner], summed along the middle dim.
        std::int64_t outer = 1, n = x.numel(), inner = 1;
        const auto rank = static_cast<std::int64_t>(x.shape.size());
        if (!p.flatten && rank > 0) {
            const auto axis = detail::normalize_axis(io, p.axis, rank, "axis");
            for (std::int64_t d = 0; d < axis; ++d) outer *= x.shape[d];
            n = x.shape[axis];
            for (std::int64_t d = axis + 1; d < rank; ++d) inner *= x.shape[d];
        }
        visit_dtype(x.type, [&]<class T>(T) {
            if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> ||
                          std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t>) {
                using A = std::conditional_t<std::is_integral_v<T>,
                                             std::make_unsigned_t<std::conditional_t<
                                                 std::is_integral_v<T>, T, std::int32_t>>,
                                             T>;
                const T* in = x.as<T>();
                T* o = out.as<T>();
                for (std::int64_t a = 0; a < outer; ++a)
                    for (std::int64_t b = 0; b < inner; ++b) {
                        A sum = 0;
                        for (std::int64_t j = 0; j < n; ++j) {
                            const std::int64_t k = p.reverse ? n - 1 - j : j;
                            const std::int64_t at = (a * n + k) * inner + b;
                            const A v = static_cast<A>(in[at]);  // read before the write (in place)
                            if (p.exclusive) o[at] = static_cast<T>(sum);
                            sum = static_cast<A>(sum + v);
                            if (!p.exclusive) o[at] = static_cast<T>(sum);
                        }
                    }
            }
        });
    }
};

}  // namespace litegraph::ops
