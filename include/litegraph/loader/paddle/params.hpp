// Parameter records (one per persistable variable) as Paddle writes them with
// SerializeToStream: version, LoD, tensor version, a TensorDesc and raw data.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>

#include "litegraph/core/error.hpp"
#include "litegraph/core/shape.hpp"
#include "litegraph/core/tensor.hpp"
#include "litegraph/loader/paddle/framework_proto.hpp"
#include "litegraph/loader/paddle/reflect.hpp"
#include "litegraph/loader/paddle/types.hpp"
#include "litegraph/loader/paddle/wire_check.hpp"

namespace litegraph::paddle {

static_assert(std::endian::native == std::endian::little,
              "Paddle parameter files are little-endian; a big-endian host needs byte swaps");

/// Sanity caps for hostile input: a corrupt record must not make us allocate
/// more than the file's own size.
inline constexpr std::size_t max_rank = 16;
inline constexpr std::uint64_t max_lod_levels = 16;
inline constexpr std::int32_t max_desc_size = 4096;

/// The whole file as bytes; io_error naming it when it cannot be read.
inline std::string read_file(const std::filesystem::path& path) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
        throw io_error("cannot open '" + path.string() + "': no such file");
    std::ifstream f(path, std::ios::binary);
    if (!f) throw io_error("cannot open '" + path.string() + "'");
    auto size = std::filesystem::file_size(path, ec);
    if (ec) throw io_error("cannot read the size of '" + path.string() + "': " + ec.message());
    std::string bytes(size, '\0');
    if (size && !f.read(bytes.data(), static_cast<std::streamsize>(size)))
        throw io_error("cannot read '" + path.string() + "'");
    return bytes;
}

/// Where a record sits in its file and what it declares.
struct record_info {
    std::uint64_t offset = 0;       // first byte of the record
    std::uint64_t desc_offset = 0;  // first byte of its TensorDesc
    std::uint64_t data_offset = 0;  // first byte of its raw data
    std::uint64_t end = 0;          // one past its last byte
    dtype type = dtype::f32;
    shape_t dims;
};

namespace detail {

class record_reader {
public:
    record_reader(std::string_view bytes, std::string file)
        : bytes_(bytes), file_(std::move(file)) {}

    std::uint64_t offset() const noexcept { return pos_; }
    std::uint64_t size() const noexcept { return bytes_.size(); }
    const std::string& file() const noexcept { return file_; }

    /// Reads the record of `var` at the current offset.  `check` sees the record's
    /// header (dtype, dims) before any allocation and may throw.
    template <class Check>
    tensor read(const std::string& var, Check&& check, record_info* out = nullptr) {
        record_info r;
        r.offset = pos_;
        const std::string who = "parameter '" + var + "'";
        if (pos_ >= bytes_.size())
            fail(pos_, who + ": the file ends where its record should start");
        auto version = take<std::uint32_t>(who + " version");
        if (version != 0)
            fail(r.offset, who + ": record version " + std::to_string(version) + ", expected 0");
        const auto lod_at = pos_;
        auto lod_levels = take<std::uint64_t>(who + " LoD level count");
        if (lod_levels > max_lod_levels)
            fail(lod_at, who + ": " + std::to_string(lod_levels) + " LoD levels (corrupt record?)");
        for (std::uint64_t l = 0; l < lod_levels; ++l) {
            const auto at = pos_;
            auto nbytes = take<std::uint64_t>(who + " LoD level size");
            if (nbytes % 8 != 0 || nbytes > remaining())
                fail(at, who + ": LoD level of " + std::to_string(nbytes) + " bytes with " +
                             std::to_string(remaining()) + " bytes left in the file");
            pos_ += nbytes;
        }
        const auto tv_at = pos_;
        auto tensor_version = take<std::uint32_t>(who + " tensor version");
        if (tensor_version != 0)
            fail(tv_at,
                 who + ": tensor version " + std::to_string(tensor_version) + ", expected 0");
        const auto ds_at = pos_;
        auto desc_size = take<std::int32_t>(who + " TensorDesc size");
        if (desc_size <= 0 || desc_size > max_desc_size ||
            static_cast<std::uint64_t>(desc_size) > remaining())
            fail(ds_at, who + ": TensorDesc size " + std::to_string(desc_size) + " with " +
                            std::to_string(remaining()) + " bytes left in the file");
        r.desc_offset = pos_;
        parse_desc(who, static_cast<std::size_t>(desc_size), r);
        pos_ += static_cast<std::uint64_t>(desc_size);
        check(r);
        r.data_offset = pos_;
        const auto n = litegraph::numel(r.dims);
        const auto nbytes = checked_bytes(n, size_of(r.type));
        if (nbytes > remaining())
            fail(pos_, who + ": " + std::string(name_of(r.type)) + " " + to_string(r.dims) +
                           " needs " + std::to_string(nbytes) + " bytes of data, the file has " +
                           std::to_string(remaining()) + " left");
        tensor t(r.type, r.dims);
        if (nbytes) std::memcpy(t.data(), bytes_.data() + pos_, nbytes);
        if (r.type == dtype::boolean) {
            // A bool is one byte, 0 or 1: any other byte (a corrupt or foreign
            // file) would be an invalid bool to every kernel that reads it.
            auto* b = reinterpret_cast<unsigned char*>(t.data());
            for (std::size_t i = 0; i < nbytes; ++i) b[i] = b[i] != 0 ? 1 : 0;
        }
        pos_ += nbytes;
        r.end = pos_;
        if (out) *out = r;
        return t;
    }

