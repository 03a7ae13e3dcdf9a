#!/bin/sh
# The pip installs of docs/python.md ("With pip, on Debian 12"), run as the page gives them:
# the three sh blocks after its "pip_install.sh" markers (a user's virtual environment, root's
# in /opt, a wheel built offline and installed into the first), in a copy of the source tree's
# files under git (a clean clone's files, with the work tree's edits), in a plain user's
# environment (only PATH=/usr/bin:/bin, no pip configuration: no index or wheel directory of
# this machine's), with HOME and /opt under a temporary directory and any network access
# failing at once (a dead proxy: the commands must not need it). Each environment's package must import from that environment
# and run the penny to the command-line tool's final state, bit for bit, with the components
# it finds inside the package.
#
# One compile: pip builds in the source tree (setup.py's build-python/), so the second
# install and the wheel reuse the first one's objects; setup.py compiles on all cores. The
# test compiles at -O0 (CFLAGS, after Python's -O2; a tenth of the compiler's time): the same
# numbers (no -ffast-math, no contraction: the comparison with the CLI checks it).
#
# Usage: pip_install.sh SOURCE_DIR NHOLO_CLI. Exit 77 (skipped) with a message when venv,
# pip, setuptools or numpy is missing.
set -u
SRC=$1
CLI=$2
PY=/usr/bin/python3
"$PY" -c "import setuptools, numpy, pip, ensurepip, venv" 2>/dev/null ||
  { echo "test_pip_install skipped: venv (python3-venv), pip, setuptools or numpy missing"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# the source: the files git tracks, as they are in the work tree (a tree without git: all of
# it but build directories)
mkdir -p "$T/src" "$T/home" "$T/opt"
if git -C "$SRC" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  (cd "$SRC" && git ls-files -z | tar -cf - --null -T - --ignore-failed-read 2>/dev/null) | tar -xf - -C "$T/src"
else
  (cd "$SRC" && tar -cf - --exclude='./build*' .) | tar -xf - -C "$T/src"
fi
[ -f "$T/src/setup.py" ] && [ -f "$T/src/docs/python.md" ] || { echo "FAIL copying the source tree"; exit 1; }

# the commands of the block after the marker TAG in docs/python.md
block() {
  awk -v tag="$1" 'index($0, tag) { want = 1; next } want && /^```sh$/ { on = 1; next }
                   on && /^```$/ { exit } on { print }' "$T/src/docs/python.md"
}

# the penny's final state from Python: PYTHON the environment's interpreter, which must be
# the one the package is imported from
penny() {
  env -u PYTHONPATH "$1" -c '
import sys, nholo
assert nholo.__file__.startswith(sys.prefix + "/"), (nholo.__file__, sys.prefix)
# the components come with the package (plot at least: PLplot is installed by setup.sh)
pkg = nholo.__file__.rsplit("/", 1)[0] + "/nholo-modules/"
comps = nholo.components()
assert comps["plot"][0], comps
assert all(pkg in info for ok, info in comps.values() if ok), (pkg, comps)
r = nholo.Simulation(nholo.builtin("penny"), method="exact").run(t_end=100, max_impacts=5)
print(" ".join("%.17g" % x for x in r.x[-1]))
'
}
ref=$("$CLI" run penny --method exact --impacts 5 --json | "$PY" -c '
import json, sys
print(" ".join("%.17g" % x for x in json.load(sys.stdin)["final_state"].values()))
') || { echo "FAIL the command-line tool does not run"; exit 1; }

# run one block in the source copy, offline; NAME for the messages, SED rewrites its paths
run_block() {
  name=$1 tag=$2 sed=$3
  cmds=$(block "$tag" | sed "$sed")
  [ -n "$cmds" ] || { echo "FAIL docs/python.md has no sh block after '$tag'"; exit 1; }
  if ! (cd "$T/src" && env -i PATH=/usr/bin:/bin HOME="$T/home" TMPDIR="${TMPDIR:-/tmp}" LANG=C.UTF-8 \
          XDG_CACHE_HOME="$T/cache" PIP_CONFIG_FILE=/dev/null \
          http_proxy=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9 CFLAGS=-O0 sh -ex -c "$cmds") \
          >"$T/$name.log" 2>&1; then
    echo "FAIL the $name commands of docs/python.md:"; tail -30 "$T/$name.log"; exit 1
  fi
}

check() {
  out=$(penny "$2") || { echo "FAIL the $1 package does not run"; exit 1; }
  [ "$out" = "$ref" ] || { echo "FAIL the $1 package: $out, CLI: $ref"; exit 1; }
}

run_block user "pip_install.sh runs" ""
check "user's" "$T/home/.venvs/nholo/bin/python"
grep -q "^[0-9]" "$T/user.log" || { echo "FAIL the user block printed no version"; exit 1; }
run_block root "pip_install.sh: root" "s|/opt/|$T/opt/|g"
check "root's" "$T/opt/nholo/bin/python"
run_block wheel "pip_install.sh: wheel" ""
ls "$T/src/dist/"nholo-*.whl >/dev/null 2>&1 || { echo "FAIL no wheel in dist/"; exit 1; }
grep -q "Successfully installed nholo" "$T/wheel.log" || { echo "FAIL the wheel was not installed"; exit 1; }
check "wheel's" "$T/home/.venvs/nholo-wheel/bin/python"
echo "ok   docs/python.md's pip installs (a user's venv, root's in /opt, a wheel), offline: each package runs the penny to the CLI's final state"
