/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * eco-bench -- completion time of collective operations under several
 * communication patterns, in one run over the same tasks and buffers
 * (in the style of the OSU micro-benchmarks).
 *
 * Patterns: eco (ECO's trees), pvm (PVM's own group calls), and the
 * topology-unaware trees star, binary, kary3, chain (eco_set_pattern: the
 * same library code walking another tree), taking turns iteration by
 * iteration.  Time of one iteration: from a start agreed by all members
 * (the root sends a time a little ahead after the barrier between
 * iterations; each member's clock compared with the root's before each
 * size; eco-bench-mpi times Open MPI the same way) to the moment the
 * root holds an acknowledgement from every other member that it is done;
 * warm-up iterations are not counted.  --start=barrier times from the
 * root's release from the barrier instead, as before 2026-11-27: the
 * members the barrier let go earlier may have sent by then (a short
 * gather measured the barrier's order).
 *
 * Output: a table (milliseconds), CSV (--csv) or JSON (--json) on
 * standard output; --usec gives microseconds in the OSU micro-benchmarks'
 * manner (a "# Size ..." header, then plain numeric columns).
 * Exit status: 0 success, 1 a collective failed, 2 usage, 3 cannot start
 * (no virtual machine, tasks not spawned, eco-bench-mpi not found),
 * 4 cannot write --csv-file.
 */
#include "config.h"
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <pvm3.h>
#include "eco.h"
#include "eco_char.h"   /* ecoc_number, ecoc_parse_list */
#include "eco_coll.h"   /* the algorithm eco chose (lib/select.c) */
#include "eco_topo.h"   /* the link limit */
#include "bench_clock.h" /* now, sleep_until, clock_ping, start_at */

#define TAG_SETUP 0x7e01
#define TAG_ACK 0x7e02
#define TAG_PVMB 0x7e03
#define TAG_DONE 0x7e04
#define TAG_CLOCK 0x7e05
#define TAG_START 0x7e06
#define TAG_PING 0x7e07
#define TAG_PONG 0x7e08
/* What run_pvm and run_eco return when the pattern has no such
 * operation (PVM's own errors are small negative numbers). */
#define NO_OP (-100000)
#define PROG "eco-bench"
#define GROUP PROG
#define MAXP 8
#define MAXS 64

static const char *op_names[] = { "bcast", "reduce", "allreduce", "gather", "allgather",
                                  "scatter", "alltoall", "barrier", "scan", "pingpong" };
enum { OP_BCAST, OP_REDUCE, OP_ALLREDUCE, OP_GATHER, OP_ALLGATHER, OP_SCATTER,
       OP_ALLTOALL, OP_BARRIER, OP_SCAN, OP_PINGPONG, NOPS };
/* The collective of each operation, as the selection knows it. */
static const int op_coll[NOPS] = {
    [OP_BCAST] = ECOI_C_BCAST, [OP_REDUCE] = ECOI_C_REDUCE,
    [OP_ALLREDUCE] = ECOI_C_ALLREDUCE, [OP_GATHER] = ECOI_C_GATHER,
    [OP_ALLGATHER] = ECOI_C_ALLGATHER, [OP_SCATTER] = ECOI_C_SCATTER,
    [OP_ALLTOALL] = ECOI_C_ALLTOALL, [OP_BARRIER] = ECOI_C_BARRIER, [OP_SCAN] = ECOI_C_SCAN,
    [OP_PINGPONG] = -1,      /* no collective: PVM's own messages (pvm_pingpong) */
};
static const char *pattern_names[] = { "eco", "pvm", "star", "binary", "kary3", "chain",
                                       "openmpi" };
#define NPATTERNS 7
#define PAT_OPENMPI 6

enum { START_BARRIER = 0, START_AGREED = 1 };

typedef struct setup {
    int op, root, iters, warmup, nsizes, npat;
    int sizes[MAXS];
    int pat[MAXP];
    int start;               /* START_AGREED (the default) or START_BARRIER */
} setup;

typedef struct bench {
    setup s;
    int n, me, *tids;
    int pvm_root_inst;
    double t_done;           /* pingpong: when the root's last pong came */
    eco_ctx *ctx;
    char *a, *b;             /* send and receive buffers */
    size_t cap;
    double offset;           /* this member's clock less the root's (clock_sync) */
    double lead;             /* at the root: the agreed start's lead */
    long late, starts;       /* at the root: members that got the start late, of all
                              * (timed iterations: not the warm-up's) */
} bench;

static void usage(FILE *f)
{
    fprintf(f,
        "Usage: " PROG " [OPTION]...\n"
        "Time one collective operation under ECO's trees, PVM's own calls,\n"
        "topology-unaware trees and Open MPI, in one run inside a running PVM\n"
        "virtual machine; spawns one task per host (or --tasks N).\n"
        "\n"
        "  -o, --op=OP          bcast reduce allreduce gather allgather scatter\n"
        "                       alltoall barrier scan (default bcast); pingpong: the\n"
        "                       root's round trip with each member in turn, PVM's\n"
        "                       messages (pattern pvm) against MPI's (openmpi)\n"
        "  -s, --sizes=LIST     message sizes in bytes per member, comma separated\n"
        "                       (default 1000,16000,262144)\n"
        "  -p, --patterns=LIST  eco pvm star binary kary3 chain openmpi (default: all\n"
        "                       but openmpi)\n"
        "  -r, --root=R         root rank (default 0, this task)\n"
        "  -i, --iters=N        timed iterations per size and pattern (default 30)\n"
        "  -w, --warmup=N       untimed iterations first (default 3)\n"
        "  -n, --tasks=N        tasks in all, spread over the hosts (default: one per\n"
        "                       host)\n"
        "  -c, --csv            print CSV instead of the table: a header line, then\n"
        "                       op,bytes,pattern,median_seconds,min_seconds rows\n"
        "  -j, --json           print JSON instead of the table\n"
        "  -u, --usec           times in microseconds: the table in the OSU\n"
        "                       micro-benchmarks' manner (\"# Size\" header, then\n"
        "                       numeric columns), CSV median_us,min_us, JSON \"us\"\n"
        "      --csv-file=FILE  also write the CSV rows to FILE\n"
        "  -t, --topology=FILE  netbed topology: give the link limit of each size\n"
        "      --plot=FILE      plot time against size with gnuplot (.png or .svg)\n"
        "      --start=HOW      agreed (default): every member begins at a time the\n"
        "                       root sends after the barrier, clocks compared;\n"
        "                       barrier: each member begins when the barrier lets it\n"
        "                       go, timed from the root's release\n"
        "      --mpirun=CMD     how to start eco-bench-mpi for the openmpi pattern\n"
        "                       (default: mpirun --allow-run-as-root --oversubscribe\n"
        "                       --mca mpi_yield_when_idle 1 -np N)\n"
        "  -h, --help           show this help and exit\n"
        "  -V, --version        show the version and exit\n"
        "\n"
        "The subnet file is found as eco_init(3) finds it ($ECO_SUBNET_FILE,\n"
        "~/.eco/subnets).  The run's tasks and root go to standard error with --csv\n"
        "and --json.\n"
        "Exit status: 0 success, 1 a collective failed, 2 usage, 3 cannot start\n"
        "(no virtual machine, tasks not spawned, no eco-bench-mpi), 4 cannot write\n"
        "--csv-file.  See eco-bench(1).\n");
}

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, PROG ": ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry '" PROG " --help' for more information.\n");
    return 2;
}

