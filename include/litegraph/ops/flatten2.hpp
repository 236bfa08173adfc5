// flatten2 / flatten: X to a matrix [prod(dims[:axis]), prod(dims[axis:])].
// flatten_contiguous_range: dims start_axis..stop_axis merged into one.
// Both copy the elements unchanged (row-major order is kept).
#pragma once

#include <string_view>

#include "litegraph/ops/detail/shape_args.hpp"
#include "litegraph/ops/firmware.hpp"

namespace litegraph::ops {

struct flatten2 : detail::copy_form {
    static constexpr std::string_view paddle_types[] = {"flatten2", "flatten"};
    static constexpr in_place_rule in_place = in_place_rule::alias;  // X's bytes
    struct params {
        std::int64_t axis = 1;
    };

    static params parse(const attr_map& a, std::string_view) {
        return {a.get<std::int64_t>("axis", 1)};
    }

    static void infer(const params& p, op_io& io) {
        const auto& x = io.input("X");
        const auto rank = static_cast<std::int64_t>(x.shape.size());
        io.check(p.axis >= 0 && p.axis <= rank, [&] {
            return "axis " + std::to_string(p.axis) +
                   " must be in [0, rank of X = " + std::to_string(rank) + "]";
        });
        io.check(is_known(x.shape), [&] { return "X has an unknown shape " + to_string(x.shape); });
        std::int64_t outer = 1, inner = 1;
        for (std::int64_t i = 0; i < rank; ++i) (i < p.axis ? outer : inner) *= x.shape[i];
        auto& out = io.output("Out");
        out.type = x.type;
        out.shape = {outer, inner};
        detail::set_xshape(io, x);
    }

    static void run(const params&, op_io& io) { detail::copy_all(io.input("X"), io.output("Out")); }
};

struct flatten_contiguous_range : detail::copy_form {
    static constexpr std::string_view paddle_types[] = {"flatten_contiguous_range"};
    static constexpr pir_name pir_names[] = {{"1.flatten", "flatten_contiguous_range"}};
    static constexpr in_place_rule in_place = in_place_rule::alias;  // X's bytes
    struct params {
        std::int64_t start_axis = 1;
        std::int64_t stop_axis = -1;
    };

    static params parse(const attr_map& a, std::string_view) {
        return {a.get<std::int64_t>("start_axis", 1), a.get<std::int64_t>("stop_axis", -1)};
    }

    static void infer(const params& p, op_io& io) {
        const auto& x = io.input("X");
        const auto rank = static_cast<std::int64_t>(x.shape.size());
        auto& out = io.output("Out");
        out.type = x.type;
        if (rank == 0) {
            out.shape = {1};  // Paddle: a 0-D input flattens to [1]
        } else {
            auto start = detail::normalize_axis(io, p.start_axis, rank, "start_axis");
            auto stop = detail::normalize_axis(io, p.stop_axis, rank, "stop_axis");
            io.check(start <= stop, [&] {
                return "start_axis " + std::to_string(p.start_axis) +
                       " must not come after stop_axis " + std::to_string(p.stop_axis);
            });
            out.shape.assign(x.shape.begin(), x.shape.begin() + start);
            std::int64_t merged = 1;
            for (auto i = start; i <= stop; ++i)
                merged = (merged < 0 || x.shape[i] < 0) ? -1 : merged * x.shape[i];
            out.shape.push_back(merged);
            out.shape.insert(out.shape.end(), x.shape.begin() + stop + 1, x.shape.end());
        }
        detail::set_xshape(io, x);
    }

    static void run(const params&, op_io& io) { detail::copy_all(io.input("X"), io.output("Out")); }
};

}  // namespace litegraph::ops
