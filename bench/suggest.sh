#!/usr/bin/env bash
# Issue 33's --suggest numbers, against the real package index as pip is configured here:
# `abicheck env VENV --suggest REQ` cold (an empty abicheck cache each run; pip's own HTTP cache
# is left as it is), then warm (the cache the last cold run filled), beside `env VENV --against
# INDEX`, an index of the same torch wheels (made from that cache: no network). Medians of RUNS,
# with user CPU, peak RSS, pip's runs and the bytes read; the reports compared (the same
# recommendation and cells cold, warm). Then the same check three ways for the releases whose
# wheels the corpus has on disk: `--against pip:torch==V ...` from the warm cache, `--against
# torch-V.whl ... --find-links WHEELS` (the files), and an index of those wheels.
# Needs the PyPI corpus's venvs and wheels (tests/pypi/make-venvs.sh).
#   [ABICHECK_BIN=...] bench/suggest.sh [VENV] [REQ] [RUNS]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv=${1:-${ABICHECK_PYPI_CACHE:-$HOME/.cache/abicheck-corpus/pypi}/venvs/torch-2.9.1}
req=${2:-torch>=2.9.1,<2.15}
runs=${3:-3}
A=${ABICHECK_BIN:-}  # a built abicheck; else a Release build of the tree
if [ -z "$A" ]; then
  cmake -S "$root" -B "$root/build-bench" -G Ninja -DCMAKE_BUILD_TYPE=Release -DABICHECK_BUILD_TESTS=OFF > /dev/null
  cmake --build "$root/build-bench" --target abicheck > /dev/null
  A=$root/build-bench/tools/abicheck/abicheck
fi
wheels=${ABICHECK_PYPI_CACHE:-$HOME/.cache/abicheck-corpus/pypi}/wheels
exec python3 - "$A" "$venv" "$req" "$runs" "$wheels" <<'PY'
import json, os, pathlib, re, statistics, subprocess, sys, tempfile
abicheck, venv, req, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
wheels = pathlib.Path(sys.argv[5])
work = pathlib.Path(tempfile.mkdtemp(prefix="abicheck-suggest-"))
# pip's runs, counted by a wrapper around the interpreter abicheck runs pip with.
log = work / "pip-runs"
wrapper = work / "python3"
python = os.environ.get("ABICHECK_PIP_PYTHON", "python3")
wrapper.write_text(f"#!/bin/sh\necho run >> {log}\nexec {python} \"$@\"\n")
wrapper.chmod(0o755)

def timed(args, cache):
    log.unlink(missing_ok=True)
    env = dict(os.environ, XDG_CACHE_HOME=str(cache), ABICHECK_PIP_PYTHON=str(wrapper))
    r = subprocess.run(["/usr/bin/time", "-f", "%e %U %M", abicheck, *args], env=env,
                       capture_output=True, text=True)
    wall, user, rss = r.stderr.strip().splitlines()[-1].split()
    read = re.findall(r"(\d+) MB read", r.stderr)
    pips = len(log.read_text().splitlines()) if log.exists() else 0
    return {"wall": float(wall), "user": float(user), "rss": int(rss) // 1024, "pip": pips,
            "out": r.stdout, "rc": r.returncode}

suggest = ["env", venv, "--suggest", req]
cold, caches = [], []
for i in range(runs):
    cache = work / f"cache{i}"
    cold.append(timed(suggest, cache))
    caches.append(cache)
warm = [timed(suggest, caches[-1]) for _ in range(runs)]
# An index of the torch builds the suggestion read, from the cache (URL#sha256: no network).
torches = []
for f in sorted((caches[-1] / "abicheck" / "pip").glob("*.json")):
    j = json.loads(f.read_text())
    if j.get("requirement", "").startswith("torch==") and j.get("sha256"):
        torches.append(f"{j['location']}#sha256={j['sha256']}")
index = work / "builds.abi"
subprocess.run([abicheck, "index", *torches, "-o", str(index), "-q"], check=True,
               env=dict(os.environ, XDG_CACHE_HOME=str(caches[-1])))
indexed = [timed(["env", venv, "--against", str(index)], caches[-1]) for _ in range(runs)]

def secs(t):  # as /usr/bin/time gives them: hundredths under 10 s
    return "%.2f" % t if t < 10 else "%.1f" % t

