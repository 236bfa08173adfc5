#!/usr/bin/env bash
# What the committed fuzz corpora reach: builds the fuzz targets with clang's
# source-based coverage (-DLITEGRAPH_FUZZ_COVERAGE=ON, no sanitizers), replays
# every file of tests/fuzz/corpus/<target> once through its target
# (libFuzzer -runs=0), merges the profiles and prints, per folder of
# include/litegraph, one line:
#   coverage include/litegraph/loader lines 93.1% branches 81.0%
# (lines and branches of the headers under that folder, every target's replay
# together; the seeds of BUILD/fuzz/seeds are not replayed: the committed
# corpora are the measure).
#   tools/fuzz-coverage.sh [--build-dir DIR] [--jobs N] [--folders "loader ops ..."]
#                          [--corpus DIR] [--report]
# --report also prints llvm-cov's per-file table of those folders.
# Needs clang++-14, llvm-profdata-14 and llvm-cov-14 (Debian: clang-14,
# llvm-14, libclang-rt-14-dev; any version with a -VERSION suffix or none).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$root/build-fuzz-coverage"
jobs=2
folders="loader ops passes planner runtime"
corpus="$root/tests/fuzz/corpus"
report=0
while [[ $# -gt 0 ]]; do
    case "$1" in
        --build-dir) build="$2"; shift 2 ;;
        --jobs) jobs="$2"; shift 2 ;;
        --folders) folders="$2"; shift 2 ;;
        --corpus) corpus="$2"; shift 2 ;;
        --report) report=1; shift ;;
        -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "usage: $0 [--build-dir DIR] [--jobs N] [--folders LIST] [--corpus DIR] [--report]" >&2; exit 2 ;;
    esac
done

tool() {  # the first of NAME-14, NAME-15, ..., NAME that exists
    for c in "$1-14" "$1-15" "$1-16" "$1-17" "$1"; do
        if command -v "$c" >/dev/null; then echo "$c"; return; fi
    done
    echo "error: $1 not found (Debian: clang-14 llvm-14 libclang-rt-14-dev)" >&2
    exit 1
}
cxx="${CXX:-$(tool clang++)}"
profdata="$(tool llvm-profdata)"
cov="$(tool llvm-cov)"

echo "==== build ($cxx, coverage, $build)" >&2
CXX="$cxx" cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DLITEGRAPH_FUZZ=ON -DLITEGRAPH_FUZZ_COVERAGE=ON -DLITEGRAPH_FUZZ_OPT=-O1 \
    -DLITEGRAPH_BUILD_TESTS=OFF -DLITEGRAPH_BUILD_TOOLS=OFF -DLITEGRAPH_INSTALL=OFF >/dev/null
cmake --build "$build" -j"$jobs" --target fuzz_litegraph >&2

profiles="$build/fuzz/profiles"
rm -rf "$profiles"
mkdir -p "$profiles"
bin="$build/fuzz/fuzz_litegraph"
for dir in "$corpus"/*/; do
    t="$(basename "$dir")"
    [[ -x "$build/fuzz/fuzz_$t" ]] || { echo "note: no target fuzz_$t for $dir" >&2; continue; }
    n=$(find "$dir" -type f ! -name '*.md' | wc -l)
    echo "==== replaying $n inputs of $dir" >&2
    # -runs=0: each input once; a finding here fails (the corpora are clean).
    LITEGRAPH_FUZZ_RUN_KERNELS=1 LLVM_PROFILE_FILE="$profiles/$t-%p.profraw" "$build/fuzz/fuzz_$t" -runs=0 -timeout=30 \
        -rss_limit_mb=4096 "$dir" >"$profiles/$t.log" 2>&1 ||
        { tail -30 "$profiles/$t.log" >&2; exit 1; }
done
"$profdata" merge -sparse "$profiles"/*.profraw -o "$profiles/merged.profdata"

for f in $folders; do
    path="$root/include/litegraph/$f"
    # The TOTAL row of llvm-cov report over the folder's files: columns
    # regions, missed, cover, functions, missed, cover, lines, missed, cover,
    # branches, missed, cover.
    total=$("$cov" report "$bin" -instr-profile="$profiles/merged.profdata" "$path" |
        awk '/^TOTAL/ {print $10, $13}')
    read -r lines branches <<<"$total"
    echo "coverage include/litegraph/$f lines ${lines:-0%} branches ${branches:-0%}"
done
if [[ $report == 1 ]]; then
    for f in $folders; do
        "$cov" report "$bin" -instr-profile="$profiles/merged.profdata" \
            "$root/include/litegraph/$f"
    done
fi
