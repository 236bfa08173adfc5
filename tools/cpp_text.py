"""C++ source as the project's checks read it: comments blanked, lines kept.

    from cpp_text import blank_comments
    code = blank_comments(text)                       # string literals kept
    code = blank_comments(text, blank_strings=True)   # string literals blanked too

Comments (`//`, `/* */`) become spaces, newlines stay, so a match's line
number in the result is its line in the file.  String and character literals
(raw strings `R"d(...)d"` included) are read as literals, so a `//` inside
one is not a comment; with `blank_strings` their contents become spaces as
well (the opening quote stays).  Used by tools/check_op_literals.py (op names
are string literals: keep them) and tools/check_doc_paths.py (a name declared
in code, not quoted in a string: blank them).
"""
import re

_RAW = re.compile(r'R"([^(\s\\]{0,16})\(')


def _blank(s):
    return re.sub(r"[^\n]", " ", s)


def blank_comments(text, blank_strings=False):
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(_blank(text[i:j]))
            i = j
        elif c == "R" and _RAW.match(text, i) and not (i and (text[i - 1].isalnum() or
                                                              text[i - 1] == "_")):
            m = _RAW.match(text, i)
            end = text.find(")" + m.group(1) + '"', m.end())
            end = n if end < 0 else end + len(m.group(1)) + 2
            lit = text[i:end]
            out.append('R"' + _blank(lit[2:]) if blank_strings else lit)
            i = end
        elif c == '"' or (c == "'" and not (i and text[i - 1].isdigit())):  # not 1'000
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n) if j < n and text[j] == c else min(j, n)
            lit = text[i:j]
            out.append(c + _blank(lit[1:]) if blank_strings else lit)
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)
