#!/bin/sh
# sleigh-tree.sh K L - print the model file of a hub sleigh towing K chains of L trailers
# (3 (1 + K L) coordinates, a constant diagonal M, a tree coupling): the text
# bench/sleigh_tree.h builds (the initial values printed by awk, to its precision).
# Usage: scripts/sleigh-tree.sh 8 4 > tree.nh && nholo check tree.nh
set -eu
k=${1:?usage: sleigh-tree.sh K L}
l=${2:?usage: sleigh-tree.sh K L}
for v in "$k" "$l"; do
  case $v in '' | *[!0-9]* | 0) echo "sleigh-tree.sh: K and L must be positive integers" >&2; exit 2 ;; esac
done
awk -v k="$k" -v l="$l" 'function parent(b) { return (b - 1) % l == 0 ? 0 : b - 1 }
BEGIN {
  nb = 1 + k * l; q = "'"'"'"
  printf "model sleigh_tree_%d_%d\ncoordinates", k, l
  for (b = 0; b < nb; b++) printf " th%d x%d y%d", b, b, b
  printf "\nparameter I = 1\nparameter m = 1\nparameter a = 1\nparameter k0 = 1\nkinetic"
  for (b = 0; b < nb; b++) printf " 1/2*I*th%d%s^2 + 1/2*m*(x%d%s^2 + y%d%s^2)%s\n", b, q, b, q, b, q, b + 1 < nb ? " +" : ""
  printf "potential"
  for (b = 1; b < nb; b++) { p = parent(b); printf " 1/2*k0*((x%d - x%d)^2 + (y%d - y%d)^2)%s\n", b, p, b, p, b + 1 < nb ? " +" : "" }
  for (b = 0; b < nb; b++) {
    printf "constraint skate%d: a*th%d%s + sin(th%d)*x%d%s - cos(th%d)*y%d%s = 0\n", b, b, q, b, b, q, b, b, q
    if (b == 0) continue
    p = parent(b)
    printf "constraint hitch%d: cos(th%d)*(x%d%s - x%d%s) + sin(th%d)*(y%d%s - y%d%s) = 0\n", b, p, b, q, p, q, p, b, q, p, q
  }
  pi = atan2(0, -1); R = 2
  printf "initial th0 = 0, x0 = 0, y0 = 0\n"
  for (b = 1; b < nb; b++) {
    c = int((b - 1) / l); j = (b - 1) % l; phi = 2 * pi * c / k; r = R * (j + 1)
    printf "initial th%d = %.17g, x%d = %.17g, y%d = %.17g\n", b, phi + 0.1 * sin(b), b, r * cos(phi) + 0.3 * sin(1.7 * b), b, r * sin(phi) + 0.3 * cos(2.3 * b)
  }
}'
