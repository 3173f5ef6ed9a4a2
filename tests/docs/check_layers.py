#!/usr/bin/env python3
"""The layers of lib/ (ARCHITECTURE.md "Layers"), checked from the sources.

lib/CMakeLists.txt names the stages bottom first (ABICHECK_STAGES) and each stage's
abicheck_stage(... DEPS ...). This fails when
  - a stage declares a dependency on a stage that is not below it;
  - a file of lib/<stage>/ includes a header of a stage above its own, or of a stage below that
    its stage does not declare (the link probes, layer_*, catch the same at link time);
  - a folder of lib/ is not a stage, or a source of a stage is not in its abicheck_stage();
  - a stage below FIRST_PUBLIC_USER includes the public header (include/abicheck/*): the stages
    below the API take types of their own, which api/ converts (issue 34): resolve's are
    lib/resolve/findings.h, diagnose's lib/diagnose/diagnosis.h, turned into the public Report
    and AbiDiff by lib/api/findings.h. report, which renders the public result types (the
    public header's Render* functions take them), is above api/, the API's other half.
    results/ is the public types' own code (what they do beyond the header: enum names, texts).
  - a file of tools/ (the programs, above every stage) includes lib/<x>/ where x is not a stage.
Usage: check_layers.py REPO_ROOT
"""
import pathlib
import re
import sys


FIRST_PUBLIC_USER = "api"


def parse_stages(cmake: str):
    order = re.search(r"set\(ABICHECK_STAGES ([^)]*)\)", cmake).group(1).split()
    stages = {"util": {"deps": set(), "sources": set()}}
    for m in re.finditer(r"abicheck_stage\((\w+)\s(.*?)\)\n", cmake, re.S):
        name, body = m.group(1), m.group(2)
        words = body.split()
        section, deps, sources = None, set(), set()
        for w in words:
            if w in ("SOURCES", "DEPS", "LIBS"):
                section = w
            elif section == "SOURCES":
                sources.add(w)
            elif section == "DEPS":
                deps.add(w)
        stages[name] = {"deps": deps, "sources": sources}
    return order, stages


def main(root: pathlib.Path) -> int:
    cmake = (root / "lib" / "CMakeLists.txt").read_text()
    order, stages = parse_stages(cmake)
    rank = {s: i for i, s in enumerate(order)}
    errors = []
    for name in order:
        if name not in stages:
            errors.append(f"lib/CMakeLists.txt: stage {name} has no abicheck_stage()")
    for name, st in stages.items():
        for d in sorted(st["deps"]):
            if d not in rank or rank[d] >= rank[name]:
                errors.append(f"lib/CMakeLists.txt: stage {name} depends on {d}, not below it")
    include = re.compile(r'^\s*#\s*include\s+"lib/(\w+)/', re.M)
    public = re.compile(r'^\s*#\s*include\s+"abicheck/', re.M)
    checked = 0
    for folder in sorted(p for p in (root / "lib").iterdir() if p.is_dir()):
        stage = folder.name
        if stage not in rank:
            errors.append(f"lib/{stage}/: a folder that is not a stage (ABICHECK_STAGES)")
            continue
        for f in sorted(folder.iterdir()):
            if f.suffix not in (".cc", ".h"):
                continue
            checked += 1
            rel = f"lib/{stage}/{f.name}"
            if f.suffix == ".cc" and stage != "util" and f"{stage}/{f.name}" not in stages[stage]["sources"] \
                    and not (stage == "api" and f.name == "public_api.cc"):
                errors.append(f"{rel}: not among the SOURCES of abicheck_stage({stage})")
            if stage not in ("results", "util") and rank[stage] < rank[FIRST_PUBLIC_USER] \
                    and public.search(f.read_text()):
                errors.append(f"{rel}: includes the public header, below {FIRST_PUBLIC_USER} "
                              "(a stage's own types, converted in api/: issue 34)")
            for m in include.finditer(f.read_text()):
                target = m.group(1)
                if target == stage or target == "util":
                    continue
                if target not in rank:
                    errors.append(f"{rel}: includes lib/{target}/, which is not a stage")
                elif rank[target] > rank[stage]:
                    errors.append(f"{rel}: includes lib/{target}/, a stage above {stage}")
                elif target not in stages[stage]["deps"]:
                    errors.append(f"{rel}: includes lib/{target}/, which {stage} does not declare")
    # tools/: the programs stand above every stage (they may include any), but only stages.
    for f in sorted((root / "tools").rglob("*")):
        if f.suffix not in (".cc", ".h"):
            continue
        checked += 1
        for m in include.finditer(f.read_text()):
            if m.group(1) not in rank:
                errors.append(f"{f.relative_to(root)}: includes lib/{m.group(1)}/, which is not a stage")
    for e in errors:
        print(e)
    if not errors:
        print(f"check_layers: {checked} files of {len(order)} stages, every include downwards")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")))
