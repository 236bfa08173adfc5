// .npy files in and out of litegraph tensors, through xtensor's npy support.
#pragma once

#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <string>
#include <vector>
#include <xtensor/xadapt.hpp>
#include <xtensor/xnpy.hpp>

#include "litegraph/core/error.hpp"
#include "litegraph/core/tensor.hpp"

namespace litegraph {

namespace detail {

/// Copies a Fortran-order (column-major) array of `shape` into C order.
inline void fortran_to_c_order(const std::byte* src, std::byte* dst, const shape_t& shape,
                               std::size_t elem) {
    const std::size_t rank = shape.size();
    const auto n = static_cast<std::size_t>(numel(shape));
    if (n == 0) return;
    // Column-major strides (in elements) of the source.
    std::vector<std::size_t> stride(rank, 1);
    for (std::size_t k = 1; k < rank; ++k)
        stride[k] = stride[k - 1] * static_cast<std::size_t>(shape[k - 1]);
    std::vector<std::size_t> index(rank, 0);
    std::size_t from = 0;  // source element of `index`
    for (std::size_t to = 0; to < n; ++to) {
        std::memcpy(dst + to * elem, src + from * elem, elem);
        // Next C-order index: the last dim moves fastest.
        for (std::size_t k = rank; k-- > 0;) {
            if (++index[k] < static_cast<std::size_t>(shape[k])) {
                from += stride[k];
                break;
            }
            from -= (index[k] - 1) * stride[k];
            index[k] = 0;
        }
    }
}

}  // namespace detail

/// Loads a .npy file of any numeric dtype litegraph knows, in C order (a
/// Fortran-order file, as numpy writes for a transposed array, is converted);
/// throws io_error naming the file when it is missing, malformed, shorter than
/// its header says, or of another dtype.  Nothing is allocated before the
/// header's size is checked against the file's.
inline tensor load_npy(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw io_error("cannot open " + path.string());
    try {
        in.seekg(0, std::ios::end);
        const auto file_size = static_cast<std::uint64_t>(in.tellg());
        in.seekg(0, std::ios::beg);
        unsigned char major = 0, minor = 0;
        xt::detail::read_magic(in, &major, &minor);
        std::string header;
        if (major == 1 && minor == 0)
            header = xt::detail::read_header_1_0(in);
        else if (major == 2 && minor == 0)
            header = xt::detail::read_header_2_0(in);
        else
            throw io_error(path.string() + ": unsupported .npy format version " +
                           std::to_string(major) + "." + std::to_string(minor));
        if (!in) throw io_error(path.string() + ": not a valid .npy file (truncated header)");
        std::string typestring;
        bool fortran = false;
        std::vector<std::size_t> dims;
        xt::detail::parse_header(header, typestring, &fortran, dims);
        std::optional<dtype> type;
        auto try_type = [&]<class T>() {
            if (!type && typestring == xt::detail::build_typestring<T>()) type = dtype_v<T>;
        };
        try_type.operator()<float>();
        try_type.operator()<double>();
        try_type.operator()<std::int64_t>();
        try_type.operator()<std::int32_t>();
        try_type.operator()<std::int16_t>();
        try_type.operator()<std::int8_t>();
        try_type.operator()<std::uint8_t>();
        try_type.operator()<bool>();
        if (!type) throw io_error(path.string() + ": unsupported .npy dtype '" + typestring + "'");
        shape_t shape;
        for (auto d : dims) {
            if (d > static_cast<std::size_t>(std::numeric_limits<std::int64_t>::max()))
                throw io_error(path.string() + ": not a valid .npy file (dim " + std::to_string(d) +
                               " too large)");
            shape.push_back(static_cast<std::int64_t>(d));
        }
        const auto bytes = checked_bytes(numel(shape), size_of(*type));
        const auto data_at = static_cast<std::uint64_t>(in.tellg());
        if (data_at > file_size || file_size - data_at < bytes)
            throw io_error(path.string() + ": not a valid .npy file (the header's shape " +
                           to_string(shape) + " needs " + std::to_string(bytes) +
                           " data bytes, the file has " +
                           std::to_string(data_at > file_size ? 0 : file_size - data_at) + ")");
        tensor result(*type, shape);
        if (!bytes) return result;
        if (!fortran || shape.size() < 2) {
            in.read(reinterpret_cast<char*>(result.data()), static_cast<std::streamsize>(bytes));
        } else {
            std::vector<std::byte> column_major(bytes);
            in.read(reinterpret_cast<char*>(column_major.data()),
                    static_cast<std::streamsize>(bytes));
            detail::fortran_to_c_order(column_major.data(), static_cast<std::byte*>(result.data()),
                                       shape, size_of(*type));
        }
        if (!in) throw io_error(path.string() + ": not a valid .npy file (read failed)");
        return result;
    } catch (const error& e) {
        if (dynamic_cast<const io_error*>(&e)) throw;
        throw io_error(path.string() + ": not a valid .npy file (" + e.what() + ")");
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
