#!/bin/sh
# test_ensemble_cli.sh NHOLO - `nholo ensemble` with HDF5 output (docs/ensembles.md): the layout
# read back (h5dump; h5py when a python3 on PATH has it), the CSV and the HDF5 file agreeing bit
# for bit, explicit members from a file, and every kind of bad input of issue 19 (one line on
# stderr, exit status 2, nothing written), and a member that fails numerically.
set -u
NHOLO=$1
. "$(dirname "$0")/cli_lib.sh"

if ! "$NHOLO" ensemble --help | grep -q -- "--sample"; then
  bad "ensemble --help lacks --sample"
fi
# a python3 on PATH with h5py (optional)
PY=
for d in $(echo "$PATH" | tr ':' ' '); do
  if [ -x "$d/python3" ] && "$d/python3" -c 'import h5py, numpy' >/dev/null 2>&1; then
    PY=$d/python3
    break
  fi
done

# ---- bad input: each one message, exit 2, nothing written ---------------------------------
P="penny --method exact --impacts 5"
expect_usage "a distribution that does not parse (HDF5)" ensemble $P --vary x=normal:0 --out "$T/o/e.h5"
expect_usage "a name that is not a parameter or coordinate (HDF5)" ensemble $P --vary zz=uniform:0:1 --out "$T/o/e.h5"
expect_usage "--stat of a name that is not a state component" ensemble $P --sample 1 --stat zz --out "$T/o/e.h5"
expect_usage "--stat with a range that does not parse" ensemble $P --sample 1 --stat x=1:0 --out "$T/o/e.h5"
expect_usage "--sample without an HDF5 output" ensemble $P --sample 1 --out "$T/o/e.csv"
expect_usage "--trajectories without --sample" ensemble $P --trajectories --out "$T/o/e.h5"
expect_usage "--no-impact-log without an HDF5 output" ensemble $P --vary x=uniform:0:0.01 --no-impact-log --out "$T/o/e.csv"
grep -qxF "nholo: --no-impact-log: the impact log is written only to an HDF5 file (--out FILE.h5)" "$T/stderr" \
  && ok "its message" || bad "its message: $(cat "$T/stderr")"
expect_usage "an HDF5 output that cannot be written" ensemble $P --vary x=uniform:0:0.01 --out "$T/o/no/such/dir/e.h5"
printf 'x,zz\n0,1\n' >"$T/m-col.csv"
expect_usage "a member file with a column that is not a name of the model" ensemble $P --members "$T/m-col.csv" --out "$T/o/e.h5"
grep -qxF "nholo: --members: '$T/m-col.csv': column model 'penny' has no parameter, coordinate or velocity 'zz'" "$T/stderr" \
  && ok "the column's message" || bad "the column's message: $(cat "$T/stderr")"
printf 'x,y\n0,1\n0.5\n' >"$T/m-count.csv"
expect_usage "a member file with a row of the wrong length" ensemble $P --members "$T/m-count.csv" --out "$T/o/e.h5"
grep -qxF "nholo: --members: '$T/m-count.csv' line 3 has 1 values, the header 2 columns" "$T/stderr" \
  && ok "the row's message" || bad "the row's message: $(cat "$T/stderr")"
printf 'x,y\n0,abc\n' >"$T/m-num.csv"
expect_usage "a member file with a value that is not a number" ensemble $P --members "$T/m-num.csv" --out "$T/o/e.h5"
printf 'x,x\n0,1\n' >"$T/m-dup.csv"
expect_usage "a member file with a column twice" ensemble $P --members "$T/m-dup.csv"
printf 'x,y\n' >"$T/m-empty.csv"
expect_usage "a member file without members" ensemble $P --members "$T/m-empty.csv"
expect_usage "a member file that does not exist" ensemble $P --members "$T/none.csv"
expect_usage "a member file and --vary" ensemble $P --members "$T/m-col.csv" --vary x=uniform:0:1
# an output that exists: refused, the file kept (the policy of every ensemble output)
"$NHOLO" ensemble $P --vary "x=uniform:0:0.01" --members 3 --out "$T/exists.h5" >/dev/null 2>&1
cp "$T/exists.h5" "$T/keep.h5"
"$NHOLO" ensemble $P --vary "x=uniform:0:0.02" --members 3 --out "$T/exists.h5" >/dev/null 2>"$T/err"
rc=$?
[ "$rc" -eq 2 ] && cmp -s "$T/exists.h5" "$T/keep.h5" \
  && grep -qxF "nholo: --out: '$T/exists.h5' exists (remove it or choose another name)" "$T/err" \
  && ok "an HDF5 output that exists is refused and kept" || bad "HDF5 over an existing file (exit $rc): $(cat "$T/err")"

