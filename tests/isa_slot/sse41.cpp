// A dummy slot's unit (tests/isa_slot): the SSE4.1 kernels, compiled with the
// flags of its row in the test's instruction-set table.
#include "litegraph/simd/arch_unit.hpp"

extern "C" constexpr litegraph::kernels::simd::arch_table litegraph_simd_sse41 =
    litegraph::simd_unit::unit<xsimd::sse4_1>::table;
