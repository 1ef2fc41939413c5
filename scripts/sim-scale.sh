#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# sim-scale.sh -- doc/scale.md's table and plots: eco-sim's completion
# time of a collective at SIZE bytes against the host count, for eco and a
# topology-unaware pattern, with each run's wall time and largest
# resident size.  Not part of make check (about an hour on a busy
# 2-core machine, most of it the 10^8 messages of allgather's ring and
# alltoall at 10,000 hosts).
#
#   scripts/sim-scale.sh [OPS [HOSTS [PATTERNS [SIZE [TIMEOUT]]]]] > RESULTS
#   default: every operation, "10 100 1000 10000", "eco,binary", 16384, 3600
#   scripts/sim-scale.sh --table RESULTS
#     doc/scale.md's table (Markdown) from RESULTS
#   scripts/sim-scale.sh --plot RESULTS DIR
#     from RESULTS (the lines above, several runs concatenated: the last
#     line of an op, host count and pattern counts), gnuplot's SVG:
#     DIR/scale-time.svg, completion time against hosts for every op and
#     pattern, and DIR/scale-cost.svg, eco-sim's wall time and resident
#     size against hosts (eco's runs).
#
# The networks: sites behind 1 Gbit/s links, segments behind 100 Mbit/s:
#   10 hosts: 1 site of 2 segments of 5;  100: 2 sites of 5 segments of 10;
#   1000: 10 sites of 10 segments of 10;  10000: 10 sites of 10 segments of 100.
# Prints one line per run: op hosts pattern seconds wall_s rss_mb messages,
# "-" where a run did not end within TIMEOUT seconds.
ALL_OPS="bcast reduce allreduce gather allgather scatter alltoall barrier scan"

if [ "${1:-}" = --table ]; then
    # doc/scale.md's rows from RESULTS: eco's and binary's last runs
    [ $# -eq 2 ] || { echo "usage: sim-scale.sh --table RESULTS" >&2; exit 2; }
    awk -v ops="$ALL_OPS" '
        function t(x) {
            if (x < 1e-3) return sprintf("%.0f us", x * 1e6)
            if (x < 1) return sprintf("%.3g ms", x * 1e3)
            return x < 1000 ? sprintf("%.3g s", x) : sprintf("%.0f s", x)
        }
        function w(k) { return (k in wall) ? sprintf("%s s, %s MB", wall[k], rss[k]) : "" }
        !/^#/ && $4 != "-" { k = $1 " " $2 " " $3; sec[k] = $4; wall[k] = $5; rss[k] = $6
                             if ($3 == "eco") chose[$1 " " $2] = $8; seen[$2] = 1 }
        END {
            print "| op | hosts | eco | binary | binary / eco | eco chose | eco: wall, RSS | binary: wall, RSS |"
            print "|---|---:|---:|---:|---:|---|---:|---:|"
            n = split(ops, o, " ")
            for (i = 1; i <= n; i++)
                for (h = 10; h <= 10000; h *= 10) {
                    e = o[i] " " h " eco"; b = o[i] " " h " binary"
                    if (!(e in sec) && !(b in sec)) continue
                    r = ""
                    if ((e in sec) && (b in sec) && sec[e] > 0)
                        r = sprintf(sec[b] / sec[e] < 100 ? "%.2g" : "%.0f", sec[b] / sec[e])
                    printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", o[i],
                           (h >= 1000 ? sprintf("%d,000", h / 1000) : h),
                           (e in sec) ? t(sec[e]) : "not run", (b in sec) ? t(sec[b]) : "not run",
                           r, chose[o[i] " " h], w(e), w(b)
                }
        }' "$2"
    exit 0
fi

