// A consumer of litegraph::paddle (an installed prefix, or
// single_include/litegraph_paddle.hpp): saves the one-op scale graph as a
// Paddle model with the writer, loads it back with the loader (protobuf),
// runs it and checks every number.  Exits non-zero on any mismatch or error.
#if defined(LITEGRAPH_SINGLE_HEADER)
#include <litegraph_paddle.hpp>
#else
#include <litegraph.hpp>
#include <litegraph/paddle.hpp>
#endif

#include <unistd.h>

#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>

#include "scale_check.hpp"

int main() {
    namespace fs = std::filesystem;
    const fs::path dir =
        fs::temp_directory_path() / ("litegraph-paddle-consumer-" + std::to_string(::getpid()));
    int failures = 0;
    try {
        litegraph::paddle::save(consumer::scale_graph(), dir);
        auto model = litegraph::paddle::load(dir);
        litegraph::runtime::program p(std::move(model.graph));
        failures = consumer::check_program(p);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "FAILED: %s\n", e.what());
        failures = -1;
    }
    std::error_code ec;
    fs::remove_all(dir, ec);
    if (failures != 0) {
        if (failures > 0) std::fprintf(stderr, "FAILED: %d wrong values\n", failures);
        return 1;
    }
    std::puts("litegraph paddle consumer: ok (saved, loaded and ran a Paddle model)");
    return 0;
}
