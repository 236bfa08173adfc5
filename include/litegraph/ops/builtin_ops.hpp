// The list of built-in ops, `builtin_ops`, and make_instance over it: adding
// an op means adding its header here and its type to `other_builtin_ops`; an
// activation is added to `activation_functors` in ops/activation.hpp instead,
// which gives its op.  No self-registering statics: the lists are explicit.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "litegraph/ops/activation.hpp"
#include "litegraph/ops/affine_channel.hpp"
#include "litegraph/ops/arg_max.hpp"
#include "litegraph/ops/arg_sort.hpp"
#include "litegraph/ops/assign_value.hpp"
#include "litegraph/ops/batch_norm.hpp"
#include "litegraph/ops/box_coder.hpp"
#include "litegraph/ops/cast.hpp"
#include "litegraph/ops/channel_shuffle.hpp"
#include "litegraph/ops/clip.hpp"
#include "litegraph/ops/compare.hpp"
#include "litegraph/ops/concat.hpp"
#include "litegraph/ops/conv2d.hpp"
#include "litegraph/ops/conv2d_transpose.hpp"
#include "litegraph/ops/conv3d.hpp"
#include "litegraph/ops/crf_decoding.hpp"
#include "litegraph/ops/ctc_align.hpp"
#include "litegraph/ops/cumsum.hpp"
#include "litegraph/ops/density_prior_box.hpp"
#include "litegraph/ops/dropout.hpp"
#include "litegraph/ops/elementwise.hpp"
#include "litegraph/ops/expand_v2.hpp"
#include "litegraph/ops/fake_quant.hpp"
#include "litegraph/ops/fill_constant.hpp"
#include "litegraph/ops/flatten2.hpp"
#include "litegraph/ops/flip.hpp"
#include "litegraph/ops/gather.hpp"
#include "litegraph/ops/gather_nd.hpp"
#include "litegraph/ops/grid_sample.hpp"
#include "litegraph/ops/group_norm.hpp"
#include "litegraph/ops/gru.hpp"
#include "litegraph/ops/im2sequence.hpp"
#include "litegraph/ops/instance_norm.hpp"
#include "litegraph/ops/layer_norm.hpp"
#include "litegraph/ops/lookup_table_v2.hpp"
#include "litegraph/ops/lstm.hpp"
#include "litegraph/ops/makers.hpp"
#include "litegraph/ops/matmul.hpp"
#include "litegraph/ops/matrix_nms.hpp"
#include "litegraph/ops/multiclass_nms.hpp"
#include "litegraph/ops/nearest_interp_v2.hpp"
#include "litegraph/ops/one_hot.hpp"
#include "litegraph/ops/op.hpp"
#include "litegraph/ops/pad2d.hpp"
#include "litegraph/ops/pad3d.hpp"
#include "litegraph/ops/pixel_shuffle.hpp"
#include "litegraph/ops/pool2d.hpp"
#include "litegraph/ops/pool3d.hpp"
#include "litegraph/ops/prelu.hpp"
#include "litegraph/ops/prior_box.hpp"
#include "litegraph/ops/reduce.hpp"
#include "litegraph/ops/reshape2.hpp"
#include "litegraph/ops/rnn.hpp"
#include "litegraph/ops/scale.hpp"
#include "litegraph/ops/sequence_conv.hpp"
#include "litegraph/ops/sequence_expand.hpp"
#include "litegraph/ops/sequence_pool.hpp"
#include "litegraph/ops/sequence_softmax.hpp"
#include "litegraph/ops/set_value.hpp"
#include "litegraph/ops/shape.hpp"
#include "litegraph/ops/slice.hpp"
#include "litegraph/ops/softmax.hpp"
#include "litegraph/ops/split.hpp"
#include "litegraph/ops/squeeze2.hpp"
#include "litegraph/ops/stack.hpp"
#include "litegraph/ops/sum.hpp"
#include "litegraph/ops/tensor_array.hpp"
#include "litegraph/ops/tile.hpp"
#include "litegraph/ops/top_k.hpp"
#include "litegraph/ops/transpose2.hpp"
#include "litegraph/ops/unsqueeze2.hpp"
#include "litegraph/ops/unstack.hpp"
#include "litegraph/ops/yolo_box.hpp"

