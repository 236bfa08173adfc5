// libFuzzer target: the params path of tests/fuzz/harness.hpp.  A litegraph::error
// is a rejected input; anything else aborts the run (a bug).
#include "fuzz/harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        litegraph::fuzz::run(litegraph::fuzz::target::params,
                             {reinterpret_cast<const char*>(data), size});
    } catch (const litegraph::error&) {
    }
    return 0;
}
