// concat_int8: int8 inputs of different steps into one int8 output step.
// Attributes axis (as concat), steps (one per input X) and output_step; an
// input whose step equals the output's is copied, others are requantised:
// q' = sat8(round(q * step / output_step)).  (Inputs that already share the
// output's step need no op of their own: plain concat copies any dtype, and
// the runtime may elide it by writing the producers into their slices.)
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "litegraph/kernels/epilogue.hpp"
#include "litegraph/ops/concat.hpp"
#include "litegraph/ops/int8/quantize.hpp"

namespace litegraph::ops {

struct concat_int8 {
    static constexpr std::string_view paddle_types[] = {"concat_int8"};
    static constexpr bool int8_kernel = true;
    static constexpr patch_kind patch = patch_kind::concat;  // ops/op.hpp
    struct params {
        concat::params base;
        std::vector<float> steps;
        float output_step = 1.f;
    };
    static params parse(const attr_map& a, std::string_view t) {
        params p;
        p.base = concat::parse(a, t);
        p.steps = a.get<std::vector<float>>("steps", {});
        p.output_step = int8_detail::parse_step(a, "output_step", t);
        for (float s : p.steps)
            if (!(s > 0.f))
                throw unsupported_error(std::string(t) + ": every step must be positive");
        return p;
    }
    static void infer(const params& p, op_io& io) {
        io.check(io.input_count("X") == p.steps.size(), [&] {
            return "attribute steps has " + std::to_string(p.steps.size()) + " values for " +
                   std::to_string(io.input_count("X")) + " inputs X";
        });
        int8_detail::typed(io, "X", dtype::i8);
        concat::infer(p.base, io);
    }
    static void run(const params& p, op_io& io) {
        const auto& out = io.output("Out");
        const auto rank = static_cast<std::int64_t>(out.shape.size());
        const auto axis = concat::resolved_axis(p.base, io, rank);
        std::int64_t outer = 1;
        for (std::int64_t d = 0; d < axis; ++d) outer *= out.shape[d];
        const std::int64_t out_row = outer ? out.numel() / outer : 0;
        auto* o = out.as<std::int8_t>();
        std::int64_t col = 0;
        for (std::size_t i = 0; i < io.input_count("X"); ++i) {
            const auto& xi = io.input("X", i);
            const auto* x = xi.as<std::int8_t>();
            const std::int64_t row = outer ? xi.numel() / outer : 0;
            const kernels::epilogue::chain<kernels::epilogue::quantize_store> c{
                {kernels::epilogue::quantize_store{p.steps[i] / p.output_step}}};
            for (std::int64_t r = 0; r < outer && row; ++r) {
                std::int8_t* d = o + r * out_row + col;
                if (p.steps[i] == p.output_step)
                    std::memcpy(d, x + r * row, static_cast<std::size_t>(row));
                else
                    c.emit(d, x + r * row, row, kernels::epilogue::at{0, 0, 0});
            }
            col += row;
        }
    }
};

}  // namespace litegraph::ops
