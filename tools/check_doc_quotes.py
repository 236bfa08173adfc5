#!/usr/bin/env python3
"""Checks that code a document quotes is still in the file it quotes.

In a Markdown file, a line `<!-- quote: PATH -->` (PATH relative to the
repository root) marks the fenced code block that follows as a quote of PATH.
The block's lines must appear in PATH verbatim and in order; a line that is
only `...` (indented or not) stands for lines left out.  Exit 1 naming the
document line of each quote that no longer matches, so a doc cannot drift
from compiled code (ctest docs/quotes).

usage: tools/check_doc_quotes.py DOC.md...
"""

import os
import re
import sys

MARK = re.compile(r"^<!--\s*quote:\s*(\S+)\s*-->\s*$")


def chunks(block):
    """The block's lines split at `...` lines."""
    out, cur = [], []
    for line in block:
        if line.strip() == "...":
            if cur:
                out.append(cur)
            cur = []
        else:
            cur.append(line)
    if cur:
        out.append(cur)
    return out


def find(lines, chunk, start):
    """Index after the first occurrence of `chunk` in lines[start:], or -1."""
    n = len(chunk)
    for i in range(start, len(lines) - n + 1):
        if lines[i:i + n] == chunk:
            return i + n
    return -1


def check(root, doc):
    problems, quotes = [], 0
    with open(doc, encoding="utf-8") as f:
        text = f.read().split("\n")
    i = 0
    while i < len(text):
        m = MARK.match(text[i])
        i += 1
        if not m:
            continue
        mark_line = i
        while i < len(text) and not text[i].startswith("```"):
            i += 1
        if i >= len(text):
            problems.append(f"{doc}:{mark_line}: quote of {m.group(1)} has no code block")
            break
        i += 1
        block = []
        while i < len(text) and not text[i].startswith("```"):
            block.append(text[i])
            i += 1
        i += 1
        quotes += 1
        path = os.path.join(root, m.group(1))
        if not os.path.isfile(path):
            problems.append(f"{doc}:{mark_line}: quoted file {m.group(1)} does not exist")
            continue
        with open(path, encoding="utf-8") as f:
            source = f.read().split("\n")
        at = 0
        for c in chunks(block):
            nxt = find(source, c, at)
            if nxt < 0:
                problems.append(f"{doc}:{mark_line}: these lines are not in {m.group(1)} "
                                f"(in this order):\n    " + "\n    ".join(c))
                break
            at = nxt
    return quotes, problems


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    failed = False
    for doc in sys.argv[1:]:
        quotes, problems = check(root, doc)
        for p in problems:
            print(p)
        failed = failed or bool(problems)
        print(f"check_doc_quotes: {doc}: {quotes} quotes, {len(problems)} stale")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
