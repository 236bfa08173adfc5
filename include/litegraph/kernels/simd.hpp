// The one SIMD vocabulary the fast kernels use: a float vector of the widest
// kind xsimd supports for the compile flags (SSE2 by default on x86-64, AVX2 or
// AVX-512 with -march=native, NEON on ARM), or a one-lane scalar stand-in when
// xsimd supports nothing (microcontrollers), so the kernels always build.
#pragma once

#include <cstddef>
#include <cstdint>

// Cortex-M (and LITEGRAPH_NO_XSIMD): no vector unit xsimd knows, and a C
// library without posix_memalign, so xsimd is not included at all.
#if defined(LITEGRAPH_NO_XSIMD) || (defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M')
#define LITEGRAPH_SCALAR_SIMD 1
#else
#include <xsimd/xsimd.hpp>
#if defined(XSIMD_NO_SUPPORTED_ARCHITECTURE)
#define LITEGRAPH_SCALAR_SIMD 1
#endif
#endif

namespace litegraph::kernels::simd {

#if defined(LITEGRAPH_SCALAR_SIMD)
struct vfloat {
    static constexpr std::size_t size = 1;
    float v = 0.f;
    vfloat() = default;
    vfloat(float x) : v(x) {}  // NOLINT: broadcast, as xsimd::batch
    friend vfloat operator+(vfloat a, vfloat b) { return a.v + b.v; }
    friend vfloat operator*(vfloat a, vfloat b) { return a.v * b.v; }
};
inline vfloat load(const float* p) {
    return *p;
}
inline void store(float* p, vfloat x) {
    *p = x.v;
}
inline vfloat fmadd(vfloat a, vfloat b, vfloat c) {
    return a.v * b.v + c.v;
}
inline constexpr const char* arch_name = "scalar";
#else
using vfloat = xsimd::batch<float>;
inline vfloat load(const float* p) {
    return vfloat::load_unaligned(p);
}
inline void store(float* p, vfloat x) {
    x.store_unaligned(p);
}
/// a * b + c (a fused multiply-add where the target has one).
inline vfloat fmadd(vfloat a, vfloat b, vfloat c) {
    return xsimd::fma(a, b, c);
}
inline constexpr const char* arch_name = xsimd::default_arch::name();
#endif

/// Floats per vector.
inline constexpr std::int64_t width = static_cast<std::int64_t>(vfloat::size);

}  // namespace litegraph::kernels::simd
