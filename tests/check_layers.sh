#!/bin/sh
# check_layers.sh SRC BUILD - the architecture of docs/architecture.md, checked against the code.
#
# Every source file belongs to the layer of its folder; a layer may include and call only the
# layers below it (never a sibling of the same rank, never one above):
#
#   base < la < expr < model < lang < {dg, impact} < methods < sim < systems < analysis < io < ensemble < papers < cli
#
# Checked: (1) every #include "x/..." and "nholo/x.h" of src/, cli/ and include/nholo/;
# (2) every call, from the symbols each compiled object defines and uses (nm); (3) sizes: no
# source file over NH_MAX_FILE_LINES lines, no function over NH_MAX_FUNC_LINES lines.
# Prints one line per violation and exits 1 when there is any.
set -u
SRC=$1
BUILD=$2
NH_MAX_FILE_LINES=800
NH_MAX_FUNC_LINES=150
bad=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# the rank of a layer (folder name), empty for an unknown one
rank() {
  case $1 in
    base) echo 0 ;; la) echo 1 ;; expr) echo 2 ;; model) echo 3 ;; lang) echo 4 ;;
    dg | impact) echo 5 ;; methods) echo 6 ;; sim) echo 7 ;; systems) echo 8 ;;
    analysis) echo 9 ;; io) echo 10 ;; ensemble) echo 11 ;; papers) echo 12 ;; cli) echo 13 ;;
    *) echo "" ;;
  esac
}

# the layer of a public header
header_layer() {
  case $1 in
    export.h | status.h | version.h) echo base ;;
    model.h | evaluators.h) echo model ;;
    modelfile.h) echo lang ;;
    impact.h) echo impact ;;
    method.h) echo methods ;;
    sim.h) echo sim ;;
    systems.h) echo systems ;;
    lyapunov.h) echo analysis ;;
    io.h) echo io ;;
    ensemble.h | nholo.h) echo ensemble ;;
    *) echo "" ;;
  esac
}

# the layer of a path relative to SRC
file_layer() {
  case $1 in
    src/*) echo "$1" | cut -d/ -f2 ;;
    cli/*) echo cli ;;
    include/nholo/systems/*) echo systems ;;
    include/nholo/*) header_layer "$(basename "$1")" ;;
    *) echo "" ;;
  esac
}

# may a file of layer $1 use layer $2?
allowed() {
  [ "$1" = "$2" ] && return 0
  ra=$(rank "$1")
  rb=$(rank "$2")
  [ -n "$ra" ] && [ -n "$rb" ] && [ "$rb" -lt "$ra" ]
}

cd "$SRC" || exit 2

# (1) includes
for f in $(find src cli include/nholo -name '*.[ch]' | sort); do
  la=$(file_layer "$f")
  if [ -z "$la" ]; then
    echo "layers: $f: not in a known layer"
    bad=1
    continue
  fi
  for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
    case $inc in
      nholo/systems/*) lb=systems ;;
      nholo/*) lb=$(header_layer "$(basename "$inc")") ;;
      */*) lb=$(echo "$inc" | cut -d/ -f1) ;;
      *) lb=$la ;; # a header of the same folder
    esac
    if [ -z "$(rank "$lb")" ]; then
      echo "layers: $f includes \"$inc\": unknown layer"
      bad=1
    elif ! allowed "$la" "$lb"; then
      echo "layers: $f ($la) includes \"$inc\" ($lb), a layer that is not below it"
      bad=1
    fi
  done
done

# (2) calls: which layer defines each symbol, then every undefined use
# the objects of the static library, the papers' library and the tool whose source still exists
objs=$(find "$BUILD/CMakeFiles" -path '*nholo_static.dir/src/*.o' -o -path '*nholo_papers.dir/src/*.o' \
         -o -path '*nholo_cli.dir/cli/*.o' 2>/dev/null | sort | while read -r o; do
         rel=${o#*.dir/}
         [ -f "${rel%.o}" ] && echo "$o"
       done)
if [ -z "$objs" ]; then
  echo "layers: no object files under $BUILD/CMakeFiles (build first)"
  exit 1
fi
for o in $objs; do
  rel=${o#*.dir/}
  l=$(file_layer "${rel%.o}")
  nm --defined-only "$o" 2>/dev/null | awk -v l="$l" -v f="${rel%.o}" '$2 ~ /^[TDBR]$/ {print $3, l, f}'
done | sort -u > "$tmp/defs"
for o in $objs; do
  rel=${o#*.dir/}
  src=${rel%.o}
  l=$(file_layer "$src")
  nm -u "$o" 2>/dev/null | awk '{print $NF}' | sort -u > "$tmp/uses"
  join "$tmp/uses" "$tmp/defs" | while read -r sym lb fb; do
    [ "$fb" = "$src" ] && continue
    if ! allowed "$l" "$lb"; then
      echo "layers: $src ($l) calls $sym of $fb ($lb), a layer that is not below it"
      echo x >> "$tmp/callbad"
    fi
  done
done
[ -s "$tmp/callbad" ] && bad=1

# (3) sizes: files, then functions (a definition opens at column 0 and closes with "}" there)
for f in $(find src cli include/nholo -name '*.[ch]' | sort); do
  n=$(wc -l < "$f")
  if [ "$n" -gt "$NH_MAX_FILE_LINES" ]; then
    echo "layers: $f has $n lines (at most $NH_MAX_FILE_LINES)"
    bad=1
  fi
  awk -v f="$f" -v max="$NH_MAX_FUNC_LINES" '
    /^[A-Za-z_].*\(/ && !/;[[:space:]]*$/ && !/^(typedef|struct|enum|union)/ && start == 0 { start = NR; name = $0 }
    /^}/ && start > 0 {
      if (NR - start + 1 > max) { sub(/\(.*/, "", name); printf "layers: %s:%d: function %s has %d lines (at most %d)\n", f, start, name, NR - start + 1, max; bad = 1 }
      start = 0
    }
    /^(typedef|struct|enum|union|static const|const)/ && start == 0 { start = -1 }
    /^}/ && start < 0 { start = 0 }
    END { exit bad }' "$f" || bad=1
done

[ "$bad" = 0 ] && echo "layers: ok (includes, calls and sizes of src/, cli/, include/nholo/)"
exit $bad
