#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# fuzz.sh -- build the libFuzzer targets of tests/fuzz/ with clang
# (-fsanitize=fuzzer,address,undefined) and run each for SECONDS
# (default 30, what CI runs), from the seed corpus in
# tests/fuzz/corpus/TARGET/.  New inputs go to fuzz-out/corpus/TARGET/
# (git-ignored), crashes to fuzz-out/crashes/TARGET/; it fails if a
# target crashes, leaks, times out or breaks one of its checks.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]   targets: subnet_file matrix
#   scripts/fuzz.sh 3600                    a long run (doc/hardening.md)
#   FUZZ_JOBS=2 scripts/fuzz.sh 3600        two processes per target
#
# Reproduce a crash: fuzz-out/bin/fuzz_TARGET fuzz-out/crashes/TARGET/crash-...
# Installs clang and its runtimes (Debian: clang, libclang-rt-14-dev) as
# root when they are missing.
set -u
cd "$(dirname "$0")/.."
top=$(pwd)
seconds=${1:-30}
[ $# -gt 0 ] && shift
targets=${*:-subnet_file matrix}
out=${FUZZ_OUT:-$top/fuzz-out}
jobs=${FUZZ_JOBS:-1}
case $seconds in ''|*[!0-9]*) echo "usage: $0 [SECONDS] [TARGET...]" >&2; exit 2 ;; esac
start=$(date +%s)

# ------------------------------------------------------------------
# clang with libFuzzer
# ------------------------------------------------------------------
CLANG=${CLANG:-}
find_clang() {
    for c in ${CLANG:-} clang clang-16 clang-15 clang-14; do
        command -v "$c" >/dev/null 2>&1 || continue
        echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; return (int)n * 0; }' |
            "$c" -x c -fsanitize=fuzzer,address,undefined -o /dev/null - >/dev/null 2>&1 &&
            { echo "$c"; return 0; }
    done
    return 1
}
if ! CLANG=$(find_clang); then
    if [ "$(id -u)" -ne 0 ]; then
        echo "fuzz: no clang with libFuzzer; run as root, or: sudo apt-get install clang libclang-rt-14-dev" >&2
        exit 1
    fi
    echo "fuzz: installing clang libclang-rt-14-dev"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends clang libclang-rt-14-dev >/dev/null || exit 1
    CLANG=$(find_clang) || { echo "fuzz: clang still cannot link -fsanitize=fuzzer" >&2; exit 1; }
fi

# ------------------------------------------------------------------
# Build: the map layer's sources straight from lib/, no configure.
# ------------------------------------------------------------------
mkdir -p "$out/bin" || exit 1
version=$(sed -n 's/^AC_INIT(\[libeco\], \[\([^]]*\)\].*/\1/p' configure.ac)
printf '#define PACKAGE_VERSION "%s"\n' "${version:-0}" >"$out/bin/config.h"
SRCS="lib/status.c lib/map.c lib/hops.c lib/costs.c lib/result_pairs.c lib/subnet_file.c lib/atomic_file.c lib/partition.c lib/model.c"
CFLAGS="-g -O1 -Wall -Wextra -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
for t in $targets; do
    [ -f "tests/fuzz/fuzz_$t.c" ] || { echo "fuzz: no target tests/fuzz/fuzz_$t.c" >&2; exit 2; }
    # shellcheck disable=SC2086
    $CLANG $CFLAGS -D_GNU_SOURCE -I"$out/bin" -Iinclude -Ilib -o "$out/bin/fuzz_$t" \
        "tests/fuzz/fuzz_$t.c" $SRCS -lm -lpthread || { echo "fuzz: building fuzz_$t failed" >&2; exit 1; }
done
echo "fuzz: built with $($CLANG --version | head -n 1)"

# ------------------------------------------------------------------
# Run
# ------------------------------------------------------------------
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
failed=""
for t in $targets; do
    mkdir -p "$out/corpus/$t" "$out/crashes/$t"
    log=$out/fuzz_$t.log
    echo "fuzz: $t for ${seconds} s"
    # -max_len: the readers hold whole files; 4 KB inputs keep the
    # quadratic parts (pairs of hosts) fast enough to explore.
    "$out/bin/fuzz_$t" -max_total_time="$seconds" -max_len=4096 -timeout=10 \
        -rss_limit_mb=2048 -print_final_stats=1 -jobs="$jobs" -workers="$jobs" \
        -artifact_prefix="$out/crashes/$t/" \
        "$out/corpus/$t" "tests/fuzz/corpus/$t" >"$log" 2>&1
    rc=$?
    # with -jobs the output of each job is in fuzz-N.log
    [ "$jobs" -gt 1 ] && cat fuzz-[0-9]*.log >>"$log" 2>/dev/null && rm -f fuzz-[0-9]*.log
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | awk '{s += $1} END {print s + 0}')
    cov=$(grep -E '^#[0-9]+' "$log" | tail -n 1 | sed -n 's/.*\(cov: [0-9]*\).*\(corp: [^ ]*\).*/\1 \2/p')
    crashes=$(find "$out/crashes/$t" -type f | wc -l)
    if [ $rc -ne 0 ] || [ "$crashes" -gt 0 ]; then
        failed="$failed $t"
        echo "fuzz: $t FAILED (exit $rc, $crashes crash files in $out/crashes/$t):"
        grep -E -A30 '^==[0-9]+==ERROR|runtime error|^SUMMARY|deadly signal|bad error message|does not read back|not canonical' "$log" | head -60
    else
        echo "fuzz: $t ok, $runs runs, $cov"
    fi
done
echo "fuzz: $(echo $targets | wc -w) targets, ${seconds} s each, failed:${failed:- none}; $(( $(date +%s) - start )) s"
[ -z "$failed" ]
