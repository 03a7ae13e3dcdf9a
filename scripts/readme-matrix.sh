#!/bin/sh
# readme-matrix.sh NHOLO [README] - replace the README's method-by-kind table (between its
# "<!-- matrix: nholo list --markdown -->" and "<!-- end matrix -->" lines) with the output of
# `NHOLO list --markdown`; test_cli checks that the two agree.
set -eu
NHOLO=$1
README=${2:-$(dirname "$0")/../README.md}
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.t"' EXIT
"$NHOLO" list --markdown >"$tmp.t"
awk -v table="$tmp.t" '
  /^<!-- matrix: nholo list --markdown -->$/ { print; while ((getline line < table) > 0) print line; skip = 1; next }
  /^<!-- end matrix -->$/ { skip = 0 }
  !skip { print }' "$README" >"$tmp"
grep -q '^<!-- end matrix -->$' "$tmp" || { echo "readme-matrix.sh: no matrix markers in $README" >&2; exit 2; }
cat "$tmp" >"$README"
