// libFuzzer target: the topology path of tests/fuzz/harness.hpp.  A litegraph::error
// is a rejected input; anything else aborts the run (a bug), and so does an
// allocation over the bound of docs/hardening.md (alloc_bound.hpp).
#include "fuzz/alloc_bound.hpp"
#include "fuzz/harness.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    litegraph::fuzz::alloc_bound::install();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        litegraph::fuzz::run(litegraph::fuzz::target::topology,
                             {reinterpret_cast<const char*>(data), size});
    } catch (const litegraph::error&) {
    }
    litegraph::fuzz::alloc_bound::check(false);
    return 0;
}
