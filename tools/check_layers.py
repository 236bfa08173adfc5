#!/usr/bin/env python3
"""Layering check: no header of include/litegraph/ includes a higher layer.

Every header under include/litegraph/ belongs to one layer (by its folder).
A header may include headers of its own layer and of any lower layer; an
include of a higher layer, or of a sibling layer of the same rank, is a
backwards include and fails the check (exit 1), listed as file:line.  The
layers and what each holds are described in docs/design.md ("Layers").

ALLOWED below lists tolerated backwards includes, one reason each; it is
empty and should stay so.  An ALLOWED entry whose include is gone fails the
check, so the list can only shrink.

usage: tools/check_layers.py [--root DIR] [--layers] [--allowed] [--self-test]
  --root DIR   the repository to check (default: this script's repository)
  --layers     print the layer table and exit
  --allowed    also print the allow-list with its reasons
  --self-test  check the repository, then show that copies of its include/ with
               a backwards include (and the other faults) fail (ctest
               tools/check_layers)
Python 3 standard library only.
"""

import argparse
import os
import re
import sys

# (rank, layer, folder or file under include/).  Lower ranks are lower
# layers.  A header belongs to the entry with the longest matching path, so
# kernels/cortex_m/ is its own layer inside kernels/.  Layers of equal rank
# are siblings: neither may include the other.
LAYERS = [
    (0, "core", "litegraph/core/"),
    (1, "kernels", "litegraph/kernels/"),
    (2, "target_kernels", "litegraph/kernels/cortex_m/"),
    (3, "ops", "litegraph/ops/"),
    (4, "graph", "litegraph/graph/"),
    (5, "fusion", "litegraph/fusion/"),
    (6, "passes", "litegraph/passes/"),
    (6, "simd", "litegraph/simd/"),
    (7, "planner", "litegraph/planner/"),
    (8, "runtime", "litegraph/runtime/"),
    (9, "backends", "litegraph/backends/"),
    (9, "firmware", "litegraph/firmware/"),
    (9, "generate", "litegraph/generate/"),
    (9, "loader", "litegraph/loader/"),
    (9, "quantize", "litegraph/quantize/"),
    (9, "vision", "litegraph/vision/"),
    (10, "umbrella", "litegraph.hpp"),
    (10, "umbrella", "litegraph/paddle.hpp"),
    (10, "umbrella", "litegraph/session.hpp"),
    (10, "umbrella", "litegraph/ocr.hpp"),
    (10, "umbrella", "litegraph/firmware/codegen.hpp"),
]

LAYER_NOTES = {
    "core": "errors, dtypes, shapes, tensors, attributes, .npy",
    "kernels": "portable compute loops on raw pointers (SGEMM, conv, int8 conv, pooling, "
               "softmax, element-wise, SIMD, the "
               "epilogue stages and chains)",
    "ops": "one op per header: params, parse, infer, reference run; the op table",
    "graph": "the SSA graph IR, builder, edits, DOT",
    "fusion": "epilogue stages and chains, fused<...>, the fused kernel lists",
    "passes": "graph rewrites and the pipeline",
    "simd": "the arch unit: an instruction-set slot's kernel table, filled from the fusion "
            "types (compiled by src/simd/<slot>.cpp)",
    "planner": "constexpr memory planning (depends on nothing else)",
    "runtime": "the program: op table, shape inference, folding, arena",
    "target_kernels": "kernels for one target (Cortex-M DSP int8) and the compile-time "
                      "choice between them and the portable ones (*_best)",
    "backends": "places, kernel pick, subgraphs, OpenCL",
    "firmware": "firmware networks (what codegen writes) and the code generator (a prepared program -> the header)",
    "generate": "built-in example models as graphs (SqueezeNet, every activation): "
                "`litegraph generate`, the tests and benchmarks",
    "loader": "the Paddle format (protobuf)",
    "quantize": "post-training quantization: calibrate a float graph, write it fake-quantized",
    "vision": "images and the models' preprocessing (beside the runtime; core only)",
    "umbrella": "litegraph.hpp, paddle.hpp, session.hpp (the one entry point over "
                "loader, passes, places and runtime) ocr.hpp (PaddleOCR's text system on "
                "sessions) and firmware/codegen.hpp (the code generator's entry, a model -> "
                "its firmware header, on a session): include anything",
}

# Tolerated backwards includes: (including header, included header, why it is
# there and what removes it).  Paths are relative to include/.  None today.
ALLOWED = []

INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def layer_of(rel):
    """(rank, name) of a path relative to include/, or None."""
    best = None
    for rank, name, prefix in LAYERS:
        hit = rel == prefix if not prefix.endswith("/") else rel.startswith(prefix)
        if hit and (best is None or len(prefix) > len(best[2])):
            best = (rank, name, prefix)
    return None if best is None else best[:2]


def headers(include_dir):
    out = []
    for dirpath, _, files in os.walk(include_dir):
        for f in files:
            if f.endswith((".hpp", ".h")):
                full = os.path.join(dirpath, f)
                out.append(os.path.relpath(full, include_dir).replace(os.sep, "/"))
    return sorted(out)


def includes(include_dir, rel):
    """(line number, text, included path relative to include/) of each litegraph include."""
    out = []
    path = os.path.join(include_dir, rel)
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            m = INCLUDE_RE.match(line)
            if not m:
                continue
            target = m.group(2)
            if not target.startswith("litegraph"):
                # A quoted include relative to the including header.
                if m.group(1) != '"':
                    continue
                local = os.path.normpath(os.path.join(os.path.dirname(rel), target))
                if not os.path.isfile(os.path.join(include_dir, local)):
                    continue
                target = local.replace(os.sep, "/")
            out.append((n, line.strip(), target))
    return out


