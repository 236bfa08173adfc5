// gather: picks the entries Index (int32/int64, 1-D, [N, 1] or 0-D) of X
// along `axis` (any dtype of X).  Out is X with dim `axis` replaced by the
// index count (removed for a 0-D Index), as Paddle's GatherV2Function.  The
// Axis input (int, one value, known when the program is planned) overrides
// the attribute.  An index outside [0, dim) is an error, as in Paddle.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "litegraph/ops/detail/shape_args.hpp"

namespace litegraph::ops {

namespace detail {
/// The int32/int64 index value `i` of `t`.
inline std::int64_t index_at(const tensor_ref& t, std::int64_t i) {
    return t.type == dtype::i32 ? t.as<std::int32_t>()[i] : t.as<std::int64_t>()[i];
}
inline void check_index_dtype(const op_io& io, const tensor_ref& t, const char* slot) {
    io.check(t.type == dtype::i32 || t.type == dtype::i64, [&] {
        return std::string(slot) + " must be int32 or int64, got " + std::string(name_of(t.type));
    });
}
}  // namespace detail

struct gather {
    static constexpr std::string_view paddle_types[] = {"gather"};
    static constexpr pir_name pir_names[] = {{"1.gather", "gather"}};
    struct params {
        std::int64_t axis = 0;
    };

    static params parse(const attr_map& a, std::string_view) {
        return {a.get<std::int64_t>("axis", 0)};
    }

    static std::int64_t resolve(const params& p, const op_io& io) {
        const auto& x = io.input("X");
        const auto& index = io.input("Index");
        detail::check_index_dtype(io, index, "Index");
        io.check(index.shape.size() <= 1 || (index.shape.size() == 2 && index.shape[1] == 1), [&] {
            return "Index of shape " + to_string(index.shape) +
                   " is not supported (1-D, [N, 1] or 0-D)";
        });
        const auto rank = static_cast<std::int64_t>(x.shape.size());
        io.check(rank > 0, "X must have at least one dim");
        std::int64_t axis = p.axis;
        if (io.input_count("Axis") > 0) {
            auto v = detail::read_ints(io, io.input("Axis"), "Axis");
            io.check(v.size() == 1,
                     [&] { return "Axis must hold one value, holds " + std::to_string(v.size()); });
            axis = v[0];
        }
        return detail::normalize_axis(io, axis, rank, "axis");
    }

    static void infer(const params& p, op_io& io) {
        const auto axis = resolve(p, io);
        const auto& x = io.input("X");
        const auto& index = io.input("Index");
        auto& out = io.output("Out");
        out.type = x.type;
        out.shape = x.shape;
        if (index.shape.empty())
            out.shape.erase(out.shape.begin() + axis);
        else
            out.shape[static_cast<std::size_t>(axis)] = index.shape[0];
    }

    static void run(const params& p, op_io& io) {
        const auto axis = resolve(p, io);
        const auto& x = io.input("X");
        const auto& index = io.input("Index");
        const auto& out = io.output("Out");
        std::int64_t outer = 1, inner = 1;
        for (std::int64_t d = 0; d < static_cast<std::int64_t>(x.shape.size()); ++d)
            if (d != axis) (d < axis ? outer : inner) *= x.shape[static_cast<std::size_t>(d)];
        const auto dim = x.shape[static_cast<std::size_t>(axis)];
        const auto n = index.numel();
        for (std::int64_t j = 0; j < n; ++j) {
            const auto k = detail::index_at(index, j);
            io.check(k >= 0 && k < dim, [&] {
                return "Index[" + std::to_string(j) + "] = " + std::to_string(k) +
                       " is out of range [0, " + std::to_string(dim) + ") of dim " +
                       std::to_string(axis) + " of X";
            });
        }
        io.check(out.numel() == outer * n * inner, "Out does not fit the gather");
        const auto es = static_cast<std::int64_t>(size_of(x.type));
        const auto row = inner * es;
        for (std::int64_t o = 0; o < outer && row; ++o)
            for (std::int64_t j = 0; j < n; ++j)
                std::memcpy(out.data + (o * n + j) * row,
                            x.data + (o * dim + detail::index_at(index, j)) * row,
                            static_cast<std::size_t>(row));
    }
};

}  // namespace litegraph::ops
