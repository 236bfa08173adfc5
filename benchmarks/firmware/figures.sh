#!/usr/bin/env bash
# benchmarks/firmware/figures.sh [--cli PATH] [--shared DIR]
#
# The firmware figures of the two reference models, through
# examples/firmware/run.sh (which also checks the outputs against the
# runtime): arm-none-eabi-size per section, activation bytes per segment of
# the compile-time plan, and the instructions of one inference on the
# Cortex-M7 (qemu-system-arm -M mps2-an500 -icount shift=0 with SysTick).
#   - ppocr_mobile_v2.0_cls, fp32, input 1x3x48x192
#   - SqueezeNet 1.1 (litegraph generate), fp32, input 1x3x64x64
#   - SqueezeNet 1.0 and 1.1, int8 (litegraph generate + quantize
#     --calib-random 4), input 1x3x128x128, outputs bit-exact with the runtime,
#     built twice from the same tree: on the Cortex-M DSP int8 kernels (the
#     default) and on the reference ones (run.sh --reference-kernels), so the
#     instructions per inference before/after the DSP kernels come from one run
# Segments: run.sh's default, the STM32H730's six regions (stm32h730), except
# SqueezeNet 1.0 int8, whose conv1 map is larger than every region of that chip:
# dtcm:128K,sram:436K.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cli="$root/build/bin/litegraph" shared="$root/../shared"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --cli) cli="$2"; shift 2 ;;
    --shared) shared="$2"; shift 2 ;;
    -h|--help) sed -n '2,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "figures.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
work="$root/build/firmware-figures"
mkdir -p "$work"
"$cli" generate squeezenet1_1 --input-size 64 -o "$work/squeezenet1_1_64" > /dev/null
for v in 1_0 1_1; do
  "$cli" generate squeezenet$v --input-size 128 -o "$work/squeezenet${v}_128" > /dev/null
  "$cli" quantize "$work/squeezenet${v}_128" -o "$work/squeezenet${v}_128_int8" --calib-random 4 > /dev/null 2>&1
done

summary() {  # name log
  local name="$1" log="$2"
  echo "### $name"
  sed -n '/^== sizes/,/^== qemu/p' "$log" | grep -v '^== qemu'
  grep -E '^== (desktop|firmware)|instructions per inference|max relative difference|bit-exact|differ in their bits|compiled in|^stm32h730:|^   stack:' "$log" | sed 's/^ *//'
  echo
}

rc=0
"$root/examples/firmware/run.sh" "$shared/models/ppocr_mobile_v2.0_cls" --shape x=1,3,48,192 \
  --cli "$cli" --work "$work/ppocr_mobile_v2.0_cls" > "$work/cls.log" 2>&1 || rc=$?
"$root/examples/firmware/run.sh" "$work/squeezenet1_1_64" --cli "$cli" \
  --work "$work/squeezenet1_1_64.fw" > "$work/squeezenet.log" 2>&1 || rc=$((rc ? rc : $?))
for v in 1_0 1_1; do
  segs=(--segments stm32h730)
  [[ $v == 1_0 ]] && segs=(--segments dtcm:128K,sram:436K)
  "$root/examples/firmware/run.sh" "$work/squeezenet${v}_128_int8" --cli "$cli" "${segs[@]}" \
    --work "$work/squeezenet${v}_128_int8.fw" > "$work/squeezenet${v}_int8.log" 2>&1 || rc=$((rc ? rc : $?))
  "$root/examples/firmware/run.sh" "$work/squeezenet${v}_128_int8" --cli "$cli" "${segs[@]}" --reference-kernels \
    --work "$work/squeezenet${v}_128_int8.ref.fw" > "$work/squeezenet${v}_int8_ref.log" 2>&1 || rc=$((rc ? rc : $?))
done
summary "ppocr_mobile_v2.0_cls fp32 1x3x48x192" "$work/cls.log"
summary "squeezenet1_1 fp32 1x3x64x64 (generated)" "$work/squeezenet.log"
summary "squeezenet1_0 int8 1x3x128x128 (generated, quantized)" "$work/squeezenet1_0_int8.log"
summary "squeezenet1_1 int8 1x3x128x128 (generated, quantized)" "$work/squeezenet1_1_int8.log"
count() { sed -n 's/.*instructions per inference: \([0-9]*\).*/\1/p' "$1"; }
echo "### int8 instructions per inference: reference kernels -> Cortex-M DSP kernels (Cortex-M7)"
for v in 1_0 1_1; do
  ref=$(count "$work/squeezenet${v}_int8_ref.log") dsp=$(count "$work/squeezenet${v}_int8.log")
  if [[ -n "$ref" && -n "$dsp" ]]; then
    echo "squeezenet$v int8 128x128: $ref -> $dsp ($(awk -v a="$ref" -v b="$dsp" 'BEGIN { printf "%.2fx fewer", a / b }'))"
  else
    echo "squeezenet$v int8 128x128: a run failed (logs: $work/squeezenet${v}_int8{,_ref}.log)"
  fi
done
echo
if (( rc != 0 )); then
  echo "figures.sh: a run failed (exit $rc); logs in $work/*.log"
fi
exit "$rc"
