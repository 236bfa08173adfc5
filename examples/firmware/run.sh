#!/usr/bin/env bash
# run.sh MODEL_DIR [--shape NAME=D0,...]... [options]
#
# Generates a firmware network from a Paddle model (litegraph codegen),
# builds it twice from the same header -- for the desktop and as Cortex-M7
# firmware -- runs the firmware under qemu-system-arm -M mps2-an500, and
# compares both with the desktop runtime (litegraph run) to <= 1e-5 relative,
# or bit for bit when the network has int8 layers (a quantized model).
# Exits 0 only when they agree; 77 (skipped) when the ARM toolchain or QEMU is
# missing (the desktop check still runs and must agree); 1 otherwise, also when
# the toolchain is installed but broken (examples/firmware/toolchain.sh).
#
# Options:
#   --shape NAME=DIMS    input shape (as litegraph run / codegen)
#   --segments SPEC      memory segments as litegraph codegen takes them
#                        (default stm32h730: the chip's six activation
#                        regions); the QEMU board gets regions of exactly
#                        these sizes, and stm32h730.ld the chip's own
#   --work DIR           where to build (default build/firmware/<model name>)
#   --cli PATH           the litegraph CLI (default build/bin/litegraph)
#   --tol X              relative tolerance (default 1e-5; int8 networks: exact)
#   --skip-missing       exit 77 (skipped) when MODEL_DIR does not exist
#   --reference-kernels  build the firmware with
#                        -DLITEGRAPH_CORTEX_M_REFERENCE_KERNELS: the int8 layers
#                        on the reference kernels instead of the Cortex-M DSP
#                        ones (to measure both on the same tree)
#   --patches auto|NxM|none, --patch-budget X, --patch-split TENSOR
#                        the first stage (and a global pool's tail) in patches,
#                        as litegraph codegen takes them (docs/patches.md);
#                        without --patches codegen patches a network whose
#                        untiled plan does not fit the segments, and none
#                        keeps it untiled.  A patched firmware is compared
#                        with `litegraph run` and with `run --patches` too
#   --input-dtype float32|int8
#                        int8: a quantized model's input already quantized
#                        (no float input buffer), for codegen and run alike
#   --input NAME=FILE.npy
#                        run the firmware, the desktop build and `litegraph
#                        run` on this input instead of the deterministic one
#                        (repeatable, one per model input); its dtype and shape
#                        must be the network's input (float32, or int8 with
#                        --input-dtype int8; the shape --shape NAME gives, else
#                        the file's), or codegen says so and run.sh exits 2
#   --dict FILE          the first output is a CTC text recognizer's [1, T, C]
#                        probabilities: decode it (greedy, as PaddleOCR: blank
#                        0, class i line i-1 of FILE, a space appended when C
#                        is lines + 2) and print one line "text: <line>" after
#                        the desktop run and after the firmware run; a FILE that
#                        fits neither C = lines + 1 nor lines + 2 is an error
#
# Prints the firmware's sizes per section (arm-none-eabi-size -A), the
# activation bytes per segment, whether the same objects link for the
# STM32H730's memory map (one line "stm32h730: links (...)" with the bytes per
# region, or "stm32h730: does not link (...)") and the instructions of one inference
# (QEMU -icount shift=0: SysTick ticks times instructions per tick, the
# ratio measured on a loop of known length).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
usage() { sed -n '2,/^set -euo/{/^#/p}' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

skip_missing=0 reference_kernels=0 model="" work="" cli="$root/build/bin/litegraph" segments="stm32h730" tol=""
dict="" shape_specs=() input_specs=() patch_args=() dtype_args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --shape|--segments|--work|--cli|--tol|--patches|--patch-budget|--patch-split|--input-dtype|--input|--dict)
      (( $# >= 2 )) || { echo "run.sh: $1 needs a value" >&2; exit 2; } ;;
  esac
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --shape) shape_specs+=("$2"); shift 2 ;;
    --shape=*) shape_specs+=("${1#--shape=}"); shift ;;
    --input) input_specs+=("$2"); shift 2 ;;
    --input=*) input_specs+=("${1#--input=}"); shift ;;
    --dict) dict="$2"; shift 2 ;;
    --segments) segments="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    --cli) cli="$2"; shift 2 ;;
    --tol) tol="$2"; shift 2 ;;
    --skip-missing) skip_missing=1; shift ;;
    --reference-kernels) reference_kernels=1; shift ;;
    --patches|--patch-budget|--patch-split) patch_args+=("$1" "$2"); shift 2 ;;
    --input-dtype) dtype_args+=("$1" "$2"); shift 2 ;;
    -*) echo "run.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
    *) [[ -z "$model" ]] || { echo "run.sh: one MODEL_DIR only" >&2; exit 2; }; model="$1"; shift ;;
  esac