/* ------------------------------------------------------------------ */
/* One operation under one pattern                                     */
/* ------------------------------------------------------------------ */

static int elem_type(int op)
{
    return (op == OP_REDUCE || op == OP_ALLREDUCE || op == OP_SCAN) ? PVM_DOUBLE : PVM_BYTE;
}

/* The root's buf to every member with pvm_bcast (one-sided in PVM). */
static int pvm_fanout(bench *B, char *buf, int count, int dt)
{
    int rc;

    if (B->me == B->s.root) {
        pvm_initsend(PvmDataRaw);
        rc = dt == PVM_DOUBLE ? pvm_pkdouble((double *)buf, count, 1) : pvm_pkbyte(buf, count, 1);
        return rc < 0 ? rc : pvm_bcast(GROUP, TAG_PVMB + 1);
    }
    rc = pvm_recv(B->tids[B->s.root], TAG_PVMB + 1);
    if (rc < 0)
        return rc;
    return dt == PVM_DOUBLE ? pvm_upkdouble((double *)buf, count, 1) : pvm_upkbyte(buf, count, 1);
}

/* One round trip between the root and member r, in PVM's raw encoding:
 * the root sends r `count` bytes of B->a (tag ping), r takes them into
 * B->b and answers (tag pong) with them, or with its clock when `clock`
 * is given (clock_sync: the ping carries nothing then), which the root
 * unpacks into *clock.  The root and r call it; < 0 on a PVM error. */
static int round_trip(bench *B, int r, int ping, int pong, int count, double *clock)
{
    const int root_tid = B->tids[B->s.root];
    double t;
    int rc = 0;

    if (B->me == B->s.root) {
        pvm_initsend(PvmDataRaw);
        if (!clock && (rc = pvm_pkbyte(B->a, count, 1)) < 0)
            return rc;
        if ((rc = pvm_send(B->tids[r], ping)) < 0 || (rc = pvm_recv(B->tids[r], pong)) < 0)
            return rc;
        return clock ? pvm_upkdouble(clock, 1, 1) : pvm_upkbyte(B->b, count, 1);
    }
    if ((rc = pvm_recv(root_tid, ping)) < 0 ||
        (!clock && (rc = pvm_upkbyte(B->b, count, 1)) < 0))
        return rc;
    t = clock ? now() : 0.0;
    pvm_initsend(PvmDataRaw);
    rc = clock ? pvm_pkdouble(&t, 1, 1) : pvm_pkbyte(B->b, count, 1);
    return rc < 0 ? rc : pvm_send(root_tid, pong);
}

/* The root's round trip with every other member in turn, `count` bytes
 * each way in PVM's raw encoding on the route eco_init set (direct): the
 * per-message floor under every PVM-based pattern.  The root's clock
 * stops at its last pong (B->t_done). */
static int pvm_pingpong(bench *B, int count)
{
    int rc = 0;

    for (int r = 0; r < B->n && rc >= 0; r++)
        if (r != B->s.root && (B->me == B->s.root || B->me == r))
            rc = round_trip(B, r, TAG_PING, TAG_PONG, count, NULL);
    B->t_done = now();
    return rc;
}

/* PVM's own group calls; NO_OP when PVM has none for the op. */
static int run_pvm(bench *B, int op, int count)
{
    int dt = elem_type(op), rc, ri = B->pvm_root_inst;

    switch (op) {
    case OP_PINGPONG:
        if (B->n < 2)
            return NO_OP;
        rc = pvm_pingpong(B, count);
        break;
    case OP_BCAST:
        rc = pvm_fanout(B, B->a, count, dt);
        break;
    case OP_ALLREDUCE:
        rc = pvm_reduce(PvmSum, B->a, count, dt, TAG_PVMB, GROUP, ri);
        if (rc >= 0)
            rc = pvm_fanout(B, B->a, count, dt);
        break;
    case OP_ALLGATHER:
        rc = pvm_gather(B->b, B->a, count, dt, TAG_PVMB, GROUP, ri);
        if (rc >= 0)
            rc = pvm_fanout(B, B->b, count * B->n, dt);
        break;
    case OP_REDUCE:
        rc = pvm_reduce(PvmSum, B->a, count, dt, TAG_PVMB, GROUP, ri);
        break;
    case OP_GATHER:
        rc = pvm_gather(B->b, B->a, count, dt, TAG_PVMB, GROUP, ri);
        break;
    case OP_SCATTER:
        rc = pvm_scatter(B->a, B->b, count, dt, TAG_PVMB, GROUP, ri);
        break;
    case OP_BARRIER:
        rc = pvm_barrier(GROUP, B->n);
        break;
    default:
        return NO_OP;
    }
    return rc < 0 ? rc : 0;
}

