#!/bin/sh
# `pip install .` from the source tree, offline (Debian's setuptools, no build isolation), into
# a temporary target: the package it builds imports and runs a short simulation whose final
# state equals the CLI's. Usage: pip_install.sh SOURCE_DIR NHOLO_CLI. Exit 77 (skipped) with
# a message when pip, setuptools or numpy is missing.
set -u
SRC=$1
CLI=$2
PY=/usr/bin/python3
"$PY" -c "import setuptools, numpy, pip" 2>/dev/null || { echo "test_pip_install skipped: pip, setuptools or numpy missing"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# a copy of what the build reads, so that setuptools' build/ does not land in the source tree
mkdir -p "$T/src/docs"
cp -r "$SRC/CMakeLists.txt" "$SRC/setup.py" "$SRC/pyproject.toml" "$SRC/src" "$SRC/include" "$SRC/python" "$T/src/"
cp "$SRC/docs/python.md" "$T/src/docs/"
if ! (cd "$T/src" && PIP_NO_INDEX=1 "$PY" -m pip install --no-build-isolation --no-deps --no-index \
        --disable-pip-version-check --target "$T/site" . >"$T/log" 2>&1); then
  echo "FAIL pip install:"; tail -30 "$T/log"; exit 1
fi
cd "$T" || exit 1
out=$(PYTHONPATH="$T/site" "$PY" -c '
import nholo
r = nholo.Simulation(nholo.builtin("penny"), method="exact").run(t_end=1e9, max_impacts=5)
print(" ".join("%.17g" % x for x in r.x[-1]))
') || { echo "FAIL the pip-installed package does not run"; exit 1; }
ref=$("$CLI" run penny --method exact --impacts 5 --json | "$PY" -c '
import json, sys
print(" ".join("%.17g" % x for x in json.load(sys.stdin)["final_state"].values()))
')
[ "$out" = "$ref" ] || { echo "FAIL pip-installed package: $out, CLI: $ref"; exit 1; }
echo "ok   pip install --no-build-isolation . (offline): the package imports and the penny's final state equals the CLI's"
