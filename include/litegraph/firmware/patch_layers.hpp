// The layers a patched stage adds to a firmware network (docs/patches.md,
// docs/firmware.md): `litegraph codegen --patches` writes the stage patch by
// patch, each patch's layers as ordinary layer<Op> over the stage's planned
// scratch buffer (their regions and paddings computed at codegen time, in
// their forms), joined by these two: a window copied between maps (a crop of
// an input, a channel slice of a concat, the patch into the split tensor)
// and a global pool's row band.  Both run the loops the runtime's patched
// stage runs (kernels/window_copy.hpp, kernels/band_pool.hpp), so firmware computes what it
// computes. They are no Paddle ops: form_of refuses every op_io (codegen builds their forms from
// the stage's tiling).
#pragma once

#include <cstddef>
#include <string_view>

#include "litegraph/kernels/band_pool.hpp"
#include "litegraph/kernels/window_copy.hpp"
#include "litegraph/ops/firmware.hpp"

namespace litegraph::firmware {

/// kernels::copy_window from input X to the output.
struct copy_window {
    struct params {};
    using form = kernels::window_copy;
    static constexpr std::string_view firmware_inputs[] = {"X"};
    static constexpr std::string_view firmware_output = "Out";
    static form form_of(const params&, const op_io&) {
        no_firmware_form("a window copy is written by codegen, not read from a graph");
    }
    static constexpr std::size_t scratch_bytes(const form&) { return 0; }
    static void run_form(const form& f, const firmware_io& io) {
        kernels::copy_window(f, io.in[0], io.out);
    }
};

/// kernels::band_pool: a row band of float input X into the running pool
/// held in the output.
struct band_pool {
    struct params {};
    using form = kernels::band_pool_geometry;
    static constexpr std::string_view firmware_inputs[] = {"X"};
    static constexpr std::string_view firmware_output = "Out";
    static form form_of(const params&, const op_io&) {
        no_firmware_form("a pool's row band is written by codegen, not read from a graph");
    }
    static constexpr std::size_t scratch_bytes(const form&) { return 0; }
    static void run_form(const form& f, const firmware_io& io) {
        kernels::band_pool(f, io.input<float>(0), io.output<float>());
    }
};

}  // namespace litegraph::firmware