static int run_eco(bench *B, int op, int count)
{
    int dt = elem_type(op), r = B->s.root;

    switch (op) {
    case OP_BCAST:     return eco_bcast(B->ctx, B->a, count, dt, r);
    case OP_REDUCE:    return eco_reduce(B->ctx, B->a, B->b, count, dt, ECO_SUM, r);
    case OP_ALLREDUCE: return eco_reduce(B->ctx, B->a, B->b, count, dt, ECO_SUM, ECO_ALL);
    case OP_GATHER:    return eco_gather(B->ctx, B->a, B->b, count, dt, r);
    case OP_ALLGATHER: return eco_gather(B->ctx, B->a, B->b, count, dt, ECO_ALL);
    case OP_SCATTER:   return eco_scatter(B->ctx, B->b, B->a, count, dt, r);
    case OP_ALLTOALL:  return eco_alltoall(B->ctx, B->b, B->a, count, dt);
    case OP_BARRIER:   return eco_barrier(B->ctx);
    case OP_PINGPONG:  return NO_OP;  /* not a collective: pattern pvm only */
    default:           return eco_scan(B->ctx, B->a, B->b, count, dt, ECO_SUM);
    }
}

/* ------------------------------------------------------------------ */
/* A common start                                                      */
/* ------------------------------------------------------------------ */

/* Each member's clock against the root's (Cristian's way): the root
 * sends CLOCK_PINGS messages to each member in turn, the member answers
 * each with its clock; of the round trip t1..t2 the shortest gives
 * offset = member's clock - (t1 + t2) / 2.  The member is told its
 * offset; the root keeps the lead of the agreed start (START_LEAD and
 * the members' slowest shortest round trip each).  0, or -1. */
static int clock_sync(bench *B)
{
    const int root = B->s.root;
    double rtt_sum = 0.0;

    for (int j = 0; j < B->n; j++) {
        clock_ping p;
        double t;
        if (j == root)
            continue;
        clock_ping_begin(&p);
        for (int k = 0; k < CLOCK_PINGS && (B->me == root || B->me == j); k++) {
            double t1 = now();
            if (round_trip(B, j, TAG_CLOCK, TAG_CLOCK, 0, &t) < 0)
                return -1;
            clock_ping_note(&p, t1, t, now());
        }
        if (B->me == root) {
            rtt_sum += p.best;
            pvm_initsend(PvmDataRaw);
            pvm_pkdouble(&p.offset, 1, 1);
            if (pvm_send(B->tids[j], TAG_CLOCK) < 0)
                return -1;
        } else if (B->me == j &&
                   (pvm_recv(B->tids[root], TAG_CLOCK) < 0 || pvm_upkdouble(&B->offset, 1, 1) < 0))
            return -1;
    }
    B->lead = START_LEAD + rtt_sum;
    return 0;
}

/* After the barrier: the start every member begins the operation at.
 * The root picks a time B->lead ahead on its clock and sends it to
 * every member; each waits until its clock reads it (less its offset),
 * or begins at once when it came late (counted by the root).  The
 * root's time of the start: the iteration's t0.  < 0 on error. */
static double agreed_start(bench *B)
{
    const int root = B->s.root;
    double at;

    if (B->me == root) {
        at = now() + B->lead;
        pvm_initsend(PvmDataRaw);
        pvm_pkdouble(&at, 1, 1);
        for (int j = 0; j < B->n; j++)
            if (j != root && pvm_send(B->tids[j], TAG_START) < 0)
                return -1;
        sleep_until(at);
        return at;
    }
    if (pvm_recv(B->tids[root], TAG_START) < 0 || pvm_upkdouble(&at, 1, 1) < 0)
        return -1;
    /* late: 1, which the root counts from the acknowledgement */
    return start_at(at + B->offset) ? 1.0 : 0.0;
}

/* One iteration; at the root returns seconds, elsewhere 0; < 0 on error.
 * timed: not a warm-up's, whose late starts the root counts. */
