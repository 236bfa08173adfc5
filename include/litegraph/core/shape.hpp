// Shapes: a list of dims; -1 marks a dim not known until the input is given.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "litegraph/core/error.hpp"

namespace litegraph {

using shape_t = std::vector<std::int64_t>;

/// Product of dims; throws on a negative (unknown) dim or on overflow.
inline std::int64_t numel(const shape_t& s) {
    std::int64_t n = 1;
    for (auto d : s) {
        if (d < 0) LITEGRAPH_THROW(shape_error("element count of a shape with an unknown dim"));
        if (d != 0 && n > std::numeric_limits<std::int64_t>::max() / d)
            LITEGRAPH_THROW(shape_error("element count overflows 64 bits"));
        n *= d;
    }
    return n;
}

inline bool is_known(const shape_t& s) {
    for (auto d : s)
        if (d < 0) return false;
    return true;
}

inline std::string to_string(const shape_t& s) {
    std::string r = "[";
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (i) r += ",";
        r += std::to_string(s[i]);
    }
    return r + "]";
}

/// Bytes of `count` elements of `elem_size` bytes, with an overflow check.
inline std::uint64_t checked_bytes(std::int64_t count, std::size_t elem_size) {
    if (count < 0) LITEGRAPH_THROW(shape_error("negative element count"));
    auto c = static_cast<std::uint64_t>(count);
    if (elem_size && c > std::numeric_limits<std::uint64_t>::max() / elem_size)
        LITEGRAPH_THROW(shape_error("byte size overflows 64 bits"));
    return c * elem_size;
}

}  // namespace litegraph
