// The AVX-512 VNNI kernels: slot avx512vnni of kernels/isa_table.hpp
// (compiled with its row's flags; simd/arch_unit.hpp).  The AVX-512 kernels
// on an architecture of their own (simd::with_vnni), with the int8 GEMM on
// vpdpbusd and the depthwise int8 on vpdpwssd (kernels/conv_int8_vnni.hpp, conv_int8_avx2.hpp).
#include "litegraph/simd/arch_unit.hpp"

extern "C" constexpr litegraph::kernels::simd::arch_table litegraph_simd_avx512vnni =
    litegraph::simd_unit::unit<litegraph::kernels::simd::with_vnni<xsimd::avx512bw>>::table;