static double iteration(bench *B, int pattern, int op, int count, int timed)
{
    double t0 = 0, st = 0;
    int rc, late;

    if ((rc = eco_barrier(B->ctx)) != 0) {
        fprintf(stderr, "eco-bench: rank %d: barrier failed: %s\n", B->me, eco_strerror(rc));
        return -1;
    }
    if (B->s.start == START_AGREED && (st = agreed_start(B)) < 0) {
        fprintf(stderr, "eco-bench: rank %d: the agreed start failed\n", B->me);
        return -1;
    }
    late = B->me != B->s.root && st > 0.0;
    if (B->me == B->s.root)
        /* pingpong: one pair at a time, nothing to agree on */
        t0 = B->s.start == START_AGREED && op != OP_PINGPONG ? st : now();
    rc = pattern == 1 ? run_pvm(B, op, count) : run_eco(B, op, count);
    if (rc == NO_OP)    /* every member alike: the pattern has no such op */
        return -2;
    if (rc < 0) {
        fprintf(stderr, "eco-bench: rank %d: %s (%s, %d elements) failed: %s\n", B->me,
                op_names[op], pattern_names[pattern], count,
                pattern == 1 ? "PVM error" : eco_strerror(rc));
        return -1;
    }
    if (B->me != B->s.root) {
        pvm_initsend(PvmDataRaw);
        pvm_pkint(&late, 1, 1);
        return pvm_send(B->tids[B->s.root], TAG_ACK) < 0 ? -1 : 0;
    }
    /* A member that failed sends no acknowledgement: do not wait for ever. */
    for (int i = 1; i < B->n; i++) {
        struct timeval tv = { 600, 0 };
        if (pvm_trecv(-1, TAG_ACK, &tv) <= 0) {
            fprintf(stderr, "eco-bench: no acknowledgement from %d member(s) within 600 s\n",
                    B->n - i);
            return -1;
        }
        late = pvm_upkint(&late, 1, 1) >= 0 && late;
        if (timed) {
            B->late += late;
            B->starts += B->s.start == START_AGREED;
        }
    }
    /* pingpong: one round trip, on average over the members */
    return op == OP_PINGPONG ? (B->t_done - t0) / (B->n - 1) : now() - t0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* ------------------------------------------------------------------ */
/* Results                                                             */
/* ------------------------------------------------------------------ */

typedef struct result {
    double median[MAXS][MAXP], min[MAXS][MAXP];
    const char *alg[MAXS];   /* what eco ran (lib/select.c), NULL: not run */
    double predicted[MAXS];  /* and its predicted time, seconds */
} result;

/* The algorithm the eco pattern chose for size i, and its prediction:
 * the library's own choice, kept in the context (no communication). */
static void eco_choice(bench *B, int i, int count, result *res)
{
    const setup *s = &B->s;
    int op = s->op, rooted = op == OP_BCAST || op == OP_REDUCE || op == OP_GATHER ||
                             op == OP_SCATTER;
    size_t bytes = op == OP_BARRIER ? 0 : (size_t)count * (elem_type(op) == PVM_DOUBLE ? 8 : 1);
    ecoi_plan plan;

    eco_set_pattern(B->ctx, "eco");
    if (ecoi_select(B->ctx, op_coll[op], rooted ? s->root : 0, bytes, &plan) == ECO_OK) {
        res->alg[i] = ecoi_algorithm_at(plan.algorithm)->name;
        res->predicted[i] = plan.seconds;
    }
}

static int bytes_of(const setup *s, int i)
{
    int sz = elem_type(s->op) == PVM_DOUBLE ? 8 : 1;
    return (s->sizes[i] / sz) * sz;
}

/* Measure every size under every pattern; the root fills res.  The
 * patterns take turns iteration by iteration, so that a drift of the
 * machine over the run (other load, warming up) favours none of them. */
static int measure(bench *B, result *res)
{
    const setup *s = &B->s;
    double *t = malloc((size_t)(s->iters + 1) * MAXP * sizeof *t);

    if (!t)
        return -1;
    for (int i = 0; i < s->nsizes; i++) {
        int esz = elem_type(s->op) == PVM_DOUBLE ? 8 : 1, count = s->sizes[i] / esz;
        char skip[MAXP] = { 0 };
        /* the clocks compared again for each size: a drift of theirs
         * lasts one size at the most */
        if (s->start == START_AGREED && clock_sync(B) != 0) {
            fprintf(stderr, PROG ": rank %d: comparing the clocks failed\n", B->me);
            free(t);
            return -1;
        }
        for (int k = 0; k < s->warmup + s->iters; k++)
            for (int p = 0; p < s->npat; p++) {
                int pat = s->pat[p];
                double r;
                if (pat == PAT_OPENMPI || skip[p])   /* openmpi: eco-bench-mpi */
                    continue;
                eco_set_pattern(B->ctx, pat == 1 ? "eco" : pattern_names[pat]);
                r = iteration(B, pat, s->op, count, k >= s->warmup);
                if (r == -2) {
                    skip[p] = 1;
                    continue;
                }
                if (r < 0) {
                    free(t);
                    return -1;
                }
                if (k >= s->warmup)
                    t[p * (s->iters + 1) + (k - s->warmup)] = r;
            }
        for (int p = 0; p < s->npat; p++)
            if (s->pat[p] == 0 && !skip[p])
                eco_choice(B, i, count, res);
        for (int p = 0; p < s->npat; p++) {
            double *tp = t + p * (s->iters + 1);
            if (s->pat[p] == PAT_OPENMPI || skip[p]) {
                res->median[i][p] = res->min[i][p] = NAN;
                continue;
            }
            qsort(tp, (size_t)s->iters, sizeof *tp, cmp_double);
            res->median[i][p] = s->iters % 2 ? tp[s->iters / 2]
                                             : (tp[s->iters / 2 - 1] + tp[s->iters / 2]) / 2;
            res->min[i][p] = tp[0];
        }
    }
    eco_set_pattern(B->ctx, "eco");
    free(t);
    if (B->late > 0)   /* those iterations started later than agreed */
        fprintf(stderr, PROG ": %ld of %ld agreed starts reached their member late (it "
                "started when the start came)\n", B->late, B->starts);
    return 0;
}

/* The column of pattern eco, or -1 when it was not asked for or ran at
 * no size (pingpong: it has no such operation). */
static int eco_column(const setup *s, const result *res)
{
    int eco = -1;

    for (int p = 0; p < s->npat; p++)
        if (s->pat[p] == 0)
            eco = p;
    for (int i = 0; eco >= 0 && i < s->nsizes; i++)
        if (!isnan(res->median[i][eco]))
            return eco;
    return -1;
}

static void print_table(const setup *s, const result *res, const double *limit)
{
    const int eco = eco_column(s, res);

    printf("# %s: completion time, median (minimum) in ms over %d iterations from %s",
           op_names[s->op], s->iters,
           s->start == START_AGREED ? "an agreed start" : "the barrier's release");
    printf("%s\n", eco >= 0 ? "; xN = times eco's median" : "");
    printf("%10s", "bytes");
    if (limit)
        printf(" %10s", "link-limit");
    for (int p = 0; p < s->npat; p++)
        printf(" %24s", pattern_names[s->pat[p]]);
    if (eco >= 0)
        printf("  %-12s %9s", "eco-chose", "predicted");
    printf("\n");
    for (int i = 0; i < s->nsizes; i++) {
        printf("%10d", bytes_of(s, i));
        if (limit)
            printf(" %10.3f", limit[i] * 1e3);
        for (int p = 0; p < s->npat; p++) {
            char cell[64];
            double m = res->median[i][p];
            if (isnan(m))
                snprintf(cell, sizeof cell, "-");
            else if (eco >= 0 && p != eco && !isnan(res->median[i][eco]))
                snprintf(cell, sizeof cell, "%.3f (%.3f) x%.2f", m * 1e3, res->min[i][p] * 1e3,
                         m / res->median[i][eco]);
            else
                snprintf(cell, sizeof cell, "%.3f (%.3f)", m * 1e3, res->min[i][p] * 1e3);
            printf(" %24s", cell);
        }
        if (eco >= 0 && res->alg[i])
            printf("  %-12s %9.3f", res->alg[i], res->predicted[i] * 1e3);
        printf("\n");
    }
}

/* The table in the OSU micro-benchmarks' manner: '#' lines, then one
 * row of plain numbers per size, in microseconds; '-' where a pattern
 * has no such operation. */
static void print_osu(const setup *s, const result *res, const double *limit, int ntasks)
{
    printf("# eco-bench %s: completion time in microseconds, median and minimum over %d "
           "iterations; %d tasks, root %d\n", op_names[s->op], s->iters, ntasks, s->root);
    printf("%-10s", "# Size");
    if (limit)
        printf(" %16s", "link-limit(us)");
    for (int p = 0; p < s->npat; p++) {
        char med[40], mn[40];
        snprintf(med, sizeof med, "%s(us)", pattern_names[s->pat[p]]);
        snprintf(mn, sizeof mn, "%s-min(us)", pattern_names[s->pat[p]]);
        printf(" %16s %16s", med, mn);
    }
    printf("\n");
    for (int i = 0; i < s->nsizes; i++) {
        printf("%-10d", bytes_of(s, i));
        if (limit)
            printf(" %16.2f", limit[i] * 1e6);
        for (int p = 0; p < s->npat; p++)
            if (isnan(res->median[i][p]))
                printf(" %16s %16s", "-", "-");
            else
                printf(" %16.2f %16.2f", res->median[i][p] * 1e6, res->min[i][p] * 1e6);
        printf("\n");
    }
}

static void print_csv(FILE *out, const setup *s, const result *res, int usec)
{
    fprintf(out, "op,bytes,pattern,%s\n",
            usec ? "median_us,min_us" : "median_seconds,min_seconds");
    for (int i = 0; i < s->nsizes; i++)
        for (int p = 0; p < s->npat; p++)
            if (!isnan(res->median[i][p])) {
                if (usec)
                    fprintf(out, "%s,%d,%s,%.3f,%.3f\n", op_names[s->op], bytes_of(s, i),
                            pattern_names[s->pat[p]], res->median[i][p] * 1e6,
                            res->min[i][p] * 1e6);
                else
                    fprintf(out, "%s,%d,%s,%.9f,%.9f\n", op_names[s->op], bytes_of(s, i),
                            pattern_names[s->pat[p]], res->median[i][p], res->min[i][p]);
            }
}

/* One JSON object: the run, then one result per size and pattern measured
 * (patterns without the operation are left out, as in the CSV). */
static void print_json(const setup *s, const result *res, const double *limit, int ntasks,
                       int usec)
{
    double k = usec ? 1e6 : 1;
    const char *fmt = usec ? "%.3f" : "%.9f";
    int first = 1;

    printf("{\"op\": \"%s\", \"tasks\": %d, \"root\": %d, \"iterations\": %d, "
           "\"warmup\": %d, \"unit\": \"%s\",\n \"patterns\": [",
           op_names[s->op], ntasks, s->root, s->iters, s->warmup, usec ? "us" : "s");
    for (int p = 0; p < s->npat; p++)
        printf("%s\"%s\"", p ? ", " : "", pattern_names[s->pat[p]]);
    printf("],\n \"results\": [");
    for (int i = 0; i < s->nsizes; i++)
        for (int p = 0; p < s->npat; p++) {
            if (isnan(res->median[i][p]))
                continue;
            printf("%s\n  {\"bytes\": %d, \"pattern\": \"%s\", \"median\": ",
                   first ? "" : ",", bytes_of(s, i), pattern_names[s->pat[p]]);
            printf(fmt, res->median[i][p] * k);
            printf(", \"min\": ");
            printf(fmt, res->min[i][p] * k);
            printf("}");
            first = 0;
        }
    printf("\n ]");
    {
        int f = 1;
        for (int i = 0; i < s->nsizes; i++) {
            if (!res->alg[i])
                continue;
            printf("%s{\"bytes\": %d, \"algorithm\": \"%s\", \"predicted\": ",
                   f ? ",\n \"eco_chose\": [" : ", ", bytes_of(s, i), res->alg[i]);
            printf(fmt, res->predicted[i] * k);
            printf("}");
            f = 0;
        }
        if (!f)
            printf("]");
    }
    if (limit) {
        printf(",\n \"link_limit\": [");
        for (int i = 0; i < s->nsizes; i++) {
            printf("%s{\"bytes\": %d, \"time\": ", i ? ", " : "", bytes_of(s, i));
            printf(fmt, limit[i] * k);
            printf("}");
        }
        printf("]");
    }
    printf("\n}\n");
}

static int plot(const setup *s, const result *res, const char *file)
{
    char data[] = "/tmp/eco-bench-XXXXXX";
    const char *ext = strrchr(file, '.');
    FILE *f, *g;
    int fd = mkstemp(data), rc;

    if (fd < 0 || !(f = fdopen(fd, "w")))
        return -1;
    for (int i = 0; i < s->nsizes; i++) {
        fprintf(f, "%d", bytes_of(s, i));
        for (int p = 0; p < s->npat; p++)
            fprintf(f, " %.9g", isnan(res->median[i][p]) ? NAN : res->median[i][p] * 1e3);
        fprintf(f, "\n");
    }
    fclose(f);
    g = popen("gnuplot", "w");
    if (!g) {
        unlink(data);
        return -1;
    }
    fprintf(g, "set terminal %s size 800,500\nset output '%s'\n",
            ext && strcmp(ext, ".svg") == 0 ? "svg" : "pngcairo", file);
    fprintf(g, "set logscale xy\nset xlabel 'bytes per member'\nset ylabel 'median completion time (ms)'\n"
               "set title 'eco-bench %s'\nset key left top\nset grid\nplot ", op_names[s->op]);
    for (int p = 0; p < s->npat; p++)
        fprintf(g, "%s'%s' using 1:%d with linespoints title '%s'", p ? ", " : "", data, p + 2,
                pattern_names[s->pat[p]]);
    fprintf(g, "\n");
    rc = pclose(g);
    unlink(data);
    return rc == 0 ? 0 : -1;
}

/* Where eco-bench-mpi is: beside this program (the build tree), else in
 * pkglibexecdir (installed); 0, or -1. */
static int find_mpi_helper(char *path, size_t size)
{
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);

    if (len > 0) {
        self[len] = '\0';
        *strrchr(self, '/') = '\0';
        snprintf(path, size, "%s/eco-bench-mpi", self);
        if (access(path, X_OK) == 0)
            return 0;
    }
    snprintf(path, size, "%s/eco-bench-mpi", ECO_PKGLIBEXECDIR);
    return access(path, X_OK) == 0 ? 0 : -1;
}

