#!/bin/sh
# The aarch64 instruction-set choice, end to end, under QEMU (registered by
# tests/CMakeLists.txt for an aarch64 cross build whose emulator is
# qemu-aarch64): the CLI picks neon-dotprod by itself on a CPU with the dot
# product (-cpu max) and neon on one without (-cpu cortex-a53); `run --json`
# reports it; LITEGRAPH_SIMD=neon-dotprod on cortex-a53 is refused (exit 2,
# the reason named); and the slim-quant classifier's int8 outputs are the same
# bytes on neon (smull / sadalp) and neon-dotprod (sdot).
#
# usage: simd_aarch64.sh CLI MODELS_DIR WORK_DIR EMULATOR [EMULATOR_ARGS...]
set -u
[ $# -ge 4 ] || { echo "usage: $0 CLI MODELS_DIR WORK_DIR EMULATOR [ARGS...]" >&2; exit 2; }
cli=$1 models=$2 work=$3
shift 3
model="$models/ppocr_mobile_v2.0_cls_slim_quant"
[ -d "$model" ] || { echo "skipped: no shared models ($model)"; exit 77; }
rm -rf "$work" && mkdir -p "$work" || exit 1
fail=0
emu="$*"  # the emulator command (no spaces in its words)

# run CPU NAME [ENV]: the CLI on the int8 classifier under -cpu CPU, outputs
# to WORK/NAME; prints the `simd` it reports.
run() {
    out=$(env ${3:+LITEGRAPH_SIMD=$3} $emu -cpu "$1" "$cli" run "$model" --json \
        --output-dir "$work/$2" 2> "$work/$2.err")
    rc=$?
    if [ $rc -ne 0 ]; then
        echo "FAIL: -cpu $1 ${3:+LITEGRAPH_SIMD=$3 }exited $rc: $(cat "$work/$2.err")"
        fail=1
        return
    fi
    echo "$out" | sed -n 's/.*"simd": "\([^"]*\)".*/\1/p' | head -n 1
}
expect() {  # CPU NAME ENV WANT
    got=$(run "$1" "$2" "$3")
    if [ "$got" = "$4" ]; then
        echo "ok: -cpu $1 ${3:+LITEGRAPH_SIMD=$3 }runs $got"
    else
        echo "FAIL: -cpu $1 ${3:+LITEGRAPH_SIMD=$3 }runs '$got', want $4"
        fail=1
    fi
}
expect max dotprod "" neon-dotprod
expect cortex-a53 a53 "" neon
expect max forced_neon neon neon

# The dot product forced on a CPU without it: refused, the reason named.
LITEGRAPH_SIMD=neon-dotprod $emu -cpu cortex-a53 "$cli" run "$model" > /dev/null 2> "$work/refused.err"
rc=$?
if [ $rc -eq 2 ] && grep -q 'this CPU does not have neon-dotprod' "$work/refused.err"; then
    echo "ok: LITEGRAPH_SIMD=neon-dotprod on cortex-a53 refused: $(cat "$work/refused.err")"
else
    echo "FAIL: LITEGRAPH_SIMD=neon-dotprod on cortex-a53: exit $rc, $(cat "$work/refused.err")"
    fail=1
fi

# The int8 outputs: the same bytes on every path.
n=0
for f in "$work"/dotprod/*.npy; do
    [ -f "$f" ] || continue
    b=$(basename "$f")
    for other in a53 forced_neon; do
        if ! cmp -s "$f" "$work/$other/$b"; then
            echo "FAIL: $b differs between neon-dotprod and $other"
            fail=1
        fi
    done
    n=$((n + 1))
done
[ $n -gt 0 ] || { echo "FAIL: no outputs written"; fail=1; }
[ $fail -eq 0 ] && echo "ok: $n int8 output(s) byte-identical on neon and neon-dotprod"
exit $fail
