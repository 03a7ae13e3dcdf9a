#!/bin/sh
# test_signals.sh NHOLO - SIGINT and SIGTERM end `run`, `ensemble` (CSV and HDF5) and
# `lyapunov` cleanly, and the model compiler runs within its budget (docs/cli.md, "Exit status";
# docs/signals.md; docs/model-language.md, "The compiler's budget").
#
# Each long command starts in the background; once it is under way (its output's temporary
# exists, or its compiler runs) it gets the signal. Checked: the exit status (130 for SIGINT,
# 143 for SIGTERM), the message on stderr, the summary's status NH_INTERRUPTED, no temporary
# left, and the output kept valid: a CSV whose rows are complete and as many as the summary
# says; an HDF5 file h5dump reads, cut to the members run (skipped without h5dump). The
# compiler: a chain of 32 pendulums (scripts/pendulum-chain.sh: a dense trigonometric mass
# matrix; its C takes a compiler a minute or more) with a limit of 1 s goes to the tape with the
# note on stderr and in check's report, --backend codegen fails with exit status 1; a SIGINT
# while the compiler runs, or a SIGKILL of nholo, leaves no compiler process and (SIGINT) no file.
set -u
NHOLO=$1
. "$(dirname "$0")/cli_lib.sh"
SRC=$(cd "$(dirname "$0")/.." && pwd)
export NHOLO_CACHE_DIR="$T/cache"
mkdir -p "$T/o"

# a shell without job control starts background jobs with SIGINT ignored, and nholo keeps a
# signal it inherits ignored (as nohup expects): start them with SIGINT at its default
if env --default-signal=INT true 2>/dev/null; then
  DEFSIG="env --default-signal=INT"
else
  DEFSIG=
fi

# wait_for GLOB SECONDS: until a file matches GLOB (1), or SECONDS passed (0)
wait_for() {
  i=0
  while [ "$i" -lt $(($2 * 10)) ]; do
    for f in $1; do [ -e "$f" ] && return 0; done
    sleep 0.1
    i=$((i + 1))
  done
  return 1
}

# interrupt SIG GLOB ARGS...: nholo ARGS in the background (stdout $T/out, stderr $T/err), once
# GLOB exists (its run under way) and half a second more, the signal; the exit status in $rc
interrupt() {
  sig=$1 glob=$2
  shift 2
  $DEFSIG "$NHOLO" "$@" >"$T/out" 2>"$T/err" &
  pid=$!
  wait_for "$glob" 60 || echo "  (never saw $glob)"
  sleep 0.5
  kill -"$sig" "$pid"
  wait "$pid"
  rc=$?
}

# the exit status and message of a signal: 130 / 143 and "nholo: interrupted by SIG..."
signalled() { # NAME SIG
  want=130
  [ "$2" = TERM ] && want=143
  if [ "$rc" -eq "$want" ] && grep -q "^nholo: interrupted by SIG$2" "$T/err"; then return 0; fi
  bad "$1: exit $rc (expected $want): $(cat "$T/err")"
  return 1
}

# no temporary of an output left in $T/o
no_tmp() { [ -z "$(ls -A "$T/o" | grep '\.tmp')" ]; }

# a CSV whose every line is complete (ends in a newline) and has the header's fields; its rows
# (after the header) on stdout, nothing when it is not
csv_rows() {
  [ -s "$1" ] && [ "$(tail -c 1 "$1" | od -An -c | tr -d ' ')" = '\n' ] || return 1
  awk -F, 'NR == 1 { n = NF; next } NF != n { bad = 1 } END { if (!bad) print NR - 1 }' "$1"
}

# ---- run: a run with events, its trajectory and impact log (SIGINT) --------------------------
if [ -z "$DEFSIG" ]; then
  skip "SIGINT of a background job: no 'env --default-signal' here (SIGTERM is checked)"
  INT=TERM
else
  INT=INT
fi
interrupt $INT "$T/o/r.csv.tmp.*" run penny --method rk4 --dt 1e-5 --t-end 1e5 --out "$T/o/r.csv" --sample 0.01 \
  --events "$T/o/ev.csv" --json
if signalled "run (SIG$INT)" $INT; then
  t=$(grep -o '"t_end": [^,]*' "$T/out" | head -1 | sed 's/"t_end": //')
  n=$(csv_rows "$T/o/r.csv")
  last=$(tail -1 "$T/o/r.csv" | cut -d, -f1)
  imp=$(grep -o '"impacts": [0-9]*' "$T/out" | head -1 | sed 's/"impacts": //')
  nev=$(csv_rows "$T/o/ev.csv")
  if grep -q '"status": "NH_INTERRUPTED"' "$T/out" && no_tmp && [ -n "$n" ] && [ "$n" -gt 1 ] \
    && awk -v a="$last" -v b="$t" 'BEGIN { exit !(a == b && a > 0 && a < 1e5) }' && [ "$nev" = "$imp" ]; then
    ok "run: SIG$INT stops it (exit $rc), summary NH_INTERRUPTED at t = $t, $n rows ending there, $nev impacts logged"
  else
    bad "run SIG$INT: t=$t rows=$n last=$last impacts=$imp logged=$nev tmp=$(ls "$T/o"): $(cat "$T/err")"
  fi
