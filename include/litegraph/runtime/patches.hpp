// Patch-based execution of a network's first stage (docs/patches.md; the idea
// is MCUNetV2's, Lin et al., NeurIPS 2021).  The stage is every op from the
// inputs up to a split tensor T: convs, depthwise convs, pools, element-wise
// ops and channel concats.  Rewritten by `apply_patches`, it becomes one op of
// type `patched_stage_type` holding the stage as a sub-block; that op computes
// T patch by patch (a grid of rows x cols over T's height and width): each
// patch's layers run on the input window the patch needs (its halo from each
// layer's kernel, stride, padding and dilation) in small per-patch buffers,
// and the patch is copied into T.  Every output element is computed by the
// same op on the same values as untiled: a window at an image border keeps its
// real padding, a window inside the image reads real values where the untiled
// op would, so fp32 outputs are identical and int8 outputs bit-exact.
//
// The per-patch buffers are planned by the planner (one segment, their
// lifetimes the steps of the stage) into one block, the op's `Scratch` output,
// which the program's own plan places in the arena like any other tensor.
//
// The parts, one role each (runtime/patches/):
//   geometry.hpp  regions, input windows and padding, window copies
//   stage.hpp     the stage's layers (kind_of: each op's `patch` trait) and
//                 describe_stage
//   tiling.hpp    tile_stage: a stage cut into a grid, its per-patch buffers
//   walk.hpp      walk_patches: the stage's steps in order (crops, layers,
//                 bands, the patch into the output), which the instance runs
//                 and the code generator writes
//   instance.hpp  patched_stage_instance, the op that runs it; patch_factory
//   request.hpp   patch_request and parse_patch_request ("auto", "NxM")
//   search.hpp    choose_patches and choose_tail: the split and the grid
//   rewrite.hpp   apply_patches and patch_graph: the graph rewrite
#pragma once

#include "litegraph/runtime/patches/geometry.hpp"
#include "litegraph/runtime/patches/instance.hpp"
#include "litegraph/runtime/patches/request.hpp"
#include "litegraph/runtime/patches/rewrite.hpp"
#include "litegraph/runtime/patches/search.hpp"
#include "litegraph/runtime/patches/stage.hpp"
#include "litegraph/runtime/patches/tiling.hpp"
#include "litegraph/runtime/patches/walk.hpp"
