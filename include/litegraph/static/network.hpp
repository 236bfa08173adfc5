// Compile-time networks (firmware): a network whose layers, shapes, weights
// and memory plan are constants.  `litegraph codegen` writes one as a header;
// this is the vocabulary it is written in.
//
//   constexpr auto net = static_net::make_network(
//       static_net::conv<fusion::fused<ops::conv2d, fusion::bias, fusion::act<ops::act::relu>>>{
//           geometry, filter, bias, stages, in, out, other, other_plane, in_place[, scale]},
//       static_net::pool{...}, ...);
//   net.run(static_net::memory<N, S>{&plan, segment_bases, scratch});
//
// A conv layer is the same fused type the runtime dispatches to (fused.hpp)
// and runs through its no-heap form (fused::run_direct: ops::conv2d's row
// loop, each row through the epilogue chain); pooling, softmax and matmul run
// the ops' own kernels on raw arrays.  Nothing here allocates, throws or uses
// RTTI: shapes were checked on the desktop when the header was generated, and
// the plan is checked by the compiler (planner/static_plan.hpp).
//
// Activations live in caller-owned arrays, one per memory segment, at the
// offsets of the compile-time plan; a layer names a tensor by its planned
// buffer and the byte offset inside it (a slice of a concat, an alias).
// An int8 activation takes one byte in its segment: the int8 layers
// (conv_int8, fc_int8, pool_int8, quantize, dequantize) address tensors through the i8
// accessor, the others through f32; the plan only sees bytes.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <tuple>

#include "litegraph/fusion/fused.hpp"
#include "litegraph/fusion/fused_int8.hpp"
#include "litegraph/ops/int8/mul_int8.hpp"
#include "litegraph/ops/int8/pool2d_int8.hpp"
#include "litegraph/ops/int8/quantize.hpp"
#include "litegraph/ops/matmul.hpp"
#include "litegraph/ops/pool2d.hpp"
#include "litegraph/ops/softmax.hpp"
#include "litegraph/planner/static_plan.hpp"

namespace litegraph::static_net {

/// Where a tensor lives: a planned buffer (index into the plan) and a byte
/// offset inside it.
struct tensor_at {
    int buffer = -1;
    std::size_t offset = 0;
};

/// The activation memory of one network: the plan and the base address of
/// every segment's array, plus the scratch array.
template <std::size_t N, std::size_t S>
struct memory {
    const planner::fixed_plan<N, S>* plan = nullptr;
    std::byte* const* segments = nullptr;  // S bases, in the plan's segment order
    std::byte* scratch = nullptr;

    std::byte* bytes(tensor_at t) const {
        const auto& pl = plan->placements[static_cast<std::size_t>(t.buffer)];
        return segments[pl.segment] + pl.offset + t.offset;
    }
    float* f32(tensor_at t) const { return reinterpret_cast<float*>(bytes(t)); }
    std::int8_t* i8(tensor_at t) const { return reinterpret_cast<std::int8_t*>(bytes(t)); }
};

/// A fused conv: Fused is fusion::fused<ops::conv2d, Stages...>.
template <class Fused>
struct conv {
    using stages_type = decltype(Fused::chain_type::stages);
    ops::conv2d::geometry g{};
    const float* filter = nullptr;  // [OC, C / groups, KH, KW]
    const float* bias = nullptr;    // [OC] when the chain starts with a bias stage
    stages_type stages{};           // activation parameters; pointers bound at run time
    tensor_at input{}, output{};
    tensor_at other{};  // the residual or gated tensor (terminal != store)
    std::int64_t other_plane = 1;
    bool in_place = false;         // output over its own input (depthwise)
    const float* scale = nullptr;  // [OC] a folded batch norm's scale, or none

