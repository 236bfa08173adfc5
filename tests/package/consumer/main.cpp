// A consumer of litegraph::litegraph (an installed prefix, or
// single_include/litegraph.hpp): builds y = 2 * x + 0.5 with graph::builder
// and one `scale` op, runs it with runtime::program and checks every number.
// Exits non-zero on any mismatch or error.
#include <litegraph.hpp>

#ifdef GOOGLE_PROTOBUF_VERSION
#error "<litegraph.hpp> must never include protobuf"
#endif

#include <cstdio>
#include <exception>

#include "scale_check.hpp"

int main() {
    try {
        litegraph::runtime::program p(consumer::scale_graph());
        if (int failures = consumer::check_program(p); failures != 0) {
            std::fprintf(stderr, "FAILED: %d wrong values\n", failures);
            return 1;
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "FAILED: %s\n", e.what());
        return 1;
    }
    std::puts("litegraph consumer: ok");
    return 0;
}
