#!/bin/sh
# bench_ensemble_mpi.sh NHOLO [MEMBERS [SLEIGH_MEMBERS]] - members per second of `nholo ensemble`
# on MPI ranks, one thread per rank, wall-clock of the whole command (process and MPI start-up
# included), best of 3:
#   the penny (closed-form flow, 20 impacts per member, x and y drawn per member):
#     strong: MEMBERS members (default 200000) on 1 process without mpirun, 1 rank, 2 ranks
#     weak:   MEMBERS / 4 members per rank on 1, 2, 4, 8, 16 ranks (--oversubscribe beyond the cores)
#     output: 2 ranks writing the members and their impact logs to one HDF5 file
#   the sleigh from examples/chaplygin_sleigh.nh to t = 10, x and y drawn per member (strong):
#     dopri5 (rtol 1e-10): SLEIGH_MEMBERS members (default 20000); gni (h = 1e-3): a fifth of them
# PARTS="penny sleigh" (the default) chooses the parts.
# With more ranks than cores the ranks share the cores: weak scaling then shows that the split,
# the statistics' reduction and the parallel file work at that rank count and what they cost
# (time per member-core), not a speed-up.
set -u
NHOLO=$1
N=${2:-200000}
MPI="mpirun --oversubscribe --allow-run-as-root"
T=$(mktemp -d "${TMPDIR:-/tmp}/nholo-bench-mpi.XXXXXX")
trap 'rm -rf "$T"' EXIT
PARTS=${PARTS:-penny sleigh}
SLEIGH_N=${3:-20000}
SLEIGH=$(dirname "$0")/../examples/chaplygin_sleigh.nh
ARGS="penny --method exact --impacts 20 --t-end 1e6 --vary x=uniform:-0.05:0.05 --vary y=uniform:-0.05:0.05 --threads 1"
now() { date +%s.%N; }

# best wall time of 3 runs of the command
best() {
  b=
  for r in 1 2 3; do
    rm -f "$T"/*.h5
    t0=$(now)
    "$@" >/dev/null 2>"$T/err" || { echo "bench: failed: $* ($(cat "$T/err"))" >&2; exit 1; }
    b=$(awk -v t0="$t0" -v t1="$(now)" -v b="$b" 'BEGIN { t = t1 - t0; print (b == "" || t < b + 0) ? t : b }')
  done
  echo "$b"
}
# a line: label, members, seconds[, ranks[, impacts per member]]
line() {
  awk -v l="$1" -v n="$2" -v s="$3" -v p="${4:-1}" -v i="${5:-20}" \
    'BEGIN { printf "  %-28s %9d members %8.3f s %9.0f members/s", l, n, s, n / s;
             if (i > 0) printf " %9.0f impacts/s per rank\n", i * n / s / p;
             else printf " %9.0f members/s per rank\n", n / s / p }'
}

sleigh() {
  for m in dopri5 gni; do
    n=$SLEIGH_N
    [ "$m" = gni ] && n=$((SLEIGH_N / 5))
    SA="$SLEIGH --method $m --t-end 10 --vary x=uniform:-1:1 --vary y=uniform:-1:1 --threads 1 --members $n"
    echo "sleigh ensemble (examples/chaplygin_sleigh.nh), $m, t = 0..10, no impacts, one thread per rank"
    "$NHOLO" ensemble $SA >/dev/null 2>&1 # the generated code compiled once, before the timing
    t0=$(best "$NHOLO" ensemble $SA)
    line "1 process (no mpirun)" "$n" "$t0" 1 0
    t1=$(best $MPI -np 1 "$NHOLO" ensemble $SA)
    line "1 rank" "$n" "$t1" 1 0
    t2=$(best $MPI -np 2 "$NHOLO" ensemble $SA)
    line "2 ranks" "$n" "$t2" 2 0
    awk -v a="$t1" -v b="$t2" 'BEGIN { printf "  2 ranks / 1 rank: %.2fx (target >= 1.8)\n", a / b }'
    h=$((n / 2))
    HA="$SLEIGH --method $m --t-end 10 --vary x=uniform:-1:1 --vary y=uniform:-1:1 --threads 1 --members $h"
    c1=$(best "$NHOLO" ensemble $HA)
    c2=$(best sh -c "'$NHOLO' ensemble $HA & '$NHOLO' ensemble $HA & wait")
    awk -v a="$c1" -v b="$c2" 'BEGIN { printf "  control: two plain processes at once do %.2fx the work per second of one (2.0: two free cores)\n", 2 * a / b }'
  done
}

case " $PARTS " in *" penny "*) ;; *) sleigh; exit 0 ;; esac

echo "penny ensemble, exact, 20 impacts per member, one thread per rank ($(nproc) cores)"
echo "strong scaling"
s0=$(best "$NHOLO" ensemble $ARGS --members "$N")
line "1 process (no mpirun)" "$N" "$s0"
s1=$(best $MPI -np 1 "$NHOLO" ensemble $ARGS --members "$N")
line "1 rank" "$N" "$s1"
s2=$(best $MPI -np 2 "$NHOLO" ensemble $ARGS --members "$N")
line "2 ranks" "$N" "$s2" 2
awk -v a="$s1" -v b="$s2" 'BEGIN { printf "  2 ranks / 1 rank: %.2fx (target >= 1.8)\n", a / b }'
# control: two independent processes at once against one (what the machine's cores give now)
h=$((N / 2))
c1=$(best "$NHOLO" ensemble $ARGS --members "$h")
c2=$(best sh -c "'$NHOLO' ensemble $ARGS --members $h & '$NHOLO' ensemble $ARGS --members $h & wait")
awk -v a="$c1" -v b="$c2" 'BEGIN { printf "  control: two plain processes at once do %.2fx the work per second of one (2.0: two free cores)\n", 2 * a / b }'
sh=$(best $MPI -np 2 "$NHOLO" ensemble $ARGS --members "$N" --out "$T/out.h5")
line "2 ranks, HDF5 output" "$N" "$sh" 2
echo "weak scaling ($((N / 4)) members per rank)"
w1=
for p in 1 2 4 8 16; do
  n=$((N / 4 * p))
  s=$(best $MPI -np "$p" "$NHOLO" ensemble $ARGS --members "$n")
  [ -z "$w1" ] && w1=$s
  line "$p ranks" "$n" "$s" "$p"
  awk -v p="$p" -v s="$s" -v w="$w1" -v c="$(nproc)" 'BEGIN { k = p < c ? p : c;
    printf "    efficiency against 1 rank on min(ranks, cores) = %d cores: %.2f\n", k, w * p / (s * k) }'
done
case " $PARTS " in *" sleigh "*) sleigh ;; esac
