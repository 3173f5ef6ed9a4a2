#!/usr/bin/env python3
"""ctest pypi.pip_finder: pip's finder, as abicheck asks it (lib/inputs/pip_finder.py), names for
each requirement the very wheel pip's resolver took for it (issue 33). The corpus was fetched by
`pip download` (bench/fetch-pypi-corpus.sh): for the four torch releases and every exact pin of
theirs, the finder run with the same options must give the file pip downloaded — the same name and
the sha256 of its bytes — with each pip the machine has (the interpreter on PATH and Debian's).

  pip_finder.py FINDER_SCRIPT CACHE   (exit 77: the corpus or the index cannot be reached)
"""
import json
import pathlib
import re
import shutil
import subprocess
import sys
import urllib.parse
import zipfile


def norm(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def exact_pins(wheel):
    """torch's Requires-Dist pins (name==version, prefix versions too) that hold on x86_64 Linux."""
    with zipfile.ZipFile(wheel) as z:
        meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        text = z.read(meta).decode()
    pins = []
    for line in text.splitlines():
        if not line.startswith("Requires-Dist:"):
            continue
        req, _, marker = line[len("Requires-Dist:"):].partition(";")
        if "extra ==" in marker or ("platform_machine" in marker and "x86_64" not in marker):
            continue
        m = re.fullmatch(r"\s*([A-Za-z0-9_.-]+)(\[[^\]]*\])?\s*==\s*([0-9][0-9A-Za-z.+*]*)\s*",
                         req)
        if m:
            pins.append((norm(m.group(1)), m.group(3), f"{m.group(1)}=={m.group(3)}"))
    return pins


def main():
    script, cache = sys.argv[1], pathlib.Path(sys.argv[2])
    if (cache / "UNAVAILABLE").exists():
        print(f"skipped: {(cache / 'UNAVAILABLE').read_text().strip()}")
        return 77
    wheels = sorted((cache / "wheels").glob("*.whl"))
    # The fetch script's sums of the files pip downloaded (verified on each reuse).
    sums = dict(reversed(line.split()) for line in (cache / "SHA256SUMS").read_text().splitlines())
    by_name = {}
    for w in wheels:
        dist, version = w.name.split("-")[:2]
        by_name.setdefault(norm(dist), []).append((version, w))
    reqs = {}  # requirement -> the corpus wheel pip took for it
    for torch in (w for w in wheels if w.name.startswith("torch-")):
        version = torch.name.split("-")[1]
        reqs[f"torch=={version}"] = torch
        for name, spec, text in exact_pins(torch):
            prefix = spec.endswith(".*")
            hits = [w for v, w in by_name.get(name, [])
                    if (v.startswith(spec[:-1]) if prefix else v == spec)]
            if len(hits) == 1:
                reqs[text] = hits[0]
    if len(reqs) < 30:
        print(f"FAIL: only {len(reqs)} requirements of the corpus to compare")
        return 1
    # bench/fetch-pypi-corpus.sh's options: what pip download was given.
    options = ["--only-binary=:all:", "--python-version", "3.12", "--implementation", "cp",
               "--abi", "cp312", "--abi", "abi3", "--abi", "none",
               "--platform", "manylinux2014_x86_64"]
    for minor in range(17, 37):
        options += ["--platform", f"manylinux_2_{minor}_x86_64"]
    pythons = []
    for p in (shutil.which("python3"), "/usr/bin/python3"):
        if p and p not in pythons and subprocess.run([p, "-m", "pip", "--version"],
                                                     capture_output=True).returncode == 0:
            pythons.append(p)
    if not pythons:
        print("FAIL: no python3 with pip")
        return 1
    failures = 0
    for python in pythons:
        pip_version = subprocess.run([python, "-m", "pip", "--version"], capture_output=True,
                                     text=True).stdout.split()[1]
        r = subprocess.run([python, script, *options, "--", *reqs], capture_output=True,
                           text=True, timeout=600)
        if r.returncode != 0:
            print(f"FAIL: {python} (pip {pip_version}): the finder failed: {r.stderr.strip()}")
            failures += 1
            continue
        answers = json.loads(r.stdout)["wheels"]
        if all("error" in a for a in answers):
            print(f"skipped: {python}: the package index cannot be reached "
                  f"({answers[0]['error']}; {r.stderr.strip()[-200:]})")
            return 77
        for a, (req, wheel) in zip(answers, reqs.items()):
            got = urllib.parse.unquote(a.get("url", "").rsplit("/", 1)[-1])
            want = sums.get(wheel.name)
            if a["requirement"] != req or got != wheel.name or a.get("sha256") != want:
                print(f"FAIL: {python} (pip {pip_version}): {req}: the finder gives "
                      f"{got or a.get('error')} ({a.get('sha256')}); pip took {wheel.name} "
                      f"({want})")
                failures += 1
        print(f"{python} (pip {pip_version}): {len(reqs)} requirements compared")
    if failures:
        return 1
    print(f"ok: pip's finder names the wheel pip took, for all {len(reqs)} requirements")
    return 0


if __name__ == "__main__":
    sys.exit(main())
