// Element types of tensors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

namespace litegraph {

enum class dtype : std::uint8_t { f32, f64, f16, i8, u8, i16, i32, i64, boolean };

constexpr std::size_t size_of(dtype t) noexcept {
    switch (t) {
        case dtype::f32:
            return 4;
        case dtype::f64:
            return 8;
        case dtype::f16:
            return 2;
        case dtype::i8:
            return 1;
        case dtype::u8:
            return 1;
        case dtype::i16:
            return 2;
        case dtype::i32:
            return 4;
        case dtype::i64:
            return 8;
        case dtype::boolean:
            return 1;
    }
    return 0;
}

/// numpy-style names ("float32", "int64", ...), used in JSON and messages.
constexpr std::string_view name_of(dtype t) noexcept {
    switch (t) {
        case dtype::f32:
            return "float32";
        case dtype::f64:
            return "float64";
        case dtype::f16:
            return "float16";
        case dtype::i8:
            return "int8";
        case dtype::u8:
            return "uint8";
        case dtype::i16:
            return "int16";
        case dtype::i32:
            return "int32";
        case dtype::i64:
            return "int64";
        case dtype::boolean:
            return "bool";
    }
    return "?";
}

/// The dtype of a Paddle VarType.Type code, as model files and op attributes
/// (cast, fill_constant) give it: BOOL 0, INT16 1, INT32 2, INT64 3, FP16 4,
/// FP32 5, FP64 6, UINT8 20, INT8 21; nullopt for codes with no dtype here.
constexpr std::optional<dtype> dtype_from_paddle(int code) noexcept {
    switch (code) {
        case 0:
            return dtype::boolean;
        case 1:
            return dtype::i16;
        case 2:
            return dtype::i32;
        case 3:
            return dtype::i64;
        case 4:
            return dtype::f16;
        case 5:
            return dtype::f32;
        case 6:
            return dtype::f64;
        case 20:
            return dtype::u8;
        case 21:
            return dtype::i8;
        default:
            return std::nullopt;
    }
}

template <class T>
struct dtype_of;
template <>
struct dtype_of<float> {
    static constexpr dtype value = dtype::f32;
};
template <>
struct dtype_of<double> {
    static constexpr dtype value = dtype::f64;
};
template <>
struct dtype_of<std::int8_t> {
    static constexpr dtype value = dtype::i8;
};
template <>
struct dtype_of<std::uint8_t> {
    static constexpr dtype value = dtype::u8;
};
template <>
struct dtype_of<std::int16_t> {
    static constexpr dtype value = dtype::i16;
};
template <>
struct dtype_of<std::int32_t> {
    static constexpr dtype value = dtype::i32;
};
template <>
struct dtype_of<std::int64_t> {
    static constexpr dtype value = dtype::i64;
};
template <>
struct dtype_of<bool> {
    static constexpr dtype value = dtype::boolean;
};

template <class T>
inline constexpr dtype dtype_v = dtype_of<std::remove_cv_t<T>>::value;

/// Calls f(T{}) with the C++ type of `t` (f16 is not dispatched: no arithmetic on it).
template <class F>
decltype(auto) visit_dtype(dtype t, F&& f) {
    switch (t) {
        case dtype::f64:
            return f(double{});
        case dtype::i8:
            return f(std::int8_t{});
        case dtype::u8:
            return f(std::uint8_t{});
        case dtype::i16:
            return f(std::int16_t{});
        case dtype::i32:
            return f(std::int32_t{});
        case dtype::i64:
            return f(std::int64_t{});
        case dtype::boolean:
            return f(bool{});
        case dtype::f32:
        case dtype::f16:
            break;
    }
    return f(float{});
}

}  // namespace litegraph
