#!/usr/bin/env python3
"""The random-graph differential (issue 56): which object's error the loader reports first.

Each graph is 2-8 small libraries with random DT_NEEDED edges (a DAG or, half the time, with
cycles), in random order; a random subset misses a symbol defined nowhere, another references
a sibling's function (found only when that sibling is loaded); a module names 1-3 of them and
sometimes misses one itself. The real loader judges: dlopen_probe loads the module with
RTLD_NOW in a fresh process and prints dlerror(). abicheck (`check MODULE --host-only
--format json`) must agree on the verdict and on the first error, word for word — the line
`import fails with:` promises (docs/loader-model.md C1: glibc relocates the l_initfini list
that _dl_sort_maps_dfs orders, from its last entry to its first).

The graphs are seeded: a failure names its seed and graph, and the files are kept.
    random_graphs.py ABICHECK DLOPEN_PROBE [GRAPHS] [SEED]"""
import concurrent.futures
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

abicheck, probe = sys.argv[1:3]
graphs = int(sys.argv[3]) if len(sys.argv) > 3 else 500
seed = int(sys.argv[4]) if len(sys.argv) > 4 else 56
CC = shutil.which("cc") or shutil.which("gcc")
if CC is None:
    print("skipped: no C compiler to build the graphs with")
    sys.exit(77)
MAX_LIBS = 8


def cc(args, source):
    r = subprocess.run([CC, "-shared", "-fPIC", "-x", "c", "-", "-o", *args], input=source,
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"cc {' '.join(args)}: {r.stderr}")


def make_stubs(work):
    """Empty libraries named libg0.so … libg7.so: every graph links against these for its
    DT_NEEDED entries (a cycle has no order to build in), then the real ones are found at load
    time through $ORIGIN."""
    stubs = os.path.join(work, "stubs")
    os.makedirs(stubs)
    for i in range(MAX_LIBS):
        cc([os.path.join(stubs, f"libg{i}.so"), f"-Wl,-soname,libg{i}.so"], "int stub_unused;\n")
    return stubs


def draw(rng):
    """One graph: for each library its DT_NEEDED list (in order) and the symbols it references."""
    n = rng.randint(2, MAX_LIBS)
    acyclic = rng.random() < 0.5
    needed = []
    for i in range(n):
        targets = [j for j in range(n) if j != i and (j > i or not acyclic) and rng.random() < 0.3]
        rng.shuffle(targets)
        needed.append(targets)
    refs = []
    for i in range(n):
        r = []
        if rng.random() < 0.4:
            r.append(f"m{i}")  # defined nowhere
        if rng.random() < 0.3:
            r.append(f"d{rng.choice([j for j in range(n) if j != i])}")  # a sibling's
        rng.shuffle(r)
        refs.append(r)
    roots = rng.sample(range(n), rng.randint(1, min(3, n)))
    module_refs = ["m_mod"] if rng.random() < 0.2 else []
    return {"n": n, "needed": needed, "refs": refs, "roots": roots, "module_refs": module_refs}


def source(defines, refs):
    text = "".join(f"extern int {r}(void);\n" for r in refs)
    body = " + ".join(f"{r}()" for r in refs) or "0"
    return text + f"int {defines}(void) {{ return {body}; }}\n"


def build(g, where, stubs):
    os.makedirs(where)
    link = ["-Wl,--no-as-needed", "-Wl,-rpath,$ORIGIN", f"-L{stubs}"]
    for i in range(g["n"]):
        cc([os.path.join(where, f"libg{i}.so"), f"-Wl,-soname,libg{i}.so", *link,
            *[f"-lg{j}" for j in g["needed"][i]]], source(f"d{i}", g["refs"][i]))
    module = os.path.join(where, "mod.so")
    cc([module, *link, *[f"-lg{j}" for j in g["roots"]]], source("mod_entry", g["module_refs"]))
    return module


def real_loader(module):
    r = subprocess.run([probe, "--", module], capture_output=True, text=True, timeout=30)
    line = r.stdout.strip()
    return ("loads", None) if r.returncode == 0 else ("fails", line)


def ours(module):
    r = subprocess.run([abicheck, "check", module, "--host-only", "--no-diagnose", "--format",
                        "json"], capture_output=True, text=True, timeout=60)
    if r.returncode not in (0, 1):
        return f"exit {r.returncode}", r.stderr.strip()
    report = json.loads(r.stdout)
    return ("loads" if r.returncode == 0 else "fails"), report.get("first_error")


def one(index, work, stubs):
    rng = random.Random(f"{seed}:{index}")
    g = draw(rng)
    where = os.path.join(work, f"graph{index}")
    module = build(g, where, stubs)
    real = real_loader(module)
    said = ours(module)
    if real == said:
        shutil.rmtree(where)
        return real[0]
    return f"graph {index} (seed {seed}, {where}): {json.dumps(g)}\n  dlopen:   {real}\n  abicheck: {said}"


def main():
    work = tempfile.mkdtemp(prefix="abicheck-graphs-")
    stubs = make_stubs(work)
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        results = list(pool.map(lambda i: one(i, work, stubs), range(graphs)))
    wrong = [r for r in results if r not in ("loads", "fails")]
    for r in wrong:
        print(r)
    print(f"{graphs} random graphs (seed {seed}): {graphs - len(wrong)} agree with dlopen "
          f"({results.count('loads')} load, {results.count('fails')} fail), {len(wrong)} disagree")
    if wrong:
        print(f"the disagreeing graphs are kept in {work}")
        return 1
    shutil.rmtree(work)
    return 0


sys.exit(main())
