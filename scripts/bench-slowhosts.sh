#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# bench-slowhosts.sh -- fastest node first, measured (doc/benchmarks.md,
# "Slow hosts").  The slowhosts network of tests/netbed, with the hosts in
# the order o1 o2 f3 f4 f1 f2: rank 0 (the root) on o1, and in the fast
# segment the slow hosts f3 f4 hold the lowest ranks, so that a tree in
# rank order enters the segment through f3 and makes f3 forward.
#
# Two subnet files, the same subnets: the one eco-characterize wrote
# (its costs show f3 and f4 slow: fastest node first puts them last), and
# a copy whose costs inside the fast segment are all made equal (rank
# order).  eco-bench runs with each in turn, ROUNDS times, alternating;
# the table gives the median of each file's medians and their ratio.
#
#   scripts/bench-slowhosts.sh [OUTDIR]       (root; default bench-output/slowhosts)
# Environment: ECO_BENCH_SIZES (1000,16000,131072), ECO_BENCH_ITERS (11),
# ROUNDS (3), OPS ("bcast reduce scatter").
set -u
cd "$(dirname "$0")/.."
top=$(pwd)
out=${1:-bench-output/slowhosts}
sizes=${ECO_BENCH_SIZES:-1000,16000,131072}
iters=${ECO_BENCH_ITERS:-11}
rounds=${ROUNDS:-3}
ops=${OPS:-bcast reduce scatter}
export NETBED_PREFIX=${NETBED_PREFIX:-eb-}
nb="$top/tests/netbed/netbed"
tools=$top/daemon-tools

[ "$(id -u)" -eq 0 ] || { echo "bench-slowhosts: needs root (network namespaces)"; exit 77; }
[ -x "$tools/eco-bench" ] || { echo "bench-slowhosts: build first (scripts/setup.sh)"; exit 1; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
trap '"$nb" down >/dev/null 2>&1' EXIT
trap 'exit 130' INT TERM

cat >"$out/slowfirst.topo" <<'EOF'
# slowhosts.topo with the hosts in another order: o1 first (the root),
# the slow hosts f3 f4 before f1 f2.
segment other 10mbit o1 o2
segment fast 100mbit f3 f4 f1 f2
host f3 10mbit
host f4 10mbit
EOF
"$nb" down >/dev/null 2>&1
"$nb" up "$out/slowfirst.topo" || exit 1
"$nb" pvm --ep "$tools" >/dev/null || exit 1
echo "bench-slowhosts: characterizing"
"$nb" run o1 "$tools/eco-characterize" -q -o "$out/fnf.subnets" || exit 1
# The same file with every cost inside the fast segment set to f1-f2's.
same=$(awk '$1 == "cost" && $2 == "f1" && $3 == "f2" { print $4 }' "$out/fnf.subnets")
awk -v c="$same" '$1 == "cost" && $2 ~ /^f/ && $3 ~ /^f/ { $4 = c } { print }' \
    "$out/fnf.subnets" >"$out/rank.subnets"
"$tools/eco-show" --subnets "$out/fnf.subnets"
: >"$out/runs.csv"
for op in $ops; do
    r=1
    while [ "$r" -le "$rounds" ]; do
        for v in fnf rank; do
            echo "bench-slowhosts: $op, round $r, $v"
            "$nb" run o1 env ECO_SUBNET_FILE="$out/$v.subnets" "$tools/eco-bench" --op "$op" \
                --sizes "$sizes" --patterns eco --iters "$iters" --csv 2>/dev/null |
                awk -F, -v v="$v" 'NR > 1 && $3 == "eco" { print v "," $0 }' >>"$out/runs.csv" ||
                exit 1
        done
        r=$((r + 1))
    done
done
# variant,op,bytes,pattern,median,min -> the median of the medians
awk -F, '{ k = $2 "," $3; n[$1 "," k]++; v[$1 "," k, n[$1 "," k]] = $5; keys[k] = 1 }
    function med(key,   i, j, t, c, a) {
        c = n[key]
        for (i = 1; i <= c; i++) a[i] = v[key, i]
        for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++)
            if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
        return c % 2 ? a[(c + 1) / 2] : (a[c / 2] + a[c / 2 + 1]) / 2
    }
    END {
        printf "%-8s %8s %14s %14s %8s\n", "op", "bytes", "fastest-first", "rank order", "ratio"
        for (k in keys) {
            split(k, p, ",")
            f = med("fnf," k); r = med("rank," k)
            printf "%-8s %8d %11.2f ms %11.2f ms %7.2fx\n", p[1], p[2], f * 1e3, r * 1e3, r / f
        }
    }' "$out/runs.csv" | { IFS= read -r head; echo "$head"; sort -k1,1 -k2,2n; } | tee "$out/table.txt"
