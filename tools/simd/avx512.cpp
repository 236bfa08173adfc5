// The AVX-512 (F, CD, DQ, BW) kernels (compiled with -mavx512f -mavx512cd
// -mavx512dq -mavx512bw -mfma; tools/simd/arch_unit.hpp).
#if !defined(__AVX512F__) || !defined(__AVX512BW__) || !defined(__AVX512DQ__) || \
    !defined(__AVX512CD__)
#error "tools/simd/avx512.cpp needs -mavx512f -mavx512cd -mavx512dq -mavx512bw"
#endif
#include "arch_unit.hpp"

extern "C" constexpr litegraph::kernels::simd::arch_table litegraph_simd_avx512 =
    litegraph::simd_unit::unit<xsimd::avx512bw>::table;
