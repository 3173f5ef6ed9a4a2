#!/usr/bin/env python3
"""link-duplicates.py: identical files at the same path in two virtualenvs become one inode;
two files of one virtualenv never do (ld.so tells objects apart by device and inode), nor do
files that differ in content or mode.
    link_duplicates_test.py SCRIPT"""
import os, subprocess, sys, tempfile

script = sys.argv[1]
with tempfile.TemporaryDirectory() as d:
    def put(path, data, mode=0o644):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        os.chmod(path, mode)
    same = b"\x7fELF" + b"x" * 8192
    a, b = f"{d}/torch-a/lib", f"{d}/torch-b/lib"
    put(f"{a}/libone.so", same)
    put(f"{a}/libtwo.so", same)          # the same bytes, another path in the same virtualenv
    put(f"{b}/libone.so", same)          # the same path and bytes: linked
    put(f"{b}/libtwo.so", same + b"!")   # the same path, other bytes: kept
    put(f"{a}/run.so", same, 0o755)
    put(f"{b}/run.so", same, 0o644)      # the same bytes, another mode: kept
    subprocess.run([script, f"{d}/torch-b", f"{d}/torch-a"], check=True)
    ino = lambda p: os.stat(p).st_ino
    failures = []
    if ino(f"{b}/libone.so") != ino(f"{a}/libone.so"):
        failures.append("identical files at the same path were not linked")
    if ino(f"{a}/libone.so") == ino(f"{a}/libtwo.so"):
        failures.append("two files of one virtualenv became one inode")
    if ino(f"{b}/libtwo.so") == ino(f"{a}/libtwo.so"):
        failures.append("files of different content were linked")
    if ino(f"{b}/run.so") == ino(f"{a}/run.so"):
        failures.append("files of different mode were linked")
    if open(f"{b}/libtwo.so", "rb").read() != same + b"!":
        failures.append("a file's content changed")
    for f in failures:
        print("FAIL:", f)
    print(f"{5 - len(failures)} passed, {len(failures)} failed")
    sys.exit(1 if failures else 0)