# ---- a member that fails numerically: its status recorded, the others go on --------------
printf 'model blowup\ncoordinates x\nparameter k = 1\nkinetic 1/2*x'"'"'^2\npotential -k*x^4\ninitial x = 1\n' >"$T/blowup.nh"
"$NHOLO" ensemble "$T/blowup.nh" --vary k=grid:0:1:3 --t-end 10 --out "$T/bl.csv" --json >"$T/blj" 2>"$T/err"
rc=$?
[ "$rc" -eq 0 ] && grep -q '"members": 3, "ok": 1, "failed": 2' "$T/blj" \
  && [ "$(awk -F, 'NR > 1 { printf "%s ", $3 }' "$T/bl.csv")" = "NH_OK NH_STALL NH_STALL " ] \
  && ok "x'' = 4 k x^3 blows up for k > 0: those members record NH_STALL, k = 0 runs to the end" \
  || bad "failing members (exit $rc): $(cat "$T/err") $(cat "$T/bl.csv")"

# no member ends well: the statistics are NaN (JSON null), not zeros
"$NHOLO" ensemble "$T/blowup.nh" --vary k=grid:0.5:1:2 --t-end 10 --json >"$T/blj0" 2>"$T/err"
rc=$?
[ "$rc" -eq 0 ] && grep -q '"ok": 0, "failed": 2' "$T/blj0" \
  && grep -q '"x": {"mean": null, "var": null, "min": null, "max": null}' "$T/blj0" \
  && ok "no member ended well: the statistics are null" || bad "no member ended well (exit $rc): $(cat "$T/blj0" "$T/err")"

# ---- members that drift (NH_DRIFT) complete: the HDF5 attributes count them -------------
"$NHOLO" ensemble sleigh --method gni --variant paper --start paper --dt 0.05 --t-end 5 --vary omega=grid:0.1:2:8 --sample 1 \
  --out "$T/drift.h5" >/dev/null 2>"$T/err"
rc=$?
if command -v h5dump >/dev/null 2>&1; then
  attr() { h5dump -a "/stats/final/$1" "$T/drift.h5" 2>/dev/null | sed -n 's/^ *(0): //p'; }
  [ "$rc" -eq 4 ] && [ "$(attr members) $(attr ok) $(attr failed) $(attr drifted)" = "8 8 0 5" ] \
    && h5dump -d /stats/time/n "$T/drift.h5" | grep -q "(0): 8, 8, 8, 8, 8, 8" \
    && ok "HDF5: 5 of 8 members drift: ok 8, drifted 5, all 8 in the time statistics, exit 4" \
    || bad "HDF5 with drifting members (exit $rc): $(attr ok) $(attr drifted) $(cat "$T/err")"
else
  skip "HDF5 attributes of drifting members (no h5dump on PATH)"
fi

# ---- HDF5: the layout, and the same members as the CSV -----------------------------------
A="penny --method exact --impacts 20 --vary phi=uniform:0:6.28 --vary x=normal:0:0.01 --members 150 --t-end 60 --seed 3"
"$NHOLO" ensemble $A --sample 0.5 --stat x=-0.4:0.4:80 --stat "phi'" --trajectories --out "$T/a.h5" >/dev/null 2>"$T/err" \
  && "$NHOLO" ensemble $A --out "$T/a.csv" >/dev/null 2>>"$T/err" \
  && ok "penny ensemble to HDF5 and to CSV" || bad "penny ensemble: $(cat "$T/err")"
if command -v h5dump >/dev/null 2>&1; then
  h5dump -H "$T/a.h5" >"$T/hd" 2>&1
  for ds in members/values members/status members/impacts members/t_end members/final members/trajectory \
            impacts/table impacts/offsets stats/final/mean stats/time/mean stats/time/quantiles time; do
    grep -q "DATASET \"$(basename $ds)\"" "$T/hd" || bad "h5dump lacks $ds"
  done
  grep -q 'DATASET "trajectory"' "$T/hd" && grep -q "SIMPLE { ( 150, 121, 8 )" "$T/hd" \
    && ok "h5dump reads the file: trajectory 150 x 121 x 8" || bad "h5dump: $(head -20 "$T/hd")"
