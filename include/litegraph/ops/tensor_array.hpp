// The tensor-array ops of Paddle 2.x programs (the lists dy2static loops
// append to), over the handles of core/tensor_array.hpp:
//
//   write_to_array:   X (the item), I (its index, one int), Array (the array
//                     written to; absent or a 0 handle: the empty array) ->
//                     Out, a new array: Array with item I set to X (grown with
//                     unwritten items up to I, as Paddle resizes).  The loader
//                     gives Array: Paddle writes Out in place instead.
//   read_from_array:  X (an array), I -> Out: item I, with its LoD.  An index
//                     past the end or an unwritten item is an error (Paddle
//                     leaves Out unset).
//   lod_array_length: X -> Out, int64 [1]: the number of items.
//   tensor_array_to_tensor: X, axis, use_stack -> Out: the items stacked
//                     along a new `axis` (use_stack) or concatenated along
//                     `axis`; OutIndex, int32 [N]: each item's size along
//                     axis (1 when stacked).
//
// All four are `stateful` (never folded: they read the program's arrays).
// The reads set their outputs' shapes at run time: read_from_array within
// the bound its array's writes inferred (tensor_arrays::note),
// tensor_array_to_tensor exactly from the items when the runtime infers its
// shapes again before running it (planned first for one item of that bound;
// the runtime gives an output that outgrows its plan a buffer of its own for
// that run).
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "litegraph/core/tensor_array.hpp"
#include "litegraph/ops/detail/shape_args.hpp"
#include "litegraph/ops/op.hpp"

namespace litegraph::ops {

namespace detail {

inline tensor_arrays& arrays_of(const op_io& io) {
    if (!io.arrays) io.fail("no tensor arrays: the op runs inside a runtime::program");
    return *io.arrays;
}

/// The handle a tensor-array variable holds: 0 (the empty array) when it
/// has no element; the value must be known (at run time).
inline std::int64_t array_handle(const op_io& io, const tensor_ref& h) {
    io.check(h.type == dtype::i64, [&] {
        return "tensor array '" + std::string(h.name) + "' must be an int64 handle, got " +
               std::string(name_of(h.type));
    });
    if (!is_known(h.shape) || h.numel() == 0) return 0;
    io.check(h.numel() == 1, [&] {
        return "tensor array '" + std::string(h.name) + "' must be one handle, got shape " +
               to_string(h.shape);
    });
    io.check(h.has_data(), "the tensor array's handle is not known yet");
    const std::int64_t v = h.as<std::int64_t>()[0];
    io.check(v >= 0 && v <= static_cast<std::int64_t>(arrays_of(io).size()), [&] {
        return "tensor array '" + std::string(h.name) + "' holds handle " + std::to_string(v) +
               ", which names no array of this run";
    });
    return v;
}

/// The handle of `h` when its value is known and names an array of this
/// run, else nothing (shape inference before anything ran).
inline std::optional<std::int64_t> known_handle(const op_io& io, const tensor_ref& h) {
    if (h.type != dtype::i64 || !is_known(h.shape) || h.numel() > 1) return std::nullopt;
    if (h.numel() == 0) return 0;
    if (!h.has_data()) return std::nullopt;
    const auto v = h.as<std::int64_t>()[0];
    if (v < 0 || v > static_cast<std::int64_t>(arrays_of(io).size())) return std::nullopt;
    return v;
}

/// The index input I: one int32 / int64 value, not negative.
inline std::int64_t array_index(const op_io& io) {
    const auto& i = io.input("I");
    io.check(i.type == dtype::i32 || i.type == dtype::i64,
             [&] { return "I must be int32 or int64, got " + std::string(name_of(i.type)); });
    io.check(is_known(i.shape) && i.numel() == 1,
             [&] { return "I must hold one value, got shape " + to_string(i.shape); });
    io.check(i.has_data(), "the value of I is not known yet");
    const std::int64_t k = i.type == dtype::i32 ? i.as<std::int32_t>()[0] : i.as<std::int64_t>()[0];
    io.check(k >= 0, [&] { return "index I is " + std::to_string(k) + ", negative"; });
    return k;
}

/// Item `k` of array `h` (input slot X), which must have been written.
inline const tensor& array_item(const op_io& io, std::int64_t h, std::int64_t k) {
    const auto& arrays = arrays_of(io);
    const auto& x = io.input("X");
    const std::int64_t n = arrays.length(h);
    io.check(k < n, [&] {
        return "index " + std::to_string(k) + " is past the end of tensor array '" +
               std::string(x.name) + "' (" + std::to_string(n) + " items)";
    });
    const tensor* item = arrays.item(h, k);
    io.check(item != nullptr, [&] {
        return "item " + std::to_string(k) + " of tensor array '" + std::string(x.name) +
               "' was never written";
    });
    return *item;
}

/// Every item of array `h` (input slot X): at least one, all written.
inline std::vector<const tensor*> array_items(const op_io& io, std::int64_t h) {
    const auto& arrays = arrays_of(io);
    const auto& x = io.input("X");
    const std::int64_t n = arrays.length(h);
    io.check(n > 0, [&] {
        return "tensor array '" + std::string(x.name) + "' is empty (nothing to join)";
    });
    std::vector<const tensor*> items;
    for (std::int64_t k = 0; k < n; ++k) items.push_back(&array_item(io, h, k));
    return items;
}

inline void set_handle(const op_io& io, const char* slot, std::int64_t h) {
    io.output(slot).as<std::int64_t>()[0] = h;
}

}  // namespace detail

struct write_to_array {
    static constexpr std::string_view paddle_types[] = {"write_to_array"};
    static constexpr bool stateful = true;
    static constexpr bool sets_lod = true;  // the handle has none; the item keeps X's
    struct params {};
    static params parse(const attr_map&, std::string_view) { return {}; }

