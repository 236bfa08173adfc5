// The NEON kernels with the Armv8.2 dot products (sdot, udot): slot
// neon_dotprod of kernels/isa_table.hpp (compiled with its row's flags;
// simd/arch_unit.hpp), run where the kernel reports HWCAP_ASIMDDP.  The
// baseline's NEON kernels on an architecture of their own
// (simd::with_dotprod), with the int8 GEMM on sdot
// (kernels/conv_int8_neon.hpp).
#include "litegraph/simd/arch_unit.hpp"

extern "C" constexpr litegraph::kernels::simd::arch_table litegraph_simd_neon_dotprod =
    litegraph::simd_unit::unit<litegraph::kernels::simd::with_dotprod<xsimd::neon64>>::table;
