/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * charutil.c -- the pure half of the characterization (no PVM): the
 * options both tools share, host lists, statistics, the result's
 * partition, the commit of the matrix and the subnet file, and the
 * summary.  See eco_char.h; the matrix writer is in costs.c beside its
 * reader, the cheap mode in sparse.c.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "eco_char.h"
#include "eco_atomic.h"
#include "eco_map_impl.h" /* the cost model, r->map->model (summary) */

/* ------------------------------------------------------------------ */
/* Options                                                             */
/* ------------------------------------------------------------------ */

void ecoc_options_init(ecoc_options *o)
{
    memset(o, 0, sizeof *o);
    o->size = ECOC_DEFAULT_SIZE;
    o->trials = ECOC_DEFAULT_TRIALS;
    o->rounds = ECOC_DEFAULT_ROUNDS;
    o->mode = ECOC_MODE_AUTO;
    o->degree = 0;
    o->degree_trials = ECOC_DEFAULT_DEGREE_TRIALS;
    o->threshold = ECO_DEFAULT_THRESHOLD;
    o->rate = 0.0;
    o->timeout = ECOC_DEFAULT_TIMEOUT;
    o->hops = 1;
    o->model = 1;
}

/* A whole decimal integer in [lo, hi]. */
static int parse_int(const char *s, long lo, long hi, long *out)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* A whole finite decimal number >= 0. */
static int parse_nonneg(const char *s, double *out)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v < 0.0)
        return -1;
    *out = v;
    return 0;
}

static int bad(char *why, size_t len, const char *what, const char *arg)
{
    snprintf(why, len, "invalid %s '%s'", what, arg);
    return -1;
}

int ecoc_option(ecoc_options *o, int code, const char *arg, char *why, size_t len)
{
    long v;

    switch (code) {
    case ECOC_OPT_HOSTS:
        o->hosts = arg;
        return 0;
    case ECOC_OPT_SIZE:
        if (parse_int(arg, 1, 64L << 20, &v))
            return bad(why, len, "--size (1 to 67108864 bytes)", arg);
        o->size = (int)v;
        return 0;
    case ECOC_OPT_TRIALS:
        if (parse_int(arg, 1, 10000, &v))
            return bad(why, len, "--trials (1 to 10000)", arg);
        o->trials = (int)v;
        return 0;
    case ECOC_OPT_ROUNDS:
        if (parse_int(arg, 1, 100000, &v))
            return bad(why, len, "--rounds (1 to 100000)", arg);
        o->rounds = (int)v;
        return 0;
    case ECOC_OPT_MODE:
        if (strcmp(arg, "auto") == 0)
            o->mode = ECOC_MODE_AUTO;
        else if (strcmp(arg, "all") == 0)
            o->mode = ECOC_MODE_ALL;
        else if (strcmp(arg, "sparse") == 0)
            o->mode = ECOC_MODE_SPARSE;
        else
            return bad(why, len, "--mode (auto, all or sparse)", arg);
        return 0;
    case ECOC_OPT_DEGREE:
        if (strcmp(arg, "auto") == 0)
            o->degree = 0;
        else if (parse_int(arg, 1, ECO_MAX_DEGREE, &v))
            return bad(why, len, "--degree (auto or 1 to 64)", arg);
        else
            o->degree = (int)v;
        return 0;
    case ECOC_OPT_DEGREE_TRIALS:
        if (parse_int(arg, 1, 10000, &v))
            return bad(why, len, "--degree-trials (1 to 10000)", arg);
        o->degree_trials = (int)v;
        return 0;
    case ECOC_OPT_THRESHOLD:
        if (parse_nonneg(arg, &o->threshold))
            return bad(why, len, "--threshold (a number >= 0)", arg);
        return 0;
    case ECOC_OPT_RATE:
        if (parse_nonneg(arg, &o->rate))
            return bad(why, len, "--rate (pairs per second, 0 for no limit)", arg);
        return 0;
    case ECOC_OPT_TIMEOUT:
        if (parse_nonneg(arg, &o->timeout))
            return bad(why, len, "--timeout (seconds, 0 for none)", arg);
        return 0;
    case ECOC_OPT_PROBE:
        o->probe = arg;
        return 0;
    case ECOC_OPT_NO_HOPS:
        o->hops = 0;
        return 0;
    case ECOC_OPT_NO_MODEL:
        o->model = 0;
        return 0;
    default:
        snprintf(why, len, "unknown option");
        return -1;
    }
}

