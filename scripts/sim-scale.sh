#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# sim-scale.sh -- doc/scale.md's table: eco-sim's completion time of a
# collective at SIZE bytes against the host count, for eco and a
# topology-unaware pattern, with each run's wall time and largest
# resident size.  Not part of make check (minutes to hours).
#
#   scripts/sim-scale.sh [OPS [HOSTS [PATTERNS [SIZE [TIMEOUT]]]]]
#   default: "bcast allreduce allgather" "10 100 1000 10000" "eco,binary" 16384 1800
#
# The networks: sites behind 1 Gbit/s links, segments behind 100 Mbit/s:
#   10 hosts: 1 site of 2 segments of 5;  100: 2 sites of 5 segments of 10;
#   1000: 10 sites of 10 segments of 10;  10000: 10 sites of 10 segments of 100.
# Prints one line per run: op hosts pattern seconds wall_s rss_mb messages,
# "-" where a run did not end within TIMEOUT seconds.
SIM=${ECO_SIM:-$(dirname "$0")/../daemon-tools/eco-sim}
OPS=${1:-bcast allreduce allgather}
HOSTS=${2:-10 100 1000 10000}
PATTERNS=${3:-eco,binary}
SIZE=${4:-16384}
LIMIT=${5:-1800}
work=$(mktemp -d "${TMPDIR:-/tmp}/sim-scale.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT

topology() {   # HOSTS -> a topology file
    case $1 in
    10) sites=1 segs=2 per=5 ;;
    100) sites=2 segs=5 per=10 ;;
    1000) sites=10 segs=10 per=10 ;;
    10000) sites=10 segs=10 per=100 ;;
    *) echo "sim-scale.sh: no network of $1 hosts" >&2; exit 1 ;;
    esac
    f=$work/$1.topo
    : >"$f"
    i=1
    while [ $i -le $sites ]; do
        echo "group g$i 1gbit" >>"$f"
        echo "segments g${i}s $segs 100mbit in g$i hosts $per" >>"$f"
        i=$((i + 1))
    done
    echo "$f"
}

echo "# op hosts pattern seconds wall_s rss_mb messages"
for n in $HOSTS; do
    topo=$(topology "$n") || exit 1
    for op in $OPS; do
        for p in $(echo "$PATTERNS" | tr , ' '); do
            timeout "$LIMIT" "$SIM" -t "$topo" -o "$op" -s "$SIZE" -p "$p" --csv \
                >"$work/out" 2>"$work/err"
            st=$?
            if [ $st -ne 0 ]; then
                echo "$op $n $p - - - - (exit $st)"
                continue
            fi
            secs=$(awk -F, 'NR == 2 { print $4 }' "$work/out")
            sed -n 's/.*, \([0-9]*\) messages, \([0-9.]*\) s wall, \([0-9]*\) MB max RSS/\2 \3 \1/p' \
                "$work/err" | { read -r wall rss msgs; echo "$op $n $p $secs $wall $rss $msgs"; }
        done
    done
done