fi
rm -f "$T"/o/*

# ---- run: the plain loop, no output (SIGTERM) -----------------------------------------------
"$NHOLO" run sleigh --method gni --dt 1e-5 --t-end 1e6 --json >"$T/out" 2>"$T/err" &
pid=$!
sleep 1
kill -TERM "$pid"
wait "$pid"
rc=$?
if signalled "run sleigh (SIGTERM)" TERM; then
  grep -q '"status": "NH_INTERRUPTED"' "$T/out" && ok "run: SIGTERM stops the plain loop (exit $rc), summary NH_INTERRUPTED" \
    || bad "run sleigh SIGTERM: $(cat "$T/out")"
fi

# ---- ensemble: CSV (SIGINT) and HDF5 (SIGTERM), two threads ------------------------------------
E="ensemble penny --method rk4 --dt 1e-5 --t-end 1e3 --members 64 --vary theta=uniform:0:6.28 --threads 2 --json"
# shellcheck disable=SC2086
interrupt $INT "$T/o/e.csv.tmp.*" $E --out "$T/o/e.csv"
if signalled "ensemble CSV (SIG$INT)" $INT; then
  m=$(grep -o '"members": [0-9]*' "$T/out" | sed 's/"members": //')
  i=$(grep -o '"interrupted": [0-9]*' "$T/out" | sed 's/"interrupted": //')
  n=$(csv_rows "$T/o/e.csv")
  ni=$(grep -c ',NH_INTERRUPTED,' "$T/o/e.csv")
  if no_tmp && [ -n "$n" ] && [ "$n" = "$m" ] && [ "$ni" = "${i:-0}" ] && [ "$ni" -ge 1 ]; then
    ok "ensemble CSV: SIG$INT stops both threads (exit $rc), $n members kept ($ni NH_INTERRUPTED), complete rows"
  else
    bad "ensemble CSV SIG$INT: rows=$n members=$m interrupted=$i/$ni tmp=$(ls "$T/o"): $(cat "$T/err")"
  fi
fi
rm -f "$T"/o/*
if ! "$NHOLO" ensemble penny --method exact --impacts 1 --members 1 --out "$T/probe.h5" >/dev/null 2>&1; then
  skip "ensemble HDF5: this build writes no HDF5"
else
  # shellcheck disable=SC2086
  interrupt TERM "$T/o/e.h5.tmp*" $E --out "$T/o/e.h5" --sample 1 --trajectories
  if signalled "ensemble HDF5 (SIGTERM)" TERM; then
    m=$(grep -o '"members": [0-9]*' "$T/out" | sed 's/"members": //')
    if ! no_tmp || [ ! -s "$T/o/e.h5" ]; then
      bad "ensemble HDF5 SIGTERM: $(ls "$T/o"): $(cat "$T/err")"
    elif ! command -v h5dump >/dev/null 2>&1; then
      skip "ensemble HDF5: kept ($m members), no h5dump here to read it back"
    else
      attr() { h5dump -a "$1" "$T/o/e.h5" | sed -n 's/^ *(0): //p'; }
      rows() { h5dump -H -d "$1" "$T/o/e.h5" | grep -o 'SIMPLE { ( [0-9]*' | grep -o '[0-9]*$'; }
      if [ "$(attr /interrupted)" = 1 ] && [ "$(attr /members)" = "$m" ] && [ "$(rows /members/status)" = "$m" ] \
        && [ "$(rows /members/trajectory)" = "$m" ] && [ "$(rows /impacts/offsets)" = $((m + 1)) ] \
        && h5dump -d /members/status "$T/o/e.h5" | grep -q '11'; then
        ok "ensemble HDF5: SIGTERM (exit $rc) leaves a valid file cut to its $m members, interrupted = 1"
      else
        bad "ensemble HDF5: interrupted=$(attr /interrupted) members=$(attr /members)/$m status rows=$(rows /members/status)"
      fi
    fi
  fi
fi
rm -f "$T"/o/*

# ---- lyapunov (SIGINT) --------------------------------------------------------------------------
interrupt $INT "$T/o/l.csv.tmp.*" lyapunov penny --t-end 1e7 --csv "$T/o/l.csv" --json
if signalled "lyapunov (SIG$INT)" $INT; then
  w=$(grep -o '"windows":[0-9]*' "$T/out" | sed 's/"windows"://')
  n=$(csv_rows "$T/o/l.csv")
  if grep -q '"status":"NH_INTERRUPTED"' "$T/out" && no_tmp && [ -n "$n" ] && [ "$n" = "$w" ] && [ "$n" -gt 0 ]; then
    ok "lyapunov: SIG$INT stops it (exit $rc), the estimate and its CSV cover the same $n windows"
  else
    bad "lyapunov SIG$INT: windows=$w rows=$n tmp=$(ls "$T/o"): $(cat "$T/out" "$T/err")"
  fi
fi
rm -f "$T"/o/*

# ---- the compiler: its budget, a signal, SIGKILL ---------------------------------------------
CHAIN="$T/chain32.nh"
sh "$SRC/scripts/pendulum-chain.sh" 32 >"$CHAIN"
# compiler processes working in the cache (their command lines name it), within a second: none
no_compiler() {
  i=0
  while pgrep -f "$NHOLO_CACHE_DIR" >/dev/null 2>&1; do
    [ "$i" -ge 10 ] && return 1
    sleep 0.1
    i=$((i + 1))
  done
  return 0
}
# the cache holds nothing but compiled objects, their logs and budget records
cache_clean() { [ -z "$(ls -A "$NHOLO_CACHE_DIR" 2>/dev/null | grep -v -e '\.so$' -e '\.log$' -e '\.budget$')" ]; }
if ! command -v pgrep >/dev/null 2>&1 || ! "$NHOLO" check "$SRC/examples/penny.nh" --backend codegen >/dev/null 2>&1; then
  skip "the compiler's budget: no working C compiler (or no pgrep) here"
else
  "$NHOLO" check "$CHAIN" --compile-limit 1 >"$T/out" 2>"$T/err"
  rc=$?
  if [ "$rc" -eq 0 ] && grep -qx 'evaluation: tape (the C compiler exceeded its time limit (1 s))' "$T/out" \
    && grep -q "^nholo: note: $CHAIN: the C compiler exceeded its time limit (1 s)" "$T/err" && no_compiler \
    && cache_clean && ls "$NHOLO_CACHE_DIR" | grep -q '\.budget$'; then
    ok "check: past --compile-limit 1 the tape, said in the report and on stderr; no compiler left, the limit recorded"
  else
    bad "check --compile-limit 1: exit $rc: $(grep evaluation "$T/out"); $(cat "$T/err"); cache: $(ls "$NHOLO_CACHE_DIR")"
  fi
  "$NHOLO" run "$CHAIN" --compile-limit 1 --backend codegen --t-end 0.01 >"$T/out" 2>"$T/err"
  rc=$?
  [ "$rc" -eq 1 ] && grep -q "compiled evaluation is not available: the C compiler exceeded its time limit (1 s)" "$T/err" \
    && ok "run --backend codegen past the limit: exit 1, $(cat "$T/err")" || bad "run --backend codegen: exit $rc: $(cat "$T/err")"
  # a signal while the compiler runs (no limit): exit 130, the compiler and its files gone
  rm -rf "$NHOLO_CACHE_DIR"
  $DEFSIG "$NHOLO" check "$CHAIN" --compile-limit 0 >"$T/out" 2>"$T/err" &
  pid=$!
  i=0
  while ! pgrep -f "$NHOLO_CACHE_DIR/.*model.c" >/dev/null 2>&1 && [ "$i" -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
  kill -"$INT" "$pid"
  wait "$pid"
  rc=$?
  if signalled "check during the compile (SIG$INT)" $INT; then
    no_compiler && [ -z "$(ls -A "$NHOLO_CACHE_DIR")" ] \
      && ok "check: SIG$INT during the compile (exit $rc) kills the compiler and removes its files" \
      || bad "check SIG$INT during the compile: left $(pgrep -f "$NHOLO_CACHE_DIR" | tr '\n' ' '); $(ls -A "$NHOLO_CACHE_DIR")"
  fi
  # SIGKILL of nholo: its compiler dies with it
  "$NHOLO" run "$CHAIN" --compile-limit 0 --t-end 0.01 >"$T/out" 2>"$T/err" &
  pid=$!
  i=0
  while ! pgrep -f "$NHOLO_CACHE_DIR/.*model.c" >/dev/null 2>&1 && [ "$i" -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
  up=$(pgrep -f "$NHOLO_CACHE_DIR" | wc -l)
  kill -KILL "$pid"
  wait "$pid" 2>/dev/null
  if [ "$up" -ge 1 ] && no_compiler; then
    ok "run: SIGKILL of nholo during the compile leaves none of its $up compiler processes"
  else
    bad "run SIGKILL during the compile: $up compiler processes, left: $(pgrep -af "$NHOLO_CACHE_DIR")"
  fi
fi

finish
