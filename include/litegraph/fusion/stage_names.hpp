// The epilogue stages and chains under the fusion layer's names: the types
// live in kernels/epilogue.hpp (kernels::epilogue, a kernel-layer header the
// int8 ops use too); fused kernels, the passes' kernel lists and firmware
// networks spell them fusion::bias, fusion::act<F>, fusion::gate<F, M>, ...
#pragma once

#include "litegraph/kernels/epilogue.hpp"

namespace litegraph::fusion {

using kernels::epilogue::act;
using kernels::epilogue::add_with;
using kernels::epilogue::at;
using kernels::epilogue::bias;
using kernels::epilogue::chain;
using kernels::epilogue::gate;
using kernels::epilogue::is_bias;
using kernels::epilogue::mul_plane;
using kernels::epilogue::mul_plane_int8;
using kernels::epilogue::mul_with;
using kernels::epilogue::quantize_store;
using kernels::epilogue::rescale;
using kernels::epilogue::saturate_int8;
using kernels::epilogue::stage_vectorizes;
using kernels::epilogue::store;
using kernels::epilogue::terminal_stage;
using kernels::epilogue::vector_act;

}  // namespace litegraph::fusion
