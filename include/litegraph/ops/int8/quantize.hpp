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

#include "litegraph/kernels/epilogue.hpp"
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
}  // namespace int8_detail

struct quantize_int8 {
    static constexpr std::string_view paddle_types[] = {"quantize_int8"};
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
    static void run(const params& p, op_io& io) {
        const auto& x = io.input("X");
        const float* xs = x.as<float>();
        auto* out = io.output("Out").as<std::int8_t>();
        compute(p.step, xs, out, x.numel());
    }
    /// The loop (no heap; firmware calls it directly).
    static void compute(float step, const float* xs, std::int8_t* out, std::int64_t n) noexcept {
        const float inv = 1.f / step;
        for (std::int64_t i = 0; i < n; ++i) out[i] = kernels::epilogue::saturate_int8(xs[i] * inv);
    }
};

struct dequantize_int8 {
    static constexpr std::string_view paddle_types[] = {"dequantize_int8"};
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
    static void run(const params& p, op_io& io) {
        const auto& x = io.input("X");
        const auto* xs = x.as<std::int8_t>();
        float* out = io.output("Out").as<float>();
        compute(p.step, xs, out, x.numel());
    }
    /// The loop (no heap; firmware calls it directly).
    static void compute(float step, const std::int8_t* xs, float* out, std::int64_t n) noexcept {
        for (std::int64_t i = 0; i < n; ++i) out[i] = static_cast<float>(xs[i]) * step;
    }
};

}  // namespace litegraph::ops
