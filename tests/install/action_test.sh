#!/usr/bin/env bash
# The GitHub composite action (action.yml), its steps run as a job runs them (run_action.py), on
# the headline fixture: a module that loads (job succeeds, exit-code 0, an empty SARIF run) and
# one that does not (job fails with exit 1 after the SARIF upload step, which gets a file naming
# the symbol).   action_test.sh WORK_DIR ABICHECK|WHEEL
# ABICHECK: the program to put on PATH (the action's install step then only prints its version);
# WHEEL (*.whl): the action installs it with pip into a fresh virtualenv, as in a job.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(realpath -m "$1") given=$(realpath "$2")
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }
python3 -m venv "$work/venv"
wheel=
case "$given" in
  *.whl) wheel=$given ;;
  *) ln -s "$given" "$work/venv/bin/abicheck" ;;
esac
fx=$work/fixture
"$root/tests/support/headline_fixture.sh" "$fx"
cd "$fx"
export PATH=$work/venv/bin:$PATH
run() {  # expected-conclusion name inputs...
  local want=$1 name=$2
  shift 2
  set +e
  /usr/bin/python3 "$root/tests/install/run_action.py" "$root/action.yml" "$@" > "$work/$name.log" 2>&1
  set -e
  tail -1 "$work/$name.log" > "$work/$name.json"
  python3 - "$work/$name.json" "$want" <<'PY' || { cat "$work/$name.log"; fail "$name"; }
import json, sys
r = json.load(open(sys.argv[1]))
assert r["conclusion"] == sys.argv[2], r
PY
}
run success good "wheel=$wheel" files=common_ops.abi3.so against=old sarif="$work/good.sarif"
run failure bad "wheel=" files="common_ops.*.so" against=new sarif="$work/bad.sarif"
python3 - "$work/good.json" "$work/bad.json" "$work/good.sarif" "$work/bad.sarif" <<'PY' || exit 1
import json, sys
good, bad = (json.load(open(p)) for p in sys.argv[1:3])
gs, bs = (json.load(open(p)) for p in sys.argv[3:5])
def step(r, name): return next(s for s in r["steps"] if s["step"] == name)
problems = []
if good["outputs"]["exit-code"] != "0": problems.append(f"good: exit-code {good['outputs']}")
if bad["outputs"]["exit-code"] != "1": problems.append(f"bad: exit-code {bad['outputs']}")
if step(bad, "Verdict").get("exit") != 1: problems.append(f"bad: Verdict {step(bad, 'Verdict')}")
up = step(bad, "Upload SARIF")
if up["outcome"] != "uses" or up["with"]["sarif_file"] != sys.argv[4]:
    problems.append(f"bad: the upload step {up}")
if any(r.get("results") for r in gs["runs"]): problems.append("good: SARIF has results")
text = json.dumps(bs)
if "c10_cuda_check_implementation" not in text: problems.append("bad: SARIF names no symbol")
if problems: sys.exit("FAIL: " + "; ".join(problems))
print("action: loads -> job succeeds (exit-code 0); will not load -> SARIF uploaded, job fails (exit 1)")
PY
