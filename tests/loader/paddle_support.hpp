// Helpers of the loader tests: scratch folders under the build tree and byte edits.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

#include "litegraph/paddle.hpp"
#include "support.hpp"

namespace litegraph::test {

inline std::string read_bytes(const std::filesystem::path& p) {
    std::ifstream f(p, std::ios::binary);
    REQUIRE(f);
    return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

inline void write_bytes(const std::filesystem::path& p, const std::string& bytes) {
    std::ofstream f(p, std::ios::binary | std::ios::trunc);
    REQUIRE(f);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

/// A fresh, empty scratch folder in the build tree.
inline std::filesystem::path scratch(const std::string& name) {
    auto dir = std::filesystem::path(LITEGRAPH_BINARY_DIR) / "scratch" / "loader" / name;
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

/// The files of a shared model copied (writable) into a scratch folder.
inline std::filesystem::path copy_model(const std::filesystem::path& src, const std::string& name) {
    auto dir = scratch(name);
    for (auto& e : std::filesystem::directory_iterator(src))
        if (e.is_regular_file()) write_bytes(dir / e.path().filename(), read_bytes(e.path()));
    return dir;
}

/// The error `f` throws as E (failing the test when it throws nothing or another type).
template <class E, class F>
E expect_error(F&& f) {
    try {
        f();
    } catch (const E& e) {
        return e;
    } catch (const std::exception& e) {
        FAIL("threw another error: " << e.what());
        throw;
    }
    FAIL("no error thrown");
    throw std::logic_error("unreachable");
}

}  // namespace litegraph::test
