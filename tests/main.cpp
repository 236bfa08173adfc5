// The doctest main every test executable shares.  In the main of the tests
// that run ops (LITEGRAPH_TEST_RECORD_OP_SEEDS, tests/CMakeLists.txt), with
// LITEGRAPH_RECORD_OP_SEEDS=DIR set in the environment, the op cases the
// tests run are also written as fuzz seeds (tests/fuzz/op_seeds.hpp,
// tools/record-op-seeds.sh).  The kernel tests' main includes no op: they may
// be built for another instruction set than the ops' inline kernels here.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#ifdef LITEGRAPH_TEST_RECORD_OP_SEEDS
#include "fuzz/op_seeds.hpp"

namespace {
[[maybe_unused]] const bool recording = litegraph::fuzz::op_seeds::install();
}
#endif
