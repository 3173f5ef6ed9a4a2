#!/usr/bin/env python3
"""The Python API (python/abicheck_loader) on the headline fixture: python_api.py FIXTURE_DIR.

FIXTURE_DIR holds the headline_signature_change scenario (built there from its sources when it
does not), to which new/ (the newer libc10_cuda.so) is added beside old/. Runs where abicheck_loader is importable: the wheel's virtualenv, or the build tree with
PYTHONPATH=python and ABICHECK_LIBRARY=build/lib/libabicheck.so.1."""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import abicheck_loader as abicheck

root = Path(__file__).resolve().parents[2]
fx = Path(sys.argv[1]).resolve()
if not (fx / "common_ops.abi3.so").exists():  # build the scenario from its sources
    fx.mkdir(parents=True, exist_ok=True)
    loader = root / "fixtures/loader"
    subprocess.run(["sh", "-c", '. "$0" && . "$SRC/build.sh"', str(loader / "lib.sh")], cwd=fx,
                   env={**os.environ, "SRC": str(loader / "headline_signature_change")}, check=True)
(fx / "new").mkdir(exist_ok=True)
(fx / "new/libc10_cuda.so").write_bytes((fx / "libc10_cuda.so").read_bytes())
os.chdir(fx)
failures = []


def expect(what, got, want):
    if got != want:
        failures.append(f"{what}: got {got!r}, want {want!r}")


SIGNATURE = "c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool)"

r = abicheck.check("common_ops.abi3.so", providers=["new/libc10_cuda.so"])
expect("check with providers", (r.verdict, r.exit_code, r.ok, r.loads), ("fails", 1, False, False))
expect("its problem", [(p.kind, p.demangled) for p in r.problems], [("undefined_symbol", SIGNATURE)])
r = abicheck.check("common_ops.abi3.so", against="old")
expect("check against old", (r.verdict, r.exit_code, r.ok, r.problems), ("loads", 0, True, []))

m = abicheck.matrix(["common_ops.abi3.so"], against=["new", "old"])
expect("matrix", (m.exit_code, m.builds), (1, ["new", "old"]))
expect("matrix cells", [m.report("common_ops.abi3.so", b).verdict for b in ("new", "old")],
       ["fails", "loads"])

# Issue 55 items 10 and 12: help()'s example runs as written; one path where several are taken
# is one (an absolute path split into characters made "/" the first module); a file name that
# is not UTF-8 (bytes, as the OS gives it) is checked as the program checks it.
example = next(line for line in abicheck.__doc__.splitlines() if "abicheck.check(" in line)
scope = {"abicheck": abicheck}
exec(example.strip().replace("torch-2.10.0-....whl", "old"), scope)
expect("help()'s example", scope["report"].verdict, "loads")
r = abicheck.check("common_ops.abi3.so", against=["old"])
expect("check, against a list of one", r.verdict, "loads")
m = abicheck.matrix(str(fx / "common_ops.abi3.so"), against=Path("old"))
expect("matrix of one path each", (m.exit_code, len(m.modules), m.builds), (0, 1, ["old"]))
odd = os.fsencode(str(fx)) + b"/caf\xe9_ops.abi3.so"
with open(odd, "wb") as f:
    f.write((fx / "common_ops.abi3.so").read_bytes())
for what, call in (("check", lambda: abicheck.check(odd, against="new").verdict),
                   ("matrix", lambda: (lambda m: m.report(m.modules[0], "new").verdict)(
                       abicheck.matrix([odd], ["new", "old"]))),
                   ("a str path", lambda: abicheck.check(os.fsdecode(odd), against="new").verdict)):
    try:
        expect(f"a file name that is not UTF-8, {what}", call(), "fails")
    except abicheck.AbicheckError as e:
        failures.append(f"a file name that is not UTF-8, {what}: {e}")
os.unlink(odd)

with abicheck.Build.open("new") as b:
    expect("Build.check", b.check("common_ops.abi3.so").problems[0].demangled, SIGNATURE)
try:
    b.check("common_ops.abi3.so")
    failures.append("a closed Build checked")
except ValueError:
    pass

for call, code in ((lambda: abicheck.check("missing.so", against="old"), abicheck.BAD_INPUT),
                   (lambda: abicheck.check("common_ops.abi3.so", against="old", no_such=1),
                    abicheck.USAGE),
                   (lambda: abicheck.Build.open("missing_dir/libx.so"), abicheck.BAD_INPUT)):
    try:
        call()
        failures.append(f"no AbicheckError (want code {code})")
    except abicheck.AbicheckError as e:
        expect("error code", e.code, code)
        if not e.message:
            failures.append(f"code {code}: an empty message")

# env over an installed environment laid out as pip lays one out (tests/support/headline_venv.sh).
with tempfile.TemporaryDirectory() as tmp:
    venv = Path(tmp) / "venv"
    subprocess.run([str(root / "tests/support/headline_venv.sh"), str(venv), str(fx)],
                   check=True)
    e = abicheck.env(venv)
    expect("env", (e.verdict, e.exit_code, e.loads), ("fails", 1, False))
    expect("env --package", abicheck.env(venv, package=["sgl-kernel"]).exit_code, 1)
    expect("env --ignore", abicheck.env(venv, ignore=["sgl-kernel"]).exit_code, 0)

res = abicheck.run("--version")
expect("run --version", (res.exit_code, res.stdout.strip()), (0, f"abicheck {abicheck.version()}"))
expect("gpu", abicheck.gpu("common_ops.abi3.so")["_exit_code"], 0)

if failures:
    sys.exit("FAIL:\n  " + "\n  ".join(failures))
print(f"python API: {abicheck.library_path()} answered every call as the program does")
