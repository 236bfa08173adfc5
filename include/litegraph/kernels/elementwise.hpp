// Element-wise loops on raw arrays, no heap (ops and firmware): a unary
// functor over an array, the add whose Y repeats along one run of dims,
// a byte move, and float32 <-> int8 at one step.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "litegraph/kernels/epilogue.hpp"

namespace litegraph::kernels {

/// out[i] = f(x[i]), i < n (out may be x).
template <class F>
void map(const F& f, const float* x, float* out, std::int64_t n) {
    for (std::int64_t i = 0; i < n; ++i) out[i] = f(x[i]);
}

/// out[i] = x[i] + y[(i / post) % count], i < total (out may be x).
inline void add_repeated(const float* x, const float* y, float* out, std::int64_t total,
                         std::int64_t count, std::int64_t post) {
    for (std::int64_t i = 0; i < total; ++i) out[i] = x[i] + y[(i / post) % count];
}

/// `bytes` bytes from x to out, unless they are the same place.
inline void move_bytes(const void* x, void* out, std::size_t bytes) {
    if (bytes && x != out) std::memmove(out, x, bytes);
}

/// out[i] = sat8(round(x[i] / step)).
inline void quantize_int8(float step, const float* xs, std::int8_t* out, std::int64_t n) noexcept {
    const float inv = 1.f / step;
    for (std::int64_t i = 0; i < n; ++i) out[i] = epilogue::saturate_int8(xs[i] * inv);
}

/// out[i] = x[i] * step.
inline void dequantize_int8(float step, const std::int8_t* xs, float* out,
                            std::int64_t n) noexcept {
    for (std::int64_t i = 0; i < n; ++i) out[i] = static_cast<float>(xs[i]) * step;
}

}  // namespace litegraph::kernels
