// unstack: the Y outputs are the slices of X along `axis` (any dtype), each
// with that dim removed; there are as many as X's dim (`num`, when set, must
// equal it).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "litegraph/ops/detail/shape_args.hpp"

namespace litegraph::ops {

struct unstack {
    static constexpr std::string_view paddle_types[] = {"unstack"};
    static constexpr pir_name pir_names[] = {{"1.unstack", "unstack"}};
    struct params {
        std::int64_t axis = 0;
        std::int64_t num = 0;
    };

    static params parse(const attr_map& a, std::string_view) {
        return {a.get<std::int64_t>("axis", 0), a.get<std::int64_t>("num", 0)};
    }

    static std::int64_t resolve(const params& p, const op_io& io) {
        const auto& x = io.input("X");
        const auto rank = static_cast<std::int64_t>(x.shape.size());
        io.check(rank > 0, "X must have at least one dim");
        const auto axis = detail::normalize_axis(io, p.axis, rank, "axis");
        const auto dim = x.shape[static_cast<std::size_t>(axis)];
        const auto n = static_cast<std::int64_t>(io.output_count("Y"));
        io.check(p.num <= 0 || p.num == n, [&] {
            return "num is " + std::to_string(p.num) + " but the op has " + std::to_string(n) +
                   " outputs Y";
        });
        io.check(dim < 0 || dim == n, [&] {
            return "dim " + std::to_string(axis) + " of X is " + std::to_string(dim) +
                   " but the op has " + std::to_string(n) + " outputs Y";
        });
        return axis;
    }

    static void infer(const params& p, op_io& io) {
        const auto axis = resolve(p, io);
        const auto& x = io.input("X");
        for (std::size_t i = 0; i < io.output_count("Y"); ++i) {
            auto& y = io.output("Y", i);
            y.type = x.type;
            y.shape = x.shape;
            y.shape.erase(y.shape.begin() + axis);
        }
    }

    static void run(const params& p, op_io& io) {
        const auto axis = resolve(p, io);
        const auto& x = io.input("X");
        std::int64_t outer = 1, inner = 1;
        for (std::int64_t d = 0; d < static_cast<std::int64_t>(x.shape.size()); ++d)
            if (d != axis) (d < axis ? outer : inner) *= x.shape[static_cast<std::size_t>(d)];
        const auto n = static_cast<std::int64_t>(io.output_count("Y"));
        const auto row = inner * static_cast<std::int64_t>(size_of(x.type));
        for (std::int64_t i = 0; i < n; ++i) {
            const auto& y = io.output("Y", static_cast<std::size_t>(i));
            io.check(y.numel() == outer * inner, "Y does not fit the unstack");
            for (std::int64_t o = 0; o < outer && row; ++o)
                std::memcpy(y.data + o * row, x.data + (o * n + i) * row,
                            static_cast<std::size_t>(row));
        }
    }
};

}  // namespace litegraph::ops
