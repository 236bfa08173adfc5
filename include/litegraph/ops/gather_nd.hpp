// gather_nd: Index (int32/int64) of shape [..., k] with k <= rank of X holds
// coordinates into X's first k dims; Out is Index's shape without its last
// dim followed by X's dims from k on (any dtype of X).  A coordinate outside
// [0, dim) is an error, as in Paddle's CPU kernel.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "litegraph/ops/detail/shape_args.hpp"
#include "litegraph/ops/gather.hpp"

namespace litegraph::ops {

struct gather_nd {
    static constexpr std::string_view paddle_types[] = {"gather_nd"};
    static constexpr pir_name pir_names[] = {{"1.gather_nd", "gather_nd"}};
    struct params {};

    static params parse(const attr_map&, std::string_view) { return {}; }

    static std::int64_t depth(const op_io& io) {
        const auto& x = io.input("X");
        const auto& index = io.input("Index");
        detail::check_index_dtype(io, index, "Index");
        io.check(!index.shape.empty(), "Index must have at least one dim");
        const auto k = index.shape.back();
        io.check(k >= 0 && k <= static_cast<std::int64_t>(x.shape.size()), [&] {
            return "the last dim of Index (" + std::to_string(k) +
                   ") is more than the rank of X (" + std::to_string(x.shape.size()) + ")";
        });
        return k;
    }

    static void infer(const params&, op_io& io) {
        const auto k = depth(io);
        const auto& x = io.input("X");
        const auto& index = io.input("Index");
        auto& out = io.output("Out");
        out.type = x.type;
        out.shape.assign(index.shape.begin(), index.shape.end() - 1);
        out.shape.insert(out.shape.end(), x.shape.begin() + k, x.shape.end());
    }

    static void run(const params&, op_io& io) {
        const auto k = depth(io);
        const auto& x = io.input("X");
        const auto& index = io.input("Index");
        const auto& out = io.output("Out");
        std::int64_t slice = 1;
        for (auto d = static_cast<std::size_t>(k); d < x.shape.size(); ++d) slice *= x.shape[d];
        const auto rows = numel(shape_t(index.shape.begin(), index.shape.end() - 1));
        io.check(out.numel() == rows * slice, "Out does not fit the gather_nd");
        const auto row = slice * static_cast<std::int64_t>(size_of(x.type));
        for (std::int64_t r = 0; r < rows; ++r) {
            std::int64_t off = 0;
            for (std::int64_t j = 0; j < k; ++j) {
                const auto dim = x.shape[static_cast<std::size_t>(j)];
                const auto v = detail::index_at(index, r * k + j);
                io.check(v >= 0 && v < dim, [&] {
                    return "Index value " + std::to_string(v) + " (row " + std::to_string(r) +
                           ", coordinate " + std::to_string(j) + ") is out of range [0, " +
                           std::to_string(dim) + ")";
                });
                off = off * dim + v;
            }
            if (row)
                std::memcpy(out.data + r * row, x.data + off * row, static_cast<std::size_t>(row));
        }
    }
};

}  // namespace litegraph::ops