    constexpr std::size_t scratch_bytes() const { return Fused::direct_scratch_bytes(g, in_place); }
    template <class Mem>
    void run(const Mem& m) const {
        typename Fused::chain_type c{stages};
        fusion::stage_operands ops;
        ops.bias = bias;
        ops.scale = scale;
        ops.other = other.buffer >= 0 ? m.f32(other) : nullptr;
        ops.other_plane = other_plane;
        Fused::bind(c, ops);
        Fused::run_direct(g, c, m.f32(input), filter, m.f32(output), m.scratch);
    }
};

/// An int8 conv with its requantize epilogue: Fused is
/// fusion::fused_int8<Stages...>, run through its no-heap form
/// (fused_int8::run_direct, where the int8 conv kernel is dispatched).
template <class Fused>
struct conv_int8 {
    using stages_type = decltype(Fused::chain_type::stages);
    ops::conv2d::geometry g{};
    const std::int8_t* filter = nullptr;  // [OC, C / groups, KH, KW]
    const float* multiplier = nullptr;    // [OC] in step * filter step
    const float* bias = nullptr;          // [OC]
    float output_step = 0.f;              // > 0 behind quantize_store
    stages_type stages{};                 // activation parameters
    tensor_at input{}, output{};
    tensor_at other{};  // the residual or gated tensor (float terminals)
    std::int64_t other_plane = 1;

    constexpr std::size_t scratch_bytes() const {
        return static_cast<std::size_t>(Fused::scratch_words(kernels::conv_geometry::from(g))) *
               sizeof(std::int64_t);
    }
    template <class Mem>
    void run(const Mem& m) const {
        typename Fused::chain_type c{stages};
        fusion::stage_operands ops;
        ops.multiplier = multiplier;
        ops.bias = bias;
        ops.other = other.buffer >= 0 ? m.f32(other) : nullptr;
        ops.other_plane = other_plane;
        ops.output_step = output_step;
        Fused::bind(c, ops);
        const auto kg = kernels::conv_geometry::from(g);
        auto* scratch = reinterpret_cast<std::int64_t*>(m.scratch);
        if constexpr (Fused::int8_out)
            Fused::run_direct(kg, c, m.i8(input), filter, m.i8(output), scratch);
        else
            Fused::run_direct(kg, c, m.i8(input), filter, m.f32(output), scratch);
    }
};

/// pool2d on int8 (ops::pool2d_int8's kernel), the output in the input's step.
struct pool_int8 {
    ops::pool2d::mode mode{};
    ops::pool2d::geometry g{};
    tensor_at input{}, output{};

    constexpr std::size_t scratch_bytes() const { return ops::pool2d::scratch_bytes(g); }
    template <class Mem>
    void run(const Mem& m) const {
        ops::pool2d_int8::compute(mode, g, m.i8(input), m.i8(output),
                                  reinterpret_cast<ops::pool2d::span1*>(m.scratch));
    }
};

/// float32 -> int8 (ops::quantize_int8).
struct quantize {
    float step = 1.f;
    std::int64_t count = 0;
    tensor_at input{}, output{};

    constexpr std::size_t scratch_bytes() const { return 0; }
    template <class Mem>
    void run(const Mem& m) const {
        ops::quantize_int8::compute(step, m.f32(input), m.i8(output), count);
    }
};

/// int8 -> float32 (ops::dequantize_int8).
struct dequantize {
    float step = 1.f;
    std::int64_t count = 0;
    tensor_at input{}, output{};

    constexpr std::size_t scratch_bytes() const { return 0; }
    template <class Mem>
    void run(const Mem& m) const {
        ops::dequantize_int8::compute(step, m.i8(input), m.f32(output), count);
    }
};

/// pool2d, max or average.
struct pool {
    ops::pool2d::mode mode{};
    ops::pool2d::geometry g{};
    tensor_at input{}, output{};

    constexpr std::size_t scratch_bytes() const { return ops::pool2d::scratch_bytes(g); }
    template <class Mem>
    void run(const Mem& m) const {
        ops::pool2d::compute(mode, g, m.f32(input), m.f32(output),
                             reinterpret_cast<ops::pool2d::span1*>(m.scratch));
    }
};

/// Out[M, N] = alpha * op(X)[M, K] * op(W)[K, N], W a constant (matmul, mul).
struct matmul {
    std::int64_t m = 0, k = 0, n = 0;
    bool transpose_x = false, transpose_w = false;
    float alpha = 1.f;
    const float* weights = nullptr;
    tensor_at input{}, output{};

