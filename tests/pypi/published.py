#!/usr/bin/env python3
"""ctest pypi.published: verdicts from published builds equal those from the same wheels on disk
(issue 33). For each of the four corpus torch releases, the corpus extension wheels are checked
`--against pip:torch==V` — resolved by pip from the package index as configured, every wheel read
by HTTP range requests — and `--against` the corpus's torch wheel with its pinned wheels from the
corpus directory; the JSON cells must be equal byte for byte, with each wheel named by its file
name (a URL or a path before it). A build whose pins the index now resolves to other wheels than
the corpus holds (a release since the corpus was fetched) is compared all the same, and if its
cells differ it is said and not counted as a failure.

  published.py ABICHECK CACHE   (exit 77: the corpus or the index cannot be reached)
"""
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile

MODULES = ["sgl_kernel-", "torchvision-", "torchaudio-", "xformers-", "torchao-", "torchcodec-"]


def cells(doc):
    """The cells, each wheel named by its file name."""
    text = json.dumps(doc["cells"], sort_keys=True)
    return re.sub(r'[^"\s!]*/([^/"\s!]+\.whl)', r"\1", text)


def pins(doc):
    """The wheels the build was laid out with, as its note names them."""
    for n in doc.get("notes", []):
        m = re.search(r"pins \(as pip installs them\): (.*)", n["message"])
        if m:
            return sorted(p.replace(" (by pip)", "") for p in m.group(1).split(", "))
    return []


def main():
    abicheck, cache = sys.argv[1], pathlib.Path(sys.argv[2])
    if (cache / "UNAVAILABLE").exists():
        print(f"skipped: {(cache / 'UNAVAILABLE').read_text().strip()}")
        return 77
    wheels = cache / "wheels"
    modules = [str(w) for w in sorted(wheels.glob("*.whl"))
               if any(w.name.startswith(m) for m in MODULES)]
    torches = sorted(wheels.glob("torch-*.whl"))
    if len(modules) < 5 or len(torches) < 4:
        print(f"FAIL: the corpus holds {len(modules)} extension wheels and {len(torches)} torches")
        return 1
    failures = compared = moved = 0
    with tempfile.TemporaryDirectory() as home:
        env = dict(os.environ, XDG_CACHE_HOME=home)
        for torch in torches:
            version = torch.name.split("-")[1]
            local = subprocess.run([abicheck, "check", *modules, "--against", str(torch),
                                    "--find-links", str(wheels), "--format", "json"],
                                   capture_output=True, text=True, env=env, timeout=900)
            remote = subprocess.run([abicheck, "check", *modules, "--against",
                                     f"pip:torch=={version}", "--python-version", "3.12",
                                     "--format", "json"],
                                    capture_output=True, text=True, env=env, timeout=900)
            if remote.returncode == 3 and re.search(
                    r"pip|network|resolve|connect|timed out", remote.stderr, re.I) and \
                    not remote.stdout:
                print(f"skipped: pip:torch=={version}: the package index cannot be reached: "
                      f"{remote.stderr.strip()[-300:]}")
                return 77
            if not local.stdout or not remote.stdout:
                print(f"FAIL: torch {version}: no report (files: exit {local.returncode} "
                      f"{local.stderr.strip()[-200:]}; pip: exit {remote.returncode} "
                      f"{remote.stderr.strip()[-200:]})")
                failures += 1
                continue
            a, b = json.loads(local.stdout), json.loads(remote.stdout)
            same = cells(a) == cells(b) and local.returncode == remote.returncode
            if same:
                compared += 1
                print(f"torch {version}: {len(a['cells'])} cells equal (exit {local.returncode})")
            elif pins(a) != pins(b):
                moved += 1
                print(f"torch {version}: the index now pins other wheels than the corpus holds "
                      f"({sorted(set(pins(b)) - set(pins(a)))} for "
                      f"{sorted(set(pins(a)) - set(pins(b)))}); not compared")
            else:
                failures += 1
                diff = [(x["module"], x["verdict"], y["verdict"])
                        for x, y in zip(a["cells"], b["cells"]) if x != y][:3]
                print(f"FAIL: torch {version}: the cells differ (exit {local.returncode} vs "
                      f"{remote.returncode}), e.g. {diff}")
    if failures:
        return 1
    if compared == 0:
        print(f"FAIL: no build compared ({moved} moved on the index)")
        return 1
    print(f"ok: {compared} builds give byte-equal cells from pip: and from the files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
