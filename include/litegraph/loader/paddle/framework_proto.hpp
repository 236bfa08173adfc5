// The Paddle program schema (framework.proto, proto2, package paddle.framework.proto)
// as text, and a protobuf DescriptorPool built from it at run time.
//
// The library is header-only, so there is no generated .pb.cc to compile: the loader
// reads and writes messages through DynamicMessageFactory + Reflection.  The .proto
// text is turned into a FileDescriptorProto by a small parser for the subset of the
// .proto language this file uses (messages, nested messages, enums, labelled scalar
// and message fields, [default = ...], reserved), built on protobuf's own
// io::Tokenizer; protobuf's compiler::Parser lives in libprotoc, whose headers are
// not part of our dependencies.
#pragma once

#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/message.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "litegraph/core/error.hpp"

namespace litegraph::paddle {

/// Wire-compatible with Paddle's paddle/fluid/framework/framework.proto: the field
/// numbers are what matter; names follow Paddle's so that messages read the same.
/// Paddle's `string` fields are declared `bytes` here: the same wire format, but
/// protobuf does not check (and log to stderr about) UTF-8 in names of corrupt files.
// clang-format off
inline constexpr std::string_view framework_proto = R"proto(
syntax = "proto2";
package paddle.framework.proto;

message Version { optional int64 version = 1 [ default = 0 ]; }

enum AttrType {
  INT = 0;
  FLOAT = 1;
  STRING = 2;
  INTS = 3;
  FLOATS = 4;
  STRINGS = 5;
  BOOLEAN = 6;
  BOOLEANS = 7;
  BLOCK = 8;
  LONG = 9;
  BLOCKS = 10;
  LONGS = 11;
  FLOAT64S = 12;
  VAR = 13;
  VARS = 14;
  FLOAT64 = 15;
  SCALAR = 16;
  SCALARS = 17;
}

message Complex {
  required double r = 1;
  required double i = 2;
}

message Scalar {
  enum Type {
    BOOLEAN = 1;
    LONG = 2;
    FLOAT64 = 3;
    COMPLEX128 = 4;
  }
  required Type type = 1;
  optional bool b = 2;
  optional int64 i = 3;
  optional double r = 4;
  optional Complex c = 5;
}

message OpDesc {
  message Attr {
    required bytes name = 1;
    required AttrType type = 2;
    optional int32 i = 3;
    optional float f = 4;
    optional bytes s = 5;
    repeated int32 ints = 6;
    repeated float floats = 7;
    repeated bytes strings = 8;
    optional bool b = 10;
    repeated bool bools = 11;
    optional int32 block_idx = 12;
    optional int64 l = 13;
    repeated int32 blocks_idx = 14;
    repeated int64 longs = 15;
    repeated double float64s = 16;
    optional bytes var_name = 17;
    repeated bytes vars_name = 18;
    optional double float64 = 19;
    optional Scalar scalar = 20;
    repeated Scalar scalars = 21;
  }
  message Var {
    required bytes parameter = 1;
    repeated bytes arguments = 2;
  }
  required bytes type = 3;
  repeated Var inputs = 1;
  repeated Var outputs = 2;
  repeated Attr attrs = 4;
  optional bool is_target = 5 [ default = false ];
}

message VarType {
  enum Type {
    BOOL = 0;
    INT16 = 1;
    INT32 = 2;
    INT64 = 3;
    FP16 = 4;
    FP32 = 5;
    FP64 = 6;
    LOD_TENSOR = 7;
    SELECTED_ROWS = 8;
    FEED_MINIBATCH = 9;
    FETCH_LIST = 10;
    STEP_SCOPES = 11;
    LOD_RANK_TABLE = 12;
    LOD_TENSOR_ARRAY = 13;
    PLACE_LIST = 14;
    READER = 15;
    RAW = 17;
    TUPLE = 18;
    SIZE_T = 19;
    UINT8 = 20;
    INT8 = 21;
    BF16 = 22;
    COMPLEX64 = 23;
    COMPLEX128 = 24;
    STRING = 25;
    STRINGS = 26;
    VOCAB = 27;
    FEED_LIST = 28;
    PSTRING = 29;
    SPARSE_COO = 30;
    SPARSE_CSR = 31;
  }
  required Type type = 1;

  message TensorDesc {
    required Type data_type = 1;
    repeated int64 dims = 2;
  }
  optional TensorDesc selected_rows = 2;

  message LoDTensorDesc {
    required TensorDesc tensor = 1;
    optional int32 lod_level = 2 [ default = 0 ];
  }
  optional LoDTensorDesc lod_tensor = 3;

  message LoDTensorArrayDesc {
    required TensorDesc tensor = 1;
    optional int32 lod_level = 2 [ default = 0 ];
  }
  optional LoDTensorArrayDesc tensor_array = 4;

  message ReaderDesc { repeated LoDTensorDesc lod_tensor = 1; }
  optional ReaderDesc reader = 5;

  message Tuple { repeated Type element_type = 1; }
  optional Tuple tuple = 7;

  optional TensorDesc string = 8;
  optional TensorDesc strings = 9;
  optional TensorDesc vocab = 10;
  optional TensorDesc sparse_coo = 11;
}

message VarDesc {
  message Attr {
    required bytes name = 1;
    required AttrType type = 2;
    optional int32 i = 3;
    optional bytes s = 4;
    repeated int32 ints = 5;
  }
  required bytes name = 1;
  required VarType type = 2;
  optional bool persistable = 3 [ default = false ];
  optional bool need_check_feed = 4 [ default = false ];
  optional bool is_parameter = 5 [ default = false ];
  optional bool stop_gradient = 6 [ default = false ];
  repeated Attr attrs = 7;
}

message BlockDesc {
  required int32 idx = 1;
  required int32 parent_idx = 2;
  repeated VarDesc vars = 3;
  repeated OpDesc ops = 4;
  optional int32 forward_block_idx = 5 [ default = -1 ];
}

message OpVersion { required int32 version = 1; }

message OpVersionMap {
  message OpVersionPair {
    required bytes op_name = 1;
    required OpVersion op_version = 2;
  }
  repeated OpVersionPair pair = 1;
}

message ProgramDesc {
  reserved 2, 3;
  repeated BlockDesc blocks = 1;
  optional Version version = 4;
  optional OpVersionMap op_version_map = 5;
}
)proto";
// clang-format on

