// flip: Out = X with the order of the elements reversed along each dim of
// `axis` (a list; negative entries count from the end).  Any dtype (the
// elements are moved as bytes).  As Paddle's FlipInferMeta: every axis must be
// in [-rank, rank) and none may repeat; an empty list copies X.
#pragma once

#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "litegraph/ops/detail/shape_args.hpp"
#include "litegraph/ops/op.hpp"

namespace litegraph::ops {

struct flip {
    static constexpr std::string_view paddle_types[] = {"flip"};
    static constexpr pir_name pir_names[] = {{"1.flip", "flip", pir_form::unary}};
    static constexpr pir_attr pir_attrs[] = {{"axis"}};
    struct params {
        std::vector<std::int64_t> axis;
    };

    static params parse(const attr_map& a, std::string_view) {
        return {a.get<std::vector<std::int64_t>>("axis", {})};
    }

    /// Which dims of X are reversed (checked: in range, no repeats).
    static std::vector<bool> flipped(const params& p, const op_io& io, std::size_t rank) {
        std::vector<bool> f(rank, false);
        for (auto a : p.axis) {
            const auto d = static_cast<std::size_t>(
                detail::normalize_axis(io, a, static_cast<std::int64_t>(rank), "axis"));
            io.check(!f[d], [&] { return "axis " + std::to_string(a) + " is repeated"; });
            f[d] = true;
        }
        return f;
    }

    static void infer(const params& p, op_io& io) {
        const auto& x = io.input("X");
        flipped(p, io, x.shape.size());
        auto& out = io.output("Out");
        out.type = x.type;
        out.shape = x.shape;
    }

    static void run(const params& p, op_io& io) {
        const auto& x = io.input("X");
        const auto& out = io.output("Out");
        const auto f = flipped(p, io, x.shape.size());
        const auto n = x.numel();
        if (n == 0) return;
        const auto es = size_of(x.type);
        const auto rank = x.shape.size();
        // Strides of X (row-major); walk the output in order, keep the source index.
        std::vector<std::int64_t> stride(rank, 1), idx(rank, 0);
        for (std::size_t d = rank; d-- > 1;) stride[d - 1] = stride[d] * x.shape[d];
        std::int64_t src = 0;
        for (std::size_t d = 0; d < rank; ++d)
            if (f[d]) src += (x.shape[d] - 1) * stride[d];
        const std::byte* in = x.data;
        std::byte* o = out.data;
        for (std::int64_t i = 0; i < n; ++i) {
            std::memcpy(o + static_cast<std::size_t>(i) * es,
                        in + static_cast<std::size_t>(src) * es, es);
            // Advance the output index (last dim fastest) and the source with it.
            for (std::size_t d = rank; d-- > 0;) {
                const std::int64_t step = f[d] ? -stride[d] : stride[d];
                if (++idx[d] < x.shape[d]) {
                    src += step;
                    break;
                }
                idx[d] = 0;
                src -= step * (x.shape[d] - 1);
            }
        }
    }
};

}  // namespace litegraph::ops
