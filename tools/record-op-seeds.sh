#!/usr/bin/env bash
# Makes every op the tests cover reachable by the fuzzers: runs the op tests
# (test_ops) with LITEGRAPH_RECORD_OP_SEEDS set, so that each op case they
# run is written as one-op models in fuzz_model's layout (tests/fuzz/op_seeds.hpp),
# and the PIR reader's test (test_loader, loader/paddle_pir.cpp), whose small programs are
# written in fuzz_pir's layout, and the writer's test (loader/paddle_roundtrip.cpp),
# whose hand-built ProgramDescs are written in fuzz_topology's, and the control-flow
# test (loader/paddle_control_flow.cpp), whose programs are written in fuzz_topology's
# and, run whole, in fuzz_model's; then merges those into
# the committed corpora tests/fuzz/corpus/model, .../pir and .../topology with libFuzzer's -merge=1
# (only the files that add coverage are kept).
#   tools/record-op-seeds.sh [--build-dir DIR] [--fuzz-build-dir DIR] [--out DIR]
#                            [--no-merge]
# --build-dir: a configured test build (default: build); the op tests are
#   built there first.  --fuzz-build-dir: the fuzz targets' build, as
#   .ci/fuzz.sh configures it (default: build-fuzz; configured when absent).
# --out: where the recorded seeds go (default: BUILD/op-seeds, emptied first).
# --no-merge: record only.  Check the size cap of tests/fuzz/corpus/README.md
# after merging, then commit.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$root/build"
fuzz_build="$root/build-fuzz"
out=""
merge=1
while [[ $# -gt 0 ]]; do
    case "$1" in
        --build-dir) build="$2"; shift 2 ;;
        --fuzz-build-dir) fuzz_build="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        --no-merge) merge=0; shift ;;
        -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "usage: $0 [--build-dir DIR] [--fuzz-build-dir DIR] [--out DIR] [--no-merge]" >&2
           exit 2 ;;
    esac
done
[[ -f "$build/build.ninja" || -f "$build/Makefile" ]] ||
    { echo "error: $build is not a configured build (cmake -S . -B $build)" >&2; exit 2; }
out="${out:-$build/op-seeds}"

# The op tests and the PIR reader's test (its file of test_loader).
tests=(test_ops test_loader)
echo "==== building ${tests[*]} in $build"
cmake --build "$build" --target "${tests[@]}"

rm -rf "$out"
mkdir -p "$out"
for t in "${tests[@]}"; do
    args=()
    [[ $t == test_loader ]] && args=('--source-file=*/loader/paddle_pir.cpp,*/loader/paddle_roundtrip.cpp,*/loader/paddle_control_flow.cpp')
    LITEGRAPH_RECORD_OP_SEEDS="$out" "$build/tests/$t" "${args[@]}" >/dev/null ||
        { echo "error: $t failed; record from a passing build" >&2; exit 1; }
done
echo "recorded $(find "$out" -maxdepth 1 -type f | wc -l) model seeds of" \
    "$(find "$out" -maxdepth 1 -type f -printf '%f\n' | sed 's/-[0-9]*-[0-9]*-[a-z]*\.bin$//' | sort -u | wc -l)" \
    "op types, $(find "$out/pir" -type f 2>/dev/null | wc -l) PIR seeds," \
    "$(find "$out/topology" -type f 2>/dev/null | wc -l) topology seeds, in $out"
[[ $merge == 1 ]] || exit 0

if ! grep -q '^LITEGRAPH_FUZZ:BOOL=ON' "$fuzz_build/CMakeCache.txt" 2>/dev/null; then
    # As .ci/fuzz.sh configures it (clang with libFuzzer, ASan+UBSan).
    CXX="${CXX:-clang++-14}" cmake -S "$root" -B "$fuzz_build" -G Ninja \
        -DCMAKE_BUILD_TYPE=Release -DLITEGRAPH_FUZZ=ON -DLITEGRAPH_BUILD_TESTS=OFF \
        -DLITEGRAPH_BUILD_TOOLS=OFF -DLITEGRAPH_INSTALL=OFF >/dev/null
fi
cmake --build "$fuzz_build" --target fuzz_litegraph
merge() {  # target, recorded folder
    local tree="$root/tests/fuzz/corpus/$1" log="$build/op-seeds.$1.merge.log"
    mkdir -p "$tree"
    echo "==== merging $2 into $tree"
    "$fuzz_build/fuzz/fuzz_$1" -merge=1 -max_len=32768 -timeout=10 -rss_limit_mb=2560 \
        "$tree" "$2" >"$log" 2>&1 || { tail -30 "$log" >&2; exit 1; }
    grep -E 'MERGE-OUTER: [0-9]+ new files' "$log" || true
}
mkdir -p "$out/model"
find "$out" -maxdepth 1 -type f -exec mv -t "$out/model" {} +
merge model "$out/model"
[[ -d "$out/pir" ]] && merge pir "$out/pir"
[[ -d "$out/topology" ]] && merge topology "$out/topology"
du -sb "$root/tests/fuzz/corpus"
