// An op's firmware form (ops/firmware.hpp) run outside the runtime, for the
// op tests that compare it with the op's runtime kernel: the op_io built as
// invoke builds it (shape inference by the op's instance), the form from
// Op::form_of, the operands bound as a firmware network binds them (a
// list slot as an array of its tensors' pointers), scratch of exactly
// scratch_bytes(form) on the heap (so the sanitizers see an overrun), and the
// output starting as 0xff bytes (a NaN for float32: an element the form does
// not write shows).  Only Op::firmware_output gets memory: the form must not
// write the others.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "litegraph/ops/firmware.hpp"
#include "litegraph/ops/invoke.hpp"

namespace litegraph::test {

template <litegraph::firmware_op Op>
litegraph::tensor run_firmware_form(
    std::string_view type, const litegraph::attr_map& attrs, const litegraph::named_tensors& inputs,
    const std::vector<std::pair<std::string, std::size_t>>& outputs) {
    using namespace litegraph;
    io_over bound(type, inputs, outputs);
    op_io& io = bound.io;
    io.label = "firmware form";
    make_instance(type, attrs)->infer(io);
    tensor out(io.output(Op::firmware_output).type, io.output(Op::firmware_output).shape);
    if (out.bytes()) std::memset(out.data(), 0xff, static_cast<std::size_t>(out.bytes()));
    io.output(Op::firmware_output).data = out.data();

    const auto form = Op::form_of(Op::parse(attrs, type), io);
    std::vector<std::int64_t> scratch((Op::scratch_bytes(form) + 7) / 8);
    std::vector<std::vector<const void*>> lists(std::size(Op::firmware_inputs));
    firmware_io f;
    for (std::size_t i = 0; i < std::size(Op::firmware_inputs); ++i) {
        const auto slot = Op::firmware_inputs[i];
        if (firmware_list_input<Op>(i)) {
            for (std::size_t k = 0; k < io.input_count(slot); ++k)
                lists[i].push_back(io.input(slot, k).data);
            f.in[i] = lists[i].data();
        } else {
            f.in[i] = io.input_count(slot) ? io.input(slot).data : nullptr;
        }
    }
    f.out = out.data();
    f.scratch = scratch.empty() ? nullptr : scratch.data();
    Op::run_form(form, f);
    return out;
}

/// Whether two tensors hold the same shape, dtype and bytes.
inline bool same_tensor_bytes(const litegraph::tensor& a, const litegraph::tensor& b) {
    return a.shape() == b.shape() && a.type() == b.type() &&
           (a.bytes() == 0 ||
            std::memcmp(a.data(), b.data(), static_cast<std::size_t>(a.bytes())) == 0);
}

}  // namespace litegraph::test
