#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# sanitize.sh -- the whole test suite (make check: the threaded and the
# PVM collectives, the tools, the legacy layer, the emulated networks)
# built with AddressSanitizer, LeakSanitizer and UBSan (gcc), in its own
# build directory, build-san/ (git-ignored).  Every sanitizer report goes
# to a file under build-san/reports/, also from tasks that pvmd spawned,
# and the script fails if make check fails or if any report exists.
#
#   scripts/sanitize.sh            set up (setup.sh), build, make check
#   SAN_DIR=DIR scripts/sanitize.sh   another build directory
#
# A VPATH build: the build directory is configured from a source tree.
# Automake's configure refuses a source tree that is configured itself
# (config.status there: make's VPATH would pick up the tree's own
# uninstrumented objects), and setup.sh builds in the tree.  So when the
# tree is configured, the sources (git's tracked and untracked, not
# ignored, files: the work in progress included) are copied to
# build-san/src, timestamps kept, and build-san/obj is configured from
# there; otherwise build-san/obj is configured from the tree itself.
# See doc/hardening.md for the options and the suppressions.
set -u
cd "$(dirname "$0")/.."
top=$(pwd)
SAN_DIR=${SAN_DIR:-$top/build-san}
SANFLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"
start=$(date +%s)

say() { echo "sanitize: $*"; }
elapsed() { echo "$(( $(date +%s) - start )) s"; }

# Packages, and a tree with configure (autoreconf) for the copy.
./scripts/setup.sh || exit 1
command -v gcc >/dev/null || { say "gcc is missing"; exit 1; }

# ------------------------------------------------------------------
# The source tree the build directory is configured from.
# ------------------------------------------------------------------
mkdir -p "$SAN_DIR/obj" || exit 1
if [ -f "$top/config.status" ] && ! git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
    # A configured release tree (make dist): copy what it distributes.
    srcdir=$SAN_DIR/src
    say "copying the distributed sources to $srcdir (make distdir)"
    make -s -C "$top" distdir distdir="$srcdir" >/dev/null || exit 1
elif [ -f "$top/config.status" ]; then
    srcdir=$SAN_DIR/src
    mkdir -p "$srcdir"
    # Overwrites changed files only in effect: tar keeps the mtimes, so
    # make rebuilds what changed since the last run.
    git -C "$top" ls-files -z -c -o --exclude-standard |
        grep -z -v -e '^build-san/' -e '^fuzz-out/' |
        (cd "$top" && tar --null --ignore-failed-read -T - -cf -) | tar -xf - -C "$srcdir" || exit 1
    # files deleted in the tree since the last copy
    git -C "$top" ls-files -z -d | (cd "$srcdir" && xargs -0 rm -f)
    if [ ! -x "$srcdir/configure" ] || [ "$srcdir/configure.ac" -nt "$srcdir/configure" ] ||
       [ "$srcdir/Makefile.am" -nt "$srcdir/Makefile.in" ]; then
        say "autoreconf (copy of the sources in $srcdir)"
        (cd "$srcdir" && autoreconf -fi >/dev/null 2>&1) || (cd "$srcdir" && autoreconf -fi) || exit 1
    fi
else
    srcdir=$top
fi

# ------------------------------------------------------------------
# Configure and build, instrumented.  CC carries the flags, so libtool
# links every program and library with the runtimes, and tests that
# compile (legacy.test's pkg-config run) get them too.
# ------------------------------------------------------------------
SANCC="gcc $SANFLAGS"
cd "$SAN_DIR/obj" || exit 1
if [ ! -f Makefile ] || [ "$srcdir/configure" -nt config.status ] ||
   ! grep -q -e "-fno-sanitize-recover=all" Makefile; then
    say "configure ($SAN_DIR/obj from $srcdir)"
    configured_before=$([ -f Makefile ] && echo yes)
    "$srcdir/configure" -q CC="$SANCC" CFLAGS="-g -O1" >configure.out 2>&1 ||
        { cat configure.out; say "configure failed"; exit 1; }
    # make does not relink for a changed Makefile: start afresh
    [ -n "$configured_before" ] && make -s clean >/dev/null 2>&1
