/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * eco-sim -- the library's own collectives on simulated hosts (eco-sim(1)).
 *
 * Every member is a thread running the same functions eco_bcast and the
 * others run, over the simulated transport (lib/sim_transport.c: virtual
 * time, cooperative scheduling, the topology's links); the output is
 * eco-bench's, so that the two compare line by line.
 *
 * The members share one map, one member list and, per pattern, one set of
 * trees and plans (ecoi_ctx_create_shared): what every real member would
 * compute for itself, computed once.
 *
 * Exit status: 0 success, 1 a collective failed, 2 usage, 3 cannot start
 * (a bad topology or subnet file, out of memory).
 */
#include "config.h"
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <pvm3.h>
#include "eco.h"
#include "eco_char.h"   /* ecoc_number, ecoc_parse_list */
#include "eco_sim.h"

#define PROG "eco-sim"
#define MAXS 64
#define MAXP 8

/* eco-bench's operations and patterns, in its order. */
static const char *const op_names[] = { "bcast", "reduce", "allreduce", "gather",
                                        "allgather", "scatter", "alltoall", "barrier",
                                        "scan" };
static const int op_coll[] = { ECOI_C_BCAST, ECOI_C_REDUCE, ECOI_C_ALLREDUCE,
                               ECOI_C_GATHER, ECOI_C_ALLGATHER, ECOI_C_SCATTER,
                               ECOI_C_ALLTOALL, ECOI_C_BARRIER, ECOI_C_SCAN };
#define NOPS ((int)(sizeof op_names / sizeof op_names[0]))
static const char *const pattern_names[] = { "eco", "pvm", "star", "binary", "kary3",
                                             "chain", "openmpi" };
#define NPATTERNS ((int)(sizeof pattern_names / sizeof pattern_names[0]))
/* Not this library's code: named as skipped. */
#define FOREIGN(p) ((p) == 1 || (p) == 6)

/* Data travels unless the members' buffers would pass this. */
#define DATA_LIMIT (1024.0 * 1024 * 1024)

typedef struct sim_run {
    int op, root, iters, nsizes, npat, n, data;
    int acks;                /* time the acknowledgements too (--acks) */
    int sizes[MAXS], pat[MAXP];
    ecoi_sim *sim;
    eco_ctx *share[MAXP];    /* per pattern: the trees and plans */
    eco_ctx **ctx;           /* [n] */
    size_t cap;              /* bytes of each buffer */
    char *shared_a, *shared_b;   /* without data: one pair for all */
    double *start, *end;     /* [size][iter][pattern] */
    int failed;
} sim_run;

static void usage(FILE *f)
{
    fprintf(f,
        "Usage: " PROG " --topology FILE [OPTION]...\n"
        "Run the library's own collective operations on simulated hosts (a network\n"
        "of netbed's topology format, in virtual time) and print the times as\n"
        "eco-bench does.\n"
        "\n"
        "  -t, --topology=FILE  the network (tests/netbed/README.md; eco-sim(1) adds\n"
        "                       'segments PREFIX COUNT RATE [in GROUP] hosts K')\n"
        "  -o, --op=OP          bcast reduce allreduce gather allgather scatter\n"
        "                       alltoall barrier scan (default bcast)\n"
        "  -s, --sizes=LIST     message sizes in bytes per member, comma separated\n"
        "                       (default 1000,16000,262144)\n"
        "  -p, --patterns=LIST  eco star binary kary3 chain (default: all; pvm and\n"
        "                       openmpi are not this library's code: skipped)\n"
        "  -r, --root=R         root rank (default 0, on the topology's first host)\n"
        "  -c, --csv            print CSV instead of the table: a header line, then\n"
        "                       op,bytes,pattern,median_seconds,min_seconds rows\n"
        "  -S, --subnets=FILE   use this subnet file (and its cost model) instead of\n"
        "                       the topology's true segments\n"
        "  -n, --tasks=N        members in all, spread over the hosts in turn\n"
        "                       (default: one per host)\n"
        "  -i, --iters=N        iterations per size and pattern (default 1: the\n"
        "                       simulation is deterministic)\n"
        "  -D, --no-data        only sizes travel (automatic when the members'\n"
        "                       buffers would pass 1 GiB)\n"
        "  -a, --alpha=SECONDS  cost of a message between hosts, half at each end\n"
        "                       (default: the subnet file's measured busy cost,\n"
        "                       else the cost model's, 40e-6)\n"
        "  -b, --burst=BYTES    every link a token bucket of BYTES: it passes that\n"
        "                       much at once after it has idled; 'netbed': netbed's\n"
        "                       tbf, 3028 bytes (default 0: a plain wire at its\n"
        "                       rate)\n"
        "      --socket-bytes=BYTES  a send between hosts returns when all but BYTES\n"
        "                       of what the sender queued for that member is\n"
        "                       through, as PVM's does (default 32768, PVM's socket\n"
        "                       buffer; 0: when it leaves)\n"
        "      --mtu=BYTES      every link stores and forwards packets of BYTES:\n"
        "                       each link a message crosses but the slowest adds\n"
        "                       a packet's time at its rate (default 0: a fluid\n"
        "                       wire)\n"
        "      --frame=BYTES    every link carries BYTES of headers per packet of\n"
        "                       1448 bytes of a message (TCP's MSS), so b bytes take\n"
        "                       b + ceil(b / 1448) * BYTES at its rate; --burst and\n"
        "                       --mtu count them too (default 66: Ethernet 14 + IP\n"
        "                       20 + TCP 32, what netbed's tbf and an Ethernet link\n"
        "                       carry; 0: the message alone)\n"
        "      --cores=N        the hosts' members share N cores (netbed: the\n"
        "                       machine's): with a subnet file's busy cost a\n"
        "                       message costs less while fewer members run\n"
        "                       (default: the file's 'model cores', else 0: every\n"
        "                       host its own CPUs)\n"
        "      --acks           time the acknowledgements that tell the root every\n"
        "                       member is done, as eco-bench does\n"
        "  -h, --help           show this help and exit\n"
        "  -V, --version        show the version and exit\n"
        "\n"
        "The run's members, messages, wall time and memory go to standard error.\n"
        "Exit status: 0 success, 1 a collective failed, 2 usage, 3 cannot start (a bad\n"
        "topology or subnet file, out of memory).  See eco-sim(1).\n");
}

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, PROG ": ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry '" PROG " --help' for more information.\n");
    return 2;
}

