// Files of the tests that run the CLI: an empty folder per test under the
// build folder, and a path quoted for the command line test::run_cli hands
// to the shell.
#pragma once

#include <filesystem>
#include <string>

namespace litegraph::test {

/// The folder LITEGRAPH_BINARY_DIR/test-scratch/`sub`, emptied and created.
inline std::filesystem::path scratch(const std::filesystem::path& sub) {
    auto p = std::filesystem::path(LITEGRAPH_BINARY_DIR) / "test-scratch" / sub;
    std::filesystem::remove_all(p);
    std::filesystem::create_directories(p);
    return p;
}

/// `p` in single quotes, one word of a shell command line.
inline std::string quoted(const std::filesystem::path& p) {
    return "'" + p.string() + "'";
}

}  // namespace litegraph::test
