#!/bin/sh
# test_cli.sh NHOLO - the command-line tool: outputs, JSON, and bad input (one line on
# stderr, exit status 2, no output files left behind).
set -u
NHOLO=$1
T=$(mktemp -d "${TMPDIR:-/tmp}/nholo-cli.XXXXXX")
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }

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

# ---- good runs ---------------------------------------------------------------------------
"$NHOLO" --help >"$T/h" 2>&1 && grep -q "usage: nholo" "$T/h" && ok "--help" || bad "--help"
"$NHOLO" run --help >"$T/h" 2>&1 && grep -q -- "--impact" "$T/h" && ok "run --help" || bad "run --help"
"$NHOLO" list >"$T/l" 2>&1 && grep -q "penny" "$T/l" && grep -q "dopri5" "$T/l" && grep -q "exact" "$T/l" && ok "list" || bad "list"

"$NHOLO" run penny --impacts 20 --out "$T/p.csv" --events "$T/e.csv" --json >"$T/j" 2>"$T/err"
rc=$?
[ $rc -eq 0 ] && ok "run penny exits 0" || bad "run penny exits $rc: $(cat "$T/err")"
head -1 "$T/p.csv" | grep -qx "t,x,y,theta,phi,x_dot,y_dot,theta_dot,phi_dot" && ok "trajectory CSV header" || bad "trajectory CSV header: $(head -1 "$T/p.csv")"
[ "$(wc -l <"$T/e.csv")" -eq 21 ] && ok "impact log has 20 rows" || bad "impact log rows: $(wc -l <"$T/e.csv")"
for key in '"model": "penny"' '"method": "exact"' '"impacts": 20' '"status": "NH_OK"' '"energy_initial"' \
           '"max_energy_rel_error"' '"max_constraint_residual"' '"wall_seconds"' '"final": {"x"' \
           '"final_velocity": {"x"' '"impact_log": [{"t"' '"surface": "front"' '"steps"' '"t_end"' '"energy_final"'; do
  grep -qF "$key" "$T/j" && ok "json has $key" || bad "json lacks $key"
done
# the JSON parses (python3 when available) and the energy of an elastic run is conserved
if command -v python3 >/dev/null 2>&1; then
  python3 - "$T/j" <<'PY' && ok "json parses; elastic energy conserved; 20 impacts logged" || bad "json content"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["impacts"] == 20 and len(d["impact_log"]) == 20
assert abs(d["energy_final"] - d["energy_initial"]) <= 1e-12 * d["energy_initial"]
assert all(abs(e["energy_after"] - e["energy_before"]) <= 1e-12 * e["energy_before"] for e in d["impact_log"])
assert d["impact_log"][0]["surface"] == "front" and d["impact_log"][1]["surface"] == "back"
PY
fi
"$NHOLO" run penny --table ellipse --impact plastic --impacts 5 --method dopri5 --json >"$T/j2" 2>"$T/err" \
  && grep -q '"impacts": 5' "$T/j2" && grep -q '"method": "dopri5"' "$T/j2" && ok "ellipse plastic dopri5" || bad "ellipse plastic dopri5: $(cat "$T/err")"
"$NHOLO" run penny --impact restitution=0.5 --impacts 3 --method rk4 --dt 0.002 --json >"$T/j3" 2>"$T/err" \
  && grep -q '"impact_law": "restitution=0.5"' "$T/j3" && ok "restitution with rk4" || bad "restitution with rk4: $(cat "$T/err")"
"$NHOLO" run penny --set "theta'=5" --set a=0.3 --set b=0.25 --impacts 2 --json >"$T/j4" 2>"$T/err" \
  && grep -q '"a": 0.29999999999999999' "$T/j4" && ok "--set parameters" || bad "--set parameters: $(cat "$T/err")"
"$NHOLO" run penny --impacts 4 --plot "$T/p.png" >/dev/null 2>"$T/err" && [ -s "$T/p.png" ] && ok "--plot png" || bad "--plot png: $(cat "$T/err")"
"$NHOLO" figure penny-fig2 --out "$T/f2.svg" >/dev/null 2>"$T/err" && [ -s "$T/f2.svg" ] && ok "figure penny-fig2" || bad "figure penny-fig2: $(cat "$T/err")"
"$NHOLO" figure penny-fig5 --members 6 --times 1,2 --out "$T/f5.png" >"$T/f5" 2>"$T/err" && [ -s "$T/f5.png" ] \
  && grep -q "rms spread" "$T/f5" && ok "figure penny-fig5 (small ensemble)" || bad "figure penny-fig5: $(cat "$T/err")"

# ---- discrete gradients (Celledoni et al.) -------------------------------------------------
"$NHOLO" list >"$T/l" 2>&1 && grep -q "^  gonzalez-r " "$T/l" && grep -q "^  itoh-abe  *1 " "$T/l" && grep -q "quartic-ap" "$T/l" \
  && ok "list: discrete-gradient methods and models" || bad "list: discrete-gradient methods and models"
