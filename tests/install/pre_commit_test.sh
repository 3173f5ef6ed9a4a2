#!/usr/bin/env bash
# The pre-commit hook (.pre-commit-hooks.yaml) as a user configures it, run by pre-commit (PyPI)
# in a scratch git repository holding the headline fixture's module: against the build it was
# compiled for the hook passes; against the newer build it fails, printing the diagnosis.
#   pre_commit_test.sh WORK_DIR ABICHECK   (exit 77: pre-commit cannot be fetched from PyPI)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(realpath -m "$1") abicheck=$(realpath "$2")
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }
tools=${ABICHECK_PORTABLE_CACHE:-$HOME/.cache/abicheck-portable}/pre-commit
if ! "$tools/bin/pre-commit" --version > /dev/null 2>&1; then
  python3 -m venv --clear "$tools"
  "$tools/bin/pip" install -q --disable-pip-version-check pre-commit==4.0.1 ||
    { echo "SKIP: pre-commit cannot be installed from PyPI"; exit 77; }
fi
mkdir -p "$work/bin" && ln -s "$abicheck" "$work/bin/abicheck"
export PATH=$work/bin:$tools/bin:$PATH PRE_COMMIT_HOME=$work/pre-commit-home
git_q() { git -c user.name=t -c user.email=t@t -c init.defaultBranch=main -c commit.gpgsign=false "$@"; }

# The hook repository: this tree's committed state with the working tree's hook file on top.
git_q clone -q "$root" "$work/hooks"
cp "$root/.pre-commit-hooks.yaml" "$work/hooks/"
(cd "$work/hooks" && git_q add .pre-commit-hooks.yaml && { git_q diff --cached --quiet || git_q commit -qm hooks; })
rev=$(git -C "$work/hooks" rev-parse HEAD)

fx=$work/fixture
"$root/tests/support/headline_fixture.sh" "$fx"
repo=$work/project
git_q init -q "$repo"
cp "$fx/common_ops.abi3.so" "$repo/"
cp "$fx/common_ops.abi3.so" "$repo/second_ops.abi3.so"  # two files: --against takes one value
echo "# not a module" > "$repo/README.md"
config() {  # the build to check against
  printf 'repos:\n  - repo: %s\n    rev: %s\n    hooks:\n      - id: abicheck\n        args: [--against, %s]\n' \
    "$work/hooks" "$rev" "$1" > "$repo/.pre-commit-config.yaml"
}
cd "$repo"
git_q add -A && git_q commit -qm project
config "$fx/old"
pre-commit run --all-files > "$work/good.txt" 2>&1 || { cat "$work/good.txt"; fail "the hook failed a module that loads"; }
grep -q "Passed" "$work/good.txt" || { cat "$work/good.txt"; fail "the hook did not run"; }
grep -q "second_ops" "$work/good.txt" && { cat "$work/good.txt"; fail "a module was taken as a build"; }
config "$fx/new"
set +e
pre-commit run --all-files > "$work/bad.txt" 2>&1
rc=$?
set -e
[ "$rc" -ne 0 ] || { cat "$work/bad.txt"; fail "the hook passed a module that will not load"; }
grep -q "parameter 4: int → unsigned int" "$work/bad.txt" || { cat "$work/bad.txt"; fail "no diagnosis"; }
grep -q "README.md" "$work/bad.txt" && fail "the hook was given README.md"
echo "pre-commit: passes against the build the module was compiled for, fails (with the diagnosis) against the newer one"
