#!/bin/sh
# run_install_test.sh - the body of the test_install CTest test.
#
#   sh run_install_test.sh <binary dir> <source dir> <C compiler> [<config>]
#
# Installs the build tree <binary dir> into a fresh temporary prefix, then builds
# tests/install/consumer.c against the installed nholo twice and runs the programs:
#   1. with pkg-config (nholo.pc), linked to the shared library, run with LD_LIBRARY_PATH;
#   2. with the CMake package (find_package(nholo) in tests/install/CMakeLists.txt), linked to
#      nholo::nholo (shared, found through the build RPATH) and to nholo::nholo_static;
# then imports the installed Python package from the prefix (PYTHONPATH = its site directory)
# and runs a short simulation with it (skipped with a message when the module was not built).
# Everything happens in a private temporary directory (safe under ctest -j), which is removed
# on exit (set NHOLO_INSTALL_TEST_KEEP=1 to keep it for debugging).
#
# Environment (set by install_test.cmake): NHOLO_CMAKE (the cmake to use), NHOLO_CMAKE_GENERATOR
# (generator for the consumer project), NHOLO_CONSUMER_FLAGS (extra compile and link flags,
# e.g. the sanitizers of an NHOLO_SANITIZE build), NHOLO_PYTHON_EXE and NHOLO_PYTHON_SITEDIR
# (the interpreter and the package's install directory, relative to the prefix or absolute;
# set when the Python package was built).
set -u

me="test_install"
say() { printf '%s: %s\n' "$me" "$*"; }
fail() {
  printf '%s: FAIL: %s\n' "$me" "$*" >&2
  exit 1
}

