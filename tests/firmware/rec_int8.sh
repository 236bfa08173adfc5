#!/bin/sh
# rec_int8.sh RUN_SH CLI WORK REC_DIR
#
# The PP-OCR French recognizer as int8 firmware for the STM32H730, as
# docs/firmware.md shows it: quantized with every op int8 (calibrated on two
# of its reference lines), generated for the chip's six regions, run under
# QEMU on the third line (not calibrated on) and compared bit for bit with
# `litegraph run`; the firmware's output decoded with the model's dictionary
# must read that line's reference text, and the image must link for the chip.
# Exit 77 (skipped) without the shared model; run.sh's own 77 (no ARM
# toolchain) passes through.
set -eu
run_sh=$1 cli=$2 work=$3 rec=$4
[ -d "$rec" ] || { echo "rec_int8.sh: SKIPPED (no $rec)"; exit 77; }
rm -rf "$work/calib" "$work/model"
mkdir -p "$work/calib"
# Rows 0 and 2 of the reference input calibrate; row 1 is the firmware's input.
python3 - "$rec/reference/input_x.npy" "$work" <<'PY'
import ast, struct, sys
src, work = sys.argv[1], sys.argv[2]
data = open(src, "rb").read()
hlen = struct.unpack("<H", data[8:10])[0]
head = ast.literal_eval(data[10:10 + hlen].decode("latin1"))
assert head["descr"] == "<f4" and not head["fortran_order"] and head["shape"][0] == 3, head
body = data[10 + hlen:]
row = len(body) // 3
def save(path, rows):
    shape = (len(rows),) + tuple(head["shape"][1:])
    h = "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }" % (shape,)
    h += " " * ((64 - (10 + len(h) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h.encode("latin1"))
        for r in rows:
            f.write(body[r * row:(r + 1) * row])
save(work + "/calib/lines02.npy", [0, 2])
save(work + "/line1.npy", [1])
PY
"$cli" quantize "$rec" -o "$work/model" --calib "$work/calib" --max-error 0 --quiet > /dev/null
rc=0
"$run_sh" "$work/model" --shape x=1,3,32,320 --input "x=$work/line1.npy" \
  --dict "$work/model/french_dict.txt" --segments stm32h730 --cli "$cli" --work "$work" \
  > "$work/run.log" 2>&1 || rc=$?
cat "$work/run.log"
[ "$rc" -eq 0 ] || exit "$rc"
want=$(sed -n 2p "$rec/reference/texts.txt")
grep -q '^stm32h730: links' "$work/run.log" || { echo "rec_int8.sh: the firmware does not link for the STM32H730"; exit 1; }
n=$(grep -c "^text: $want\$" "$work/run.log" || true)
[ "$n" -eq 2 ] || { echo "rec_int8.sh: desktop and firmware must both read '$want'"; exit 1; }
echo "rec_int8.sh: the int8 firmware reads '$want' on the STM32H730 map"