def row(name, rs):
    med = lambda k: statistics.median(r[k] for r in rs)
    same = all(r["out"] == rs[0]["out"] for r in rs)
    each = ", ".join(secs(r["wall"]) for r in rs)
    print(f"| {name} | {secs(med('wall'))} s | {each} | "
          f"{med('user'):.1f} s | {med('rss'):.0f} MB | {med('pip'):.0f} | "
          f"{'yes' if same else 'NO'} |")

print(f"`abicheck env {pathlib.Path(venv).name} --suggest '{req}'`: {len(torches)} torch builds; "
      f"exit {cold[0]['rc']}")
print("| run | median wall | each | user CPU | peak RSS | pip runs | same report each run |")
print("|---|---|---|---|---|---|---|")
row("cold (empty cache)", cold)
row("warm (cache filled)", warm)
row(f"--against an index of the {len(torches)} torch wheels", indexed)
print("cold and warm reports equal:", "yes" if cold[0]["out"] == warm[0]["out"] else "NO")
wall = lambda rs: statistics.median(r["wall"] for r in rs)
print(f"warm / index: {wall(warm) / wall(indexed):.2f}x")
# What each run checked: the index keeps what torch's libraries export, so import torch and the
# packages a build replaces with its own pins (triton) are unknown there, and checked warm.
def checked(args):
    r = subprocess.run([abicheck, *args, "--format", "json"], capture_output=True, text=True,
                       env=dict(os.environ, XDG_CACHE_HOME=str(caches[-1])))
    j = json.loads(r.stdout)
    reports = [c["report"] for c in j["matrix"]["cells"]] + [t["report"] for t in j["torch_imports"]]
    refs = sum(r["summary"]["references_checked"] for r in reports)
    unknown = sum(1 for c in j["matrix"]["cells"] if c["verdict"] == "unknown")
    return refs, unknown, len(j["matrix"]["cells"])
(wr, wu, n), (ir, iu, _) = checked(suggest), checked(["env", venv, "--against", str(index)])
print(f"references relocated: warm {wr}, index {ir} ({wr / ir:.2f}x); unknown cells of {n}: "
      f"warm {wu}, index {iu}; wall per 1000 references: warm {1000 * wall(warm) / wr * 1000:.2f} ms, "
      f"index {1000 * wall(indexed) / ir * 1000:.2f} ms")
last = [l for l in cold[0]["out"].splitlines() if l.strip()][-2:]
print("ends:", " / ".join(last))

# The same builds three ways, where the corpus has their wheels: the question is the same, so
# the answer must be too (the cells' verdicts compared); the index checks less (not import torch).
on_disk = []
for t in torches:
    name = t.split("#")[0].rsplit("/", 1)[-1]
    if (wheels / name).is_file():
        on_disk.append((re.match(r"torch-([^-]+)-", name).group(1), wheels / name))
if not on_disk:
    print(f"(none of these torch wheels is in {wheels}: no comparison with the files)")
    sys.exit(0)
pins = [f"pip:torch=={v}" for v, _ in on_disk]
files = [str(w) for _, w in on_disk]
subprocess.run([abicheck, "index", *files, "-o", str(work / "disk.abi"), "-q"], check=True)
three = {
    "warm cache, `--against " + " ".join(pins) + "`": [timed(["env", venv, "--against", *pins], caches[-1]) for _ in range(runs)],
    "the wheels on disk, `--find-links` the corpus": [timed(["env", venv, "--against", *files, "--find-links", str(wheels)], caches[-1]) for _ in range(runs)],
    "an index of those torch wheels": [timed(["env", venv, "--against", str(work / "disk.abi")], caches[-1]) for _ in range(runs)],
}
def verdicts(args):  # each cell's module and verdict, and each import torch's, in JSON
    r = subprocess.run([abicheck, *args, "--format", "json"], capture_output=True, text=True,
                       env=dict(os.environ, XDG_CACHE_HOME=str(caches[-1])))
    j = json.loads(r.stdout)
    return ([(c["module"], c["verdict"]) for c in j["matrix"]["cells"]],
            [t.get("verdict") for t in j["torch_imports"]])
print()
print(f"The {len(on_disk)} releases the corpus has ({', '.join(v for v, _ in on_disk)}), the same check three ways:")
print("| run | median wall | each | user CPU | peak RSS | pip runs | same report each run |")
print("|---|---|---|---|---|---|---|")
for name, rs in three.items():
    row(name, rs)
same = verdicts(["env", venv, "--against", *pins]) == verdicts(
    ["env", venv, "--against", *files, "--find-links", str(wheels)])
print("cache and files: the same verdict in every cell and import torch:", "yes" if same else "NO")
PY
