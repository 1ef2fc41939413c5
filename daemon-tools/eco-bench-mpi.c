/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * eco-bench-mpi -- the MPI side of eco-bench: the same operations, sizes
 * and timing (root start, or an agreed start, to the last member's
 * acknowledgement, a barrier between iterations, warm-up not counted) with the MPI library's own
 * collectives, so eco-bench can put Open MPI in the same table.  A helper
 * of eco-bench, installed in pkglibexecdir (eco-bench(1)).
 *
 *   mpirun -np N eco-bench-mpi [--op OP] [--sizes LIST] [--root R]
 *                               [--iters N] [--warmup N] [--start HOW]
 * Prints op,bytes,pattern,median_seconds,min_seconds rows (pattern openmpi).
 *
 * The options are read before MPI_Init, the same way on every rank, so
 * --help, --version and usage errors need no MPI run.
 * Exit status: 0 success, 1 the MPI run failed, 2 usage.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_clock.h" /* now, sleep_until, clock_ping, start_at */

#define PROG "eco-bench-mpi"
#define TAG_ACK 77
#define TAG_PING 78
#define TAG_CLOCK 80
#define TAG_START 81
#define MAXS 64

static const char *ops[] = { "bcast", "reduce", "allreduce", "gather", "allgather",
                             "scatter", "alltoall", "barrier", "scan", "pingpong" };
#define OP_PINGPONG 9
#define NOPS ((int)(sizeof ops / sizeof ops[0]))

typedef struct options {
    int op, root, iters, warmup, nsizes;
    int agreed;          /* 1: --start=agreed (the default); 0: barrier */
    int sizes[MAXS];
} options;

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: mpirun -np N " PROG " [OPTION]...\n"
            "Time one collective operation with the MPI library's own calls, as eco-bench\n"
            "times it (eco-bench's openmpi pattern), and print CSV rows\n"
            "op,bytes,pattern,median_seconds,min_seconds on the root's standard output.\n"
            "\n"
            "  -o, --op=OP         bcast reduce allreduce gather allgather scatter\n"
            "                      alltoall barrier scan (default bcast); pingpong: the\n"
            "                      root's round trip with each rank in turn\n"
            "  -s, --sizes=LIST    message sizes in bytes per member, comma separated\n"
            "                      (default 1000,16000,262144)\n"
            "  -r, --root=R        root rank (default 0)\n"
            "  -i, --iters=N       timed iterations per size (default 30)\n"
            "  -w, --warmup=N      untimed iterations first (default 3)\n"
            "      --start=HOW     agreed (default): every rank begins at a time the\n"
            "                      root sends after MPI_Barrier, clocks compared first;\n"
            "                      barrier: time from the root's release from it\n"
            "  -h, --help          show this help and exit\n"
            "  -V, --version       show the version and exit\n"
            "\n"
            "Exit status: 0 success, 1 the MPI run failed, 2 usage.  See eco-bench(1).\n");
}

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, PROG ": ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry '" PROG " --help' for more information.\n");
    return 2;
}

/* A whole decimal number in [lo, hi], or -1. */
static long number(const char *s, long lo, long hi)
{
    char *end;
    long v = strtol(s, &end, 10);

    return (end == s || *end || v < lo || v > hi) ? -1 : v;
}

/* The sizes of LIST into o; 0, or -1 with nothing said. */
static int parse_sizes(const char *list, options *o)
{
    char *copy = strdup(list), *save = NULL, *tok;
    int k = 0, rc = 0;

    if (!copy)
        return -1;
    for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        long v = number(tok, 0, 1L << 28);
        if (v < 0 || k == MAXS) {
            rc = -1;
            break;
        }
        o->sizes[k++] = (int)v;
    }
    free(copy);
    if (k == 0)
        rc = -1;
    o->nsizes = k;
    return rc;
}

