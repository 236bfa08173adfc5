// one_hot_v2: Out = X.shape + [depth], Out[..., k] = 1 where k = X[...],
// else 0 (Paddle's one_hot_v2).  X holds int32/int64 class indices; `depth`
// is the attribute or the `depth_tensor` input (one value, known before the
// run).  An index outside [0, depth) is an error unless
// `allow_out_of_range`, which leaves its row all zero.  Out's dtype is
// `dtype` (a Paddle VarType code, default FP32).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "litegraph/ops/detail/shape_args.hpp"
#include "litegraph/ops/op.hpp"

namespace litegraph::ops {

struct one_hot_v2 {
    static constexpr std::string_view paddle_types[] = {"one_hot_v2"};
    static constexpr pir_name pir_names[] = {{"1.one_hot", "one_hot_v2"}};
    struct params {
        std::int64_t depth = -1;
        int dtype_code = 5;  // FP32
        bool allow_out_of_range = false;
    };

    static params parse(const attr_map& a, std::string_view) {
        return {a.get<std::int64_t>("depth", -1), a.get<int>("dtype", 5),
                a.get<bool>("allow_out_of_range", false)};
    }

    static std::int64_t depth(const params& p, const op_io& io) {
        std::int64_t d = p.depth;
        if (io.has_input("depth_tensor")) {
            auto v = detail::read_ints(io, io.input("depth_tensor"), "depth_tensor");
            io.check(v.size() == 1, "depth_tensor must hold one value");
            d = v[0];
        }
        io.check(d > 0, [&] { return "depth must be positive, got " + std::to_string(d); });
        return d;
    }

    static void infer(const params& p, op_io& io) {
        const auto& x = io.input("X");
        io.check(x.type == dtype::i32 || x.type == dtype::i64,
                 [&] { return "X must be int32 or int64, got " + std::string(name_of(x.type)); });
        auto& out = io.output("Out");
        out.type = detail::dtype_from_paddle(io, p.dtype_code);
        out.shape = x.shape;
        out.shape.push_back(depth(p, io));
    }

    static void run(const params& p, op_io& io) {
        const auto& x = io.input("X");
        const auto& out = io.output("Out");
        const std::int64_t d = depth(p, io);
        const std::int64_t n = x.numel();
        auto index = [&](std::int64_t i) -> std::int64_t {
            return x.type == dtype::i32 ? x.as<std::int32_t>()[i] : x.as<std::int64_t>()[i];
        };
        visit_dtype(out.type, [&]<class T>(T) {
            if constexpr (std::is_arithmetic_v<T>) {
                auto o = out.span<T>();
                for (auto& e : o) e = T{};
                for (std::int64_t i = 0; i < n; ++i) {
                    const auto k = index(i);
                    if (k < 0 || k >= d) {
                        if (p.allow_out_of_range) continue;
                        io.fail("index " + std::to_string(k) + " at " + std::to_string(i) +
                                " is outside [0, " + std::to_string(d) + ")");
                    }
                    o[static_cast<std::size_t>(i * d + k)] = static_cast<T>(1);
                }
            } else {
                io.fail("output dtype " + std::string(name_of(out.type)) + " is not supported");
            }
        });
    }
};

}  // namespace litegraph::ops
