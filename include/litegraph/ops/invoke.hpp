// Run one op outside a graph: infer shapes, allocate outputs, run the kernel.
// Used by tests (an op against its plain-loop baseline) and by the runtime to
// fold ops whose inputs are all known before the first run.
#pragma once

#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "litegraph/ops/builtin_ops.hpp"

namespace litegraph {

struct named_tensors {
    std::vector<std::pair<std::string, std::vector<tensor>>> slots;

    named_tensors& add(std::string slot, tensor t) {
        for (auto& [n, v] : slots)
            if (n == slot) {
                v.push_back(std::move(t));
                return *this;
            }
        slots.emplace_back(std::move(slot), std::vector<tensor>{});
        slots.back().second.push_back(std::move(t));
        return *this;
    }
    const tensor& get(std::string_view slot, std::size_t i = 0) const {
        for (auto& [n, v] : slots)
            if (n == slot && i < v.size()) return v[i];
        throw usage_error("no tensor in slot '" + std::string(slot) + "'");
    }
};

/// An op_io over named tensors: the inputs' refs, and the output slots with
/// `outputs`' count of refs each, no data and no shape yet (the refs live
/// here, so it is neither copied nor moved).
struct io_over {
    std::vector<tensor_ref> in_refs, out_refs;
    op_io io;

    io_over(std::string_view type, const named_tensors& inputs,
            const std::vector<std::pair<std::string, std::size_t>>& outputs) {
        std::size_t n_in = 0, n_out = 0;
        for (auto& s : inputs.slots) n_in += s.second.size();
        for (auto& s : outputs) n_out += s.second;
        in_refs.reserve(n_in);
        out_refs.resize(n_out);
        io.type = std::string(type);
        io.label = outputs.empty() ? io.type : outputs.front().first;
        for (auto& [slot, ts] : inputs.slots) {
            op_slot s{slot, {}};
            for (auto& t : ts) {
                in_refs.push_back(t.ref(slot));
                s.args.push_back(&in_refs.back());
            }
            io.inputs.push_back(std::move(s));
        }
        std::size_t j = 0;
        for (auto& [slot, n] : outputs) {
            op_slot s{slot, {}};
            for (std::size_t i = 0; i < n; ++i) {
                out_refs[j].name = slot;
                s.args.push_back(&out_refs[j++]);
            }
            io.outputs.push_back(std::move(s));
        }
    }
    io_over(const io_over&) = delete;
    io_over& operator=(const io_over&) = delete;
};

/// Runs `k` on `inputs`; `outputs` names the output slots and how many
/// arguments each has; `pool`, the threads the op may split its work over.
/// Returns the output tensors by slot.
inline named_tensors invoke(op_instance& k, std::string_view type, const named_tensors& inputs,
                            const std::vector<std::pair<std::string, std::size_t>>& outputs,
                            thread_pool* pool = nullptr) {
    io_over bound(type, inputs, outputs);
    op_io& io = bound.io;
    auto& out_refs = bound.out_refs;
    io.pool = pool;
    k.infer(io);
    named_tensors result;
    std::size_t j = 0;
    for (auto& [slot, n] : outputs) {
        for (std::size_t i = 0; i < n; ++i, ++j) {
            tensor t(out_refs[j].type, out_refs[j].shape);
            out_refs[j].data = t.data();
            result.add(slot, std::move(t));
        }
    }
    k.run(io);
    // An op with data-dependent rows (kernel::shapes_at_run) ran within the
    // bound infer set and shrank its outputs' shapes: keep their first bytes.
    j = 0;
    for (auto& [slot, ts] : result.slots)
        for (auto& t : ts) {
            auto& r = out_refs[j++];
            if (r.shape != t.shape()) {
                tensor actual(r.type, r.shape);
                if (actual.bytes() > t.bytes())
                    throw shape_error("op " + io.type + ": output '" + slot + "' of shape " +
                                      to_string(r.shape) + " outgrew its inferred bound " +
                                      to_string(t.shape()));
                if (actual.bytes()) std::memcpy(actual.data(), t.data(), actual.bytes());
                t = std::move(actual);
            }
            t.set_lod(r.lod);
        }
    return result;
}

/// What `invoke_observer()` is called with: an op that `invoke(type, attrs,
/// ...)` ran, its inputs and its outputs.
using invoke_observer_fn = void (*)(std::string_view type, const attr_map& attrs,
                                    const named_tensors& inputs, const named_tensors& outputs);

/// Called after every `invoke(type, attrs, ...)` that ran (not the runtime's
/// folding, which calls `invoke(kernel, ...)`); null by default.  The tests set
/// it to record the op cases they run as fuzz seeds (tests/fuzz/op_seeds.hpp).
inline invoke_observer_fn& invoke_observer() {
    static invoke_observer_fn f = nullptr;
    return f;
}

/// Convenience: build the kernel for `type` from `attrs` and run it.
template <class List = builtin_ops>
named_tensors invoke(std::string_view type, const attr_map& attrs, const named_tensors& inputs,
                     const std::vector<std::pair<std::string, std::size_t>>& outputs,
                     thread_pool* pool = nullptr) {
    auto k = make_instance<List>(type, attrs);
    auto result = invoke(*k, type, inputs, outputs, pool);
    if (auto f = invoke_observer()) f(type, attrs, inputs, result);
    return result;
}

}  // namespace litegraph
