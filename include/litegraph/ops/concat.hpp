// concat: joins the X inputs along `axis` (negative counts from the end; the
// value of an `AxisTensor` input overrides it).  Every input has the same
// dtype and rank and agrees on all other dims.  Any dtype.
#pragma once

#include <cstring>
#include <string_view>
#include <vector>

#include "litegraph/ops/detail/shape_args.hpp"

namespace litegraph::ops {

struct concat {
    static constexpr std::string_view paddle_types[] = {"concat"};
    static constexpr pir_name pir_names[] = {{"1.concat", "concat"}};
    /// Its inputs' producers write into their slices of Out; the concat then
    /// does nothing (the runtime elides it).
    static constexpr in_place_rule in_place = in_place_rule::slices;
    /// A channel concat in a patched stage (ops/op.hpp).
    static constexpr patch_kind patch = patch_kind::concat;
    struct params {
        std::int64_t axis = 0;
    };

    static params parse(const attr_map& a, std::string_view) {
        return {a.get<std::int64_t>("axis", 0)};
    }

    static std::int64_t resolved_axis(const params& p, const op_io& io, std::int64_t rank) {
        std::int64_t axis = p.axis;
        if (io.has_input("AxisTensor")) {
            auto v = detail::read_ints(io, io.input("AxisTensor"), "AxisTensor");
            io.check(v.size() == 1, [&] {
                return "AxisTensor must hold one value, holds " + std::to_string(v.size());
            });
            axis = v[0];
        }
        return detail::normalize_axis(io, axis, rank, "axis");
    }

    static void infer(const params& p, op_io& io) {
        const auto n = io.input_count("X");
        io.check(n > 0, "needs at least one input X");
        const auto& x0 = io.input("X");
        const auto rank = static_cast<std::int64_t>(x0.shape.size());
        io.check(rank > 0, "X must have rank >= 1");
        const auto axis = resolved_axis(p, io, rank);
        shape_t out_shape = x0.shape;
        for (std::size_t i = 1; i < n; ++i) {
            const auto& xi = io.input("X", i);
            io.check(xi.type == x0.type, [&] {
                return "X #" + std::to_string(i) + " ('" + std::string(xi.name) + "') is " +
                       std::string(name_of(xi.type)) + ", X #0 is " + std::string(name_of(x0.type));
            });
            io.check(xi.shape.size() == x0.shape.size(), [&] {
                return "X #" + std::to_string(i) + " ('" + std::string(xi.name) + "') has shape " +
                       to_string(xi.shape) + ", X #0 has shape " + to_string(x0.shape);
            });
            for (std::int64_t d = 0; d < rank; ++d) {
                if (d == axis) {
                    out_shape[d] =
                        (out_shape[d] < 0 || xi.shape[d] < 0) ? -1 : out_shape[d] + xi.shape[d];
                } else {
                    io.check(xi.shape[d] == x0.shape[d], [&] {
                        return "X #" + std::to_string(i) + " ('" + std::string(xi.name) +
                               "') has shape " + to_string(xi.shape) + ", X #0 has shape " +
                               to_string(x0.shape) + ": they differ in dim " + std::to_string(d) +
                               " (concat axis " + std::to_string(axis) + ")";
                    });
                }
            }
        }
        auto& out = io.output("Out");
        out.type = x0.type;
        out.shape = out_shape;
    }

    static void run(const params& p, op_io& io) {
        const auto& out = io.output("Out");
        const auto rank = static_cast<std::int64_t>(out.shape.size());
        const auto axis = resolved_axis(p, io, rank);
        std::int64_t outer = 1;
        for (std::int64_t d = 0; d < axis; ++d) outer *= out.shape[d];
        const auto esize = static_cast<std::int64_t>(size_of(out.type));
        const auto out_row = out.numel() / (outer ? outer : 1) * esize;
        const auto inputs = static_cast<std::int64_t>(io.input_count("X"));
        // Byte offset of each input inside one output row.
        std::vector<std::int64_t> col(static_cast<std::size_t>(inputs) + 1, 0);
        for (std::int64_t i = 0; i < inputs; ++i)
            col[i + 1] = col[i] + (outer ? io.input("X", i).numel() / outer * esize : 0);
        auto copy = [&](std::int64_t i) {
            const auto& xi = io.input("X", i);
            const auto row = col[i + 1] - col[i];
            for (std::int64_t o = 0; o < outer && row; ++o)
                std::memcpy(out.data + o * out_row + col[i], xi.data + o * row,
                            static_cast<std::size_t>(row));
        };
        // Large copies split over the pool (plain copies): along a dim before
        // the last two, bands of every plane (plane_bands, as the convs that
        // wrote the inputs split: each thread copies what its core wrote);
        // else one task per input.
        const bool large =
            pool_threads(io.pool) > 1 && outer * col[inputs] >= (std::int64_t{1} << 20);
        if (large && rank >= 3 && axis <= rank - 3) {
            const std::int64_t plane = out.shape[rank - 1] * out.shape[rank - 2];
            const auto b = plane_bands::of(outer * col[inputs] / esize / (plane ? plane : 1), plane,
                                           pool_threads(io.pool), 0);
            if (b.tasks > 1) {
                parallel_tasks(io.pool, b.tasks, [&](std::int64_t t) {
                    const std::int64_t e0 = b.begin(t) * esize, len = b.end(t) * esize - e0;
                    const std::int64_t pb = plane * esize;
                    for (std::int64_t i = 0; i < inputs; ++i) {
                        const auto& xi = io.input("X", i);
                        const auto row = col[i + 1] - col[i];
                        for (std::int64_t o = 0; o < outer; ++o)
                            for (std::int64_t q = 0; q < row / pb; ++q)
                                std::memcpy(out.data + o * out_row + col[i] + q * pb + e0,
                                            xi.data + o * row + q * pb + e0,
                                            static_cast<std::size_t>(len));
                    }
                });
                return;
            }
        }
        if (large)
            parallel_tasks(io.pool, inputs, copy);
        else
            for (std::int64_t i = 0; i < inputs; ++i) copy(i);
    }
};

}  // namespace litegraph::ops
