#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz, clang + ASan + UBSan) and runs the
# six at once (fuzz_topology, fuzz_params, fuzz_model, fuzz_pir, and the
# differential fuzz_plan and fuzz_fusion), each for a fixed budget starting from its
# committed corpus (tests/fuzz/corpus/<target>) and, for the first four, the
# seed corpus (the shared models beside the clone, generated ones); exits
# non-zero on any crash, leak, sanitizer report, timeout, allocation over the
# bound of docs/hardening.md, or differential finding (==finding==).
# Standalone from a fresh clone:
#   .ci/fuzz.sh [--time SECONDS] [--jobs N] [--build-dir DIR] [--shared DIR]
#               [--targets "plan fusion ..."] [--merge]
# --merge: afterwards, merge what the runs learnt into the committed corpora
# (libFuzzer -merge=1 keeps only inputs that add coverage); run it after a long
# run, check the size cap of tests/fuzz/corpus/README.md, and commit.
# A --build-dir already configured with -DLITEGRAPH_FUZZ=ON is reused as it is
# (only out-of-date targets are rebuilt).
# Crashing inputs are left in BUILD/fuzz/artifacts/; minimize one with
#   BUILD/fuzz/fuzz_model -minimize_crash=1 -runs=100000 FILE
# and add it to tests/broken/ as <target>-<expected error>-<what>.bin.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
time_per_target=60
jobs=2
build="$root/build-fuzz"
shared="$root/../shared"
targets="topology params model pir plan fusion"
merge=0
while [[ $# -gt 0 ]]; do
    case "$1" in
        --time) time_per_target="$2"; shift 2 ;;
        --jobs) jobs="$2"; shift 2 ;;
        --build-dir) build="$2"; shift 2 ;;
        --shared) shared="$2"; shift 2 ;;
        --targets) targets="$2"; shift 2 ;;
        --merge) merge=1; shift ;;
        *) echo "usage: $0 [--time SECONDS] [--jobs N] [--build-dir DIR] [--shared DIR] [--targets LIST] [--merge]" >&2; exit 2 ;;
    esac
done

fuzz_targets=(fuzz_litegraph fuzz_seeds)  # fuzz_<target> are links to fuzz_litegraph
if grep -q '^LITEGRAPH_FUZZ:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
    echo "==== reusing the fuzz targets of $build"
    cmake --build "$build" -j"$jobs" --target "${fuzz_targets[@]}"