    constexpr std::size_t scratch_bytes() const { return 0; }
    template <class Mem>
    void run(const Mem& mem) const {
        ops::matmul_detail::gemm(mem.f32(input), weights, mem.f32(output), m, k, n, transpose_x,
                                 transpose_w, alpha);
    }
};

/// The int8 fc (ops::mul_int8::compute): int32 accumulation, then rescale
/// (and quantize_store when output_step > 0); scratch planned like a conv's.
struct fc_int8 {
    std::int64_t m = 0, k = 0, n = 0;
    const std::int8_t* weights = nullptr;  // [K, N]
    const float* multiplier = nullptr;     // [N]: X step * column step
    float output_step = 0.f;
    tensor_at input{}, output{};

    constexpr std::size_t scratch_bytes() const {
        return static_cast<std::size_t>(ops::mul_int8::scratch_words(k, n)) * sizeof(std::int64_t);
    }
    template <class Mem>
    void run(const Mem& mem) const {
        void* out = output_step > 0.f ? static_cast<void*>(mem.i8(output))
                                      : static_cast<void*>(mem.f32(output));
        ops::mul_int8::compute(m, k, n, mem.i8(input), weights, multiplier, output_step, out,
                               reinterpret_cast<std::int64_t*>(mem.scratch));
    }
};

/// Out[i] = X[i] + Y[(i / post) % count]: elementwise_add whose Y broadcasts
/// along one run of dims (Paddle's axis rule), Y a constant or a tensor.
struct add {
    std::int64_t total = 0, count = 1, post = 1;
    const float* constant = nullptr;
    tensor_at input{}, other{}, output{};

    constexpr std::size_t scratch_bytes() const { return 0; }
    template <class Mem>
    void run(const Mem& m) const {
        const float* x = m.f32(input);
        const float* y = constant ? constant : m.f32(other);
        float* out = m.f32(output);
        for (std::int64_t i = 0; i < total; ++i) out[i] = x[i] + y[(i / post) % count];
    }
};

/// A standalone activation (one not fused into a conv): Out[i] = F(X[i]),
/// F an ops::act functor, the one the fused epilogues use.
template <class F>
struct unary {
    F f{};
    std::int64_t count = 0;
    tensor_at input{}, output{};

    constexpr std::size_t scratch_bytes() const { return 0; }
    template <class Mem>
    void run(const Mem& m) const {
        const float* x = m.f32(input);
        float* out = m.f32(output);
        for (std::int64_t i = 0; i < count; ++i) out[i] = f(x[i]);
    }
};

/// softmax over the middle of outer x count x inner.
struct softmax {
    std::int64_t outer = 1, count = 1, inner = 1;
    tensor_at input{}, output{};

    constexpr std::size_t scratch_bytes() const { return 0; }
    template <class Mem>
    void run(const Mem& m) const {
        ops::softmax::compute(m.f32(input), m.f32(output), outer, count, inner);
    }
};

/// A reshape (reshape2, flatten2, squeeze2, unsqueeze2) the plan did not
/// alias: the bytes move.
struct copy {
    std::size_t bytes = 0;
    tensor_at input{}, output{};

    constexpr std::size_t scratch_bytes() const { return 0; }
    template <class Mem>
    void run(const Mem& m) const {
        if (m.bytes(input) != m.bytes(output)) std::memmove(m.bytes(output), m.bytes(input), bytes);
    }
};

/// The layers in execution order.
template <class... Layers>
struct network {
    std::tuple<Layers...> layers;

    static constexpr std::size_t size() { return sizeof...(Layers); }
    /// Scratch bytes of the hungriest layer (at least 16).
    constexpr std::size_t scratch_bytes() const {
        std::size_t s = 16;
        std::apply(
            [&](const auto&... l) { ((s = s < l.scratch_bytes() ? l.scratch_bytes() : s), ...); },
            layers);
        return (s + 15) / 16 * 16;
    }
    template <class Mem>
    void run(const Mem& m) const {
        std::apply([&](const auto&... l) { (l.run(m), ...); }, layers);
    }
};

template <class... Layers>
constexpr network<Layers...> make_network(const Layers&... l) {
    return network<Layers...>{std::tuple<Layers...>{l...}};
}

/// Bytes of a segment's array: its planned use, at least one byte.
constexpr std::size_t array_bytes(std::size_t used) {
    return used ? used : 1;
}

}  // namespace litegraph::static_net
