"""The what-if column against the real loader (docs/loader-model.md E11).

whatif.py ABICHECK CACHE

`abicheck env VENV --against TORCH.whl` says what would load if that torch were installed in the
environment. For every virtualenv under CACHE/venvs and every corpus torch wheel it does not
have (4 x 3 columns), that world is made for real and judged by the real loader:
  * the virtualenv is copied with hard links (no file is written twice, the original is never
    changed: pip removes a file by unlinking it);
  * pip itself decides what `pip install torch==X` changes there (`--dry-run --report`, from the
    cached wheels only), then uninstalls what it replaces and installs what it would;
    a distribution already installed in one of the corpus virtualenvs at that version is linked
    from there (the same wheel, installed by pip: the same files), any other installed by pip;
  * differential.py's child imports torch and loads every object there, and each of abicheck's
    cells of that column must equal it: verdict, first error, owning package.
A row abicheck says the replacing version does not install (unknown, said so) has no file to
load in that world and is not compared. Prints one line per mismatch and ends with "N passed, M
failed"; exit 1 on any mismatch.
"""
import hashlib
import json
import os
import pathlib
import shutil
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import differential  # noqa: E402


def site_of(venv):
    return next((venv / "lib").glob("python3*/site-packages"))


def installed(site):
    """{normalized name: dist-info directory} of a site-packages."""
    out = {}
    for di in site.glob("*.dist-info"):
        meta = (di / "METADATA").read_text(errors="replace")
        name = next(l.split(":", 1)[1].strip() for l in meta.splitlines() if l.startswith("Name:"))
        version = next(l.split(":", 1)[1].strip() for l in meta.splitlines()
                       if l.startswith("Version:"))
        out[norm(name)] = (di, version)
    return out


def norm(name):
    return "-".join(name.replace("_", "-").replace(".", "-").lower().split("-"))


def link_distribution(src_site, di, dst_site):
    """Hard-links every file the RECORD of `di` (in src_site) lists into dst_site."""
    for line in (di / "RECORD").read_text().splitlines():
        rel = line.rsplit(",", 2)[0]
        if not rel:
            continue
        src = os.path.normpath(src_site / rel)
        dst = os.path.normpath(dst_site / rel)
        if not os.path.exists(src):
            continue
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if os.path.lexists(dst):
            os.unlink(dst)
        os.link(src, dst, follow_symlinks=False)


def make_world(venv, torch_req, wheels, venvs, work):
    """The virtualenv `venv` with `pip install torch_req` done, in `work` (hard links)."""
    subprocess.run(["cp", "-al", str(venv), str(work)], check=True)
    py = work / "bin" / "python"
    pip = ["pip", "--python", str(py), "--disable-pip-version-check"]
    report = work / "pip-report.json"
    subprocess.run(pip + ["install", "--dry-run", "--no-index", "--find-links", str(wheels),
                          "--report", str(report), "-q", torch_req], check=True)
    plan = [(norm(i["metadata"]["name"]), i["metadata"]["version"])
            for i in json.loads(report.read_text())["install"]]
    site = site_of(work)
    have = installed(site)
    replaced = [n for n, _ in plan if n in have]
    if replaced:
        subprocess.run(pip + ["uninstall", "-y", "-q"] + replaced, check=True)
    by_pip = []
    for name, version in plan:
        src = next(((site_of(o), di) for o in venvs
                    for n, (di, ver) in installed(site_of(o)).items()
                    if n == name and ver == version), None)
        if src:
            link_distribution(src[0], src[1], site)
        else:
            by_pip.append(f"{name}=={version}")
    if by_pip:
        subprocess.run(pip + ["install", "--no-deps", "--no-index", "--find-links", str(wheels),
                              "--no-compile", "-q"] + by_pip, check=True)
    return plan, replaced


