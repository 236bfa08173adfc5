// The int8 fully connected layer over weights widened to int16 pairs ahead
// of time (a firmware network packs them when the header is generated:
// pack_fc_weights): X int8 [M, K] times Y [K, N], per block of four columns
// one LDM of four int16x2 words (Y[k][j], Y[k + 1][j] for the block's four
// j) and four SMLAD against the pair (x[k], x[k + 1]): 6 instructions per
// 8 MACs, against 15 for unpacking Y's bytes at run time (fc_int8).  The
// same int32 accumulators as fc_int8, handed to the same sink.
#pragma once

#include <cstdint>

#include "litegraph/kernels/conv_int8.hpp"
#include "litegraph/kernels/cortex_m/math.hpp"

namespace litegraph::kernels::cortex_m {

/// int16x2 words of the packed weights: N rounded up to 4, K to 2.
inline constexpr std::int64_t fc_packed_words(std::int64_t k, std::int64_t n) noexcept {
    return (n + 3) / 4 * 4 * ((k + 1) / 2);
}

/// Y int8 [K, N] in the packed order: word (b (K + 1) / 2 + t) 4 + m holds
/// (Y[2t][4b + m], Y[2t + 1][4b + m]) as int16 (low, high), zeros past K, N.
inline void pack_fc_weights(std::int64_t k, std::int64_t n, const std::int8_t* y,
                            std::uint32_t* d) noexcept {
    const std::int64_t kp = (k + 1) / 2, blocks = (n + 3) / 4;
    for (std::int64_t b = 0; b < blocks; ++b)
        for (std::int64_t t = 0; t < kp; ++t)
            for (std::int64_t m = 0; m < 4; ++m) {
                const std::int64_t j = 4 * b + m, k0 = 2 * t, k1 = 2 * t + 1;
                const std::int32_t lo = j < n ? y[k0 * n + j] : 0;
                const std::int32_t hi = j < n && k1 < k ? y[k1 * n + j] : 0;
                d[(b * kp + t) * 4 + m] = pack_q15(lo, hi);
            }
}

/// int64 words of scratch fc_int8_packed needs: X's row widened (K rounded
/// up to 2) and N rounded up to 4 accumulators.
inline constexpr std::int64_t fc_packed_scratch_words(std::int64_t k, std::int64_t n) noexcept {
    return ((k + 1) / 2 * 4 + 7) / 8 + ((n + 3) / 4 * 4 * 4 + 7) / 8;
}

/// fc_int8's contract over packed weights w (pack_fc_weights).
inline void fc_int8_packed(std::int64_t m, std::int64_t k, std::int64_t n, const std::int8_t* x,
                           const std::uint32_t* w, std::int64_t* scratch,
                           int32_sink_ref sink) noexcept {
    const auto kp = static_cast<std::ptrdiff_t>((k + 1) / 2);
    auto* xs = reinterpret_cast<std::uint32_t*>(scratch);
    auto* acc = reinterpret_cast<std::int32_t*>(scratch + (kp * 4 + 7) / 8);
    const auto blocks = static_cast<std::ptrdiff_t>((n + 3) / 4);
    for (std::int64_t i = 0; i < m; ++i) {
        const std::int8_t* xi = x + i * k;
        for (std::ptrdiff_t t = 0; t < kp; ++t)
            xs[t] = pack_q15(xi[2 * t], 2 * t + 1 < k ? xi[2 * t + 1] : 0);
        const std::uint32_t* wb = w;
        std::int32_t* o = acc;
        for (std::ptrdiff_t b = 0; b < blocks; ++b, o += 4) {
            std::int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
            const std::uint32_t* xp = xs;
            const std::uint32_t* const xe = xs + kp;
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 2
#endif
            for (; xp != xe; ++xp, wb += 4) {
                const std::uint32_t xv = *xp;
                a0 = smlad(wb[0], xv, a0);
                a1 = smlad(wb[1], xv, a1);
                a2 = smlad(wb[2], xv, a2);
                a3 = smlad(wb[3], xv, a3);
            }
            o[0] = a0;
            o[1] = a1;
            o[2] = a2;
            o[3] = a3;
        }
        sink(i, 0, i * n, acc, n);
    }
}

}  // namespace litegraph::kernels::cortex_m
