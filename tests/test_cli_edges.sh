#!/bin/sh
# test_cli_edges.sh NHOLO SOURCE_DIR - edges of the command line's input and output: outputs
# through symbolic links (written through: the link stays, its target is replaced), a model
# file with a UTF-8 byte-order mark (read as without it), a bad --set named in its error, a
# NaN initial energy said to be NaN, a force that is not finite at the initial state refused
# by check and run where it is written, ensemble output names (FILE.csv or FILE.h5) and the
# step bound of its members.
NHOLO=$1
SRC=$2
. "$(dirname "$0")/cli_lib.sh"

# is $1 a symbolic link whose text is $2
is_link_to() { [ -L "$1" ] && [ "$(readlink "$1")" = "$2" ]; }

# ---- outputs through symbolic links ----------------------------------------------------------
mkdir -p "$T/sub"
echo old >"$T/sub/traj.csv"
ln -s sub/traj.csv "$T/traj.csv"
ln -s sub/made.csv "$T/dangling.csv"
ln -s sub/plot.png "$T/plot.png"
if "$NHOLO" run penny --impacts 2 --out "$T/traj.csv" --events "$T/dangling.csv" --plot "$T/plot.png" \
     >/dev/null 2>"$T/err" &&
   is_link_to "$T/traj.csv" sub/traj.csv && is_link_to "$T/dangling.csv" sub/made.csv &&
   is_link_to "$T/plot.png" sub/plot.png &&
   head -c 2 "$T/sub/traj.csv" | grep -q '^t,' && head -1 "$T/sub/made.csv" | grep -q '^index,t,' &&
   [ -s "$T/sub/plot.png" ] && [ -z "$(ls "$T" "$T/sub" | grep '\.tmp\.')" ]; then
  ok "outputs through symbolic links: the links stay, their targets are written (a dangling one's created)"
else
  bad "outputs through symbolic links: $(cat "$T/err"; ls -l "$T" "$T/sub")"
fi
ln -s loop_b.csv "$T/loop_a.csv"
ln -s loop_a.csv "$T/loop_b.csv"
expect_usage "an output through a loop of links" run penny --impacts 1 --out "$T/loop_a.csv"

# ---- a UTF-8 byte-order mark ---------------------------------------------------------------
printf '\357\273\277' >"$T/bom.nh"
cat "$SRC/examples/pendulum_wall.nh" >>"$T/bom.nh"
cp "$SRC/examples/pendulum_wall.nh" "$T/plain.nh"
"$NHOLO" check "$T/bom.nh" --backend tape >"$T/check_bom" 2>&1
rc=$?
"$NHOLO" check "$T/plain.nh" --backend tape >"$T/check_plain" 2>&1
a=$("$NHOLO" run "$T/bom.nh" --backend tape --t-end 2 --json 2>/dev/null | sed 's/"wall_seconds": [^,]*,//')
b=$("$NHOLO" run "$T/plain.nh" --backend tape --t-end 2 --json 2>/dev/null | sed 's/"wall_seconds": [^,]*,//')
if [ "$rc" -eq 0 ] && [ "$(sed 's/bom\.nh/F/g' "$T/check_bom")" = "$(sed 's/plain\.nh/F/g' "$T/check_plain")" ] &&
   [ -n "$a" ] && [ "$a" = "$b" ]; then
  ok "a byte-order mark: check and run read the file as without it"
else
  bad "a byte-order mark: check exit $rc: $(head -3 "$T/check_bom")"
fi
# a diagnostic on the first line counts its columns after the mark
printf '\357\273\277modle x\n' >"$T/bom_bad.nh"
"$NHOLO" check "$T/bom_bad.nh" 2>"$T/err"
if grep -q "bom_bad.nh:1:1: error: " "$T/err" && sed -n 2p "$T/err" | grep -q '^modle x$'; then
  ok "a byte-order mark: a first-line error at 1:1, its line quoted without the mark"
else
  bad "a byte-order mark, first-line error: $(cat "$T/err")"
fi