/* -1 to go on, else an exit status. */
static int parse_args(int argc, char **argv, options *o)
{
    static const struct option longopts[] = {
        {"op", required_argument, NULL, 'o'},
        {"sizes", required_argument, NULL, 's'},
        {"root", required_argument, NULL, 'r'},
        {"iters", required_argument, NULL, 'i'},
        {"warmup", required_argument, NULL, 'w'},
        {"start", required_argument, NULL, 'S'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    int c;
    long v;

    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:s:r:i:w:hV", longopts, NULL)) != -1) {
        switch (c) {
        case 'o':
            o->op = -1;
            for (int k = 0; k < NOPS; k++)
                if (strcmp(optarg, ops[k]) == 0)
                    o->op = k;
            if (o->op < 0)
                return usage_error("unknown operation '%s'", optarg);
            break;
        case 's':
            if (parse_sizes(optarg, o) != 0)
                return usage_error("bad size list '%s' (at most 64 sizes, 0..268435456)",
                                   optarg);
            break;
        case 'r':
            if ((v = number(optarg, 0, 1 << 30)) < 0)
                return usage_error("bad root '%s'", optarg);
            o->root = (int)v;
            break;
        case 'i':
            if ((v = number(optarg, 1, 1 << 24)) < 0)
                return usage_error("bad iteration count '%s'", optarg);
            o->iters = (int)v;
            break;
        case 'w':
            if ((v = number(optarg, 0, 1 << 24)) < 0)
                return usage_error("bad warm-up count '%s'", optarg);
            o->warmup = (int)v;
            break;
        case 'S':
            if (strcmp(optarg, "agreed") != 0 && strcmp(optarg, "barrier") != 0)
                return usage_error("bad start '%s' (agreed or barrier)", optarg);
            o->agreed = strcmp(optarg, "agreed") == 0;
            break;
        case 'h':
            usage(stdout);
            return 0;
        case 'V':
            printf(PROG " (libeco) %s\n", PACKAGE_VERSION);
            return 0;
        case ':':
            return usage_error("option '%s' needs an argument", argv[optind - 1]);
        default:
            return usage_error("unrecognized option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return usage_error("unexpected argument '%s'", argv[optind]);
    return -1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Each rank's clock against the root's, Cristian's way, as eco-bench's
 * clock_sync: of CLOCK_PINGS round trips t1..t2 with the rank answering
 * its clock t, the shortest gives offset = t - (t1 + t2) / 2, sent to
 * the rank (*offset).  The root gets the start's lead (*lead). */
static void clock_sync(int me, int n, int root, double *offset, double *lead)
{
    double rtt_sum = 0.0;

    for (int r = 0; r < n; r++) {
        clock_ping p;
        double t = 0.0;
        if (r == root)
            continue;
        clock_ping_begin(&p);
        for (int k = 0; k < CLOCK_PINGS; k++) {
            if (me == root) {
                double t1 = now();
                MPI_Send(NULL, 0, MPI_BYTE, r, TAG_CLOCK, MPI_COMM_WORLD);
                MPI_Recv(&t, 1, MPI_DOUBLE, r, TAG_CLOCK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                clock_ping_note(&p, t1, t, now());
            } else if (me == r) {
                MPI_Recv(NULL, 0, MPI_BYTE, root, TAG_CLOCK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                t = now();
                MPI_Send(&t, 1, MPI_DOUBLE, root, TAG_CLOCK, MPI_COMM_WORLD);
            }
        }
        if (me == root) {
            rtt_sum += p.best;
            MPI_Send(&p.offset, 1, MPI_DOUBLE, r, TAG_CLOCK, MPI_COMM_WORLD);
        } else if (me == r)
            MPI_Recv(offset, 1, MPI_DOUBLE, root, TAG_CLOCK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    *lead = START_LEAD + rtt_sum;
}

/* After the barrier, the agreed start: the root sends every rank a time
 * `lead` ahead on its clock and sleeps until then; a rank sleeps until
 * its clock reads it (plus its offset), or begins at once when it came
 * late (*late 1).  The root's time of the start. */
static double agreed_start(int me, int n, int root, double offset, double lead, int *late)
{
    double at;

    *late = 0;
    if (me == root) {
        at = now() + lead;
        for (int r = 0; r < n; r++)
            if (r != root)
                MPI_Send(&at, 1, MPI_DOUBLE, r, TAG_START, MPI_COMM_WORLD);
        sleep_until(at);
        return at;
    }
    MPI_Recv(&at, 1, MPI_DOUBLE, root, TAG_START, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    at += offset;
    *late = start_at(at);
    return at;
}

/* The root's round trip with every other rank in turn, `bytes` each way
 * (eco-bench's pingpong: the per-message floor under the collectives). */
static void pingpong(char *a, char *b, int bytes, int root)
{
    int me, n;

    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    for (int r = 0; r < n; r++) {
        if (r == root)
            continue;
        if (me == root) {
            MPI_Send(a, bytes, MPI_BYTE, r, TAG_PING, MPI_COMM_WORLD);
            MPI_Recv(b, bytes, MPI_BYTE, r, TAG_PING + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (me == r) {
            MPI_Recv(b, bytes, MPI_BYTE, root, TAG_PING, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(b, bytes, MPI_BYTE, root, TAG_PING + 1, MPI_COMM_WORLD);
        }
    }
}

/* One operation; bytes per member; doubles for the reductions. */
static void run(int op, char *a, char *b, int bytes, int root)
{
    int nd = bytes / 8;

    switch (op) {
    case OP_PINGPONG: pingpong(a, b, bytes, root); break;
    case 0: MPI_Bcast(a, bytes, MPI_BYTE, root, MPI_COMM_WORLD); break;
    case 1: MPI_Reduce(a, b, nd, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD); break;
    case 2: MPI_Allreduce(a, b, nd, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); break;
    case 3: MPI_Gather(a, bytes, MPI_BYTE, b, bytes, MPI_BYTE, root, MPI_COMM_WORLD); break;
    case 4: MPI_Allgather(a, bytes, MPI_BYTE, b, bytes, MPI_BYTE, MPI_COMM_WORLD); break;
    case 5: MPI_Scatter(b, bytes, MPI_BYTE, a, bytes, MPI_BYTE, root, MPI_COMM_WORLD); break;
    case 6: MPI_Alltoall(b, bytes, MPI_BYTE, a, bytes, MPI_BYTE, MPI_COMM_WORLD); break;
    case 7: MPI_Barrier(MPI_COMM_WORLD); break;
    default: MPI_Scan(a, b, nd, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); break;
    }
}

int main(int argc, char **argv)
{
    options o = { .op = 0, .root = 0, .iters = 30, .warmup = 3, .agreed = 1 };
    int me, n, rc;
    long late_n = 0, starts = 0;
    double *t, offset = 0.0, lead = 0.0;

    parse_sizes("1000,16000,262144", &o);
    if ((rc = parse_args(argc, argv, &o)) >= 0)
        return rc;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (o.root >= n) {
        if (me == 0)
            fprintf(stderr, PROG ": root %d out of range 0..%d\n", o.root, n - 1);
        MPI_Finalize();
        return 2;
    }
    t = malloc((size_t)o.iters * sizeof *t);
    if (!t) {
        fprintf(stderr, PROG ": out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (me == o.root)
        printf("op,bytes,pattern,median_seconds,min_seconds\n");
    for (int s = 0; s < o.nsizes; s++) {
        int bytes = o.op == 1 || o.op == 2 || o.op == 8 ? o.sizes[s] / 8 * 8 : o.sizes[s];
        char *a = calloc(1, (size_t)bytes * (size_t)n + 8);
        char *b = calloc(1, (size_t)bytes * (size_t)n + 8);
        if (!a || !b) {
            fprintf(stderr, PROG ": out of memory (%d bytes)\n", bytes);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        if (o.agreed)
            clock_sync(me, n, o.root, &offset, &lead);
        for (int k = 0; k < o.warmup + o.iters; k++) {
            double t0 = 0, t1 = 0, st = 0;
            int late = 0;
            MPI_Barrier(MPI_COMM_WORLD);
            if (o.agreed)
                st = agreed_start(me, n, o.root, offset, lead, &late);
            if (me == o.root)
                /* pingpong: one pair at a time, nothing to agree on */
                t0 = o.agreed && o.op != OP_PINGPONG ? st : now();
            run(o.op, a, b, bytes, o.root);
            if (o.op == OP_PINGPONG && me == o.root && k >= o.warmup)
                t1 = now();      /* its last pong: one round trip each */
            if (me != o.root) {
                MPI_Send(&late, 1, MPI_INT, o.root, TAG_ACK, MPI_COMM_WORLD);
            } else {
                for (int i = 1; i < n; i++) {
                    MPI_Recv(&late, 1, MPI_INT, MPI_ANY_SOURCE, TAG_ACK, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE);
                    if (o.agreed && k >= o.warmup) {
                        late_n += late;
                        starts++;
                    }
                }
                if (k >= o.warmup)
                    t[k - o.warmup] = o.op == OP_PINGPONG ? (t1 - t0) / (n > 1 ? n - 1 : 1)
                                                          : now() - t0;
            }
        }
        if (me == o.root) {
            qsort(t, (size_t)o.iters, sizeof *t, cmp_double);
            printf("%s,%d,openmpi,%.9f,%.9f\n", ops[o.op], bytes,
                   o.iters % 2 ? t[o.iters / 2] : (t[o.iters / 2 - 1] + t[o.iters / 2]) / 2,
                   t[0]);
        }
        free(a);
        free(b);
    }
    free(t);
    if (me == o.root && late_n > 0)   /* those iterations started later than agreed */
        fprintf(stderr, PROG ": %ld of %ld agreed starts reached their rank late (it "
                "started when the start came)\n", late_n, starts);
    MPI_Finalize();
    return 0;
}
