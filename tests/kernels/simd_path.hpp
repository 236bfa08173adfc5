// Included by the kernel tests that ctest also runs once per instruction set
// (tests/CMakeLists.txt: kernels/<name>@avx2 with LITEGRAPH_SIMD=avx2 ...):
// when this program or CPU cannot run the path LITEGRAPH_SIMD names, the test
// says so and exits 77 (skipped) instead of testing another path.
#pragma once

#include <cstdio>
#include <cstdlib>

#include "litegraph/kernels/simd.hpp"

namespace kernel_test_simd_path {
inline const bool checked = [] {
    const std::string& bad = litegraph::kernels::simd::check_env();
    if (!bad.empty()) {
        std::printf("skipped: %s\n", bad.c_str());
        std::exit(77);
    }
    return true;
}();
}  // namespace kernel_test_simd_path