if [ $# -lt 3 ] || [ $# -gt 4 ]; then
  echo "usage: $0 <binary dir> <source dir> <C compiler> [<config>]" >&2
  exit 2
fi
bindir=$1
srcdir=$2
cc=$3
config=${4:-}
cmake=${NHOLO_CMAKE:-cmake}
generator=${NHOLO_CMAKE_GENERATOR:-}
xflags=${NHOLO_CONSUMER_FLAGS:-}

[ -f "$bindir/cmake_install.cmake" ] || fail "'$bindir' is not a configured nholo build tree (no cmake_install.cmake)"
[ -f "$srcdir/tests/install/consumer.c" ] || fail "'$srcdir' is not the nholo source tree (no tests/install/consumer.c)"
command -v "$cc" >/dev/null 2>&1 || fail "C compiler '$cc' not found"
command -v "$cmake" >/dev/null 2>&1 || fail "cmake '$cmake' not found"
command -v pkg-config >/dev/null 2>&1 || fail "pkg-config not found"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/nholo-install-test.XXXXXX") || fail "cannot create a temporary directory"
cleanup() {
  if [ "${NHOLO_INSTALL_TEST_KEEP:-0}" = 1 ]; then
    say "kept $tmp"
  else
    rm -rf "$tmp"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

prefix=$tmp/prefix
log=$tmp/log

# run <what> <command...>: run a command with its output in $log; on failure show it and fail.
run() {
  what=$1
  shift
  if ! "$@" >"$log" 2>&1; then
    cat "$log" >&2
    fail "$what failed: $*"
  fi
}

# ---- 1. install ------------------------------------------------------------------------
say "installing $bindir into $prefix"
if [ -n "$config" ]; then
  run "cmake --install" "$cmake" --install "$bindir" --prefix "$prefix" --config "$config"
else
  run "cmake --install" "$cmake" --install "$bindir" --prefix "$prefix"
fi

# The libraries may go to lib, lib64 or lib/<multiarch> (GNUInstallDirs): find the .pc file.
pcfile=$(find "$prefix" -path '*/pkgconfig/nholo.pc' | head -n 1)
[ -n "$pcfile" ] || fail "no pkgconfig/nholo.pc under $prefix"
pcdir=$(dirname "$pcfile")
libdir=$(dirname "$pcdir")
for f in "$prefix/bin/nholo" "$prefix/include/nholo/nholo.h" "$libdir/libnholo.a" \
         "$libdir/cmake/nholo/nholoConfig.cmake" "$libdir/cmake/nholo/nholoConfigVersion.cmake" \
         "$libdir/cmake/nholo/nholoTargets.cmake"; do
  [ -f "$f" ] || fail "not installed: $f"
done
shared=""
for f in "$libdir"/libnholo.so* "$libdir"/libnholo*.dylib; do
  [ -e "$f" ] && shared="$shared $(basename "$f")"
done
[ -n "$shared" ] || fail "no shared library libnholo in $libdir"
say "installed:$shared libnholo.a, bin/nholo, include/nholo/*.h, nholo.pc, cmake/nholo/"
[ -x "$prefix/bin/nholo" ] || fail "$prefix/bin/nholo is not executable"
for h in "$srcdir"/include/nholo/*.h; do
  [ -f "$prefix/include/nholo/$(basename "$h")" ] || fail "header not installed: nholo/$(basename "$h")"
done

# the documentation, the examples and (when help2man was found) the manual page
docdir=$prefix/share/doc/nholo
for f in "$srcdir"/README.md "$srcdir"/docs/*.md "$srcdir"/docs/img/*.png; do
  rel=${f#"$srcdir"/}
  cmp -s "$f" "$docdir/$rel" || fail "documentation not installed: $docdir/$rel"
done
for f in "$srcdir"/examples/* "$srcdir"/examples/*/*; do
  [ -f "$f" ] || continue # a directory (examples/python) is checked by its files
  rel=${f#"$srcdir"/examples/}
  cmp -s "$f" "$docdir/examples/$rel" || fail "example not installed: $docdir/examples/$rel"
done
"$prefix/bin/nholo" --help | grep -q "PREFIX/share/doc/nholo" || fail "nholo --help does not say where the documentation is installed"
if [ "${NHOLO_EXPECT_MAN:-0}" = 1 ]; then
  man=$prefix/share/man/man1/nholo.1
  [ -f "$man" ] || fail "manual page not installed: $man"
  grep -q '^\.TH NHOLO "1"' "$man" && grep -q 'usage: nholo <command>' "$man" \
    || fail "$man is not the manual page made from nholo --help"
  say "installed: share/doc/nholo (README, docs, examples), share/man/man1/nholo.1"
else
  say "installed: share/doc/nholo (README, docs, examples); no manual page (help2man not found)"
fi

# ---- 2. pkg-config consumer ------------------------------------------------------------
PKG_CONFIG_PATH=$pcdir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
export PKG_CONFIG_PATH
run "pkg-config nholo" pkg-config --exists --print-errors nholo
pc_prefix=$(pkg-config --variable=prefix nholo)
[ "$pc_prefix" = "$prefix" ] || fail "nholo.pc has prefix=$pc_prefix, expected $prefix"
pc_version=$(pkg-config --modversion nholo)
pc_cflags=$(pkg-config --cflags nholo) || fail "pkg-config --cflags nholo failed"
pc_libs=$(pkg-config --libs nholo) || fail "pkg-config --libs nholo failed"
pc_static=$(pkg-config --static --libs nholo) || fail "pkg-config --static --libs nholo failed"
case " $pc_static " in
  *" -lm "*) ;;
  *) fail "pkg-config --static --libs nholo lacks -lm: $pc_static" ;;
esac
pc_components=$(pkg-config --variable=components nholo)
pc_moduledir=$(pkg-config --variable=moduledir nholo)
for c in $pc_components; do
  [ -f "$pc_moduledir/nholo-$c.so" ] || fail "component $c named by nholo.pc is not in $pc_moduledir"
done
say "pkg-config: nholo $pc_version, cflags: $pc_cflags, libs: $pc_libs, components: $pc_components"
# the library itself needs libc and libm alone (the components are opened at run time)
if command -v readelf >/dev/null 2>&1; then
  for f in "$libdir"/libnholo.so.*.*; do
    extra=$(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | grep -v -E '^(libc|libm|ld-linux[^.]*)\.so' || true)
    [ -z "$extra" ] || fail "$(basename "$f") needs more than libc and libm: $extra"
  done
fi

# $pc_cflags, $pc_libs and $xflags are word-split on purpose.
# shellcheck disable=SC2086
run "building consumer.c with pkg-config" \
  "$cc" $xflags -o "$tmp/consumer_pc" "$srcdir/tests/install/consumer.c" $pc_cflags $pc_libs
say "running the pkg-config consumer"
LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
  DYLD_LIBRARY_PATH=$libdir${DYLD_LIBRARY_PATH:+:$DYLD_LIBRARY_PATH} \
  "$tmp/consumer_pc" "$prefix" $pc_components || fail "the pkg-config consumer failed (exit $?)"

# ---- 3. CMake package consumer ---------------------------------------------------------
build=$tmp/consumer-build
say "configuring tests/install with CMAKE_PREFIX_PATH=$prefix"
set -- -S "$srcdir/tests/install" -B "$build" \
  "-DCMAKE_PREFIX_PATH=$prefix" "-DCMAKE_C_COMPILER=$cc" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF
[ -n "$generator" ] && set -- "$@" -G "$generator"
[ -n "$xflags" ] && set -- "$@" "-DCMAKE_C_FLAGS=$xflags" "-DCMAKE_EXE_LINKER_FLAGS=$xflags"
run "configuring the CMake consumer" "$cmake" "$@"
found_dir=$(sed -n 's/^nholo_DIR:[A-Z]*=//p' "$build/CMakeCache.txt")
case "$found_dir" in
  "$prefix"/*) ;;
  *) fail "find_package(nholo) found $found_dir, not the package installed under $prefix" ;;
esac
run "building the CMake consumer" "$cmake" --build "$build" --config Release

for exe in consumer consumer_static; do
  path=$(find "$build" -type f -name "$exe" -perm -u+x | head -n 1)
  [ -n "$path" ] || fail "the CMake consumer build produced no $exe"
  say "running the CMake consumer $exe"
  "$path" || fail "the CMake consumer $exe failed (exit $?)"
done

# ---- 4. the Python package from the prefix -----------------------------------------------
py=${NHOLO_PYTHON_EXE:-}
if [ -z "$py" ]; then
  say "Python package: skipped (the module was not built: NHOLO_PYTHON off, no Python development files or numpy)"
elif [ -n "${NHOLO_CONSUMER_FLAGS:-}" ]; then
  say "Python package: skipped (a sanitizer build: the interpreter would need the sanitizer runtimes preloaded)"
elif [ "${NHOLO_PYTHON_SITEDIR#/}" != "${NHOLO_PYTHON_SITEDIR:-}" ]; then
  say "Python package: skipped (NHOLO_PYTHON_SITEDIR=$NHOLO_PYTHON_SITEDIR is absolute, outside the test's prefix)"
else
  site=$prefix/${NHOLO_PYTHON_SITEDIR:?NHOLO_PYTHON_SITEDIR is not set}
  for f in "$site/nholo/__init__.py" "$site"/nholo/_nholo*.so; do
    [ -f "$f" ] || fail "Python package not installed: $f"
  done
  say "importing nholo from $site and running the penny to its 3rd impact"
  # the package must come from the prefix (not the build tree, not the system), run, and agree
  # with the installed command-line tool
  PYTHONPATH=$site PYTHONNOUSERSITE=1 run "the installed Python package" "$py" -c '
import json, os, subprocess, sys
import nholo
site, cli = sys.argv[1], sys.argv[2]
assert os.path.realpath(nholo.__file__).startswith(os.path.realpath(site) + os.sep), nholo.__file__
r = nholo.run(nholo.builtin("penny"), 100, max_impacts=3)
assert r.status == 0 and len(r.impacts) == 3 and r.summary["impacts"] == 3, r
js = json.loads(subprocess.run([cli, "run", "penny", "--impacts", "3", "--t-end", "100", "--json"],
                               check=True, capture_output=True, text=True).stdout)
assert js["final_state"] == r.summary["final_state"], (js["final_state"], r.summary["final_state"])
print("nholo", nholo.__version__, "from", os.path.dirname(nholo.__file__), "t =", r.t[-1])
' "$site" "$prefix/bin/nholo"
  cat "$log"
fi

say "PASS"
