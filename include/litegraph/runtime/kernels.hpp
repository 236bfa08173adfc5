// The kernels a runtime program can dispatch to: Paddle's ops and the closed
// list of pre-instantiated fused kernels that the fusion passes produce.
#pragma once

#include "litegraph/fusion/fused.hpp"
#include "litegraph/ops/registry.hpp"

namespace litegraph::runtime {

using kernel_table = typename concat_op_lists<builtin_ops, fusion::fused_conv_kernels>::type;

}  // namespace litegraph::runtime
