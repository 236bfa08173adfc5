#!/usr/bin/env bash
# tests/firmware/dsp_kernels.sh [--work DIR]
#
# Builds the DSP kernel test firmware (tests/firmware/dsp_kernels.cpp) for the
# Cortex-M4 (qemu-system-arm -M mps2-an386) and the Cortex-M7 (-M
# mps2-an500), runs both under QEMU with -icount shift=0, and prints the
# instructions per MAC of the reference and the DSP kernel on each bench
# shape (SysTick ticks x instructions per tick, the ratio measured on a loop
# of known length).  Exits 0 when every case is bit-exact on both cores, 77
# (skipped) when arm-none-eabi-g++ or qemu-system-arm is missing, 1 otherwise
# (also when the toolchain is installed but broken).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
fw="$root/examples/firmware"
work="$root/build/firmware/dsp_kernels"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --work) work="$2"; shift 2 ;;
    -h|--help) sed -n '2,11p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "dsp_kernels.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
. "$fw/toolchain.sh"
firmware_toolchain_or_skip dsp_kernels.sh
mkdir -p "$work"
start=$SECONDS rc=0
# board machine cpu fpu linker-script
for cfg in "m4 mps2-an386 cortex-m4 fpv4-sp-d16 mps2_an386.ld" \
           "m7 mps2-an500 cortex-m7 fpv5-d16 mps2_an500.ld"; do
  read -r tag machine cpu fpu ld <<< "$cfg"
  flags=(-std=c++20 -mcpu="$cpu" -mthumb -mfloat-abi=hard -mfpu="$fpu" -fno-exceptions -fno-rtti
    -fno-threadsafe-statics -O2 -Wall -Wextra -Werror -ffunction-sections -fdata-sections
    -I"$root/include" -I"$fw" -I"$here")
  t=$SECONDS
  arm-none-eabi-g++ "${flags[@]}" -c "$here/dsp_kernels.cpp" -o "$work/dsp_$tag.o"
  arm-none-eabi-g++ "${flags[@]}" -c "$fw/startup.cpp" -o "$work/startup_$tag.o"
  arm-none-eabi-g++ -mcpu="$cpu" -mthumb -mfloat-abi=hard -mfpu="$fpu" "$work/dsp_$tag.o" \
    "$work/startup_$tag.o" -nostartfiles --specs=nano.specs -Wl,--gc-sections -L"$fw" -T"$fw/$ld" \
    -o "$work/dsp_$tag.elf"
  built=$((SECONDS - t)) t=$SECONDS r=0
  timeout 600 qemu-system-arm -M "$machine" -nographic -monitor none -serial none \
    -semihosting-config enable=on,target=native -icount shift=0 \
    -kernel "$work/dsp_$tag.elf" > "$work/dsp_$tag.log" 2>&1 || r=$?
  echo "== $cpu ($machine): built in $built s, ran in $((SECONDS - t)) s, exit code $r," \
       "$(grep -c '^ok ' "$work/dsp_$tag.log") cases bit-exact, $(grep -c '^FAIL' "$work/dsp_$tag.log") failed"
  grep -E '^(kernels|FAIL)' "$work/dsp_$tag.log" || true
  if (( r != 0 )) || ! grep -q '^done' "$work/dsp_$tag.log"; then
    echo "dsp_kernels.sh: the $cpu firmware failed:"; cat "$work/dsp_$tag.log"; rc=1; continue
  fi
  read -r cal_ticks cal_insns < <(awk '$1 == "calibration" { print $2, $5 }' "$work/dsp_$tag.log")
  awk -v ct="$cal_ticks" -v ci="$cal_insns" '
    BEGIN { per = int((ci + ct / 2) / ct); printf "   %-28s %8s %10s %10s\n", "shape", "MACs", "ref i/MAC", "DSP i/MAC" }
    $1 == "bench" { name = $5; for (i = 6; i <= NF; ++i) name = name " " $i
      printf "   %-28s %8d %10.3f %10.3f\n", name, $4, $2 * per / $4, $3 * per / $4 }' \
    "$work/dsp_$tag.log"
done
echo "== dsp_kernels: $((SECONDS - start)) s"
exit "$rc"
