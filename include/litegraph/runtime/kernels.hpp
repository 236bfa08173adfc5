// The kernels a runtime program can dispatch to: Paddle's ops and the closed
// list of pre-instantiated fused kernels that the fusion passes produce.
#pragma once

#include "litegraph/fusion/fused.hpp"
#include "litegraph/fusion/fused_int8.hpp"
#include "litegraph/ops/int8/concat_int8.hpp"
#include "litegraph/ops/int8/elementwise_int8.hpp"
#include "litegraph/ops/int8/mul_int8.hpp"
#include "litegraph/ops/int8/pool2d_int8.hpp"
#include "litegraph/ops/int8/quantize.hpp"
#include "litegraph/ops/registry.hpp"

namespace litegraph::runtime {

/// The int8 ops the quantize_int8 pass produces (not Paddle ops).
using int8_ops = op_list<ops::quantize_int8, ops::dequantize_int8, ops::mul_int8, ops::pool2d_int8,
                         ops::elementwise_int8, ops::concat_int8>;

using kernel_table = typename concat_op_lists<builtin_ops, fusion::fused_conv_kernels, int8_ops,
                                              fusion::fused_int8_kernels>::type;

// See ops/registry.hpp: the table may be compiled once per build.
#if defined(LITEGRAPH_EXTERN_KERNEL_TABLES) && !defined(LITEGRAPH_DEFINE_KERNEL_TABLES)
std::unique_ptr<kernel> make_table_kernel(std::string_view type, const attr_map& attrs);
#else
/// make_kernel_from<kernel_table>: what the runtime builds its instructions with.
LITEGRAPH_KERNEL_TABLE_LINKAGE std::unique_ptr<kernel> make_table_kernel(std::string_view type,
                                                                         const attr_map& attrs) {
    return make_kernel_from<kernel_table>(type, attrs);
}
#endif

}  // namespace litegraph::runtime