void ecoc_options_help(FILE *out)
{
    fprintf(out,
            "Measurement:\n"
            "      --hosts=LIST        probe these hosts of the virtual machine (comma-\n"
            "                          separated pvm_config names; LABEL@HOST probes HOST\n"
            "                          under the name LABEL); default: every host\n"
            "      --size=BYTES        probe message size (default %d)\n"
            "      --trials=N          samples per pair; the minimum is kept (default %d)\n"
            "      --rounds=N          round trips per sample (default %d)\n"
            "      --mode=MODE         all: every pair; sparse: the cheap mode; auto: all\n"
            "                          up to %d hosts, else sparse (default auto)\n"
            "      --degree=K|auto     k of every subnet's tree, or auto to choose it by\n"
            "                          timed broadcasts with k = 1..%d (default auto)\n"
            "      --degree-trials=N   timed broadcasts per k (default %d)\n"
            "      --threshold=T       partitioning threshold (default %g, i.e. 20%%)\n"
            "      --rate=R            start at most R pairs per second (default 0: no\n"
            "                          limit)\n"
            "      --timeout=SECONDS   give up on a pair or a k after this long (default\n"
            "                          %g; 0: wait forever)\n"
            "      --no-hops           do not count the routers between hosts (UDP\n"
            "                          datagrams between the probes; they place hosts that\n"
            "                          costs cannot, such as slow hosts on a fast switch)\n"
            "      --no-model          do not measure the cost model (per-message and\n"
            "                          per-byte costs, shared links; a few seconds): the\n"
            "                          library then predicts with its defaults\n"
            "      --probe=PATH        the probe program (default: eco-probe next to this\n"
            "                          program, else " ECO_PKGLIBEXECDIR "/eco-probe)\n",
            ECOC_DEFAULT_SIZE, ECOC_DEFAULT_TRIALS, ECOC_DEFAULT_ROUNDS,
            ECOC_AUTO_SPARSE_ABOVE, ECOC_MAX_TRY_DEGREE, ECOC_DEFAULT_DEGREE_TRIALS,
            ECO_DEFAULT_THRESHOLD, ECOC_DEFAULT_TIMEOUT);
}

/* ------------------------------------------------------------------ */
/* Hosts                                                               */
/* ------------------------------------------------------------------ */

/* A valid subnet-file host name: 1..255 bytes, no space, no '#'. */
static int name_ok(const char *s, size_t len)
{
    if (len == 0 || len > ECO_MAX_HOSTNAME)
        return 0;
    for (size_t i = 0; i < len; i++)
        if (s[i] == '#' || s[i] == ' ' || s[i] == '\t' || s[i] == '\n' ||
            s[i] == '\r' || s[i] == '\v' || s[i] == '\f' || s[i] == '\0')
            return 0;
    return 1;
}

void ecoc_hosts_free(ecoc_host *hosts, int n)
{
    for (int i = 0; hosts && i < n; i++) {
        free(hosts[i].name);
        free(hosts[i].pvmhost);
    }
    free(hosts);
}

/* One "NAME" or "LABEL@HOST" entry of len bytes into h. */
static int parse_entry(const char *s, size_t len, ecoc_host *h, char *why, size_t wlen)
{
    const char *at = memchr(s, '@', len);
    size_t nl = at ? (size_t)(at - s) : len;
    size_t hl = at ? len - nl - 1 : len;
    const char *hs = at ? at + 1 : s;

    if (!name_ok(s, nl) || !name_ok(hs, hl) || (at && memchr(hs, '@', hl))) {
        snprintf(why, wlen, "invalid host '%.*s' in --hosts", (int)(len > 300 ? 300 : len), s);
        return -1;
    }
    h->name = strndup(s, nl);
    h->pvmhost = strndup(hs, hl);
    if (!h->name || !h->pvmhost) {
        snprintf(why, wlen, "%s", eco_strerror(ECO_ERR_NOMEM));
        return -1;
    }
    return 0;
}

int ecoc_parse_hosts(const char *list, ecoc_host **hosts, int *n, char *why, size_t len)
{
    size_t cap = 1;
    ecoc_host *h;
    const char *p;
    int count = 0;

    *hosts = NULL;
    *n = 0;
    for (p = list; *p; p++)
        cap += *p == ',';
    if (!(h = calloc(cap, sizeof *h))) {
        snprintf(why, len, "%s", eco_strerror(ECO_ERR_NOMEM));
        return -1;
    }
    for (p = list;; ) {
        size_t l = strcspn(p, ",");
        if (parse_entry(p, l, &h[count], why, len) != 0) {
            ecoc_hosts_free(h, count + 1);
            return -1;
        }
        for (int i = 0; i < count; i++)
            if (strcmp(h[i].name, h[count].name) == 0) {
                snprintf(why, len, "host '%s' given twice in --hosts", h[count].name);
                ecoc_hosts_free(h, count + 1);
                return -1;
            }
        count++;
        if (!p[l])
            break;
        p += l + 1;
    }
    *hosts = h;
    *n = count;
    return 0;
}

/* ------------------------------------------------------------------ */
/* Statistics and formatting                                           */
/* ------------------------------------------------------------------ */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void ecoc_stat_of(double *samples, int n, ecoc_stat *st)
{
    memset(st, 0, sizeof *st);
    if (n <= 0)
        return;
    qsort(samples, (size_t)n, sizeof *samples, cmp_double);
    st->n = n;
    st->min = samples[0];
    st->max = samples[n - 1];
    st->median = n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2.0;
}

const char *ecoc_fmt_time(double s, char *buf, size_t len)
{
    if (s < 0.0)
        snprintf(buf, len, "-");
    else if (s < 1e-3)
        snprintf(buf, len, "%.1f us", s * 1e6);
    else if (s < 1.0)
        snprintf(buf, len, "%.2f ms", s * 1e3);
    else
        snprintf(buf, len, "%.3f s", s);
    return buf;
}

