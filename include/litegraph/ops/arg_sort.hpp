// argsort: X (float32/float64/int32/int64) sorted along `axis` (default -1),
// ascending or `descending`; Out the sorted values, Indices (int64) their
// positions.  Paddle's comparison (NaN the largest value: last ascending,
// first descending) and a stable order: equal values keep the lower index
// first.  A 0-D X gives itself and index 0.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "litegraph/ops/top_k.hpp"

namespace litegraph::ops {

struct arg_sort {
    static constexpr std::string_view paddle_types[] = {"argsort"};
    static constexpr pir_name pir_names[] = {{"1.argsort", "argsort"}};
    struct params {
        std::int64_t axis = -1;
        bool descending = false;
    };

    static params parse(const attr_map& a, std::string_view) {
        return {a.get<std::int64_t>("axis", -1), a.get<bool>("descending", false)};
    }

    static std::int64_t resolve(const params& p, const op_io& io) {
        const auto& x = io.input("X");
        detail::check_sortable(io, x);
        const auto rank = static_cast<std::int64_t>(x.shape.size());
        return rank == 0 ? 0 : detail::normalize_axis(io, p.axis, rank, "axis");
    }

    static void infer(const params& p, op_io& io) {
        resolve(p, io);
        const auto& x = io.input("X");
        auto& out = io.output("Out");
        out.type = x.type;
        out.shape = x.shape;
        auto& ind = io.output("Indices");
        ind.type = dtype::i64;
        ind.shape = x.shape;
    }

    static void run(const params& p, op_io& io) {
        const auto axis = resolve(p, io);
        const auto& x = io.input("X");
        std::int64_t outer, n, inner;
        detail::axis_view(x.shape, axis, outer, n, inner);
        std::int64_t* ind = io.output("Indices").as<std::int64_t>();
        visit_dtype(x.type, [&]<class T>(T) {
            if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> ||
                          std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t>) {
                const T* in = x.as<T>();
                T* out = io.output("Out").as<T>();
                std::vector<std::pair<T, std::int64_t>> row(static_cast<std::size_t>(n));
                auto cmp = [&](const auto& a, const auto& b) {
                    return detail::sorts_before(a, b, p.descending);
                };
                for (std::int64_t o = 0; o < outer; ++o)
                    for (std::int64_t i = 0; i < inner; ++i) {
                        for (std::int64_t j = 0; j < n; ++j)
                            row[static_cast<std::size_t>(j)] = {in[(o * n + j) * inner + i], j};
                        std::sort(row.begin(), row.end(), cmp);  // total order: stable
                        for (std::int64_t j = 0; j < n; ++j) {
                            out[(o * n + j) * inner + i] = row[static_cast<std::size_t>(j)].first;
                            ind[(o * n + j) * inner + i] = row[static_cast<std::size_t>(j)].second;
                        }
                    }
            }
        });
    }
};

}  // namespace litegraph::ops
