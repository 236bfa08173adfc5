// Reading and writing dynamic protobuf messages by field name (the loader has no
// generated classes; see framework_proto.hpp).
#pragma once

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include <cstdint>
#include <string>

#include "litegraph/core/error.hpp"

namespace litegraph::paddle::detail {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

inline const FieldDescriptor* field(const Message& m, const char* name) {
    const FieldDescriptor* f = m.GetDescriptor()->FindFieldByName(name);
    if (!f) throw error("framework.proto: " + m.GetDescriptor()->name() + " has no field " + name);
    return f;
}

// Singular reads (the field's default when absent).
inline bool has(const Message& m, const char* n) {
    return m.GetReflection()->HasField(m, field(m, n));
}
inline std::int32_t get_i32(const Message& m, const char* n) {
    return m.GetReflection()->GetInt32(m, field(m, n));
}
inline std::int64_t get_i64(const Message& m, const char* n) {
    return m.GetReflection()->GetInt64(m, field(m, n));
}
inline bool get_bool(const Message& m, const char* n) {
    return m.GetReflection()->GetBool(m, field(m, n));
}
inline float get_f32(const Message& m, const char* n) {
    return m.GetReflection()->GetFloat(m, field(m, n));
}
inline double get_f64(const Message& m, const char* n) {
    return m.GetReflection()->GetDouble(m, field(m, n));
}
inline std::string get_str(const Message& m, const char* n) {
    return m.GetReflection()->GetString(m, field(m, n));
}
inline int get_enum(const Message& m, const char* n) {
    return m.GetReflection()->GetEnumValue(m, field(m, n));
}
inline const Message& get_msg(const Message& m, const char* n) {
    return m.GetReflection()->GetMessage(m, field(m, n));
}

// Repeated reads.
inline int count(const Message& m, const char* n) {
    return m.GetReflection()->FieldSize(m, field(m, n));
}
inline const Message& at_msg(const Message& m, const char* n, int i) {
    return m.GetReflection()->GetRepeatedMessage(m, field(m, n), i);
}
inline std::int32_t at_i32(const Message& m, const char* n, int i) {
    return m.GetReflection()->GetRepeatedInt32(m, field(m, n), i);
}
inline std::int64_t at_i64(const Message& m, const char* n, int i) {
    return m.GetReflection()->GetRepeatedInt64(m, field(m, n), i);
}
inline float at_f32(const Message& m, const char* n, int i) {
    return m.GetReflection()->GetRepeatedFloat(m, field(m, n), i);
}
inline double at_f64(const Message& m, const char* n, int i) {
    return m.GetReflection()->GetRepeatedDouble(m, field(m, n), i);
}
inline bool at_bool(const Message& m, const char* n, int i) {
    return m.GetReflection()->GetRepeatedBool(m, field(m, n), i);
}
inline std::string at_str(const Message& m, const char* n, int i) {
    return m.GetReflection()->GetRepeatedString(m, field(m, n), i);
}

// Writes.
inline void set_i32(Message& m, const char* n, std::int32_t v) {
    m.GetReflection()->SetInt32(&m, field(m, n), v);
}
inline void set_i64(Message& m, const char* n, std::int64_t v) {
    m.GetReflection()->SetInt64(&m, field(m, n), v);
}
inline void set_bool(Message& m, const char* n, bool v) {
    m.GetReflection()->SetBool(&m, field(m, n), v);
}
inline void set_f32(Message& m, const char* n, float v) {
    m.GetReflection()->SetFloat(&m, field(m, n), v);
}
inline void set_f64(Message& m, const char* n, double v) {
    m.GetReflection()->SetDouble(&m, field(m, n), v);
}
inline void set_str(Message& m, const char* n, const std::string& v) {
    m.GetReflection()->SetString(&m, field(m, n), v);
}
inline void set_enum(Message& m, const char* n, int v) {
    m.GetReflection()->SetEnumValue(&m, field(m, n), v);
}
inline Message& mut_msg(Message& m, const char* n) {
    return *m.GetReflection()->MutableMessage(&m, field(m, n));
}
inline Message& add_msg(Message& m, const char* n) {
    return *m.GetReflection()->AddMessage(&m, field(m, n));
}
inline void add_i32(Message& m, const char* n, std::int32_t v) {
    m.GetReflection()->AddInt32(&m, field(m, n), v);
}
inline void add_i64(Message& m, const char* n, std::int64_t v) {
    m.GetReflection()->AddInt64(&m, field(m, n), v);
}
inline void add_f32(Message& m, const char* n, float v) {
    m.GetReflection()->AddFloat(&m, field(m, n), v);
}
inline void add_f64(Message& m, const char* n, double v) {
    m.GetReflection()->AddDouble(&m, field(m, n), v);
}
inline void add_bool(Message& m, const char* n, bool v) {
    m.GetReflection()->AddBool(&m, field(m, n), v);
}
inline void add_str(Message& m, const char* n, const std::string& v) {
    m.GetReflection()->AddString(&m, field(m, n), v);
}

}  // namespace litegraph::paddle::detail
