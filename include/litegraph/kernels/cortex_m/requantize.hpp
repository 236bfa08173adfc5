// The int8 requantize epilogue over a run of int32 accumulators, as tight
// loops: out[i] = sat8(round(post(acc[i] * m (* k) + b) * inv_scale)), the
// arithmetic of the chain rescale -> bias -> [act] -> quantize_store
// (kernels/epilogue.hpp) in the same order, so the bytes are the same; only
// the per-element bookkeeping of the generic chain (channel lookups, the
// stores' aliasing reloads) is gone.  On an FPv5 core (Cortex-M7, M33, M55)
// round-and-saturate is VCVTA (round to nearest, ties away, saturating to
// int32, NaN to 0) and SSAT #8: ten instructions per output, against about
// thirty for the generic chain.
#pragma once

#include <cstdint>

#include "litegraph/kernels/epilogue.hpp"

namespace litegraph::kernels::cortex_m {

/// epilogue::saturate_int8(v) as an int32: round half away from zero,
/// saturate to [-128, 127], NaN to 0 (VCVTA and SSAT on an FPv5 core).
inline std::int32_t round_sat8(float v) noexcept {
    return epilogue::saturate_int8(v);
}

/// One channel's run: out[i] = round_sat8(post(scaled ? acc * m * k + b :
/// acc * m + b) * inv), post the chain's activation (identity when none).
template <bool Scaled, class Post>
inline void requantize_run(std::int8_t* __restrict out, const std::int32_t* __restrict acc,
                           std::int64_t count, float m, float k, float b, float inv,
                           Post post) noexcept {
    const std::int32_t* const end = acc + count;
    for (; acc != end; ++acc, ++out) {
        float v = static_cast<float>(*acc) * m;
        if constexpr (Scaled)
            v = v * k + b;
        else
            v = v + b;
        *out = static_cast<std::int8_t>(round_sat8(post(v) * inv));
    }
}

/// A run whose element j is channel j (the fc): out[j] = round_sat8(acc[j] *
/// m[j] * inv), the chain rescale -> quantize_store.
inline void requantize_channels(std::int8_t* __restrict out, const std::int32_t* __restrict acc,
                                std::int64_t count, const float* __restrict m, float inv) noexcept {
    for (std::int64_t j = 0; j < count; ++j)
        out[j] = static_cast<std::int8_t>(round_sat8(static_cast<float>(acc[j]) * m[j] * inv));
}

}  // namespace litegraph::kernels::cortex_m
