#!/usr/bin/env python3
"""Compares the outputs a firmware (or host) run printed with the desktop
runtime's .npy outputs: exit 0 only when every value agrees within the
relative tolerance (|a - b| <= tol * max(|b|, floor), floor = 1e-6 * max|b|),
or with --exact only when every value has the same bits (int8 networks: the
firmware must be bit-exact with the desktop runtime).

With --dict FILE it then decodes the run's first output, the [N, T, C]
probabilities of a CTC text recognizer (N, T and C from NPY_DIR's first .npy),
as PaddleOCR does (greedy: argmax per step, repeats merged, the blank 0
dropped, class i line i-1 of FILE; C = lines + 2: a space appended), and
prints one line `text: <line>` per image; a dictionary that fits neither
lines + 1 nor lines + 2 classes is an error (exit 2).  With --text NPY
(a .npy, or NPY_DIR: its first; no RUN_LOG) it decodes that output itself.

usage: compare.py RUN_LOG NPY_DIR [--tol 1e-5 | --exact] [--dict FILE]
       compare.py --text NPY|NPY_DIR --dict FILE
       compare.py --self-test
"""
import ast
import glob
import os
import struct
import sys
import tempfile


def npy_shape(path):
    with open(path, "rb") as f:
        data = f.read(4096)
    start = 10 if data[6] == 1 else 12
    return tuple(ast.literal_eval(data[start:data.index(b"}", start) + 1].decode("latin1"))["shape"])


def read_dict(path, classes):
    """PaddleOCR's dictionary: one character a line (\\r and \\n stripped), a
    space appended when that makes the classes (the blank + one a character)."""
    with open(path, "rb") as f:
        chars = [line.strip(b"\r\n").decode("utf-8") for line in f.readlines()]
    if len(chars) + 2 == classes:
        chars.append(" ")
    if len(chars) + 1 != classes:
        print(f"compare: the dictionary {path} has {len(chars)} characters but the recognizer "
              f"outputs {classes} classes: it needs {classes - 1} (or {classes - 2}, and a space)",
              file=sys.stderr)
        sys.exit(2)
    return chars


def ctc_greedy(probs, classes, chars):
    """Argmax per step (the first of equal ones), repeats merged, blank 0 dropped."""
    text, prev = [], -1
    for t in range(0, len(probs), classes):
        row = probs[t:t + classes]
        best = max(range(classes), key=row.__getitem__)
        if best != 0 and best != prev:
            text.append(chars[best - 1])
        prev = best
    return "".join(text)


def print_text(values, shape, dict_path):
    if len(shape) != 3 or len(values) != shape[0] * shape[1] * shape[2]:
        print(f"compare: --dict decodes a CTC recognizer's [N, T, C] output; the first "
              f"output is {list(shape)} ({len(values)} values)", file=sys.stderr)
        sys.exit(2)
    n, steps, classes = shape
    chars = read_dict(dict_path, classes)
    for i in range(n):
        print("text: " + ctc_greedy(values[i * steps * classes:(i + 1) * steps * classes],
                                    classes, chars))


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


def main(args):
    if args == ["--self-test"]:
        return self_test()
    dict_path = None
    if "--dict" in args:
        i = args.index("--dict")
        if i + 1 == len(args):
            raise SystemExit(__doc__)
        dict_path = args[i + 1]
        del args[i:i + 2]
    if args[:1] == ["--text"] and len(args) == 2 and dict_path:
        first = ([args[1]] if os.path.isfile(args[1]) else
                 sorted(glob.glob(os.path.join(args[1], "*.npy")))[:1])
        if not first:
            print(f"compare: no .npy file in {args[1]}", file=sys.stderr)
            return 2
        print_text(read_npy(first[0]), npy_shape(first[0]), dict_path)
        return 0
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
    if dict_path and got and files:
        print_text(got[0][1], npy_shape(files[0]), dict_path)
    return 0 if ok else 1


def self_test():
    """The decoding on a made-up [2, 6, 4] output: a log, its .npy, a dictionary."""
    steps = [[1, 1, 0, 1, 3, 2], [0, 0, 0, 2, 2, 0]]  # argmax per step of each image
    values = [0.9 if c == k else 0.05 for image in steps for k in image for c in range(4)]
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "run.log"), "w") as f:
            f.write(f"output 0 {len(values)}\n")
            f.write(" ".join("%08x" % struct.unpack("<I", struct.pack("<f", v))[0]
                             for v in values) + "\ndone\n")
        header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 6, 4), }"
        header += " " * (117 - len(header)) + "\n"
        with open(os.path.join(d, "output_0.npy"), "wb") as f:
            f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
            f.write(struct.pack(f"<{len(values)}f", *values))
        for dict_text, expect in (("a\r\n\u00e9\n", ["aa \u00e9", "\u00e9"]),  # + a space
                                  ("a\nb\nc", ["aacb", "b"])):
            with open(os.path.join(d, "dict.txt"), "w", encoding="utf-8", newline="") as f:
                f.write(dict_text)
            for args in ([os.path.join(d, "run.log"), d, "--exact"], ["--text", d]):
                out = os.path.join(d, "out.txt")
                saved, sys.stdout = sys.stdout, open(out, "w", encoding="utf-8")
                try:
                    rc = main(args + ["--dict", os.path.join(d, "dict.txt")])
                finally:
                    sys.stdout.close()
                    sys.stdout = saved
                with open(out, encoding="utf-8") as f:
                    texts = [l[len("text: "):-1] for l in f if l.startswith("text: ")]
                assert rc == 0 and texts == expect, (args, rc, texts, expect)
        with open(os.path.join(d, "dict.txt"), "w") as f:
            f.write("a\nb\nc\nd\n")  # 4 lines: 5 classes, not 4
        try:
            main(["--text", d, "--dict", os.path.join(d, "dict.txt")])
            raise AssertionError("a dictionary of 4 lines decoded 4 classes")
        except SystemExit as e:
            assert e.code == 2, e.code
    print("compare.py self-test: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
