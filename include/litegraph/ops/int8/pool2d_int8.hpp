// pool2d_int8: pool2d on int8 (Paddle's window rules, ops/pool2d.hpp), the
// output in the input's step.  Max takes the largest q (quantisation is
// monotonic, so it equals quantising the float max); average sums in int32
// and divides rounding half away from zero.  Slots X int8 -> Out int8.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "litegraph/ops/int8/quantize.hpp"
#include "litegraph/ops/pool2d.hpp"

namespace litegraph::ops {

struct pool2d_int8 {
    static constexpr std::string_view paddle_types[] = {"pool2d_int8"};
    using params = pool2d::params;
    static params parse(const attr_map& a, std::string_view t) { return pool2d::parse(a, t); }

    static void infer(const params& p, op_io& io) {
        const auto g = pool2d::resolve(p, io, dtype::i8);
        auto& out = io.output("Out");
        out.type = dtype::i8;
        out.shape = {g.n, g.c, g.oh, g.ow};
    }

    /// The firmware form (ops/firmware.hpp): pool2d's, on int8.
    using form = pool2d::form;
    static constexpr std::string_view firmware_inputs[] = {"X"};
    static constexpr std::string_view firmware_output = "Out";
    static form form_of(const params& p, const op_io& io) {
        return {pool2d::mode_of(p), pool2d::resolve(p, io, dtype::i8)};
    }
    static constexpr std::size_t scratch_bytes(const form& f) { return pool2d::scratch_bytes(f.g); }
    static void run_form(const form& f, const firmware_io& io) {
        kernels::pool2d_int8(f.m, f.g, io.input<std::int8_t>(0), io.output<std::int8_t>(),
                             static_cast<pool2d::span1*>(io.scratch));
    }

    static void run(const params& p, op_io& io) { run_firmware_form<pool2d_int8>(p, io); }
};

}  // namespace litegraph::ops
