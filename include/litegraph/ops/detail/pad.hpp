// The padding pad2d and pad3d share: X's spatial dims (the last k of an
// N, C, spatial... layout, or the k before the last of a channels-last one)
// grow by (before, after) each, filled by mode: a constant, a reflection
// without the edge (reflect), the edge value (edge / replicate) or a wrap
// (circular), as Paddle's pad2d / pad3d CPU kernels index them.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "litegraph/ops/op.hpp"

namespace litegraph::ops::detail {

enum class pad_mode : std::uint8_t { constant, reflect, edge, circular };

struct pad_geometry {
    std::int64_t n = 0, c = 0;
    std::vector<std::int64_t> in, out, before;  // spatial dims
    bool channels_last = false;
};

/// The geometry of X [N, C, spatial...] (or [N, spatial..., C]) padded by
/// `pads` ((before, after) per spatial dim, in X's dim order); checks the
/// paddings against the mode.
inline pad_geometry pad_resolve(const op_io& io, const std::vector<std::int64_t>& pads,
                                std::size_t k, bool channels_last, pad_mode mode) {
    const auto& x = io.input("X");
    io.check(x.shape.size() == k + 2, [&] {
        return "X must be " + std::to_string(k + 2) + "-D, has shape " + to_string(x.shape);
    });
    io.check(pads.size() == 2 * k, [&] {
        return "paddings must hold " + std::to_string(2 * k) + " values, holds " +
               std::to_string(pads.size());
    });
    pad_geometry g;
    g.channels_last = channels_last;
    g.n = x.shape[0];
    g.c = channels_last ? x.shape[k + 1] : x.shape[1];
    for (std::size_t d = 0; d < k; ++d) {
        const auto dim = x.shape[channels_last ? d + 1 : d + 2];
        const auto b = pads[2 * d], a = pads[2 * d + 1];
        io.check(b >= 0 && a >= 0, [&] {
            return "paddings must be non-negative, got " + std::to_string(b) + " and " +
                   std::to_string(a) + " for spatial dim " + std::to_string(d);
        });
        if (dim >= 0 && mode == pad_mode::reflect)
            io.check(b < dim && a < dim, [&] {
                return "reflect paddings (" + std::to_string(b) + ", " + std::to_string(a) +
                       ") must be less than the input dim " + std::to_string(dim);
            });
        if (dim >= 0 && (mode == pad_mode::edge || mode == pad_mode::circular))
            io.check(dim > 0 || (a == 0 && b == 0), "cannot pad an empty dim by edge or circular");
        if (dim >= 0 && mode == pad_mode::circular)
            io.check(b <= dim && a <= dim, [&] {
                return "circular paddings (" + std::to_string(b) + ", " + std::to_string(a) +
                       ") must not exceed the input dim " + std::to_string(dim);
            });
        g.in.push_back(dim);
        g.out.push_back(dim < 0 ? -1 : dim + b + a);
        g.before.push_back(b);
    }
    return g;
}

inline shape_t pad_out_shape(const pad_geometry& g) {
    shape_t s{g.n};
    if (!g.channels_last) s.push_back(g.c);
    s.insert(s.end(), g.out.begin(), g.out.end());
    if (g.channels_last) s.push_back(g.c);
    return s;
}

/// Source index along one dim for output index `o`, or -1 for the constant.
inline std::int64_t pad_source(std::int64_t o, std::int64_t before, std::int64_t in,
                               pad_mode mode) {
    std::int64_t i = o - before;
    switch (mode) {
        case pad_mode::constant:
            return i >= 0 && i < in ? i : -1;
        case pad_mode::reflect:
            i = std::max(i, -i);
            return std::min(i, 2 * in - i - 2);
        case pad_mode::edge:
            return std::min(in - 1, std::max(i, std::int64_t{0}));
        case pad_mode::circular:
            return ((i % in) + in) % in;
    }
    return -1;
}

/// The padded copy (float32 or float64).
template <class T>
void pad_run(const pad_geometry& g, const T* x, T* y, pad_mode mode, T value) {
    const auto k = g.in.size();
    std::int64_t out_sp = 1, in_sp = 1;
    for (std::size_t d = 0; d < k; ++d) out_sp *= g.out[d], in_sp *= g.in[d];
    std::vector<std::vector<std::int64_t>> src(k);
    for (std::size_t d = 0; d < k; ++d)
        for (std::int64_t o = 0; o < g.out[d]; ++o)
            src[d].push_back(pad_source(o, g.before[d], g.in[d], mode));
    std::vector<std::int64_t> idx(k, 0);
    for (std::int64_t s = 0; s < out_sp; ++s) {
        std::int64_t off = 0;
        bool inside = true;
        for (std::size_t d = 0; d < k; ++d) {
            const auto v = src[d][static_cast<std::size_t>(idx[d])];
            if (v < 0) inside = false;
            off = off * g.in[d] + v;
        }
        for (std::int64_t b = 0; b < g.n; ++b)
            for (std::int64_t c = 0; c < g.c; ++c) {
                const auto o =
                    g.channels_last ? (b * out_sp + s) * g.c + c : (b * g.c + c) * out_sp + s;
                const auto i =
                    g.channels_last ? (b * in_sp + off) * g.c + c : (b * g.c + c) * in_sp + off;
                y[o] = inside ? x[i] : value;
            }
        for (std::size_t d = k; d-- > 0;) {
            if (++idx[d] < g.out[d]) break;
            idx[d] = 0;
        }
    }
}

}  // namespace litegraph::ops::detail
