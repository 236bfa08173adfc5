#!/usr/bin/env python3
"""Checks that the paths and `litegraph::` names the docs cite still exist.

Read: README.md, docs/*.md and the comments of include/**/*.hpp.

Paths.  In a Markdown file, every word of an inline code span (`...`) that
starts with a repository folder (include/ tools/ docs/ examples/ tests/
benchmarks/ cmake/ single_include/ .ci/) must exist from the repository root;
a word that starts with a folder of include/litegraph/ (core/, ops/,
runtime/, loader/, ...) or with litegraph/ must exist from include/litegraph/
or include/ (docs/design.md writes `loader/paddle/loader.hpp`).  Every
Markdown link or image target ([text](PATH)) must exist from the Markdown
file's folder (web addresses and #anchors aside).  In a header comment the
same words are checked without backticks; there a word relative to
include/litegraph/ must name a file (end in .hpp, .cpp, .md, .py, .sh,
.cmake, ...), so prose like "ops/s" is left alone.

Skipped, by rule: a word with a placeholder, that is `<`, `>`, `*`, `?`,
`{`, `}`, `[`, `...`, `$`, or a path segment that is an upper-case
placeholder word (NAME, DIR, FILE, PREFIX, OUT, MODEL, TARGET, LAYER, N, X;
e.g. `tests/<layer>/<name>.cpp`, `include/litegraph/ops/int8/NAME_int8.hpp`,
`tests/broken/plan-*`).  A word that is the name of a ctest test
(`add_test(NAME docs/ops_fresh ...)` in a CMakeLists.txt, `${...}` in a name
matching anything) resolves too: `firmware/activations`, `tools/check_layers`.
A path of another project is written with that project's folder first
(`PaddleOCR/tools/infer/predict_system.py`), so it is not a repository path.

Names.  Every `litegraph::a::b` (anywhere in a Markdown file, code blocks
included, and in header comments) must be declared under include/: some
header opens namespace `a` (or declares struct/class `a`; for
`litegraph::b`, namespace litegraph) and declares `b` there, textually: `b`
after struct/class/union/enum/using/concept/namespace, or after a type and
before one of ( { = ; [ <.  A name that is a CMake target
(`add_library(litegraph::paddle ALIAS ...)`) resolves too.

Exit 1 listing FILE:LINE: path or name, one per line.

usage: tools/check_doc_paths.py [--root DIR] [--self-test] [FILE...]
  --root DIR   the repository to check (default: this script's repository)
  --self-test  check the repository, then show that copies with a stale path,
               a stale link, a stale comment path and an undeclared name fail,
               and that placeholders and ctest names pass (ctest
               tools/check_doc_paths)
  FILE...      check only these Markdown files and headers
Python 3 standard library only.
"""

import argparse
import glob
import os
import re
import shutil
import sys
import tempfile

from cpp_text import blank_comments

ROOT_FOLDERS = ["include", "tools", "docs", "examples", "tests", "benchmarks", "cmake",
                "single_include", ".ci"]
PLACEHOLDER_WORDS = {"NAME", "DIR", "FILE", "PREFIX", "OUT", "MODEL", "TARGET", "LAYER",
                     "N", "X"}
PLACEHOLDER_CHARS = set("<>*?{}[$")
FILE_SUFFIXES = (".hpp", ".cpp", ".h", ".md", ".py", ".sh", ".cmake", ".txt", ".in", ".json",
                 ".ld", ".proto")

SPAN_RE = re.compile(r"(`+)(.+?)\1")
LINK_RE = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
NAME_RE = re.compile(r"(?<![\w:])litegraph((?:::[A-Za-z_]\w*)+)")
CTEST_RE = re.compile(r"add_test\s*\(\s*NAME\s+(\S+)")
ALIAS_RE = re.compile(r"add_library\s*\(\s*(litegraph::\w+)\s+ALIAS")


def path_word_re(heads):
    alt = "|".join(re.escape(h) for h in sorted(heads, key=len, reverse=True))
    return re.compile(r"(?<![\w./~-])((?:%s)/[\w./<>*?{}\[\]$+-]*)" % alt)


