// top_k (v1) and top_k_v2: the k largest (or smallest) values of X along an
// axis, Out in X's dtype and Indices int64.  X is float32/float64/int32/int64.
//   top_k: the last axis, always largest and sorted; k from the K input (an
//     int tensor of one value, known when the program is planned) or the `k`
//     attribute.
//   top_k_v2: also `axis` (default -1), `largest`, `sorted`; a 0-D X is one
//     value (k must be 1).
// The order is Paddle's comparison (NaN counts as the largest value), with
// ties broken by the lower index first; `sorted` = false gives the same
// elements in the same order (Paddle leaves their order unspecified).
// k must be in [1, dim] (0 is allowed for an empty dim).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "litegraph/ops/detail/shape_args.hpp"

namespace litegraph::ops {

namespace detail {
/// Whether `a` goes before `b` in Paddle's sort order (NaN the largest);
/// equal values go by the lower index.
template <class T>
bool sorts_before(const std::pair<T, std::int64_t>& a, const std::pair<T, std::int64_t>& b,
                  bool descending) {
    auto before = [descending](T l, T r) {
        const bool ln = std::isnan(static_cast<double>(l)), rn = std::isnan(static_cast<double>(r));
        return descending ? (ln && !rn) || l > r : (!ln && rn) || l < r;
    };
    if (before(a.first, b.first)) return true;
    if (before(b.first, a.first)) return false;
    return a.second < b.second;
}

/// [outer, n, inner] view of X along `axis`.
inline void axis_view(const shape_t& s, std::int64_t axis, std::int64_t& outer, std::int64_t& n,
                      std::int64_t& inner) {
    outer = 1, inner = 1, n = s.empty() ? 1 : s[static_cast<std::size_t>(axis)];
    for (std::int64_t d = 0; d < static_cast<std::int64_t>(s.size()); ++d)
        if (d != axis) (d < axis ? outer : inner) *= s[static_cast<std::size_t>(d)];
}

inline void check_sortable(const op_io& io, const tensor_ref& x) {
    io.check(x.type == dtype::f32 || x.type == dtype::f64 || x.type == dtype::i32 ||
                 x.type == dtype::i64,
             [&] {
                 return "X of dtype " + std::string(name_of(x.type)) +
                        " is not supported (float32, float64, int32, int64)";
             });
}
}  // namespace detail

struct top_k {
    static constexpr std::string_view paddle_types[] = {"top_k", "top_k_v2"};
    static constexpr pir_name pir_names[] = {{"1.topk", "top_k_v2"}};
    struct params {
        bool v2 = false;
        std::int64_t k = 1;
        std::int64_t axis = -1;
        bool largest = true;
        bool sorted = true;
    };

    static params parse(const attr_map& a, std::string_view type) {
        params p;
        p.v2 = type == "top_k_v2";
        p.k = a.get<std::int64_t>("k", 1);
        if (p.v2) {
            p.axis = a.get<std::int64_t>("axis", -1);
            p.largest = a.get<bool>("largest", true);
            p.sorted = a.get<bool>("sorted", true);
        }
        return p;
    }

    /// The axis (non-negative; 0 for a 0-D X) and k.
    static std::int64_t resolve(const params& p, const op_io& io, std::int64_t& k) {
        const auto& x = io.input("X");
        detail::check_sortable(io, x);
        const auto rank = static_cast<std::int64_t>(x.shape.size());
        io.check(rank > 0 || p.v2, "X must have at least one dim");
        const auto axis = rank == 0 ? 0 : detail::normalize_axis(io, p.axis, rank, "axis");
        k = p.k;
        if (io.input_count("K") > 0) {
            auto v = detail::read_ints(io, io.input("K"), "K");
            io.check(v.size() == 1,
                     [&] { return "K must hold one value, holds " + std::to_string(v.size()); });
            k = v[0];
        }
        const auto dim = rank == 0 ? 1 : x.shape[static_cast<std::size_t>(axis)];
        io.check(k >= (dim == 0 ? 0 : 1) && (dim < 0 || k <= dim), [&] {
            return "k " + std::to_string(k) + " is out of range [1, " + std::to_string(dim) +
                   "] (the dim of X along axis " + std::to_string(axis) + ")";
        });
        return axis;
    }

    static void infer(const params& p, op_io& io) {
        std::int64_t k = 0;
        const auto axis = resolve(p, io, k);
        const auto& x = io.input("X");
        shape_t s = x.shape;
        if (!s.empty()) s[static_cast<std::size_t>(axis)] = k;
        auto& out = io.output("Out");
        out.type = x.type;
        out.shape = s;
        auto& ind = io.output("Indices");
        ind.type = dtype::i64;
        ind.shape = std::move(s);
    }

    static void run(const params& p, op_io& io) {
        std::int64_t k = 0;
        const auto axis = resolve(p, io, k);
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
                    return detail::sorts_before(a, b, p.largest);
                };
                for (std::int64_t o = 0; o < outer; ++o)
                    for (std::int64_t i = 0; i < inner; ++i) {
                        for (std::int64_t j = 0; j < n; ++j)
                            row[static_cast<std::size_t>(j)] = {in[(o * n + j) * inner + i], j};
                        std::partial_sort(row.begin(), row.begin() + k, row.end(), cmp);
                        for (std::int64_t j = 0; j < k; ++j) {
                            out[(o * k + j) * inner + i] = row[static_cast<std::size_t>(j)].first;
                            ind[(o * k + j) * inner + i] = row[static_cast<std::size_t>(j)].second;
                        }
                    }
            }
        });
    }
};

}  // namespace litegraph::ops