done
[[ -n "$model" ]] || { usage >&2; exit 2; }
if [[ ! -e "$model" ]]; then
  echo "run.sh: no model at '$model'" >&2
  (( skip_missing )) && { echo "run.sh: SKIPPED (the shared models are absent)"; exit 77; }
  exit 2
fi
[[ -x "$cli" ]] || { echo "run.sh: the litegraph CLI is not built at '$cli' (give --cli)" >&2; exit 2; }
# --input NAME=FILE.npy: codegen writes it as the sample input (and checks its
# dtype and shape), `litegraph run` is fed the same file.  run refuses --shape
# for an input it is given, so that input's --shape goes to codegen alone.
shapes=() run_shapes=() inputs=() input_names=" "
for spec in "${input_specs[@]}"; do
  if [[ "$spec" != ?*=?* ]]; then
    echo "run.sh: --input expects NAME=FILE.npy, got '$spec'" >&2; exit 2
  fi
  [[ -f "${spec#*=}" ]] || { echo "run.sh: --input ${spec%%=*}: no file '${spec#*=}'" >&2; exit 2; }
  [[ "$input_names" != *" ${spec%%=*} "* ]] || { echo "run.sh: --input ${spec%%=*} given twice" >&2; exit 2; }
  inputs+=(--input "$spec") input_names+="${spec%%=*} "
done
for spec in "${shape_specs[@]}"; do
  shapes+=(--shape "$spec")
  [[ "$input_names" == *" ${spec%%=*} "* ]] || run_shapes+=(--shape "$spec")
done
if [[ -n "$dict" && ! -f "$dict" ]]; then
  echo "run.sh: --dict: no file '$dict'" >&2; exit 2
fi
name="$(basename "$(cd "$model" 2>/dev/null && pwd || echo "$model")")"
work="${work:-$root/build/firmware/$name}"
mkdir -p "$work"
start=$SECONDS

echo "== codegen $name (${shapes[*]:-declared shapes}, segments $segments${inputs[*]:+, ${inputs[*]}})"
"$cli" codegen "$model" "${shapes[@]}" --segments "$segments" --namespace net --sample-input \
  "${inputs[@]}" "${patch_args[@]}" "${dtype_args[@]}" -o "$work/net.hpp" | tee "$work/codegen.txt"
rm -rf "$work/reference" "$work/reference_patches"
"$cli" run "$model" "${run_shapes[@]}" "${inputs[@]}" "${dtype_args[@]}" --output-dir "$work/reference" \
  > "$work/reference.txt"
# --dict: checked against the runtime's first output ([1, T, C]) before any build.
dict_args=()
if [[ -n "$dict" ]]; then
  python3 "$here/compare.py" --text "$work/reference" --dict "$dict" > "$work/reference_text.txt"
  dict_args=(--dict "$dict")
fi
# A patched network (codegen printed "patches: ...") is compared with the
# runtime's patched run as well: the same choice (auto: the same split and grid).
run_patches=()
if grep -q '^patches: ' "$work/codegen.txt"; then
  run_patches=("${patch_args[@]}")
  [[ " ${patch_args[*]} " == *" --patches "* ]] || run_patches=(--patches auto "${patch_args[@]}")
  "$cli" run "$model" "${run_shapes[@]}" "${inputs[@]}" "${dtype_args[@]}" "${run_patches[@]}" \
    --output-dir "$work/reference_patches" > "$work/reference_patches.txt"
  echo "   patched: also compared with litegraph run ${run_patches[*]}"
fi
# A network with int8 layers must agree bit for bit; fp32 to a tolerance.
if [[ -z "$tol" ]] && grep -q 'fused_int8<\|ops::quantize_int8>' "$work/net.hpp"; then
  cmp_args=(--exact) contract=(-ffp-contract=off)
  echo "   int8 layers: outputs compared bit for bit"
else
  cmp_args=(--tol "${tol:-1e-5}") contract=()
fi

echo "== desktop: the same header on $(c++ --version | head -1)"
t=$SECONDS
c++ -std=c++20 -O2 "${contract[@]}" -Wall -Wextra -Werror -I"$root/include" -I"$work" -I"$here" \
  "$here/main.cpp" -o "$work/host"