/* Run eco-bench-mpi under mpirun and put its medians in the openmpi column:
 * 0, -1 (the run failed) or -3 (no eco-bench-mpi). */
static int run_openmpi(const setup *s, int n, const char *mpirun, result *res)
{
    char helper[4200], cmd[8192], sizes[1024] = "", line[256];
    int col = -1, got = 0;
    FILE *p;

    for (int q = 0; q < s->npat; q++)
        if (s->pat[q] == PAT_OPENMPI)
            col = q;
    if (col < 0)
        return 0;
    if (find_mpi_helper(helper, sizeof helper) != 0) {
        fprintf(stderr, PROG ": openmpi: no eco-bench-mpi beside " PROG " nor in %s "
                "(build with Open MPI: apt-get install libopenmpi-dev openmpi-bin)\n",
                ECO_PKGLIBEXECDIR);
        return -3;
    }
    for (int i = 0; i < s->nsizes; i++)
        snprintf(sizes + strlen(sizes), sizeof sizes - strlen(sizes), "%s%d", i ? "," : "",
                 s->sizes[i]);
    if (mpirun)
        snprintf(cmd, sizeof cmd, "%s", mpirun);
    else
        snprintf(cmd, sizeof cmd, "mpirun --allow-run-as-root --oversubscribe --mca mpi_yield_when_idle 1 -np %d", n);
    snprintf(cmd + strlen(cmd), sizeof cmd - strlen(cmd),
             " %s --op %s --sizes %s --root %d --iters %d --warmup %d --start %s",
             helper, op_names[s->op], sizes, s->root, s->iters, s->warmup,
             s->start == START_AGREED ? "agreed" : "barrier");
    if (!(p = popen(cmd, "r")))
        return -1;
    while (fgets(line, sizeof line, p)) {
        char op[32], pat[32];
        int bytes;
        double med, mn;
        if (sscanf(line, "%31[^,],%d,%31[^,],%lf,%lf", op, &bytes, pat, &med, &mn) != 5)
            continue;
        for (int i = 0; i < s->nsizes; i++)
            if (bytes_of(s, i) == bytes) {
                res->median[i][col] = med;
                res->min[i][col] = mn;
                got++;
            }
    }
    if (pclose(p) != 0 || got != s->nsizes) {
        fprintf(stderr, "eco-bench: openmpi: '%s' failed\n", cmd);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Tasks                                                               */
/* ------------------------------------------------------------------ */

static int start_tasks(int want, int **tids_out)
{
    static char self[4096];
    struct pvmhostinfo *hi;
    int nhost, narch, n, *tids, myhost = pvm_tidtohost(pvm_mytid());
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);

    if (len <= 0 || pvm_config(&nhost, &narch, &hi) < 0)
        return -1;
    self[len] = '\0';
    n = want > 0 ? want : nhost;
    tids = malloc((size_t)n * sizeof *tids);
    if (!tids)
        return -1;
    tids[0] = pvm_mytid();
    pvm_catchout(stderr);      /* the workers' messages come out here */
    /* Task i goes to host (start + i) % nhost, starting with my own host. */
    int start = 0;
    for (int h = 0; h < nhost; h++)
        if (hi[h].hi_tid == myhost)
            start = h;
    for (int i = 1; i < n; i++) {
        char *argv[] = { "--worker", NULL };
        int h = (start + i) % nhost;
        if (pvm_spawn(self, argv, PvmTaskHost, hi[h].hi_name, 1, &tids[i]) != 1) {
            fprintf(stderr, "eco-bench: cannot spawn on %s (%d)\n", hi[h].hi_name, tids[i]);
            free(tids);
            return -1;
        }
    }
    *tids_out = tids;
    return n;
}

/* What start_tasks, unpack_setup and prepare allocated. */
static void bench_free(bench *B)
{
    free(B->a);
    free(B->b);
    free(B->tids);
    B->a = B->b = NULL;
    B->tids = NULL;
}

static int prepare(bench *B)
{
    size_t biggest = 8;
    int rc;

    for (int i = 0; i < B->s.nsizes; i++)
        if ((size_t)B->s.sizes[i] > biggest)
            biggest = (size_t)B->s.sizes[i];
    B->cap = biggest * (size_t)B->n + 64;
    B->a = calloc(1, B->cap);
    B->b = calloc(1, B->cap);
    if (!B->a || !B->b) {
        fprintf(stderr, PROG ": rank %d: out of memory (%zu bytes)\n", B->me, B->cap);
        return -1;
    }
    if ((rc = eco_init(NULL, B->n, B->tids, &B->ctx)) != 0) {
        fprintf(stderr, PROG ": rank %d: eco_init: %s\n", B->me, eco_strerror(rc));
        return -1;
    }
    for (int p = 0; p < B->s.npat; p++)
        if (B->s.pat[p] == 1) {
            if ((rc = pvm_joingroup(GROUP)) < 0 || (rc = pvm_barrier(GROUP, B->n)) < 0) {
                fprintf(stderr, PROG ": rank %d: PVM group %s: error %d\n", B->me, GROUP, rc);
                return -1;
            }
            B->pvm_root_inst = pvm_getinst(GROUP, B->tids[B->s.root]);
            break;
        }
    return 0;
}

/* The master's setup, every count checked against the storage it
 * indexes before use: 0, or -1. */
static int unpack_setup(bench *B)
{
    if (pvm_recv(pvm_parent(), TAG_SETUP) < 0 || pvm_upkint(&B->n, 1, 1) < 0 ||
        B->n < 1 || B->n > 1 << 20 || !(B->tids = malloc((size_t)B->n * sizeof *B->tids)) ||
        pvm_upkint(B->tids, B->n, 1) < 0 ||
        pvm_upkint((int *)&B->s, (int)(sizeof B->s / sizeof(int)), 1) < 0)
        return -1;
    if (B->s.root < 0 || B->s.root >= B->n || B->s.nsizes < 0 || B->s.nsizes > MAXS ||
        B->s.npat < 0 || B->s.npat > MAXP)
        return -1;
    return 0;
}

static int worker(void)
{
    bench B;
    int rc;

    memset(&B, 0, sizeof B);
    B.me = -1;
    if (unpack_setup(&B) == 0)
        for (int i = 0; i < B.n; i++)
            if (B.tids[i] == pvm_mytid())
                B.me = i;
    if (B.me < 0)
        fprintf(stderr, PROG ": worker t%x: no valid setup from the master\n", pvm_mytid());
    rc = B.me < 0 ? -1 : prepare(&B);
    result res;
    memset(&res, 0, sizeof res);
    if (rc == 0)
        rc = measure(&B, &res);
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&rc, 1, 1);
    if (rc == 0 && B.me == B.s.root) {   /* the root timed it: the master prints */
        pvm_pkdouble(&res.median[0][0], MAXS * MAXP, 1);
        pvm_pkdouble(&res.min[0][0], MAXS * MAXP, 1);
    }
    pvm_send(pvm_parent(), TAG_DONE);
    eco_finalize(B.ctx);
    bench_free(&B);
    pvm_exit();
    return rc ? 1 : 0;
}

