// .npy files in and out of litegraph tensors, through xtensor's npy support.
#pragma once

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <xtensor/xadapt.hpp>
#include <xtensor/xnpy.hpp>

#include "litegraph/core/error.hpp"
#include "litegraph/core/tensor.hpp"

namespace litegraph {

/// Loads a .npy file of any numeric dtype litegraph knows; throws io_error
/// naming the file when it is missing, malformed or of another dtype.
inline tensor load_npy(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw io_error("cannot open " + path.string());
    try {
        auto file = xt::detail::load_npy_file(in);
        tensor result;
        bool matched = false;
        auto try_type = [&]<class T>() {
            if (matched || file.m_typestring != xt::detail::build_typestring<T>()) return;
            auto arr = std::move(file).cast<T, xt::layout_type::row_major>();
            shape_t shape(arr.shape().begin(), arr.shape().end());
            result = tensor(dtype_v<T>, shape);
            if (result.bytes()) std::memcpy(result.data(), arr.data(), result.bytes());
            matched = true;
        };
        try_type.operator()<float>();
        try_type.operator()<double>();
        try_type.operator()<std::int64_t>();
        try_type.operator()<std::int32_t>();
        try_type.operator()<std::int16_t>();
        try_type.operator()<std::int8_t>();
        try_type.operator()<std::uint8_t>();
        try_type.operator()<bool>();
        if (!matched)
            throw io_error(path.string() + ": unsupported .npy dtype '" + file.m_typestring + "'");
        return result;
    } catch (const error&) {
        throw;
    } catch (const std::exception& e) {
        throw io_error(path.string() + ": not a valid .npy file (" + e.what() + ")");
    }
}

/// Writes a tensor as .npy.
inline void save_npy(const std::filesystem::path& path, const tensor_ref& t) {
    std::vector<std::size_t> shape(t.shape.begin(), t.shape.end());
    auto n = static_cast<std::size_t>(t.numel());
    visit_dtype(t.type, [&]<class T>(T) {
        auto view = xt::adapt(reinterpret_cast<const T*>(t.data), n, xt::no_ownership(), shape);
        std::ofstream out(path, std::ios::binary);
        if (!out) throw io_error("cannot write " + path.string());
        xt::detail::dump_npy_stream(out, view);
        if (!out) throw io_error("cannot write " + path.string());
    });
}

}  // namespace litegraph
