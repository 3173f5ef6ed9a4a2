"""The real loader as the judge, on real PyPI environments (docs/loader-model.md E1-E7).

differential.py ABICHECK CACHE

For every virtualenv under CACHE/venvs (tests/pypi/make-venvs.sh), abicheck's `env` report is
compared with what really happens in that environment's own Python:
  * `import torch` — loads or not, and the exception text;
  * every shared object of every other package, loaded with ctypes.CDLL (RTLD_NOW | RTLD_LOCAL)
    in a process forked right after `import torch`, the package's objects in name order, pass
    after pass until a pass loads no more (E7), each attempt in a fork of its own after the
    objects of its package that loaded and that it names in DT_NEEDED — each object's verdict,
    and for a failure the exact dlerror() text against abicheck's marked first error. A load that
    dies by a signal died in an initializer (no GPU here): dlopen reports loader errors first;
  * which package owns each shared object (importlib.metadata, from RECORD).
The driver's libcuda.so.1 is the CUDA toolkit's stub, on LD_LIBRARY_PATH for Python and -L for
abicheck. Not covered: what a package's Python code loads conditionally (torch.ops.load_library
on a path it computes), or anything that needs a GPU to run.
Prints one line per mismatch and ends with "N passed, M failed"; exit 1 on any mismatch.
"""
import json
import os
import pathlib
import subprocess
import sys

CHILD = r'''
import ctypes, json, os, sys
req = json.load(sys.stdin)
out = {"torch": None, "packages": {}, "owners": {}}
try:
    import torch  # noqa: F401
    out["torch"] = "ok"
except BaseException as e:  # the import's own error is the verdict
    out["torch"] = f"{type(e).__name__}: {e}"
    print(json.dumps(out))
    sys.exit(0)
import importlib.metadata as md
site = req["site"]
for d in md.distributions():
    for f in d.files or []:
        p = os.path.normpath(os.path.join(site, str(f)))
        if p in req["all_objects"]:
            out["owners"][p] = d.metadata["Name"]
def attempt(q, preload):
    """dlopen(q) in a fork of this process (import torch done), after the package's objects
    that already loaded and that q names in DT_NEEDED. A signal during the load is a crash in an
    initializer: dlopen reports loader errors before it runs any."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        res = "ok"
        try:
            for s in preload:
                ctypes.CDLL(s, mode=os.RTLD_LOCAL)
            ctypes.CDLL(q, mode=os.RTLD_LOCAL)
        except OSError as e:
            res = str(e)
        os.write(w, json.dumps(res).encode())
        os._exit(0)
    os.close(w)
    data = b""
    while chunk := os.read(r, 1 << 16):
        data += chunk
    os.close(r)
    _, status = os.waitpid(pid, 0)
    return json.loads(data) if data else f"crashed:{status}"
def vendored(p):  # auditwheel's <pkg>.libs/: loaded only as what another object needs (E7)
    return any(c.endswith(".libs") and c != ".libs" for c in p.split("/")[:-1])
for name, objects in req["packages"].items():
    loaded, errors, crashed, changed = [], {}, [], True
    # The package's own libraries (not vendored) each object names: the import loads them first.
    own = {q: [s for s in objects if s != q and not vendored(s) and
               set(req["needed"].get(q, [])) & {os.path.basename(s), req["soname"].get(s, "")}]
           for q in objects}
    while changed:
        changed = False
        for q in objects:
            if q in loaded:
                continue
            names = set(req["needed"].get(q, []))
            pre, grew = [], True
            while grew:  # the loaded objects q needs, and those they need in turn
                grew = False
                for s in loaded:
                    if (s not in pre and not vendored(s) and
                            names & {os.path.basename(s), req["soname"].get(s, "")}):
                        pre.append(s)
                        names |= set(req["needed"].get(s, []))
                        grew = True
            res = attempt(q, pre)
            if res == "ok" or res.startswith("crashed:"):
                loaded.append(q)
                errors.pop(q, None)
                changed = True
                if res != "ok":
                    crashed.append(q)
            elif q not in errors or (own[q] and all(s in loaded for s in own[q])):
                errors[q] = res  # its first attempt, or one once its own libraries loaded
    out["packages"][name] = {"loaded": loaded, "errors": errors, "crashed": crashed}
print(json.dumps(out))
'''


class Tally:
    """check(ok, what): counts, and prints each mismatch; summary() ends the run."""

    def __init__(self):
        self.passed = self.failed = 0

    def __call__(self, ok, what):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print("MISMATCH", what)

    def summary(self):
        print(f"{self.passed} passed, {self.failed} failed")
        return 1 if self.failed else 0


