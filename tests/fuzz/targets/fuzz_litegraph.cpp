// The libFuzzer targets of tests/fuzz/harness.hpp in one executable, which
// builds once: it runs as fuzz_topology, fuzz_params, fuzz_model, fuzz_pir,
// fuzz_plan or fuzz_fusion (links to it, named by their target;
// tests/fuzz/CMakeLists.txt), or as fuzz_litegraph with
// LITEGRAPH_FUZZ_TARGET=topology|params|model|pir|plan|fusion (fuzz_plan and
// fuzz_fusion are differential: tests/fuzz/plan_target.hpp, fusion_target.hpp).
// A litegraph::error is a rejected input; anything else aborts the run (a bug),
// and so does an allocation over the bound of docs/hardening.md (alloc_bound.hpp).
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

#include "fuzz/alloc_bound.hpp"
#include "fuzz/harness.hpp"

namespace {

litegraph::fuzz::target chosen = litegraph::fuzz::target::model;

bool choose(std::string_view name) {
    using litegraph::fuzz::target;
    if (name == "topology") return chosen = target::topology, true;
    if (name == "params") return chosen = target::params, true;
    if (name == "model") return chosen = target::model, true;
    if (name == "pir") return chosen = target::pir, true;
    if (name == "plan") return chosen = target::plan, true;
    if (name == "fusion") return chosen = target::fusion, true;
    return false;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
    std::string_view self = *argc > 0 ? (*argv)[0] : "";
    if (const auto slash = self.rfind('/'); slash != std::string_view::npos)
        self.remove_prefix(slash + 1);
    const char* env = std::getenv("LITEGRAPH_FUZZ_TARGET");
    const bool ok = self.starts_with("fuzz_") && choose(self.substr(5)) ? true
                    : env                                               ? choose(env)
                                                                        : false;
    if (!ok) {
        std::fprintf(stderr,
                     "fuzz_litegraph: run it as fuzz_topology, fuzz_params, fuzz_model, fuzz_pir, "
                     "fuzz_plan or fuzz_fusion, or set "
                     "LITEGRAPH_FUZZ_TARGET=topology|params|model|pir|plan|fusion\n");
        std::exit(2);
    }
    const char* kernels = std::getenv("LITEGRAPH_FUZZ_RUN_KERNELS");
    litegraph::fuzz::run_kernels() = kernels && std::string_view(kernels) == "1";
    litegraph::fuzz::alloc_bound::install();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        litegraph::fuzz::run(chosen, {reinterpret_cast<const char*>(data), size});
    } catch (const litegraph::error&) {
    } catch (const std::logic_error& e) {  // a differential target's finding
        std::fprintf(stderr, "==finding== %s\n", e.what());
        std::abort();
    }
    litegraph::fuzz::alloc_bound::check(chosen == litegraph::fuzz::target::model ||
                                        chosen == litegraph::fuzz::target::pir);
    return 0;
}
