// The firmware form of an op: the op's computation without the heap, over
// caller memory, from a literal (constexpr-constructible) description of one
// instance.  An op that can run in firmware declares, beside parse / infer /
// run:
//
//   struct form { ...; constexpr auto fields() const { return std::tie(...); } };
//   static form form_of(const params&, const op_io&);   // shapes known
//   static constexpr std::size_t scratch_bytes(const form&);
//   static void run_form(const form&, const firmware_io&);
//   static constexpr std::string_view firmware_inputs[] = {"X", ...};
//   static constexpr std::string_view firmware_output = "Out";
//   static constexpr std::string_view firmware_lists[] = {"WeightList"};  // optional
//
// A firmware input is one tensor, or, when its slot is also named in
// firmware_lists, a list slot (rnn's PreState and WeightList): run_form then
// gets, for it, a pointer to an array of the slot's tensors' pointers
// (`const void* const*`, read with firmware_io::list_input).  The op computes
// firmware_output only: its other outputs (rnn's State) are not written, so
// `litegraph codegen` accepts a node only when nothing reads them.
//
// `form` holds the instance's geometry and parameters only (no pointers);
// fields() lists its members in declaration order, which is how `litegraph
// codegen` prints one as an aggregate initializer, generically.  run_form
// calls the kernels (kernels/): the op's runtime kernel and a firmware
// network's layer (firmware/network.hpp) both call it, so firmware computes
// what the runtime computes.  form_of throws unsupported_error for an
// instance the form does not cover (a batched matmul, a broadcast the loop
// does not express).
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "litegraph/kernels/elementwise.hpp"
#include "litegraph/ops/op.hpp"

namespace litegraph {

/// The operands of one firmware call: the op's firmware inputs in the order
/// of Op::firmware_inputs (nullptr for an optional one that is absent; for a
/// list slot, Op::firmware_lists, an array of its tensors' pointers), the
/// output and the scratch (scratch_bytes(form) bytes, aligned for int64).
struct firmware_io {
    static constexpr std::size_t max_inputs = 6;
    /// The most tensors the list inputs of one compile-time layer hold
    /// together: their pointers live on the stack while it runs.
    static constexpr std::size_t max_list_operands = 64;
    std::array<const void*, max_inputs> in{};
    void* out = nullptr;
    void* scratch = nullptr;

    template <class T>
    const T* input(std::size_t i) const {
        return static_cast<const T*>(in[i]);
    }
    /// Tensor k of list input i.
    template <class T>
    const T* list_input(std::size_t i, std::size_t k) const {
        return static_cast<const T*>(static_cast<const void* const*>(in[i])[k]);
    }
    template <class T>
    T* output() const {
        return static_cast<T*>(out);
    }
};

/// Whether Op's firmware input i is a list slot (named in Op::firmware_lists).
template <class Op>
constexpr bool firmware_list_input(std::size_t i) {
    if constexpr (requires { Op::firmware_lists[0]; }) {
        for (std::string_view s : Op::firmware_lists)
            if (s == Op::firmware_inputs[i]) return true;
    }
    return false;
}

/// Whether Op has list inputs at all.
template <class Op>
constexpr bool firmware_has_lists() {
    for (std::size_t i = 0; i < std::size(Op::firmware_inputs); ++i)
        if (firmware_list_input<Op>(i)) return true;
    return false;
}

template <class Op>
concept firmware_op = requires(const typename Op::params& p, const op_io& io,
                               const typename Op::form& f, const firmware_io& fio) {
    { Op::firmware_inputs[0] } -> std::convertible_to<std::string_view>;
    { Op::firmware_output } -> std::convertible_to<std::string_view>;
    { Op::form_of(p, io) } -> std::same_as<typename Op::form>;
    { Op::scratch_bytes(f) } -> std::same_as<std::size_t>;
    Op::run_form(f, fio);
    f.fields();
    requires std::size(Op::firmware_inputs)
    <= firmware_io::max_inputs;
};

/// The firmware operands of a runtime op_io (its slots' data), scratch given;
/// the pointer arrays of list inputs go to `lists` (kept alive by the caller).
template <firmware_op Op>
firmware_io firmware_io_of(const op_io& io, void* scratch,
                           std::vector<std::vector<const void*>>& lists) {
    firmware_io f;
    if constexpr (firmware_has_lists<Op>()) lists.assign(std::size(Op::firmware_inputs), {});
    for (std::size_t i = 0; i < std::size(Op::firmware_inputs); ++i) {
        const auto slot = Op::firmware_inputs[i];
        const std::size_t count = io.input_count(slot);
        if (firmware_list_input<Op>(i)) {
            for (std::size_t k = 0; k < count; ++k) lists[i].push_back(io.input(slot, k).data);
            f.in[i] = lists[i].data();
        } else {
            f.in[i] = count ? io.input(slot).data : nullptr;
        }
    }
    f.out = io.output(Op::firmware_output).data;
    f.scratch = scratch;
    return f;
}

/// The same for an op without list inputs (no allocation).
template <firmware_op Op>
firmware_io firmware_io_of(const op_io& io, void* scratch) {
    static_assert(!firmware_has_lists<Op>(), "an op with list inputs: pass the lists' storage");
    std::vector<std::vector<const void*>> none;
    return firmware_io_of<Op>(io, scratch, none);
}

/// An op's runtime kernel through its firmware form: the form of this
/// instance, its scratch from the heap, run_form.
template <firmware_op Op>
void run_firmware_form(const typename Op::params& p, const op_io& io) {
    const auto f = Op::form_of(p, io);
    std::vector<std::int64_t> scratch((Op::scratch_bytes(f) + 7) / 8);
    std::vector<std::vector<const void*>> lists;
    Op::run_form(f, firmware_io_of<Op>(io, scratch.data(), lists));
}

/// What form_of throws for an instance its form does not cover.
[[noreturn]] inline void no_firmware_form(const std::string& why) {
    LITEGRAPH_THROW(unsupported_error(why));
}

namespace ops::detail {
/// The firmware form of the reshapes (reshape2, flatten2, squeeze2, ...):
/// the bytes move unless the plan aliased the output to the input.
struct copy_form {
    struct form {
        std::int64_t bytes = 0;
        constexpr auto fields() const { return std::tie(bytes); }
    };
    static constexpr std::string_view firmware_inputs[] = {"X"};
    static constexpr std::string_view firmware_output = "Out";
    template <class Params>
    static form form_of(const Params&, const op_io& io) {
        const auto& x = io.input("X");
        if (x.bytes() != io.output("Out").bytes())
            no_firmware_form("a reshape that changes the byte count");
        return {static_cast<std::int64_t>(x.bytes())};
    }
    static constexpr std::size_t scratch_bytes(const form&) { return 0; }
    static void run_form(const form& f, const firmware_io& io) {
        kernels::move_bytes(io.in[0], io.out, static_cast<std::size_t>(f.bytes));
    }
};
}  // namespace ops::detail

}  // namespace litegraph