/* ------------------------------------------------------------------ */
/* The map: the topology's true segments, costs and model              */
/* ------------------------------------------------------------------ */

/* The links from host node a to host node b: their count, and the
 * seconds 16 KiB spend on the shaped ones (netbed subnet-file's
 * synthetic costs), and the slowest one's seconds per byte (nic: a host
 * link's rate without its own). */
static int path(const ecoi_topo *t, int a, int b, double nic, double *probe, double *beta)
{
    int links = 0;

    *probe = *beta = 0;
    while (a != b) {
        int up = a >= 0 && (b < 0 || t->node[a].depth >= t->node[b].depth);
        int x = up ? a : b;
        double r = t->node[x].rate > 0 ? t->node[x].rate
                 : t->node[x].kind == ECOI_TOPO_HOST ? nic : 0;
        if (t->node[x].rate > 0)
            *probe += 16384.0 * 8 / r;
        if (r > 0 && 8 / r > *beta)
            *beta = 8 / r;
        links++;
        if (up)
            a = t->node[a].parent;
        else
            b = t->node[b].parent;
    }
    return links;
}

static double pair_cost(const ecoi_topo *t, int a, int b, double nic)
{
    double probe, beta;
    int links = path(t, a, b, nic, &probe, &beta);

    return (t->node[a].parent == t->node[b].parent ? 100e-6 : 50e-6 * links) + probe;
}

