#!/bin/sh
# Install the Debian packages nholo needs to build, test and plot.
# Idempotent: does nothing when everything is present. Run as root (or via sudo).
set -eu
# help2man makes the manual page from `nholo --help` at build time
pkgs="build-essential cmake pkg-config libplplot-dev plplot-driver-cairo help2man"
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
