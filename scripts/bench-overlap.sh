#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# bench-overlap.sh -- how much of a nonblocking reduce-to-all a computation
# hides (examples/overlap.c), on an emulated network: bring it up, start
# PVM over it, characterize it, run the example with one task per host,
# tear everything down (also on Ctrl-C).  Needs root.  Not part of
# `make check`; the documented run is in doc/benchmarks.md.
#
#   scripts/bench-overlap.sh [TOPOLOGY] [OUTDIR] [SIZES]
# defaults: tests/netbed/topologies/eco-paper.topo, bench-output/overlap-NAME,
# "16000 131072".  $ECO_BENCH_ITERS: iterations (default 11).
set -u
cd "$(dirname "$0")/.."
top=$(pwd)
topo=${1:-tests/netbed/topologies/eco-paper.topo}
name=$(basename "$topo" .topo)
out=${2:-bench-output/overlap-$name}
sizes=${3:-16000 131072}
iters=${ECO_BENCH_ITERS:-11}
export NETBED_PREFIX=${NETBED_PREFIX:-ov-}
nb="$top/tests/netbed/netbed"

[ "$(id -u)" -eq 0 ] || { echo "bench-overlap: needs root (network namespaces)"; exit 77; }
[ -x "$top/examples/overlap" ] || { echo "bench-overlap: build first (scripts/setup.sh)"; exit 1; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
trap '"$nb" down >/dev/null 2>&1' EXIT
trap 'exit 130' INT TERM

"$nb" down >/dev/null 2>&1
"$nb" up "$topo" || exit 1
"$nb" pvm --ep "$top/examples:$top/daemon-tools" >/dev/null || exit 1
hosts=$("$nb" hosts "$topo")
first=$(echo "$hosts" | head -n 1)
n=$(echo "$hosts" | wc -l)

echo "== characterizing $name ($n hosts)"
"$nb" run "$first" "$top/daemon-tools/eco-characterize" --quiet -o "$out/subnets" || exit 1
for bytes in $sizes; do
    for mode in sleep spin; do
        "$nb" run "$first" env ECO_SUBNET_FILE="$out/subnets" "$top/examples/overlap" \
            "$n" "$bytes" "$iters" "$mode" 2>"$out/overlap-$bytes-$mode.err" |
            grep '^overlap:' | tee -a "$out/overlap.txt"
    done
done
echo "bench-overlap: results in $out/overlap.txt"
