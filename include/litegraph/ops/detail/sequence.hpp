// Helpers of the sequence (LoD) ops: the LoD level they work on, checked.
#pragma once

#include <string>

#include "litegraph/ops/op.hpp"

namespace litegraph::ops::detail {

/// The last (finest) LoD level of input `slot`, which must have one and match
/// its rows; fails naming the op and the input otherwise.
inline const std::vector<std::int64_t>& sequence_offsets(const op_io& io, const char* slot) {
    const auto& x = io.input(slot);
    if (x.lod.empty())
        io.fail("input " + std::string(slot) + " ('" + std::string(x.name) +
                "') has no LoD: a sequence op needs the sequence offsets (feed them with "
                "--lod NAME=0,L0,L0+L1,... or tensor::set_lod)");
    io.check(!x.shape.empty(),
             [&] { return "input " + std::string(slot) + " has a LoD but is a scalar"; });
    if (auto problem = lod_problem(x.lod, x.shape[0]); !problem.empty())
        io.fail("input " + std::string(slot) + " ('" + std::string(x.name) + "'): " + problem);
    return x.lod.back();
}

}  // namespace litegraph::ops::detail
