#!/usr/bin/env python3
"""A URL read equals a file read, across the index (issue 54).

index_differential.py ABICHECK CACHE [--every N]

For each wheel of tests/pypi/index-sample.txt (305 wheels of 48 projects with native code:
manylinux2014, _2_28, musllinux, aarch64), pip's own finder gives its URL (pip's configuration
decides the index; nothing here names one); the wheel is downloaded once into CACHE/index-sample
(and checked against the list's sha256). Then `check URL` (read by HTTP range requests, no cache)
and `check FILE` must give the same JSON, byte for byte once the input's name is taken out and but
for the notes on how it was read, and the same exit code — and so must `check URL --verify` (read
whole, every CRC-32 checked). Each is checked against a stub build (one empty library): every
module of the wheel is loaded with its own libraries and the host's.

--every N checks every Nth wheel of the list (CI's share; the list's order is by project, so
every project is met). Skips (exit 77), saying why, when the index cannot be reached or the disk
has no room. Prints one line per difference and ends with "N passed, M failed".
"""
import concurrent.futures
import hashlib
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parents[2]
FINDER = ROOT / "lib" / "inputs" / "pip_finder.py"
SAMPLE = ROOT / "tests" / "pypi" / "index-sample.txt"


def skip(why):
    print(f"SKIP: {why}")
    sys.exit(77)


def sha256_of(path):
    h = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def urls(rows):
    """file -> URL, from pip's finder: one run per platform."""
    out = {}
    by_platform = {}
    for r in rows:
        by_platform.setdefault(r["platform"], []).append(r)
    for platform, group in by_platform.items():
        argv = [sys.executable, str(FINDER), "--only-binary=:all:", "--python-version", "3.12",
                "--implementation", "cp", "--abi", "cp312", "--abi", "abi3", "--abi", "none",
                "--platform", platform, "--", *[f"{r['project']}=={r['version']}" for r in group]]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            skip(f"pip's finder failed (no index?): {done.stderr.strip()[-300:]}")
        for r, w in zip(group, json.loads(done.stdout)["wheels"]):
            if "url" not in w:
                if "could not" in done.stderr.lower() or "connection" in done.stderr.lower():
                    skip(f"the index cannot be reached: {done.stderr.strip()[-300:]}")
                continue
            out[r["file"]] = w["url"]
    return out


def normalized(stdout, name, prefix):
    doc = json.loads(stdout)
    doc.pop("notes", None)
    text = json.dumps(doc, sort_keys=True)
    return text.replace(prefix, "").replace(name, "WHEEL")


def main():
    abicheck, cache = sys.argv[1], pathlib.Path(sys.argv[2]) / "index-sample"
    every = int(sys.argv[sys.argv.index("--every") + 1]) if "--every" in sys.argv else 1
    rows = []
    for line in SAMPLE.read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        p, v, plat, f, sha = line.split()
        rows.append({"project": p, "version": v, "platform": plat, "file": f, "sha256": sha})
    rows = rows[::every]
    cache.mkdir(parents=True, exist_ok=True)
    free = shutil.disk_usage(cache).free
    if free < (8 << 30):
        skip(f"{free >> 30} GB free under {cache}: the sample needs up to 4 GB and the run 4 more")
    where = urls(rows)
    passed = failed = 0

    def check(ok, what):
        nonlocal passed, failed
        if ok:
            passed += 1
        else:
            failed += 1
            print("FAILED", what, flush=True)

    for r in rows:  # downloaded once, checked against the list
        path = cache / r["file"]
        if r["file"] not in where:
            check(False, f"{r['file']}: pip's finder no longer gives it (refresh the sample)")
            continue
        if not path.exists():
            tmp = path.with_suffix(".part")
            with urllib.request.urlopen(where[r["file"]], timeout=120) as src, tmp.open("wb") as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
            tmp.rename(path)
        check(sha256_of(path) == r["sha256"], f"{r['file']}: not the sample's sha256")
    with tempfile.TemporaryDirectory() as tmp:
        stub = pathlib.Path(tmp) / "stub"
        stub.mkdir()
        (pathlib.Path(tmp) / "stub.c").write_text("int abicheck_stub(void) { return 0; }\n")
        subprocess.run(["cc", "-shared", "-fPIC", "-o", stub / "libstub.so",
                        pathlib.Path(tmp) / "stub.c"], check=True)
        env = dict(os.environ, ABICHECK_NO_CACHE="1")

        def one(r):
            path = cache / r["file"]
            url = where.get(r["file"])
            if url is None or not path.exists():
                return []
            run = lambda what, *extra: subprocess.run(
                [abicheck, "check", what, "--against", str(stub), "--format", "json", *extra],
                capture_output=True, text=True, env=env, timeout=600)
            f = run(str(path))
            got = []
            for extra in ([], ["--verify"]):
                u = run(url, *extra)
                same = f.returncode == u.returncode and bool(f.stdout) and bool(u.stdout) and \
                    normalized(f.stdout, str(path), "") == \
                    normalized(u.stdout, url, "")
                got.append((same, f"{r['file']} {' '.join(extra)}: file exit {f.returncode}, "
                                  f"URL exit {u.returncode}: {u.stderr.strip()[-300:]}"))
            return got

        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            for got in pool.map(one, rows):
                for ok, what in got:
                    check(ok, what)
    projects = len({r["project"] for r in rows})
    print(f"index differential: {len(rows)} wheels of {projects} projects, by URL and by "
          f"URL --verify against the files")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
