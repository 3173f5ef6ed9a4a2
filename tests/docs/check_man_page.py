#!/usr/bin/env python3
"""The man page says what the program does (issue 36 item 12): every command has a COMMANDS
entry and a SYNOPSIS line, every long option any command's --help lists appears in it, and the
README names every command.
Usage: check_man_page.py ABICHECK REPO_ROOT
"""
import pathlib
import re
import subprocess
import sys

COMMANDS = ["check", "env", "gpu", "symbols", "diff", "index", "cache"]


def main(abicheck: str, root: pathlib.Path) -> int:
    man = (root / "docs" / "abicheck.1").read_text()
    readme = (root / "README.md").read_text()
    listed = subprocess.run([abicheck, "--help"], capture_output=True, text=True).stdout
    errors = []
    commands = re.findall(r"^  (\w+)\s", listed, re.M)
    if sorted(commands) != sorted(COMMANDS):
        errors.append(f"abicheck --help lists {commands}, this test knows {COMMANDS}")
    synopsis = man[man.index(".SH SYNOPSIS"):man.index(".SH DESCRIPTION")]
    section = man[man.index(".SH COMMANDS"):man.index(".SH OPTIONS")]
    options = 0
    for c in commands:
        if not re.search(rf"^\.B abicheck {c}\b", synopsis, re.M) and c != "check":
            errors.append(f"docs/abicheck.1: SYNOPSIS has no line for {c}")
        if not re.search(rf"^\.B {c}\b", section, re.M):
            errors.append(f"docs/abicheck.1: COMMANDS has no entry for {c}")
        if f"abicheck {c}" not in readme and c != "check":
            errors.append(f"README.md: never shows `abicheck {c}`")
        text = subprocess.run([abicheck, c, "--help"], capture_output=True, text=True).stdout
        for opt in sorted(set(re.findall(r"^\s+(?:-\w, ?)?(--[a-z][a-z-]*)", text, re.M))):
            if opt in ("--help", "--version"):
                continue
            options += 1
            if opt.replace("-", "\\-") not in man:
                errors.append(f"docs/abicheck.1: {c}'s option {opt} is not described")
    for e in errors:
        print(e)
    if not errors:
        print(f"check_man_page: {len(commands)} commands and {options} options, all in the man page")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], pathlib.Path(sys.argv[2])))