const char *ecoc_fmt_clock(double s, char *buf, size_t len)
{
    long t = s > 0 ? (long)(s + 0.5) : 0;

    if (t >= 3600)
        snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(buf, len, "%ld:%02ld", t / 60, t % 60);
    return buf;
}

/* ------------------------------------------------------------------ */
/* The result                                                          */
/* ------------------------------------------------------------------ */

static int by_machine(const void *a, const void *b)
{
    const ecoc_machine *x = *(const ecoc_machine *const *)a;
    const ecoc_machine *y = *(const ecoc_machine *const *)b;

    return strcmp(x->id, y->id);
}

/*
 * The model's cores.  lib/select.c's ecoi_busy_at counts members on
 * `cores` shared cores: a message's CPU time stretched by max(r, C) / C
 * while r run.  Hosts on separate machines share nothing (0: each its
 * own CPUs).  Hosts of one machine share its c CPUs: m of them there run
 * m / c a core.  The model has one count for all n hosts, so it takes
 * the most crowded machine (the largest m / c; its members are the
 * slowest, and a collective waits for its slowest) and the C at which n
 * hosts are that crowded: C = n c / m.  netbed's 8 emulated hosts on one
 * machine of 2 cores: 2; 4 of 8 hosts on a 2-core machine, the others
 * alone each: 8 x 2 / 4 = 4.  When no machine has more hosts than CPUs
 * (m <= c), none waits for a CPU: 0.  A host whose probe said no
 * machine (an older build, or no boot id) is its own machine: it
 * crowds none.
 */
double ecoc_shared_cores(int n, const ecoc_machine *mach, int *hosts, int *cpus)
{
    const ecoc_machine **by = n > 0 && mach ? malloc((size_t)n * sizeof *by) : NULL;
    int k = 0, best_m = 0, best_c = 0;

    for (int i = 0; by && i < n; i++)
        if (mach[i].id[0] && mach[i].cpus > 0)
            by[k++] = &mach[i];
    if (by)
        qsort(by, (size_t)k, sizeof *by, by_machine);
    for (int i = 0, j; i < k; i = j) {
        int m = 0, c = 0;
        for (j = i; j < k && strcmp(by[j]->id, by[i]->id) == 0; j++) {
            m++;
            c = by[j]->cpus > c ? by[j]->cpus : c; /* affinities may differ */
        }
        if (!best_m || (double)m * best_c > (double)best_m * c) {
            best_m = m;
            best_c = c;
        }
    }
    free(by);
    if (hosts)
        *hosts = best_m;
    if (cpus)
        *cpus = best_c;
    return best_m > best_c ? (double)n * best_c / best_m : 0.0;
}

void ecoc_result_free(ecoc_result *r)
{
    ecoc_hosts_free(r->host, r->n);
    free(r->machine);
    ecoc_pairs_free(r);
    free(r->degree);
    free(r->model.up);
    free(r->warnings);
    eco_map_free(r->map);
    memset(r, 0, sizeof *r);
}

int ecoc_warn(ecoc_result *r, const char *fmt, ...)
{
    size_t had = r->warnings ? strlen(r->warnings) : 0;
    va_list ap;
    char *grown;
    int len;

    va_start(ap, fmt);
    len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (len < 0 || !(grown = realloc(r->warnings, had + (size_t)len + 2)))
        return ECO_ERR_NOMEM;
    r->warnings = grown;
    va_start(ap, fmt);
    vsnprintf(grown + had, (size_t)len + 1, fmt, ap);
    va_end(ap);
    memcpy(grown + had + len, "\n", 2);
    return ECO_OK;
}

void ecoc_print_warnings(const ecoc_result *r, const char *prog, FILE *out)
{
    for (const char *w = r->warnings; w && *w;) {
        size_t n = strcspn(w, "\n");
        fprintf(out, "%s: warning: %.*s\n", prog, (int)n, w);
        w += n + (w[n] == '\n');
    }
}

void ecoc_fit(double t_small, int small, double t_big, int big, double *alpha, double *beta)
{
    double b = big > small ? (t_big - t_small) / (double)(big - small) : 0.0;

    *beta = b > 0.0 ? b : 0.0;
    *alpha = t_small - *beta * small;
    /* Below 0 at 0 bytes: the small probe did not pay the per-byte cost
     * (it passed within a shaped link's burst, at line rate); the small
     * probe's whole time is then the per-message cost. */
    if (*alpha < 0.0)
        *alpha = t_small > 0.0 ? t_small : 0.0;
}

void ecoc_fit_sustained(double t_small, int small, double t_big, int big, double t_short,
                        double t_long, double extra, double *alpha, double *beta)
{
    double b;

    ecoc_fit(t_small, small, t_big, big, alpha, beta);
    if (extra <= 0.0 || !(t_long > t_short))
        return;
    /* The larger slope: on a shaped link the probe's slope is the burst's
     * (a 16 KB probe passed mostly at line rate: 41.5 ns/byte on a
     * 100 Mbit/s port, 80 true); on a fast unshaped one the streams
     * overlap the copies that one message pays. */
    if ((b = (t_long - t_short) / extra) <= *beta)
        return;
    *beta = b;
    *alpha = t_small - b * small;
    if (*alpha < 0.0)
        *alpha = t_small > 0.0 ? t_small : 0.0;
}

