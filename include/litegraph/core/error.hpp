// Typed errors: every failure names what is at fault (file and byte offset,
// op and variable, CLI argument) so that a user can act on it.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

// LITEGRAPH_THROW(e) throws e; built without exceptions (firmware:
// -fno-exceptions), it traps instead and never evaluates e, so headers that
// the firmware includes compile and build no message strings.  The firmware
// path itself never reaches one: its shapes were checked on the desktop.
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
#define LITEGRAPH_THROW(...) throw __VA_ARGS__
#else
#define LITEGRAPH_THROW(...) \
    (static_cast<void>(sizeof(__VA_ARGS__)), ::litegraph::detail::exceptions_disabled())
#endif

namespace litegraph {

namespace detail {
[[noreturn]] inline void exceptions_disabled() {
    __builtin_trap();
}
}  // namespace detail

/// Base of every error litegraph throws.
class error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// A model file is malformed: names the file and the byte offset at fault.
class format_error : public error {
public:
    format_error(std::string file, std::uint64_t offset, const std::string& what)
        : error(file + " at byte " + std::to_string(offset) + ": " + what),
          file_(std::move(file)),
          offset_(offset) {}
    const std::string& file() const noexcept { return file_; }
    std::uint64_t offset() const noexcept { return offset_; }

protected:
    struct whole_message {};
    /// For faults located otherwise than by a byte offset: `message` is the whole text.
    format_error(whole_message, std::string file, const std::string& message)
        : error(message), file_(std::move(file)), offset_(0) {}

private:
    std::string file_;
    std::uint64_t offset_;
};

/// A JSON model file (a Paddle 3.x PIR program) is malformed: names the file
/// and the JSON path of the node at fault, e.g. `ops[57].I[1]` (the ops of the
/// program's top block; a nested block is `ops[12].regions[0].blocks[0].ops[3]`).
/// offset() is 0: a parsed JSON node has no byte offset (syntax errors, found
/// before there are nodes, are plain format_errors with the byte offset).
class json_error : public format_error {
public:
    json_error(std::string file, std::string path, const std::string& what)
        : format_error(whole_message{}, file, file + ": " + path + ": " + what),
          path_(std::move(path)) {}
    const std::string& path() const noexcept { return path_; }

private:
    std::string path_;
};

/// A file cannot be found or read.
class io_error : public error {
public:
    using error::error;
};

/// The graph is inconsistent (cycle, missing producer, dangling variable).
class graph_error : public error {
public:
    using error::error;
};

/// An op type (or an attribute value of it) that litegraph does not support.
class unsupported_error : public error {
public:
    using error::error;
};

/// Shapes or dtypes do not fit an op: names the op and the argument.
class shape_error : public error {
public:
    using error::error;
};

/// A bad argument from the user of the API or the CLI.
class usage_error : public error {
public:
    using error::error;
};

}  // namespace litegraph