def needed_and_sonames(paths):
    """DT_NEEDED and DT_SONAME of each path, by binutils (the test may run tools)."""
    needed, soname = {}, {}
    for p in paths:
        dyn = subprocess.run(["readelf", "-dW", p], capture_output=True, text=True).stdout
        for line in dyn.splitlines():
            if "(NEEDED)" in line:
                needed.setdefault(p, []).append(line.split("[", 1)[1].rstrip("]"))
            if "(SONAME)" in line:
                soname[p] = line.split("[", 1)[1].rstrip("]")
    return needed, soname


def real_loader(venv, site, packages, stub):
    """What the real import torch and dlopen say in `venv` for `packages` ({name: [paths]})."""
    objects = [p for ps in packages.values() for p in ps]
    needed, soname = needed_and_sonames(objects)
    req = {"site": site, "packages": packages, "all_objects": objects, "needed": needed,
           "soname": soname}
    env = dict(os.environ, LD_LIBRARY_PATH=str(stub))
    real = subprocess.run([str(venv / "bin" / "python"), "-c", CHILD], input=json.dumps(req),
                          capture_output=True, text=True, env=env)
    if real.returncode != 0:
        return None, real.stderr[-2000:]
    return json.loads(real.stdout.strip().splitlines()[-1]), None


def judge(what, doc, column, packages, got, check, real_path=lambda p: p, skip=lambda cell: False):
    """abicheck's cells of `column` against the real loader's `got`: the verdict, the first
    error's text (site-packages paths as the real environment has them), the owning package.
    Returns (objects, failing, crashed)."""
    m = doc["matrix"]
    nb = len(m["builds"])
    index = {p: i for i, p in enumerate(m["modules"])}
    n_objects = n_fail = n_crashed = 0
    for name, objects in packages.items():
        res = got["packages"].get(name, {})
        n_crashed += len(res.get("crashed", []))
        for p in objects:
            cell = m["cells"][index[p] * nb + column]
            if skip(cell):
                continue
            q = real_path(p)
            n_objects += 1
            real_loads = q in res["loaded"]
            n_fail += not real_loads
            first = cell["report"]["first_error"]
            check(cell["verdict"] == ("loads" if real_loads else "fails"),
                  f"{what}: {p}: abicheck says {cell['verdict']} ({first}), "
                  f"real loads={real_loads} ({res['errors'].get(q)})")
            if not real_loads and cell["verdict"] == "fails":
                mine = first.replace(doc["environment"]["site_packages"],
                                     real_path(doc["environment"]["site_packages"]))
                check(mine == res["errors"][q],
                      f"{what}: {p}: first error differs:\n  abicheck: {mine}\n  ld.so:    "
                      f"{res['errors'][q]}")
            owner = got["owners"].get(q, "(no package)")
            check(owner == name, f"{what}: {p}: abicheck says package {name}, RECORD says {owner}")
    return n_objects, n_fail, n_crashed


def main():
    abicheck, cache = sys.argv[1], pathlib.Path(sys.argv[2])
    stub = cache / "driver-stub"
    venvs = sorted(p for p in (cache / "venvs").glob("torch-*") if list(p.glob(".complete-*")))
    if not venvs:
        print("no virtualenvs built under", cache / "venvs")
        return 1
    check = Tally()
    for v in venvs:
        rep = subprocess.run([abicheck, "env", str(v), "-L", str(stub), "--format", "json"],
                             capture_output=True, text=True)
        if rep.returncode not in (0, 1):
            check(False, f"{v.name}: abicheck env exited {rep.returncode}: {rep.stderr.strip()}")
            continue
        doc = json.loads(rep.stdout)
        m = doc["matrix"]
        packages = {p["name"]: [m["modules"][i] for i in p["modules"]] for p in doc["packages"]}
        got, crash = real_loader(v, doc["environment"]["site_packages"], packages, stub)
        if got is None:
            check(False, f"{v.name}: the real import crashed: {crash}")
            continue
        imp = doc["torch_imports"][0]
        check(imp["loads"] == (got["torch"] == "ok"),
              f"{v.name}: import torch: abicheck says loads={imp['loads']}, Python: {got['torch']}")
        if got["torch"] != "ok":
            continue
        n_objects, n_fail, n_crashed = judge(v.name, doc, 0, packages, got, check)
        print(f"{v.name}: import torch {'loads' if imp['loads'] else 'fails'}; {n_objects} shared objects "
              f"of {len(packages)} packages, {n_fail} fail to load, {n_crashed} loaded but crashed in an "
              f"initializer (no GPU); checked against the real loader")
    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
