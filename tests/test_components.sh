#!/bin/sh
# test_components.sh NHOLO LIBNHOLO HDF5 - a core that loads only what it uses (issue 29):
# libnholo.so and the nholo program need no HDF5, MPI, PLplot or CHOLMOD (readelf -d); a run and
# an ensemble to CSV load neither HDF5 nor MPI (the dynamic loader's LD_DEBUG=files); with the
# hdf5 component built (HDF5 = 1) an ensemble to FILE.h5 opens it; with NHOLO_MODULE_PATH
# naming no directory of modules, an HDF5 output or member file is refused with one line that
# names the component and why (exit 2, nothing written).
set -u
NHOLO=$1
LIB=$2
HDF5=$3
. "$(dirname "$0")/cli_lib.sh"

# ---- what the core and the program link ----------------------------------------------------
if command -v readelf >/dev/null 2>&1; then
  for f in "$LIB" "$NHOLO"; do
    readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' >"$T/needed"
    heavy=$(grep -E -i 'hdf5|mpi|plplot|cholmod' "$T/needed" | tr '\n' ' ')
    [ -s "$T/needed" ] && [ -z "$heavy" ] && ok "$(basename "$f") needs none of HDF5, MPI, PLplot, CHOLMOD: $(tr '\n' ' ' <"$T/needed")" \
      || bad "$(basename "$f") needs $heavy (NEEDED: $(tr '\n' ' ' <"$T/needed"))"
  done
else
  skip "the NEEDED entries (no readelf on PATH)"
fi

# ---- what a process loads (the loader's own list of the files it opens) --------------------
# loaded NAME ARGS...: the files the loader opened for `nholo ARGS...` matching NAME, counted
loaded() {
  pat=$1
  shift
  LD_DEBUG=files "$NHOLO" "$@" 2>&1 >/dev/null | grep -c -E "file=[^ ]*($pat)"
}
if [ "$(LD_DEBUG=files "$NHOLO" --version 2>&1 >/dev/null | grep -c 'file=')" -gt 0 ]; then
  n=$(loaded 'hdf5|mpi' run penny --impacts 3)
  [ "$n" -eq 0 ] && ok "nholo run penny: no HDF5 or MPI loaded" || bad "nholo run penny loaded $n HDF5/MPI files"
  rm -rf "$T/o" && mkdir "$T/o"
  n=$(loaded 'hdf5|mpi' ensemble penny --method exact --impacts 3 --vary x=uniform:0:0.01 --members 20 --out "$T/o/e.csv")
  [ "$n" -eq 0 ] && [ -s "$T/o/e.csv" ] && ok "nholo ensemble to CSV: no HDF5 or MPI loaded" \
    || bad "nholo ensemble to CSV loaded $n HDF5/MPI files"
  if [ "$HDF5" = 1 ]; then
    n=$(loaded 'nholo-hdf5\.so' ensemble penny --method exact --impacts 3 --vary x=uniform:0:0.01 --members 20 \
        --out "$T/o/e.h5")
    [ "$n" -gt 0 ] && [ -s "$T/o/e.h5" ] && ok "nholo ensemble to FILE.h5 opens nholo-hdf5.so and writes the file" \
      || bad "nholo ensemble to FILE.h5 (nholo-hdf5.so loaded $n times)"
  fi
else
  skip "what a process loads (LD_DEBUG=files shows nothing here)"
fi

# ---- the component missing -----------------------------------------------------------------
export NHOLO_MODULE_PATH=/nonexistent
P="penny --method exact --impacts 3 --vary x=uniform:0:0.01 --members 20"
expect_usage "an HDF5 output without the hdf5 component" ensemble $P --out "$T/o/x.h5"
grep -qxF "nholo: --out: HDF5 is unavailable: the hdf5 module nholo-hdf5.so was not found (NHOLO_MODULE_PATH=/nonexistent)" \
  "$T/stderr" && ok "its message names the component and why" || bad "its message: $(cat "$T/stderr")"
printf 'x\n0\n' >"$T/m.csv"
cp "$T/m.csv" "$T/m.h5"
expect_usage "an HDF5 member file without the hdf5 component" ensemble penny --members "$T/m.h5" --out "$T/o/y.csv"
grep -qF "nholo: --members: '$T/m.h5': HDF5 is unavailable: the hdf5 module nholo-hdf5.so was not found" "$T/stderr" \
  && ok "its message" || bad "its message: $(cat "$T/stderr")"
rm -rf "$T/o" && mkdir "$T/o"
"$NHOLO" ensemble $P --out "$T/o/x.csv" >/dev/null 2>"$T/err" && [ -s "$T/o/x.csv" ] \
  && ok "an ensemble to CSV runs without the component" || bad "CSV without the component: $(cat "$T/err")"
unset NHOLO_MODULE_PATH

finish
