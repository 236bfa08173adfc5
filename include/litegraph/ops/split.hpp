// split: cuts X along `axis` into the Out outputs (any dtype), as Paddle's
// split op: `num` > 0 gives num equal parts (the dim must divide), otherwise
// `sections` gives the part sizes, one of which may be -1 (the rest of the
// dim).  AxisTensor (int, one value) overrides `axis` and SectionsTensorList
// (one int value per part) overrides `sections`; both must be known when the
// program is planned (weights, feeds or values computed from shapes).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "litegraph/ops/detail/shape_args.hpp"

namespace litegraph::ops {

struct split {
    static constexpr std::string_view paddle_types[] = {"split"};
    static constexpr pir_name pir_names[] = {{"1.split", "split"}, {"1.split_with_num", "split"}};
    struct params {
        std::int64_t num = 0;
        std::vector<std::int64_t> sections;
        std::int64_t axis = 0;
    };

    static params parse(const attr_map& a, std::string_view) {
        return {a.get<std::int64_t>("num", 0), a.get<std::vector<std::int64_t>>("sections", {}),
                a.get<std::int64_t>("axis", 0)};
    }

    /// The split axis (non-negative) and the part sizes (-1 where X's dim is unknown).
    static std::int64_t resolve(const params& p, const op_io& io,
                                std::vector<std::int64_t>& parts) {
        const auto& x = io.input("X");
        const auto rank = static_cast<std::int64_t>(x.shape.size());
        io.check(rank > 0, "X must have at least one dim");
        std::int64_t axis = p.axis;
        if (io.input_count("AxisTensor") > 0) {
            auto v = detail::read_ints(io, io.input("AxisTensor"), "AxisTensor");
            io.check(v.size() == 1, [&] {
                return "AxisTensor must hold one value, holds " + std::to_string(v.size());
            });
            axis = v[0];
        }
        axis = detail::normalize_axis(io, axis, rank, "axis");
        const auto dim = x.shape[static_cast<std::size_t>(axis)];
        const auto n = static_cast<std::int64_t>(io.output_count("Out"));
        io.check(p.num >= 0, [&] { return "num " + std::to_string(p.num) + " is negative"; });
        if (p.num > 0) {
            io.check(n == p.num, [&] {
                return "num is " + std::to_string(p.num) + " but the op has " + std::to_string(n) +
                       " outputs Out";
            });
            io.check(dim < 0 || dim % p.num == 0, [&] {
                return "dim " + std::to_string(axis) + " of X (" + std::to_string(dim) +
                       ") does not divide into num " + std::to_string(p.num) + " parts";
            });
            parts.assign(static_cast<std::size_t>(n), dim < 0 ? -1 : dim / p.num);
            return axis;
        }
        parts = io.input_count("SectionsTensorList") > 0
                    ? detail::read_int_list(io, "SectionsTensorList")
                    : p.sections;
        io.check(!parts.empty(), "needs num > 0 or sections");
        io.check(static_cast<std::int64_t>(parts.size()) == n, [&] {
            return std::to_string(parts.size()) + " sections but the op has " + std::to_string(n) +
                   " outputs Out";
        });
        std::int64_t known = 0, unknown = -1;
        for (std::size_t i = 0; i < parts.size(); ++i) {
            if (parts[i] == -1) {
                io.check(unknown < 0, "at most one of sections may be -1");
                unknown = static_cast<std::int64_t>(i);
            } else {
                io.check(parts[i] >= 0, [&] {
                    return "section " + std::to_string(parts[i]) +
                           " is negative (only -1 is "
                           "allowed, once)";
                });
                known += parts[i];
            }
        }
        if (dim < 0) return axis;
        if (unknown >= 0) {
            io.check(known <= dim, [&] {
                return "sections sum to " + std::to_string(known) + ", more than dim " +
                       std::to_string(axis) + " of X (" + std::to_string(dim) + ")";
            });
            parts[static_cast<std::size_t>(unknown)] = dim - known;
        } else {
            io.check(known == dim, [&] {
                return "sections sum to " + std::to_string(known) + ", dim " +
                       std::to_string(axis) + " of X is " + std::to_string(dim);
            });
        }
        return axis;
    }

    static void infer(const params& p, op_io& io) {
        std::vector<std::int64_t> parts;
        const auto axis = resolve(p, io, parts);
        const auto& x = io.input("X");
        for (std::size_t i = 0; i < parts.size(); ++i) {
            auto& o = io.output("Out", i);
            o.type = x.type;
            o.shape = x.shape;
            o.shape[static_cast<std::size_t>(axis)] = parts[i];
        }
    }

    static void run(const params& p, op_io& io) {
        std::vector<std::int64_t> parts;
        const auto axis = resolve(p, io, parts);
        const auto& x = io.input("X");
        // X as [outer, dim, inner]: part i takes rows [start, start + parts[i]).
        std::int64_t outer = 1, inner = 1;
        for (std::int64_t d = 0; d < static_cast<std::int64_t>(x.shape.size()); ++d)
            if (d != axis) (d < axis ? outer : inner) *= x.shape[static_cast<std::size_t>(d)];
        const auto dim = x.shape[static_cast<std::size_t>(axis)];
        const auto es = static_cast<std::int64_t>(size_of(x.type));
        std::int64_t start = 0;
        for (std::size_t i = 0; i < parts.size(); ++i) {
            const auto& o = io.output("Out", i);
            io.check(o.numel() == outer * parts[i] * inner, "Out does not fit the split");
            const auto row = parts[i] * inner * es;
            for (std::int64_t k = 0; k < outer && row; ++k)
                std::memcpy(o.data + k * row, x.data + (k * dim + start) * inner * es,
                            static_cast<std::size_t>(row));
            start += parts[i];
        }
    }
};

}  // namespace litegraph::ops