namespace detail {

/// Parses the subset of the .proto language used by `framework_proto`.
class proto_subset_parser {
public:
    explicit proto_subset_parser(std::string_view text)
        : input_(text.data(), static_cast<int>(text.size())), tok_(&input_, &errors_) {
        tok_.Next();
    }

    google::protobuf::FileDescriptorProto parse(const std::string& file_name) {
        google::protobuf::FileDescriptorProto file;
        file.set_name(file_name);
        while (!at_end()) {
            if (try_consume("syntax")) {
                expect("=");
                file.set_syntax(take_string());
                expect(";");
            } else if (try_consume("package")) {
                file.set_package(take_dotted());
                expect(";");
            } else if (try_consume("message")) {
                parse_message(file.add_message_type());
            } else if (try_consume("enum")) {
                parse_enum(file.add_enum_type());
            } else if (!try_consume(";")) {
                fail("expected a top-level declaration");
            }
        }
        return file;
    }

private:
    using token = google::protobuf::io::Tokenizer::TokenType;

    struct collector : google::protobuf::io::ErrorCollector {
        void AddError(int line, google::protobuf::io::ColumnNumber column,
                      const std::string& message) override {
            throw error("framework.proto (embedded) line " + std::to_string(line + 1) + ":" +
                        std::to_string(column + 1) + ": " + message);
        }
    };

    bool at_end() const { return tok_.current().type == token::TYPE_END; }
    const std::string& text() const { return tok_.current().text; }
    [[noreturn]] void fail(const std::string& what) const {
        throw error("framework.proto (embedded) line " + std::to_string(tok_.current().line + 1) +
                    ": " + what + " at '" + text() + "'");
    }
    bool try_consume(std::string_view t) {
        if (at_end() || text() != t) return false;
        tok_.Next();
        return true;
    }
    void expect(std::string_view t) {
        if (!try_consume(t)) fail("expected '" + std::string(t) + "'");
    }
    std::string take_identifier() {
        if (tok_.current().type != token::TYPE_IDENTIFIER) fail("expected an identifier");
        std::string r = text();
        tok_.Next();
        return r;
    }
    std::string take_dotted() {
        std::string r = take_identifier();
        while (try_consume(".")) {
            r += '.';  // two appends: GCC 12 warns falsely (-Wrestrict) on "." + s
            r += take_identifier();
        }
        return r;
    }
    std::string take_string() {
        if (tok_.current().type != token::TYPE_STRING) fail("expected a string");
        std::string r;
        google::protobuf::io::Tokenizer::ParseString(text(), &r);
        tok_.Next();
        return r;
    }
    long long take_integer() {
        bool negative = try_consume("-");
        if (tok_.current().type != token::TYPE_INTEGER) fail("expected an integer");
        std::uint64_t v = 0;
        if (!google::protobuf::io::Tokenizer::ParseInteger(text(), 0x7fffffff, &v))
            fail("integer out of range");
        tok_.Next();
        return negative ? -static_cast<long long>(v) : static_cast<long long>(v);
    }
    // A default value as FieldDescriptorProto::default_value spells it.
    std::string take_default() {
        std::string r;
        if (try_consume("-")) r.push_back('-');  // not r = "-": GCC 12 -Wrestrict false positive
        if (tok_.current().type == token::TYPE_STRING) return take_string();
        r += text();
        tok_.Next();
        return r;
    }

