#!/usr/bin/env python3
"""No function in lib/ or tools/ over 80 lines without a reason written beside it (issue 13).

A function is a definition whose body opens at the end of its signature line and closes with a
`}` at the signature's indentation (the layout .clang-format gives): free functions at column
0, member functions defined in a class at their member indentation. Lambdas count towards the
function they are in. A longer function passes when the comment just above it has a line
"Long: <why>".
Usage: check_function_length.py REPO_ROOT [LIMIT]
"""
import pathlib
import re
import sys


def starts_declaration(lines, i):
    """Line i begins a declaration: the line before it ends one (or is blank, a comment, a label)."""
    if i == 0:
        return True
    prev = lines[i - 1].strip()
    return (prev == "" or prev.endswith((";", "{", "}", ":")) or prev.startswith(("//", "#"))
            or prev.endswith("*/"))


def functions(lines):
    """Yields (first line index, last line index) of each function definition."""
    i = 0
    while i < len(lines):
        line = lines[i]
        indent = len(line) - len(line.lstrip(" "))
        stripped = line.strip()
        if (indent % 2 or indent > 4 or not re.match(r"[A-Za-z_~]", stripped)
                or not starts_declaration(lines, i)
                or re.match(r"(namespace|struct|class|enum|union|extern|return|if|for|while|"
                            r"switch|case|else|do|using|typedef|template)\b", stripped)):
            i += 1
            continue
        # The signature runs to the first line ending in "{" or ";".
        j = i
        while j < len(lines) and j - i < 8 and not lines[j].rstrip().endswith(("{", ";", "}")):
            j += 1
        if j >= len(lines) or not lines[j].rstrip().endswith("{"):
            i = j + 1
            continue
        signature = " ".join(l.strip() for l in lines[i:j + 1])
        if "(" not in signature or "=" in signature.split("(")[0]:
            i = j + 1  # not a function: an initialised variable, an aggregate
            continue
        close = " " * indent + "}"
        end = j + 1
        while end < len(lines) and not (lines[end].startswith(close) and
                                        (len(lines[end]) == len(close) or
                                         lines[end][len(close)] in " ;")):
            end += 1
        yield i, end
        i = end + 1


def main(root: pathlib.Path, limit: int) -> int:
    errors = []
    files = []
    for top in ("lib", "tools"):
        files += sorted((root / top).rglob("*.cc")) + sorted((root / top).rglob("*.h"))
    for f in files:
        lines = f.read_text().split("\n")
        for first, last in functions(lines):
            length = last - first + 1
            if length <= limit:
                continue
            above = []
            k = first - 1
            while k >= 0 and lines[k].lstrip().startswith("//"):
                above.append(lines[k])
                k -= 1
            if any("Long:" in a for a in above):
                continue
            name = lines[first].strip()
            errors.append(f"{f.relative_to(root)}:{first + 1}: {length} lines: {name[:70]}")
    for e in errors:
        print(e)
    print(f"check_function_length: {len(errors)} functions over {limit} lines without a reason")
    return 1 if errors else 0


if __name__ == "__main__":
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    sys.exit(main(root, int(sys.argv[2]) if len(sys.argv) > 2 else 80))
