// arg_max: index of the largest element along `axis` (the first one on ties).
// `keepdims` keeps the reduced dim as 1; `flatten` reduces over all elements
// and gives shape [1] (Paddle <= 2.4).  `dtype` is the Paddle code of the index
// type: 3 or -1 (default) int64, 2 int32.
#pragma once

#include <cstdint>
#include <limits>
#include <string_view>

#include "litegraph/ops/detail/shape_args.hpp"

namespace litegraph::ops {

struct arg_max {
    static constexpr std::string_view paddle_types[] = {"arg_max"};
    static constexpr pir_name pir_names[] = {{"1.argmax", "arg_max"}};
    struct params {
        std::int64_t axis = -1;
        bool keepdims = false;
        bool flatten = false;
        int dtype_code = 3;
    };

    static params parse(const attr_map& a, std::string_view) {
        return {a.get<std::int64_t>("axis", -1), a.get<bool>("keepdims", false),
                a.get<bool>("flatten", false), a.get<int>("dtype", 3)};
    }

    static void infer(const params& p, op_io& io) {
        const auto& x = io.input("X");
        io.check(x.type != dtype::f16 && x.type != dtype::boolean, [&] {
            return "X of dtype " + std::string(name_of(x.type)) + " is not supported";
        });
        io.check(p.dtype_code == 2 || p.dtype_code == 3 || p.dtype_code == -1, [&] {
            return "dtype " + std::to_string(p.dtype_code) + " must be 2 (int32) or 3 (int64)";
        });
        const auto rank = static_cast<std::int64_t>(x.shape.size());
        auto& out = io.output("Out");
        out.type = p.dtype_code == 2 ? dtype::i32 : dtype::i64;
        if (p.flatten) {
            out.shape = {1};
            return;
        }
        const auto axis = detail::normalize_axis(io, p.axis, rank, "axis");
        out.shape.clear();
        for (std::int64_t d = 0; d < rank; ++d)
            if (d != axis)
                out.shape.push_back(x.shape[d]);
            else if (p.keepdims)
                out.shape.push_back(1);
        if (out.shape.empty()) out.shape = {1};
        if (out.type == dtype::i32)
            io.check(x.shape[axis] <= std::numeric_limits<std::int32_t>::max(), [&] {
                return "dim " + std::to_string(axis) + " of X is too long for int32 indices";
            });
    }

    static void run(const params& p, op_io& io) {
        const auto& x = io.input("X");
        const auto& out = io.output("Out");
        // View X as [outer, n, inner] and reduce the middle dim.
        std::int64_t outer = 1, n = x.numel(), inner = 1;
        if (!p.flatten) {
            const auto rank = static_cast<std::int64_t>(x.shape.size());
            const auto axis = detail::normalize_axis(io, p.axis, rank, "axis");
            for (std::int64_t d = 0; d < axis; ++d) outer *= x.shape[d];
            n = x.shape[axis];
            for (std::int64_t d = axis + 1; d < rank; ++d) inner *= x.shape[d];
        }
        io.check(n > 0, "cannot take arg_max over an empty dim");
        visit_dtype(x.type, [&]<class T>(T) {
            const T* in = x.as<T>();
            auto reduce = [&]<class I>(I* o) {
                for (std::int64_t a = 0; a < outer; ++a)
                    for (std::int64_t b = 0; b < inner; ++b) {
                        const T* s = in + a * n * inner + b;
                        std::int64_t best = 0;
                        for (std::int64_t k = 1; k < n; ++k)
                            if (s[k * inner] > s[best * inner]) best = k;
                        o[a * inner + b] = static_cast<I>(best);
                    }
            };
            if (out.type == dtype::i32)
                reduce(out.as<std::int32_t>());
            else
                reduce(out.as<std::int64_t>());
        });
    }
};

}  // namespace litegraph::ops