namespace litegraph {

/// Every built-in op but the activations.
using other_builtin_ops = op_list<                         //
    ops::scale,                                            //
    ops::elementwise,                                      //
    ops::compare,                                          //
    ops::logical_not,                                      //
    ops::pow_op,                                           //
    ops::clip,                                             //
    ops::prelu,                                            //
    ops::softmax,                                          //
    ops::log_softmax,                                      //
    ops::mul,                                              //
    ops::matmul,                                           //
    ops::matmul_v2,                                        //
    ops::cast,                                             //
    ops::fake_quantize_dequantize_moving_average_abs_max,  //
    ops::fake_quantize_dequantize_abs_max,                 //
    ops::fake_channel_wise_quantize_dequantize_abs_max,    //
    ops::quantize_linear,                                  //
    ops::fake_quantize_moving_average_abs_max,             //
    ops::fake_dequantize_max_abs,                          //
    ops::dequantize_linear,                                //
    ops::arg_max,                                          //
    ops::reduce,                                           //
    ops::p_norm,                                           //
    ops::cumsum,                                           //
    ops::concat,                                           //
    ops::stack,                                            //
    ops::dropout,                                          //
    ops::fill_constant,                                    //
    ops::assign,                                           //
    ops::fill_any_like,                                    //
    ops::fill_constant_batch_size_like,                    //
    ops::range,                                            //
    ops::where,                                            //
    ops::flatten2,                                         //
    ops::flatten_contiguous_range,                         //
    ops::flip,                                             //
    ops::lookup_table_v2,                                  //
    ops::one_hot_v2,                                       //
    ops::set_value,                                        //
    ops::reshape2,                                         //
    ops::shape,                                            //
    ops::slice,                                            //
    ops::squeeze2,                                         //
    ops::transpose2,                                       //
    ops::unsqueeze2,                                       //
    ops::conv2d,                                           //
    ops::conv2d_transpose,                                 //
    ops::pool2d,                                           //
    ops::batch_norm,                                       //
    ops::layer_norm,                                       //
    ops::interp_v2,                                        //
    ops::grid_sampler,                                     //
    ops::yolo_box,                                         //
    ops::multiclass_nms,                                   //
    ops::matrix_nms,                                       //
    ops::sequence_pool,                                    //
    ops::sequence_conv,                                    //
    ops::sum,                                              //
    ops::lstm,                                             //
    ops::gru,                                              //
    ops::crf_decoding,                                     //
    ops::conv3d,                                           //
    ops::pool3d,                                           //
    ops::sequence_expand,                                  //
    ops::sequence_softmax,                                 //
    ops::im2sequence,                                      //
    ops::ctc_align,                                        //
    ops::split,                                            //
    ops::unstack,                                          //
    ops::gather,                                           //
    ops::gather_nd,                                        //
    ops::tile,                                             //
    ops::expand_v2,                                        //
    ops::expand_as_v2,                                     //
    ops::top_k,                                            //
    ops::arg_sort,                                         //
    ops::pixel_shuffle,                                    //
    ops::channel_shuffle,                                  //
    ops::assign_value,                                     //
    ops::pad2d,                                            //
    ops::pad3d,                                            //
    ops::affine_channel,                                   //
    ops::instance_norm,                                    //
    ops::group_norm,                                       //
    ops::prior_box,                                        //
    ops::density_prior_box,                                //
    ops::box_coder,                                        //
    ops::rnn,                                              //
    ops::write_to_array,                                   //
    ops::read_from_array,                                  //
    ops::lod_array_length,                                 //
    ops::tensor_array_to_tensor                            //
    >;

/// The ops litegraph runs: the activations (`ops::activation_ops`, one per
/// functor of ops/activation.hpp's `activation_functors`) and the others.
using builtin_ops = typename concat_op_lists<ops::activation_ops, other_builtin_ops>::type;

namespace detail {
template <class... Ops>
std::unique_ptr<op_instance> make_instance(op_list<Ops...>, std::string_view type,
                                           const attr_map& a) {
    std::unique_ptr<op_instance> k;
    auto try_one = [&]<class Op>() {
        for (std::string_view t : Op::paddle_types)
            if (t == type && op_matches<Op>(a)) {
                k = std::make_unique<op_instance_of<Op>>(a, type);
                return true;
            }
        return false;
    };
    (try_one.template operator()<Ops>() || ...);
    return k;
}
template <class... Ops>
void list_types(op_list<Ops...>, std::vector<std::string_view>& out) {
    (out.insert(out.end(), std::begin(Ops::paddle_types), std::end(Ops::paddle_types)), ...);
}

/// The error of make_instance_from<List> when none of its ops took `type`.
template <class List>
[[noreturn]] void refuse(std::string_view type) {
    std::vector<std::string_view> types;
    detail::list_types(List{}, types);
    for (std::string_view t : types)
        if (t == type)  // ops that share a type (the fused kernels) all refused the attributes
            throw unsupported_error("op '" + std::string(type) +
                                    "': no kernel of this type matches its attributes (a fused "
                                    "conv: its `stages`, docs/fusion.md)");
    throw unsupported_error("unsupported op '" + std::string(type) + "'");
}
}  // namespace detail

/// The kernel for `type` from the ops of `List`; throws unsupported_error
/// naming the type when none handles it.  Instantiating it compiles every op
/// of the list.
template <class List>
std::unique_ptr<op_instance> make_instance_from(std::string_view type, const attr_map& attrs) {
    auto k = detail::make_instance(List{}, type, attrs);
    if (k) return k;
    detail::refuse<List>(type);
}

// A build with many translation units (the test suite) may compile the
// op table once: it defines LITEGRAPH_EXTERN_OP_TABLES everywhere and
// LITEGRAPH_DEFINE_OP_TABLES in the one unit that holds these definitions
// (tools/op_tables.cpp; runtime/op_table.hpp's in another, so that the two
// halves compile in parallel).
#if defined(LITEGRAPH_EXTERN_OP_TABLES) && !defined(LITEGRAPH_DEFINE_OP_TABLES)
std::unique_ptr<op_instance> find_builtin_instance(std::string_view type, const attr_map& attrs);
#else
#if defined(LITEGRAPH_DEFINE_OP_TABLES)
#define LITEGRAPH_OP_TABLE_LINKAGE
#else
#define LITEGRAPH_OP_TABLE_LINKAGE inline
#endif
/// The kernel of the first op of builtin_ops that takes `type` with these
/// attributes, or null.
LITEGRAPH_OP_TABLE_LINKAGE std::unique_ptr<op_instance> find_builtin_instance(
    std::string_view type, const attr_map& attrs) {
    return detail::make_instance(builtin_ops{}, type, attrs);
}
#endif
/// make_instance_from<builtin_ops>.
inline std::unique_ptr<op_instance> make_builtin_instance(std::string_view type,
                                                          const attr_map& attrs) {
    if (auto k = find_builtin_instance(type, attrs)) return k;
    detail::refuse<builtin_ops>(type);
}

/// The kernel for a Paddle op type with its attributes; throws unsupported_error
/// naming the type when no op of `List` handles it.
template <class List = builtin_ops>
std::unique_ptr<op_instance> make_instance(std::string_view type, const attr_map& attrs) {
    if constexpr (std::is_same_v<List, builtin_ops>)
        return make_builtin_instance(type, attrs);
    else
        return make_instance_from<List>(type, attrs);
}

template <class List = builtin_ops>
std::vector<std::string_view> supported_op_types() {
    std::vector<std::string_view> v;
    detail::list_types(List{}, v);
    return v;
}

template <class List = builtin_ops>
bool is_supported(std::string_view type) {
    for (auto t : supported_op_types<List>())
        if (t == type) return true;
    return false;
}

}  // namespace litegraph
