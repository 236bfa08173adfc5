// Element-wise loops on raw arrays, no heap (ops and firmware): a unary
// functor over an array (in vectors when it has a vector form), the add whose Y repeats along one
// run of dims, a byte move, a transpose (strided copy), a fill with one element's bytes, and
// float32 <-> int8 at one step.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "litegraph/kernels/epilogue.hpp"

namespace litegraph::kernels {

/// out[i] = f(x[i]), i < n (out may be x).  A functor with a vector form
/// (`vec`, the same operations as its scalar form: epilogue::vector_act) runs
/// in kernels::simd::vfloat vectors, the scalar form on the tail only.
template <class F>
void map(const F& f, const float* x, float* out, std::int64_t n) {
    std::int64_t i = 0;
#if !defined(LITEGRAPH_SCALAR_SIMD)
    if constexpr (epilogue::vector_act<F>) {
        using V = simd::vfloat;
        constexpr auto w = static_cast<std::int64_t>(V::size);
        const std::int64_t vend = n > 0 ? n - n % w : 0;
        for (; i < vend; i += w) f.vec(V::load_unaligned(x + i)).store_unaligned(out + i);
    }
#endif
    for (; i < n; ++i) out[i] = f(x[i]);
}

/// out[i] = x[i] + y[(i / post) % count], i < total (out may be x): runs of
/// `post` contiguous values, each plus one y[c], c = 0, 1, ... count - 1, 0, ...
inline void add_repeated(const float* x, const float* y, float* out, std::int64_t total,
                         std::int64_t count, std::int64_t post) {
    if (count <= 0 || post <= 0) return;
    for (std::int64_t base = 0, c = 0; base < total; base += post) {
        const float yc = y[c];
        const std::int64_t end = std::min(post, total - base);
        for (std::int64_t i = 0; i < end; ++i) out[base + i] = x[base + i] + yc;
        if (++c == count) c = 0;
    }
}

/// `bytes` bytes from x to out, unless they are the same place.
inline void move_bytes(const void* x, void* out, std::size_t bytes) {
    if (bytes && x != out) std::memmove(out, x, bytes);
}

/// A transpose as a strided copy of elements of `elem` bytes (1, 2, 4 or 8):
/// Out (dims shape[0 .. rank)) in order, X's offset moving step[d] elements
/// when Out's index d advances; idx is `rank` integers of caller memory.
/// Out must not overlap X.
inline void permute(const void* x, void* out, std::size_t rank, const std::int64_t* shape,
                    const std::int64_t* step, std::int64_t elem, std::int64_t* idx) {
    std::int64_t n = 1;
    for (std::size_t d = 0; d < rank; ++d) n *= shape[d];
    if (n == 0) return;
    const auto e = static_cast<std::size_t>(elem);
    const auto* src = static_cast<const unsigned char*>(x);
    auto* dst = static_cast<unsigned char*>(out);
    if (rank == 0) {
        std::memcpy(dst, src, e);
        return;
    }
    for (std::size_t d = 0; d < rank; ++d) idx[d] = 0;
    const auto last = rank - 1;
    const std::int64_t inner = shape[last], inner_step = step[last];
    // One copy per element, its size a constant for the compiler.
    auto rows = [&](auto size) {
        constexpr std::size_t E = decltype(size)::value;
        std::int64_t off = 0;
        for (std::int64_t done = 0; done < n; done += inner) {
            for (std::int64_t i = 0; i < inner; ++i, dst += E)
                std::memcpy(dst, src + static_cast<std::size_t>(off + i * inner_step) * E, E);
            for (std::size_t d = last; d-- > 0;) {
                off += step[d];
                if (++idx[d] < shape[d]) break;
                off -= step[d] * shape[d];
                idx[d] = 0;
            }
        }
    };
    switch (e) {
        case 1:
            return rows(std::integral_constant<std::size_t, 1>{});
        case 2:
            return rows(std::integral_constant<std::size_t, 2>{});
        case 4:
            return rows(std::integral_constant<std::size_t, 4>{});
        default:
            return rows(std::integral_constant<std::size_t, 8>{});
    }
}

/// `count` elements of `elem` bytes (at most 8), each the bytes at `value`.
inline void fill_elements(void* out, std::int64_t count, std::int64_t elem, const void* value) {
    auto* o = static_cast<unsigned char*>(out);
    const auto e = static_cast<std::size_t>(elem);
    if (e == 4) {  // the common case: a float32 or int32 fill
        for (std::int64_t i = 0; i < count; ++i, o += 4) std::memcpy(o, value, 4);
        return;
    }
    for (std::int64_t i = 0; i < count; ++i, o += e) std::memcpy(o, value, e);
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