    /// Throws unless the file ends exactly here.
    void expect_end(const std::string& last) const {
        if (pos_ != bytes_.size())
            fail(pos_, std::to_string(bytes_.size() - pos_) +
                           " trailing bytes after the last record" +
                           (last.empty() ? std::string() : " ('" + last + "')"));
    }

private:
    [[noreturn]] void fail(std::uint64_t at, const std::string& what) const {
        throw format_error(file_, at, what);
    }
    std::uint64_t remaining() const noexcept { return bytes_.size() - pos_; }

    template <class T>
    T take(const std::string& what) {
        if (remaining() < sizeof(T))
            fail(pos_, "truncated " + what + ": needs " + std::to_string(sizeof(T)) +
                           " bytes, the file has " + std::to_string(remaining()) + " left");
        T v;
        std::memcpy(&v, bytes_.data() + pos_, sizeof(T));
        pos_ += sizeof(T);
        return v;
    }

    void parse_desc(const std::string& who, std::size_t size, record_info& r) const {
        const auto& s = schema::get();
        auto desc = s.make(s.tensor_desc);
        const char* p = bytes_.data() + pos_;
        // ParsePartial: ParseFromArray logs missing required fields to stderr.
        if (!desc->ParsePartialFromArray(p, static_cast<int>(size)) || !desc->IsInitialized()) {
            auto fault = find_wire_fault(p, size, s.tensor_desc);
            if (fault) fail(pos_ + fault->offset, who + ": bad TensorDesc: " + fault->what);
            fail(pos_, who + ": bad TensorDesc: " + desc->InitializationErrorString());
        }
        const int dt = get_enum(*desc, "data_type");
        auto t = try_to_dtype(dt);
        if (!t)
            throw unsupported_error(file_ + " at byte " + std::to_string(pos_) + ": " + who +
                                    " has data type " + std::string(paddle_type_name(dt)) +
                                    ", which litegraph does not support");
        r.type = *t;
        const int rank = count(*desc, "dims");
        if (rank > static_cast<int>(max_rank))
            fail(pos_, who + ": " + std::to_string(rank) + " dims (at most " +
                           std::to_string(max_rank) + " supported)");
        r.dims.clear();
        for (int i = 0; i < rank; ++i) {
            auto d = at_i64(*desc, "dims", i);
            if (d < 0) fail(pos_, who + ": negative dim " + std::to_string(d) + " in stored dims");
            r.dims.push_back(d);
        }
    }

    std::string_view bytes_;
    std::string file_;
    std::uint64_t pos_ = 0;
};

}  // namespace detail

/// Appends the record of `t` as Paddle writes it (no LoD).
inline void append_record(std::string& out, const tensor& t) {
    auto put = [&](const auto& v) {
        const char* p = reinterpret_cast<const char*>(&v);
        out.append(p, sizeof(v));
    };
    put(std::uint32_t{0});  // version
    put(std::uint64_t{0});  // LoD levels
    put(std::uint32_t{0});  // tensor version
    const auto& s = schema::get();
    auto desc = s.make(s.tensor_desc);
    detail::set_enum(*desc, "data_type", to_paddle_type(t.type()));
    for (auto d : t.shape()) detail::add_i64(*desc, "dims", d);
    std::string d = desc->SerializeAsString();
    put(static_cast<std::int32_t>(d.size()));
    out += d;
    if (t.bytes()) out.append(reinterpret_cast<const char*>(t.data()), t.bytes());
}

}  // namespace litegraph::paddle
