#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# bench-large.sh -- the larger real run (doc/scale.md, "Simulated against
# measured"): 24 emulated hosts in two levels (campus24.topo), characterized
# and benchmarked by scripts/benchmarks.sh, then every operation's eco run
# set beside eco-sim's simulation of the same network and subnet file and
# the model's prediction (scripts/bench-table.sh --sim).  Needs root; not
# part of make check (24 namespaces and pvmds on one machine).
#
#   scripts/bench-large.sh [OUTDIR] [OPS]
# defaults: bench-output/campus24, every op.  $BENCH_PATTERNS (default
# eco,binary,chain), $ECO_BENCH_SIZES (default 16000,131072) and
# $ECO_BENCH_ITERS (default 5) pass to benchmarks.sh.
set -u
case ${1:-} in
    -h|--help) sed -n '3,13s/^# \{0,1\}//p' "$0"; exit 0 ;;
esac
cd "$(dirname "$0")/.."
topo=tests/netbed/topologies/campus24.topo
out=${1:-bench-output/campus24}
ops=${2:-bcast reduce allreduce gather allgather scatter alltoall barrier scan}
export BENCH_PATTERNS=${BENCH_PATTERNS:-eco,binary,chain}
export ECO_BENCH_SIZES=${ECO_BENCH_SIZES:-16000,131072}
export ECO_BENCH_ITERS=${ECO_BENCH_ITERS:-5}
export NETBED_PVM_TIMEOUT=${NETBED_PVM_TIMEOUT:-180}
scripts/benchmarks.sh "$topo" "$out" "$ops" || exit $?
echo "== measured against simulated and predicted"
scripts/bench-table.sh --sim "$topo" "$out" "$ops"
