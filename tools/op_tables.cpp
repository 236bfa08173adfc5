// The op tables (every op and fused kernel), compiled once per build into
// the object library litegraph_op_tables that the CLI, the examples and
// the tests link; their own units define LITEGRAPH_EXTERN_OP_TABLES and
// only declare the tables (see ops/builtin_ops.hpp).  This unit holds
// builtin_ops, tools/op_tables_added.cpp the rest.  A program of your own
// needs none of this: without the define, the tables are inline.
#define LITEGRAPH_DEFINE_OP_TABLES
#include "litegraph/runtime/op_table.hpp"
