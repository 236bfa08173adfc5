// The PIR loader's JSON layer: parsing with a depth cap, and reading members
// of the expected kinds, each failure a json_error naming the JSON path
// (docs/paddle-pir.md).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "litegraph/core/error.hpp"
#include "litegraph/loader/paddle/types.hpp"

namespace litegraph::paddle::pir {

/// JSON nested deeper than this is a format_error while parsing (nlohmann's
/// parser keeps a stack per level; real programs nest about 12 levels, each
/// control-flow region adds 5).
inline constexpr int max_json_depth = 256;
/// A `1.full` of at most this many elements is folded into a constant at load;
/// a larger one becomes a fill_constant op, which the runtime sizes under its
/// caps (program_limits), so that a tiny JSON node never allocates much.
inline constexpr std::int64_t max_folded_full = 256;

/// Whether `bytes` looks like a PIR JSON program rather than a ProgramDesc: its
/// first byte is '{' (field 15 with the group wire type in protobuf, which no
/// Paddle program has).
inline bool looks_like_json(std::string_view bytes) {
    return !bytes.empty() && bytes.front() == '{';
}

namespace detail {

using json = nlohmann::json;

inline std::string type_name(const json& j) {
    return j.type_name();
}

/// Parses JSON text with a depth cap; syntax errors are format_errors with the byte offset.
inline json parse_json(std::string_view bytes, const std::string& file) {
    try {
        return json::parse(bytes.begin(), bytes.end(), [&](int depth, json::parse_event_t, json&) {
            if (depth > max_json_depth)
                throw format_error(
                    file, 0,
                    "JSON nested deeper than " + std::to_string(max_json_depth) + " levels");
            return true;
        });
    } catch (const json::parse_error& e) {
        std::string what = e.what();
        // "[json.exception.parse_error.101] parse error at line 1, column 2: ..."
        if (auto p = what.find("] "); p != std::string::npos) what = what.substr(p + 2);
        const std::uint64_t at = e.byte > 0 ? e.byte - 1 : 0;
        throw format_error(file, at, "not a PIR program (invalid JSON): " + what);
    }
}

/// Reading a JSON value of an expected kind; every failure names the JSON path.
class json_reader {
protected:
    explicit json_reader(std::string file) : file_(std::move(file)) {}

    [[noreturn]] void fail(const std::string& path, const std::string& what) const {
        throw json_error(file_, path, what);
    }
    [[noreturn]] void unsupported(const std::string& path, const std::string& what) const {
        throw unsupported_error(file_ + ": " + path + ": " + what);
    }
    static std::string clip(const std::string& s) {
        return s.size() > 64 ? s.substr(0, 64) + "..." : s;
    }

    const json& member(const json& obj, const char* key, const std::string& path) const {
        if (!obj.is_object()) fail(path, "expected an object, got " + type_name(obj));
        auto it = obj.find(key);
        if (it == obj.end()) fail(path, std::string("missing \"") + key + "\"");
        return *it;
    }
    const json& array_member(const json& obj, const char* key, const std::string& path) const {
        const auto& a = member(obj, key, path);
        if (!a.is_array()) fail(path + "." + key, "expected an array, got " + type_name(a));
        return a;
    }
    std::int64_t as_int(const json& j, const std::string& path) const {
        if (j.is_number_integer()) return j.get<std::int64_t>();
        if (j.is_number_unsigned()) {
            auto u = j.get<std::uint64_t>();
            if (u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
                return static_cast<std::int64_t>(u);
            fail(path, "integer " + std::to_string(u) + " is out of the int64 range");
        }
        if (j.is_number_float()) {
            // Integers written as 3.0 are integers; others are not.
            const double d = j.get<double>();
            if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.2e18)
                return static_cast<std::int64_t>(d);
        }
        fail(path, "expected an integer, got " + (j.is_number() ? j.dump() : type_name(j)));
    }
    double as_double(const json& j, const std::string& path) const {
        if (!j.is_number()) fail(path, "expected a number, got " + type_name(j));
        const double d = j.get<double>();
        if (!std::isfinite(d)) fail(path, "the number is not finite");
        return d;
    }
    const std::string& as_string(const json& j, const std::string& path) const {
        if (!j.is_string()) fail(path, "expected a string, got " + type_name(j));
        return j.get_ref<const std::string&>();
    }
    bool as_bool(const json& j, const std::string& path) const {
        if (j.is_boolean()) return j.get<bool>();
        if (j.is_number_integer() || j.is_number_unsigned()) return as_int(j, path) != 0;
        fail(path, "expected a boolean, got " + type_name(j));
    }
    float to_float(double d, const std::string& path) const {
        if (std::fabs(d) > static_cast<double>(std::numeric_limits<float>::max()))
            fail(path, "number " + std::to_string(d) + " is out of the float32 range");
        return static_cast<float>(d);
    }

    std::string file_;
};

}  // namespace detail

}  // namespace litegraph::paddle::pir
