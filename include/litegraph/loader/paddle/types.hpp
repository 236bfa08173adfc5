// Paddle's VarType.Type and AttrType numbers, and their mapping to litegraph dtypes.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "litegraph/core/dtype.hpp"
#include "litegraph/core/error.hpp"

namespace litegraph::paddle {

/// Paddle VarType.Type values (framework.proto).
namespace var_type {
inline constexpr int BOOL = 0, INT16 = 1, INT32 = 2, INT64 = 3, FP16 = 4, FP32 = 5, FP64 = 6,
                     LOD_TENSOR = 7, SELECTED_ROWS = 8, FEED_MINIBATCH = 9, FETCH_LIST = 10,
                     STEP_SCOPES = 11, LOD_TENSOR_ARRAY = 13, UINT8 = 20, INT8 = 21, BF16 = 22;
}

/// Paddle AttrType values (framework.proto).
namespace attr_type {
inline constexpr int INT = 0, FLOAT = 1, STRING = 2, INTS = 3, FLOATS = 4, STRINGS = 5, BOOLEAN = 6,
                     BOOLEANS = 7, BLOCK = 8, LONG = 9, BLOCKS = 10, LONGS = 11, FLOAT64S = 12,
                     VAR = 13, VARS = 14, FLOAT64 = 15, SCALAR = 16, SCALARS = 17;
}

/// The dtype of a Paddle data type, or nothing for types litegraph has no dtype for.
constexpr std::optional<dtype> try_to_dtype(int paddle_type) noexcept {
    return dtype_from_paddle(paddle_type);
}

/// Paddle's name of a VarType.Type value ("FP32", "BF16", ...), for messages.
constexpr std::string_view paddle_type_name(int t) noexcept {
    constexpr std::string_view names[] = {"BOOL",
                                          "INT16",
                                          "INT32",
                                          "INT64",
                                          "FP16",
                                          "FP32",
                                          "FP64",
                                          "LOD_TENSOR",
                                          "SELECTED_ROWS",
                                          "FEED_MINIBATCH",
                                          "FETCH_LIST",
                                          "STEP_SCOPES",
                                          "LOD_RANK_TABLE",
                                          "LOD_TENSOR_ARRAY",
                                          "PLACE_LIST",
                                          "READER",
                                          "?",
                                          "RAW",
                                          "TUPLE",
                                          "SIZE_T",
                                          "UINT8",
                                          "INT8",
                                          "BF16",
                                          "COMPLEX64",
                                          "COMPLEX128",
                                          "STRING",
                                          "STRINGS",
                                          "VOCAB",
                                          "FEED_LIST",
                                          "PSTRING",
                                          "SPARSE_COO",
                                          "SPARSE_CSR"};
    if (t < 0 || t >= static_cast<int>(std::size(names))) return "?";
    return names[t];
}

/// The dtype of a Paddle data type; unsupported_error for the others.
inline dtype to_dtype(int paddle_type) {
    if (auto t = try_to_dtype(paddle_type)) return *t;
    throw unsupported_error("Paddle data type " + std::to_string(paddle_type) + " (" +
                            std::string(paddle_type_name(paddle_type)) +
                            ") has no litegraph dtype");
}

/// The Paddle data type of a dtype.
constexpr int to_paddle_type(dtype t) noexcept {
    switch (t) {
        case dtype::f32:
            return var_type::FP32;
        case dtype::f64:
            return var_type::FP64;
        case dtype::f16:
            return var_type::FP16;
        case dtype::i8:
            return var_type::INT8;
        case dtype::u8:
            return var_type::UINT8;
        case dtype::i16:
            return var_type::INT16;
        case dtype::i32:
            return var_type::INT32;
        case dtype::i64:
            return var_type::INT64;
        case dtype::boolean:
            return var_type::BOOL;
    }
    return var_type::FP32;
}

}  // namespace litegraph::paddle
