#!/usr/bin/env bash
# benchmarks/firmware/figures.sh [--cli PATH] [--shared DIR] [--layers]
#
# --layers: only the whole-layer int8 figures (benchmarks/firmware/layers.cpp on
# the Cortex-M7 under QEMU): one line `layer KEY X.XXX` per shape, instructions
# per MAC of the layer as a network runs it (accumulation, rescale, bias,
# round, clamp, int8 store), checked bit for bit against the reference kernel;
# then CMSIS-NN's figure on the same shape and the ratio; then `fp32 KEY X.XXX`:
# instructions per fp32 MAC of the same conv shapes on the firmware kernels
# (the packed form codegen writes) beside the row loop, within 1e-5 of it.
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
cli="$root/build/bin/litegraph" shared="$root/../shared" layers=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --cli) cli="$2"; shift 2 ;;
    --shared) shared="$2"; shift 2 ;;
    --layers) layers=1; shift ;;
    -h|--help) sed -n '2,27p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "figures.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
work="$root/build/firmware-figures"
mkdir -p "$work"

if (( layers )); then
  . "$root/examples/firmware/toolchain.sh"
  firmware_toolchain_or_skip figures.sh
  fw="$root/examples/firmware"
  flags=(-std=c++20 -mcpu=cortex-m7 -mthumb -mfloat-abi=hard -mfpu=fpv5-d16 -ffp-contract=off
    -fno-exceptions -fno-rtti -fno-threadsafe-statics -O2 -Wall -Wextra -Werror
    -ffunction-sections -fdata-sections -I"$root/include" -I"$fw" -I"$root/tests/firmware")
  arm-none-eabi-g++ "${flags[@]}" -c "$here/layers.cpp" -o "$work/layers.o"
  arm-none-eabi-g++ "${flags[@]}" -c "$fw/startup.cpp" -o "$work/layers_startup.o"
  arm-none-eabi-g++ -mcpu=cortex-m7 -mthumb -mfloat-abi=hard -mfpu=fpv5-d16 "$work/layers.o" \
    "$work/layers_startup.o" -nostartfiles --specs=nano.specs -Wl,--gc-sections -L"$fw" \
    -T"$fw/mps2_an500.ld" -o "$work/layers.elf"
  r=0
  timeout 600 qemu-system-arm -M mps2-an500 -nographic -monitor none -serial none \
    -semihosting-config enable=on,target=native -icount shift=0 \
    -kernel "$work/layers.elf" > "$work/layers.log" 2>&1 || r=$?
  grep '^FAIL' "$work/layers.log" || true
  # CMSIS-NN v7.0.0-43, DSP path, -O2, whole layer, the same QEMU board and count.
  declare -A cmsis=([c1x1_32_32_16]=2.665 [c1x1_64_64_8]=2.076 [c1x1_16_64_16]=3.928
    [c3x3_16_16_16]=2.351 [dw3_32_16_s1]=8.069 [dw3_32_16_s2]=8.090 [dw3_16_32_s2]=8.416
    [dw5_32_16_s1]=9.722 [dw5_32_16_s2]=9.727 [fc_256_64]=2.079)
  read -r ct ci < <(awk '$1 == "calibration" { print $2, $5 }' "$work/layers.log")
  if [[ -z "${ct:-}" ]]; then
    echo "figures.sh --layers: the firmware did not finish (exit $r):"; cat "$work/layers.log"; exit 1
  fi
  per=$(( (ci + ct / 2) / ct ))
  rows=()
  while read -r _ key ticks macs ok; do
    v=$(awk -v t="$ticks" -v p="$per" -v m="$macs" 'BEGIN { printf "%.3f", t * p / m }')
    echo "layer $key $v"
    c=${cmsis[$key]:-}
    rows+=("$(printf '#   %-14s %8s %9s %6s  %s' "$key" "$v" "${c:-?}" \
      "$(awk -v a="$v" -v b="${c:-0}" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "?" }')" "$ok")")
  done < <(grep '^layer ' "$work/layers.log")
  printf '#   %-14s %8s %9s %6s  %s\n' key litegraph CMSIS-NN ratio "vs reference kernel"
  printf '%s\n' "${rows[@]}"
  echo "# fp32 (fused conv + bias + relu), instructions per MAC: firmware kernels, row loop"
  while read -r _ key fast slow macs ok; do
    awk -v f="$fast" -v s="$slow" -v p="$per" -v m="$macs" -v k="$key" -v ok="$ok" \
      'BEGIN { printf "fp32 %s %.3f   (row loop %.3f, %.2fx fewer; %s)\n", k, f * p / m, s * p / m, s / f, ok }'
  done < <(grep '^fp32 ' "$work/layers.log")
  (( r == 0 )) || echo "figures.sh --layers: $r layer(s) differ from the reference kernel"
  exit "$r"
fi
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