fi
say "make"
make -s -j2 CC="$SANCC" >make.out 2>&1 || { tail -40 make.out; say "the build failed"; exit 1; }

# ------------------------------------------------------------------
# Where the reports go, and the runtimes' options.  Tasks spawned by
# pvmd inherit pvmd's environment (the test started pvmd with these
# variables set) plus what the spawner lists in PVM_EXPORT, which the
# tests that set their own PVM_EXPORT replace: the variables reach the
# tasks through pvmd either way, and through PVM_EXPORT where the test
# leaves it alone.
#   verify_asan_link_order=0: legacy.test runs instrumented programs with
#     LD_PRELOAD=libecopvm.so (instrumented, and linked to libasan itself)
#     in front of libasan; the program's own preinit starts the runtime
#     before any constructor, so only the order check is in the way.
#   detect_leaks=1 with tests/lsan.supp: leaks inside libpvm3 and PVM's
#     group library, never libeco (see the file).
# ------------------------------------------------------------------
reports=$SAN_DIR/reports
rm -rf "$reports" "$SAN_DIR/reports.list"
mkdir -p "$reports" || exit 1
ASAN_OPTIONS="log_path=$reports/asan:detect_leaks=1:halt_on_error=1:verify_asan_link_order=0:print_suppressions=1"
LSAN_OPTIONS="suppressions=$srcdir/tests/lsan.supp:print_suppressions=1"
UBSAN_OPTIONS="log_path=$reports/ubsan:print_stacktrace=1:halt_on_error=1"
PVM_EXPORT=ASAN_OPTIONS:LSAN_OPTIONS:UBSAN_OPTIONS${PVM_EXPORT:+:$PVM_EXPORT}
export ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS PVM_EXPORT

say "make check (instrumented; reports in $reports)"
make -s -j2 check CC="$SANCC" >check.out 2>&1
rc=$?

# ------------------------------------------------------------------
# Summary
# ------------------------------------------------------------------
grep -E '^(PASS|FAIL|SKIP|XFAIL|XPASS|ERROR):' check.out
if [ $rc -ne 0 ]; then
    for trs in $(grep -lE '^:test-result: (FAIL|ERROR)' $(find tests -name '*.trs') 2>/dev/null); do
        echo "==== $SAN_DIR/obj/${trs%.trs}.log"
        tail -60 "${trs%.trs}.log"
    done
    tail -20 check.out
fi
pass=$(grep -c '^PASS:' check.out)
fail=$(grep -cE '^(FAIL|ERROR|XPASS):' check.out)
skip=$(grep -c '^SKIP:' check.out)
if [ $rc -ne 0 ] && [ "$fail" -eq 0 ]; then fail=1; fi

# A file that holds nothing but LeakSanitizer's table of the suppressions
# it used is no report; any other file is.
# The first reports in full, then one line per report.
nrep=0 nsupp=0
for f in "$reports"/*; do
    [ -f "$f" ] || continue
    if grep -Eq 'ERROR:|WARNING:|runtime error|SUMMARY:' "$f" ||
       ! grep -q '^Suppressions used:' "$f"; then
        nrep=$((nrep + 1))
        if [ $nrep -le 5 ]; then
            echo "==== sanitizer report $f"
            sed -n '1,60p' "$f"
        fi
        echo "$f: $(grep -m1 -E 'ERROR:|runtime error|SUMMARY:' "$f" | sed 's/^==[0-9]*==//')" >>"$SAN_DIR/reports.list"
    else
        nsupp=$((nsupp + 1))
    fi
done
if [ $nrep -gt 0 ]; then
    echo "==== all $nrep sanitizer reports (the first line of each):"
    cat "$SAN_DIR/reports.list"
fi
if [ $nsupp -gt 0 ]; then
    echo "suppressed leaks (tests/lsan.supp) in $nsupp processes:"
    cat "$reports"/* | awk '/^Suppressions used:/ {t = 1; next} t && $1 ~ /^[0-9]+$/ {n[$3] += $1} END {for (s in n) printf "  %s: %d leaks\n", s, n[s]}'
fi
echo "sanitize: $pass passed, $fail failed, $skip skipped; $nrep sanitizer reports; $(elapsed)"
[ $rc -eq 0 ] && [ $nrep -eq 0 ]