    static void infer(const params&, op_io& io) {
        const auto& x = io.input("X");
        auto& out = io.output("Out");
        detail::arrays_of(io).note(tensor_arrays::array_name(out.name), x.type, x.shape);
        out.type = dtype::i64;
        out.shape = {1};
    }

    static void run(const params&, op_io& io) {
        const auto& x = io.input("X");
        const std::int64_t k = detail::array_index(io);
        auto& arrays = detail::arrays_of(io);
        const std::int64_t h =
            io.has_input("Array") ? detail::array_handle(io, io.input("Array")) : 0;
        std::int64_t made = 0;
        try {
            made = arrays.write(h, k, x);
        } catch (const shape_error& e) {
            io.fail(e.what());
        }
        detail::set_handle(io, "Out", made);
    }
};

struct read_from_array {
    static constexpr std::string_view paddle_types[] = {"read_from_array"};
    static constexpr bool stateful = true;
    static constexpr bool shapes_at_run = true;
    static constexpr bool sets_lod = true;
    struct params {};
    static params parse(const attr_map&, std::string_view) { return {}; }

    static void infer(const params&, op_io& io) {
        const auto& x = io.input("X");
        auto& out = io.output("Out");
        const auto bound = detail::arrays_of(io).bound(tensor_arrays::array_name(x.name));
        io.check(bound.has_value(), [&] {
            return "nothing is written to tensor array '" + std::string(x.name) +
                   "' before it is read";
        });
        out.type = bound->type;
        out.shape = bound->shape;
    }

    static void run(const params&, op_io& io) {
        const auto& item = detail::array_item(io, detail::array_handle(io, io.input("X")),
                                              detail::array_index(io));
        auto& out = io.output("Out");
        io.check(item.type() == out.type && item.bytes() <= out.bytes(), [&] {
            return "the item read (" + std::string(name_of(item.type())) + " " +
                   to_string(item.shape()) + ") is outside the bound its writes inferred (" +
                   std::string(name_of(out.type)) + " " + to_string(out.shape) + ")";
        });
        out.shape = item.shape();
        out.lod = item.lod();
        if (item.bytes()) std::memcpy(out.data, item.data(), item.bytes());
    }
};

struct lod_array_length {
    static constexpr std::string_view paddle_types[] = {"lod_array_length"};
    static constexpr bool stateful = true;
    static constexpr bool sets_lod = true;
    struct params {};
    static params parse(const attr_map&, std::string_view) { return {}; }

    static void infer(const params&, op_io& io) {
        auto& out = io.output("Out");
        out.type = dtype::i64;
        out.shape = {1};
    }

    static void run(const params&, op_io& io) {
        detail::set_handle(io, "Out",
                           detail::arrays_of(io).length(detail::array_handle(io, io.input("X"))));
    }
};

struct tensor_array_to_tensor {
    static constexpr std::string_view paddle_types[] = {"tensor_array_to_tensor"};
    static constexpr bool stateful = true;
    static constexpr bool sets_lod = true;
    static constexpr bool shapes_at_run = true;
    struct params {
        std::int64_t axis = 0;
        bool use_stack = false;
    };
    static params parse(const attr_map& a, std::string_view) {
        return {a.get<std::int64_t>("axis", 0), a.get<bool>("use_stack", false)};
    }

    /// Out's shape for items of `item` shape, `n` of them (stacked) or with
    /// `total` rows along the axis (concatenated); the axis made non-negative.
    static shape_t joined(const params& p, const op_io& io, shape_t item, std::int64_t n,
                          std::int64_t total, std::int64_t& axis) {
        const auto rank = static_cast<std::int64_t>(item.size());
        if (p.use_stack) {
            axis = detail::normalize_axis(io, p.axis, rank + 1, "axis");
            item.insert(item.begin() + axis, n);
        } else {
            io.check(rank > 0, "the items are scalars and use_stack is false");
            axis = detail::normalize_axis(io, p.axis, rank, "axis");
            item[static_cast<std::size_t>(axis)] = total;
        }
        return item;
    }

