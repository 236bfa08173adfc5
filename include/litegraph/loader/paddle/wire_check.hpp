// Locates the first structural fault of a protobuf message on the wire.
//
// protobuf's parser only answers yes or no; a user with a corrupt model needs to
// know where it breaks.  This walker follows the wire format (tags, wire types,
// lengths, nested messages known from the descriptor) and reports the first byte
// offset where the structure does not hold.
#pragma once

#include <google/protobuf/descriptor.h>
#include <google/protobuf/io/coded_stream.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace litegraph::paddle {

struct wire_fault {
    std::uint64_t offset = 0;
    std::string what;
};

namespace detail {

class wire_walker {
public:
    wire_walker(const std::uint8_t* data, std::size_t size)
        : in_(data, static_cast<int>(size)), size_(size) {}

    std::optional<wire_fault> walk(const google::protobuf::Descriptor* d) {
        if (size_ > static_cast<std::size_t>(INT32_MAX))
            return wire_fault{0, "message larger than 2 GiB"};
        in_.PushLimit(static_cast<int>(size_));
        return message(d, 0);
    }

private:
    using FD = google::protobuf::FieldDescriptor;
    static constexpr int max_depth = 64;

    std::uint64_t pos() const { return static_cast<std::uint64_t>(in_.CurrentPosition()); }

    static std::string field_name(const google::protobuf::Descriptor* d, std::uint32_t number,
                                  const FD* f) {
        std::string owner = d ? d->name() : std::string("unknown message");
        return f ? owner + "." + f->name() : owner + " field " + std::to_string(number);
    }

    // The wire type protobuf writes for a field (2 is also fine for packed repeated scalars).
    static int expected_wire_type(const FD* f) {
        switch (f->type()) {
            case FD::TYPE_DOUBLE:
            case FD::TYPE_FIXED64:
            case FD::TYPE_SFIXED64:
                return 1;
            case FD::TYPE_FLOAT:
            case FD::TYPE_FIXED32:
            case FD::TYPE_SFIXED32:
                return 5;
            case FD::TYPE_STRING:
            case FD::TYPE_BYTES:
            case FD::TYPE_MESSAGE:
                return 2;
            case FD::TYPE_GROUP:
                return 3;
            default:
                return 0;
        }
    }

    std::optional<wire_fault> message(const google::protobuf::Descriptor* d, int depth) {
        if (depth > max_depth)
            return wire_fault{pos(), "messages nested deeper than " + std::to_string(max_depth)};
        while (in_.BytesUntilLimit() > 0) {
            const auto at = pos();
            std::uint32_t tag = 0;
            if (!in_.ReadVarint32(&tag)) return wire_fault{at, "malformed field tag (varint)"};
            const std::uint32_t number = tag >> 3;
            const int wire = static_cast<int>(tag & 7);
            if (number == 0) return wire_fault{at, "field number 0 in a tag"};
            const FD* f = d ? d->FindFieldByNumber(static_cast<int>(number)) : nullptr;
            // The field's name is spelled only in a fault: a well-formed field costs no string.
            const auto name = [&] { return field_name(d, number, f); };
            if (f) {
                int want = expected_wire_type(f);
                bool packed_ok = f->is_repeated() && wire == 2 && want != 2;
                if (wire != want && !packed_ok)
                    return wire_fault{at, "field " + name() + " has wire type " +
                                              std::to_string(wire) + ", expected " +
                                              std::to_string(want)};
            }
            switch (wire) {
                case 0: {
                    std::uint64_t v = 0;
                    const auto vat = pos();
                    if (!in_.ReadVarint64(&v))
                        return wire_fault{vat, "malformed varint in field " + name()};
                    break;
                }
                case 1: {
                    std::uint64_t v = 0;
                    if (!in_.ReadLittleEndian64(&v))
                        return wire_fault{pos(), "truncated 8-byte field " + name()};
                    break;
                }
                case 5: {
                    std::uint32_t v = 0;
                    if (!in_.ReadLittleEndian32(&v))
                        return wire_fault{pos(), "truncated 4-byte field " + name()};
                    break;
                }
                case 2: {
                    const auto lat = pos();
                    std::uint32_t len = 0;
                    if (!in_.ReadVarint32(&len))
                        return wire_fault{lat, "malformed length of field " + name()};
                    const auto left = remaining();
                    if (len > left)
                        return wire_fault{lat, "field " + name() + " claims " +
                                                   std::to_string(len) + " bytes, only " +
                                                   std::to_string(left) +
                                                   " remain in its enclosing message"};
                    if (f && f->type() == FD::TYPE_MESSAGE) {
                        auto limit = in_.PushLimit(static_cast<int>(len));
                        if (auto fault = message(f->message_type(), depth + 1)) return fault;
                        in_.PopLimit(limit);
                    } else if (!in_.Skip(static_cast<int>(len))) {
                        return wire_fault{lat, "truncated field " + name()};
                    }
                    break;
                }
                case 3:
                case 4:
                    return wire_fault{at, "group wire type in field " + name() +
                                              " (not used by Paddle programs)"};
                default:
                    return wire_fault{
                        at, "invalid wire type " + std::to_string(wire) + " in field " + name()};
            }
        }
        return std::nullopt;
    }

    std::uint64_t remaining() const {
        return static_cast<std::uint64_t>(std::max(0, in_.BytesUntilLimit()));
    }

    google::protobuf::io::CodedInputStream in_;
    std::size_t size_;
};

}  // namespace detail

/// The first structural fault of `size` bytes read as message `d`, or nothing.
inline std::optional<wire_fault> find_wire_fault(const void* data, std::size_t size,
                                                 const google::protobuf::Descriptor* d) {
    return detail::wire_walker(static_cast<const std::uint8_t*>(data), size).walk(d);
}

}  // namespace litegraph::paddle