class Repo:
    def __init__(self, root):
        self.root = root
        inc = os.path.join(root, "include", "litegraph")
        self.layers = sorted(d for d in os.listdir(inc) if os.path.isdir(os.path.join(inc, d)))
        self.root_re = path_word_re(ROOT_FOLDERS)
        self.rel_re = path_word_re(self.layers + ["litegraph"])
        self.ctests, self.targets = self._cmake()
        self.code = self._headers()
        self._names = {}

    def _cmake(self):
        tests, targets = [], set()
        for dirpath, dirnames, files in os.walk(self.root, followlinks=True):
            dirnames[:] = [d for d in dirnames
                           if not d.startswith(("build", ".git")) and d not in ("single_include", "corpus")]
            for f in files:
                if f == "CMakeLists.txt" or f.endswith((".cmake", ".cmake.in")):
                    with open(os.path.join(dirpath, f), encoding="utf-8") as fh:
                        text = fh.read()
                    for m in CTEST_RE.finditer(text):
                        parts = re.split(r"\$\{[^}]*\}", m.group(1))
                        if "/" not in parts[0]:
                            continue  # ${dir}/${name}: no folder of its own
                        tests.append(re.compile(".+".join(re.escape(p) for p in parts) + "$"))
                    targets.update(ALIAS_RE.findall(text))
        return tests, targets

    def _headers(self):
        """{header: its text with comments and string literals blanked}."""
        out = {}
        for path in glob.glob(os.path.join(self.root, "include", "**", "*.hpp"), recursive=True):
            with open(path, encoding="utf-8") as f:
                out[path] = blank_comments(f.read(), blank_strings=True)
        return out

    def is_ctest(self, word):
        return any(r.match(word) for r in self.ctests)

    def exists(self, *parts):
        return os.path.exists(os.path.join(self.root, *parts))

    def declared(self, qualified):
        """Whether litegraph::qualified (e.g. "ops::conv2d") is declared under include/."""
        if qualified in self._names:
            return self._names[qualified]
        parts = qualified.split("::")
        scope, name = (parts[-2] if len(parts) > 1 else "litegraph"), parts[-1]
        scope_re = re.compile(r"\b(?:namespace\s+(?:\w+::)*|struct\s+|class\s+)%s\b" %
                              re.escape(scope))
        n = re.escape(name)
        decl_re = re.compile(
            r"\b(?:struct|class|union|enum|using|concept|namespace(?:\s+\w+::)*)\s+(?:\w+::)*%s\b"
            r"|[\w>&*\]]\s+[&*]*%s\s*[({=;\[<]" % (n, n))
        ok = any(scope_re.search(text) and decl_re.search(text) for text in self.code.values())
        self._names[qualified] = ok
        return ok


def comment_lines(text):
    """(line number, comment text) of each line of C++ comments in text."""
    out, in_block = [], False
    for no, line in enumerate(text.split("\n"), 1):
        if in_block:
            end = line.find("*/")
            out.append((no, line if end < 0 else line[:end]))
            in_block = end < 0
            continue
        code = strip_strings(line)
        c = code.find("//")
        b = code.find("/*")
        if c >= 0 and (b < 0 or c < b):
            out.append((no, line[c + 2:]))
        elif b >= 0:
            end = line.find("*/", b + 2)
            out.append((no, line[b + 2:] if end < 0 else line[b + 2:end]))
            in_block = end < 0
    return out


def strip_strings(line):
    return re.sub(r'"(?:\\.|[^"\\])*"', lambda m: " " * len(m.group(0)), line)


def placeholder(word):
    if any(ch in PLACEHOLDER_CHARS for ch in word) or "..." in word:
        return True
    return any(tok in PLACEHOLDER_WORDS for tok in re.split(r"[^A-Za-z]+", word))


def clean(word):
    return word.rstrip(".,:;)'\"")


def check_word(repo, word, relative_needs_file):
    """None when `word` resolves or is not a path; else the word to report."""
    word = clean(word)
    if not word or placeholder(word):
        return None
    if repo.root_re.fullmatch(word):
        if repo.exists(word) or repo.is_ctest(word):
            return None
        return word
    if repo.rel_re.fullmatch(word):
        if relative_needs_file and not word.endswith(FILE_SUFFIXES):
            return None
        if repo.exists("include", "litegraph", word) or repo.exists("include", word) \
                or repo.is_ctest(word):
            return None
        return word
    return None


def words_in(repo, text):
    """The path-like words of text (both kinds), in order."""
    found = [(m.start(), m.group(1)) for m in repo.root_re.finditer(text)]
    found += [(m.start(), m.group(1)) for m in repo.rel_re.finditer(text)]
    return [w for _, w in sorted(found)]


