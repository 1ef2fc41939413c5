#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# early-exit.sh -- reproduce the false ECO_ERR_PEER of a member that
# finishes early (doc/benchmarks.md, "The chain pattern's failures"):
# bring up multilevel.topo (two sites behind 5 Mbit/s links), start PVM,
# characterize it, then run eco-bench's broadcast with the eco and chain
# patterns RUNS times (default 10).  In the chain over ranks, ranks 1-3
# finish the last broadcast and exit while rank 3's last segments are
# still queued behind the wide-area link; if rank 4 then sends rank 3 a
# flow-control acknowledgement, rank 3's host answers with a reset and
# drops those segments, and ranks 4-7 fail.  Before the fix this hit
# about one run in six.
#
# The same with another operation: EE_OP (default bcast), EE_PATTERNS
# (default eco,chain), EE_SIZES (default 1000,16000,131072), EE_ITERS
# (default 11).  EE_OP=alltoall EE_PATTERNS=eco EE_SIZES=131072 EE_ITERS=3
# is the other case: a member that waited 0.5 s for a block still queued
# behind the wide-area link sends its sender a WAIT; if that sender has
# exited, its host resets the connection and drops the block.
#
# Besides eco-bench's status, it reads each host's TcpExtTCPAbortOnData
# counter (nstat, per namespace): the number of TCP connections reset
# because data reached a socket its task had closed.  It must stay 0.
#
#   scripts/early-exit.sh [RUNS]
# Needs root.  Exit 0 when every run passed and no reset was counted.
set -u
case ${1:-} in
    -h|--help) sed -n '3,26s/^# \{0,1\}//p' "$0"; exit 0 ;;
esac
cd "$(dirname "$0")/.."
top=$(pwd)
runs=${1:-10}
topo=tests/netbed/topologies/multilevel.topo
export NETBED_PREFIX=${NETBED_PREFIX:-ee-}
nb="$top/tests/netbed/netbed"
tools=$top/daemon-tools

[ "$(id -u)" -eq 0 ] || { echo "early-exit: needs root (network namespaces)"; exit 77; }
[ -x "$tools/eco-bench" ] || { echo "early-exit: build first (scripts/setup.sh)"; exit 1; }
command -v nstat >/dev/null || { echo "early-exit: needs nstat (iproute2)"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/eco-early.XXXXXX") || exit 1
trap '"$nb" down >/dev/null 2>&1; rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

"$nb" down >/dev/null 2>&1
"$nb" up "$topo" >/dev/null || exit 1
"$nb" pvm --ep "$tools" >/dev/null || exit 1
hosts=$("$nb" hosts "$topo")
first=$(echo "$hosts" | head -n 1)
"$nb" run "$first" "$tools/eco-characterize" --quiet -o "$work/subnets" || exit 1

resets() {
    t=0
    for h in $hosts; do
        v=$(ip netns exec "$NETBED_PREFIX$h" nstat -asz TcpExtTCPAbortOnData |
            awk '$1 == "TcpExtTCPAbortOnData" { print $2 }')
        t=$((t + ${v:-0}))
    done
    echo $t
}

failed=0
before=$(resets)
for i in $(seq 1 "$runs"); do
    timeout 120 "$nb" run "$first" env ECO_SUBNET_FILE="$work/subnets" "$tools/eco-bench" \
        --op "${EE_OP:-bcast}" --patterns "${EE_PATTERNS:-eco,chain}" \
        --sizes "${EE_SIZES:-1000,16000,131072}" --iters "${EE_ITERS:-11}" \
        >"$work/out" 2>"$work/err"
    rc=$?
    now=$(resets)
    if [ $rc -eq 0 ]; then
        echo "run $i: ok, resets $((now - before))"
    else
        failed=$((failed + 1))
        echo "run $i: FAILED (eco-bench exit $rc), resets $((now - before))"
        grep 'failed' "$work/err" | sed 's/^/    /'
    fi
done
total=$(( $(resets) - before ))
echo "early-exit: $failed of $runs runs failed; $total connection(s) reset by data after close"
[ $failed -eq 0 ] && [ $total -eq 0 ]
