// The AVX-512 (F, CD, DQ, BW) kernels: slot avx512 of kernels/isa_table.hpp
// (compiled with its row's flags; simd/arch_unit.hpp).
#include "litegraph/simd/arch_unit.hpp"

extern "C" constexpr litegraph::kernels::simd::arch_table litegraph_simd_avx512 =
    litegraph::simd_unit::unit<xsimd::avx512bw>::table;