# ---- a bad --set ---------------------------------------------------------------------------
"$NHOLO" run "$SRC/examples/pendulum_wall.nh" --backend tape --set e=2 >/dev/null 2>"$T/err"
rc=$?
if [ "$rc" -eq 2 ] && head -1 "$T/err" | grep -q 'pendulum_wall.nh:18:49: error: coefficient of restitution 2 is outside \[0, 1\] (from --set e=2)$'; then
  ok "--set e=2: its error names --set (and where e goes)"
else
  bad "--set e=2 (exit $rc): $(cat "$T/err")"
fi
# the file's own value, and a good override, are not blamed on --set
sed 's/^parameter e = 0.8 /parameter e = 1.5 /' "$SRC/examples/pendulum_wall.nh" >"$T/e15.nh"
"$NHOLO" check "$T/e15.nh" --backend tape 2>"$T/err" >/dev/null
if grep -q 'coefficient of restitution 1.5 is outside \[0, 1\]$' "$T/err" &&
   "$NHOLO" check "$T/e15.nh" --backend tape --set e=0.5 >/dev/null 2>&1; then
  ok "the file's own bad coefficient is not blamed on --set; --set e=0.5 mends it"
else
  bad "the file's own coefficient: $(cat "$T/err")"
fi

# ---- NaN and infinite initial energies, forces at the initial state --------------------------
printf 'model nan_energy\ncoordinates x\nkinetic 0.5*x'"'"'^2\npotential sqrt(x - 2)\ninitial x = 0, x'"'"' = 1\n' >"$T/nan.nh"
printf 'model big_energy\ncoordinates x\nkinetic 0.5*x'"'"'^2\ninitial x = 0, x'"'"' = 1e200\n' >"$T/big.nh"
"$NHOLO" run "$T/nan.nh" --backend tape 2>"$T/err_nan" >/dev/null
rn=$?
"$NHOLO" run "$T/big.nh" --backend tape 2>"$T/err_big" >/dev/null
rb=$?
if [ "$rn" -eq 2 ] && grep -q "the energy at the initial state is NaN" "$T/err_nan" && ! grep -q "too large" "$T/err_nan" &&
   [ "$rb" -eq 2 ] && grep -q "not finite (E = inf): an initial value is too large" "$T/err_big"; then
  ok "an initial energy that is NaN is said to be NaN; an infinite one, too large"
else
  bad "initial energies (exit $rn, $rb): $(cat "$T/err_nan" "$T/err_big")"
fi
printf 'model f\ncoordinates x\nkinetic 0.5*x'"'"'^2\nforce x: 0/0\ninitial x = 0, x'"'"' = 1\n' >"$T/force.nh"
for cmd in check run; do
  "$NHOLO" $cmd "$T/force.nh" --backend tape >/dev/null 2>"$T/err"
  rc=$?
  if [ "$rc" -eq 2 ] && head -1 "$T/err" | grep -q "force.nh:4:1: error: the force on 'x' is NaN at the initial state" &&
     ! grep -q underflow "$T/err"; then
    ok "force x: 0/0 refused by $cmd, at its line"
  else
    bad "force x: 0/0, $cmd (exit $rc): $(cat "$T/err")"
  fi
done

# ---- ensemble outputs and bounds -----------------------------------------------------------
for name in x.txt x.csv.bak x; do
  expect_usage "ensemble --out $name" ensemble sleigh --vary theta=uniform:0:1 --members 2 --t-end 1 --out "$T/o/$name"
done
if "$NHOLO" ensemble sleigh --vary theta=uniform:0:1 --members 2 --t-end 1 --out "$T/e.csv" >/dev/null 2>&1 &&
   [ "$(head -c 7 "$T/e.csv")" = "member," ] && [ "$(wc -l <"$T/e.csv")" -eq 3 ]; then
  ok "ensemble --out FILE.csv: the members' rows"
else
  bad "ensemble --out FILE.csv"
fi
expect_usage "ensemble, a fixed step past NH_MAX_STEPS" ensemble sleigh --vary theta=uniform:0:1 --method rk4 --dt 1e-300 --t-end 1
grep -q "NH_MAX_STEPS" "$T/stderr" || bad "the ensemble's step bound names NH_MAX_STEPS: $(cat "$T/stderr")"

finish