/* A slope this much below beta at least, or no burst: on a fast link a
 * microsecond of timing noise is hundreds of bytes (loopback gave 2,069
 * and 3,760 bytes at 3.6 ns/byte); netbed's 10 Mbit/s links' probes are
 * 14-17% below. */
#define BURST_SLOPE 0.10

double ecoc_fit_burst(double t_small, int small, double t_big, int big, double beta)
{
    double b;

    if (!(beta > 0.0) || !isfinite(beta) || !isfinite(t_small) || !isfinite(t_big) ||
        big <= small)
        return 0.0;
    /* The probes' slope below the sustained beta is the bytes that did
     * not pay it: netbed's tbf lets 3,028 bytes (two frames) through at
     * line rate, and its 10 Mbit/s links' probes gave 7.1e-07 s/byte
     * where the streams gave 8.3e-07 to 8.6e-07.  A slope at beta or
     * above (an unshaped link, or the fit's own: the probes' slope is
     * beta when it is the larger), or less than BURST_SLOPE below it,
     * leaves no burst; the burst is of the bytes past the small probe's,
     * so no more than those.  Whole bytes: a fraction is the
     * arithmetic's, not the link's. */
    if ((t_big - t_small) / (double)(big - small) >= (1.0 - BURST_SLOPE) * beta)
        return 0.0;
    b = round((double)(big - small) - (t_big - t_small) / beta);
    return b < 0.0 ? 0.0 : b > big - small ? (double)(big - small) : b;
}

/* The hops of map hosts a and b: the result's, through of[]. */
typedef struct hops_of {
    const ecoc_result *r;
    const int *of;    /* [n] map host -> result host */
} hops_of;

static int result_hops(void *arg, int a, int b)
{
    const hops_of *h = arg;

    return ecoc_hops(h->r, h->of[a], h->of[b]);
}

/* r->map: the hosts at once, the measured costs in one bulk load, the
 * hops in classes (ecoi_map_build_hops): O(n^2) for the hops of every
 * pair, where adding them pair by pair in the result's order took
 * O(n^3). */
static int result_map(ecoc_result *r)
{
    size_t n1 = (size_t)r->n + 1, np = 0, cap = 0;
    int *of = malloc(n1 * sizeof *of), *rank = malloc(n1 * sizeof *rank);
    const char **names = malloc(n1 * sizeof *names);
    ecoi_pair *p = NULL;
    int rc = of && rank && names ? ECO_OK : ECO_ERR_NOMEM;

    for (int a = 0; a < r->n && rc == ECO_OK; a++)
        names[a] = r->host[a].name;
    if (rc == ECO_OK && !(r->map = ecoi_map_new_named(names, r->n, rank)))
        rc = ECO_ERR_NOMEM;
    for (int a = 0; a < r->n && rc == ECO_OK; a++)
        of[rank[a]] = a;
    for (int a = 0; a < r->n && rc == ECO_OK; a++)
        for (int b = ecoc_next(r, a, a); b < r->n && rc == ECO_OK; b = ecoc_next(r, a, b)) {
            const ecoc_stat *st = ecoc_pair(r, a, b);
            if (!st)
                continue;
            if (np == cap) {
                ecoi_pair *q = realloc(p, (cap = cap ? 2 * cap : 1024) * sizeof *q);
                if (!q) {
                    rc = ECO_ERR_NOMEM;
                    break;
                }
                p = q;
            }
            p[np++] = (ecoi_pair){ rank[a], rank[b], -1, st->min };
        }
    if (rc == ECO_OK)
        rc = ecoi_map_add_pairs(r->map, p, np);
    if (rc == ECO_OK && r->hops_counted) {
        hops_of h = { r, of };
        rc = ecoi_map_build_hops(r->map, result_hops, &h);
    }
    free(of);
    free(rank);
    free(names);
    free(p);
    return rc;
}

int ecoc_result_partition(ecoc_result *r, char *err, size_t errlen)
{
    int rc, ns;

    eco_map_free(r->map);
    r->map = NULL;
    free(r->degree);
    r->degree = NULL;
    rc = result_map(r);
    if (rc >= 0)
        rc = eco_map_partition(r->map, r->opt.threshold);
    ns = rc >= 0 ? eco_map_nsubnets(r->map) : 0;
    if (rc >= 0 && !(r->degree = calloc((size_t)ns + 1, sizeof *r->degree)))
        rc = ECO_ERR_NOMEM;
    for (int s = 0; s < ns && rc >= 0; s++)
        r->degree[s].k = eco_map_degree(r->map, s);
    if (rc < 0) {
        snprintf(err, errlen, "partitioning: %s", eco_strerror(rc));
        return ECOC_FAILED;
    }
    return ECOC_OK;
}

/* ------------------------------------------------------------------ */
/* Writing                                                             */
/* ------------------------------------------------------------------ */

const char *ecoc_default_subnet_file(void)
{
    static char path[4096];
    const char *home = getenv("HOME");

    if (!home || !*home)
        return NULL;
    snprintf(path, sizeof path, "%s/.eco/subnets", home);
    return path;
}

/* The text of ecoc_write_atomic. */
typedef struct text {
    const char *s;
    size_t len;
} text;

static int print_text(FILE *out, const void *arg)
{
    const text *t = arg;

    return fwrite(t->s, 1, t->len, out) == t->len ? ECO_OK : ECO_ERR_IO;
}

