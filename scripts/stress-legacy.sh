#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# stress-legacy.sh -- run the PVM compatibility layer's tests many times
# under CPU load, to catch ordering races that show once in a while.
#
#   scripts/stress-legacy.sh [-n RUNS] [-H HOGS] [-t "TEST..."] [-k DIR] [-B]
#
#   -n RUNS   runs (default 50; env STRESS_RUNS)
#   -H HOGS   CPU hogs (`yes >/dev/null`) beside the tests (default 4;
#             env STRESS_HOGS)
#   -t TESTS  the tests of one run, in the build tree (default
#             "tests/legacy.test tests/legacy_netbed.test"; env STRESS_TESTS)
#   -k DIR    keep the logs of failed runs in DIR (default a new directory
#             under /tmp, printed at the end)
#   -B        do not run `make check TESTS=` first (it builds the legacy
#             programs, which are check programs, and the layer)
#
# A run is every test once; a test that skips (exit 77, e.g. the netbed
# one without root) counts as neither passed nor failed.  LEGACY_PROGRAMS
# and LG_NTASK in the environment reach tests/legacy.test as usual, e.g.
# LEGACY_PROGRAMS=lg_bcast to stress one program.  Prints a running count
# and "N runs, F failures"; exits 1 when any run failed, 77 when every
# test skipped.  The hogs are killed on exit, however the script ends.
# Run it from the build tree (top_srcdir defaults to the script's tree).
set -u
here=$(cd "$(dirname "$0")/.." && pwd) || exit 99
: "${top_srcdir:=$here}"
: "${top_builddir:=$(pwd)}"
export top_srcdir top_builddir

runs=${STRESS_RUNS:-50}
hogs=${STRESS_HOGS:-4}
tests=${STRESS_TESTS:-tests/legacy.test tests/legacy_netbed.test}
keep=
build=yes
usage() { sed -n '4,15p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while getopts n:H:t:k:Bh opt; do
    case $opt in
    n) runs=$OPTARG ;;
    H) hogs=$OPTARG ;;
    t) tests=$OPTARG ;;
    k) keep=$OPTARG ;;
    B) build=no ;;
    *) usage ;;
    esac
done
case $runs$hogs in *[!0-9]*|'') usage ;; esac
[ -n "$keep" ] || keep=$(mktemp -d /tmp/stress-legacy.XXXXXX) || exit 99
mkdir -p "$keep" || exit 99

# The legacy programs are check programs: build them (and the layer) now,
# before the hogs start (-B skips this).
if [ "$build" = yes ]; then
    echo "building the check programs (make check TESTS=)"
    make -C "$top_builddir" check TESTS= >"$keep/build.log" 2>&1 ||
        { tail -20 "$keep/build.log"; echo "build failed"; exit 99; }
    rm -f "$keep/build.log"
fi

hog_pids=
test_pid=
stop_hogs() {
    if [ -n "$test_pid" ]; then
        kill "$test_pid" 2>/dev/null
        wait "$test_pid" 2>/dev/null
        test_pid=
    fi
    for p in $hog_pids; do
        kill "$p" 2>/dev/null
    done
    for p in $hog_pids; do
        wait "$p" 2>/dev/null
    done
    hog_pids=
}
interrupted() {
    echo "interrupted: $ran runs, $failures failures so far (logs of failures: $keep)"
    exit "$1"
}
trap stop_hogs EXIT
trap 'interrupted 130' INT
trap 'interrupted 143' TERM HUP

ran=0 failures=0 skipped=0
i=0
while [ "$i" -lt "$hogs" ]; do
    yes >/dev/null &
    hog_pids="$hog_pids $!"
    i=$((i + 1))
done

run=1
while [ "$run" -le "$runs" ]; do
    status=ok
    for t in $tests; do
        name=$(basename "$t" .test)
        log=$keep/run$run.$name.log
        start=$(date +%s)
        # In the background, so that a signal reaches the script at once;
        # the test's own traps then take its virtual machine down.
        sh "$top_srcdir/$t" >"$log" 2>&1 &
        test_pid=$!
        wait "$test_pid"
        rc=$?
        test_pid=
        secs=$(($(date +%s) - start))
        case $rc in
        0) rm -f "$log"; res="ok" ;;
        77) rm -f "$log"; res="skip"; skipped=$((skipped + 1)) ;;
        *) res="FAIL (exit $rc, log $log)"; status=fail ;;
        esac
        echo "  run $run/$runs $name: $res (${secs}s)"
        case $res in FAIL*)
            grep -E '^ *not ok|^ *[<>] ' "$log" | sed -n '1,12p' | sed 's/^/      /' ;;
        esac
    done
    ran=$((ran + 1))
    [ "$status" = fail ] && failures=$((failures + 1))
    echo "run $run/$runs: $status ($failures failed so far, $hogs hogs)"
    run=$((run + 1))
done

stop_hogs
echo "$ran runs, $failures failures (hogs: $hogs; tests: $tests; logs of failures: $keep)"
if [ "$failures" -eq 0 ] && [ -z "$(ls -A "$keep")" ]; then
    rmdir "$keep" 2>/dev/null
fi
[ "$failures" -eq 0 ] || exit 1
set -- $tests
[ "$skipped" -lt $((ran * $#)) ] || exit 77
exit 0