if [ "${1:-}" = --plot ]; then
    [ $# -eq 3 ] || { echo "usage: sim-scale.sh --plot RESULTS DIR" >&2; exit 2; }
    res=$2 dir=$3
    term=svg ext=svg
    [ -n "${SIM_SCALE_PNG:-}" ] && term=pngcairo ext=png   # to look at them
    command -v gnuplot >/dev/null || { echo "sim-scale.sh: no gnuplot" >&2; exit 1; }
    work=$(mktemp -d "${TMPDIR:-/tmp}/sim-plot.XXXXXX") || exit 1
    trap 'rm -rf "$work"' EXIT
    # the last run of each (op, hosts, pattern) that ended
    awk '!/^#/ && $4 != "-" { v[$1 " " $2 " " $3] = $0 } END { for (k in v) print v[k] }' \
        "$res" | sort -k1,1 -k3,3 -k2,2n >"$work/all"
    for op in $ALL_OPS; do
        for p in eco binary; do
            awk -v op=$op -v p=$p '$1 == op && $3 == p' "$work/all" >"$work/$op.$p"
        done
    done
    {
        echo "set terminal $term size 1050,900 font 'sans,11' background '#ffffff'"
        echo "set output '$dir/scale-time.$ext'"
        echo "set multiplot layout 3,3 title 'eco-sim: completion time against hosts (16 KiB per member, root 0)'"
        echo "set logscale xy; set grid; set key top left; set format y '%g'"
        echo "set xrange [7:14000]; set xtics ('10' 10, '100' 100, '1k' 1000, '10k' 10000)"
        for op in $ALL_OPS; do
            echo "set title '$op'; set ylabel 'seconds'"
            printf "plot '%s' using 2:4 with linespoints lw 2 pt 7 title 'eco', " "$work/$op.eco"
            printf "'%s' using 2:4 with linespoints lw 2 pt 5 dt 2 title 'binary'\n" "$work/$op.binary"
        done
        echo "unset multiplot"
        echo "set output '$dir/scale-cost.$ext'"
        echo "set terminal $term size 900,420 font 'sans,11' background '#ffffff'"
        echo "set multiplot layout 1,2 title \"eco-sim's own cost (eco's runs)\""
        echo "set key top left; set ylabel 'seconds'; set title 'wall time (under 10 ms: drawn at 1 ms)'"
        echo "set yrange [0.001:*]"
        first=1
        printf "plot "
        for op in $ALL_OPS; do
            [ $first = 1 ] || printf ", "
            printf "'%s' using 2:(\$5 > 0.001 ? \$5 : 0.001) with linespoints title '%s'" \
                "$work/$op.eco" "$op"
            first=0
        done
        echo
        echo "set ylabel 'MB'; set title 'largest resident size'; set yrange [1:*]; set key off"
        first=1
        printf "plot "
        for op in $ALL_OPS; do
            [ $first = 1 ] || printf ", "
            printf "'%s' using 2:6 with linespoints title '%s'" "$work/$op.eco" "$op"
            first=0
        done
        echo
        echo "unset multiplot"
    } >"$work/plot.gp"
    gnuplot "$work/plot.gp" || exit 1
    echo "$dir/scale-time.$ext $dir/scale-cost.$ext"
    exit 0
fi

SIM=${ECO_SIM:-$(dirname "$0")/../daemon-tools/eco-sim}
OPS=${1:-$ALL_OPS}
HOSTS=${2:-10 100 1000 10000}
PATTERNS=${3:-eco,binary}
SIZE=${4:-16384}
LIMIT=${5:-3600}
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

echo "# op hosts pattern seconds wall_s rss_mb messages chose"
for n in $HOSTS; do
    topo=$(topology "$n") || exit 1
    for op in $OPS; do
        for p in $(echo "$PATTERNS" | tr , ' '); do
            # the table, for eco's choice (the library's own, printed by eco-sim)
            timeout "$LIMIT" "$SIM" -t "$topo" -o "$op" -s "$SIZE" -p "$p" \
                >"$work/out" 2>"$work/err"
            st=$?
            if [ $st -ne 0 ]; then
                echo "$op $n $p - - - - (exit $st)"
                continue
            fi
            # the median (ms) is before the first "(minimum)"; eco's choice after it
            set -- $(awk -v s="$SIZE" '$1 == s { for (i = 2; i <= NF; i++) if ($i ~ /^\(/) {
                         print $(i - 1) / 1e3, (i < NF ? $(i + 1) : "-"); exit } }' "$work/out")
            secs=${1:--} chose=${2:--}
            sed -n 's/.*, \([0-9]*\) messages, \([0-9.]*\) s wall, \([0-9]*\) MB max RSS/\2 \3 \1/p' \
                "$work/err" | { read -r wall rss msgs; echo "$op $n $p $secs $wall $rss $msgs $chose"; }
        done
    done
done