def check(root):
    """(headers checked, litegraph includes seen, problems) for the repository at root."""
    include_dir = os.path.join(root, "include")
    allowed = {(a, b): why for a, b, why in ALLOWED}
    used = set()
    problems = []
    count = 0
    files = [h for h in headers(include_dir) if h.startswith("litegraph")]
    for rel in files:
        mine = layer_of(rel)
        if mine is None:
            problems.append(f"include/{rel}: not in any layer (add its folder to LAYERS in "
                            f"tools/check_layers.py and to docs/design.md)")
            continue
        for n, text, target in includes(include_dir, rel):
            count += 1
            theirs = layer_of(target)
            if theirs is None:
                problems.append(f"include/{rel}:{n}: {text}: the included header is in no layer")
                continue
            if theirs[1] == mine[1] or theirs[0] < mine[0]:
                continue
            if (rel, target) in allowed:
                used.add((rel, target))
                continue
            kind = "a sibling layer" if theirs[0] == mine[0] else "a higher layer"
            problems.append(f"include/{rel}:{n}: {text}: {mine[1]} (rank {mine[0]}) may not "
                            f"include {theirs[1]} (rank {theirs[0]}, {kind})")
    for key in allowed:
        if key not in used:
            problems.append(f"allow-list entry include/{key[0]} -> {key[1]} is no longer "
                            f"needed: delete it from ALLOWED in tools/check_layers.py")
    return len(files), count, problems


def self_test(root):
    """The check passes on `root` and fails on copies of its include/ with a
    backwards include, a sibling include, an unmapped folder and a stale entry."""
    import shutil
    import tempfile

    def first_header(folder):
        """The first header directly in include/litegraph/<folder>/ that is in
        the folder's layer (not a file with a layer of its own, like
        firmware/codegen.hpp)."""
        d = os.path.join(root, "include", "litegraph", folder)
        own = {path for _, _, path in LAYERS}
        names = sorted(f for f in os.listdir(d)
                       if f.endswith(".hpp") and f"litegraph/{folder}/{f}" not in own)
        return f"litegraph/{folder}/{names[0]}"

    def edit(tmp, rel, old, new):
        path = os.path.join(tmp, "include", rel)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        if old not in text:
            raise SystemExit(f"check_layers --self-test: '{old}' not in include/{rel}")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text.replace(old, new, 1))

    def add_include(tmp, rel, line):
        edit(tmp, rel, "#pragma once", "#pragma once\n" + line)

    kernel, op, fw = first_header("kernels"), first_header("ops"), first_header("firmware")
    cases = [
        ("a backwards include",
         lambda t: add_include(t, kernel, "#include <litegraph/runtime/program.hpp>"),
         f"include/{kernel}:"),
        ("a relative backwards include",
         lambda t: add_include(t, op, '#include "../graph/graph.hpp"'),
         f"include/{op}:"),
        ("a sibling include",
         lambda t: add_include(t, fw, '#include "litegraph/loader/paddle/loader.hpp"'),
         "a sibling layer"),
        ("a folder in no layer",
         lambda t: (os.makedirs(os.path.join(t, "include/litegraph/extra")),
                    open(os.path.join(t, "include/litegraph/extra/x.hpp"), "w").close()),
         "include/litegraph/extra/x.hpp: not in any layer"),
    ]
    if ALLOWED:
        cases.append(("an allow-list entry no longer needed",
                      lambda t: edit(t, ALLOWED[-1][0], f'#include "{ALLOWED[-1][1]}"', ""),
                      "is no longer needed"))
    _, _, problems = check(root)
    if problems:
        print("check_layers --self-test: the repository itself fails:\n" + "\n".join(problems))
        return 1
    failed = 0
    for name, make, expected in cases:
        with tempfile.TemporaryDirectory() as tmp:
            shutil.copytree(os.path.join(root, "include"), os.path.join(tmp, "include"))
            make(tmp)
            _, _, problems = check(tmp)
        hit = [p for p in problems if expected in p]
        ok = len(problems) == 1 and hit
        print(f"check_layers --self-test: {name}: {'fails as it must' if ok else 'NOT caught'}"
              + (f"\n    {problems[0]}" if problems else ""))
        failed += not ok
    return 1 if failed else 0


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.dirname(here))
    ap.add_argument("--layers", action="store_true")
    ap.add_argument("--allowed", action="store_true")
    ap.add_argument("--self-test", action="store_true")
    args = ap.parse_args()

    if args.layers:
        for rank, name, prefix in LAYERS:
            print(f"{rank:>2}  {name:<15} include/{prefix:<30} {LAYER_NOTES[name]}")
        return 0
    if not os.path.isdir(os.path.join(args.root, "include", "litegraph")):
        print(f"check_layers: no include/litegraph/ under {args.root}", file=sys.stderr)
        return 2
    if args.self_test:
        return self_test(args.root)

    files, count, problems = check(args.root)
    print(f"check_layers: {files} headers, {count} litegraph includes, "
          f"{len(ALLOWED)} backwards includes on the allow-list")
    if args.allowed:
        for a, b, why in ALLOWED:
            print(f"  allowed: include/{a} -> {b}\n           {why}")
    if problems:
        for p in problems:
            print(p)
        print(f"check_layers: FAILED, {len(problems)} problem(s); the layers are in "
              f"docs/design.md")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
