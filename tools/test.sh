#!/usr/bin/env bash
# The test command: configure, build everything, run every test with ctest,
# all of it under AddressSanitizer and UndefinedBehaviorSanitizer: the unit
# and model tests, the CLI and its tests, the OpenCL backend, the examples, the
# compile-time and must-not-compile tests, the firmware tests (Cortex-M builds
# under QEMU, driven by the sanitized CLI), the packaging tests (install to a
# prefix, then build and run tests/package/consumer with CMake find_package,
# meson dependency() and meson subproject) and the single-header tests.
# The sanitized build is -O0 except the op tables and planner tests
# (CMakeLists.txt, tests/CMakeLists.txt): it builds in about the time of an
# -O1 build and the suite still runs in minutes.  It is built with clang++-14
# (tools/install-deps.sh installs it for the fuzz targets): the same build
# takes gcc 12 about twice the CPU time.  LITEGRAPH_SANITIZE_CXX names another
# compiler (LITEGRAPH_SANITIZE_CXX=g++ for GCC's sanitizers).
#
#   tools/test.sh                  # ASan+UBSan build in build-test/ (what CI runs)
#   tools/test.sh --no-sanitize    # plain Release build (tests at -O1) in build-plain/
#   tools/test.sh --benchmarks     # also build the benchmark executables (use with
#                                  # --no-sanitize for figures that mean anything)
#   tools/test.sh --tsan           # ThreadSanitizer build in build-tsan/ of the tests
#                                  # that use threads (the pool, the split ops, a model
#                                  # run by 4 threads at once); slow, not run by CI
#   tools/test.sh --arch aarch64   # the aarch64 cross build (cmake/aarch64-linux-gnu.cmake,
#                                  # Release, no sanitizers) in build-aarch64/: the CLI,
#                                  # the kernel, model and CLI tests, run under
#                                  # qemu-aarch64 (docs/building.md, "ARM64")
#   tools/test.sh --arch aarch64 --kernels-only
#                                  # only the kernel tests (each also per instruction
#                                  # set: neon, neon-dotprod): what CI runs for aarch64
#   tools/test.sh --build-dir DIR  # another build directory
#   tools/test.sh -- -R ops/       # extra arguments after -- go to ctest
#
# Environment: LITEGRAPH_JOBS (default 2) for the build and ctest;
# LITEGRAPH_SANITIZE_CXX (default clang++-14) the sanitized build's compiler;
# LITEGRAPH_SHARED to point the model tests at another shared/ folder;
# ASAN_OPTIONS, UBSAN_OPTIONS and LSAN_OPTIONS replace its sanitizer defaults
# (leak checks on, the OpenCL driver's own leaks suppressed: tools/lsan.supp).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
sanitize=ON
tsan=OFF
benchmarks=OFF
arch=""
kernels_only=OFF
build_dir=""
ctest_args=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --no-sanitize) sanitize=OFF ;;
        --sanitize) sanitize=ON ;;  # the default; kept for older scripts
        --tsan) tsan=ON; sanitize=OFF ;;
        --benchmarks) benchmarks=ON ;;
        --arch)
            [[ "${2:-}" == aarch64 ]] || {
                echo "tools/test.sh: --arch takes aarch64 (the one cross build there is)" >&2
                exit 2
            }
            arch=aarch64; sanitize=OFF; shift ;;
        --kernels-only) kernels_only=ON ;;
        --build-dir)
            [[ $# -ge 2 ]] || { echo "tools/test.sh: --build-dir needs a directory" >&2; exit 2; }
            build_dir="$2"; shift ;;
        --) shift; ctest_args=("$@"); break ;;
        -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
        *) echo "tools/test.sh: unknown argument: $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done
if [[ $kernels_only == ON && -z "$arch" ]]; then
    echo "tools/test.sh: --kernels-only goes with --arch aarch64" >&2
    exit 2
fi
if [[ -n "$arch" && $tsan == ON ]]; then
    echo "tools/test.sh: --tsan and --arch do not go together" >&2
    exit 2
fi
if [[ -z "$build_dir" ]]; then
    if [[ -n "$arch" ]]; then
        build_dir="$root/build-$arch"
    elif [[ $tsan == ON ]]; then
        build_dir="$root/build-tsan"
    elif [[ $sanitize == ON ]]; then build_dir="$root/build-test"; else build_dir="$root/build-plain"; fi
fi
jobs="${LITEGRAPH_JOBS:-2}"
# What --arch aarch64 builds and runs (see there).
aarch64_targets=(litegraph test_kernels_gemm test_kernels_conv test_kernels_conv_int8 test_kernels_pool
    test_kernels_fc test_kernels_quantize test_kernels_exp test_kernels_dispatch test_kernels_isa_table
    test_models test_tools_cli)