int ecoc_write_atomic(const char *path, const char *s, size_t len, char *err, size_t errlen)
{
    text t = { s, len };

    return ecoi_atomic_write(path, ECOI_ATOMIC_CLEAN | ECOI_ATOMIC_KEEP_MODE, 0644, print_text,
                             &t, err, errlen) == ECO_OK ? 0 : -1;
}

/* Under blocked signals: the matrix to a temporary file, the subnet file
 * (eco_map_write, atomic), then the matrix renamed into place. */
static int commit_blocked(const ecoc_result *r, const char *subnet_path,
                          const char *matrix_path, char *err, size_t errlen)
{
    char why[1024] = "";
    ecoi_atomic matrix = { .fd = -1 }; /* nothing to abort without matrix_path */
    FILE *out;

    if (ecoi_make_parent(subnet_path, err, errlen) != 0)
        return ECOC_NOWRITE;
    if (matrix_path) {
        if (ecoi_atomic_open(&matrix, matrix_path, ECOI_ATOMIC_CLEAN | ECOI_ATOMIC_KEEP_MODE,
                             0644, err, errlen) != 0)
            return ECOC_NOWRITE;
        errno = 0;
        if (!(out = ecoi_atomic_stream(&matrix)) || ecoc_fprint_matrix(r, out) != 0) {
            snprintf(err, errlen, "%s: %s", matrix_path, strerror(errno ? errno : EIO));
            ecoi_atomic_abort(&matrix);
            return ECOC_NOWRITE;
        }
        if (ecoi_atomic_sync(&matrix, err, errlen) != 0)
            return ECOC_NOWRITE;
    }
    ecoi_remove_stale_temps(subnet_path);
    if (eco_map_write(r->map, subnet_path, why, sizeof why) != ECO_OK) {
        snprintf(err, errlen, "%s", why[0] ? why : subnet_path);
        ecoi_atomic_abort(&matrix);
        return ECOC_NOWRITE;
    }
    if (matrix_path && ecoi_atomic_commit(&matrix, why, sizeof why) != 0) {
        snprintf(err, errlen, "%s (the subnet file %s was written)", why, subnet_path);
        return ECOC_NOWRITE;
    }
    return ECOC_OK;
}

int ecoc_commit(const ecoc_result *r, const char *subnet_path, const char *matrix_path,
                char *err, size_t errlen)
{
    sigset_t all, old;
    int rc;

    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &old);
    rc = commit_blocked(r, subnet_path, matrix_path, err, errlen);
    sigprocmask(SIG_SETMASK, &old, NULL);
    return rc;
}

/* ------------------------------------------------------------------ */
/* The summary                                                         */
/* ------------------------------------------------------------------ */

/* What the summary reads of the map, gathered once: each subnet's
 * members, and the measured pairs sorted by their subnets, so that the
 * costs inside and between subnets are a block each (O(n + pairs log
 * pairs) where a scan per host looked up took O(n^3)). */
typedef struct sedge {
    int s, t;          /* subnets, s <= t */
    double cost;
} sedge;

typedef struct survey {
    int *first, *next; /* [subnets], [hosts]: members ascending, -1 ends */
    int *size;         /* [subnets] */
    sedge *e;          /* [ne] by s, t, cost */
    size_t ne;
    double *scratch;   /* [ne] */
} survey;

static int cmp_sedge(const void *x, const void *y)
{
    const sedge *p = x, *q = y;

    if (p->s != q->s)
        return p->s < q->s ? -1 : 1;
    if (p->t != q->t)
        return p->t < q->t ? -1 : 1;
    return (p->cost > q->cost) - (p->cost < q->cost);
}

static void survey_free(survey *w)
{
    free(w->first);
    free(w->next);
    free(w->size);
    free(w->e);
    free(w->scratch);
}

static int survey_of(const eco_map *m, survey *w)
{
    size_t ns = (size_t)m->nsubnets + 1, n = (size_t)m->nhosts + 1;
    size_t pairs = ecoi_map_measured_pairs(m) + 1;

    w->ne = 0;
    w->first = malloc(ns * sizeof *w->first);
    w->next = malloc(n * sizeof *w->next);
    w->size = calloc(ns, sizeof *w->size);
    w->e = malloc(pairs * sizeof *w->e);
    w->scratch = malloc(pairs * sizeof *w->scratch);
    if (!w->first || !w->next || !w->size || !w->e || !w->scratch) {
        survey_free(w);
        return ECO_ERR_NOMEM;
    }
    ecoi_group_lists(m->nhosts, m->subnet, m->nsubnets, w->first, w->next);
    for (int h = 0; h < m->nhosts; h++)
        w->size[m->subnet[h]]++;
    for (int a = 0; a < m->nhosts; a++)
        for (int i = 0; i < m->adj[a].n; i++) {
            int b = m->adj[a].link[i].to, s = m->subnet[a], t = m->subnet[b];
            if (b > a)
                w->e[w->ne++] = (sedge){ s < t ? s : t, s < t ? t : s, m->adj[a].link[i].cost };
        }
    qsort(w->e, w->ne, sizeof *w->e, cmp_sedge);
    return ECO_OK;
}

