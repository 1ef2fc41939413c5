#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# bench-table.sh -- the Markdown table of doc/benchmarks.md from the
# eco-bench tables that scripts/benchmarks.sh left in OUTDIR/OP.txt:
# per operation and size, the bound (eco-bench's link limit), eco's
# median and the algorithm it chose, the model's prediction, eco / bound,
# prediction / measurement, Open MPI's median and Open MPI / eco.
#
#   scripts/bench-table.sh OUTDIR [OPS]
#   scripts/bench-table.sh --sim TOPOLOGY OUTDIR [OPS]
# OPS: default every OP.txt in OUTDIR, in eco-bench's order.  With --sim,
# the same sizes run in eco-sim(1) on TOPOLOGY (the run's topology) with
# the run's subnet file OUTDIR/subnets, and the table sets the measured
# median beside the simulated one and the model's prediction, with their
# ratios (the accuracy table of doc/scale.md); OUTDIR/OP.sim keeps
# eco-sim's output.  eco-sim times the acknowledgements as eco-bench does
# (--acks) and takes netbed's hosts to share this machine's cores
# (--cores, ECO_SIM_CORES: default nproc).  ECO_SIM_OPTS: more options
# for eco-sim (e.g. "--burst netbed --mtu 0").
set -eu
sim=""
case ${1:-} in
    -h|--help)
        sed -n '3,20s/^# \{0,1\}//p' "$0"
        exit 0 ;;
    --sim)
        [ $# -ge 3 ] || { echo "Usage: $0 --sim TOPOLOGY OUTDIR [OPS]" >&2; exit 2; }
        sim=$2
        shift 2 ;;
    ''|-*)
        echo "Usage: $0 [--sim TOPOLOGY] OUTDIR [OPS]" >&2
        exit 2 ;;
esac
out=$1
ops=${2:-"bcast reduce allreduce gather allgather scatter alltoall barrier scan"}
tools=$(cd "$(dirname "$0")/.." && pwd)/daemon-tools

# One record per size of an eco-bench or eco-sim table:
# "bytes bound eco chose predicted openmpi", "-" where absent.
rows() {
    awk '
        function v(x) { return x == "" ? "-" : x }
        $1 == "bytes" {
            np = 0
            limit = $2 == "link-limit"
            for (i = limit ? 3 : 2; i <= NF; i++) col[++np] = $i
            next
        }
        /^#/ || NF == 0 || $1 !~ /^[0-9]+$/ { next }
        {
            bytes = $1; bound = (!limit || $2 == "-") ? "" : $2
            eco = ""; mpi = ""; chose = "-"; pred = ""
            k = limit ? 3 : 2
            for (c = 1; c <= np && k <= NF; c++) {
                name = col[c]
                if (name == "eco-chose") { chose = $k; k++; continue }
                if (name == "predicted") { pred = ($k == "-") ? "" : $k; k++; continue }
                if ($k == "-") { k++; continue }
                med = $k; k++
                if (k <= NF && $k ~ /^\(/) k++
                if (k <= NF && $k ~ /^x[0-9.]+$/) k++
                if (name == "eco") eco = med
                if (name == "openmpi") mpi = med
            }
            print bytes, v(bound), v(eco), chose, v(pred), v(mpi)
        }' "$1"
}

# A number to d places and a ratio, "-" where absent: both tables' cells.
fmt='function r(x, d) { return x == "-" ? "-" : sprintf("%.*f", d, x) }
function q(a, b) { return (a != "-" && b != "-" && b > 0) ? sprintf("%.2f", a / b) : "-" }'

if [ -z "$sim" ]; then
    echo "| op | bytes | bound ms | eco ms (chose) | predicted ms | eco / bound | predicted / eco | Open MPI ms | Open MPI / eco |"
    echo "|---|---:|---:|---|---:|---:|---:|---:|---:|"
else
    [ -x "$tools/eco-sim" ] || { echo "bench-table: build eco-sim first" >&2; exit 1; }
    [ -f "$out/subnets" ] || { echo "bench-table: $out/subnets: no subnet file" >&2; exit 1; }
    cores=${ECO_SIM_CORES:-$(nproc 2>/dev/null || echo 0)}
    echo "| op | bytes | bound ms | measured ms (chose) | simulated ms (chose) | simulated / measured | predicted ms | predicted / measured |"
    echo "|---|---:|---:|---|---|---:|---:|---:|"
fi
for op in $ops; do
    [ -f "$out/$op.txt" ] || continue
    if [ -z "$sim" ]; then
        rows "$out/$op.txt" | awk -v op="$op" "$fmt"'
            { printf "| %s | %s | %s | %s (%s) | %s | %s | %s | %s | %s |\n", op, $1,
                     r($2, 3), r($3, 3), $4, r($5, 3), q($3, $2), q($5, $3), r($6, 3), q($6, $3) }'
        continue
    fi
    sizes=$(rows "$out/$op.txt" | awk '{ printf "%s%s", (NR > 1 ? "," : ""), $1 }')
    [ -n "$sizes" ] || continue
    "$tools/eco-sim" --topology "$sim" --subnets "$out/subnets" --op "$op" --sizes "$sizes" \
        --patterns eco --acks --cores "$cores" ${ECO_SIM_OPTS:-} \
        > "$out/$op.sim" 2> "$out/$op.sim.err" ||
        { echo "bench-table: eco-sim failed for $op (see $out/$op.sim.err)" >&2; exit 1; }
    rows "$out/$op.sim" > "$out/$op.sim.rows"
    rows "$out/$op.txt" | awk -v op="$op" -v simrows="$out/$op.sim.rows" "$fmt"'
        BEGIN { while ((getline line < simrows) > 0) { split(line, f, " "); s[f[1]] = f[3]; sc[f[1]] = f[4] } }
        { printf "| %s | %s | %s | %s (%s) | %s (%s) | %s | %s | %s |\n", op, $1, r($2, 3),
                 r($3, 3), $4, r(s[$1] == "" ? "-" : s[$1], 3), sc[$1] == "" ? "-" : sc[$1],
                 q(s[$1] == "" ? "-" : s[$1], $3), r($5, 3), q($5, $3) }'
    rm -f "$out/$op.sim.rows"
done
