// Helpers shared by the sliding-window ops (conv2d, conv2d_transpose, pool2d):
// reading the 2-D attribute pairs, Paddle's padding normalisation
// (UpdatePaddingAndDilation / UpdatePadding) and its output-size formulas.
// Output sizes use C-style (truncating) integer division, as Paddle does: a
// negative numerator rounds toward zero, which the PP-OCR classifier relies on.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "litegraph/ops/op.hpp"

namespace litegraph::ops::detail {

enum class padding_algorithm { explicit_pads, same, valid };

inline padding_algorithm parse_padding_algorithm(const attr_map& a, std::string_view type) {
    auto s = a.get<std::string>("padding_algorithm", "EXPLICIT");
    if (s == "EXPLICIT" || s.empty()) return padding_algorithm::explicit_pads;
    if (s == "SAME") return padding_algorithm::same;
    if (s == "VALID") return padding_algorithm::valid;
    LITEGRAPH_THROW(unsupported_error("op " + std::string(type) + ": padding_algorithm '" + s +
                                      "' is not supported"));
}

/// Accepts NCHW (and "AnyLayout", which old exports write for NCHW); other
/// layouts are unsupported.
inline void require_nchw(const attr_map& a, const char* attr, std::string_view type) {
    auto s = a.get<std::string>(attr, "NCHW");
    if (s != "NCHW" && s != "AnyLayout" && !s.empty())
        LITEGRAPH_THROW(unsupported_error("op " + std::string(type) + ": " + attr + " '" + s +
                                          "' is not supported (only NCHW)"));
}

/// Whether attribute `attr` (default NCHW) says channels last: NHWC is true;
/// NCHW, AnyLayout or empty false; anything else is refused, naming the op.
inline bool channels_last(const attr_map& a, std::string_view type,
                          const char* attr = "data_format") {
    auto s = a.get<std::string>(attr, "NCHW");
    if (s != "NCHW" && s != "NHWC" && s != "AnyLayout" && !s.empty())
        LITEGRAPH_THROW(unsupported_error("op " + std::string(type) + ": " + attr + " '" + s +
                                          "' is not supported (NCHW or NHWC)"));
    return s == "NHWC";
}

/// A conv's optional Bias input holds one float32 per output channel.
inline void check_bias(const op_io& io, std::int64_t oc) {
    if (io.input_count("Bias") == 0) return;
    const auto& b = io.input("Bias");
    io.check(b.type == dtype::f32 && is_known(b.shape) && b.numel() == oc, [&] {
        return "Bias shape " + to_string(b.shape) + " does not hold " + std::to_string(oc) +
               " float32 values";
    });
}

inline std::string list_string(const std::vector<std::int64_t>& v) {
    std::string r = "[";
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (i) r += ',';
        r += std::to_string(v[i]);
    }
    r += ']';
    return r;
}

/// An attribute of two values (strides, dilations, ksize, ...); fails naming it
/// when it does not hold exactly two values or a value is below `min`.
inline void check_pair(const op_io& io, const std::vector<std::int64_t>& v, const char* name,
                       std::int64_t min) {
    io.check(v.size() == 2, [&] {
        return std::string("attribute ") + name + " must hold 2 values, got " + list_string(v);
    });
    io.check(v[0] >= min && v[1] >= min, [&] {
        return std::string("attribute ") + name + " " + list_string(v) +
               " must be >= " + std::to_string(min);
    });
}

/// Paddle's padding normalisation for 2 spatial dims: `pads` (2 values
/// [h, w] or 4 values [top, bottom, left, right]) becomes 4 values; SAME
/// computes them from the input size (and resets dilation to 1), VALID zeroes
/// them.  `in` holds the spatial input dims (-1 = unknown; SAME then leaves
/// the pads at 0 since the output size is unknown anyway).
inline std::vector<std::int64_t> resolve_padding(const op_io& io, std::vector<std::int64_t> pads,
                                                 padding_algorithm alg, const std::int64_t in[2],
                                                 const std::vector<std::int64_t>& strides,
                                                 const std::int64_t ksize[2],
                                                 std::vector<std::int64_t>* dilations) {
    if (pads.size() == 2)
        pads = {pads[0], pads[0], pads[1], pads[1]};
    else
        io.check(pads.size() == 4, [&] {
            return "attribute paddings must hold 2 or 4 values, got " + list_string(pads);
        });
    if (alg == padding_algorithm::same) {
        for (int i = 0; i < 2; ++i) {
            std::int64_t sum = 0;
            if (in[i] >= 0) {
                std::int64_t out = (in[i] + strides[i] - 1) / strides[i];
                sum = std::max<std::int64_t>((out - 1) * strides[i] + ksize[i] - in[i], 0);
            }
            pads[2 * i] = sum / 2;
            pads[2 * i + 1] = sum - sum / 2;
            if (dilations) (*dilations)[i] = 1;
        }
    } else if (alg == padding_algorithm::valid) {
        std::fill(pads.begin(), pads.end(), 0);
    } else {
        for (auto p : pads)
            io.check(p >= 0, [&] {
                return "negative padding in " + list_string(pads) + " is not supported";
            });
    }
    return pads;
}

/// Paddle's ConvOutSize, with truncating division.
constexpr std::int64_t conv_out_size(std::int64_t in, std::int64_t k, std::int64_t dilation,
                                     std::int64_t pad0, std::int64_t pad1, std::int64_t stride) {
    const std::int64_t extent = dilation * (k - 1) + 1;
    return (in + pad0 + pad1 - extent) / stride + 1;
}

/// Paddle's PoolOutputSize, with truncating division.
constexpr std::int64_t pool_out_size(std::int64_t in, std::int64_t k, std::int64_t pad0,
                                     std::int64_t pad1, std::int64_t stride, bool ceil_mode) {
    return ceil_mode ? (in - k + pad0 + pad1 + stride - 1) / stride + 1
                     : (in - k + pad0 + pad1) / stride + 1;
}

/// Requires a float32 input of the given rank; names the slot.
inline const tensor_ref& f32_input(const op_io& io, std::string_view slot, std::size_t rank,
                                   dtype type = dtype::f32) {
    const auto& t = io.input(slot);
    io.check(t.type == type, [&] {
        return std::string(slot) + " must be " + std::string(name_of(type)) + ", got " +
               std::string(name_of(t.type));
    });
    io.check(t.shape.size() == rank, [&] {
        return std::string(slot) + " must be " + std::to_string(rank) + "-D, got shape " +
               to_string(t.shape);
    });
    return t;
}

}  // namespace litegraph::ops::detail