else
  skip "the HDF5 layout (no h5dump on PATH)"
fi
# --no-impact-log: the same file without /impacts (attribute impact_log 0), every other dataset
# the same bits
"$NHOLO" ensemble $A --sample 0.5 --stat x=-0.4:0.4:80 --stat "phi'" --trajectories --no-impact-log \
  --out "$T/nolog.h5" >/dev/null 2>"$T/err" || bad "--no-impact-log: $(cat "$T/err")"
if command -v h5dump >/dev/null 2>&1 && command -v h5diff >/dev/null 2>&1; then
  h5dump -H "$T/nolog.h5" >"$T/hn" 2>&1
  h5dump -a /impact_log "$T/nolog.h5" | grep -q "(0): 0" && h5dump -a /impact_log "$T/a.h5" | grep -q "(0): 1" \
    && ! grep -q 'GROUP "impacts"' "$T/hn" && grep -q 'GROUP "impacts"' "$T/hd" \
    && h5diff "$T/a.h5" "$T/nolog.h5" /members /members && h5diff "$T/a.h5" "$T/nolog.h5" /stats /stats \
    && [ "$(wc -c <"$T/nolog.h5")" -lt $(($(wc -c <"$T/a.h5") - 3000 * 20 * 8)) ] \
    && ok "--no-impact-log: no /impacts (impact_log 0), members and statistics the same, 480 kB less" \
    || bad "--no-impact-log: $(grep -n impacts "$T/hn" | head -3)"
else
  skip "--no-impact-log's file (no h5dump or h5diff on PATH)"
fi
if [ -n "$PY" ]; then
  "$PY" - "$T/a.h5" "$T/a.csv" <<'PY' && ok "h5py: CSV = HDF5 bit for bit; 20 impacts each; statistics = numpy's; quantiles within a bin" || bad "h5py checks"
import sys, warnings, h5py, numpy as np
warnings.simplefilter("ignore")  # nanmean of the samples past every member's end
f = h5py.File(sys.argv[1], "r")
csv = np.genfromtxt(sys.argv[2], delimiter=",", names=True, dtype=None, encoding="ascii")
fin = f["members/final"][:]
names = f["members/final"].attrs["columns"].decode().split(",")
for k, n in enumerate(names):  # %.17g round-trips: the same doubles
    assert np.array_equal(fin[:, k], csv["final_" + n]), n
assert np.array_equal(f["members/values"][:, 0], csv["phi"]) and np.array_equal(f["members/t_end"][:], csv["t_end"])
assert (f["members/impacts"][:] == 20).all() and (f["members/status"][:] == 0).all()
off = f["impacts/offsets"][:]
assert off[0] == 0 and (np.diff(off) == 20).all() and off[-1] == f["impacts/table"].shape[0] == 3000
tab = f["impacts/table"][:]
t_end = f["members/t_end"][:]
assert np.array_equal(tab[off[1:] - 1, 0], t_end)  # each member's last impact is its end
mean = fin.mean(axis=0)
assert np.allclose(f["stats/final/mean"][:], mean, rtol=1e-12, atol=1e-15)
assert np.allclose(f["stats/final/var"][:], fin.var(axis=0, ddof=1), rtol=1e-9, atol=1e-20)  # theta' and phi' vary by round-off only
tr = f["members/trajectory"][:]
t = f["time"][:]
assert len(t) == 121 and t[-1] == 60.0
n = f["stats/time/n"][:]
assert np.array_equal(n, (~np.isnan(tr[:, :, 0])).sum(axis=0))
x = tr[:, :, 0]
m = f["stats/time/mean"][:, 0]
ok = n > 1
assert np.allclose(m[ok], np.nanmean(x, axis=0)[ok], rtol=1e-10, atol=1e-14)
assert np.isnan(m[n == 0]).all()
q = f["stats/time/quantiles"][:, 0, :]
w = 0.8 / 80
for k in np.nonzero(n > 20)[0]:
    ref = np.quantile(x[~np.isnan(x[:, k]), k], [0.05, 0.25, 0.5, 0.75, 0.95])
    assert np.all(np.abs(q[k] - ref) <= w), (k, q[k], ref)
