#!/usr/bin/env python3
"""Functions longer than a limit (default 120 lines, from `fn` to its closing
brace) in the product code: the library crates, the command-line kit and the
`boardscribe` binary (not the lab, not tests: files named *tests.rs and what
follows a `#[cfg(test)]` line in a file are skipped). Braces in strings, chars
and comments are skipped. Run from the repository root:
python3 tests/tools/long_functions.py [LIMIT]"""
import os
import re
import sys

ROOTS = ["crates/core/src", "crates/vision/src", "crates/round/src", "crates/cli/src", "src"]
FN = re.compile(r"^\s*(pub(\([^)]*\))?\s+)?(const\s+)?(async\s+)?(unsafe\s+)?fn\s+(\w+)")


def code_only(text):
    """The text with strings, chars and comments blanked (newlines kept)."""
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
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "r" and re.match(r'r#*"', text[i:i + 10]) and (i == 0 or not text[i - 1].isalnum()):
            m = re.match(r'r(#*)"', text[i:])
            end = '"' + m.group(1)
            j = text.find(end, i + len(m.group(0)))
            j = n if j < 0 else j + len(end)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(re.sub(r"[^\n]", " ", text[i:j + 1]))
            i = j + 1
        elif c == "'" and re.match(r"'(\\.|[^\\'])'|'\\u\{[0-9a-fA-F]+\}'", text[i:i + 12]):
            m = re.match(r"'(\\.|[^\\'])'|'\\u\{[0-9a-fA-F]+\}'", text[i:i + 12])
            out.append(" " * len(m.group(0)))
            i += len(m.group(0))
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(path):
    text = open(path, encoding="utf-8").read()
    lines = code_only(text).split("\n")
    for k, line in enumerate(lines):
        if line.strip().startswith("#[cfg(test)]"):
            lines = lines[:k]
            break
    k = 0
    while k < len(lines):
        m = FN.match(lines[k])
        if not m:
            k += 1
            continue
        depth, start, j, opened = 0, k, k, False
        while j < len(lines):
            for ch in lines[j]:
                if ch == "{":
                    depth += 1
                    opened = True
                elif ch == "}":
                    depth -= 1
                elif ch == ";" and not opened and depth == 0:
                    break
            if (opened and depth == 0) or (not opened and ";" in lines[j]):
                break
            j += 1
        if opened:
            yield m.group(6), start + 1, j - start + 1
        k += 1


def main():
    limit = int(sys.argv[1]) if len(sys.argv) > 1 else 120
    found = []
    for root in ROOTS:
        for d, _, files in os.walk(root):
            for f in files:
                if f.endswith(".rs") and not f.endswith("tests.rs"):
                    p = os.path.join(d, f)
                    found += [(n, p, line, size) for n, line, size in functions(p)]
    found.sort(key=lambda x: -x[3])
    for name, p, line, size in found[:5]:
        print(f"{size:5} {p}:{line} {name}")
    over = [x for x in found if x[3] > limit]
    print(f"{len(found)} functions; {len(over)} over {limit} lines")
    return 1 if over else 0


sys.exit(main())
