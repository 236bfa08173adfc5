// The instruction-set table of the run-time dispatch (kernels/simd.hpp): one
// row per slot above the compile-time baseline, narrowest first (the widest
// usable slot runs).  This one table is read by
//   - kernels/simd.hpp (an X-macro): the slot enum `simd::isa`, the names
//     LITEGRAPH_SIMD takes and `run --json` reports as "simd", the CPU test,
//     the weak table symbol `litegraph_simd_<slot>` of each unit;
//   - cmake/litegraphSimd.cmake (file(STRINGS) and a regex): which units to
//     compile, with which flags, and which the compile flags already give
//     (the in-tree build, the installed litegraphConfig.cmake, the tests);
//   - meson.build (fs.read and split): the same units and flags;
//   - the tests (tests/kernels/isa_table.cpp, tests/CMakeLists.txt's
//     kernels/<test>@<slot> runs, and a build with one row more).
// Adding a slot is a row here and its unit file src/simd/<slot>.cpp (which
// defines `litegraph_simd_<slot>` from simd/arch_unit.hpp for the slot's
// xsimd architecture), nothing else (docs/design.md, "Instruction sets at
// run time").
//
// The columns of X(slot, family, flags, macros, cpu):
//   slot    the name (the enum value, LITEGRAPH_SIMD=<slot>, the unit file
//           <slot>.cpp, the symbol litegraph_simd_<slot>); LITEGRAPH_SIMD
//           and `run --json` spell its `_` as `-` (neon-dotprod)
//   family  the CPU family the unit compiles for (meson's cpu_family():
//           x86_64 or aarch64); a program has the rows of its own family
//           (the others are in the enum, never usable)
//   flags   the unit's compile flags, `;`-separated (besides the common
//           -ffp-contract=off)
//   macros  the predefined macros those flags give, `;`-separated: a build
//           whose own flags define them all (-march=native) already has the
//           slot's kernels as its baseline and leaves this unit, and every
//           narrower one, out
//   cpu     the CPU test, a condition on `f` (simd::cpu_features: CPUID
//           bits and the OS's register state on x86, HWCAP bits on
//           aarch64 Linux), without commas
// The parsers read one row per line, as written below: keep that layout.
#pragma once

// clang-format off
#define LITEGRAPH_ISA_TABLE(X) \
    X(avx2, x86_64, "-mavx2;-mfma", "__AVX2__;__FMA__", f.avx && f.fma && f.ymm_state && f.avx2) \
    X(avxvnni, x86_64, "-mavx2;-mfma;-mavxvnni", "__AVX2__;__FMA__;__AVXVNNI__", f.avx && f.fma && f.ymm_state && f.avx2 && f.avx_vnni) \
    X(avx512, x86_64, "-mavx512f;-mavx512cd;-mavx512dq;-mavx512bw;-mavx2;-mfma", "__AVX512F__;__AVX512CD__;__AVX512DQ__;__AVX512BW__", f.avx && f.fma && f.ymm_state && f.avx2 && f.avx512f && f.avx512dq && f.avx512cd && f.avx512bw && f.zmm_state) \
    X(avx512vnni, x86_64, "-mavx512f;-mavx512cd;-mavx512dq;-mavx512bw;-mavx512vl;-mavx512vnni;-mavx2;-mfma", "__AVX512F__;__AVX512CD__;__AVX512DQ__;__AVX512BW__;__AVX512VL__;__AVX512VNNI__", f.avx && f.fma && f.ymm_state && f.avx2 && f.avx512f && f.avx512dq && f.avx512cd && f.avx512bw && f.avx512vl && f.avx512vnni && f.zmm_state) \
    X(neon_dotprod, aarch64, "-march=armv8.2-a+dotprod", "__ARM_FEATURE_DOTPROD", f.asimddp) \
    /* end of the table */
// clang-format on