else
    # clang with the libFuzzer runtime (Debian: clang-14, libclang-rt-14-dev).
    cxx="${CXX:-}"
    if [[ -z "$cxx" ]]; then
        for c in clang++-14 clang++; do
            if command -v "$c" >/dev/null; then cxx="$c"; break; fi
        done
    fi
    probe_dir="$(mktemp -d)"
    trap 'rm -rf "$probe_dir"' EXIT
    probe() {
        [[ -n "$cxx" ]] || return 1
        echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' \
            > "$probe_dir/p.cpp"
        "$cxx" -fsanitize=fuzzer,address,undefined "$probe_dir/p.cpp" -o "$probe_dir/p" 2>/dev/null
    }
    if ! probe; then
        echo "installing clang-14 and libclang-rt-14-dev (libFuzzer)"
        sudo_cmd=()
        [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
        "${sudo_cmd[@]}" apt-get update -q
        "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
            --no-install-recommends clang-14 libclang-rt-14-dev </dev/null
        cxx=clang++-14
        probe || { echo "error: $cxx cannot link -fsanitize=fuzzer" >&2; exit 1; }
    fi

    echo "==== build ($cxx, $build)"
    CXX="$cxx" cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DLITEGRAPH_FUZZ=ON -DLITEGRAPH_BUILD_TESTS=OFF -DLITEGRAPH_BUILD_TOOLS=OFF \
        -DLITEGRAPH_INSTALL=OFF >/dev/null
    cmake --build "$build" -j"$jobs" --target "${fuzz_targets[@]}"
fi

echo "==== seed corpora"
seeds="$build/fuzz/seeds"
rm -rf "$seeds"
[[ -d "$shared/models" ]] || echo "note: $shared/models is absent; seeds are the generated models only"
"$build/fuzz/fuzz_seeds" "$seeds" "$shared"

# Each target keeps what it learns in BUILD/fuzz/corpus/<target> (the first
# directory, the one libFuzzer writes); the committed corpus and the seeds are
# read, never written.  All run at once (their budgets overlap: about --time
# seconds of wall time in all).
# -max_len: twice the largest seed (fuzz_seeds keeps seeds under 16 KiB); the
# differential targets read a few hundred bytes at most.
# -malloc_limit_mb: no single allocation above 512 MiB; the bound of
# docs/hardening.md on every input is checked by the targets (alloc_bound.hpp).
# -len_control=0 for the differential targets: whole-length inputs from the
# start (a short one decodes to a trivial problem or program).
# -entropic=0 for the differential targets: their inputs reach tens of
# thousands of coverage features, and the entropic schedule's per-input
# feature bookkeeping took about 70% of fuzz_fusion's time (5x fewer inputs).
max_len() { case "$1" in plan) echo 512 ;; fusion) echo 256 ;; *) echo 32768 ;; esac; }
len_control() { case "$1" in plan|fusion) echo 0 ;; *) echo 100 ;; esac; }
entropic() { case "$1" in plan|fusion) echo 0 ;; *) echo 1 ;; esac; }
echo "==== fuzz_${targets// /, fuzz_} at once for ${time_per_target} s"
declare -A pids
for t in $targets; do
    corpus="$build/fuzz/corpus/$t"
    artifacts="$build/fuzz/artifacts/$t"
    mkdir -p "$corpus" "$artifacts"
    dirs=("$corpus")
    [[ -d "$root/tests/fuzz/corpus/$t" ]] && dirs+=("$root/tests/fuzz/corpus/$t")
    [[ -d "$seeds/$t" ]] && dirs+=("$seeds/$t")
    # Op names to splice in (fuzz_seeds writes them from the op tables).
    dict=()
    case "$t" in
        topology|model) dict=(-dict="$seeds/ops.dict") ;;
        pir) dict=(-dict="$seeds/pir.dict") ;;
    esac
    "$build/fuzz/fuzz_$t" "${dirs[@]}" "${dict[@]}" \
        -max_total_time="$time_per_target" -max_len="$(max_len "$t")" \
        -len_control="$(len_control "$t")" -entropic="$(entropic "$t")" -timeout=10 \
        -malloc_limit_mb=512 -rss_limit_mb=2560 -print_final_stats=1 \
        -artifact_prefix="$artifacts/" >"$build/fuzz/$t.log" 2>&1 &
    pids[$t]=$!
done
status=0
for t in $targets; do
    log="$build/fuzz/$t.log"
    if wait "${pids[$t]}"; then
        echo "fuzz_$t: ok (log: $log)"
    else
        echo "fuzz_$t FAILED (log: $log):"
        grep -E -A25 '^==[0-9]+==ERROR|==alloc_bound==|==finding==|runtime error|SUMMARY|deadly signal|out-of-memory|timeout' \
            "$log" | head -60 || tail -40 "$log"
        ls "$build/fuzz/artifacts/$t"
        status=1
    fi
    grep -E '^stat::number_of_executed_units|^stat::average_exec_per_sec|^stat::peak_rss_mb' "$log" || true
    grep -E '^#[0-9]+[[:space:]]+DONE' "$log" || true
done
if [[ $merge == 1 && $status == 0 ]]; then
    for t in $targets; do
        tree="$root/tests/fuzz/corpus/$t"
        mkdir -p "$tree"
        echo "==== merging $build/fuzz/corpus/$t into $tree"
        "$build/fuzz/fuzz_$t" -merge=1 -max_len="$(max_len "$t")" -timeout=10 \
            -rss_limit_mb=2560 "$tree" "$build/fuzz/corpus/$t" >"$build/fuzz/$t.merge.log" 2>&1 ||
            { tail -20 "$build/fuzz/$t.merge.log"; status=1; }
        grep -E 'MERGE-OUTER: [0-9]+ new files' "$build/fuzz/$t.merge.log" || true
    done
    du -sb "$root/tests/fuzz/corpus"
fi
exit $status