aarch64_tests='^(kernels/(gemm|conv|conv_int8|pool|fc|quantize|exp|dispatch|isa_table)(@.*)?|models/.*|tools/(cli|simd_aarch64))$'
if [[ $kernels_only == ON ]]; then
    aarch64_targets=(test_kernels_gemm test_kernels_conv test_kernels_conv_int8 test_kernels_quantize
        test_kernels_dispatch test_kernels_isa_table)
    aarch64_tests='^kernels/(gemm|conv|conv_int8|quantize|dispatch|isa_table)(@.*)?$'
fi

step() { printf '\n== %s\n' "$*"; }
start=$SECONDS

step "dependencies (tools/install-deps.sh${arch:+ --arch $arch})"
"$root/tools/install-deps.sh" ${arch:+--arch "$arch"}

# subset LABEL TESTS CMAKE_ARGS... -- TARGETS...: configure with CMAKE_ARGS,
# build TARGETS, run the ctest tests matching TESTS (or the arguments given
# after --), then exit.
subset() {
    local label="$1" tests="$2" cfg=() targets=()
    shift 2
    while [[ $# -gt 0 && "$1" != -- ]]; do cfg+=("$1"); shift; done
    shift
    targets=("$@")
    step "configure $build_dir ($label)"
    cmake -S "$root" -B "$build_dir" -G Ninja "${cfg[@]}"
    step "build ${targets[*]} (-j$jobs)"
    cmake --build "$build_dir" -j "$jobs" --target "${targets[@]}"
    echo "build took $((SECONDS - start)) s"
    step "ctest ($label)"
    cd "$build_dir"
    [[ ${#ctest_args[@]} -gt 0 ]] || ctest_args=(-R "$tests")
    ctest --output-on-failure -j "$jobs" "${ctest_args[@]}"
    echo "tools/test.sh: done in $((SECONDS - start)) s"
    exit 0
}

if [[ "$arch" == aarch64 ]]; then
    # The aarch64 build, its programs run by ctest through the toolchain's
    # emulator (qemu-aarch64 -L /; the tests that start the CLI go through
    # it too).  No sanitizers: ASan's shadow memory does not map under
    # qemu-user.  A subset, for time (the whole suite builds for aarch64 in
    # well over an hour on two cores): the kernel tests against their plain
    # loops, every model test (the shared models against their references,
    # int8, OCR, threads, ...) and the CLI's tests; `-- -R REGEX` after the
    # options builds the same targets and runs other tests of them.
    subset "aarch64 cross build, under qemu-aarch64" "$aarch64_tests" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_TOOLCHAIN_FILE="$root/cmake/aarch64-linux-gnu.cmake" -DLITEGRAPH_SANITIZE=OFF \
        -DLITEGRAPH_OPENCL=OFF -DLITEGRAPH_BUILD_BENCHMARKS=OFF -- "${aarch64_targets[@]}"
fi

if [[ $tsan == ON ]]; then
    # Only the tests that run threads: the pool and the fc kernel, the split
    # ops (matmul, conv, batch_norm, element-wise through the models, the SE
    # gate, the in-place stride-2 depthwise conv's ordered planes) and a model
    # run by 4 threads at once.
    export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}"
    subset ThreadSanitizer \
        '^(kernels/fc|ops/matmul|ops/conv2d|ops/batch_norm|ops/elementwise|ops/activation|runtime/in_place|fusion/fast_conv|models/threads)$' \
        -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLITEGRAPH_SANITIZE=OFF -DLITEGRAPH_TSAN=ON \
        -DLITEGRAPH_BUILD_BENCHMARKS=OFF -- test_kernels_fc test_ops test_models test_runtime test_fusion_fast_conv
fi

compiler=()
if [[ $sanitize == ON ]]; then
    cxx="${LITEGRAPH_SANITIZE_CXX:-clang++-14}"
    command -v "$cxx" > /dev/null || {
        echo "tools/test.sh: the sanitized build's compiler $cxx is not installed" \
            "(tools/install-deps.sh installs clang++-14; LITEGRAPH_SANITIZE_CXX=g++ uses GCC)" >&2
        exit 2
    }
    compiler=(-DCMAKE_CXX_COMPILER="$(command -v "$cxx")")
fi
step "configure $build_dir (sanitize=$sanitize${compiler:+, ${cxx:-}})"
# Benchmarks build only with --benchmarks (six large -O3 programs).
cmake -S "$root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "${compiler[@]}" \
    -DLITEGRAPH_SANITIZE="$sanitize" -DLITEGRAPH_BUILD_BENCHMARKS="$benchmarks"

step "build (-j$jobs)"
cmake --build "$build_dir" -j "$jobs"
echo "build took $((SECONDS - start)) s"

step "ctest"
if [[ $sanitize == ON ]]; then
    export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:strict_string_checks=1}"
    # The OpenCL driver's (PoCL/LLVM) own leaks, when it compiles kernels.
    export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$root/tools/lsan.supp:print_suppressions=0}"
    export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
fi
cd "$build_dir"
ctest --output-on-failure -j "$jobs" "${ctest_args[@]}"
echo "tools/test.sh: done in $((SECONDS - start)) s"
