// The ops a firmware network (firmware/network.hpp) can hold: every op
// with a firmware form (ops/firmware.hpp), the fused kernel lists included.
// `litegraph codegen` looks a node's op up here, as the runtime looks it up
// in its op table; an op gains a compile-time form by declaring one and
// joining this list.
#pragma once

#include "litegraph/fusion/fused.hpp"
#include "litegraph/fusion/fused_int8.hpp"
#include "litegraph/ops/activation.hpp"
#include "litegraph/ops/elementwise.hpp"
#include "litegraph/ops/flatten2.hpp"
#include "litegraph/ops/int8/mul_int8.hpp"
#include "litegraph/ops/int8/pool2d_int8.hpp"
#include "litegraph/ops/int8/quantize.hpp"
#include "litegraph/ops/makers.hpp"
#include "litegraph/ops/matmul.hpp"
#include "litegraph/ops/pool2d.hpp"
#include "litegraph/ops/reshape2.hpp"
#include "litegraph/ops/rnn.hpp"
#include "litegraph/ops/scale.hpp"
#include "litegraph/ops/softmax.hpp"
#include "litegraph/ops/squeeze2.hpp"
#include "litegraph/ops/transpose2.hpp"
#include "litegraph/ops/unsqueeze2.hpp"

namespace litegraph::firmware {

using op_types = typename concat_op_lists<
    fusion::fused_conv_ops, fusion::fused_int8_ops,
    op_list<ops::mul_int8, ops::quantize_int8, ops::dequantize_int8, ops::pool2d, ops::pool2d_int8,
            ops::mul, ops::matmul, ops::matmul_v2, ops::elementwise, ops::softmax, ops::reshape2,
            ops::flatten2, ops::flatten_contiguous_range, ops::squeeze2, ops::unsqueeze2,
            ops::transpose2, ops::scale, ops::fill_constant_batch_size_like, ops::rnn>,
    ops::activation_ops>::type;

}  // namespace litegraph::firmware
