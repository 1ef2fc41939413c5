#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# setup.sh -- everything libeco needs on a Debian 12 machine, then the
# build: Debian packages (as root), autoreconf, configure, make.
# Sourced-safe: run it directly, or through demo.sh and test.sh.
set -eu
cd "$(dirname "$0")/.."

PACKAGES="build-essential autoconf automake libtool pkg-config pvm pvm-dev libpvm3
libcunit1-dev graphviz valgrind iproute2 procps"
# The demo also compares with Open MPI and draws plots.
if [ "${1:-}" = "--demo" ]; then
    PACKAGES="$PACKAGES openmpi-bin libopenmpi-dev gnuplot-nox"
fi

missing=""
for p in $PACKAGES; do
    dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "setup: missing Debian packages:$missing" >&2
        echo "setup: run as root, or: sudo apt-get install$missing" >&2
        exit 1
    fi
    echo "setup: installing$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt Makefile.in ]; then
    echo "setup: autoreconf"
    autoreconf -fi >/dev/null 2>&1 || autoreconf -fi
fi
# Configure again when Open MPI arrived after the last configure.
if [ ! -f Makefile ] || [ configure -nt config.status ] ||
   { command -v mpicc >/dev/null && grep -q '^MPI_LIBS = *$' Makefile; }; then
    echo "setup: configure"
    ./configure -q
fi
echo "setup: make"
make -s -j2 >/dev/null
echo "setup: built libeco $(sed -n 's/^Version: //p' eco.pc)"
