// sequence_conv: a 1-D convolution inside each sequence of a level-1 LoD
// tensor.  X [T, D], Filter [contextLength * D, M], Out [T, M] with X's LoD.
// Row t of sequence [b, e) sees the rows t + contextStart + j, j in
// [0, contextLength), as one vector of contextLength * D values (a row outside
// [b, e) contributes zeros), times Filter: Paddle's context projection then
// matmul.  Not handled (clear errors): contextStride other than 1 (Paddle
// refuses it too) and paddingTrainable (learned padding rows).  float32 and
// float64.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "litegraph/ops/detail/sequence.hpp"

namespace litegraph::ops {

struct sequence_conv {
    static constexpr std::string_view paddle_types[] = {"sequence_conv"};
    struct params {
        std::int64_t context_length = 3;
        std::int64_t context_start = 0;
    };

    static params parse(const attr_map& a, std::string_view) {
        params p;
        p.context_length = a.require<std::int64_t>("contextLength");
        p.context_start = a.get<std::int64_t>("contextStart", 0);
        const auto stride = a.get<std::int64_t>("contextStride", 1);
        if (stride != 1)
            throw unsupported_error("sequence_conv: contextStride " + std::to_string(stride) +
                                    " is not supported (only 1)");
        if (a.get<bool>("paddingTrainable", false))
            throw unsupported_error("sequence_conv: paddingTrainable is not supported");
        if (p.context_length <= 0 || p.context_length > (1 << 20))
            throw unsupported_error("sequence_conv: contextLength " +
                                    std::to_string(p.context_length) + " is out of range");
        if (p.context_start < -(1 << 20) || p.context_start > (1 << 20))
            throw unsupported_error("sequence_conv: contextStart " +
                                    std::to_string(p.context_start) + " is out of range");
        return p;
    }

    static void infer(const params& p, op_io& io) {
        const auto& x = io.input("X");
        const auto& f = io.input("Filter");
        io.check(x.type == dtype::f32 || x.type == dtype::f64, [&] {
            return "X must be float32 or float64, got " + std::string(name_of(x.type));
        });
        io.check(f.type == x.type, "Filter must have X's dtype");
        io.check(x.shape.size() == 2,
                 [&] { return "X must be [T, D], has shape " + to_string(x.shape); });
        io.check(x.lod.size() == 1 || x.lod.empty(), [&] {
            return "X has a LoD of " + std::to_string(x.lod.size()) +
                   " levels; sequence_conv takes one level";
        });
        detail::sequence_offsets(io, "X");
        io.check(f.shape.size() == 2 && f.shape[0] == p.context_length * x.shape[1], [&] {
            return "Filter must be [contextLength * D, M] = [" +
                   std::to_string(p.context_length * x.shape[1]) + ", M], has shape " +
                   to_string(f.shape);
        });
        auto& out = io.output("Out");
        out.type = x.type;
        out.shape = {x.shape[0], f.shape[1]};
    }

    static void run(const params& p, op_io& io) {
        if (io.input("X").type == dtype::f64)
            conv<double>(p, io);
        else
            conv<float>(p, io);
    }

private:
    template <class T>
    static void conv(const params& p, op_io& io) {
        const auto& x = io.input("X");
        const auto& f = io.input("Filter");
        const auto& offsets = detail::sequence_offsets(io, "X");
        const std::int64_t d = x.shape[1], m = f.shape[1];
        const T* in = x.as<T>();
        const T* w = f.as<T>();
        T* o = io.output("Out").as<T>();
        for (std::int64_t i = 0; i < x.shape[0] * m; ++i) o[i] = T(0);
        for (std::size_t s = 0; s + 1 < offsets.size(); ++s) {
            const std::int64_t b = offsets[s], e = offsets[s + 1];
            for (std::int64_t t = b; t < e; ++t) {
                T* row = o + t * m;
                for (std::int64_t j = 0; j < p.context_length; ++j) {
                    const std::int64_t src = t + p.context_start + j;
                    if (src < b || src >= e) continue;
                    const T* xr = in + src * d;
                    const T* wj = w + j * d * m;
                    for (std::int64_t k = 0; k < d; ++k) {
                        const T v = xr[k];
                        const T* wr = wj + k * m;
                        for (std::int64_t c = 0; c < m; ++c) row[c] += v * wr[c];
                    }
                }
            }
        }
    }
};

}  // namespace litegraph::ops
