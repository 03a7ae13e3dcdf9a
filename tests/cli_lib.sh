# cli_lib.sh - sourced by the CLI test scripts (test_cli.sh, test_ensemble_cli.sh,
# test_ensemble_mpi.sh): a temporary directory $T removed at exit, pass/fail/skip counters with
# ok/bad/skip, finish, and expect_usage. Needs NHOLO.
T=$(mktemp -d "${TMPDIR:-/tmp}/nholo-cli.XXXXXX")
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
skipped=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
# skip WHAT: a check that cannot run here (a tool missing), said so
skip() { skipped=$((skipped + 1)); echo "skip $1"; }
# the counts, and the exit status: 1 when a check failed, else 77 (CTest's SKIP_RETURN_CODE:
# reported skipped, not passed) when one was skipped, else 0
finish() {
  echo "$pass passed, $fail failed, $skipped skipped"
  [ "$fail" -eq 0 ] || exit 1
  [ "$skipped" -eq 0 ] || exit 77
  exit 0
}

# expect_usage NAME ARGS...: exit 2, exactly one line on stderr starting "nholo: ", nothing in $T/o
expect_usage() {
  name=$1
  shift
  rm -rf "$T/o"
  mkdir -p "$T/o"
  "$NHOLO" "$@" >"$T/stdout" 2>"$T/stderr"
  rc=$?
  lines=$(wc -l <"$T/stderr")
  left=$(ls -A "$T/o" | wc -l)
  if [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && grep -q '^nholo: ' "$T/stderr" && [ "$left" -eq 0 ]; then
    ok "$name: $(cat "$T/stderr")"
  else
    bad "$name (exit $rc, $lines stderr lines, $left files left): $(cat "$T/stderr")"
  fi
}

# a stderr file without the automatic method's line ("nholo: method NAME (auto): why")
noauto() { grep -v '^nholo: method [a-z0-9-]* (auto): ' "$1"; }
