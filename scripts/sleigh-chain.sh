#!/bin/sh
# sleigh-chain.sh N - print the model file of a chain of N Chaplygin sleighs joined by springs
# (3N coordinates, N rolling constraints, a constant M): the text bench/sleigh_chain.h builds.
# Usage: scripts/sleigh-chain.sh 32 > chain32.nh && nholo check chain32.nh
set -eu
n=${1:?usage: sleigh-chain.sh N}
case $n in '' | *[!0-9]* | 0) echo "sleigh-chain.sh: N must be a positive integer" >&2; exit 2 ;; esac
awk -v n="$n" 'BEGIN {
  printf "model sleigh_chain_%d\ncoordinates", n
  for (i = 1; i <= n; i++) printf " th%d x%d y%d", i, i, i
  printf "\nparameter I = 1\nparameter m = 1\nparameter a = 1\nparameter k = 1\nparameter L = 2\n"
  printf "parameter omega0 = 1\nparameter v0 = -1\nkinetic"
  for (i = 1; i <= n; i++)
    printf " 1/2*I*th%d'"'"'^2 + 1/2*m*(x%d'"'"'^2 + y%d'"'"'^2)%s\n", i, i, i, i < n ? " +" : ""
  if (n > 1) printf "potential"
  for (i = 1; i < n; i++)
    printf " 1/2*k*((x%d - x%d - L)^2 + (y%d - y%d)^2)%s\n", i + 1, i, i + 1, i, i + 1 < n ? " +" : ""
  for (i = 1; i <= n; i++)
    printf "constraint skate%d: a*th%d'"'"' + sin(th%d)*x%d'"'"' - cos(th%d)*y%d'"'"' = 0\n", i, i, i, i, i, i
  for (i = 1; i <= n; i++) {
    printf "initial th%d = 0, x%d = %d*L, y%d = 0\n", i, i, i, i
    printf "initial th%d'"'"' = omega0*(1 + %d/%d), x%d'"'"' = v0, y%d'"'"' = a*omega0*(1 + %d/%d)\n", i, i - 1, n, i, i, i - 1, n
  }
}'
