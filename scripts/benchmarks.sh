#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# benchmarks.sh -- the documented benchmark run (doc/benchmarks.md):
# bring up an emulated network, start PVM over it, characterize it with
# eco-characterize, and run eco-bench for every op with every pattern,
# Open MPI included when it is installed; tear everything down after,
# also on Ctrl-C.  Needs root (network namespaces).
#
#   scripts/benchmarks.sh [TOPOLOGY] [OUTDIR] [OPS]
# defaults: tests/netbed/topologies/eco-paper.topo, bench-output/NAME,
# "bcast reduce allreduce gather allgather scatter alltoall barrier scan".
# $BENCH_PATTERNS: the PVM-based patterns (default
# eco,pvm,star,binary,kary3,chain); openmpi is added when built.
# $ECO_BENCH_SIZES, $ECO_BENCH_ITERS: eco-bench's --sizes and --iters;
# $ECO_BENCH_START: its --start (barrier or agreed; eco-bench's default
# when unset).
set -u
cd "$(dirname "$0")/.."
top=$(pwd)
topo=${1:-tests/netbed/topologies/eco-paper.topo}
name=$(basename "$topo" .topo)
out=${2:-bench-output/$name}
ops=${3:-bcast reduce allreduce gather allgather scatter alltoall barrier scan}
sizes=${ECO_BENCH_SIZES:-1000,16000,262144}
iters=${ECO_BENCH_ITERS:-15}
export NETBED_PREFIX=${NETBED_PREFIX:-eb-}
nb="$top/tests/netbed/netbed"
tools=$top/daemon-tools

[ "$(id -u)" -eq 0 ] || { echo "benchmarks: needs root (network namespaces)"; exit 77; }
[ -x "$tools/eco-bench" ] || { echo "benchmarks: build first (scripts/setup.sh)"; exit 1; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
trap '"$nb" down >/dev/null 2>&1' EXIT
trap 'exit 130' INT TERM

"$nb" down >/dev/null 2>&1
"$nb" up "$topo" || exit 1
"$nb" pvm --ep "$tools" >/dev/null || exit 1
hosts=$("$nb" hosts "$topo")
first=$(echo "$hosts" | head -n 1)
n=$(echo "$hosts" | wc -l)

echo "== characterizing $name ($n hosts)"
"$nb" run "$first" "$tools/eco-characterize" --quiet -o "$out/subnets" --matrix "$out/matrix" || exit 1
"$tools/eco-show" "$out/subnets" | tee "$out/show.txt"
"$nb" subnets "$topo" > "$out/true-subnets"
"$tools/eco-show" --subnets "$out/subnets" > "$out/found-subnets"
if cmp -s "$out/true-subnets" "$out/found-subnets"; then
    echo "subnets: found exactly the true segments"
else
    echo "subnets: DIFFER from the true segments:"; diff "$out/true-subnets" "$out/found-subnets"
fi
"$tools/eco-show" --tree "$first" --dot "$out/subnets" > "$out/tree.dot"
command -v dot >/dev/null && dot -Tsvg "$out/tree.dot" > "$out/tree.svg"

patterns=${BENCH_PATTERNS:-eco,pvm,star,binary,kary3,chain}
mpirun=""
if [ -x "$tools/eco-bench-mpi" ] && command -v mpirun >/dev/null; then
    echo "$hosts" | sed 's/$/ slots=1/' > "$out/mpi.hosts"
    # Open MPI busy-polls by default: with more ranks than cores that
    # starves them all, so let idle ranks yield.
    mpirun="mpirun --allow-run-as-root --mca mpi_yield_when_idle 1 --mca plm_rsh_agent /run/netbed/${NETBED_PREFIX%-}/pvm/rsh \
--mca btl tcp,self --mca btl_tcp_if_include eth0 --mca oob_tcp_if_include eth0 \
--hostfile $out/mpi.hosts -np $n"
    patterns=$patterns,openmpi
fi
for op in $ops; do
    echo "== $op"
    "$nb" run "$first" env ECO_SUBNET_FILE="$out/subnets" "$tools/eco-bench" --op "$op" \
        --sizes "$sizes" --iters "$iters" --patterns "$patterns" ${mpirun:+--mpirun "$mpirun"} \
        ${ECO_BENCH_START:+--start "$ECO_BENCH_START"} \
        --topology "$top/$topo" --plot "$out/$op.svg" --csv-file "$out/$op.csv" \
        > "$out/$op.txt" 2>"$out/$op.err"
    cat "$out/$op.txt"
done
echo "benchmarks: results in $out"
