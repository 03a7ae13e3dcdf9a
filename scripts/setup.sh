#!/bin/sh
# Install the Debian packages nholo needs to build, test and plot.
# Idempotent: does nothing when everything is present. Run as root (or via sudo).
set -eu
# help2man makes the manual page from `nholo --help` at build time
pkgs="build-essential cmake pkg-config libplplot-dev plplot-driver-cairo help2man"
# gcovr: the branch coverage of scripts/coverage.sh (CI's last step)
pkgs="$pkgs gcovr"
# ensembles across machines: Open MPI and parallel HDF5 (h5dump to read the files)
pkgs="$pkgs libopenmpi-dev openmpi-bin libhdf5-openmpi-dev hdf5-tools"
# design optimisation (NLopt) and sparse factorisations (SuiteSparse)
pkgs="$pkgs libnlopt-dev libsuitesparse-dev"
# the Python package: Debian's interpreter, numpy, pytest, venv and pip (the pip installs of
# docs/python.md); h5py, sympy and scipy for the
# examples and the comparison scripts
pkgs="$pkgs python3-dev python3-numpy python3-pytest python3-setuptools python3-pip python3-venv"
pkgs="$pkgs python3-h5py python3-sympy python3-scipy python3-matplotlib"
# clang is optional (second compiler, fuzzing: libclang-rt-14-dev ships its libFuzzer and
# sanitizer runtimes); each is installed when available.
opt_pkgs="clang libclang-rt-14-dev"
missing=""
for p in $pkgs $opt_pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -z "$missing" ]; then
  echo "setup: all packages present"
  exit 0
fi
echo "setup: installing:$missing"
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends $pkgs
for p in $opt_pkgs; do
  $SUDO apt-get install -y -q --no-install-recommends "$p" || echo "setup: optional package not installed: $p"
done