assert np.isnan(f["stats/time/quantiles"][:, 1, :]).all()  # phi' has no histogram
PY
else
  skip "h5py checks (no python3 with h5py on PATH)"
fi

# ---- an ensemble's HDF5 file replays its members (--members FILE.h5) ---------------------
R="penny --method exact --impacts 20 --t-end 60"
"$NHOLO" ensemble $R --members "$T/a.h5" --out "$T/replay.csv" >/dev/null 2>"$T/err" \
  && [ "$(cut -d, -f2- "$T/replay.csv")" = "$(cut -d, -f2- "$T/a.csv")" ] \
  && ok "--members FILE.h5: the 150 members of an ensemble's file run again to the same bits" \
  || bad "--members FILE.h5: $(cat "$T/err")"
"$NHOLO" ensemble "$T/blowup.nh" --vary k=grid:0:1:3 --t-end 1 --out "$T/k.h5" >/dev/null 2>&1
expect_usage "an HDF5 member file whose column is not a name of the model" ensemble $P --members "$T/k.h5"
grep -qxF "nholo: --members: '$T/k.h5': column model 'penny' has no parameter, coordinate or velocity 'k'" "$T/stderr" \
  && ok "its message" || bad "its message: $(cat "$T/stderr")"
cp "$T/m-col.csv" "$T/fake.h5"
expect_usage "a member file named .h5 that is not HDF5" ensemble $P --members "$T/fake.h5"

# ---- the progress bar: on a terminal only -------------------------------------------------
[ -z "$(noauto "$T/err")" ] && ok "no progress bar when stderr is not a terminal" || bad "stderr not empty: $(cat "$T/err")"
if command -v script >/dev/null 2>&1; then
  script -qc "'$NHOLO' ensemble $P --vary x=uniform:0:0.01 --members 3000 --chunk 1000 --threads 1" /dev/null \
    >"$T/tty" 2>&1 </dev/null
  tr '\r' '\n' <"$T/tty" | grep -Eq "^ensemble \[#{10}\.{20}\] 1000/3000 members  [0-9]+ members/s  ETA [0-9]{2}:[0-9]{2}:[0-9]{2}" \
    && tr '\r' '\n' <"$T/tty" | grep -q "3000/3000 members" \
    && ok "a progress bar on a terminal: members done, members/s, ETA" || bad "progress bar: $(head -c 300 "$T/tty")"
else
  skip "the progress bar on a terminal (no script(1) on PATH)"
fi

# ---- run options passed to every member: --impact-step, the Zeno guard, --order -------------
expect_usage "--impact-step that is not a mode" ensemble $P --vary x=uniform:0:0.01 --impact-step sometimes
expect_usage "--impact-step variational for a method that restarts" ensemble $P --vary x=uniform:0:0.01 --method gni --impact-step variational
expect_usage "--order that is not a policy" ensemble $P --vary x=uniform:0:0.01 --order bad
expect_usage "--zeno-interval below 0" ensemble $P --vary x=uniform:0:0.01 --zeno-interval -1
W="$(dirname "$0")/../examples/pendulum_wall.nh"
printf 'theta\n0.55\n' >"$T/pw.csv"
for mode in auto restart; do
  "$NHOLO" ensemble "$W" --backend tape --method del --impact-step $mode --members "$T/pw.csv" --t-end 2 \
    --out "$T/pw-$mode.csv" >/dev/null 2>"$T/err" || bad "--impact-step $mode: $(cat "$T/err")"
  "$NHOLO" run "$W" --backend tape --method del --impact-step $mode --set theta=0.55 --t-end 2 --json >"$T/pw-$mode.json"
done
row() { awk -F, 'NR == 2 { print $(NF - 1) "," $NF }' "$1"; }
run_final() { sed 's/.*"final_state": {"theta": \([^,]*\), "theta_dot": \([^}]*\)}.*/\1,\2/' "$1"; }
[ "$(row "$T/pw-auto.csv")" = "$(run_final "$T/pw-auto.json")" ] \
  && [ "$(row "$T/pw-restart.csv")" = "$(run_final "$T/pw-restart.json")" ] \
  && [ "$(row "$T/pw-auto.csv")" != "$(row "$T/pw-restart.csv")" ] \
  && grep -q '"impact_step": "variational"' "$T/pw-auto.json" && grep -q '"impact_step": "restart"' "$T/pw-restart.json" \
  && ok "--impact-step: a del member ends where nholo run does, variational and restart (which differ)" \
  || bad "--impact-step: $(row "$T/pw-auto.csv") / $(run_final "$T/pw-auto.json"); $(row "$T/pw-restart.csv") / $(run_final "$T/pw-restart.json")"