/* Costs between map subnets s and t (s == t: inside), into st. */
static void subnet_costs(const survey *w, int s, int t, ecoc_stat *st, long *pairs)
{
    size_t lo = 0, hi = w->ne;
    int k = 0;

    while (lo < hi) { /* the first pair of (s, t) or after */
        size_t mid = lo + (hi - lo) / 2;
        if (w->e[mid].s < s || (w->e[mid].s == s && w->e[mid].t < t))
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i < w->ne && w->e[i].s == s && w->e[i].t == t; i++)
        w->scratch[k++] = w->e[i].cost;
    *pairs = s == t ? (long)w->size[s] * (w->size[s] - 1) / 2 : (long)w->size[s] * w->size[t];
    ecoc_stat_of(w->scratch, k, st);
}

static void print_costs(const char *label, const ecoc_stat *st, long pairs, FILE *out)
{
    char b1[32], b2[32], b3[32];

    if (st->n == 0)
        fprintf(out, "  %s: none of %ld pairs measured\n", label, pairs);
    else
        fprintf(out, "  %s: cheapest %s, median %s, dearest %s (%d/%ld pairs)\n", label,
                ecoc_fmt_time(st->min, b1, sizeof b1), ecoc_fmt_time(st->median, b2, sizeof b2),
                ecoc_fmt_time(st->max, b3, sizeof b3), st->n, pairs);
}

/* Members whose cheapest pair inside the subnet is dearer than the
 * threshold allows over the subnet's cheapest: slow hosts (their own
 * link is slow), which the hops placed when costs could not. */
static void print_slow(const ecoc_result *r, const survey *w, int s, double cheapest, FILE *out)
{
    const eco_map *m = r->map;
    int count = 0;
    char buf[32];

    for (int h = w->first[s]; h >= 0; h = w->next[h]) {
        double own = -1.0;
        for (int i = 0; i < m->adj[h].n; i++) {
            double c = m->adj[h].link[i].cost;
            if (m->subnet[m->adj[h].link[i].to] == s && (own < 0.0 || c < own))
                own = c;
        }
        if (own > (1.0 + r->opt.threshold) * cheapest) {
            fprintf(out, "%s %s (%s)", count++ ? "," : "  slow hosts:", m->host[h],
                    ecoc_fmt_time(own, buf, sizeof buf));
        }
    }
    if (count)
        fprintf(out, "\n    (their cheapest pair in the subnet; placed here because no "
                     "router\n    lies between them and the other hosts: see --no-hops)\n");
}

static void print_subnet(const ecoc_result *r, const survey *w, int s, FILE *out)
{
    const ecoc_degree *d = &r->degree[s];
    int n = w->size[s];
    char buf[32];
    ecoc_stat st;
    long pairs;

    fprintf(out, "subnet %d: %d host%s:", s, n, n == 1 ? "" : "s");
    for (int h = w->first[s]; h >= 0; h = w->next[h])
        fprintf(out, " %s", r->map->host[h]);
    fprintf(out, "\n  k=%d", d->k);
    if (d->how == 1) {
        fprintf(out, ", measured (median broadcast:");
        for (int k = 1; k <= d->tried; k++)
            fprintf(out, " k=%d %s", k, ecoc_fmt_time(d->median[k], buf, sizeof buf));
        fprintf(out, ")\n");
    } else
        fprintf(out, d->how == 2 ? " (--degree)\n" : " (default: fewer than 3 hosts)\n");
    if (n > 1) {
        subnet_costs(w, s, s, &st, &pairs);
        print_costs("inside", &st, pairs, out);
        print_slow(r, w, s, st.min, out);
    }
}

/* Pairs whose median is far above their minimum: a busy or noisy link. */
static void print_noisy(const ecoc_result *r, FILE *out)
{
    int count = 0;

    for (int a = 0; a < r->n; a++)
        for (int b = ecoc_next(r, a, a); b < r->n; b = ecoc_next(r, a, b)) {
            const ecoc_stat *st = ecoc_pair(r, a, b);
            if (st && st->median > 1.5 * st->min) {
                if (count++ == 0)
                    fprintf(out, "\nnoisy pairs (median more than 50%% above the minimum):\n");
                if (count <= 10)
                    fprintf(out, "  %s %s +%.0f%%\n", r->host[a].name, r->host[b].name,
                            100.0 * (st->median - st->min) / st->min);
            }
        }
    if (count > 10)
        fprintf(out, "  ... and %d more (see the matrix file)\n", count - 10);
}

/* How many pairs the hops are known for. */
static void print_hops(const ecoc_result *r, FILE *out)
{
    long known = 0, pairs = (long)r->n * (r->n - 1) / 2;

    if (!r->hops_counted) {
        fprintf(out, "routers between hosts not counted (--no-hops)\n");
        return;
    }
    for (int a = 0; a < r->n; a++)
        for (int b = ecoc_next(r, a, a); b < r->n; b = ecoc_next(r, a, b))
            known += ecoc_hops(r, a, b) >= 0;
    fprintf(out, "routers between hosts counted for %ld of %ld pairs%s\n", known, pairs,
            known < pairs ? " (UDP datagrams between probes lost or blocked)" : "");
}

/* "41.0 us + 6.20 ns/byte (1290 Mbit/s)", and a link's burst (burst >=
 * 0; the task cost has none): ", burst 3028 bytes" */
