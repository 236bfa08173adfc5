// The conversions between float and int8 around int8 kernels, and what every
// int8 op shares.  litegraph's int8 is symmetric (zero point 0, as Paddle's
// abs-max quantisation): a tensor holds q in [-128, 127] meaning q * step,
// step = abs-max scale / 127.  Rounding is half away from zero, saturating
// (kernels::epilogue::saturate_int8).
//
//   quantize_int8   X float32 -> Out int8,    attribute step:  Out = sat8(round(X / step))
//   dequantize_int8 X int8    -> Out float32, attribute step:  Out = X * step
//
// The int8 kernels never allocate or throw inside their loops: checks happen
// in infer and at the start of run, scratch is taken once per run.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>

#include "litegraph/kernels/conv_int8_fast.hpp"
#include "litegraph/kernels/elementwise.hpp"
#include "litegraph/kernels/epilogue.hpp"
#include "litegraph/ops/firmware.hpp"
#include "litegraph/ops/op.hpp"

namespace litegraph::ops {

namespace int8_detail {
/// A positive, finite quantisation step from attribute `name`.
inline float parse_step(const attr_map& a, std::string_view name, std::string_view type) {
    const float s = a.get<float>(name, 0.f);
    if (!(s > 0.f) || !(s < 3.0e38f))
        LITEGRAPH_THROW(unsupported_error(std::string(type) + ": attribute " + std::string(name) +
                                          " must be a positive quantisation step, got " +
                                          std::to_string(s)));
    return s;
}

inline const tensor_ref& typed(const op_io& io, std::string_view slot, dtype t, std::size_t i = 0) {
    const auto& x = io.input(slot, i);
    io.check(x.type == t, [&] {
        return std::string(slot) + " must be " + std::string(name_of(t)) + ", got " +
               std::string(name_of(x.type));
    });
    return x;
}

/// The int32 accumulation an int8 conv or fc runs (attribute
/// litegraph_kernel): `fast`, the build's best (the Cortex-M DSP kernels on a
/// chip with them, the reference loops elsewhere; the default), `reference`
/// (the portable loops), or `cortex_m` (the DSP kernels, which compile on any
/// host with portable forms of their intrinsics).  All three give the same
/// accumulators: the fuzz target fuzz_fusion runs each and compares them bit
/// for bit.
enum class int8_kernel { fast, reference, cortex_m };

inline int8_kernel parse_int8_kernel(const attr_map& a, std::string_view type) {
    const auto k = a.get<std::string>("litegraph_kernel", "fast");
    if (k == "fast") return int8_kernel::fast;
    if (k == "reference") return int8_kernel::reference;
    if (k == "cortex_m") return int8_kernel::cortex_m;
    LITEGRAPH_THROW(unsupported_error(std::string(type) + ": attribute litegraph_kernel '" + k +
                                      "' (expected \"fast\", \"reference\" or \"cortex_m\")"));
}

/// The output dtype an int8 op writes: int8 when it has an output step
/// (attribute `output_step` > 0), float32 (dequantized) otherwise.
inline float output_step(const attr_map& a) {
    return a.get<float>("output_step", 0.f);
}
/// The firmware form of quantize_int8 and dequantize_int8: the step and the
/// element count.
struct step_form {
    float step = 1.f;
    std::int64_t count = 0;
    constexpr auto fields() const { return std::tie(step, count); }
};

}  // namespace int8_detail

struct quantize_int8 {
    static constexpr std::string_view paddle_types[] = {"quantize_int8"};
    static constexpr patch_kind patch = patch_kind::point;  // ops/op.hpp
    struct params {
        float step = 1.f;
    };
    static params parse(const attr_map& a, std::string_view t) {
        return {int8_detail::parse_step(a, "step", t)};
    }
    static void infer(const params&, op_io& io) {
        const auto& x = int8_detail::typed(io, "X", dtype::f32);
        auto& out = io.output("Out");
        out.type = dtype::i8;
        out.shape = x.shape;
    }
    /// The firmware form (ops/firmware.hpp): the step and the element count.
    using form = int8_detail::step_form;
    static constexpr std::string_view firmware_inputs[] = {"X"};
    static constexpr std::string_view firmware_output = "Out";
    static form form_of(const params& p, const op_io& io) {
        return {p.step, io.input("X").numel()};
    }
    static constexpr std::size_t scratch_bytes(const form&) { return 0; }
    static void run_form(const form& f, const firmware_io& io) {
        kernels::quantize_int8(f.step, io.input<float>(0), io.output<std::int8_t>(), f.count);
    }
    static void run(const params& p, op_io& io) {
#if defined(LITEGRAPH_SIMD_X86) || defined(LITEGRAPH_SIMD_ARM64)
        // The same bytes as the firmware form, in vectors: the active arch
        // unit's (AVX2 in a default build on an AVX2 CPU), else the
        // compile-time architecture's.
        const auto* x = io.input("X").as<float>();
        auto* out = io.output("Out").as<std::int8_t>();
        const std::int64_t n = io.input("X").numel();
        if (const auto q = kernels::detail::int8_for(kernels::simd::active()).quantize)
            q(p.step, x, out, n);
        else
            kernels::detail::quantize_int8_vec(p.step, x, out, n);
#else
        run_firmware_form<quantize_int8>(p, io);
#endif
    }
};

struct dequantize_int8 {
    static constexpr std::string_view paddle_types[] = {"dequantize_int8"};
    static constexpr patch_kind patch = patch_kind::point;  // ops/op.hpp
    struct params {
        float step = 1.f;
    };
    static params parse(const attr_map& a, std::string_view t) {
        return {int8_detail::parse_step(a, "step", t)};
    }
    static void infer(const params&, op_io& io) {
        const auto& x = int8_detail::typed(io, "X", dtype::i8);
        auto& out = io.output("Out");
        out.type = dtype::f32;
        out.shape = x.shape;
    }
    /// The firmware form (ops/firmware.hpp): the step and the element count.
    using form = int8_detail::step_form;
    static constexpr std::string_view firmware_inputs[] = {"X"};
    static constexpr std::string_view firmware_output = "Out";
    static form form_of(const params& p, const op_io& io) {
        return {p.step, io.input("X").numel()};
    }
    static constexpr std::size_t scratch_bytes(const form&) { return 0; }
    static void run_form(const form& f, const firmware_io& io) {
        kernels::dequantize_int8(f.step, io.input<std::int8_t>(0), io.output<float>(), f.count);
    }
    static void run(const params& p, op_io& io) { run_firmware_form<dequantize_int8>(p, io); }
};

}  // namespace litegraph::ops
