// Helpers shared by the data-movement ops (reshape2, slice, concat, ...):
// axis normalisation, reading shape-deciding input values during shape
// inference, Paddle's XShape convention, Paddle VarType dtype codes and
// byte-wise copies that work for every dtype.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "litegraph/ops/op.hpp"

namespace litegraph::ops::detail {

/// `axis` in [-rank, rank) made non-negative; fails naming `what` otherwise.
inline std::int64_t normalize_axis(const op_io& io, std::int64_t axis, std::int64_t rank,
                                   const char* what) {
    if (axis < -rank || axis >= rank)
        io.fail(std::string(what) + " " + std::to_string(axis) + " is out of range for rank " +
                std::to_string(rank));
    return axis < 0 ? axis + rank : axis;
}

/// The values of an int32/int64 input whose value decides an output shape.
/// Fails when the value is not known during shape inference.
inline std::vector<std::int64_t> read_ints(const op_io& io, const tensor_ref& t, const char* slot) {
    if (t.type != dtype::i32 && t.type != dtype::i64)
        io.fail("input '" + std::string(slot) + "' ('" + std::string(t.name) +
                "') must be int32 or int64, got " + std::string(name_of(t.type)));
    if (!is_known(t.shape))
        io.fail("input '" + std::string(slot) + "' ('" + std::string(t.name) +
                "') has an unknown shape " + to_string(t.shape));
    if (!t.has_data() && t.numel() > 0)
        io.fail("the value of input '" + std::string(slot) + "' ('" + std::string(t.name) +
                "') decides the output shape but is not known before the run (it must be a "
                "weight, a feed or computed from shapes)");
    std::vector<std::int64_t> v;
    v.reserve(static_cast<std::size_t>(t.numel()));
    if (t.type == dtype::i32)
        for (auto x : t.span<std::int32_t>()) v.push_back(x);
    else
        for (auto x : t.span<std::int64_t>()) v.push_back(x);
    return v;
}

/// One value per tensor of a list slot (e.g. ShapeTensorList): each must hold one element.
inline std::vector<std::int64_t> read_int_list(const op_io& io, const char* slot) {
    std::vector<std::int64_t> v;
    for (std::size_t i = 0; i < io.input_count(slot); ++i) {
        auto one = read_ints(io, io.input(slot, i), slot);
        if (one.size() != 1)
            io.fail("each tensor of '" + std::string(slot) + "' must hold one value, '" +
                    std::string(io.input(slot, i).name) + "' holds " + std::to_string(one.size()));
        v.push_back(one[0]);
    }
    return v;
}

/// Paddle's XShape output (reshape2, transpose2, ...): shape {0, dims of X...},
/// zero elements, so it costs no memory; only the backward pass read it.
inline void set_xshape(op_io& io, const tensor_ref& x) {
    if (!io.has_output("XShape")) return;
    auto& xs = io.output("XShape");
    xs.type = x.type;
    xs.shape.assign(1, 0);
    xs.shape.insert(xs.shape.end(), x.shape.begin(), x.shape.end());
}

/// Copies all bytes of `in` into `out` (same element count and dtype).
inline void copy_all(const tensor_ref& in, const tensor_ref& out) {
    auto n = in.bytes();
    if (n && in.data != out.data) std::memmove(out.data, in.data, n);
}

/// litegraph dtype of a Paddle VarType.Type code; fails naming the code.
inline dtype dtype_from_paddle(const op_io& io, int code, const char* attr = "dtype") {
    if (auto t = litegraph::dtype_from_paddle(code)) return *t;
    LITEGRAPH_THROW(unsupported_error("op " + io.type + " ('" + io.label + "'): attribute '" +
                                      attr + "' = " + std::to_string(code) +
                                      " is not a supported Paddle data type code"));
}

/// Row-major strides (in elements) of `s`.
inline std::vector<std::int64_t> strides_of(const shape_t& s) {
    std::vector<std::int64_t> st(s.size(), 1);
    for (std::size_t i = s.size(); i-- > 1;) st[i - 1] = st[i] * s[i];
    return st;
}

}  // namespace litegraph::ops::detail