def check_markdown(repo, path, shown):
    problems = []
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    fenced = False
    for no, line in enumerate(lines, 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        for m in NAME_RE.finditer(line):
            q = m.group(1)[2:]
            if "litegraph::" + q not in repo.targets and not repo.declared(q):
                problems.append(f"{shown}:{no}: name litegraph::{q}")
        if fenced:
            continue
        for m in SPAN_RE.finditer(line):
            for w in words_in(repo, m.group(2)):
                bad = check_word(repo, w, relative_needs_file=False)
                if bad:
                    problems.append(f"{shown}:{no}: path {bad}")
        for m in LINK_RE.finditer(SPAN_RE.sub("", line)):
            target = m.group(1).split("#")[0]
            if not target or re.match(r"^[a-z][a-z0-9+.-]*:", target):
                continue
            if not os.path.exists(os.path.join(os.path.dirname(path), target)):
                problems.append(f"{shown}:{no}: link {target}")
    return problems


def check_header(repo, path, shown):
    problems = []
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for no, comment in comment_lines(text):
        for m in NAME_RE.finditer(comment):
            q = m.group(1)[2:]
            if "litegraph::" + q not in repo.targets and not repo.declared(q):
                problems.append(f"{shown}:{no}: name litegraph::{q}")
        for w in words_in(repo, comment):
            bad = check_word(repo, w, relative_needs_file=True)
            if bad:
                problems.append(f"{shown}:{no}: path {bad}")
    return problems


def default_files(root):
    files = [os.path.join(root, "README.md")]
    files += sorted(glob.glob(os.path.join(root, "docs", "*.md")))
    files += sorted(glob.glob(os.path.join(root, "include", "**", "*.hpp"), recursive=True))
    return [f for f in files if os.path.isfile(f)]


def run(root, files=None):
    """The problems of the repository at root, one line each."""
    repo = Repo(root)
    problems = []
    for path in files or default_files(root):
        shown = os.path.relpath(path, root)
        if path.endswith(".md"):
            problems += check_markdown(repo, path, shown)
        else:
            problems += check_header(repo, path, shown)
    return problems, len(files or default_files(root))


def self_test(root):
    problems, _ = run(root)
    if problems:
        print("self-test: the repository itself does not pass:")
        print("\n".join(problems))
        return 1
    cases = [
        # (what, file, text appended, expected fragment or None when it must pass)
        ("stale path in a doc", "README.md", "\nSee `tools/no_such_tool.py --x`.\n",
         "path tools/no_such_tool.py"),
        ("stale include-relative path", "docs/design.md", "\nIn `runtime/kernels.hpp`.\n",
         "path runtime/kernels.hpp"),
        ("stale link", "README.md", "\n![a picture](docs/images/none.png)\n",
         "link docs/images/none.png"),
        ("stale path in a header comment", "include/litegraph/core/error.hpp",
         "\n// compiled by tools/simd_avx2.cpp\n", "path tools/simd_avx2.cpp"),
        ("undeclared name in a doc", "README.md", "\nCall `litegraph::no_such_function()`.\n",
         "name litegraph::no_such_function"),
        ("undeclared name in a comment", "include/litegraph/core/error.hpp",
         "\n/// see litegraph::ops::no_such_op\n", "name litegraph::ops::no_such_op"),
        ("placeholders", "README.md",
         "\n`tests/<layer>/<name>.cpp`, `tests/broken/plan-*`, "
         "`include/litegraph/ops/int8/NAME_int8.hpp`, `PaddleOCR/tools/x.py`\n", None),
        ("ctest names, CMake targets, declared names", "README.md",
         "\n`docs/ops_fresh`, `tools/check_layers`, `litegraph::paddle`, "
         "`litegraph::session`, `litegraph::ops::conv2d`, `ops/op.hpp`\n", None),
    ]
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, "repo")
        os.mkdir(copy)
        for entry in os.listdir(root):  # the files the cases edit copied, the rest linked
            if entry in ("README.md", "docs", "include"):
                (shutil.copytree if entry != "README.md" else shutil.copy)(
                    os.path.join(root, entry), os.path.join(copy, entry))
            elif not entry.startswith(("build", ".git")):
                os.symlink(os.path.join(root, entry), os.path.join(copy, entry))
        for what, rel, extra, expect in cases:
            path = os.path.join(copy, rel)
            with open(path, encoding="utf-8") as f:
                before = f.read()
            with open(path, "a", encoding="utf-8") as f:
                f.write(extra)
            got, _ = run(copy, [path])
            with open(path, "w", encoding="utf-8") as f:
                f.write(before)
            ok = not got if expect is None else len(got) == 1 and expect in got[0]
            print(f"self-test: {what}: {'ok' if ok else 'FAILED'}" + ("" if ok else f" {got}"))
            failed += not ok
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--self-test", action="store_true")
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    if args.self_test:
        return self_test(root)
    files = [os.path.abspath(f) for f in args.files] or None
    problems, count = run(root, files)
    for p in problems:
        print(p)
    print(f"check_doc_paths: {count} files, {len(problems)} unresolved")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
