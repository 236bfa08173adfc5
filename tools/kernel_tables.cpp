// The one translation unit of the test suite that compiles the kernel tables
// (every op and fused kernel); the tests only declare them (see
// ops/registry.hpp), which saves most of their build time.
#define LITEGRAPH_DEFINE_KERNEL_TABLES
#include "litegraph/runtime/kernels.hpp"
