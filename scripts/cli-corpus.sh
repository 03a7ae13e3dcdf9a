#!/bin/sh
# Run a corpus of CLI commands and keep every output (stdout, stderr, exit status, files),
# with the run's wall time removed, in OUTDIR: compare two trees with `diff -r` to see what a
# change did to what users see. Usage: scripts/cli-corpus.sh NHOLO OUTDIR
set -u
NHOLO=$1
OUT=$2
SRC=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$OUT"
n=0
run() {
  n=$((n + 1))
  d="$OUT/$(printf %03d $n)"
  mkdir -p "$d"
  echo "$*" > "$d/cmd"
  (cd "$d" && "$NHOLO" "$@" > stdout 2> stderr; echo $? > status)
  sed -i -e 's/"wall_seconds": *[0-9.e+-]*/"wall_seconds": X/' -e 's/wall [0-9.]* s/wall X s/' -e 's/[0-9.]* s wall/X s wall/' "$d/stdout"
  # the source tree's path, so corpora of two checkouts compare
  sed -i -e "s|$SRC|SRC|g" "$d/cmd" "$d/stdout" "$d/stderr"
  rm -f "$d"/*.png "$d"/*.svg
}
E=$SRC/examples
run list
run run penny --impacts 20 --out p.csv --events e.csv --json
run run penny --table ellipse --impact plastic --impacts 5 --method dopri5 --json
run run penny --impact restitution=0.5 --impacts 3 --method rk4 --dt 0.002 --json
run run penny --set "theta'=5" --set a=0.3 --set b=0.25 --impacts 2 --json
run run penny --impacts 4 --out p.csv
run run quartic-ap --method gonzalez --dt 0.05 --t-end 10 --json
run run quartic-ap --method avf --dt 0.05 --t-end 10 --out q.csv
run run gearbox --method gonzalez-r --dt 0.1 --t-end 5
run run gearbox --method gonzalez-f --dt 0.1 --t-end 5 --json
run run gearbox --method si-dla --dt 0.1 --t-end 5 --json
run run suslov --method avf --dt 0.1 --t-end 1 --out su.csv
run run suslov --method itoh-abe --dt 0.1 --t-end 1 --json
run run rolling-disk --json --sample 0.1 --out d.csv
run run rolling-ball --json
run run rolling-ball-detach --json --events ev.csv
run run rolling-ball-detach --on-detach report --t-end 4 --json
run run "$E/hopping-ball.nh" --on-detach fly --t-end 3 --json --out hop.csv --events hopev.csv
run run rolling-ball-detach --on-detach fly --json
run run rolling-ball --mu 0.17 --on-slip stop --json
run run rolling-ball --method rk4 --dt 0.01 --set m1=0.5 --json
run run rolling-ball --method rkmk4 --dt 0.01 --json
run run rolling-ball --form dae --json
run check "$E/penny.nh"
run check "$E/penny.nh" --backend tape
run run "$E/penny.nh" --impacts 5 --json
run run "$E/penny.nh" --impacts 5 --out pf.csv --events pfe.csv
run run penny --table ellipse --method dopri5 --impacts 5 --json
run run penny --table ellipse --impacts 5 --json
run run "$E/penny.nh" --set a=0.2 --impacts 5 --json
run run "$E/penny.nh" --backend tape --impacts 5 --json
run run sleigh --method gni --dt 0.05 --t-end 5 --json
run run sleigh --method gni --dt 0.05 --t-end 5 --out sl.csv
run run sleigh --method rattle --dt 0.05 --t-end 5 --json
run run sleigh --method shake --dt 0.05 --t-end 5 --json
run run sleigh --method rdp --dt 0.05 --t-end 5 --json
run run sleigh --method rk2 --dt 0.05 --t-end 5 --json
run run sleigh --method del --dt 0.05 --t-end 5 --json
run run sleigh --method dopri5 --t-end 5 --json
run run "$E/chaplygin_sleigh.nh" --method gni --dt 0.05 --t-end 5 --json
run run "$E/chaplygin_sleigh.nh" --method gni --variant paper --start midpoint --dt 0.05 --t-end 5 --json
run run snakeboard --method rdp --retraction cay --dt 0.078125 --t-end 10 --json
run run snakeboard --method gni --set Apsi=0 --set Aphi=0 --set J=2 --dt 0.05 --t-end 2 --out sb.csv
run run "$E/snakeboard.nh" --method rdp --dt 0.078125 --t-end 10 --json
run run penny --method gni --variant paper --start midpoint --dt 1e-3 --impacts 2 --json
run run penny --method rattle --variant paper --start midpoint --dt 1e-3 --impacts 2 --json
for f in "$E"/*.nh; do run run "$f" --t-end 2 --json; done
run run "$E/pendulum_wall.nh" --t-end 5 --out pw.csv --events pwe.csv
run run penny --method gonzalez
run run "$E/chaplygin_sleigh.nh" --method rattle --dt 0.05 --t-end 1 --json
run run nosuch
run run penny --dt -1
run check "$SRC/tests/modelfiles/bad/06-duplicate-coordinate.nh"
run run "$SRC/tests/modelfiles/bad/06-duplicate-coordinate.nh"
run ensemble penny --vary "theta'=uniform:4:6" --members 40 --impacts 10 --threads 2 --out ens.csv --json
run ensemble "$E/penny.nh" --vary a=uniform:0.15:0.25 --members 8 --impacts 5 --threads 1 --json
run ensemble sleigh --vary "omega=grid:0.5:1.5:5" --t-end 5 --json
run lyapunov penny --t-end 20 --window 2
run lyapunov "$E/sinai.nh" --t-end 10 --window 1
run run "$E/cradle5.nh" --t-end 5 --json --events cr.csv
run run "$E/billiards.nh" --t-end 5 --json --events bi.csv
run run "$E/cradle3_gaps.nh" --t-end 5 --json --out c3.csv
run run "$E/trex.nh" --t-end 3 --json --events tr.csv
run run "$E/car.nh" --method rattle --dt 0.01 --t-end 50 --json
run run "$E/whipple_bicycle.nh" --t-end 3 --json
run run "$E/sleigh_ap_wall.nh" --t-end 10 --json --events sw.csv
