#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# soak.sh -- libeco as a long-running application sees it (issue 10):
# in a private PVM virtual machine, 8 tasks make 1,000 contexts, run
# 3,000 rooted reduces of 64 KB and 10,000 mixed collectives (tests/soak:
# RSS, descriptors and time per operation at the start and the end,
# checked against the targets), then the disagreement and killed-member
# cases of the PVM tests, and, when present, the legacy-order stress run.
#
#   scripts/soak.sh [TASKS [CONTEXTS [REDUCES [MIXED]]]]
#
# Not part of `make check` (the legacy stress run takes over an hour at
# 50 runs; STRESS_RUNS=0 skips it); exits non-zero when a target is
# missed.
set -u
cd "$(dirname "$0")/.."
./scripts/setup.sh >/dev/null || exit 1
make -s tests/soak tests/pvm_tests >/dev/null || exit 1
top_srcdir=$(pwd)
export top_srcdir
. tests/private_vm.sh
trap private_vm_halt EXIT
trap 'exit 130' INT TERM
private_vm_start "$(pwd)/tests" || exit 1
rc=0
./tests/soak "$@" || rc=1
for t in "members that disagree all fail within 5 s" "a member killed mid-collective"; do
    echo "soak: pvm_tests: $t"
    out=$(./tests/pvm_tests "$t" 2>&1) || rc=1
    printf '%s\n' "$out" | grep -E "Test:|FAILED|passed|asserts|rank" || true
done
private_vm_halt
trap - EXIT
# STRESS_RUNS (default 50) sets the legacy runs; 0 skips them.
if [ -x scripts/stress-legacy.sh ] && [ "${STRESS_RUNS:-50}" -gt 0 ]; then
    echo "soak: legacy order under load (scripts/stress-legacy.sh, ${STRESS_RUNS:-50} runs)"
    ./scripts/stress-legacy.sh || rc=1
fi
[ $rc -eq 0 ] && echo "soak: every target met" || echo "soak: a target was missed"
exit $rc
