// litegraph: the umbrella header.  `#include <litegraph.hpp>` gives the core
// types, the op table, the graph IR, the planner and the runtime.
//
// It never includes the Paddle loader (include/litegraph/paddle.hpp), so code
// that includes only this header never needs protobuf.  When you add a public
// header, list it here (grouped by layer) and run tools/amalgamate.py.
#pragma once

// core: errors, element types, shapes, tensors, attributes, .npy I/O
#include "litegraph/core/attributes.hpp"
#include "litegraph/core/dtype.hpp"
#include "litegraph/core/error.hpp"
#include "litegraph/core/lod.hpp"
#include "litegraph/core/npy.hpp"
#include "litegraph/core/shape.hpp"
#include "litegraph/core/tensor.hpp"

// ops: the op concept, the table of built-in ops, running one op on its own
#include "litegraph/ops/builtin_ops.hpp"
#include "litegraph/ops/invoke.hpp"
#include "litegraph/ops/op.hpp"

// kernels: fast kernels (SIMD through xsimd) behind the ops
#include "litegraph/kernels/conv.hpp"
#include "litegraph/kernels/gemm.hpp"
#include "litegraph/kernels/simd.hpp"

// graph: the SSA graph IR, its builder, in-place edits and DOT export
#include "litegraph/graph/dot.hpp"
#include "litegraph/graph/edit.hpp"
#include "litegraph/graph/graph.hpp"

// fusion: epilogue chains and fused<Producer, Stages...>
#include "litegraph/fusion/fused.hpp"
#include "litegraph/fusion/stage_names.hpp"

// passes: graph rewrites and the explicit pipeline
#include "litegraph/passes/dot_dump.hpp"
#include "litegraph/passes/pipeline.hpp"

// planner: memory segments, lifetimes, placement, execution order, rendering
#include "litegraph/planner/model.hpp"
#include "litegraph/planner/order.hpp"
#include "litegraph/planner/planner.hpp"
#include "litegraph/planner/render.hpp"
#include "litegraph/planner/static_plan.hpp"
#include "litegraph/planner/targets.hpp"

// runtime: a program of instructions over an arena
#include "litegraph/runtime/program.hpp"

// firmware: firmware networks (what `litegraph codegen` writes)
#include "litegraph/firmware/network.hpp"
#include "litegraph/quantize/ptq.hpp"

// vision: images and the models' preprocessing steps (no files, no YAML)
#include "litegraph/vision/draw.hpp"
#include "litegraph/vision/image.hpp"
#include "litegraph/vision/keypoints.hpp"
#include "litegraph/vision/ocr.hpp"
#include "litegraph/vision/preprocess.hpp"
#include "litegraph/vision/text_boxes.hpp"

// backends: places, implementation pick, subgraphs (the OpenCL backend only with
// LITEGRAPH_WITH_OPENCL)
#include "litegraph/backends/backends.hpp"
