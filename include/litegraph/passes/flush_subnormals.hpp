// flush_subnormals: every subnormal value of a float32 parameter
// (0 < |v| < FLT_MIN = 2^-126) becomes a zero of the same sign.
// x86 and Arm cores compute with subnormal operands through slow microcode
// assists (tens of times the cost of a normal multiply-add); trained weights
// hold such values (ppocr_v3_det: 13,895 of them, 1,760 in one 1x1 conv's
// filter; its 1x1 convs' GEMM took 37% longer than with them flushed).  What they add to a
// product is below 2^-126 times the activation: no float32 sum with a
// normal term changes.  Parameters only; the graph is the same, so this runs
// last.  Returns how many parameters had any.
#pragma once

#include <cmath>

#include "litegraph/graph/graph.hpp"

namespace litegraph::passes {

inline int flush_subnormals(graph::graph& g) {
    int changed = 0;
    for (auto& v : g.vars) {
        if (!v.value || v.value->type() != dtype::f32) continue;
        bool any = false;
        for (float& x : v.value->span<float>())
            if (std::fpclassify(x) == FP_SUBNORMAL) {
                x = std::copysign(0.f, x);
                any = true;
            }
        changed += any;
    }
    return changed;
}

}  // namespace litegraph::passes
