#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# test.sh -- set everything up (setup.sh) and run the whole test suite
# (make check).  Prints each test's result, the CUnit summaries, the logs
# of any failed test, and a closing "N passed, N failed" line.
set -u
cd "$(dirname "$0")/.."
./scripts/setup.sh || exit 1

make -s -j2 check >check.out 2>&1
rc=$?
grep -E '^(PASS|FAIL|SKIP|XFAIL|XPASS|ERROR):' check.out
for log in $(find tests -name '*.log' ! -name 'test-suite.log' | sort); do
    sed -n '/Run Summary/,/Elapsed/p' "$log" | sed "s|^|  ${log%.log}: |"
    grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | sed "s|^|  ${log%.log}: |"
done
if [ $rc -ne 0 ]; then
    for log in $(grep -lE '^:test-result: (FAIL|ERROR)' $(find tests -name '*.trs') 2>/dev/null); do
        echo "==== ${log%.trs}.log"
        cat "${log%.trs}.log"
    done
    [ -s check.out ] && tail -20 check.out
fi
pass=$(grep -c '^PASS:' check.out)
fail=$(grep -cE '^(FAIL|ERROR|XPASS):' check.out)
skip=$(grep -c '^SKIP:' check.out)
if [ $rc -ne 0 ] && [ "$fail" -eq 0 ]; then fail=1; fi
echo "$pass passed, $fail failed, $skip skipped"
exit $rc
