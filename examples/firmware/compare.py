#!/usr/bin/env python3
"""Compares the outputs a firmware (or host) run printed with the desktop
runtime's .npy outputs: exit 0 only when every value agrees within the
relative tolerance (|a - b| <= tol * max(|b|, floor), floor = 1e-6 * max|b|),
or with --exact only when every value has the same bits (int8 networks: the
firmware must be bit-exact with the desktop runtime).

usage: compare.py RUN_LOG NPY_DIR [--tol 1e-5 | --exact]
"""
import glob
import os
import struct
import sys


def read_npy(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY":
        raise SystemExit(f"{path}: not a .npy file")
    major = data[6]
    hlen = struct.unpack("<H", data[8:10])[0] if major == 1 else struct.unpack("<I", data[8:12])[0]
    start = (10 if major == 1 else 12) + hlen
    header = data[(10 if major == 1 else 12):start].decode("latin1")
    if "'<f4'" not in header or "True" in header.split("fortran_order")[1][:8]:
        raise SystemExit(f"{path}: expected little-endian float32, C order ({header.strip()})")
    body = data[start:]
    return list(struct.unpack(f"<{len(body) // 4}f", body))


def read_log(path):
    outputs, current = [], None
    with open(path) as f:
        for line in f:
            words = line.split()
            if not words:
                continue
            if words[0] == "output":
                current = []
                outputs.append((int(words[2]), current))
            elif words[0] in ("ticks", "calibration", "stack", "done"):
                current = None
            elif current is not None:
                current.extend(struct.unpack("<f", struct.pack("<I", int(w, 16)))[0] for w in words)
    return outputs


def main():
    args = sys.argv[1:]
    tol = 1e-5
    exact = "--exact" in args
    if exact:
        args.remove("--exact")
    if "--tol" in args:
        i = args.index("--tol")
        tol = float(args[i + 1])
        del args[i:i + 2]
    if len(args) != 2:
        raise SystemExit(__doc__)
    log, npy_dir = args
    got = read_log(log)
    files = sorted(glob.glob(os.path.join(npy_dir, "*.npy")))
    if len(files) != len(got):
        print(f"compare: {len(got)} outputs printed, {len(files)} .npy files in {npy_dir}")
        return 1
    ok = True
    for k, ((n, values), path) in enumerate(zip(got, files)):
        ref = read_npy(path)
        if len(values) != n or len(ref) != n:
            print(f"compare: output {k}: {len(values)} values printed of {n}, reference has {len(ref)}")
            ok = False
            continue
        if exact:
            bits = lambda v: struct.pack("<f", v)
            differ = [i for i, (a, b) in enumerate(zip(values, ref)) if bits(a) != bits(b)]
            agree = not differ
            ok = ok and agree
            where = (f"; first at {differ[0]} ({values[differ[0]]!r} vs {ref[differ[0]]!r})"
                     if differ else "")
            print(f"output {k} ({os.path.basename(path)}, {n} values): {len(differ)} values "
                  f"differ in their bits{where}: {'bit-exact' if agree else 'DIFFER'}")
            continue
        scale = max((abs(r) for r in ref), default=0.0)
        worst, at = 0.0, 0
        for i, (a, b) in enumerate(zip(values, ref)):
            rel = abs(a - b) / max(abs(b), 1e-6 * scale, 1e-30)
            if rel > worst:
                worst, at = rel, i
        agree = worst <= tol
        ok = ok and agree
        print(f"output {k} ({os.path.basename(path)}, {n} values): max relative difference "
              f"{worst:.3g} at {at} ({values[at]!r} vs {ref[at]!r}): "
              f"{'agree' if agree else 'DIFFER'} (tolerance {tol:g})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
