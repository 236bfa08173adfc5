// The AVX2 + FMA kernels: slot avx2 of kernels/isa_table.hpp (compiled with
// its row's flags; simd/arch_unit.hpp).
#include "litegraph/simd/arch_unit.hpp"

extern "C" constexpr litegraph::kernels::simd::arch_table litegraph_simd_avx2 =
    litegraph::simd_unit::unit<xsimd::fma3<xsimd::avx2>>::table;
