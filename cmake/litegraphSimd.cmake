# litegraph_simd_units(<out-var> <dir>): the arch units of <dir> (avx2.cpp,
# avx512.cpp) that this compiler and these flags need, each given its
# instruction set's flags (source property COMPILE_OPTIONS, in the calling
# directory).  None off x86-64, and none whose instruction set the flags
# (CMAKE_CXX_FLAGS, e.g. -march=native) already give.  -ffp-contract=off:
# the compiler must not fuse a * b + c into an FMA where the baseline rounds
# twice (a fused conv's folded batch norm equals the unfused ops bit for bit);
# the kernels' own FMAs are explicit (xsimd::fma).
include(CheckCXXSourceCompiles)
function(litegraph_simd_units out dir)
  set(units)
  check_cxx_source_compiles("
#if !defined(__x86_64__) || !(defined(__GNUC__) || defined(__clang__)) || !defined(__ELF__)
#error not x86-64 ELF with GCC or clang
#endif
int main() { return 0; }" LITEGRAPH_SIMD_X86_64)
  if(NOT LITEGRAPH_SIMD_X86_64)
    set(${out} "" PARENT_SCOPE)
    return()
  endif()
  check_cxx_source_compiles("
#if !defined(__AVX512F__) || !defined(__AVX512BW__) || !defined(__AVX512DQ__) || !defined(__AVX512CD__)
#error no AVX-512
#endif
int main() { return 0; }" LITEGRAPH_SIMD_BASE_AVX512)
  check_cxx_source_compiles("
#if !defined(__AVX2__) || !defined(__FMA__)
#error no AVX2
#endif
int main() { return 0; }" LITEGRAPH_SIMD_BASE_AVX2)
  if(NOT LITEGRAPH_SIMD_BASE_AVX2 AND NOT LITEGRAPH_SIMD_BASE_AVX512)
    list(APPEND units ${dir}/avx2.cpp)
    set_source_files_properties(${dir}/avx2.cpp PROPERTIES COMPILE_OPTIONS "-mavx2;-mfma;-ffp-contract=off")
  endif()
  if(NOT LITEGRAPH_SIMD_BASE_AVX512)
    list(APPEND units ${dir}/avx512.cpp)
    set_source_files_properties(${dir}/avx512.cpp PROPERTIES COMPILE_OPTIONS
                                "-mavx512f;-mavx512cd;-mavx512dq;-mavx512bw;-mavx2;-mfma;-ffp-contract=off")
  endif()
  set(${out} ${units} PARENT_SCOPE)
endfunction()
