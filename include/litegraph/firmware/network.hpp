// Firmware networks: a network whose layers, shapes, weights
// and memory plan are constants.  `litegraph codegen` writes one as a header;
// this is the vocabulary it is written in: the memory, where a tensor lives,
// one generic layer and the network.
//
//   constexpr auto net = firmware::make_network(
//       firmware::layer<fusion::fused<ops::conv2d, fusion::bias, fusion::act<ops::act::relu>>>{
//           form, {{{0, 0}}, {{-1, 0}, filter}, {{-1, 0}, bias}, {}, {}}, {1, 0}},
//       firmware::layer<ops::pool2d>{form, {{{1, 0}}}, {2, 0}}, ...);
//   net.run(firmware::memory<N, S>{&plan, segment_bases, scratch});
//
// A layer is an op (a firmware_op, ops/firmware.hpp) with its form: the
// literal geometry and parameters of one instance, computed on the desktop by
// the op's form_of.  It runs through the op's run_form, the call the op's
// runtime kernel makes too (a fused conv: the same fused type the runtime
// dispatches to, fused.hpp).  Nothing here allocates, throws or uses RTTI:
// shapes were checked on the desktop when the header was generated, and the
// plan is checked by the compiler (planner/static_plan.hpp).
//
// Activations live in caller-owned arrays, one per memory segment, at the
// offsets of the compile-time plan; a layer names a tensor by its planned
// buffer and the byte offset inside it (a slice of a concat, an alias).  An
// int8 activation takes one byte in its segment; the plan only sees bytes.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <tuple>

#include "litegraph/firmware/op_list.hpp"
#include "litegraph/firmware/patch_layers.hpp"
#include "litegraph/ops/firmware.hpp"
#include "litegraph/planner/static_plan.hpp"

namespace litegraph::firmware {

/// Where a tensor lives: a planned buffer (index into the plan) and a byte
/// offset inside it.
struct tensor_at {
    int buffer = -1;
    std::size_t offset = 0;
};

/// The activation memory of one network: the plan and the base address of
/// every segment's array, plus the shared scratch array (for layers whose
/// scratch is not a planned buffer of its own).
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

/// One input of a layer: a planned tensor, or a constant (weights), or
/// neither (an optional slot the node does not have); for a list input
/// (Op::firmware_lists), `count` operands at `list` (a constexpr array
/// `litegraph codegen` writes beside the weights), each a tensor or a constant.
struct operand {
    tensor_at at{};
    const void* constant = nullptr;
    const operand* list = nullptr;
    std::size_t count = 0;

    template <class Mem>
    const void* resolve(const Mem& m) const {
        return constant ? constant : (at.buffer >= 0 ? m.bytes(at) : nullptr);
    }
};

/// One op instance: Op's form and where its operands are, the inputs in
/// the order of Op::firmware_inputs.
template <firmware_op Op>
struct layer {
    using op_type = Op;
    typename Op::form form{};
    operand inputs[std::size(Op::firmware_inputs)]{};
    tensor_at output{};
    /// Its scratch as a planned buffer (live at this layer's step only), or
    /// none: then the network's shared scratch array.
    tensor_at scratch{};

    constexpr std::size_t scratch_bytes() const { return Op::scratch_bytes(form); }
    template <class Mem>
    void run(const Mem& m) const {
        firmware_io io;
        if constexpr (firmware_has_lists<Op>()) {
            // The list inputs' pointers, resolved into one array on the stack.
            const void* items[firmware_io::max_list_operands];
            std::size_t used = 0;
            for (std::size_t i = 0; i < std::size(inputs); ++i) {
                if (!firmware_list_input<Op>(i)) {
                    io.in[i] = inputs[i].resolve(m);
                    continue;
                }
                if (used + inputs[i].count > firmware_io::max_list_operands)
                    LITEGRAPH_THROW(error("firmware::layer: too many list operands"));
                io.in[i] = items + used;
                for (std::size_t k = 0; k < inputs[i].count; ++k)
                    items[used++] = inputs[i].list[k].resolve(m);
            }
            bind_and_run(m, io);
        } else {
            for (std::size_t i = 0; i < std::size(inputs); ++i) io.in[i] = inputs[i].resolve(m);
            bind_and_run(m, io);
        }
    }

private:
    template <class Mem>
    void bind_and_run(const Mem& m, firmware_io& io) const {
        io.out = m.bytes(output);
        io.scratch = scratch.buffer >= 0 ? m.bytes(scratch) : m.scratch;
        Op::run_form(form, io);
    }
};

/// Bytes to plan for a layer's scratch buffer: its scratch_bytes() on the
/// target that compiles the header (the Cortex-M DSP kernels widen more than
/// the reference ones), rounded up to 16, at least 16.
template <class Layer>
constexpr std::size_t planned_scratch_bytes(const Layer& l) {
    const std::size_t s = l.scratch_bytes();
    return s ? (s + 15) / 16 * 16 : 16;
}

/// Layers run in order as one layer of a network: a patched stage is one
/// group whose layers are its patches, each a group of that patch's layers
/// (docs/patches.md).  Its layers' scratch is theirs (the planned buffer
/// they name), none of its own.
template <class... Layers>
struct layer_group {
    std::tuple<Layers...> layers;
    tensor_at scratch{};

    constexpr std::size_t scratch_bytes() const { return 0; }
    template <class Mem>
    void run(const Mem& m) const {
        std::apply([&](const auto&... l) { (l.run(m), ...); }, layers);
    }
};

template <class... Layers>
constexpr layer_group<Layers...> make_group(const Layers&... l) {
    return layer_group<Layers...>{std::tuple<Layers...>{l...}, {}};
}

/// The largest of some byte counts: the one scratch buffer the layers of a
/// patched stage share (they all run at its step).
constexpr std::size_t largest(std::initializer_list<std::size_t> sizes) {
    std::size_t m = 0;
    for (auto s : sizes) m = s > m ? s : m;
    return m;
}

/// The layers in execution order.
template <class... Layers>
struct network {
    std::tuple<Layers...> layers;

    static constexpr std::size_t size() { return sizeof...(Layers); }
    /// Scratch bytes of the hungriest layer without a planned scratch buffer
    /// (at least 16): the shared scratch array's size.
    constexpr std::size_t scratch_bytes() const {
        std::size_t s = 16;
        std::apply(
            [&](const auto&... l) {
                ((s = l.scratch.buffer < 0 && s < l.scratch_bytes() ? l.scratch_bytes() : s), ...);
            },
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

}  // namespace litegraph::firmware
