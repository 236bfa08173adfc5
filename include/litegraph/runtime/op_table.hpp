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

// See ops/builtin_ops.hpp: the table may be compiled once per build.
#if defined(LITEGRAPH_EXTERN_OP_TABLES) && !defined(LITEGRAPH_DEFINE_OP_TABLES)
std::unique_ptr<op_instance> make_table_instance(std::string_view type, const attr_map& attrs);
#else
/// make_instance_from<op_table>: what the runtime builds its instructions with.
LITEGRAPH_OP_TABLE_LINKAGE std::unique_ptr<op_instance> make_table_instance(std::string_view type,
                                                                            const attr_map& attrs) {
    return make_instance_from<op_table>(type, attrs);
}
#endif

}  // namespace litegraph::runtime
