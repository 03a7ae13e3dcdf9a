#!/bin/sh
# test_ensemble_mpi.sh NHOLO - `mpirun -np 2 nholo ensemble ... --out FILE.h5` writes the same
# data, bit for bit, as one process: every dataset compared with h5diff (exact), and with h5py
# byte by byte when a python3 on PATH has it. Exit 77 (skipped) without mpirun, and when h5diff
# or h5py is missing (the comparisons they make skipped, the others run).
set -u
NHOLO=$1
if ! command -v mpirun >/dev/null 2>&1; then
  echo "skip: mpirun not found"
  exit 77
fi
. "$(dirname "$0")/cli_lib.sh"
MPI="mpirun --oversubscribe --allow-run-as-root -np 2"

# 13 chunks of 16 members: rank 0 runs chunks 0-5, rank 1 chunks 6-12; the statistics' tree
# then joins blocks from both ranks
A="penny --method exact --impacts 20 --vary phi=uniform:0:6.28 --vary x=normal:0:0.01 --members 200 --t-end 50
   --sample 0.5 --stat x=-0.4:0.4:40 --stat y --trajectories --chunk 16"
"$NHOLO" ensemble $A --threads 2 --out "$T/one.h5" --json >"$T/one.json" 2>"$T/err" \
  && ok "one process" || bad "one process: $(cat "$T/err")"
$MPI "$NHOLO" ensemble $A --threads 1 --out "$T/two.h5" --json >"$T/two.json" 2>"$T/err" \
  && ok "two ranks" || bad "two ranks: $(cat "$T/err")"
grep -q '"ranks": 2' "$T/two.json" && ok "two ranks reported" || bad "ranks: $(cat "$T/two.json")"
strip() { sed 's/"threads": [0-9]*, //; s/, "ranks": [0-9]*//; s/, "out": .*}$/}/' "$1"; }
[ "$(strip "$T/one.json")" = "$(strip "$T/two.json")" ] && ok "the same statistics printed" \
  || bad "statistics: $(cat "$T/one.json") / $(cat "$T/two.json")"
if command -v h5diff >/dev/null 2>&1; then
  h5diff "$T/one.h5" "$T/two.h5" >"$T/diff" 2>&1 && ok "h5diff: no difference in any dataset or attribute" \
    || bad "h5diff: $(head -20 "$T/diff")"
else
  skip "h5diff comparisons (no h5diff on PATH)"
fi
PY=
for d in $(echo "$PATH" | tr ':' ' '); do
  if [ -x "$d/python3" ] && "$d/python3" -c 'import h5py, numpy' >/dev/null 2>&1; then
    PY=$d/python3
    break
  fi
done
if [ -n "$PY" ]; then
  "$PY" - "$T/one.h5" "$T/two.h5" <<'PY' && ok "h5py: every dataset identical byte for byte (NaNs included)" || bad "h5py comparison"
import sys, h5py
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
names = []
a.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else None)
assert len(names) >= 17, names
for n in names:
    x, y = a[n][()], b[n][()]
    assert x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes(), n
PY
else
  skip "h5py byte comparison (no python3 with h5py on PATH)"
fi
# three ranks and two chunks: one rank has no members and still takes part in the file
B="penny --method exact --impacts 3 --vary x=uniform:0:0.01 --members 150 --chunk 100 --sample 1 --t-end 10 --trajectories"
"$NHOLO" ensemble $B --out "$T/b1.h5" >/dev/null 2>"$T/err" \
  && mpirun --oversubscribe --allow-run-as-root -np 3 "$NHOLO" ensemble $B --out "$T/b3.h5" >/dev/null 2>>"$T/err" \
  && { ! command -v h5diff >/dev/null 2>&1 || h5diff "$T/b1.h5" "$T/b3.h5" >/dev/null 2>&1; } \
  && ok "three ranks, two chunks (a rank without members): the same file" || bad "three ranks: $(cat "$T/err")"
# without the impact log: two ranks write the same file as one process
"$NHOLO" ensemble $B --no-impact-log --out "$T/n1.h5" >/dev/null 2>"$T/err" \
  && $MPI "$NHOLO" ensemble $B --no-impact-log --out "$T/n2.h5" >/dev/null 2>>"$T/err" \
  && { ! command -v h5diff >/dev/null 2>&1 || h5diff "$T/n1.h5" "$T/n2.h5" >/dev/null 2>&1; } \
  && ok "--no-impact-log on two ranks: the same file as one process" || bad "--no-impact-log under MPI: $(cat "$T/err")"
rm -rf "$T/o" && mkdir "$T/o"
$MPI "$NHOLO" ensemble penny --vary x=uniform:0:0.01 --out "$T/o/x.csv" >/dev/null 2>"$T/err"
rc=$?
[ "$rc" -ne 0 ] && [ -z "$(ls -A "$T/o")" ] && grep -q "under MPI (2 ranks) the output is an HDF5 file" "$T/err" \
  && ok "a CSV under two ranks is refused" || bad "CSV under MPI (exit $rc): $(cat "$T/err")"

finish
