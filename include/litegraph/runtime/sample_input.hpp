// The input litegraph feeds a model when none is given (`litegraph run`,
// `plan`, `codegen`'s sample input, the benchmarks): deterministic values of
// the input's dtype, at a shape given per input name or the declared one.
#pragma once

#include <cmath>
#include <cstddef>
#include <map>
#include <string>
#include <type_traits>

#include "litegraph/core/error.hpp"
#include "litegraph/core/tensor.hpp"
#include "litegraph/graph/graph.hpp"

namespace litegraph::runtime {

/// The input litegraph feeds when none is given: element i of a float input
/// is sin(0.37 i) cos(0.011 i) (the formula of the classifier's reference
/// inputs); integer inputs get i mod 7 (valid ids and small shapes).
inline tensor deterministic_input(dtype type, const shape_t& shape) {
    tensor t(type, shape);
    auto n = static_cast<std::size_t>(t.numel());
    visit_dtype(type, [&]<class T>(T) {
        auto* p = reinterpret_cast<T*>(t.data());
        for (std::size_t i = 0; i < n; ++i) {
            if constexpr (std::is_floating_point_v<T>)
                p[i] = static_cast<T>(std::sin(0.37 * double(i)) * std::cos(0.011 * double(i)));
            else
                p[i] = static_cast<T>(i % 7);
        }
    });
    return t;
}

/// The shape litegraph feeds input `v` when no data is given: `shapes[v.name]`
/// (which must have the input's rank), else the declared shape with -1 as 1.
inline shape_t input_shape(const graph::var_node& v, const std::map<std::string, shape_t>& shapes) {
    shape_t shape = v.shape;
    if (auto it = shapes.find(v.name); it != shapes.end()) {
        if (!shape.empty() && it->second.size() != shape.size())
            throw usage_error("--shape " + v.name + ": the input has rank " +
                              std::to_string(shape.size()) + ", got " +
                              std::to_string(it->second.size()) + " dims");
        shape = it->second;
    }
    for (auto& d : shape)
        if (d < 0) d = 1;
    return shape;
}

/// deterministic_input for feed `v` (shape from input_shape); a LoD feed gets
/// one sequence of all its rows.
inline tensor deterministic_feed(const graph::var_node& v,
                                 const std::map<std::string, shape_t>& shapes) {
    auto t = deterministic_input(v.type, input_shape(v, shapes));
    if (v.lod_level > 0 && !t.shape().empty()) t.set_lod({{0, t.shape()[0]}});
    return t;
}

}  // namespace litegraph::runtime