    static void infer(const params& p, op_io& io) {
        const auto& x = io.input("X");
        auto& out = io.output("Out");
        std::int64_t axis = 0;
        const auto h = detail::known_handle(io, x);
        if (h && complete(io, *h)) {
            // The items of this run: the exact shape.
            const auto a = detail::array_items(io, *h);
            const auto n = static_cast<std::int64_t>(a.size());
            const tensor& f = *a.front();
            out.type = f.type();
            out.shape = joined(p, io, f.shape(), n, 0, axis);
            const auto ax = static_cast<std::size_t>(axis);
            std::int64_t total = 0;
            for (std::size_t k = 0; k < a.size(); ++k) {
                const auto& s = a[k]->shape();
                bool same = a[k]->type() == f.type() && s.size() == f.shape().size();
                for (std::size_t d = 0; same && d < s.size(); ++d)
                    same = s[d] == f.shape()[d] || (!p.use_stack && d == ax);
                io.check(same, [&] {
                    return "item " + std::to_string(k) + " of tensor array '" +
                           std::string(x.name) + "' (" + std::string(name_of(a[k]->type())) + " " +
                           to_string(s) + ") does not match item 0 (" +
                           std::string(name_of(f.type())) + " " + to_string(f.shape()) + ")" +
                           (p.use_stack ? "" : " beside the axis");
                });
                if (!p.use_stack) total += s[ax];
            }
            if (!p.use_stack) out.shape[ax] = total;
            set_index_shape(io, n);
            return;
        }
        // Before the run: planned for one item of the bound its writes inferred.
        const auto bound = detail::arrays_of(io).bound(tensor_arrays::array_name(x.name));
        io.check(bound.has_value(), [&] {
            return "nothing is written to tensor array '" + std::string(x.name) +
                   "' before it is joined";
        });
        out.type = bound->type;
        out.shape = joined(p, io, bound->shape, 1, 0, axis);
        if (!p.use_stack)
            out.shape[static_cast<std::size_t>(axis)] =
                bound->shape[static_cast<std::size_t>(axis)];
        set_index_shape(io, 1);
    }

    /// Whether array `h` has items, all written (else the bound is planned
    /// and run() says what is wrong).
    static bool complete(const op_io& io, std::int64_t h) {
        const auto& arrays = detail::arrays_of(io);
        const std::int64_t n = arrays.length(h);
        for (std::int64_t k = 0; k < n; ++k)
            if (!arrays.item(h, k)) return false;
        return n > 0;
    }

    static void set_index_shape(op_io& io, std::int64_t n) {
        if (!io.has_output("OutIndex")) return;
        auto& idx = io.output("OutIndex");
        idx.type = dtype::i32;
        idx.shape = {n};
    }

    static void run(const params& p, op_io& io) {
        const auto& x = io.input("X");
        const auto a = detail::array_items(io, detail::array_handle(io, x));
        auto& out = io.output("Out");
        // Shapes were inferred from these items just before: copy them in.
        std::int64_t axis = 0;
        (void)joined(p, io, a.front()->shape(), 1, 1, axis);
        const auto& f = a.front()->shape();
        const std::size_t esize = size_of(out.type);
        // outer: the product of the dims before the axis (of the output);
        // each item contributes a block of rows x inner per outer index.
        std::int64_t outer = 1, inner = 1;
        if (p.use_stack) {
            for (std::int64_t d = 0; d < axis; ++d) outer *= f[static_cast<std::size_t>(d)];
            for (std::size_t d = static_cast<std::size_t>(axis); d < f.size(); ++d) inner *= f[d];
        } else {
            for (std::int64_t d = 0; d < axis; ++d) outer *= f[static_cast<std::size_t>(d)];
            for (std::size_t d = static_cast<std::size_t>(axis) + 1; d < f.size(); ++d)
                inner *= f[d];
        }
        std::int64_t row_total = 0;
        for (auto& it : a)
            row_total += p.use_stack ? 1 : it->shape()[static_cast<std::size_t>(axis)];
        io.check(static_cast<std::uint64_t>(outer * row_total * inner) * esize <= out.bytes(),
                 "the items do not match the shape inferred for them");
        std::int64_t at = 0;
        for (std::size_t k = 0; k < a.size(); ++k) {
            const auto& it = *a[k];
            const std::int64_t rows = p.use_stack ? 1 : it.shape()[static_cast<std::size_t>(axis)];
            const auto block = static_cast<std::size_t>(rows * inner) * esize;
            for (std::int64_t o = 0; o < outer; ++o)
                if (block)
                    std::memcpy(
                        out.data + static_cast<std::size_t>((o * row_total + at) * inner) * esize,
                        it.data() + static_cast<std::size_t>(o) * block, block);
            if (io.has_output("OutIndex"))
                io.output("OutIndex").as<std::int32_t>()[k] = static_cast<std::int32_t>(rows);
            at += rows;
        }
    }
};

}  // namespace litegraph::ops
