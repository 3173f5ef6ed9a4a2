#!/usr/bin/env python3
"""Writes tests/pypi/index-sample.txt: the wheels tests/pypi/index_differential.py reads (issue 54).

refresh-index-sample.py [PIP-OPTIONS...]

For each project of PROJECTS, its newest two releases with a cp312 wheel for each platform of
PLATFORMS, as pip's own finder (lib/inputs/pip_finder.py, with pip's configuration and the
options given) picks them: one line per wheel, `project version platform file sha256`. The list
is committed so that the test reads the same files every time; run this to refresh it.
"""
import datetime
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
FINDER = ROOT / "lib" / "inputs" / "pip_finder.py"
OUT = ROOT / "tests" / "pypi" / "index-sample.txt"

# Projects with native code, well beyond torch's ecosystem (the auditwheel-repaired ones with a
# vendored .libs folder among them: numpy, scipy, pillow, pyarrow, opencv).
PROJECTS = """
numpy scipy pillow pyarrow grpcio opencv-python-headless cryptography lxml orjson tokenizers
jaxlib onnxruntime pandas scikit-learn matplotlib psutil regex pydantic-core msgpack ujson
aiohttp multidict yarl frozenlist markupsafe pyyaml cffi charset-normalizer zstandard lz4
xxhash rpds-py greenlet kiwisolver contourpy h5py shapely pyzmq bcrypt simplejson watchfiles
wrapt zope-interface protobuf sentencepiece safetensors tiktoken brotli
""".split()
# manylinux2014 (glibc 2.17), manylinux_2_28, musllinux, and an aarch64 build: tags pip does
# not widen, so each names its own file.
PLATFORMS = ["manylinux2014_x86_64", "manylinux_2_28_x86_64", "musllinux_1_2_x86_64",
             "manylinux2014_aarch64"]


def find(platform, reqs, extra):
    argv = [sys.executable, str(FINDER), "--only-binary=:all:", "--python-version", "3.12",
            "--implementation", "cp", "--abi", "cp312", "--abi", "abi3", "--abi", "none",
            "--platform", platform, *extra, "--", *reqs]
    r = subprocess.run(argv, capture_output=True, text=True, check=True)
    return json.loads(r.stdout)["wheels"]


def version_of(url):
    return url.rsplit("/", 1)[-1].split("-")[1]


def main(extra):
    lines = []
    for platform in PLATFORMS:
        newest = find(platform, PROJECTS, extra)
        older = []
        for p, w in zip(PROJECTS, newest):
            if "url" in w:
                lines.append((p, version_of(w["url"]), platform, w["url"], w["sha256"]))
                older.append(f"{p}<{version_of(w['url'])}")
        for w in find(platform, older, extra):
            if "url" in w:
                p = w["requirement"].split("<")[0]
                lines.append((p, version_of(w["url"]), platform, w["url"], w["sha256"]))
    lines.sort()
    seen = set()  # a file tagged for several platforms is listed once, for the first
    lines = [x for x in lines if not (x[3] in seen or seen.add(x[3]))]
    with OUT.open("w") as f:
        f.write(f"# project version platform file sha256: {len(lines)} wheels of "
                f"{len({x[0] for x in lines})} projects, as pip's finder picked them on "
                f"{datetime.date.today()} (tests/pypi/refresh-index-sample.py)\n")
        for p, v, plat, url, sha in lines:
            f.write(f"{p} {v} {plat} {url.rsplit('/', 1)[-1]} {sha}\n")
    print(f"{OUT}: {len(lines)} wheels of {len({x[0] for x in lines})} projects")


if __name__ == "__main__":
    main(sys.argv[1:])