    void parse_enum(google::protobuf::EnumDescriptorProto* e) {
        e->set_name(take_identifier());
        expect("{");
        while (!try_consume("}")) {
            if (try_consume(";")) continue;
            auto* v = e->add_value();
            v->set_name(take_identifier());
            expect("=");
            v->set_number(static_cast<int>(take_integer()));
            expect(";");
        }
        try_consume(";");
    }

    void parse_message(google::protobuf::DescriptorProto* m) {
        using F = google::protobuf::FieldDescriptorProto;
        m->set_name(take_identifier());
        expect("{");
        while (!try_consume("}")) {
            if (try_consume(";")) continue;
            if (try_consume("message")) {
                parse_message(m->add_nested_type());
            } else if (try_consume("enum")) {
                parse_enum(m->add_enum_type());
            } else if (try_consume("reserved")) {
                do {
                    auto* r = m->add_reserved_range();
                    auto start = take_integer();
                    auto end = try_consume("to") ? take_integer() : start;
                    r->set_start(static_cast<int>(start));
                    r->set_end(static_cast<int>(end + 1));
                } while (try_consume(","));
                expect(";");
            } else {
                auto* f = m->add_field();
                if (try_consume("optional"))
                    f->set_label(F::LABEL_OPTIONAL);
                else if (try_consume("required"))
                    f->set_label(F::LABEL_REQUIRED);
                else if (try_consume("repeated"))
                    f->set_label(F::LABEL_REPEATED);
                else
                    fail("expected a field label");
                std::string type = take_dotted();
                if (auto scalar = scalar_type(type))
                    f->set_type(*scalar);
                else
                    f->set_type_name(type);  // resolved by the pool (message or enum)
                f->set_name(take_identifier());
                expect("=");
                f->set_number(static_cast<int>(take_integer()));
                if (try_consume("[")) {
                    expect("default");
                    expect("=");
                    f->set_default_value(take_default());
                    expect("]");
                }
                expect(";");
            }
        }
        try_consume(";");
    }

    static std::optional<google::protobuf::FieldDescriptorProto::Type> scalar_type(
        std::string_view t) {
        using F = google::protobuf::FieldDescriptorProto;
        if (t == "int32") return F::TYPE_INT32;
        if (t == "int64") return F::TYPE_INT64;
        if (t == "uint32") return F::TYPE_UINT32;
        if (t == "uint64") return F::TYPE_UINT64;
        if (t == "bool") return F::TYPE_BOOL;
        if (t == "float") return F::TYPE_FLOAT;
        if (t == "double") return F::TYPE_DOUBLE;
        if (t == "string") return F::TYPE_STRING;
        if (t == "bytes") return F::TYPE_BYTES;
        return std::nullopt;
    }

    google::protobuf::io::ArrayInputStream input_;
    collector errors_;
    mutable google::protobuf::io::Tokenizer tok_;
};

}  // namespace detail

/// The schema, built once: the pool, a message factory and the descriptors the
/// loader and writer use.
struct schema {
    google::protobuf::DescriptorPool pool;
    mutable google::protobuf::DynamicMessageFactory factory{&pool};
    const google::protobuf::Descriptor* program = nullptr;
    const google::protobuf::Descriptor* tensor_desc = nullptr;

    schema() {
        auto file = detail::proto_subset_parser(framework_proto).parse("framework.proto");
        if (!pool.BuildFile(file))
            throw error("framework.proto (embedded) does not build a descriptor pool");
        program = pool.FindMessageTypeByName("paddle.framework.proto.ProgramDesc");
        tensor_desc = pool.FindMessageTypeByName("paddle.framework.proto.VarType.TensorDesc");
        if (!program || !tensor_desc) throw error("framework.proto (embedded) lacks ProgramDesc");
    }

    /// A new, empty message of type `d`.
    std::unique_ptr<google::protobuf::Message> make(const google::protobuf::Descriptor* d) const {
        return std::unique_ptr<google::protobuf::Message>(factory.GetPrototype(d)->New());
    }

    static const schema& get() {
        static const schema s;  // thread-safe one-time initialisation
        return s;
    }
};

}  // namespace litegraph::paddle
