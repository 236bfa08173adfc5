#!/usr/bin/env python3
"""Op-name check: no op type or PIR name spelled as a string literal outside its op's header.

An op type ("conv2d", "relu", "fused_conv2d", ...) is a fact of the op that
declares it (its `paddle_types[]` or, for an activation functor, its
`paddle_type`), and so is a Paddle 3.x (PIR) op name it is loaded from ("1.hardswish":
its `pir_names[]` or, for an activation functor, its `pir_type`;
ops/pir_traits.hpp).  Everywhere else code refers to that declaration
(`ops::conv2d::paddle_types[0]`, a trait on the op, a type list; the PIR
loader derives its name table from the traits), so renaming or adding an op
changes one file.  This script collects every op type and PIR name declared
under include/litegraph/ (ops/ and fusion/), then scans the project's own code
(include/, tools/, examples/, benchmarks/) for a string literal equal to one of
them.  A literal is fine

  - in the header that declares it,
  - as the key of an attribute accessor (`get("shape", ...)`, the PIR
    loader's `attr<T>(v, "shape", ...)`, `copy(a, v, "clip")`, `int_array` and lists of
    attribute names it copies): "shape", "scale", "clip" are also attribute names,
  - in tests/ (tests build graphs by name on purpose) and in comments.

Anything else fails (exit 1, file:line: literal), unless ALLOWED below lists
the (file, literal) pair with its reason.  An ALLOWED entry that no longer
matches fails too, so the list can only shrink.

usage: tools/check_op_literals.py [--root DIR] [--types] [--allowed] [--self-test]
  --types      print the op types and PIR names found and where each is declared, then exit
  --allowed    also print the allow-list with its reasons
  --self-test  check the repository, then show that a copy with an op type
               spelled in a pass, a PIR name and an op type spelled in the
               PIR loader, and a stale allow-list entry, fail
               (ctest tools/check_op_literals)
Python 3 standard library only.
"""

import argparse
import os
import re
import shutil
import sys
import tempfile

from cpp_text import blank_comments

SCANNED = ["include", "tools", "examples", "benchmarks"]
EXTENSIONS = (".hpp", ".cpp", ".h", ".cc")
# Generated or vendored: the single headers repeat the sources.
SKIPPED = ["single_include/"]

# (file relative to the root, literal, reason).  Keep it short: each entry is a
# place where the string is not a reference to an op but a value of Paddle's
# own vocabulary that happens to equal an op type.
ALLOWED = [
    ("include/litegraph/passes/pipeline.hpp", "quantize_int8",
     "the name of the pass (for --after, skip lists and reports), which Paddle Lite's naming "
     "shares with the op it makes; code names the pass by pass_name(quantize_int8)"),
    ("tools/litegraph/cmd_info.hpp", "shape", "a key of the --json output"),
    ("tools/litegraph/cmd_run.hpp", "shape", "a key of the --json output"),
    ("benchmarks/kernels/bench_kernels.cpp", "shape", "a key of the --json output"),
    ("benchmarks/fusion/bench_fusion.cpp", "shape", "a key of the --json output"),
]

DECL_LIST = re.compile(r"paddle_types\s*\[\s*\]\s*=\s*\{([^}]*)\}", re.S)
DECL_ONE = re.compile(r"paddle_type\s*=\s*\"([^\"]+)\"")
# PIR names: the first string of each `pir_names[]` entry, or an activation
# functor's `pir_type`.
DECL_PIR_LIST = re.compile(r"pir_names\s*\[\s*\]\s*=\s*\{(.*?)\};", re.S)
DECL_PIR_ENTRY = re.compile(r"\{\s*\"([^\"]+)\"")
DECL_PIR_ONE = re.compile(r"pir_type\s*=\s*\"([^\"]+)\"")
LITERAL = re.compile(r"\"((?:[0-9]+\.)?[A-Za-z0-9_]+)\"")
# A literal that is the first argument of an attribute or option accessor is
# a key ("shape", "scale", "flatten" are attribute names of several ops), not
# a reference to the op of the same name.
KEY_CONTEXT = re.compile(r"\b(get|set|has|opt|find|count|contains|erase|value_or)\s*(<[^()]*>)?\s*\(\s*$"
                         r"|\battr\s*<[^()]*>\s*\(\s*v\s*,\s*$"  # the PIR loader's attr<T>(v, "key", ...)
                         r"|\bcopy\s*\(\s*a\s*,\s*v\s*,\s*$"  # its copy(a, v, "key")
                         r"|\bint_array\s*\([^()]*,\s*$"  # its int_array(v, k, a, ins, "key", ...)
                         r"|\bfor\s*\(\s*auto\s+k\s*:\s*\{[^}]*$")  # its lists of keys it copies


def source_files(root):
    for top in SCANNED:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("build"))
            for name in sorted(filenames):
                if name.endswith(EXTENSIONS):
                    path = os.path.join(dirpath, name)
                    rel = os.path.relpath(path, root).replace(os.sep, "/")
                    if not any(rel.startswith(s) for s in SKIPPED):
                        yield rel, path


