#!/bin/sh
# pendulum-chain.sh N - print the model file of a planar chain of N pendulums (unit lengths and
# masses, N coordinates, the absolute angles q1..qN): its mass matrix is dense and
# trigonometric, M_ij = (N + 1 - max(i, j)) cos(q_i - q_j), so its generated C grows as N^3
# (the derivatives of M): 64 links give about 2 MB, which keeps a C compiler busy for many
# minutes. The test of the compiler's budget (docs/model-language.md) runs it.
# Usage: scripts/pendulum-chain.sh 64 > chain64.nh && nholo check chain64.nh --compile-limit 5
set -eu
n=${1:?usage: pendulum-chain.sh N}
case $n in '' | *[!0-9]* | 0) echo "pendulum-chain.sh: N must be a positive integer" >&2; exit 2 ;; esac
awk -v n="$n" 'BEGIN {
  printf "model pendulum_chain_%d\ncoordinates", n
  for (i = 1; i <= n; i++) printf " q%d", i
  printf "\nparameter l = 1\nparameter g = 9.81\n"
  for (i = 1; i <= n; i++) {
    px = ""; py = ""; pz = ""
    if (i > 1) { px = "vx" (i - 1) " "; py = "vy" (i - 1) " + "; pz = "y" (i - 1) " " }
    printf "let vx%d = %s-l*sin(q%d)*q%d'"'"'\n", i, px, i, i
    printf "let vy%d = %sl*cos(q%d)*q%d'"'"'\n", i, py, i, i
    printf "let y%d = %s-l*cos(q%d)\n", i, pz, i
  }
  printf "kinetic 1/2*("
  for (i = 1; i <= n; i++) { sep = ""; if (i > 1) sep = " + "; printf "%svx%d^2 + vy%d^2", sep, i, i }
  printf ")\npotential g*("
  for (i = 1; i <= n; i++) { sep = ""; if (i > 1) sep = " + "; printf "%sy%d", sep, i }
  printf ")\ninitial"
  for (i = 1; i <= n; i++) { sep = ""; if (i > 1) sep = ","; printf "%s q%d = %g", sep, i, 0.01 * i }
  printf "\n"
}'
