#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# demo.sh -- the main job: set everything up, then show ECO at work.
#
# As root (network namespaces available): bring up the ECO paper's
# network (three segments of two hosts, 10 Mbit/s into each segment) on
# this machine, start PVM over it, characterize it, show the subnets and a
# broadcast tree (text and picture), run the broadcast and reduce-to-all
# comparison (ECO against PVM's own calls, topology-unaware trees and
# Open MPI), print the table and tear everything down, also on Ctrl-C.
# Otherwise: the same on this one host, saying why.
# Output, tables and pictures go to demo-output/.
set -u
cd "$(dirname "$0")/.."
./scripts/setup.sh --demo || exit 1
top=$(pwd)
out=$top/demo-output
mkdir -p "$out"
tools=$top/daemon-tools
nb=$top/tests/netbed/netbed
export NETBED_PREFIX=demo-

emulated=yes
if [ "$(id -u)" -ne 0 ]; then
    emulated="no: not root (network namespaces need root)"
elif ! ip netns add demo-probe-ns 2>/dev/null; then
    emulated="no: network namespaces are not available here"
else
    ip netns delete demo-probe-ns
fi

if [ "$emulated" != yes ]; then
    echo "demo: running on this one host ($emulated)"
    . "$top/tests/private_vm.sh"
    trap private_vm_halt EXIT
    trap 'exit 130' INT TERM
    private_vm_start "$tools" "$top/examples" || exit 1
    export HOME="$PVM_TMP"
    "$tools/eco-characterize" -o "$out/subnets" --matrix "$out/matrix" || exit 1
    "$tools/eco-show" "$out/subnets"
    export ECO_SUBNET_FILE="$out/subnets"
    echo "== the examples, 6 tasks"
    timeout 120 "$top/examples/hello_bcast" 6 2>&1 | grep 'hello_bcast:'
    timeout 120 "$top/examples/md_loop" 6 2>&1 | grep 'md_loop:'
    echo "== broadcast comparison (6 tasks on one host: no network to exploit)"
    "$tools/eco-bench" --op bcast --tasks 6 --sizes 1000,16000,131072 --iters 11 | tee "$out/bcast.txt"
    echo "demo: done; files in $out"
    exit 0
fi

trap '"$nb" down >/dev/null 2>&1' EXIT
trap 'exit 130' INT TERM
topo=$top/tests/netbed/topologies/eco-paper.topo
echo "== 1. The ECO paper's network, emulated: $topo"
grep '^segment' "$topo"
"$nb" down >/dev/null 2>&1
"$nb" up "$topo" >/dev/null || exit 1
"$nb" pvm --ep "$tools:$top/examples" >/dev/null || exit 1
"$nb" status | sed 's/^/   /'

echo
echo "== 2. Characterizing it (pairwise round trips, one pair at a time; the 20% rule)"
"$nb" run h1 "$tools/eco-characterize" --quiet -o "$out/subnets" --matrix "$out/matrix" || exit 1
"$tools/eco-show" "$out/subnets"
"$nb" subnets "$topo" > "$out/true-subnets"
if "$tools/eco-show" --subnets "$out/subnets" | cmp -s - "$out/true-subnets"; then
    echo "-> the subnets found are exactly the true segments"
else
    echo "-> the subnets found differ from the true segments:"
    "$tools/eco-show" --subnets "$out/subnets"
fi

echo
echo "== 3. The broadcast tree from h1 (HOST PARENT)"
"$tools/eco-show" --tree h1 "$out/subnets"
if command -v dot >/dev/null 2>&1; then
    "$tools/eco-show" --tree h1 --svg "$out/tree.svg" "$out/subnets" &&
        "$tools/eco-show" --tree h1 --dot "$out/subnets" | dot -Tpng > "$out/tree.png" &&
        echo "-> picture: $out/tree.svg (and tree.png)"
fi

echo
echo "== 4. An application on it: the molecular-dynamics loop, 6 tasks"
"$nb" run h1 env ECO_SUBNET_FILE="$out/subnets" timeout 300 "$top/examples/md_loop" 6 16 10 2>&1 | grep 'md_loop:'

echo
echo "== 5. Broadcast and reduce-to-all: ECO against the alternatives"
patterns=eco,pvm,star,binary,chain
mpirun=""
if [ -x "$tools/eco-bench-mpi" ] && command -v mpirun >/dev/null; then
    "$nb" hosts "$topo" | sed 's/$/ slots=1/' > "$out/mpi.hosts"
    mpirun="mpirun --allow-run-as-root --mca mpi_yield_when_idle 1 --mca plm_rsh_agent /run/netbed/demo/pvm/rsh \
--mca btl tcp,self --mca btl_tcp_if_include eth0 --mca oob_tcp_if_include eth0 \
--hostfile $out/mpi.hosts -np 6"
    patterns=$patterns,openmpi
fi
for op in bcast allreduce; do
    "$nb" run h1 env ECO_SUBNET_FILE="$out/subnets" "$tools/eco-bench" --op $op \
        --sizes 1000,16000,131072 --iters 11 --patterns $patterns ${mpirun:+--mpirun "$mpirun"} \
        --topology "$topo" --plot "$out/$op.png" --csv-file "$out/$op.csv" 2>/dev/null |
        tee "$out/$op.txt"
done
echo
echo "demo: done; tearing the network down; files in $out"