# ---- explicit members: the file's rows are the members, in order --------------------------
printf 'x, theta\n0.01,0\n-0.02,1\n0.03,2\n' >"$T/m.csv"
"$NHOLO" ensemble $P --members "$T/m.csv" --out "$T/m-out.csv" >/dev/null 2>"$T/err" \
  && [ "$(awk -F, 'NR > 1 { printf "%s;%s ", $2, $3 }' "$T/m-out.csv")" = "0.01;0 -0.02;1 0.029999999999999999;2 " ] \
  && ok "--members FILE.csv: three members with the file's values" || bad "--members: $(cat "$T/err") $(cat "$T/m-out.csv")"

# ---- every method option of nholo run, per member: the same final state, bit for bit -------
# run's last trajectory row (t, q, v) against the member's t_end and final state; each option
# must also change the result (against the method's defaults), else the check could not fail
final_row() { tail -n 1 "$1"; }
member_row() { awk -F, 'NR == 2 { s = $4; for (i = 5; i <= NF; i++) s = s "," $i; print s }' "$1" 2>/dev/null; }
same_as_run() { # NAME MODEL OPTIONS...: run and a one-member ensemble agree; prints the row
  name=$1 model=$2
  shift 2
  rm -f "$T/r.csv" "$T/e.csv"
  "$NHOLO" run "$model" "$@" --out "$T/r.csv" >/dev/null 2>&1
  "$NHOLO" ensemble "$model" "$@" --members 1 --out "$T/e.csv" >/dev/null 2>"$T/err"
  if [ -s "$T/r.csv" ] && [ -s "$T/e.csv" ] && [ "$(final_row "$T/r.csv")" = "$(member_row "$T/e.csv")" ]; then
    ok "$name: the member ends where nholo run does"
  else
    bad "$name: run $(final_row "$T/r.csv" 2>/dev/null) / member $(member_row "$T/e.csv" 2>/dev/null) $(cat "$T/err")"
  fi
  member_row "$T/e.csv" >"$T/row-$name"
}
S="--dt 0.05 --t-end 5"
same_as_run rdp-cay sleigh --method rdp --retraction cay $S
same_as_run rdp-exp sleigh --method rdp $S
same_as_run rdp-dexp sleigh --method rdp --dexp-order 1 --alpha 0.3 $S
same_as_run gni-paper sleigh --method gni --variant paper --start paper $S
same_as_run gni-symmetric sleigh --method gni $S
same_as_run del-midpoint sleigh --method del --ld midpoint --newton-tol 1e-10 --newton-max-iter 50 $S
same_as_run del-trapezoid sleigh --method del $S
same_as_run penny-ellipse penny --table ellipse --impacts 5
same_as_run penny-circle penny --table circle --impacts 5
DB="$(dirname "$0")/../examples/disk_bowl.nh"
same_as_run contact-slip "$DB" --backend tape --mu 0.05 --on-slip stop --t-end 5
[ "$(awk -F, 'NR == 2 { print $2 }' "$T/e.csv")" = NH_EVENT_STOP ] && ok "--mu 0.05 --on-slip stop: the member stops at slip" \
  || bad "--on-slip stop: $(cat "$T/e.csv")"
