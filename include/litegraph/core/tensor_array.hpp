// Tensor arrays (Paddle's LoDTensorArray: the lists a dy2static loop
// appends to) at run time.  An array is a value of the program like any
// tensor: a variable of dtype int64 and shape [1] holding a handle into the
// program's `tensor_arrays` (0: the empty array, as is a handle variable with
// no element).  The arrays themselves live outside the planned arena, since
// their length is only known when the loop that fills them has run; the ops
// that read a tensor out of one (ops/tensor_array.hpp) set their outputs'
// shapes at run time.
//
// Arrays are immutable: writing to one makes a new array (a new handle), so
// the order the planner picks between a write and an earlier read of the
// same array cannot change what the read sees.  Appending is still O(1):
// arrays share one log of items, each seeing its first `size` of them; an
// append to the newest array of a log extends the log, any other write
// copies the item pointers (never the tensors).
//
// Shape hints: the planner needs, before anything has run, a bound on the
// tensor a read of an array gives.  Every write's shape inference records,
// under the array's name (its Paddle variable name: the variable name up to
// its first '@', which the loader adds to names written in sub-blocks), its
// item dtype and the largest item dims seen; a read takes that bound.
//
// A program owns one store, shared with the programs of its blocks; the top
// program empties it (keeping the hints) at the start of each run.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "litegraph/core/error.hpp"
#include "litegraph/core/tensor.hpp"

namespace litegraph {

class tensor_arrays {
public:
    /// The largest item written to an array of one name, as inferred.
    struct hint {
        dtype type = dtype::f32;
        shape_t shape;
    };

    /// Items an array may hold (an index beyond is an error, not an
    /// allocation of that many slots): program_limits::max_array_items.
    void set_max_items(std::int64_t n) noexcept { max_items_ = n; }
    /// Bytes the items written in one run may hold together (the program:
    /// program_limits::max_arena_bytes less its arena).
    void set_max_bytes(std::uint64_t n) noexcept { max_bytes_ = n; }
    /// Bytes of the items written since the last clear(), and of the
    /// program's outputs grown beyond their plan (held against the same
    /// budget: note_spilled).
    std::uint64_t bytes() const noexcept { return bytes_ + spilled_; }
    void note_spilled(std::uint64_t n) noexcept { spilled_ += n; }
    void note_unspilled(std::uint64_t n) noexcept { spilled_ -= std::min(n, spilled_); }

    /// The number of items of the array `handle` names (0: the empty one).
    std::int64_t length(std::int64_t handle) const {
        return static_cast<std::int64_t>(get(handle).size);
    }
    /// Item `k` of array `handle`, or null when it was never written (k
    /// below length()).
    const tensor* item(std::int64_t handle, std::int64_t k) const {
        const auto& a = get(handle);
        return (*a.log)[static_cast<std::size_t>(k)].get();
    }
    /// A new array: array `handle` with item `k` a copy of `x` (its LoD
    /// too; grown to k + 1 items, those between unwritten); returns its
    /// handle (>= 1).  Checks the index and the bytes before allocating.
    std::int64_t write(std::int64_t handle, std::int64_t k, const tensor_ref& x) {
        if (k < 0 || k >= max_items_)
            LITEGRAPH_THROW(shape_error("tensor array index " + std::to_string(k) +
                                        " is outside [0, " + std::to_string(max_items_) +
                                        ") (program_limits::max_array_items)"));
        const std::uint64_t b = x.bytes();
        if (bytes() > max_bytes_ || b > max_bytes_ - bytes())
            LITEGRAPH_THROW(shape_error(
                "the tensor arrays of this run would hold " + std::to_string(bytes_ + b) +
                " bytes, more than the " + std::to_string(max_bytes_ - spilled_) +
                " left to them (program_limits::max_arena_bytes less the arena and the "
                "outputs grown beyond their plan)"));
        const array a = get(handle);
        tensor copy(x.type, x.shape);
        if (b) std::memcpy(copy.data(), x.data, b);
        if (!x.lod.empty()) copy.set_lod(x.lod);
        bytes_ += b;
        auto it = std::make_shared<const tensor>(std::move(copy));
        const auto at = static_cast<std::size_t>(k);
        if (a.log && at == a.size && a.log->size() == a.size) {
            a.log->push_back(std::move(it));  // the newest array of its log: append
            return add({a.log, a.size + 1});
        }
        auto log = std::make_shared<std::vector<item_ptr>>();
        if (a.log)
            log->assign(a.log->begin(), a.log->begin() + static_cast<std::ptrdiff_t>(a.size));
        if (log->size() <= at) log->resize(at + 1);
        (*log)[at] = std::move(it);
        const std::size_t size = log->size();
        return add({std::move(log), size});
    }

    /// Forgets every array (not the hints): the start of a run.
    void clear() noexcept {
        arrays_.clear();
        bytes_ = spilled_ = 0;
    }
    /// Arrays made since the last clear().
    std::size_t size() const noexcept { return arrays_.size(); }

    /// Records an item of `type` and `shape` written to the arrays named
    /// `name`: the bound grows dim by dim (the item of more bytes where
    /// ranks differ).  Items of one name must share a dtype.
    void note(std::string_view name, dtype type, const shape_t& shape) {
        auto [it, fresh] = hints_.try_emplace(std::string(name), hint{type, shape});
        if (fresh) return;
        auto& h = it->second;
        if (h.type != type)
            LITEGRAPH_THROW(shape_error("tensor array '" + std::string(name) + "' gets items of " +
                                        std::string(name_of(h.type)) + " and of " +
                                        std::string(name_of(type))));
        if (h.shape.size() == shape.size()) {
            for (std::size_t d = 0; d < shape.size(); ++d)
                h.shape[d] = std::max(h.shape[d], shape[d]);
        } else if (numel(shape) > numel(h.shape)) {
            h.shape = shape;
        }
    }
    /// The bound recorded for arrays named `name`, if any item was written.
    std::optional<hint> bound(std::string_view name) const {
        auto it = hints_.find(name);
        if (it == hints_.end()) return std::nullopt;
        return it->second;
    }

    /// The name the hints of a handle variable go under: its name up to the
    /// first '@' (the loader's `name@block<k>`).
    static std::string_view array_name(std::string_view var) {
        return var.substr(0, var.find('@'));
    }

private:
    using item_ptr = std::shared_ptr<const tensor>;
    struct array {
        std::shared_ptr<std::vector<item_ptr>> log;  // null: the empty array
        std::size_t size = 0;                        // the items of log it sees
    };
    const array& get(std::int64_t handle) const {
        static const array empty;
        if (handle == 0) return empty;
        if (handle < 0 || handle > static_cast<std::int64_t>(arrays_.size()))
            LITEGRAPH_THROW(shape_error("tensor array handle " + std::to_string(handle) +
                                        " names no array of this run"));
        return arrays_[static_cast<std::size_t>(handle - 1)];
    }
    std::int64_t add(array a) {
        arrays_.push_back(std::move(a));
        return static_cast<std::int64_t>(arrays_.size());
    }

    std::vector<array> arrays_;
    std::map<std::string, hint, std::less<>> hints_;
    std::int64_t max_items_ = std::int64_t{1} << 20;
    std::uint64_t max_bytes_ = std::uint64_t{1} << 34;
    std::uint64_t bytes_ = 0, spilled_ = 0;
};

}  // namespace litegraph
