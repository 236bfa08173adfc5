#!/usr/bin/env bash
# The test command: configure, build everything, run every test with ctest.
# The ctest suite includes the packaging tests (label `package`): install to a
# prefix, then build and run tests/package/consumer with CMake find_package,
# meson dependency() and meson subproject; and the single-header tests
# (label `single_include`).
#
#   tools/test.sh                  # Release build in build-test/
#   tools/test.sh --sanitize       # ASan+UBSan build in build-sanitize/ (no packaging tests)
#   tools/test.sh --benchmarks     # also build the benchmark executables
#   tools/test.sh --build-dir DIR  # another build directory
#   tools/test.sh -- -R ops/       # extra arguments after -- go to ctest
#
# Environment: LITEGRAPH_JOBS (default 2) for the build and ctest;
# LITEGRAPH_SHARED to point the model tests at another shared/ folder.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
sanitize=OFF
benchmarks=OFF
build_dir=""
ctest_args=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --sanitize) sanitize=ON ;;
        --benchmarks) benchmarks=ON ;;
        --build-dir) build_dir="$2"; shift ;;
        --) shift; ctest_args=("$@"); break ;;
        -h | --help) sed -n '2,15p' "$0"; exit 0 ;;
        *) echo "unknown argument: $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done
if [[ -z "$build_dir" ]]; then
    if [[ $sanitize == ON ]]; then build_dir="$root/build-sanitize"; else build_dir="$root/build-test"; fi
fi
jobs="${LITEGRAPH_JOBS:-2}"

step() { printf '\n== %s\n' "$*"; }
start=$SECONDS

step "dependencies (tools/install-deps.sh)"
"$root/tools/install-deps.sh"

step "configure $build_dir (sanitize=$sanitize)"
# The sanitizer pass checks the library's tests: not the benchmarks, not the
# CLI and its tests (a thin layer over the library; building and running it
# under ASan cost four minutes of CI), and without the OpenCL backend: the
# OpenCL driver (PoCL, an LLVM JIT in the process) is not ours to instrument;
# the subgraph machinery and its host fallback are still checked
# (tests/backends/subgraph.cpp).
# Benchmarks build only with --benchmarks (six large -O3 programs, a third of
# the build; CI's 30 minutes do not hold them beside two test builds).
extra=(-DLITEGRAPH_BUILD_BENCHMARKS="$benchmarks")
if [[ $sanitize == ON ]]; then
    extra+=(-DLITEGRAPH_OPENCL=OFF -DLITEGRAPH_BUILD_TOOLS=OFF)
fi
cmake -S "$root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DLITEGRAPH_SANITIZE="$sanitize" "${extra[@]}"

step "build (-j$jobs)"
cmake --build "$build_dir" -j "$jobs"
echo "build took $((SECONDS - start)) s"

step "ctest"
if [[ $sanitize == ON ]]; then
    export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:strict_string_checks=1}"
    export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
    ctest_args=(-LE package "${ctest_args[@]}")
fi
cd "$build_dir"
ctest --output-on-failure -j "$jobs" "${ctest_args[@]}"
echo "tools/test.sh: done in $((SECONDS - start)) s"