def main():
    abicheck, cache = sys.argv[1], pathlib.Path(sys.argv[2])
    stub = cache / "driver-stub"
    wheels = cache / "wheels"
    venvs = sorted(p for p in (cache / "venvs").glob("torch-*") if list(p.glob(".complete-*")))
    if len(venvs) < 2:
        print("fewer than two virtualenvs built under", cache / "venvs")
        return 1
    check = differential.Tally()
    # The worlds are made at the same paths each run, and what the real loader and pip said of
    # each is kept in CACHE/whatif-oracle, keyed by all that decides it: this test's code, the
    # virtualenv (its manifest key), the torch wheel, pip's version, the driver stub, and the
    # objects asked for (which follow abicheck's verdicts: a change there makes the world again).
    # pip install into a copy of a 9 GB virtualenv and the real import took 8.8 of a run's minutes.
    scratch = cache / "whatif-scratch"
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir()
    oracles = cache / "whatif-oracle"
    oracles.mkdir(exist_ok=True)
    here = pathlib.Path(__file__).resolve().parent
    fixed = [hashlib.sha256((here / f).read_bytes()).hexdigest()
             for f in ("whatif.py", "differential.py")]
    fixed.append(subprocess.run(["pip", "--version"], capture_output=True, text=True).stdout)
    fixed.append(sorted(f"{x.name} {x.stat().st_size}" for x in stub.iterdir()) if stub.is_dir()
                 else [])
    try:
        for v in venvs:
            others = [o for o in venvs if o != v]
            torch_wheels = [next(wheels.glob(o.name + "-*.whl")) for o in others]
            cmd = [abicheck, "env", str(v), "-L", str(stub), "--format", "json"]
            for w in torch_wheels:
                cmd += ["--against", str(w)]
            rep = subprocess.run(cmd, capture_output=True, text=True)
            if rep.returncode not in (0, 1):
                check(False, f"{v.name}: abicheck env exited {rep.returncode}: {rep.stderr[-2000:]}")
                continue
            doc = json.loads(rep.stdout)
            m = doc["matrix"]
            site = doc["environment"]["site_packages"]
            for column, (o, w) in enumerate(zip(others, torch_wheels)):
                what = f"{v.name} + pip install {o.name.replace('-', '==')}"
                work = scratch / f"{v.name}+{o.name}"
                wsite = str(work / site_of(v).relative_to(v))  # cp -al lays it out as v's

                def real_path(p, site=site, wsite=wsite):
                    return wsite + p[len(site):] if p.startswith(site) else p

                def absent(cell):  # a row the replacing version does not install (E11)
                    return cell["verdict"] == "not_installed"

                def unjudged(cell):  # absent, or unknown for what the replacing version adds
                    return absent(cell) or (cell["verdict"] == "unknown" and any(
                        " as installed with " in u
                        for u in cell["report"]["summary"]["unknown_because"]))

                nb = len(m["builds"])
                packages, absent_rows = {}, []
                for p in doc["packages"]:
                    rows = []
                    for i in p["modules"]:
                        cell = m["cells"][i * nb + column]
                        if absent(cell):  # pip's install must have left no file there
                            absent_rows.append(m["modules"][i])
                        if not unjudged(cell):
                            rows.append(m["modules"][i])
                    packages[p["name"]] = rows
                key = hashlib.sha256(json.dumps(
                    [fixed, v.name, sorted(x.name for x in v.glob(".complete-*")), w.name,
                     w.stat().st_size, packages, absent_rows], sort_keys=True).encode()).hexdigest()
                entry = oracles / f"{key}.json"
                kept = entry.is_file()
                if kept:
                    rec = json.loads(entry.read_text())
                else:
                    plan, replaced = make_world(v, o.name.replace("-", "=="), wheels, venvs, work)
                    got, crash = differential.real_loader(
                        work, wsite,
                        {n: [real_path(p) for p in ps] for n, ps in packages.items()}, stub)
                    rec = {"plan": plan, "replaced": replaced, "got": got, "crash": crash,
                           "present": [r for r in absent_rows if os.path.lexists(real_path(r))]}
                    shutil.rmtree(work)
                    if got is not None:
                        tmp = entry.with_suffix(".tmp")
                        tmp.write_text(json.dumps(rec))
                        tmp.rename(entry)
                plan, replaced, got, crash = rec["plan"], rec["replaced"], rec["got"], rec["crash"]
                for r in absent_rows:
                    check(r not in rec["present"],
                          f"{what}: {r}: abicheck says not installed, but pip installed it")
                if got is None:
                    check(False, f"{what}: the real import crashed: {crash}")
                    continue
                imp = doc["torch_imports"][column]
                check(imp["verdict"] == ("loads" if got["torch"] == "ok" else "fails"),
                      f"{what}: import torch: abicheck says {imp['verdict']}, Python: {got['torch']}")
                if got["torch"] == "ok":
                    n, n_fail, _ = differential.judge(what, doc, column, packages, got, check,
                                                      real_path, unjudged)
                    print(f"{what}: pip replaces {', '.join(replaced) or 'nothing'} and installs "
                          f"{len(plan)} distributions; import torch loads; {n} shared objects, "
                          f"{n_fail} fail to load; checked against the real loader"
                          f"{' (as kept: the same objects asked of the same world)' if kept else ''}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