same_as_run contact-plain "$DB" --backend tape --t-end 5
for pair in rdp-cay:rdp-exp rdp-dexp:rdp-exp gni-paper:gni-symmetric del-midpoint:del-trapezoid penny-ellipse:penny-circle \
  contact-slip:contact-plain; do
  a=${pair%%:*} b=${pair#*:}
  ! cmp -s "$T/row-$a" "$T/row-$b" && ok "$a differs from $b (the option reaches the member)" || bad "$a = $b: $(cat "$T/row-$a")"
done
# a member built from its parameters (a model file whose parameter varies) takes them too
printf 'omega0\n1\n' >"$T/om.csv"
rm -f "$T/r.csv" "$T/e.csv"
SL="$(dirname "$0")/../examples/chaplygin_sleigh.nh"
"$NHOLO" run "$SL" --backend tape --method rdp --retraction cay $S --out "$T/r.csv" >/dev/null 2>&1
"$NHOLO" ensemble "$SL" --backend tape --method rdp --retraction cay $S --members "$T/om.csv" --out "$T/e.csv" >/dev/null 2>"$T/err"
[ "$(final_row "$T/r.csv")" = "$(awk -F, 'NR == 2 { s = $5; for (i = 6; i <= NF; i++) s = s "," $i; print s }' "$T/e.csv")" ] \
  && [ "$(final_row "$T/r.csv")" = "$(cat "$T/row-rdp-cay")" ] \
  && ok "rdp --retraction cay on a member built from its parameter: as nholo run (and as the built-in sleigh)" \
  || bad "built member: $(final_row "$T/r.csv") / $(cat "$T/e.csv") $(cat "$T/err")"

# bad values of the shared options, and run's options of one run: one message, exit 2
Q="sleigh --method rdp --members 1 --t-end 1"
expect_usage "--retraction that is not one" ensemble $Q --retraction bogus --out "$T/o/e.csv"
grep -qxF "nholo: --retraction: unknown retraction 'bogus' (expected exp, ccsk or cay)" "$T/stderr" && ok "its message" || bad "its message: $(cat "$T/stderr")"
expect_usage "--start that is not one" ensemble $Q --start sometimes --out "$T/o/e.csv"
grep -qxF "nholo: --start: unknown start 'sometimes' (expected paper, consistent or midpoint)" "$T/stderr" && ok "its message" || bad "its message: $(cat "$T/stderr")"
expect_usage "--ld that is not one" ensemble $Q --ld simpson --out "$T/o/e.csv"
grep -qxF "nholo: --ld: unknown discrete Lagrangian 'simpson' (expected trapezoid or midpoint)" "$T/stderr" && ok "its message" || bad "its message: $(cat "$T/stderr")"
expect_usage "--alpha outside [0, 1]" ensemble $Q --alpha 1.5 --out "$T/o/e.csv"
expect_usage "--dexp-order 3" ensemble $Q --dexp-order 3 --out "$T/o/e.csv"
expect_usage "--newton-tol 0" ensemble $Q --newton-tol 0 --out "$T/o/e.csv"
expect_usage "--newton-max-iter 0" ensemble $Q --newton-max-iter 0 --out "$T/o/e.csv"
expect_usage "--table for the sleigh" ensemble $Q --table ellipse --out "$T/o/e.csv"
grep -qxF "nholo: --table: only for the built-in penny" "$T/stderr" && ok "its message" || bad "its message: $(cat "$T/stderr")"
expect_usage "--table that is not one" ensemble penny --members 1 --table square --out "$T/o/e.csv"
expect_usage "--mu on a model without contacts" ensemble $Q --mu 0.3 --out "$T/o/e.csv"
for opt in --events --outcomes --contacts --plot; do
  expect_usage "$opt: of one run" ensemble $Q $opt "$T/o/x.png" --out "$T/o/e.csv"
  grep -q "^nholo: $opt: .*one run\|^nholo: $opt: an ensemble's impact logs go to its HDF5 file" "$T/stderr" && ok "its message" || bad "its message: $(cat "$T/stderr")"
done
"$NHOLO" ensemble --help >"$T/help"
for opt in --retraction --dexp-order --alpha --start --ld --newton-tol --newton-max-iter --table --mu --on-slip --on-detach --max-outcomes; do
  grep -q "^  $opt " "$T/help" || bad "ensemble --help lacks $opt"
done
# every option of run is one of the ensemble's or refused by name (not "unknown option")
unknown=
for opt in $("$NHOLO" run --help | sed -n 's/^  \(--[a-z-]*\).*/\1/p'); do
  "$NHOLO" ensemble sleigh --members 1 --t-end 0.01 $opt 2>&1 </dev/null | grep -q "unknown option" && unknown="$unknown $opt"
done
[ -z "$unknown" ] && [ -n "$opt" ] && ok "every option of nholo run is known to nholo ensemble (or refused by name)" \
  || bad "options of nholo run unknown to nholo ensemble:$unknown"

finish
