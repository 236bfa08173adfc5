// The outputs of a run that outgrow the bytes planned for them
// (runtime/program.hpp: data-dependent rows, the tensor arrays' joins): each
// gets a heap buffer of its own for that run (a spill).  The spills and the
// tensor arrays' items share what the arena leaves of
// program_limits::max_arena_bytes; the start of the next run puts every
// spilled variable back at its planned address and frees the buffers.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "litegraph/core/tensor.hpp"
#include "litegraph/core/tensor_array.hpp"

namespace litegraph::runtime {

class spills {
public:
    /// A new plan: `planned[v]` bytes for variable v, nothing spilled.
    void reset(std::vector<std::uint64_t> planned) {
        capacity_ = std::move(planned);
        room_ = capacity_;
        spilled_.clear();  // the plan set every address
    }

    /// The bytes variable v has this run (planned or spilled).
    std::uint64_t room(std::size_t v) const { return room_[v]; }

    /// Variable v (`ref`) in a heap buffer of at least `bytes` until the next
    /// run, `arena_bytes` and `arrays` counted against `max_bytes`; `fail`
    /// (which throws) says when that does not fit.
    template <class Fail>
    void grow(std::size_t v, tensor_ref& ref, std::uint64_t bytes, std::uint64_t arena_bytes,
              tensor_arrays& arrays, std::uint64_t max_bytes, Fail&& fail) {
        if (buffer_.size() < room_.size()) buffer_.resize(room_.size());
        if (buffer_[v].bytes() < bytes) {
            const std::uint64_t others = bytes_ - buffer_[v].bytes();
            const std::uint64_t more = bytes - buffer_[v].bytes();
            if (arena_bytes + arrays.bytes() + more > max_bytes)
                fail("output '" + std::string(ref.name) + "' has shape " + to_string(ref.shape) +
                     " (" + std::to_string(bytes) +
                     " bytes) this run: with the arena, the tensor arrays and the "
                     "other outputs grown beyond their plan that is over " +
                     std::to_string(max_bytes) + " bytes (program_limits::max_arena_bytes)");
            buffer_[v] = tensor();  // the old one freed first
            buffer_[v] = tensor(dtype::u8, {static_cast<std::int64_t>(bytes)});
            bytes_ = others + bytes;
            arrays.note_spilled(more);
        }
        if (room_[v] == capacity_[v]) spilled_.emplace_back(v, ref.data);
        ref.data = buffer_[v].data();
        room_[v] = buffer_[v].bytes();
    }

    /// Every spilled variable of `refs` back at its planned address and the
    /// buffers freed (the start of a run: the last run's outputs expire).
    void release(std::vector<tensor_ref>& refs, tensor_arrays& arrays) {
        for (auto it = spilled_.rbegin(); it != spilled_.rend(); ++it) {
            refs[it->first].data = it->second;
            room_[it->first] = capacity_[it->first];
        }
        spilled_.clear();
        buffer_.clear();
        arrays.note_unspilled(bytes_);
        bytes_ = 0;
    }

private:
    std::vector<std::uint64_t> capacity_;  // bytes planned per variable
    std::vector<std::uint64_t> room_;      // bytes each has this run (planned or spilled)
    std::vector<tensor> buffer_;           // per variable: its spill buffer (this run)
    std::uint64_t bytes_ = 0;              // bytes of buffer_ together
    std::vector<std::pair<std::size_t, std::byte*>> spilled_;  // spilled this run: planned address
};

}  // namespace litegraph::runtime