static void print_cost(const char *label, const ecoi_cost *c, double burst, FILE *out)
{
    char b1[32];

    fprintf(out, "  %s: %s + %.3g ns/byte", label, ecoc_fmt_time(c->alpha, b1, sizeof b1),
            c->beta * 1e9);
    if (c->beta > 0.0)
        fprintf(out, " (%.4g Mbit/s)", 8e-6 / c->beta);
    if (burst >= 0.0)
        fprintf(out, ", burst %.0f bytes", burst);
    fprintf(out, "\n");
}

static void print_model(const ecoc_result *r, FILE *out)
{
    const ecoi_model *mo = r->map ? r->map->model : NULL;
    const ecoc_model_info *mi = &r->model;
    int ns = mo ? mo->nsubnets : 0;
    char b1[32], label[80];

    if (!mo) {
        fprintf(out, "\ncost model not measured%s: the library uses its defaults\n",
                r->opt.model ? "" : " (--no-model)");
        return;
    }
    fprintf(out, "\ncost model, one way alpha + beta * bytes (probes of %d and %d bytes, "
                 "streams of 1 and %d messages, measured in %s):\n", ECOC_MODEL_SMALL,
            mi->big, mi->stream, ecoc_fmt_time(mi->seconds, b1, sizeof b1));
    print_cost(mi->task_how ? "tasks on one host" : "tasks on one host (default: a copy "
               "of the cheapest inside a subnet)", &mo->task, -1.0, out);
    for (int s = 0; s < ns; s++)
        for (int t = s; t < ns; t++) {
            if (s == t)
                snprintf(label, sizeof label, "inside subnet %d%s", s,
                         eco_map_subnet_size(r->map, s) < 2 ? " (one host: a copy)" : "");
            else
                snprintf(label, sizeof label, "subnets %d and %d", s, t);
            print_cost(label, &mo->link[s * ns + t], ecoi_model_burst(mo, s, t), out);
        }
    for (int s = 0; s < ns; s++) {
        const ecoc_uplink *u = mi->up ? &mi->up[s] : NULL;
        fprintf(out, "  subnet %d's link out: ", s);
        if (!u || !u->how)
            fprintf(out, "not measured (%s), taken as not shared\n",
                    eco_map_subnet_size(r->map, s) < 2 ? "one host" : "no two hosts outside");
        else {
            if (mo->uplink[s] > 0.0)
                fprintf(out, "shared, %.3g ns/byte (%.4g Mbit/s);", mo->uplink[s] * 1e9,
                        8e-6 / mo->uplink[s]);
            else
                fprintf(out, "not shared;");
            fprintf(out, " two streams take %.2fx one out", u->ratio[0]);
            fprintf(out, " (%s, ", ecoc_fmt_time(u->alone[0], b1, sizeof b1));
            fprintf(out, "%s),", ecoc_fmt_time(u->both[0], b1, sizeof b1));
            fprintf(out, " %.2fx in (%s, ", u->ratio[1],
                    ecoc_fmt_time(u->alone[1], b1, sizeof b1));
            fprintf(out, "%s)\n", ecoc_fmt_time(u->both[1], b1, sizeof b1));
        }
    }
    fprintf(out, "  every host busy: ");
    if (mi->busy.n > 0 && mo->busy > 0.0) {
        char b2[32];
        fprintf(out, "%s per message", ecoc_fmt_time(mo->busy, b1, sizeof b1));
        fprintf(out, " (%d streams of %d messages of %d bytes at once, the median of %d "
                "rounds: %s to ", r->n, ECOC_MODEL_BUSY, ECOC_MODEL_SMALL, mi->busy.n,
                ecoc_fmt_time(mi->busy.min, b1, sizeof b1));
        fprintf(out, "%s)\n", ecoc_fmt_time(mi->busy.max, b2, sizeof b2));
    } else
        fprintf(out, "not measured (one host): the library's default\n");
    fprintf(out, "  every host in lock-step: ");
    if (mi->step.n > 0) {
        char b2[32];
        fprintf(out, "%s per step", ecoc_fmt_time(mi->step.median, b1, sizeof b1));
        fprintf(out, ", %s beyond its links' own time", ecoc_fmt_time(mo->step, b1, sizeof b1));
        fprintf(out, " (%s; ring of %d hosts, %d steps of %d bytes, %d rounds: %s to ",
                ecoc_fmt_time(mi->step_links, b1, sizeof b1), r->n, ECOC_MODEL_STEPS,
                ECOC_MODEL_SMALL, mi->step.n, ecoc_fmt_time(mi->step.min, b2, sizeof b2));
        fprintf(out, "%s)\n", ecoc_fmt_time(mi->step.max, b2, sizeof b2));
    } else
        fprintf(out, "not measured (one host): nothing added\n");
    fprintf(out, "  every host in lock-step, long messages: ");
    if (mi->step_long.n > 0) {
        char b2[32];
        fprintf(out, "%s per step", ecoc_fmt_time(mi->step_long.median, b1, sizeof b1));
        fprintf(out, ", %.3g ns per byte beyond its links' own time and the short step's",
                mo->stepbyte * 1e9);
        fprintf(out, " (%s; %d steps of %d bytes, %d rounds: %s to ",
                ecoc_fmt_time(mi->step_long_links, b1, sizeof b1), ECOC_MODEL_STEPS_LONG,
                mi->big, mi->step_long.n, ecoc_fmt_time(mi->step_long.min, b2, sizeof b2));
        fprintf(out, "%s)\n", ecoc_fmt_time(mi->step_long.max, b2, sizeof b2));
    } else
        fprintf(out, "not measured (one host): nothing added\n");
    fprintf(out, "  hosts on one machine: ");
    if (mi->crowd_hosts > 0) {
        fprintf(out, "at most %d on %d CPU%s", mi->crowd_hosts, mi->crowd_cpus,
                mi->crowd_cpus == 1 ? "" : "s");
        if (mo->cores > 0.0)
            fprintf(out, ": the %d hosts count as sharing %.3g cores\n", r->n, mo->cores);
        else
            fprintf(out, ": each its own CPUs\n");
    } else
        fprintf(out, "not known (probes of an older build): each its own CPUs\n");
    fprintf(out, "  a member passing a message on: ");
    if (mi->relay_measured) {
        char b2[32], b3[32];
        fprintf(out, "%s beyond a hop (%s via %s to %s and back, %d bytes: ",
                ecoc_fmt_time(mo->forward, b1, sizeof b1), r->host[mi->relay[0]].name,
                r->host[mi->relay[1]].name, r->host[mi->relay[2]].name, ECOC_MODEL_SMALL);
        fprintf(out, "%s, less %s to and fro direct and %s one way from the second)\n",
                ecoc_fmt_time(mi->relay_trip, b1, sizeof b1),
                ecoc_fmt_time(2.0 * mi->relay_direct, b2, sizeof b2),
                ecoc_fmt_time(mi->relay_leg, b3, sizeof b3));
    } else if (mi->relay_failed[0])
        fprintf(out, "not measured (the relay %s via %s to %s failed: %s): nothing added\n",
                r->host[mi->relay[0]].name, r->host[mi->relay[1]].name,
                r->host[mi->relay[2]].name, mi->relay_failed);
    else
        fprintf(out, "not measured (no subnet of 3 hosts): nothing added\n");
}

