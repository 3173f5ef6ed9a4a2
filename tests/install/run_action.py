#!/usr/bin/env python3
"""Runs a composite action's steps as a GitHub job runs them: run_action.py ACTION_YML KEY=VALUE...

Inputs take their defaults unless given; `${{ inputs.X }}` and `${{ steps.ID.outputs.Y }}` are
substituted in env, run and with; each `run:` goes to `bash --noprofile --norc -eo pipefail` (the
runner's bash) with GITHUB_OUTPUT and GITHUB_ACTION_PATH set; a step whose `if:` is false, or that
follows a failed step without always(), is skipped. `uses:` steps are not run: their `with:` is
printed (a test checks what they would get). Prints one JSON line: every step's outcome, the
outputs, and the job's conclusion; exits 0 when the job succeeded, else 1."""
import json
import os
import re
import subprocess
import sys
import tempfile

import yaml

action_path = os.path.abspath(sys.argv[1])
action = yaml.safe_load(open(action_path))
inputs = {k: str(v.get("default", "")) for k, v in action.get("inputs", {}).items()}
for arg in sys.argv[2:]:
    key, _, value = arg.partition("=")
    if key not in inputs:
        sys.exit(f"run_action.py: {key}: no such input")
    inputs[key] = value
for key, spec in action.get("inputs", {}).items():
    if spec.get("required") and not inputs[key]:
        sys.exit(f"run_action.py: input {key} is required")
steps_out = {}


def expand(text):
    def one(m):
        expr = m.group(1).strip()
        if expr.startswith("inputs."):
            return inputs[expr[len("inputs."):]]
        m2 = re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", expr)
        if m2:
            return steps_out.get(m2.group(1), {}).get(m2.group(2), "")
        raise SystemExit(f"run_action.py: cannot evaluate ${{{{ {expr} }}}}")
    return re.sub(r"\$\{\{(.*?)\}\}", one, str(text))


def condition(expr, failed):
    """The `if:` forms this action uses: always(), success(), ==, !=, &&, ||, inputs/steps."""
    expr = expr.strip()
    if expr.startswith("${{") and expr.endswith("}}"):
        expr = expr[3:-2].strip()
    has_status = "always()" in expr or "failure()" in expr or "success()" in expr
    expr = re.sub(r"inputs\.([\w-]+)", lambda m: repr(inputs[m.group(1)]), expr)
    expr = (expr.replace("always()", "True").replace("success()", repr(not failed))
            .replace("failure()", repr(failed)).replace("&&", " and ").replace("||", " or "))
    ok = bool(eval(expr, {"__builtins__": {}}))  # the tokens above only: True, strings, ==
    return ok if has_status else ok and not failed


failed = False
outcomes = []
with tempfile.TemporaryDirectory() as tmp:
    for i, step in enumerate(action["runs"]["steps"]):
        sid = step.get("id", f"step{i}")
        name = step.get("name", sid)
        if not condition(step.get("if", "success()"), failed):
            outcomes.append({"step": name, "outcome": "skipped"})
            continue
        if "uses" in step:
            outcomes.append({"step": name, "outcome": "uses", "uses": step["uses"],
                             "with": {k: expand(v) for k, v in step.get("with", {}).items()}})
            continue
        out_file = os.path.join(tmp, f"out{i}")
        open(out_file, "w").close()
        env = {**os.environ, "GITHUB_OUTPUT": out_file,
               "GITHUB_ACTION_PATH": os.path.dirname(action_path)}
        env.update({k: expand(v) for k, v in step.get("env", {}).items()})
        script = os.path.join(tmp, f"step{i}.sh")
        with open(script, "w") as f:
            f.write(expand(step["run"]))
        rc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", script],
                            env=env).returncode
        steps_out[sid] = dict(line.split("=", 1) for line in open(out_file).read().splitlines()
                              if "=" in line)
        outcomes.append({"step": name, "outcome": "success" if rc == 0 else "failure",
                         "exit": rc})
        failed = failed or rc != 0
outputs = {k: expand(v["value"]) for k, v in action.get("outputs", {}).items()}
print(json.dumps({"steps": outcomes, "outputs": outputs,
                  "conclusion": "failure" if failed else "success"}))
sys.exit(1 if failed else 0)