static int by_name(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/*
 * The map of the true segments: every pair inside a segment and one pair
 * (the first hosts) between two segments measured, as the characterizer's
 * sparse mode would; the model from the links' rates: per message the
 * defaults' alpha, per byte the slowest link between two subnets (two
 * hosts of a subnet), and each segment's link as its shared uplink.
 */
static eco_map *true_map(const ecoi_topo *t, const ecoi_sim_costs *c, char *err, size_t errlen)
{
    int nh = t->nhosts, S = t->nsegments, rc = ECO_OK;
    const char **names = malloc((size_t)nh * sizeof *names);
    int *sub = malloc((size_t)nh * sizeof *sub), *deg = malloc(((size_t)S + 1) * sizeof *deg);
    int *seg_of = calloc((size_t)t->nnodes, sizeof *seg_of), *rep = NULL;
    eco_map *m = NULL;

    if (!names || !sub || !deg || !seg_of)
        goto nomem;
    for (int s = 0; s < S; s++) {
        seg_of[t->segment[s]] = s;
        deg[s] = ECO_DEFAULT_DEGREE;
    }
    for (int h = 0; h < nh; h++)
        names[h] = t->node[t->host[h]].name;
    qsort(names, (size_t)nh, sizeof *names, by_name);
    if (!(m = ecoi_map_new_hosts(names, nh)))
        goto nomem;
    for (int h = 0; h < nh; h++)
        sub[h] = seg_of[t->node[ecoi_topo_find(t, names[h])].parent];
    if ((rc = ecoi_map_set_subnets(m, S, sub, deg)) != ECO_OK)
        goto fail;
    /* the pairs: inside each segment, and between segments' first hosts,
     * gathered and then merged at once (one by one they cost O(degree)
     * each: cubic in a segment's hosts) */
    {
        size_t np = 0, cap = 0;
        ecoi_pair *pairs = NULL;
        for (int s = 0; s < S; s++) {
            int first = t->segment[s] + 1;    /* a segment's hosts follow it */
            size_t k = 0;
            while (first + (int)k < t->nnodes && t->node[first + k].parent == t->segment[s])
                k++;
            cap += k * (k - (k > 0)) / 2 + (size_t)(S - s);
        }
        if (!(pairs = malloc((cap + 1) * sizeof *pairs)))
            goto nomem;
        for (int s = 0; s < S; s++) {
            int first = t->segment[s] + 1;
            for (int a = first; a < t->nnodes && t->node[a].parent == t->segment[s]; a++)
                for (int b = a + 1; b < t->nnodes && t->node[b].parent == t->segment[s]; b++)
                    pairs[np++] = (ecoi_pair){ eco_map_find_host(m, t->node[a].name),
                                               eco_map_find_host(m, t->node[b].name), -1,
                                               pair_cost(t, a, b, c->nic_rate) };
            for (int u = s + 1; u < S; u++)
                pairs[np++] = (ecoi_pair){ eco_map_find_host(m, t->node[first].name),
                                           eco_map_find_host(m, t->node[t->segment[u] + 1].name),
                                           -1, pair_cost(t, first, t->segment[u] + 1,
                                                         c->nic_rate) };
        }
        rc = ecoi_map_add_pairs(m, pairs, np);
        free(pairs);
    }
    if (rc != ECO_OK)
        goto fail;
    /* the model, by the map's subnet numbers (canonical: renumbered) */
    if (!(rep = malloc(((size_t)S + 1) * sizeof *rep)) || !(m->model = ecoi_model_default(m)))
        goto nomem;
    for (int h = nh - 1; h >= 0; h--)
        rep[m->subnet[h]] = ecoi_topo_find(t, m->host[h]);
    for (int s = 0; s < S; s++) {
        double probe, beta, r = t->node[t->node[rep[s]].parent].rate;
        m->model->uplink[s] = r > 0 ? 8 / r : 0;
        for (int u = 0; u < S; u++) {
            int b = rep[u];
            if (u == s) {      /* two hosts of s, when it has two */
                int seg = t->node[rep[s]].parent;
                b = rep[s] + 1 < t->nnodes && t->node[rep[s] + 1].parent == seg ? rep[s] + 1
                  : t->node[rep[s] - 1].parent == seg ? rep[s] - 1 : rep[s];
            }
            path(t, rep[s], b, c->nic_rate, &probe, &beta);
            m->model->link[s * S + u].alpha = c->alpha_hosts;
            m->model->link[s * S + u].beta = beta > 0 ? beta : 8 / c->nic_rate;
        }
    }
    free(names);
    free(sub);
    free(deg);
    free(seg_of);
    free(rep);
    return m;
nomem:
    rc = ECO_ERR_NOMEM;
fail:
    snprintf(err, errlen, "the topology's map: %s", eco_strerror(rc));
    free(names);
    free(sub);
    free(deg);
    free(seg_of);
    free(rep);
    eco_map_free(m);
    return NULL;
}

/* ------------------------------------------------------------------ */
/* The members                                                         */
/* ------------------------------------------------------------------ */

static int elem_size(int op)
{
    return op == 1 || op == 2 || op == 8 ? 8 : 1;
}

static int run_op(eco_ctx *ctx, int op, char *a, char *b, int count, int root)
{
    int dt = elem_size(op) == 8 ? PVM_DOUBLE : PVM_BYTE;

    switch (op) {
    case 0: return eco_bcast(ctx, a, count, dt, root);
    case 1: return eco_reduce(ctx, a, b, count, dt, ECO_SUM, root);
    case 2: return eco_reduce(ctx, a, b, count, dt, ECO_SUM, ECO_ALL);
    case 3: return eco_gather(ctx, a, b, count, dt, root);
    case 4: return eco_gather(ctx, a, b, count, dt, ECO_ALL);
    case 5: return eco_scatter(ctx, b, a, count, dt, root);
    case 6: return eco_alltoall(ctx, b, a, count, dt);
    case 7: return eco_barrier(ctx);
    default: return eco_scan(ctx, a, b, count, dt, ECO_SUM);
    }
}

/* eco-bench's acknowledgements after an operation: every member but the
 * root sends the root an empty message, which takes them all (in rank
 * order; eco-bench in order of arrival).  Their tag is half the tag space
 * from the operation's call, so no call of the library takes it for one
 * of its own (ecoi_tag_stale). */
static int acknowledge(const sim_run *R, int rank)
{
    ecoi_transport *tp = ecoi_sim_transport(R->sim, rank);
    int tag = ECOI_TAG_BASE | ((tp->call_tag + (ECOI_TAG_MASK + 1) / 2) & ECOI_TAG_MASK), rc;

    tp->sig = (ecoi_sig){ 0, 0, 0, 0, 0 };
    if (rank != R->root)
        return tp->send(tp, R->root, tag, NULL, 0, PVM_BYTE);
    rc = ECO_OK;
    for (int j = 0; j < R->n && rc == ECO_OK; j++)
        if (j != rank)
            rc = tp->recv(tp, j, tag, NULL, 0, PVM_BYTE, NULL, 0);
    return rc;
}

static void member(int rank, void *arg)
{
    sim_run *R = arg;
    eco_ctx *ctx = R->ctx[rank];
    char *a = R->shared_a, *b = R->shared_b;

    if (R->data && (!(a = calloc(1, R->cap)) || !(b = calloc(1, R->cap)))) {
        fprintf(stderr, PROG ": rank %d: out of memory (%zu bytes)\n", rank, R->cap);
        R->failed = 1;
    }
    for (int i = 0; i < R->nsizes && a && b; i++)
        for (int k = 0; k < R->iters; k++)
            for (int p = 0; p < R->npat; p++) {
                size_t slot = ((size_t)i * R->iters + k) * R->npat + p;
                int rc;
                /* the pattern is share's (set once, in setup): a shared
                 * context takes its trees and choices from there */
                ctx->share = R->share[p];
                rc = eco_barrier(ctx);
                if (rank == R->root)
                    R->start[slot] = ecoi_sim_clock(R->sim, rank);
                if (rc == ECO_OK)
                    rc = run_op(ctx, R->op, a, b, R->sizes[i] / elem_size(R->op), R->root);
                if (rc == ECO_OK && R->acks)
                    rc = acknowledge(R, rank);
                R->end[slot] = fmax(R->end[slot], ecoi_sim_clock(R->sim, rank));
                if (rc != ECO_OK && !R->failed) {
                    fprintf(stderr, PROG ": rank %d: %s (%s, %d bytes) failed: %s\n", rank,
                            op_names[R->op], pattern_names[R->pat[p]], R->sizes[i],
                            eco_strerror(rc));
                    R->failed = 1;
                }
            }
    if (R->data) {
        free(a);
        free(b);
    }
}

/* ------------------------------------------------------------------ */
/* Output: eco-bench's table and CSV                                   */
/* ------------------------------------------------------------------ */

static int bytes_of(const sim_run *R, int i)
{
    return R->sizes[i] / elem_size(R->op) * elem_size(R->op);
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

/* The median and minimum over the iterations of size i, pattern p. */
static void stats(const sim_run *R, int i, int p, double *med, double *min)
{
    double t[R->iters];

    for (int k = 0; k < R->iters; k++) {
        size_t slot = ((size_t)i * R->iters + k) * R->npat + p;
        t[k] = R->end[slot] - R->start[slot];
    }
    qsort(t, (size_t)R->iters, sizeof t[0], cmp_double);
    *min = t[0];
    *med = R->iters % 2 ? t[R->iters / 2] : (t[R->iters / 2 - 1] + t[R->iters / 2]) / 2;
}

static void print_csv(const sim_run *R)
{
    double med, min;

    printf("op,bytes,pattern,median_seconds,min_seconds\n");
    for (int i = 0; i < R->nsizes; i++)
        for (int p = 0; p < R->npat; p++) {
            stats(R, i, p, &med, &min);
            printf("%s,%d,%s,%.9f,%.9f\n", op_names[R->op], bytes_of(R, i),
                   pattern_names[R->pat[p]], med, min);
        }
}

static void print_table(const sim_run *R, const ecoi_topo *t)
{
    int eco = -1, root_host = t->host[R->root % t->nhosts];
    double med, min, eco_med = 0, lim[MAXS];
    int limits = 1;

    for (int p = 0; p < R->npat; p++)
        if (R->pat[p] == 0)
            eco = p;
    printf("# " PROG ": %d tasks, root %d\n", R->n, R->root);
    printf("# %s: completion time, median (minimum) in ms over %d iterations%s\n",
           op_names[R->op], R->iters, eco >= 0 ? "; xN = times eco's median" : "");
    for (int i = 0; i < R->nsizes; i++)   /* none for a barrier */
        if ((lim[i] = ecoi_topo_link_limit(t, op_coll[R->op], root_host, bytes_of(R, i))) < 0)
            limits = 0;
    printf("%10s", "bytes");
    if (limits)
        printf(" %10s", "link-limit");
    for (int p = 0; p < R->npat; p++)
        printf(" %24s", pattern_names[R->pat[p]]);
    printf(eco >= 0 ? "  %-12s %9s\n" : "\n", "eco-chose", "predicted");
    for (int i = 0; i < R->nsizes; i++) {
        ecoi_plan plan;
        printf("%10d", bytes_of(R, i));
        if (limits)
            printf(" %10.3f", lim[i] * 1e3);
        if (eco >= 0)
            stats(R, i, eco, &eco_med, &min);
        for (int p = 0; p < R->npat; p++) {
            char cell[64];
            stats(R, i, p, &med, &min);
            int k = snprintf(cell, sizeof cell, "%.3f (%.3f)", med * 1e3, min * 1e3);
            if (p != eco && eco >= 0 && eco_med > 0)
                snprintf(cell + k, sizeof cell - (size_t)k, " x%.2f", med / eco_med);
            printf(" %24s", cell);
        }
        /* what eco chose and predicted: the library's own choice */
        if (eco >= 0 && ecoi_select(R->share[eco], op_coll[R->op],
                                    R->op == 0 || R->op == 1 || R->op == 3 || R->op == 5
                                        ? R->root : 0,
                                    R->op == 7 ? 0 : (size_t)bytes_of(R, i), &plan) == ECO_OK)
            printf("  %-12s %9.3f", ecoi_algorithm_at(plan.algorithm)->name,
                   plan.seconds * 1e3);
        printf("\n");
    }
}

/* ------------------------------------------------------------------ */
/* Options                                                             */
/* ------------------------------------------------------------------ */

typedef struct options {
    const char *topology, *subnets;
    int csv, tasks, nodata;
    double alpha, burst;     /* burst < 0: netbed's tbf */
    double socket;           /* the hold's bytes (ecoi_sim_costs) */
    double mtu;              /* store and forward's packet (ecoi_sim_costs) */
    double frame;            /* headers per packet (ecoi_sim_costs) */
    double cores;            /* the cores the hosts share (ecoi_sim_costs);
                              * < 0: not given, the subnet file's */
} options;

/* long options without a letter */
enum { OPT_SOCKET = 256, OPT_MTU, OPT_FRAME, OPT_CORES, OPT_ACKS };

static int parse_args(int argc, char **argv, sim_run *R, options *o)
{
    static const struct option opts[] = {
        { "topology", required_argument, NULL, 't' }, { "op", required_argument, NULL, 'o' },
        { "sizes", required_argument, NULL, 's' }, { "patterns", required_argument, NULL, 'p' },
        { "root", required_argument, NULL, 'r' }, { "csv", no_argument, NULL, 'c' },
        { "subnets", required_argument, NULL, 'S' }, { "tasks", required_argument, NULL, 'n' },
        { "iters", required_argument, NULL, 'i' }, { "no-data", no_argument, NULL, 'D' },
        { "alpha", required_argument, NULL, 'a' }, { "burst", required_argument, NULL, 'b' },
        { "socket-bytes", required_argument, NULL, OPT_SOCKET },
        { "mtu", required_argument, NULL, OPT_MTU },
        { "frame", required_argument, NULL, OPT_FRAME },
        { "cores", required_argument, NULL, OPT_CORES },
        { "acks", no_argument, NULL, OPT_ACKS },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' }, { NULL, 0, NULL, 0 }
    };
    int c, pat[MAXP], np;
    long v;
    char *end;

    opterr = 0;
    while ((c = getopt_long(argc, argv, ":t:o:s:p:r:cS:n:i:Da:b:hV", opts, NULL)) != -1) {
        switch (c) {
        case 't': o->topology = optarg; break;
        case 'S': o->subnets = optarg; break;
        case 'c': o->csv = 1; break;
        case 'D': o->nodata = 1; break;
        case 'o':
            if (ecoc_parse_list(optarg, op_names, NOPS, &R->op, 1) != 1)
                return usage_error("unknown operation '%s'", optarg);
            break;
        case 's':
            if ((R->nsizes = ecoc_parse_list(optarg, NULL, 0, R->sizes, MAXS)) < 0)
                return usage_error("bad size list '%s' (at most 64 sizes, 0..268435456)",
                                   optarg);
            break;
        case 'p':
            if ((np = ecoc_parse_list(optarg, pattern_names, NPATTERNS, pat, MAXP)) < 0)
                return usage_error("bad pattern list '%s'", optarg);
            R->npat = 0;
            for (int i = 0; i < np; i++)
                if (FOREIGN(pat[i]))
                    fprintf(stderr, PROG ": pattern %s skipped: not this library's code\n",
                            pattern_names[pat[i]]);
                else
                    R->pat[R->npat++] = pat[i];
            if (R->npat == 0)
                return usage_error("no pattern to simulate in '%s'", optarg);
            break;
        case 'r':
            if ((v = ecoc_number(optarg, 0, 1 << 24)) < 0)
                return usage_error("bad root '%s'", optarg);
            R->root = (int)v;
            break;
        case 'n':
            if ((v = ecoc_number(optarg, 1, 1 << 24)) < 0)
                return usage_error("bad task count '%s'", optarg);
            o->tasks = (int)v;
            break;
        case 'i':
            if ((v = ecoc_number(optarg, 1, 1 << 16)) < 0)
                return usage_error("bad iteration count '%s'", optarg);
            R->iters = (int)v;
            break;
        case 'a':
            o->alpha = strtod(optarg, &end);
            if (end == optarg || *end || !(o->alpha >= 0) || o->alpha > 1)
                return usage_error("bad alpha '%s' (seconds, 0 to 1)", optarg);
            break;
        case 'b':
            if (strcmp(optarg, "netbed") == 0)
                o->burst = -1;
            else if ((v = ecoc_number(optarg, 0, 1L << 30)) >= 0)
                o->burst = (double)v;
            else
                return usage_error("bad burst '%s' (bytes, 0 to 1073741824, or netbed)",
                                   optarg);
            break;
        case OPT_SOCKET:
            if ((v = ecoc_number(optarg, 0, 1L << 30)) < 0)
                return usage_error("bad socket bytes '%s' (0 to 1073741824)", optarg);
            o->socket = (double)v;
            break;
        case OPT_MTU:
            if ((v = ecoc_number(optarg, 0, 1L << 20)) < 0)
                return usage_error("bad MTU '%s' (bytes, 0 to 1048576)", optarg);
            o->mtu = (double)v;
            break;
        case OPT_FRAME:
            if ((v = ecoc_number(optarg, 0, 65536)) < 0)
                return usage_error("bad frame '%s' (header bytes per packet, 0 to 65536)",
                                   optarg);
            o->frame = (double)v;
            break;
        case OPT_CORES:
            if ((v = ecoc_number(optarg, 0, 1 << 20)) < 0)
                return usage_error("bad cores '%s' (0 to 1048576)", optarg);
            o->cores = (double)v;
            break;
        case OPT_ACKS: R->acks = 1; break;
        case 'h': usage(stdout); return 0;
        case 'V': printf(PROG " (libeco) " PACKAGE_VERSION "\n"); return 0;
        case ':': return usage_error("option '%s' needs an argument", argv[optind - 1]);
        default: return usage_error("unrecognized option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return usage_error("unexpected argument '%s'", argv[optind]);
    if (!o->topology)
        return usage_error("%s", "no --topology given");
    return -1;
}

/* ------------------------------------------------------------------ */
/* The run                                                             */
/* ------------------------------------------------------------------ */

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The map (the subnet file's, or the topology's true segments) and every
 * member's host in it. */
static eco_map *load_map(const options *o, const ecoi_topo *t, const ecoi_sim_costs *c,
                         const int *host_of, int n, int *member_host)
{
    char err[512] = "";
    eco_map *m = NULL;

    if (o->subnets ? eco_map_read(o->subnets, &m, err, sizeof err) != ECO_OK
                   : !(m = true_map(t, c, err, sizeof err))) {
        fprintf(stderr, PROG ": %s\n", err);
        return NULL;
    }
    for (int r = 0; r < n; r++)
        if ((member_host[r] = eco_map_find_host(m, t->node[host_of[r]].name)) < 0) {
            fprintf(stderr, PROG ": host %s is not in %s\n", t->node[host_of[r]].name,
                    o->subnets);
            eco_map_free(m);
            return NULL;
        }
    return m;
}

static int setup(sim_run *R, const options *o, const ecoi_topo *t, const ecoi_sim_costs *c)
{
    int *host_of = malloc((size_t)R->n * sizeof *host_of);
    int *mh = malloc((size_t)R->n * sizeof *mh), rc = ECO_ERR_NOMEM;
    size_t slots = (size_t)R->nsizes * R->iters * R->npat;
    eco_map *m;

    if (!host_of || !mh)
        goto out;
    for (int r = 0; r < R->n; r++)
        host_of[r] = t->host[r % t->nhosts];
    if (!(m = load_map(o, t, c, host_of, R->n, mh))) {
        rc = ECO_ERR_FORMAT;
        goto out;
    }
    {
        /* A subnet file with a measured model: a message costs what its
         * busy cost says (PVM's per message when every host sends: one
         * probe on each of the file's hosts), on --cores shared cores
         * (not given: the file's model cores, 0 when it has none: each
         * host its own CPUs) less while fewer members run
         * (ecoi_busy_at), at least the
         * least one-way alpha of a pair, and each byte the stepbyte in
         * the share of the members running (ecoi_step_share); unless
         * --alpha says otherwise. */
        ecoi_sim_costs cc = *c;
        if (o->subnets && o->alpha < 0 && m->model && m->model->busy > 0) {
            int S = m->model->nsubnets;
            cc.alpha_hosts = m->model->busy;
            cc.busy_members = m->nhosts;
            cc.cores = o->cores >= 0 ? o->cores : m->model->cores;
            cc.alpha_quiet = S > 0 ? m->model->link[0].alpha : 0;
            cc.stepbyte = m->model->stepbyte;
            for (int k = 1; k < S * S; k++)
                cc.alpha_quiet = fmin(cc.alpha_quiet, m->model->link[k].alpha);
        }
        R->sim = ecoi_sim_new(R->n, t, host_of, &cc, R->data);
    }
    R->ctx = calloc((size_t)R->n, sizeof *R->ctx);
    R->start = calloc(slots, sizeof *R->start);
    R->end = calloc(slots, sizeof *R->end);
    if (!R->sim || !R->ctx || !R->start || !R->end) {
        eco_map_free(m);
        goto out;
    }
    /* Each pattern's shared context; the first owns the map. */
    for (int p = 0; p < R->npat; p++) {
        if ((rc = ecoi_ctx_create(R->n, 0, p ? NULL : m, mh, ecoi_sim_transport(R->sim, 0),
                                  &R->share[p])) != ECO_OK) {
            if (p == 0)
                eco_map_free(m);
            goto out;
        }
        R->share[p]->map = m;
        eco_set_pattern(R->share[p], pattern_names[R->pat[p]]);
    }
    for (int r = 0; r < R->n; r++)
        if ((rc = ecoi_ctx_create_shared(R->share[0], r, ecoi_sim_transport(R->sim, r),
                                         &R->ctx[r])) != ECO_OK)
            goto out;
    if (!R->data && (!(R->shared_a = calloc(1, R->cap)) || !(R->shared_b = calloc(1, R->cap))))
        rc = ECO_ERR_NOMEM;
out:
    free(host_of);
    free(mh);
    return rc;
}

static void teardown(sim_run *R)
{
    for (int r = 0; R->ctx && r < R->n; r++)
        eco_finalize(R->ctx[r]);
    /* the map is the first context's */
    for (int p = R->npat - 1; p >= 0; p--) {
        if (p > 0 && R->share[p])
            R->share[p]->map = NULL;
        eco_finalize(R->share[p]);
    }
    ecoi_sim_free(R->sim);
    free(R->ctx);
    free(R->start);
    free(R->end);
    free(R->shared_a);
    free(R->shared_b);
}

int main(int argc, char **argv)
{
    sim_run R;
    options o;
    ecoi_topo *t = NULL;
    ecoi_sim_costs costs;
    char err[512];
    int rc;
    size_t biggest = 8;
    double w0 = wall();

    memset(&R, 0, sizeof R);
    memset(&o, 0, sizeof o);
    o.alpha = -1;
    o.socket = ECOI_SIM_SOCKET_BYTES;
    o.frame = ECOI_SIM_FRAME_BYTES;
    o.cores = -1;
    R.iters = 1;
    R.nsizes = ecoc_parse_list("1000,16000,262144", NULL, 0, R.sizes, MAXS);
    for (int p = 0; p < NPATTERNS; p++)
        if (!FOREIGN(p))
            R.pat[R.npat++] = p;
    if ((rc = parse_args(argc, argv, &R, &o)) >= 0)
        return rc;
    if (ecoi_topo_read(o.topology, &t, err, sizeof err) != ECO_OK) {
        fprintf(stderr, PROG ": %s\n", err);
        return 3;
    }
    R.n = o.tasks ? o.tasks : t->nhosts;
    if (R.root >= R.n) {
        ecoi_topo_free(t);
        fprintf(stderr, PROG ": root %d out of range 0..%d\n", R.root, R.n - 1);
        fprintf(stderr, "Try '" PROG " --help' for more information.\n");
        return 2;
    }
    ecoi_sim_costs_default(&costs);
    if (o.alpha >= 0)
        costs.alpha_hosts = o.alpha;
    /* netbed's tbf: tests/netbed/README.md, "Shaping" */
    costs.burst_bytes = o.burst >= 0 ? o.burst : ECOI_SIM_NETBED_BURST_BYTES;
    costs.burst_seconds = o.burst >= 0 ? 0 : ECOI_SIM_NETBED_BURST_SECONDS;
    costs.socket_bytes = o.socket;
    costs.mtu_bytes = o.mtu;
    costs.frame_bytes = o.frame;
    for (int i = 0; i < R.nsizes; i++)
        if ((size_t)R.sizes[i] > biggest)
            biggest = (size_t)R.sizes[i];
    R.cap = biggest * (size_t)R.n + 64;
    R.data = !o.nodata && 2.0 * (double)R.cap * R.n <= DATA_LIMIT;
    if ((rc = setup(&R, &o, t, &costs)) != ECO_OK ||
        (rc = ecoi_sim_run(R.sim, member, &R, 0)) != ECO_OK) {
        if (rc != ECO_ERR_FORMAT)
            fprintf(stderr, PROG ": cannot start %d members: %s\n", R.n, eco_strerror(rc));
        teardown(&R);
        ecoi_topo_free(t);
        return 3;
    }
    if (!R.failed) {
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        fprintf(stderr, "# " PROG ": %d members on %d hosts, %s, %ld messages, "
                "%.2f s wall, %.0f MB max RSS\n", R.n, t->nhosts,
                R.data ? "data" : "no data", ecoi_sim_messages(R.sim), wall() - w0,
                ru.ru_maxrss / 1024.0);
        if (o.csv)
            print_csv(&R);
        else
            print_table(&R, t);
    }
    rc = R.failed ? 1 : 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, PROG ": cannot write standard output: %s\n", strerror(errno));
        rc = 1;
    }
    teardown(&R);
    ecoi_topo_free(t);
    return rc;
}