"$NHOLO" run quartic-ap --method gonzalez --dt 0.05 --t-end 10 --json >"$T/jq" 2>"$T/err" \
  && grep -q '"solver_iterations"' "$T/jq" && grep -q '"final_state": {"x": ' "$T/jq" && ok "run quartic-ap gonzalez --json" \
  || bad "run quartic-ap gonzalez: $(cat "$T/err")"
num() { sed -n "s/.*\"$1\": \([-0-9.eE+]*\).*/\1/p" "$2"; }
awk -v e="$(num max_energy_rel_error "$T/jq")" -v r="$(num solver_max_residual "$T/jq")" -v i="$(num solver_iterations "$T/jq")" \
  'BEGIN { exit !(e < 1e-13 && r < 1e-13 && i > 0) }' && ok "gonzalez: energy to 1e-13, residual reported" \
  || bad "gonzalez energy/residual: $(cat "$T/jq")"
"$NHOLO" run gearbox --method gonzalez-r --dt 0.1 --t-end 5 >"$T/tg" 2>"$T/err" && grep -q "solver:" "$T/tg" \
  && ok "run gearbox gonzalez-r (text, solver line)" || bad "run gearbox gonzalez-r: $(cat "$T/err")"
"$NHOLO" figure dg-fig3 --t-end 50 --out "$T/d3.png" >"$T/d3" 2>"$T/err" && [ -s "$T/d3.png" ] && grep -q "heading change" "$T/d3" \
  && ok "figure dg-fig3 (short)" || bad "figure dg-fig3: $(cat "$T/err")"
"$NHOLO" figure dg-fig4 --t-end 100 --out "$T/d4.svg" >"$T/d4" 2>"$T/err" && [ -s "$T/d4.svg" ] && grep -q "SI-DLA" "$T/d4" \
  && ok "figure dg-fig4 (short)" || bad "figure dg-fig4: $(cat "$T/err")"
"$NHOLO" figure dg-fig2 --members 4 --t-end 20 --out "$T/d2.png" >"$T/d2" 2>"$T/err" && [ -s "$T/d2.png" ] && grep -q "variance" "$T/d2" \
  && ok "figure dg-fig2 (small ensemble)" || bad "figure dg-fig2: $(cat "$T/err")"
expect_usage "dg method on a mechanical model" run penny --method gonzalez --out "$T/o/x.csv"
expect_usage "si-dla needs a constant mass matrix" run sleigh-dg-q --method si-dla --out "$T/o/x.csv"
expect_usage "dg figure bad t-end" figure dg-fig3 --t-end -5 --out-dir "$T/o"

# ---- bad input ---------------------------------------------------------------------------
expect_usage "no command"
expect_usage "unknown command" frobnicate
expect_usage "unknown model" run teapot
expect_usage "no model" run
expect_usage "unknown option" run penny --frob --out "$T/o/x.csv"
expect_usage "missing value" run penny --out "$T/o/x.csv" --t-end
expect_usage "not a number" run penny --t-end abc --out "$T/o/x.csv"
expect_usage "negative t-end" run penny --t-end -1 --out "$T/o/x.csv"
expect_usage "infinite dt" run penny --dt inf --out "$T/o/x.csv"
expect_usage "nan rtol" run penny --rtol nan --out "$T/o/x.csv"
expect_usage "zero impacts" run penny --impacts 0 --out "$T/o/x.csv"
expect_usage "restitution > 1" run penny --impact restitution=1.5 --out "$T/o/x.csv"
expect_usage "restitution < 0" run penny --impact restitution=-0.1 --out "$T/o/x.csv"
expect_usage "unknown law" run penny --impact sticky --out "$T/o/x.csv"
expect_usage "unknown table" run penny --table square --out "$T/o/x.csv"
expect_usage "unknown method" run penny --method euler --out "$T/o/x.csv"
expect_usage "negative mass" run penny --set m=-1 --out "$T/o/x.csv"
expect_usage "zero radius" run penny --set R=0 --out "$T/o/x.csv"
expect_usage "unknown parameter" run penny --set zeta=1 --out "$T/o/x.csv"
expect_usage "coin outside table" run penny --set x=0.5 --out "$T/o/x.csv"
expect_usage "bad --set syntax" run penny --set m --out "$T/o/x.csv"
expect_usage "unwritable output" run penny --out /nonexistent-dir/x.csv --events "$T/o/e.csv"
expect_usage "unwritable events" run penny --out "$T/o/x.csv" --events /nonexistent-dir/e.csv
expect_usage "bad plot extension" run penny --plot "$T/o/x.gif"
expect_usage "same file twice" run penny --out "$T/o/x.csv" --events "$T/o/x.csv"
expect_usage "extra argument" run penny penny
expect_usage "list with arguments" list extra
expect_usage "unknown figure" figure penny-fig9 --out-dir "$T/o"
expect_usage "figure bad option" figure penny-fig1 --frob --out-dir "$T/o"
expect_usage "figure unwritable" figure penny-fig1 --out /nonexistent-dir/f.png

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