def declared_types(root):
    """op type or PIR name -> set of files that declare it."""
    types = {}
    for rel, path in source_files(root):
        if not rel.startswith("include/litegraph/"):
            continue
        with open(path, encoding="utf-8") as f:
            text = blank_comments(f.read())
        for m in DECL_LIST.finditer(text):
            for name in LITERAL.findall(m.group(1)):
                types.setdefault(name, set()).add(rel)
        for m in DECL_ONE.finditer(text):
            types.setdefault(m.group(1), set()).add(rel)
        for m in DECL_PIR_LIST.finditer(text):
            for name in DECL_PIR_ENTRY.findall(m.group(1)):
                types.setdefault(name, set()).add(rel)
        for m in DECL_PIR_ONE.finditer(text):
            types.setdefault(m.group(1), set()).add(rel)
    return types


def check(root, allowed, out=sys.stdout):
    types = declared_types(root)
    if not types:
        print("check_op_literals: no op type declared under include/litegraph/", file=out)
        return 2
    used = set()
    faults = []
    files = 0
    for rel, path in source_files(root):
        files += 1
        with open(path, encoding="utf-8") as f:
            text = blank_comments(f.read())
        for lineno, line in enumerate(text.splitlines(), 1):
            for m in LITERAL.finditer(line):
                name = m.group(1)
                if name not in types or rel in types[name]:
                    continue
                if KEY_CONTEXT.search(line[:m.start()]):
                    continue
                if (rel, name) in allowed:
                    used.add((rel, name))
                    continue
                faults.append(f"{rel}:{lineno}: \"{name}\" (declared in {', '.join(sorted(types[name]))})")
    stale = [f"{rel}: \"{name}\" is allowed but no longer spelled there" for rel, name in sorted(set(allowed) - used)]
    for fault in faults:
        print(fault, file=out)
    for s in stale:
        print(s, file=out)
    if faults or stale:
        print(f"check_op_literals: {len(faults)} op type(s) spelled outside their op's header, "
              f"{len(stale)} stale allow-list entr(y/ies); refer to the op's declaration "
              "(e.g. ops::conv2d::paddle_types[0]) or a trait of the op instead", file=out)
        return 1
    print(f"check_op_literals: {len(types)} op types and PIR names, {files} files, "
          f"{len(used)} allowed literal(s): ok", file=out)
    return 0


def self_test(root):
    # The repository itself must pass (.ci/run also runs the plain check).
    import io
    report = io.StringIO()
    status = check(root, {(f, n) for f, n, _ in ALLOWED}, out=report)
    print("check_op_literals --self-test: the repository: " + report.getvalue().splitlines()[-1])
    if status != 0:
        print(report.getvalue())
        return status
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copytree(os.path.join(root, "include"), os.path.join(tmp, "include"))
        pass_file = os.path.join(tmp, "include", "litegraph", "passes", "zz_self_test.hpp")
        with open(pass_file, "w", encoding="utf-8") as f:
            f.write('// "conv2d" in a comment is fine\n'
                    'inline bool is_conv(const char* t) { return t == std::string_view("conv2d"); }\n')
        buf = io.StringIO()
        bad = check(tmp, set(), out=buf)
        if bad != 1 or 'zz_self_test.hpp:2: "conv2d"' not in buf.getvalue() or "zz_self_test.hpp:1:" in buf.getvalue():
            print("check_op_literals --self-test: a spelled op type in a pass was not caught:\n" + buf.getvalue())
            return 1
        os.remove(pass_file)
        pir_file = os.path.join(tmp, "include", "litegraph", "loader", "paddle", "pir", "zz_self_test.hpp")
        os.makedirs(os.path.dirname(pir_file), exist_ok=True)
        with open(pir_file, "w", encoding="utf-8") as f:
            f.write('inline bool hs(std::string_view n) { return n == "1.hardswish"; }\n'
                    'inline const char* hs_type() { return "hard_swish"; }\n')
        buf = io.StringIO()
        bad = check(tmp, set(), out=buf)
        if (bad != 1 or 'zz_self_test.hpp:1: "1.hardswish"' not in buf.getvalue()
                or 'zz_self_test.hpp:2: "hard_swish"' not in buf.getvalue()):
            print("check_op_literals --self-test: a PIR name or op type in the PIR loader was not caught:\n"
                  + buf.getvalue())
            return 1
        os.remove(pir_file)
        buf = io.StringIO()
        stale = check(tmp, {("include/litegraph/passes/none.hpp", "relu")}, out=buf)
        if stale != 1 or "no longer spelled" not in buf.getvalue():
            print("check_op_literals --self-test: a stale allow-list entry was not caught:\n" + buf.getvalue())
            return 1
    print("check_op_literals --self-test: a spelled op type, a PIR name in the loader and a stale entry fail: ok")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--types", action="store_true")
    ap.add_argument("--allowed", action="store_true")
    ap.add_argument("--self-test", action="store_true")
    args = ap.parse_args()
    if args.types:
        for name, files in sorted(declared_types(args.root).items()):
            print(f"{name}: {', '.join(sorted(files))}")
        return 0
    if args.allowed:
        for f, n, why in ALLOWED:
            print(f"{f}: \"{n}\": {why}")
    if args.self_test:
        return self_test(args.root)
    return check(args.root, {(f, n) for f, n, _ in ALLOWED})


if __name__ == "__main__":
    sys.exit(main())