void ecoc_print_summary(const ecoc_result *r, FILE *out)
{
    int ns = eco_map_nsubnets(r->map);
    long pairs = (long)r->n * (r->n - 1) / 2;
    char b1[32];
    ecoc_stat st;
    survey w;

    fprintf(out, "%d host%s, %ld of %ld pairs measured (%s) in %s\n", r->n,
            r->n == 1 ? "" : "s", r->measured, pairs, r->sparse ? "sparse mode" : "all pairs",
            ecoc_fmt_clock(r->seconds, b1, sizeof b1));
    fprintf(out, "probes of %d bytes, %d samples of %d round trips per pair, threshold %g\n",
            r->opt.size, r->opt.trials, r->opt.rounds, r->opt.threshold);
    if (r->rechecked > 0)
        fprintf(out, "%ld pairs measured again (%d more samples in each of %d round%s): "
                "a split within the noise, %d subnets before, %d after\n", r->rechecked,
                r->opt.trials, r->recheck_rounds, r->recheck_rounds == 1 ? "" : "s",
                r->recheck_before, eco_map_nsubnets(r->map));
    print_hops(r, out);
    fprintf(out, "%d subnet%s\n", ns, ns == 1 ? "" : "s");
    if (ns > 0 && survey_of(r->map, &w) != ECO_OK) {
        fprintf(out, "(no memory for the subnets' summary)\n");
        ns = 0;
    }
    for (int s = 0; s < ns; s++) {
        fprintf(out, "\n");
        print_subnet(r, &w, s, out);
    }
    if (ns > 1)
        fprintf(out, "\nbetween subnets:\n");
    for (int s = 0; s < ns; s++)
        for (int t = s + 1; t < ns; t++) {
            char label[64];
            subnet_costs(&w, s, t, &st, &pairs);
            snprintf(label, sizeof label, "%d and %d", s, t);
            print_costs(label, &st, pairs, out);
        }
    if (ns > 0)
        survey_free(&w);
    print_model(r, out);
    print_noisy(r, out);
}

/* ------------------------------------------------------------------ */
/* Option values                                                       */
/* ------------------------------------------------------------------ */

long ecoc_number(const char *arg, long lo, long hi)
{
    char *end;
    long v = strtol(arg, &end, 10);

    return (end == arg || *end || v < lo || v > hi) ? -1 : v;
}

int ecoc_parse_list(const char *arg, const char *const *names, int nnames, int *out, int max)
{
    char *copy = strdup(arg), *save = NULL, *tok;
    int k = 0;

    for (tok = copy ? strtok_r(copy, ",", &save) : NULL; tok; tok = strtok_r(NULL, ",", &save)) {
        long v = -1;
        for (int i = 0; names && i < nnames; i++)
            if (strcmp(tok, names[i]) == 0)
                v = i;
        if (!names)
            v = ecoc_number(tok, 0, 1L << 28);
        if (v < 0 || k == max) {
            free(copy);
            return -1;
        }
        out[k++] = (int)v;
    }
    free(copy);
    return k > 0 ? k : -1;
}
