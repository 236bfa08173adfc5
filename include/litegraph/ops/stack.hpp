// stack: joins the X inputs, all of one dtype and shape, along a new axis
// `axis` of Y (in [-(rank + 1), rank + 1), negative counting from the end of
// Y's dims): Y has X's dims with the input count inserted at `axis`.  Any
// dtype (the Paddle 3.x recognisers stack int64 shape values into a reshape's
// shape).
#pragma once

#include <cstring>
#include <string>
#include <string_view>

#include "litegraph/ops/detail/shape_args.hpp"

namespace litegraph::ops {

struct stack {
    static constexpr std::string_view paddle_types[] = {"stack"};
    static constexpr pir_name pir_names[] = {{"1.stack", "stack"}};
    struct params {
        std::int64_t axis = 0;
    };

    static params parse(const attr_map& a, std::string_view) {
        return {a.get<std::int64_t>("axis", 0)};
    }

    /// Checks the inputs against X #0; the output axis (non-negative) and X's shape
    /// (an unknown dim of X #0 taken from another input that knows it).
    static std::int64_t check_inputs(const params& p, const op_io& io, shape_t& shape) {
        const auto n = io.input_count("X");
        io.check(n > 0, "needs at least one input X");
        const auto& x0 = io.input("X");
        shape = x0.shape;
        const auto rank = static_cast<std::int64_t>(x0.shape.size());
        const auto axis = detail::normalize_axis(io, p.axis, rank + 1, "axis");
        for (std::size_t i = 1; i < n; ++i) {
            const auto& xi = io.input("X", i);
            io.check(xi.type == x0.type, [&] {
                return "X #" + std::to_string(i) + " ('" + std::string(xi.name) + "') is " +
                       std::string(name_of(xi.type)) + ", X #0 is " + std::string(name_of(x0.type));
            });
            bool same = xi.shape.size() == x0.shape.size();
            for (std::size_t d = 0; same && d < shape.size(); ++d) {
                if (xi.shape[d] >= 0 && shape[d] >= 0 && xi.shape[d] != shape[d]) same = false;
                if (shape[d] < 0) shape[d] = xi.shape[d];
            }
            io.check(same, [&] {
                return "X #" + std::to_string(i) + " ('" + std::string(xi.name) + "') has shape " +
                       to_string(xi.shape) + ", X #0 has shape " + to_string(x0.shape) +
                       " (stack needs equal shapes)";
            });
        }
        return axis;
    }

    static void infer(const params& p, op_io& io) {
        shape_t shape;
        const auto axis = check_inputs(p, io, shape);
        shape.insert(shape.begin() + axis, static_cast<std::int64_t>(io.input_count("X")));
        auto& y = io.output("Y");
        y.type = io.input("X").type;
        y.shape = std::move(shape);
    }

    static void run(const params& p, op_io& io) {
        shape_t shape;
        const auto axis = check_inputs(p, io, shape);
        const auto& y = io.output("Y");
        const auto n = io.input_count("X");
        // X as [outer, inner]: Y is [outer, n, inner].
        std::int64_t outer = 1, inner = 1;
        for (std::int64_t d = 0; d < static_cast<std::int64_t>(shape.size()); ++d)
            (d < axis ? outer : inner) *= shape[static_cast<std::size_t>(d)];
        const auto row = inner * static_cast<std::int64_t>(size_of(y.type));
        for (std::size_t i = 0; i < n; ++i) {
            const auto& xi = io.input("X", i);
            io.check(xi.numel() == outer * inner, [&] {
                return "X #" + std::to_string(i) + " has " + std::to_string(xi.numel()) +
                       " values, expected " + std::to_string(outer * inner);
            });
            for (std::int64_t o = 0; o < outer && row; ++o)
                std::memcpy(
                    y.data +
                        (o * static_cast<std::int64_t>(n) + static_cast<std::int64_t>(i)) * row,
                    xi.data + o * row, static_cast<std::size_t>(row));
        }
    }
};

}  // namespace litegraph::ops
