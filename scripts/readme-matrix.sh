#!/bin/sh
# readme-matrix.sh NHOLO [FILE] - replace the method-by-kind table of docs/methods.md (or FILE)
# (between its "<!-- matrix: nholo list --markdown -->" and "<!-- end matrix -->" lines) with the
# output of `NHOLO list --markdown`; test_cli checks that the two agree.
set -eu
NHOLO=$1
DOC=${2:-$(dirname "$0")/../docs/methods.md}
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.t"' EXIT
"$NHOLO" list --markdown >"$tmp.t"
awk -v table="$tmp.t" '
  /^<!-- matrix: nholo list --markdown -->$/ { print; while ((getline line < table) > 0) print line; skip = 1; next }
  /^<!-- end matrix -->$/ { skip = 0 }
  !skip { print }' "$DOC" >"$tmp"
grep -q '^<!-- end matrix -->$' "$tmp" || { echo "readme-matrix.sh: no matrix markers in $DOC" >&2; exit 2; }
cat "$tmp" >"$DOC"
