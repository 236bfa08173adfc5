// The kernels a runtime program can dispatch to: Paddle's ops and the closed
// list of pre-instantiated fused kernels that the fusion passes produce.
#pragma once

#include "litegraph/fusion/fused.hpp"
#include "litegraph/fusion/fused_int8.hpp"
#include "litegraph/ops/builtin_ops.hpp"
#include "litegraph/ops/int8/concat_int8.hpp"
#include "litegraph/ops/int8/elementwise_int8.hpp"
#include "litegraph/ops/int8/mul_int8.hpp"
#include "litegraph/ops/int8/pool2d_int8.hpp"
#include "litegraph/ops/int8/quantize.hpp"

namespace litegraph::runtime {

/// The int8 ops the quantize_int8 pass produces (not Paddle ops).
using int8_ops = op_list<ops::quantize_int8, ops::dequantize_int8, ops::mul_int8, ops::pool2d_int8,
                         ops::elementwise_int8, ops::concat_int8>;

using op_table = typename concat_op_lists<builtin_ops, fusion::fused_conv_ops, int8_ops,
                                          fusion::fused_int8_ops>::type;

/// The ops of op_table after builtin_ops.
using added_ops =
    typename concat_op_lists<fusion::fused_conv_ops, int8_ops, fusion::fused_int8_ops>::type;

// See ops/builtin_ops.hpp: the table may be compiled once per build, in two
// units: builtin_ops in the one that defines LITEGRAPH_DEFINE_OP_TABLES
// (tools/op_tables.cpp), the added ops and this function in the one that
// defines LITEGRAPH_DEFINE_TABLE_INSTANCE (tools/op_tables_added.cpp).
#if defined(LITEGRAPH_EXTERN_OP_TABLES) && !defined(LITEGRAPH_DEFINE_TABLE_INSTANCE)
std::unique_ptr<op_instance> make_table_instance(std::string_view type, const attr_map& attrs);
#else
/// make_instance_from<op_table> (the builtin ops first, then the added ones):
/// what the runtime builds its instructions with.
#if defined(LITEGRAPH_DEFINE_TABLE_INSTANCE)
#define LITEGRAPH_TABLE_INSTANCE_LINKAGE
#else
#define LITEGRAPH_TABLE_INSTANCE_LINKAGE inline
#endif
LITEGRAPH_TABLE_INSTANCE_LINKAGE std::unique_ptr<op_instance> make_table_instance(
    std::string_view type, const attr_map& attrs) {
    if (auto k = find_builtin_instance(type, attrs)) return k;
    if (auto k = litegraph::detail::make_instance(added_ops{}, type, attrs)) return k;
    litegraph::detail::refuse<op_table>(type);
}
#endif

}  // namespace litegraph::runtime
