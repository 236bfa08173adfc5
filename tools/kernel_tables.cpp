// The kernel tables (every op and fused kernel), compiled once per build into
// the object library litegraph_kernel_tables that the CLI, the examples and
// the tests link; their own units define LITEGRAPH_EXTERN_KERNEL_TABLES and
// only declare the tables (see ops/registry.hpp).  A program of your own
// needs none of this: without the define, the tables are inline.
#define LITEGRAPH_DEFINE_KERNEL_TABLES
#include "litegraph/runtime/kernels.hpp"
