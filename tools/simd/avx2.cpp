// The AVX2 + FMA kernels (compiled with -mavx2 -mfma; tools/simd/arch_unit.hpp).
#if !defined(__AVX2__) || !defined(__FMA__)
#error "tools/simd/avx2.cpp needs -mavx2 -mfma"
#endif
#include "arch_unit.hpp"

extern "C" constexpr litegraph::kernels::simd::arch_table litegraph_simd_avx2 =
    litegraph::simd_unit::unit<xsimd::fma3<xsimd::avx2>>::table;
