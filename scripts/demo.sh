#!/bin/sh
# demo.sh -- the main job: set everything up, then show ECO at work.
#  1. a measured campus network: partition it into subnets (the 20% rule),
#     show the subnets, a broadcast tree and its picture;
#  2. the collectives on a real PVM virtual machine: the examples.
# Output and pictures go to demo-output/.
set -u
cd "$(dirname "$0")/.."
./scripts/setup.sh --demo || exit 1
top=$(pwd)
out=$top/demo-output
mkdir -p "$out"
bin=$top/daemon-tools

echo
echo "== 1. Partitioning a measured network (examples/campus.matrix)"
"$bin/eco-partition" examples/campus.matrix -o "$out/campus.subnets" || exit 1
"$bin/eco-show" "$out/campus.subnets" || exit 1
echo
echo "-- the broadcast tree from cs-alpha1 (HOST PARENT):"
"$bin/eco-show" --tree cs-alpha1 "$out/campus.subnets" || exit 1
if command -v dot >/dev/null 2>&1; then
    "$bin/eco-show" --tree cs-alpha1 --dot "$out/campus.subnets" | dot -Tsvg > "$out/campus-tree.svg" &&
        "$bin/eco-show" --tree cs-alpha1 --dot "$out/campus.subnets" | dot -Tpng > "$out/campus-tree.png" &&
        echo "-- picture: $out/campus-tree.svg (and .png)"
fi

echo
echo "== 2. The collectives on a real PVM virtual machine (this host)"
. "$top/tests/private_vm.sh"
trap private_vm_halt EXIT
trap 'exit 130' INT TERM
private_vm_start "$top/examples" || exit 1
export HOME="$PVM_TMP"      # no per-user subnet file: one host, one subnet
export ECO_SUBNET_FILE=
echo "-- hello_bcast, 6 tasks:"
timeout 120 examples/hello_bcast 6 2>&1 | grep -v -e BEGIN -e EOF -e 'still running'
echo "-- md_loop (reduce-to-all and gather-to-all every step), 6 tasks:"
timeout 120 examples/md_loop 6 2>&1 | grep md_loop
echo "-- ring exchange along eco_ring's order, 6 tasks:"
timeout 120 examples/ring 6 2>&1 | grep -e 'ring order' -e token
echo
echo "demo: done; files in $out"
