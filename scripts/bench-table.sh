#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# bench-table.sh -- the Markdown table of doc/benchmarks.md from the
# eco-bench tables that scripts/benchmarks.sh left in OUTDIR/OP.txt:
# per operation and size, the bound (eco-bench's link limit), eco's
# median and the algorithm it chose, the model's prediction, eco / bound,
# prediction / measurement, Open MPI's median and Open MPI / eco.
#
#   scripts/bench-table.sh OUTDIR [OPS]
# OPS: default every OP.txt in OUTDIR, in eco-bench's order.
set -eu
case ${1:-} in
    -h|--help)
        sed -n '3,9s/^# \{0,1\}//p' "$0"
        exit 0 ;;
    ''|-*)
        echo "Usage: $0 OUTDIR [OPS]" >&2
        exit 2 ;;
esac
out=$1
ops=${2:-"bcast reduce allreduce gather allgather scatter alltoall barrier scan"}
echo "| op | bytes | bound ms | eco ms (chose) | predicted ms | eco / bound | predicted / eco | Open MPI ms | Open MPI / eco |"
echo "|---|---:|---:|---|---:|---:|---:|---:|---:|"
for op in $ops; do
    [ -f "$out/$op.txt" ] || continue
    awk -v op="$op" '
        function r(x, d) { return x == "" ? "-" : sprintf("%.*f", d, x) }
        $1 == "bytes" {
            np = 0
            limit = $2 == "link-limit"
            for (i = limit ? 3 : 2; i <= NF; i++) col[++np] = $i
            next
        }
        /^#/ || NF == 0 { next }
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
            printf "| %s | %s | %s | %s (%s) | %s | %s | %s | %s | %s |\n", op, bytes,
                   r(bound, 3), r(eco, 3), chose, r(pred, 3),
                   (bound != "" && eco > 0) ? r(eco / bound, 2) : "-",
                   (pred != "" && eco > 0) ? r(pred / eco, 2) : "-",
                   r(mpi, 3), (mpi != "" && eco > 0) ? r(mpi / eco, 2) : "-"
        }' "$out/$op.txt"
done
