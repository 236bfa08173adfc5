// Helpers of the 3-D sliding-window ops (conv3d, pool3d): attribute triples
// and Paddle's padding normalisation for three spatial dims (depth, height,
// width), the 3-D form of window.hpp's.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "litegraph/ops/detail/window.hpp"

namespace litegraph::ops::detail {

using triple = std::array<std::int64_t, 3>;

/// An attribute of three values (strides, dilations, ksize); fails naming it
/// when it does not hold exactly three values or a value is below `min`.
inline triple check_triple(const op_io& io, const std::vector<std::int64_t>& v, const char* name,
                           std::int64_t min) {
    io.check(v.size() == 3, [&] {
        return std::string("attribute ") + name + " must hold 3 values, got " + list_string(v);
    });
    for (auto x : v)
        io.check(x >= min, [&] {
            return std::string("attribute ") + name + " " + list_string(v) +
                   " must be >= " + std::to_string(min);
        });
    return {v[0], v[1], v[2]};
}

/// Paddle's padding normalisation for 3 spatial dims: `pads` (3 values
/// [d, h, w] or 6 values [front, back, top, bottom, left, right]) becomes 6
/// values; SAME computes them from the input size (and resets the dilations
/// to 1), VALID zeroes them.  `in` holds the spatial input dims (-1 =
/// unknown: SAME then leaves that dim's pads at 0).
inline std::array<std::int64_t, 6> resolve_padding3(const op_io& io,
                                                    const std::vector<std::int64_t>& pads,
                                                    padding_algorithm alg, const triple& in,
                                                    const triple& strides, const triple& ksize,
                                                    triple* dilations) {
    std::array<std::int64_t, 6> r{};
    if (pads.size() == 3) {
        for (int i = 0; i < 3; ++i) r[2 * i] = r[2 * i + 1] = pads[i];
    } else {
        io.check(pads.size() == 6, [&] {
            return "attribute paddings must hold 3 or 6 values, got " + list_string(pads);
        });
        for (int i = 0; i < 6; ++i) r[i] = pads[i];
    }
    if (alg == padding_algorithm::same) {
        for (int i = 0; i < 3; ++i) {
            std::int64_t sum = 0;
            if (in[i] >= 0) {
                const std::int64_t out = (in[i] + strides[i] - 1) / strides[i];
                sum = std::max<std::int64_t>((out - 1) * strides[i] + ksize[i] - in[i], 0);
            }
            r[2 * i] = sum / 2;
            r[2 * i + 1] = sum - sum / 2;
            if (dilations) (*dilations)[i] = 1;
        }
    } else if (alg == padding_algorithm::valid) {
        r.fill(0);
    } else {
        for (auto p : r)
            io.check(p >= 0, [&] {
                return "negative padding in " + list_string(pads) + " is not supported";
            });
    }
    return r;
}

/// Requires NCDHW (or "AnyLayout"); other layouts are unsupported.
inline void require_ncdhw(const attr_map& a, std::string_view type) {
    auto s = a.get<std::string>("data_format", "NCDHW");
    if (s != "NCDHW" && s != "AnyLayout" && s != "NCHW" && !s.empty())
        LITEGRAPH_THROW(unsupported_error("op " + std::string(type) + ": data_format '" + s +
                                          "' is not supported (only NCDHW)"));
}

}  // namespace litegraph::ops::detail
