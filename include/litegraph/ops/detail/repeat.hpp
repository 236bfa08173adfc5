// The copy tile and expand_v2 / expand_as_v2 share: Out index i takes X index
// i mod X's dim in every dim (X's shape padded with leading 1s to Out's rank),
// byte-wise for any dtype.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "litegraph/ops/op.hpp"

namespace litegraph::ops::detail {

/// Copies `x` (of shape `in`, same rank as `out_shape`, each dim dividing the
/// matching Out dim) repeated into `out`.
inline void repeat_copy(const tensor_ref& x, const shape_t& in, const tensor_ref& out,
                        const shape_t& out_shape) {
    const auto total = numel(out_shape);
    if (total <= 0) return;
    const auto rank = out_shape.size();
    const auto es = size_of(x.type);
    if (rank == 0) {
        std::memcpy(out.data, x.data, es);
        return;
    }
    // The innermost dim is copied as a run of X's innermost dim, repeated.
    const std::int64_t in_last = rank ? in[rank - 1] : 1;
    const std::int64_t out_last = rank ? out_shape[rank - 1] : 1;
    std::vector<std::int64_t> in_strides(rank, 1);
    for (std::size_t d = rank; d-- > 1;) in_strides[d - 1] = in_strides[d] * in[d];
    std::vector<std::int64_t> idx(rank, 0);
    const auto rows = total / out_last;
    for (std::int64_t r = 0; r < rows; ++r) {
        std::int64_t off = 0;
        for (std::size_t d = 0; d + 1 < rank; ++d) off += (idx[d] % in[d]) * in_strides[d];
        std::byte* dst = out.data + static_cast<std::size_t>(r * out_last) * es;
        const std::byte* src = x.data + static_cast<std::size_t>(off) * es;
        if (in_last == 1) {
            for (std::int64_t j = 0; j < out_last; ++j)
                std::memcpy(dst + static_cast<std::size_t>(j) * es, src, es);
        } else {
            for (std::int64_t j = 0; j < out_last; j += in_last)
                std::memcpy(dst + static_cast<std::size_t>(j) * es, src,
                            static_cast<std::size_t>(in_last) * es);
        }
        for (std::size_t d = rank - 1; d-- > 0;) {
            if (++idx[d] < out_shape[d]) break;
            idx[d] = 0;
        }
    }
}

}  // namespace litegraph::ops::detail
