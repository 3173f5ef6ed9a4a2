#!/usr/bin/env python3
"""ctest pypi.diff_pairs: `abicheck diff` pairs every library of two real torch wheels by its path
inside the wheel (issue 36 item 1): over all six pairs of the four corpus torch wheels, each
library present in both wheels is compared with the library at the same path, and never with
another; a library is "removed" or "added" only when its path is absent from the other wheel; no
library appears twice on either side. (diff torch-2.9.1 torch-2.10.0 once paired functorch/_C
with torch/_C and reported torch/_C removed, though both wheels hold both.)

  diff_pairs.py ABICHECK CACHE   (exit 77: make-venvs.sh could not fetch the corpus)
"""
import itertools
import json
import pathlib
import subprocess
import sys
import zipfile


def shared_objects(wheel):
    """The paths of the shared objects a wheel holds (what diff reads of a build)."""
    with zipfile.ZipFile(wheel) as z:
        names = [i.filename for i in z.infolist() if not i.is_dir()]
    return {n for n in names if n.endswith(".so") or ".so." in n.rsplit("/", 1)[-1]}


def member(name, wheel):
    """WHEEL!path -> path ('' for none)."""
    if not name:
        return ""
    prefix = f"{wheel}!"
    if not name.startswith(prefix):
        sys.exit(f"FAIL: {name!r} is not a member of {wheel}")
    return name[len(prefix):]


def main():
    abicheck, cache = sys.argv[1], pathlib.Path(sys.argv[2])
    if (cache / "UNAVAILABLE").exists():
        print(f"skipped: {(cache / 'UNAVAILABLE').read_text().strip()}")
        return 77
    wheels = sorted((cache / "wheels").glob("torch-*.whl"),
                    key=lambda p: [int(x) for x in p.name.split("-")[1].split(".")])
    if len(wheels) < 4:
        sys.exit(f"FAIL: {len(wheels)} torch wheels in {cache / 'wheels'} (the corpus has four)")
    failures, pairs = [], 0
    for old, new in itertools.combinations(wheels, 2):
        r = subprocess.run([abicheck, "diff", str(old), str(new), "--format", "json"],
                           capture_output=True, text=True)
        if r.returncode not in (0, 1) or not r.stdout:
            sys.exit(f"FAIL: diff {old.name} {new.name}: exit {r.returncode}: {r.stderr[-2000:]}")
        doc = json.loads(r.stdout)
        old_sos, new_sos = shared_objects(old), shared_objects(new)
        seen_old, seen_new = set(), set()
        for lib in doc["libraries"]:
            a, b = member(lib["old_library"], str(old)), member(lib["new_library"], str(new))
            where = f"{old.name} -> {new.name}: {a or '(none)'} -> {b or '(none)'}"
            if a and b and a != b:
                failures.append(f"{where}: paired with another path")
            if a and not b and a in new_sos:
                failures.append(f"{where}: reported removed, but the new wheel holds it")
            if b and not a and b in old_sos:
                failures.append(f"{where}: reported added, but the old wheel holds it")
            for name, seen, side in ((a, seen_old, "old"), (b, seen_new, "new")):
                if name and name in seen:
                    failures.append(f"{where}: the {side} library appears twice")
                seen.add(name)
        pairs += 1
        print(f"{old.name} -> {new.name}: {len(doc['libraries'])} libraries with changes, "
              f"{len(old_sos & new_sos)} paths in both")
    if failures:
        print("\n".join(f"FAIL: {f}" for f in failures))
        return 1
    print(f"ok: {pairs} pairs, every library paired by its path")
    return 0


if __name__ == "__main__":
    sys.exit(main())
