// The op table's second half (runtime/op_table.hpp): the fused and int8
// kernels the passes add, and make_table_instance, which tries builtin_ops
// (tools/op_tables.cpp) first.  Two units, so that the table's two halves
// compile in parallel; both go into the object library litegraph_op_tables.
#define LITEGRAPH_DEFINE_TABLE_INSTANCE
#include "litegraph/runtime/op_table.hpp"
