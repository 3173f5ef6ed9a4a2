#!/usr/bin/env python3
"""docs/loader-model.md against the fixtures and the README (ctest docs.loader_model).

Every fixture under fixtures/loader/ is cited by a rule; every fixture a rule cites exists; every
rule row has a glibc function and a fixture (or names the test that stands for one); the README's
"What the loader model covers" states the number of differential scenarios there are and names
every rule section of the model."""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1])
model = (root / "docs/loader-model.md").read_text()
readme = (root / "README.md").read_text()
fixtures = {p.parent.name for p in (root / "fixtures/loader").glob("*/build.sh")}
errors = []

rows = [l for l in model.splitlines() if re.match(r"^\| [A-E]\d+[a-z]? \|", l)]
cited = set()
for row in rows:
    cells = [c.strip() for c in row.strip("|").split("|")]
    rule, glibc, test = cells[0], cells[2], cells[-1]
    if not glibc or glibc == "—" and not rule.startswith("E"):
        errors.append(f"rule {rule}: no glibc function")
    names = set(re.findall(r"`([a-z0-9_]+)`", test))
    for n in names:
        if n in fixtures:
            cited.add(n)
        elif not re.search(r"unit|tests/pypi|fuzz|corpus|differential", test):
            errors.append(f"rule {rule}: cites `{n}`, which is not a fixture under fixtures/loader/")
    if not test or test == "—" and not names:
        if "every linker-made fixture" not in row:
            errors.append(f"rule {rule}: no fixture or test")

for f in sorted(fixtures - cited):
    errors.append(f"fixture {f} is cited by no rule in docs/loader-model.md")

section = readme.split("## What the loader model covers", 1)
if len(section) != 2:
    errors.append("README.md has no 'What the loader model covers' section")
else:
    body = section[1].split("\n## ", 1)[0]
    m = re.search(r"(\d+) differential\s+scenarios", body)
    if not m:
        errors.append("README.md's loader-model section does not say how many differential scenarios")
    elif int(m.group(1)) != len(fixtures):
        errors.append(f"README.md says {m.group(1)} differential scenarios; fixtures/loader has {len(fixtures)}")
    # Rules are named one by one (B5) or as ranges (A1–A8).
    mentioned = set(re.findall(r"\b([A-E]\d+)\b", body))
    for sec, lo, hi in re.findall(r"\b([A-E])(\d+)[–-]\1?(\d+)\b", body):
        mentioned |= {f"{sec}{i}" for i in range(int(lo), int(hi) + 1)}
    for rule_id in sorted({re.match(r"[A-E]\d+", r.split()[1]).group(0) for r in rows}):
        if rule_id.startswith("E"):
            continue
        if rule_id not in mentioned:
            errors.append(f"README.md's loader-model section does not mention rule {rule_id}")

for e in errors:
    print(e)
print(f"{len(rows)} rules, {len(fixtures)} fixtures, {len(errors)} problems")
sys.exit(1 if errors else 0)
