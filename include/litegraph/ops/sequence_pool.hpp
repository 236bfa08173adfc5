// sequence_pool: one row per sequence of X's last LoD level.  X is [T, ...]
// with a LoD of 1 or 2 levels; Out is [S, ...] for S sequences and keeps X's
// first level when X has two (a level-1 X gives a plain Out).  pooltype (as
// Paddle's CPU kernel): AVERAGE (mean), SUM, SQRT (sum / sqrt(length)), MAX
// (MaxIndex, int32 [S, ...], holds the row of X holding the maximum, the
// first on ties, when is_test is false), LAST, FIRST.  An empty sequence gives
// `pad_value` (and MaxIndex -1).  float32 and float64.
#pragma once

#include <cmath>
#include <string>
#include <string_view>

#include "litegraph/ops/detail/sequence.hpp"

namespace litegraph::ops {

struct sequence_pool {
    static constexpr std::string_view paddle_types[] = {"sequence_pool"};
    static constexpr bool sets_lod = true;
    enum class kind { average, sum, sqrt, max, last, first };
    struct params {
        kind type = kind::average;
        float pad_value = 0.f;
        bool is_test = true;
    };

    static params parse(const attr_map& a, std::string_view) {
        params p;
        const auto t = a.get<std::string>("pooltype", "AVERAGE");
        if (t == "AVERAGE")
            p.type = kind::average;
        else if (t == "SUM")
            p.type = kind::sum;
        else if (t == "SQRT")
            p.type = kind::sqrt;
        else if (t == "MAX")
            p.type = kind::max;
        else if (t == "LAST")
            p.type = kind::last;
        else if (t == "FIRST")
            p.type = kind::first;
        else
            throw unsupported_error("sequence_pool: pooltype '" + t +
                                    "' is not supported (AVERAGE, SUM, SQRT, MAX, LAST, FIRST)");
        p.pad_value = a.get<float>("pad_value", 0.f);
        p.is_test = a.get<bool>("is_test", true);
        return p;
    }

    static void infer(const params& p, op_io& io) {
        const auto& x = io.input("X");
        io.check(x.type == dtype::f32 || x.type == dtype::f64, [&] {
            return "X must be float32 or float64, got " + std::string(name_of(x.type));
        });
        const auto& offsets = detail::sequence_offsets(io, "X");
        io.check(x.lod.size() <= 2, [&] {
            return "X has a LoD of " + std::to_string(x.lod.size()) +
                   " levels; sequence_pool takes at most 2 (as Paddle)";
        });
        auto& out = io.output("Out");
        out.type = x.type;
        out.shape = x.shape;
        out.shape[0] = static_cast<std::int64_t>(offsets.size()) - 1;
        out.lod.assign(x.lod.begin(), x.lod.end() - 1);
        if (p.type == kind::max && !p.is_test && io.output_count("MaxIndex") > 0) {
            auto& idx = io.output("MaxIndex");
            idx.type = dtype::i32;
            idx.shape = out.shape;
        }
    }

    static void run(const params& p, op_io& io) {
        if (io.input("X").type == dtype::f64)
            pool<double>(p, io);
        else
            pool<float>(p, io);
    }

private:
    template <class T>
    static void pool(const params& p, op_io& io) {
        const auto& x = io.input("X");
        const auto& offsets = detail::sequence_offsets(io, "X");
        const auto& out = io.output("Out");
        std::int64_t d = 1;  // elements per row
        for (std::size_t i = 1; i < x.shape.size(); ++i) d *= x.shape[i];
        const T* in = x.as<T>();
        T* o = out.as<T>();
        std::int32_t* index = nullptr;
        if (p.type == kind::max && !p.is_test && io.output_count("MaxIndex") > 0)
            index = io.output("MaxIndex").as<std::int32_t>();
        const auto pad = static_cast<T>(p.pad_value);
        for (std::size_t s = 0; s + 1 < offsets.size(); ++s) {
            const std::int64_t b = offsets[s], e = offsets[s + 1], len = e - b;
            T* row = o + static_cast<std::int64_t>(s) * d;
            if (len == 0) {
                for (std::int64_t k = 0; k < d; ++k) row[k] = pad;
                if (index)
                    for (std::int64_t k = 0; k < d; ++k)
                        index[static_cast<std::int64_t>(s) * d + k] = -1;
                continue;
            }
            switch (p.type) {
                case kind::first:
                case kind::last: {
                    const T* src = in + (p.type == kind::first ? b : e - 1) * d;
                    for (std::int64_t k = 0; k < d; ++k) row[k] = src[k];
                    break;
                }
                case kind::max:
                    for (std::int64_t k = 0; k < d; ++k) {
                        T best = in[b * d + k];
                        std::int64_t at = b;
                        for (std::int64_t t = b + 1; t < e; ++t)
                            if (in[t * d + k] > best) {
                                best = in[t * d + k];
                                at = t;
                            }
                        row[k] = best;
                        if (index)
                            index[static_cast<std::int64_t>(s) * d + k] =
                                static_cast<std::int32_t>(at);
                    }
                    break;
                default: {
                    for (std::int64_t k = 0; k < d; ++k) row[k] = T(0);
                    for (std::int64_t t = b; t < e; ++t)
                        for (std::int64_t k = 0; k < d; ++k) row[k] += in[t * d + k];
                    if (p.type == kind::average)
                        for (std::int64_t k = 0; k < d; ++k) row[k] /= static_cast<T>(len);
                    else if (p.type == kind::sqrt) {
                        const T r = std::sqrt(static_cast<T>(len));
                        for (std::int64_t k = 0; k < d; ++k) row[k] /= r;
                    }
                }
            }
        }
    }
};

}  // namespace litegraph::ops
