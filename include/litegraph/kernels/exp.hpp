// exp(x) on float32 from IEEE basic operations only, the same bits in a
// scalar and in every lane of any xsimd vector:
//
//   float y = kernels::exp_ops(x);                      // one value
//   xsimd::batch<float, A> v = kernels::exp_ops(xv);    // a vector of them
//
// std::exp and xsimd::exp are each correct to about an ulp, but not the same
// ulp, and a vector exp has no scalar twin on a microcontroller; a kernel
// whose desktop vector form and firmware scalar form must agree bit for bit
// (softmax) computes exp with this one.  Each step is a single IEEE add,
// subtract, multiply, compare-select, float <-> int32 conversion of an
// integer value, shift or bit cast, so it rounds the same everywhere (with
// -ffp-contract=off, as the library's units and firmware are built: no fused
// multiply-add).
//
// The method is Cephes' expf: n = round(x / ln 2) (by adding 1.5 * 2^23),
// r = x - n ln 2 in two parts (the high part exact), exp(r) by a degree-7
// polynomial on |r| <= ln 2 / 2 (within 2 ulp of exp), times 2^n in two
// power-of-two factors, so results between FLT_MIN and the smallest
// subnormal round once, as exp's do.  x above 88.8 gives +inf, below -104
// gives +0 (exp rounds to those there too), NaN gives NaN.
#pragma once

#include <bit>
#include <cstdint>

#include "litegraph/kernels/simd.hpp"

namespace litegraph::kernels {

namespace exp_detail {
inline float select(bool m, float a, float b) {
    return m ? a : b;
}
inline float pow2(std::int32_t k) {  // 2^k for k in [-126, 127]
    return std::bit_cast<float>(static_cast<std::int32_t>((k + 127) << 23));
}
inline std::int32_t to_int(float integral) {
    return static_cast<std::int32_t>(integral);
}
inline bool is_nan(float x) {
    return x != x;
}
#if !defined(LITEGRAPH_SCALAR_SIMD)
template <class A>
inline xsimd::batch<float, A> select(const xsimd::batch_bool<float, A>& m,
                                     const xsimd::batch<float, A>& a,
                                     const xsimd::batch<float, A>& b) {
    return xsimd::select(m, a, b);
}
template <class A>
inline xsimd::batch<float, A> pow2(const xsimd::batch<std::int32_t, A>& k) {
    return xsimd::bitwise_cast<xsimd::batch<float, A>>((k + 127) << 23);
}
template <class A>
inline xsimd::batch<std::int32_t, A> to_int(const xsimd::batch<float, A>& integral) {
    return xsimd::batch_cast<std::int32_t>(integral);
}
// Not `x != x`: xsimd's != is an ordered compare on AVX-512 (false for NaN),
// an unordered one on SSE and AVX.
template <class A>
inline xsimd::batch_bool<float, A> is_nan(const xsimd::batch<float, A>& x) {
    return xsimd::isnan(x);
}
#endif
}  // namespace exp_detail

/// exp(x), T = float or an xsimd float batch (see the top of the file).
template <class T>
inline T exp_ops(T x) {
    using exp_detail::select;
    const T lo(-104.f), hi(88.8f);
    // NaN fails both comparisons and becomes lo here (a finite n below); it
    // is put back at the end.
    T v = select(x > lo, x, lo);
    v = select(v < hi, v, hi);
    const T shifter(12582912.f);  // 1.5 * 2^23: adding it rounds to an integer
    const T nf = (v * T(1.44269504088896341f) + shifter) - shifter;
    T r = v - nf * T(0.693359375f);  // ln 2's high part: 10 bits, nf * it exact
    r = r - nf * T(-2.12194440e-4f);
    T p(1.9875691500e-4f);
    p = p * r + T(1.3981999507e-3f);
    p = p * r + T(8.3334519073e-3f);
    p = p * r + T(4.1665795894e-2f);
    p = p * r + T(1.6666665459e-1f);
    p = p * r + T(5.0000001201e-1f);
    const T y = p * (r * r) + r + T(1.f);
    const auto n = exp_detail::to_int(nf);  // in [-150, 128]
    const auto n1 = n >> 1;                 // in [-75, 64]
    const auto n2 = n - n1;                 // in [-75, 64]
    const T e = y * exp_detail::pow2(n1) * exp_detail::pow2(n2);
    return select(exp_detail::is_nan(x), x, e);
}

}  // namespace litegraph::kernels