/* ------------------------------------------------------------------ */
/* Options                                                             */
/* ------------------------------------------------------------------ */

/* The link limit of each size from a netbed topology (see below). */
static int eco_bench_link_limit(const char *topology, const setup *s, double *limit);

typedef struct options {
    int want, csv, json, usec;
    const char *topology, *plotfile, *mpirun, *csvfile;
} options;

/* argv into s and o: -1 to go on, else an exit status. */
static int parse_args(int argc, char **argv, setup *s, options *o)
{
    static const struct option opts[] = {
        { "op", required_argument, NULL, 'o' }, { "sizes", required_argument, NULL, 's' },
        { "patterns", required_argument, NULL, 'p' }, { "root", required_argument, NULL, 'r' },
        { "iters", required_argument, NULL, 'i' }, { "warmup", required_argument, NULL, 'w' },
        { "tasks", required_argument, NULL, 'n' }, { "csv", no_argument, NULL, 'c' },
        { "json", no_argument, NULL, 'j' }, { "usec", no_argument, NULL, 'u' },
        { "topology", required_argument, NULL, 't' }, { "plot", required_argument, NULL, 'P' },
        { "help", no_argument, NULL, 'h' }, { "version", no_argument, NULL, 'V' },
        { "worker", no_argument, NULL, 'W' }, { "mpirun", required_argument, NULL, 'M' },
        { "csv-file", required_argument, NULL, 'F' },
        { "start", required_argument, NULL, 'S' },
        { NULL, 0, NULL, 0 }
    };
    int c, op;
    long v;

    opterr = 0;   /* our own messages, one line and a hint */
    while ((c = getopt_long(argc, argv, ":o:s:p:r:i:w:n:cjut:hV", opts, NULL)) != -1) {
        switch (c) {
        case 'o':
            if (ecoc_parse_list(optarg, op_names, NOPS, &op, 1) != 1)
                return usage_error("unknown operation '%s'", optarg);
            s->op = op;
            break;
        case 's':
            if ((s->nsizes = ecoc_parse_list(optarg, NULL, 0, s->sizes, MAXS)) < 0)
                return usage_error("bad size list '%s' (at most 64 sizes, 0..268435456)",
                                   optarg);
            break;
        case 'p':
            if ((s->npat = ecoc_parse_list(optarg, pattern_names, NPATTERNS, s->pat, MAXP)) < 0)
                return usage_error("bad pattern list '%s'", optarg);
            break;
        case 'r':
            if ((v = ecoc_number(optarg, 0, 1 << 20)) < 0)
                return usage_error("bad root '%s'", optarg);
            s->root = (int)v;
            break;
        case 'i':
            if ((v = ecoc_number(optarg, 1, 1 << 24)) < 0)
                return usage_error("bad iteration count '%s'", optarg);
            s->iters = (int)v;
            break;
        case 'w':
            if ((v = ecoc_number(optarg, 0, 1 << 24)) < 0)
                return usage_error("bad warm-up count '%s'", optarg);
            s->warmup = (int)v;
            break;
        case 'n':
            if ((v = ecoc_number(optarg, 1, 1 << 20)) < 0)
                return usage_error("bad task count '%s'", optarg);
            o->want = (int)v;
            break;
        case 'c': o->csv = 1; break;
        case 'j': o->json = 1; break;
        case 'u': o->usec = 1; break;
        case 't': o->topology = optarg; break;
        case 'P': o->plotfile = optarg; break;
        case 'M': o->mpirun = optarg; break;
        case 'F': o->csvfile = optarg; break;
        case 'S':
            if (strcmp(optarg, "agreed") != 0 && strcmp(optarg, "barrier") != 0)
                return usage_error("bad start '%s' (agreed or barrier)", optarg);
            s->start = strcmp(optarg, "barrier") == 0 ? START_BARRIER : START_AGREED;
            break;
        case 'h': usage(stdout); return 0;
        case 'V': printf(PROG " (libeco) " PACKAGE_VERSION "\n"); return 0;
        case 'W': return worker();
        case ':':
            return usage_error("option '%s' needs an argument", argv[optind - 1]);
        default:
            return usage_error("unrecognized option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return usage_error("unexpected argument '%s'", argv[optind]);
    if (o->csv && o->json)
        return usage_error("%s", "give at most one of --csv and --json");
    return -1;
}

int main(int argc, char **argv)
{
    bench B;
    setup *s = &B.s;
    options o;
    char helper[4200];
    int rc;

    memset(&B, 0, sizeof B);
    memset(&o, 0, sizeof o);
    s->op = OP_BCAST;
    s->iters = 30;
    s->start = START_AGREED;
    s->warmup = 3;
    s->nsizes = ecoc_parse_list("1000,16000,262144", NULL, 0, s->sizes, MAXS);
    for (int p = 0; p < NPATTERNS; p++)
        if (p != PAT_OPENMPI)
            s->pat[s->npat++] = p;
    if ((rc = parse_args(argc, argv, s, &o)) >= 0)
        return rc;
    for (int p = 0; p < s->npat; p++)
        if (s->pat[p] == PAT_OPENMPI && find_mpi_helper(helper, sizeof helper) != 0) {
            fprintf(stderr, PROG ": openmpi: no eco-bench-mpi beside " PROG " nor in %s "
                    "(build libeco with Open MPI: apt-get install libopenmpi-dev openmpi-bin)\n",
                    ECO_PKGLIBEXECDIR);
            return 3;
        }
    if (pvm_mytid() < 0) {
        fprintf(stderr, PROG ": no PVM virtual machine (start one with pvmd or pvm)\n");
        return 3;
    }
    B.n = start_tasks(o.want, &B.tids);
    if (B.n < 1) {
        pvm_exit();
        return 3;
    }
    if (s->root >= B.n) {
        fprintf(stderr, PROG ": root %d out of range 0..%d\n", s->root, B.n - 1);
        fprintf(stderr, "Try '" PROG " --help' for more information.\n");
        for (int i = 1; i < B.n; i++)
            pvm_kill(B.tids[i]);
        bench_free(&B);
        pvm_exit();
        return 2;
    }
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&B.n, 1, 1);
    pvm_pkint(B.tids, B.n, 1);
    pvm_pkint((int *)s, (int)(sizeof *s / sizeof(int)), 1);
    if (B.n > 1)
        pvm_mcast(B.tids + 1, B.n - 1, TAG_SETUP);
    result res;
    memset(&res, 0, sizeof res);
    rc = prepare(&B) == 0 ? measure(&B, &res) : -1;
    for (int i = 1; i < B.n; i++) {
        int wrc = -1, bid, from = -1;
        struct timeval tv = { 60, 0 };
        if ((bid = pvm_trecv(-1, TAG_DONE, &tv)) > 0) {
            pvm_upkint(&wrc, 1, 1);
            pvm_bufinfo(bid, NULL, NULL, &from);
        }
        /* another root timed the iterations (iteration()) */
        if (wrc == 0 && from == B.tids[s->root] &&
            (pvm_upkdouble(&res.median[0][0], MAXS * MAXP, 1) < 0 ||
             pvm_upkdouble(&res.min[0][0], MAXS * MAXP, 1) < 0))
            wrc = -1;
        rc |= wrc;
    }
    if (rc != 0) {
        fprintf(stderr, PROG ": a collective failed\n");
        bench_free(&B);
        pvm_exit();
        return 1;
    }
    if ((rc = run_openmpi(s, B.n, o.mpirun, &res)) != 0) {
        bench_free(&B);
        pvm_exit();
        return rc == -3 ? 3 : 1;
    }
    double limit[MAXS], *lp = NULL;
    if (o.topology && op_coll[s->op] >= 0) {     /* a collective's */
        if (eco_bench_link_limit(o.topology, s, limit) != 0)
            fprintf(stderr, PROG ": cannot compute link limits from %s\n", o.topology);
        else
            lp = limit;
    }
    /* Standard output holds only the format asked for. */
    if (o.csv || o.json)
        fprintf(stderr, "# " PROG ": %d tasks, root %d\n", B.n, s->root);
    if (o.csv)
        print_csv(stdout, s, &res, o.usec);
    else if (o.json)
        print_json(s, &res, lp, B.n, o.usec);
    else if (o.usec)
        print_osu(s, &res, lp, B.n);
    else {
        printf("# " PROG ": %d tasks, root %d\n", B.n, s->root);
        print_table(s, &res, lp);
    }
    rc = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, PROG ": cannot write standard output: %s\n", strerror(errno));
        rc = 4;
    }
    if (o.csvfile) {
        FILE *f = fopen(o.csvfile, "w");
        if (f) {
            print_csv(f, s, &res, o.usec);
            if (fclose(f) != 0)
                f = NULL;
        }
        if (!f) {
            fprintf(stderr, PROG ": cannot write %s: %s\n", o.csvfile, strerror(errno));
            rc = 4;
        }
    }
    if (o.plotfile && plot(s, &res, o.plotfile) != 0)
        fprintf(stderr, PROG ": gnuplot failed (apt-get install gnuplot-nox)\n");
    eco_finalize(B.ctx);
    bench_free(&B);
    pvm_exit();
    return rc;
}

/* ------------------------------------------------------------------ */
/* Link limits from a netbed topology (lib/topology.c)                 */
/* ------------------------------------------------------------------ */

/* With one task per host and the root on this host. */
static int eco_bench_link_limit(const char *topology, const setup *s, double *limit)
{
    char root[256] = "", err[512];
    ecoi_topo *t;

    gethostname(root, sizeof root - 1);
    if (ecoi_topo_read(topology, &t, err, sizeof err) != ECO_OK) {
        fprintf(stderr, PROG ": %s\n", err);
        return -1;
    }
    for (int i = 0; i < s->nsizes; i++)
        limit[i] = ecoi_topo_link_limit(t, op_coll[s->op], ecoi_topo_find(t, root),
                                        bytes_of(s, i));
    ecoi_topo_free(t);
    return s->nsizes > 0 && limit[0] < 0 ? -1 : 0;
}
