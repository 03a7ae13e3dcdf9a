#!/bin/sh
# run.sh EXAMPLE - run the README's C example: it exits 0 and prints the 20 impacts of the
# plastic penny, each with an energy no larger after than before and a later time.
set -u
out=$("$1") || { echo "FAIL the README example exits $?: $out"; exit 1; }
echo "$out"
n=$(echo "$out" | grep -c '^impact [0-9]* at t = ')
[ "$n" -eq 20 ] || { echo "FAIL $n impact lines, expected 20"; exit 1; }
echo "$out" | awk '/^impact/ { t = $6 + 0; eb = $9 + 0; ea = $11 + 0;
  if (t <= last || ea > eb * (1 + 1e-12)) bad = 1; last = t } END { exit bad }' \
  || { echo "FAIL impacts out of order or gaining energy"; exit 1; }
echo "ok   the README example: 20 plastic impacts"
