#!/usr/bin/env bash
# The published-builds rows of the README (issue 33): what `check --against URL` reads of each
# corpus torch build and the wheels it pins, served by a local HTTP server that answers ranges as
# a package index does (tests/http/http_test.py's handler, on 127.0.0.1), with pip resolving the
# pinned wheels from that server's --find-links page (cold, then again from abicheck's cache, warm);
# beside the same check on the files and against an index of the torch wheel. Needs
# the PyPI corpus (bench/fetch-pypi-corpus.sh).
#   [ABICHECK_BIN=build/tools/abicheck/abicheck] bench/http-bytes.sh [CACHE]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cache=${1:-${ABICHECK_PYPI_CACHE:-$HOME/.cache/abicheck-corpus/pypi}}
A=${ABICHECK_BIN:-}  # a built abicheck; else a Release build of the tree
if [ -z "$A" ]; then
  cmake -S "$root" -B "$root/build-bench" -G Ninja -DCMAKE_BUILD_TYPE=Release -DABICHECK_BUILD_TESTS=OFF > /dev/null
  cmake --build "$root/build-bench" --target abicheck > /dev/null
  A=$root/build-bench/tools/abicheck/abicheck
fi
exec python3 - "$A" "$cache/wheels" "$root/tests/http" <<'PY'
import hashlib, json, os, pathlib, re, shutil, subprocess, sys, tempfile, threading, time
abicheck, wheels, here = sys.argv[1], pathlib.Path(sys.argv[2]), sys.argv[3]
sys.path.insert(0, here)
sys.path.insert(0, str(pathlib.Path(here).parent.parent / "bench"))
import http_test  # the range-answering handler
import deflate_floor  # what any reader sure of its bytes must fetch
http_test.Handler.root = wheels
server = http_test.Server(("127.0.0.1", 0), http_test.Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
base = f"http://127.0.0.1:{server.server_address[1]}/ok"
module = "sgl_kernel-0.3.21-cp310-abi3-manylinux2014_x86_64.whl"
print("| torch build | wheels | bytes read | of | share | floor (bench/deflate_floor.py) | check by URL (cold) | by URL (cache warm) | the files | an index of the torch wheel | same verdicts |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
def sha(p):  # what an index's link carries (URL#sha256=...): it keys the wheel cache
    h = hashlib.sha256()
    with open(p, "rb") as f:
        for b in iter(lambda: f.read(1 << 20), b""):
            h.update(b)
    return h.hexdigest()
module_sha = sha(wheels / module)
for torch in sorted(wheels.glob("torch-*.whl")):
    cache = tempfile.mkdtemp()  # abicheck's cache (docs/cache.md): cold for the first run, warm after
    def run(*args):
        start = time.time()
        r = subprocess.run([abicheck, "check", *args, "--format", "json"], capture_output=True,
                           text=True, env=dict(os.environ, XDG_CACHE_HOME=cache))
        return time.time() - start, json.loads(r.stdout) if r.stdout else None
    by_url = (f"{base}/{module}#sha256={module_sha}", "--against",
              f"{base}/{torch.name}#sha256={sha(torch)}", "--no-index", "--find-links", f"{base}/")
    url_s, doc = run(*by_url)
    warm_s, warm = run(*by_url)
    file_s, local = run(str(wheels / module), "--against", str(torch), "--find-links",
                        str(wheels))
    index = pathlib.Path(cache) / "torch.abix"
    subprocess.run([abicheck, "index", str(torch), "-o", str(index), "-q"], check=True)
    index_s, _ = run(str(wheels / module), "--against", str(index))
    notes = " ".join(n["message"] for n in (doc or {}).get("notes", []))
    m = re.search(r"the build's (\d+) wheels read by HTTP range requests: (\d+) of their (\d+)",
                  notes)
    def verdicts(d):
        return [(c["module"].split("!")[-1], c["build"].split("/")[-1], c["verdict"]) for c in d["cells"]] if d else None
    if m:
        n, got, total = int(m.group(1)), int(m.group(2)), int(m.group(3))
        floor, _, _ = deflate_floor.build_floor([torch] + deflate_floor.pinned_wheels(doc, wheels))
        print(f"| {torch.name} | {n} | {got / 1e6:.1f} MB | {total / 1e9:.2f} GB | "
              f"{100 * got / total:.1f} % | {100 * floor / total:.1f} % | "
              f"{url_s:.1f} s | {warm_s:.2f} s | {file_s:.1f} s | "
              f"{index_s:.2f} s | {verdicts(doc) == verdicts(local) == verdicts(warm)} |")
    else:
        print(f"| {torch.name} | ? | (no note) | | | | {url_s:.1f} s | {warm_s:.2f} s | {file_s:.1f} s | {index_s:.2f} s | |")
    shutil.rmtree(cache)
PY
