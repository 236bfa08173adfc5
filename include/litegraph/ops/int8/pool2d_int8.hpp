// pool2d_int8: pool2d on int8 (Paddle's window rules, ops/pool2d.hpp), the
// output in the input's step.  Max takes the largest q (quantisation is
// monotonic, so it equals quantising the float max); average sums in int32
// and divides rounding half away from zero.  With attributes `input_step`
// and `output_step` (both > 0) the output is in output_step instead: the
// maximum or the sum times input_step / output_step (/ count), rounded once
// (the SE block's global pool of an int8 block feeding a conv quantized at
// another step).  Slots X int8 -> Out int8.
#pragma once

#include <cstdint>
#include <string_view>
#include <tuple>
#include <vector>

#include "litegraph/ops/int8/quantize.hpp"
#include "litegraph/ops/pool2d.hpp"

namespace litegraph::ops {

struct pool2d_int8 {
    static constexpr std::string_view paddle_types[] = {"pool2d_int8"};
    static constexpr bool int8_kernel = true;
    static constexpr patch_kind patch = patch_kind::pool;  // ops/op.hpp
    struct params {
        pool2d::params pool;
        float ratio = 0.f;  // input step / output step, 0: the input's step
    };
    static params parse(const attr_map& a, std::string_view t) {
        params p{pool2d::parse(a, t), 0.f};
        if (a.has("input_step") || a.has("output_step"))
            p.ratio = int8_detail::parse_step(a, "input_step", t) /
                      int8_detail::parse_step(a, "output_step", t);
        return p;
    }

    static void infer(const params& p, op_io& io) {
        const auto g = pool2d::resolve(p.pool, io, dtype::i8);
        auto& out = io.output("Out");
        out.type = dtype::i8;
        out.shape = {g.n, g.c, g.oh, g.ow};
    }

    /// The firmware form (ops/firmware.hpp): pool2d's, on int8, and the ratio.
    struct form {
        pool2d::mode m{};
        pool2d::geometry g{};
        float ratio = 0.f;
        constexpr auto fields() const { return std::tie(m, g, ratio); }
    };
    static constexpr std::string_view firmware_inputs[] = {"X"};
    static constexpr std::string_view firmware_output = "Out";
    static form form_of(const params& p, const op_io& io) {
        return {pool2d::mode_of(p.pool), pool2d::resolve(p.pool, io, dtype::i8), p.ratio};
    }
    static constexpr std::size_t scratch_bytes(const form& f) { return pool2d::scratch_bytes(f.g); }
    static void run_form(const form& f, const firmware_io& io) {
        kernels::pool2d_int8(f.m, f.g, io.input<std::int8_t>(0), io.output<std::int8_t>(),
                             static_cast<pool2d::span1*>(io.scratch), f.ratio);
    }

    static void run(const params& p, op_io& io) { run_firmware_form<pool2d_int8>(p, io); }
};

}  // namespace litegraph::ops