echo "   compiled in $((SECONDS - t)) s"
"$work/host" > "$work/host.log"
python3 "$here/compare.py" "$work/host.log" "$work/reference" "${cmp_args[@]}" "${dict_args[@]}"
if (( ${#run_patches[@]} )); then
  python3 "$here/compare.py" "$work/host.log" "$work/reference_patches" "${cmp_args[@]}"
fi

. "$here/toolchain.sh"
firmware_toolchain_or_skip run.sh

echo "== firmware: Cortex-M7 (mps2-an500) on $(arm-none-eabi-g++ --version | head -1)"
weight_bytes=$(sed -n 's/^inline constexpr std::size_t weight_bytes = \([0-9]*\);/\1/p' "$work/net.hpp")
# The planned segments as the header declares them: {"name", capacity, alignment}.
seg_names=() seg_sizes=()
while read -r n c; do seg_names+=("$n") seg_sizes+=("$c"); done < <(
  grep -m1 'std::array<litegraph::planner::segment' "$work/net.hpp" |
    grep -o '{"[A-Za-z0-9_]*", [0-9]*u' | sed 's/{"\([^"]*\)", \([0-9]*\)u/\1 \2/')
(( ${#seg_names[@]} > 0 )) || { echo "run.sh: no segments found in $work/net.hpp" >&2; exit 1; }
# One section per segment, and the QEMU board's script: the segments cut from
# the first 3 MB of its SSRAM2/3 at their planned sizes, then mps2_an500.ld.
attrs=() origin=$((0x20000000)) limit=$((0x20300000))
{
  echo "/* Written by run.sh for segments $segments: one region per planned segment. */"
  echo "MEMORY"; echo "{"
  for i in "${!seg_names[@]}"; do
    printf '  SEG_%s (rw) : ORIGIN = 0x%08x, LENGTH = %d\n' "${seg_names[i]}" "$origin" "${seg_sizes[i]}"
    origin=$(( (origin + seg_sizes[i] + 63) / 64 * 64 ))
  done
  echo "}"; echo "SECTIONS"; echo "{"
  for n in "${seg_names[@]}"; do
    echo "  .${n}_bss (NOLOAD) : ALIGN(64) { *(.${n}_bss .${n}_bss.*) } > SEG_$n"
  done
  echo "}"; echo "INCLUDE mps2_an500.ld"
} > "$work/mps2_an500_net.ld"
if (( origin > limit )); then
  echo "run.sh: the segments ($segments) need more than the 3 MB QEMU's board has for them" >&2
  exit 2
fi
for n in "${seg_names[@]}"; do
  attrs+=("-DNET_${n^^}_ATTR=__attribute__((section(\".${n}_bss\")))")
done
# Weights (and the sample input) in their own section: QEMU's board maps it to
# PSRAM, the STM32H730 to the external flash on OCTOSPI1; code stays in flash.
attrs+=('-DNET_WEIGHTS_ATTR=__attribute__((section(".weights")))')
echo "   $weight_bytes weight bytes: section .weights (mps2-an500 PSRAM, STM32H730 OCTOSPI1 flash)"
if (( reference_kernels )); then
  attrs+=(-DLITEGRAPH_CORTEX_M_REFERENCE_KERNELS)
  echo "   int8 kernels: the reference ones (-DLITEGRAPH_CORTEX_M_REFERENCE_KERNELS)"
else
  echo "   int8 kernels: the Cortex-M DSP ones (ARMv7E-M SIMD)"
fi
t=$SECONDS
# int8 networks: -ffp-contract=off, no fused multiply-add the desktop build
# does not make either (the requantisation v * m + b must round as the
# runtime's for bit-exact outputs).  fp32 networks keep the FMAs.
arm_flags=(-std=c++20 -mcpu=cortex-m7 -mthumb -mfloat-abi=hard -mfpu=fpv5-d16 "${contract[@]}"
  -fno-exceptions -fno-rtti -fno-threadsafe-statics -O2 -Wall -Wextra -Werror
  -ffunction-sections -fdata-sections -I"$root/include" -I"$work" -I"$here" "${attrs[@]}")
arm-none-eabi-g++ "${arm_flags[@]}" -c "$here/main.cpp" -o "$work/main.o"
arm-none-eabi-g++ "${arm_flags[@]}" -c "$here/startup.cpp" -o "$work/startup.o"
link() {  # linker script, output
  arm-none-eabi-g++ -mcpu=cortex-m7 -mthumb -mfloat-abi=hard -mfpu=fpv5-d16 "$work/main.o" \
    "$work/startup.o" -nostartfiles --specs=nano.specs -Wl,--gc-sections -L"$here" -L"$work" \
    -T"$1" -o "$2"
}
link "$work/mps2_an500_net.ld" "$work/firmware.elf"
echo "   compiled in $((SECONDS - t)) s"
# The same objects against the STM32H730's own memory map: the linker checks
# that code, weights, every activation segment and the image's data and stack
# fit the chip's regions.
# (A segment the chip's script does not place would be an orphan section the
# linker puts anywhere: such segments are refused by name first.)
foreign=()
for n in "${seg_names[@]}"; do
  grep -q "^ *\.${n}_bss " "$here/stm32h730.ld" || foreign+=("$n")
done
if (( ${#foreign[@]} )); then
  echo "stm32h730: does not link (segments ${foreign[*]} are not the chip's; --segments stm32h730 plans over its regions)"
elif link "$here/stm32h730.ld" "$work/firmware_stm32h730.elf" 2> "$work/stm32h730.txt"; then
  arm-none-eabi-size -A "$work/firmware_stm32h730.elf" | awk '
    $1 == ".text" || $1 == ".ARM.exidx" { flash += $2 } $1 == ".data" { flash += $2; ram += $2 }
    $1 == ".weights" { ospi = $2 } $1 == ".bss" || $1 == ".stack" { ram += $2 }
    $1 ~ /^\.[a-z0-9_]+_bss$/ { n = substr($1, 2, length($1) - 5); seg[++k] = n; bytes[n] = $2 }
    END { line = sprintf("flash %d B, ospi %d B", flash, ospi)
          for (i = 1; i <= k; ++i) line = line sprintf(", %s %d B", seg[i], bytes[seg[i]])
          printf "stm32h730: links (%s, bkpsram %d B: data, bss, stack)\n", line, ram }'
else
  why=$(grep -oE "region \`[A-Za-z0-9_]*' overflowed by [0-9]* bytes|orphan section \`[^']*'|will not fit in region \`[A-Za-z0-9_]*'" \
    "$work/stm32h730.txt" | sort -u | head -4 | paste -sd ';' | sed 's/;/; /g')
  echo "stm32h730: does not link (${why:-see $work/stm32h730.txt})"
fi

# No heap, no exceptions, no RTTI in the image.
bad=$(arm-none-eabi-nm -C "$work/firmware.elf" |
  grep -E ' (malloc|free|calloc|realloc|_malloc_r|_free_r|operator new|operator delete|__cxa_[a-z_]+|_Unwind_[A-Za-z_]+|typeinfo for .*|__gxx_personality_v0|std::ios_base.*|std::basic_ostream.*)\b' || true)
if [[ -n "$bad" ]]; then
  echo "run.sh: the firmware links heap or exception machinery:"; echo "$bad"; exit 1
fi
echo "   nm: no malloc, free, operator new/delete, __cxa_*, _Unwind_*, typeinfo, iostream"

echo "== sizes (arm-none-eabi-size -A)"
arm-none-eabi-size -A "$work/firmware.elf" | grep -E '^(section|\.text|\.weights|\.data|\.bss|\.[a-z0-9_]+_bss|\.stack)\b'
echo "== activation bytes per segment (the compile-time plan)"
for i in "${!seg_names[@]}"; do
  seg="${seg_names[i]}"
  echo "   $seg: $(arm-none-eabi-nm -S -C -t d "$work/firmware.elf" | awk -v n="net::$seg" '$4 == n { print $2 + 0 }') bytes of ${seg_sizes[i]}"
done
echo "   scratch: each layer's is a planned buffer of the segments; the shared array (layers without one): $(arm-none-eabi-nm -S -C -t d "$work/firmware.elf" | awk '$4 == "net::scratch" { print $2 + 0 }') bytes (.bss)"

echo "== qemu-system-arm -M mps2-an500 -icount shift=0"
t=$SECONDS
rc=0
timeout 600 qemu-system-arm -M mps2-an500 -nographic -monitor none -serial none \
  -semihosting-config enable=on,target=native -icount shift=0 \
  -kernel "$work/firmware.elf" > "$work/firmware.log" 2>&1 || rc=$?
echo "   ran in $((SECONDS - t)) s, exit code $rc"
if (( rc != 0 )) || ! grep -q '^done' "$work/firmware.log"; then
  echo "run.sh: the firmware failed:"; cat "$work/firmware.log"; exit 1
fi
read -r ticks < <(awk '$1 == "ticks" { print $2 }' "$work/firmware.log")
read -r cal_ticks cal_insns < <(awk '$1 == "calibration" { print $2, $5 }' "$work/firmware.log")
# The ratio is an integer (1 GHz of icount time over the SysTick clock); the
# loop's few set-up instructions only round it.
per_tick=$(( (cal_insns + cal_ticks / 2) / cal_ticks ))
echo "   instructions per inference: $(( ticks * per_tick )) (+- $per_tick: $ticks SysTick ticks" \
     "x $per_tick instructions per tick; calibration $cal_ticks ticks for $cal_insns instructions)"
echo "   stack: $(awk '$1 == "stack" { print $2 }' "$work/firmware.log") bytes used of $(arm-none-eabi-size -A "$work/firmware.elf" | awk '$1 == ".stack" { print $2 }')"
python3 "$here/compare.py" "$work/firmware.log" "$work/reference" "${cmp_args[@]}" "${dict_args[@]}"
if (( ${#run_patches[@]} )); then
  python3 "$here/compare.py" "$work/firmware.log" "$work/reference_patches" "${cmp_args[@]}"
fi
echo "== $name: firmware and desktop agree with the runtime ($((SECONDS - start)) s)"
