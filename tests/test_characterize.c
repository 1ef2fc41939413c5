/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_characterize.c -- the PVM-free half of eco-characterize and ecod:
 * the cheap mode's choice of pairs on planted matrices of ~200 hosts
 * (it must find the subnets that all pairs find), host lists, options,
 * statistics, the matrix file and the atomic commit.
 *
 * Run by the CUnit runner (tests/cunit_main.c):
 *   characterize_unit [SUITE-OR-TEST...]   (suites: sparse, util)
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <CUnit/CUnit.h>

#include "eco_char.h"
#include "eco_map_impl.h" /* the map's hop classes */
#include "cunit_common.h"

/* ------------------------------------------------------------------ */
/* Planted networks                                                    */
/* ------------------------------------------------------------------ */

typedef struct planted {
    int n;
    int *subnet;      /* [n] planted subnet of each host */
    double *cost;     /* [n*n] the "true" measured minimum of each pair */
    /* bookkeeping of the callback */
    char *asked;      /* [n*n] */
    long calls;
    int fail_at;      /* return 7 on this call (0: never) */
} planted;

static unsigned long long rng_state;

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double uniform(void)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

/*
 * nsub subnets with the given sizes, hosts dealt to subnets in a random
 * order.  Subnet s: base cost b_s between 20 us and 0.5 ms (switched and
 * slow segments); inside: b_s * (1 + up to 12% noise); between s and t:
 * 3 * max(b_s, b_t) plus 60 us per router hop on a line of routers, with
 * up to 10% noise.  `outliers` of the inside pairs (of subnets of >= 4
 * hosts) are 3 to 10 times too dear: a busy moment hit every sample.
 */
static void plant(planted *p, const int *sizes, int nsub, unsigned long long seed,
                  double outliers)
{
    int n = 0, *order;
    double *base = malloc((size_t)nsub * sizeof *base);

    rng_state = seed;
    for (int s = 0; s < nsub; s++)
        n += sizes[s];
    memset(p, 0, sizeof *p);
    p->n = n;
    p->subnet = malloc((size_t)n * sizeof *p->subnet);
    p->cost = malloc((size_t)n * n * sizeof *p->cost);
    p->asked = calloc((size_t)n * n, 1);
    order = malloc((size_t)n * sizeof *order);
    for (int i = 0; i < n; i++)
        order[i] = i;
    for (int i = n - 1; i > 0; i--) { /* shuffle: arrival order interleaved */
        int j = (int)(uniform() * (i + 1)), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (int s = 0, k = 0; s < nsub; s++) {
        base[s] = 20e-6 * pow(25.0, uniform());
        for (int i = 0; i < sizes[s]; i++)
            p->subnet[order[k++]] = s;
    }
    for (int a = 0; a < n; a++)
        for (int b = a; b < n; b++) {
            int s = p->subnet[a], t = p->subnet[b];
            double c;
            if (a == b)
                c = 0.0;
            else if (s == t) {
                c = base[s] * (1.0 + 0.12 * uniform());
                if (sizes[s] >= 4 && uniform() < outliers)
                    c *= 3.0 + 7.0 * uniform();
            } else
                c = (3.0 * fmax(base[s], base[t]) + 60e-6 * abs(s - t)) *
                    (1.0 + 0.10 * uniform());
            p->cost[(size_t)a * n + b] = p->cost[(size_t)b * n + a] = c;
        }
    free(order);
    free(base);
}

static void planted_free(planted *p)
{
    free(p->subnet);
    free(p->cost);
    free(p->asked);
}

static int planted_measure(void *arg, int a, int b, double *seconds)
{
    planted *p = arg;

    CU_ASSERT(a != b);
    CU_ASSERT(a >= 0 && a < p->n && b >= 0 && b < p->n);
    CU_ASSERT(!p->asked[(size_t)a * p->n + b]); /* never the same pair twice */
    p->asked[(size_t)a * p->n + b] = p->asked[(size_t)b * p->n + a] = 1;
    if (++p->calls == p->fail_at)
        return 7;
    *seconds = p->cost[(size_t)a * p->n + b];
    return 0;
}

/* Partition the pairs of cost[] that are > 0; label[h] = the lowest host
 * of h's subnet (a numbering independent of subnet order). */
static void partition_of(int n, const double *cost, int *label)
{
    eco_map *m = eco_map_new();
    char a[16], b[16];

    for (int h = 0; h < n; h++) {
        snprintf(a, sizeof a, "h%07d", h);
        CU_ASSERT_EQUAL_FATAL(eco_map_add_host(m, a), h);
    }
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (cost[(size_t)i * n + j] > 0.0) {
                snprintf(a, sizeof a, "h%07d", i);
                snprintf(b, sizeof b, "h%07d", j);
                eco_map_add_cost(m, a, b, cost[(size_t)i * n + j]);
            }
    CU_ASSERT_EQUAL_FATAL(eco_map_partition(m, ECO_DEFAULT_THRESHOLD), ECO_OK);
    for (int h = 0; h < n; h++) {
        int s = eco_map_subnet_of(m, h);
        label[h] = eco_map_subnet_host(m, s, 0);
    }
    eco_map_free(m);
}

/* The planted subnets as labels (lowest host of each). */
static void planted_labels(const planted *p, int *label)
{
    for (int h = 0; h < p->n; h++) {
        label[h] = h;
        for (int x = 0; x < h; x++)
            if (p->subnet[x] == p->subnet[h]) {
                label[h] = x;
                break;
            }
    }
}

/* The cheap mode finds the subnets all pairs find, measuring at most
 * `max_share` of the pairs; with `exact`, those are the planted subnets
 * (ECO's rule merges two lone hosts that are each other's cheapest, so
 * plants with several one-host subnets need not come back as planted). */
static void check_planted(const int *sizes, int nsub, unsigned long long seed,
                          double outliers, double max_share, int exact)
{
    planted p;
    ecoc_sparse_ops ops = { planted_measure, NULL, &p };
    double *sparse_cost;
    int *want, *full, *got, same = 1, full_ok = 1;
    long measured = 0, pairs;

    plant(&p, sizes, nsub, seed, outliers);
    pairs = (long)p.n * (p.n - 1) / 2;
    want = malloc((size_t)p.n * sizeof *want);
    full = malloc((size_t)p.n * sizeof *full);
    got = malloc((size_t)p.n * sizeof *got);
    sparse_cost = malloc((size_t)p.n * p.n * sizeof *sparse_cost);

    planted_labels(&p, want);
    partition_of(p.n, p.cost, full);
    CU_ASSERT_EQUAL(ecoc_sparse(p.n, ECO_DEFAULT_THRESHOLD, &ops, &measured), 0);
    CU_ASSERT_EQUAL(measured, p.calls);
    for (size_t i = 0; i < (size_t)p.n * p.n; i++) /* the pairs it asked for */
        sparse_cost[i] = p.asked[i] ? p.cost[i] : -1.0;
    partition_of(p.n, sparse_cost, got);
    for (int h = 0; h < p.n; h++) {
        full_ok &= !exact || full[h] == want[h];
        same &= got[h] == full[h];
    }
    CU_ASSERT(full_ok);     /* the planted network is what ECO finds */
    CU_ASSERT(same);        /* and the cheap mode finds the same */
    CU_ASSERT(measured <= (long)(max_share * pairs));
    fprintf(stderr, "\n    seed %llu: %d hosts in %d subnets: %ld of %ld pairs (%.0f%%); "
            "all pairs find %s; the cheap mode finds %s", seed, p.n, nsub, measured, pairs,
            pairs ? 100.0 * (double)measured / (double)pairs : 0.0,
            !exact ? "(not compared)" : full_ok ? "the plant" : "NOT the plant",
            same ? "the same" : "OTHER SUBNETS");
    free(want);
    free(full);
    free(got);
    free(sparse_cost);
    planted_free(&p);
}

/* 200 hosts in 19 subnets of 1 to 25 hosts. */
static const int campus200[] = { 25, 20, 18, 16, 15, 14, 12, 12, 10, 10, 9, 8, 8, 7, 6, 4,
                                 3, 2, 1 };

static void test_planted_200(void)
{
    int nsub = (int)(sizeof campus200 / sizeof campus200[0]), n = 0;

    for (int s = 0; s < nsub; s++)
        n += campus200[s];
    CU_ASSERT_EQUAL(n, 200);
    for (unsigned long long seed = 1; seed <= 10; seed++)
        check_planted(campus200, nsub, seed, 0.0, 0.20, 1);
    fprintf(stderr, "\n  ");
}

static void test_planted_200_outliers(void)
{
    int nsub = (int)(sizeof campus200 / sizeof campus200[0]);

    /* 5% of the pairs inside subnets measured 3-10 times too dear. */
    for (unsigned long long seed = 11; seed <= 20; seed++)
        check_planted(campus200, nsub, seed, 0.05, 0.25, 1);
    fprintf(stderr, "\n  ");
}

static void test_planted_shapes(void)
{
    static const int one[] = { 40 };
    static const int two[] = { 1, 1 };
    static const int lone[] = { 1 };
    static const int big[] = { 100, 100, 50, 50 };
    static const int many[] = { 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3 };

    check_planted(one, 1, 3, 0.0, 0.10, 1);  /* one subnet: about 2 pairs per host */
    check_planted(two, 2, 3, 0.0, 1.0, 0);   /* two lone hosts: ECO merges them */
    check_planted(lone, 1, 3, 0.0, 1.0, 1);
    check_planted(big, 4, 5, 0.01, 0.05, 1); /* 300 hosts, few subnets: cheap */
    check_planted(many, 20, 7, 0.0, 0.70, 1); /* many tiny subnets: less gain */
    fprintf(stderr, "\n  ");
}

static int stop_estimate_calls;
static void count_estimate(void *arg, long more)
{
    (void)arg;
    CU_ASSERT(more >= 0);
    stop_estimate_calls++;
}

static void test_sparse_stops(void)
{
    planted p;
    ecoc_sparse_ops ops = { planted_measure, count_estimate, &p };
    long measured = 0;

    plant(&p, campus200, 5, 9, 0.0);
    p.fail_at = 10;
    CU_ASSERT_EQUAL(ecoc_sparse(p.n, ECO_DEFAULT_THRESHOLD, &ops, &measured), 7);
    CU_ASSERT_EQUAL(measured, 9);
    CU_ASSERT(stop_estimate_calls > 0);
    planted_free(&p);
}

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

static void test_parse_hosts(void)
{
    ecoc_host *h;
    int n;
    char why[256];

    CU_ASSERT_EQUAL(ecoc_parse_hosts("a,b.example.org,x@a", &h, &n, why, sizeof why), 0);
    CU_ASSERT_EQUAL(n, 3);
    if (n == 3) {
        CU_ASSERT_STRING_EQUAL(h[0].name, "a");
        CU_ASSERT_STRING_EQUAL(h[0].pvmhost, "a");
        CU_ASSERT_STRING_EQUAL(h[1].pvmhost, "b.example.org");
        CU_ASSERT_STRING_EQUAL(h[2].name, "x");
        CU_ASSERT_STRING_EQUAL(h[2].pvmhost, "a");
    }
    ecoc_hosts_free(h, n);
    CU_ASSERT_EQUAL(ecoc_parse_hosts("a,,b", &h, &n, why, sizeof why), -1);
    CU_ASSERT_EQUAL(ecoc_parse_hosts("a,a", &h, &n, why, sizeof why), -1);
    CU_ASSERT(strstr(why, "twice") != NULL);
    CU_ASSERT_EQUAL(ecoc_parse_hosts("x@a,x@b", &h, &n, why, sizeof why), -1);
    CU_ASSERT_EQUAL(ecoc_parse_hosts("a#b", &h, &n, why, sizeof why), -1);
    CU_ASSERT_EQUAL(ecoc_parse_hosts("a b", &h, &n, why, sizeof why), -1);
    CU_ASSERT_EQUAL(ecoc_parse_hosts("@a", &h, &n, why, sizeof why), -1);
    CU_ASSERT_EQUAL(ecoc_parse_hosts("x@", &h, &n, why, sizeof why), -1);
    CU_ASSERT_EQUAL(ecoc_parse_hosts("x@y@z", &h, &n, why, sizeof why), -1);
    CU_ASSERT_EQUAL(ecoc_parse_hosts("", &h, &n, why, sizeof why), -1);
}

static void test_options(void)
{
    ecoc_options o;
    char why[256];

    ecoc_options_init(&o);
    CU_ASSERT_EQUAL(o.size, 16384);
    CU_ASSERT_EQUAL(o.trials, 8);
    CU_ASSERT_EQUAL(o.rounds, 4);
    CU_ASSERT_EQUAL(ecoc_option(&o, ECOC_OPT_SIZE, "4096", why, sizeof why), 0);
    CU_ASSERT_EQUAL(o.size, 4096);
    CU_ASSERT_EQUAL(ecoc_option(&o, ECOC_OPT_SIZE, "0", why, sizeof why), -1);
    CU_ASSERT_EQUAL(ecoc_option(&o, ECOC_OPT_TRIALS, "15x", why, sizeof why), -1);
    CU_ASSERT_EQUAL(ecoc_option(&o, ECOC_OPT_MODE, "sparse", why, sizeof why), 0);
    CU_ASSERT_EQUAL(o.mode, ECOC_MODE_SPARSE);
    CU_ASSERT_EQUAL(ecoc_option(&o, ECOC_OPT_MODE, "some", why, sizeof why), -1);
    CU_ASSERT_EQUAL(ecoc_option(&o, ECOC_OPT_DEGREE, "3", why, sizeof why), 0);
    CU_ASSERT_EQUAL(o.degree, 3);
    CU_ASSERT_EQUAL(ecoc_option(&o, ECOC_OPT_DEGREE, "auto", why, sizeof why), 0);
    CU_ASSERT_EQUAL(o.degree, 0);
    CU_ASSERT_EQUAL(ecoc_option(&o, ECOC_OPT_DEGREE, "65", why, sizeof why), -1);
    CU_ASSERT_EQUAL(ecoc_option(&o, ECOC_OPT_RATE, "2.5", why, sizeof why), 0);
    CU_ASSERT_EQUAL(o.rate, 2.5);
    CU_ASSERT_EQUAL(ecoc_option(&o, ECOC_OPT_RATE, "-1", why, sizeof why), -1);
    CU_ASSERT_EQUAL(ecoc_option(&o, ECOC_OPT_THRESHOLD, "nan", why, sizeof why), -1);
    CU_ASSERT_EQUAL(o.hops, 1);
    CU_ASSERT_EQUAL(ecoc_option(&o, ECOC_OPT_NO_HOPS, NULL, why, sizeof why), 0);
    CU_ASSERT_EQUAL(o.hops, 0);
}

static void test_stat(void)
{
    double s[] = { 5, 1, 3, 2, 4 }, t[] = { 4, 1, 3, 2 };
    ecoc_stat st;

    ecoc_stat_of(s, 5, &st);
    CU_ASSERT(st.n == 5 && st.min == 1 && st.median == 3 && st.max == 5);
    ecoc_stat_of(t, 4, &st);
    CU_ASSERT(st.n == 4 && st.min == 1 && st.median == 2.5 && st.max == 4);
    ecoc_stat_of(t, 0, &st);
    CU_ASSERT_EQUAL(st.n, 0);
}

/* A result of three hosts: two close, one far, one pair unmeasured. */
static void small_result(ecoc_result *r)
{
    char why[128];

    memset(r, 0, sizeof *r);
    ecoc_options_init(&r->opt);
    CU_ASSERT_FATAL(ecoc_parse_hosts("b,a,c@a", &r->host, &r->n, why, sizeof why) == 0);
    CU_ASSERT(ecoc_set_pair(r, 0, 1, &(ecoc_stat){ 8, 1e-4, 1.1e-4, 3e-4 }) == ECO_OK);
    CU_ASSERT(ecoc_set_pair(r, 2, 1, &(ecoc_stat){ 8, 2e-3, 2e-3, 2e-3 }) == ECO_OK);
    r->measured = 2;
    CU_ASSERT_EQUAL(ecoc_result_partition(r, why, sizeof why), ECOC_OK);
}

static void test_matrix_roundtrip(void)
{
    ecoc_result r;
    char path[400], why[512];
    FILE *f;
    eco_map *m = NULL;

    small_result(&r);
    CU_ASSERT_EQUAL(eco_map_nsubnets(r.map), 2);
    snprintf(path, sizeof path, "%s/m", eco_test_tmpdir());
    f = fopen(path, "w");
    CU_ASSERT_FATAL(f != NULL);
    CU_ASSERT_EQUAL(ecoc_fprint_matrix(&r, f), 0);
    fclose(f);
    CU_ASSERT_EQUAL(eco_map_read_costs(path, &m, why, sizeof why), ECO_OK);
    if (m) {
        CU_ASSERT_EQUAL(eco_map_nhosts(m), 3);
        CU_ASSERT_DOUBLE_EQUAL(eco_map_cost(m, eco_map_find_host(m, "a"),
                                            eco_map_find_host(m, "b")), 1e-4, 1e-12);
        CU_ASSERT(eco_map_cost(m, eco_map_find_host(m, "b"), eco_map_find_host(m, "c")) < 0);
    }
    eco_map_free(m);
    ecoc_result_free(&r);
}

/* The slowhosts network as eco-characterize measures it: f3 and f4 cost
 * 11.5 ms to everybody, f1 f2 and o1 o2 40 us inside, 11.5 ms across; no
 * router inside a segment, one across.  f2-o2 has hops but no cost. */
static void test_hops_result(void)
{
    static const char *name[] = { "f1", "f2", "f3", "f4", "o1", "o2" };
    ecoc_result r;
    char why[512], path[400], *text = NULL;
    size_t len = 0;
    FILE *f;
    eco_map *m = NULL;
    int n = 6;

    memset(&r, 0, sizeof r);
    ecoc_options_init(&r.opt);
    CU_ASSERT_FATAL(ecoc_parse_hosts("f1,f2,f3,f4,o1,o2", &r.host, &r.n, why, sizeof why) == 0);
    r.hops_counted = 1;
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
            int same = (a < 4) == (b < 4), fast = a != 2 && a != 3 && b != 2 && b != 3;
            double c = same && fast ? 40e-6 : 11.5e-3 + 1e-6 * (a + b);
            CU_ASSERT(ecoc_set_hops(&r, a, b, same ? 0 : 1) == ECO_OK);
            if (!(a == 1 && b == 5))
                CU_ASSERT(ecoc_set_pair(&r, a, b, &(ecoc_stat){ 8, c, c, c }) == ECO_OK);
        }
    r.measured = 14;
    CU_ASSERT_EQUAL(ecoc_result_partition(&r, why, sizeof why), ECOC_OK);
    CU_ASSERT_EQUAL(eco_map_nsubnets(r.map), 2);
    CU_ASSERT_EQUAL(eco_map_subnet_size(r.map, 0), 4);
    snprintf(path, sizeof path, "%s/hops.m", eco_test_tmpdir());
    f = fopen(path, "w");
    CU_ASSERT_FATAL(f != NULL);
    CU_ASSERT_EQUAL(ecoc_fprint_matrix(&r, f), 0);
    fclose(f);
    CU_ASSERT_EQUAL_FATAL(eco_map_read_costs(path, &m, why, sizeof why), ECO_OK);
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++)
            CU_ASSERT_EQUAL(eco_map_hops(m, eco_map_find_host(m, name[a]),
                                         eco_map_find_host(m, name[b])), ecoc_hops(&r, a, b));
    CU_ASSERT(eco_map_cost(m, eco_map_find_host(m, "f2"), eco_map_find_host(m, "o2")) < 0);
    CU_ASSERT_EQUAL(eco_map_partition(m, 0.2), ECO_OK);
    CU_ASSERT_EQUAL(eco_map_nsubnets(m), 2);
    eco_map_free(m);
    f = open_memstream(&text, &len);
    CU_ASSERT_FATAL(f != NULL);
    ecoc_print_summary(&r, f);
    fclose(f);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "routers between hosts counted for 15 of 15 pairs\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "subnet 0: 4 hosts: f1 f2 f3 f4\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "slow hosts: f3 (11.50 ms), f4 (11.50 ms)\n"));
    CU_ASSERT_PTR_NULL(strstr(text, "o1 ("));
    free(text);
    r.hops_counted = 0; /* without hops: not counted, Figure 2 alone */
    CU_ASSERT_EQUAL(ecoc_result_partition(&r, why, sizeof why), ECOC_OK);
    CU_ASSERT_EQUAL(eco_map_nsubnets(r.map), 3);
    text = NULL;
    f = open_memstream(&text, &len);
    ecoc_print_summary(&r, f);
    fclose(f);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "routers between hosts not counted (--no-hops)\n"));
    free(text);
    ecoc_result_free(&r);
}

/* The pairs of the result at 10,000 hosts, as the sparse mode measures
 * them: every host against host 0 (a representative), its neighbour and
 * one more (7a + 13), about 3 a host; a third of them with hops, and
 * the pairs (a, a + n/2) with hops alone. */
#define SCALE_N 10000

static int scale_measured(int a, int b)
{
    int n = SCALE_N;

    return a != b && (a == 0 || b == 0 || (a + 1) % n == b || (b + 1) % n == a ||
                      (7 * a + 13) % n == b || (7 * b + 13) % n == a);
}

/* The hops of pair lo < hi the test keeps, -1 none. */
static int scale_hops(int lo, int hi)
{
    if (scale_measured(lo, hi))
        return (lo + hi) % 3 == 0 ? (lo + hi) % 5 : -1;
    return hi - lo == SCALE_N / 2 ? 1 + lo % 4 : -1;
}

static ecoc_stat scale_stat(int lo, int hi)
{
    double c = 1e-6 * (1 + lo) + 1e-10 * hi;

    return (ecoc_stat){ 8, c, 2 * c, 3 * c };
}

static void test_pairs_at_scale(void)
{
    const int n = SCALE_N;
    ecoc_result r;
    long pairs = 0, hops = 0, visited = 0;
    size_t bytes, bound, dense = (size_t)n * n * (sizeof(ecoc_stat) + sizeof(int));
    ecoc_stat st = { 8, 1e-3, 1e-3, 1e-3 };

    memset(&r, 0, sizeof r);
    r.n = n;
    r.hops_counted = 1;
    for (int a = 0; a < n; a++) { /* each pair from either end, as the planner asks */
        int other[4] = { 0, (a + 1) % n, (7 * a + 13) % n, (a + n / 2) % n };
        for (int i = 0; i < 4; i++) {
            int b = other[i], lo = a < b ? a : b, hi = a < b ? b : a;
            ecoc_stat want = scale_stat(lo, hi);
            if (a == b || ecoc_pair(&r, a, b) || ecoc_hops(&r, a, b) >= 0)
                continue; /* this pair again */
            if (scale_measured(a, b)) {
                CU_ASSERT_EQUAL(ecoc_set_pair(&r, a, b, &want), ECO_OK);
                pairs++;
            }
            if (scale_hops(lo, hi) >= 0) {
                CU_ASSERT_EQUAL(ecoc_set_hops(&r, b, a, scale_hops(lo, hi)), ECO_OK);
                hops++;
            }
        }
    }
    CU_ASSERT(pairs > 2 * n && pairs < 4 * n);
    /* found both ways, and only what was kept: walk every host's pairs */
    for (int a = 0; a < n; a++) {
        int last = a;
        for (int b = ecoc_next(&r, a, a); b < n; b = ecoc_next(&r, a, b)) {
            const ecoc_stat *x = ecoc_pair(&r, a, b);
            ecoc_stat want = scale_stat(a, b);
            CU_ASSERT(b > last);
            last = b;
            visited++;
            CU_ASSERT_EQUAL(x != NULL, scale_measured(a, b));
            CU_ASSERT(ecoc_pair(&r, b, a) == x);
            if (x)
                CU_ASSERT(x->n == 8 && x->min == want.min && x->max == want.max);
            CU_ASSERT_EQUAL(ecoc_hops(&r, a, b), scale_hops(a, b));
            CU_ASSERT_EQUAL(ecoc_hops(&r, b, a), scale_hops(a, b));
        }
    }
    CU_ASSERT_EQUAL(visited, pairs + n / 2 - 1); /* the hops alone of (a, a + n/2), a > 0 */
    /* unknown pairs, the diagonal, hosts out of range */
    CU_ASSERT_PTR_NULL(ecoc_pair(&r, 5, 7));
    CU_ASSERT_EQUAL(ecoc_hops(&r, 7, 5), -1);
    CU_ASSERT_PTR_NULL(ecoc_pair(&r, n - 3, n - 1));
    CU_ASSERT_PTR_NULL(ecoc_pair(&r, 9, 9));
    CU_ASSERT_EQUAL(ecoc_hops(&r, 9, 9), 0);
    CU_ASSERT_PTR_NULL(ecoc_pair(&r, -1, 3));
    CU_ASSERT_PTR_NULL(ecoc_pair(&r, 3, n));
    CU_ASSERT_EQUAL(ecoc_hops(&r, 3, n), -1);
    CU_ASSERT_EQUAL(ecoc_next(&r, n, 0), n);
    CU_ASSERT_EQUAL(ecoc_set_pair(&r, 4, 4, &st), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(ecoc_set_pair(&r, 4, n, &st), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(ecoc_set_hops(&r, 4, 5, -1), ECO_ERR_ARG);
    st.n = 0;
    CU_ASSERT_EQUAL(ecoc_set_pair(&r, 4, 5, &st), ECO_ERR_ARG);
    /* a pair kept again replaces what was there */
    st.n = 8;
    CU_ASSERT_EQUAL(ecoc_set_pair(&r, 5, 4, &st), ECO_OK);
    CU_ASSERT(ecoc_pair(&r, 4, 5) && ecoc_pair(&r, 4, 5)->min == 1e-3);
    /* O(hosts + pairs) for the samples: a list head of 16 bytes a host, a
     * row of 40 bytes a measured pair, each list at most doubled by its
     * growth; the hops a byte a pair, once any is kept (n x n arrays took
     * 3.6 GB) */
    bytes = ecoc_pair_bytes(&r);
    bound = 32 * (size_t)n + 2 * 40 * (size_t)pairs + (size_t)n * (n - 1) / 2;
    CU_ASSERT(hops > 0);
    CU_ASSERT(bytes > 0 && bytes <= bound);
    CU_ASSERT(bytes < dense / 60);
    /* hops not counted: none known, none visited (1000-6000 has hops
     * alone, 1000-7013 is measured) */
    CU_ASSERT_EQUAL(ecoc_next(&r, 1000, 5999), 6000);
    CU_ASSERT_EQUAL(ecoc_next_measured(&r, 1000, 5999), 7013); /* the samples alone */
    CU_ASSERT_EQUAL(ecoc_next_measured(&r, 1000, 7013), n);
    CU_ASSERT_EQUAL(ecoc_next_measured(&r, n, 0), n);
    r.hops_counted = 0;
    CU_ASSERT_EQUAL(ecoc_hops(&r, 1000, 6000), -1);
    CU_ASSERT_EQUAL(ecoc_next(&r, 1000, 5999), 7013);
    ecoc_result_free(&r);
    CU_ASSERT_PTR_NULL(r.pairs);
}

/* The hops of a planted network: 100 segments of 100 hosts (host h on
 * segment h / 100), no router inside a segment, 1 between segments of a
 * site (10 segments), 3 between sites; pair (7a, 7a + 1) not counted. */
static int planted_hops(int a, int b)
{
    int lo = a < b ? a : b, hi = a < b ? b : a;

    if (lo % 7 == 0 && hi == lo + 1)
        return -1;
    if (lo / 100 == hi / 100)
        return 0;
    return lo / 1000 == hi / 1000 ? 1 : 3;
}

/* eco-characterize's default at 10,000 hosts: the hops of every pair
 * counted, the samples of about 3 pairs a host.  A byte a pair: 50 MB,
 * where sorted rows of 8 bytes a pair took 597 MB. */
static void test_all_hops_at_scale(void)
{
    const int n = SCALE_N;
    ecoc_result r;
    long pairs = 0, visited = 0, known = 0, wrong = 0;
    size_t bytes, bound;

    memset(&r, 0, sizeof r);
    r.n = n;
    r.hops_counted = 1;
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            if (planted_hops(a, b) >= 0 && ecoc_set_hops(&r, b, a, planted_hops(a, b)) != ECO_OK)
                wrong++;
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            if (scale_measured(a, b)) {
                ecoc_stat st = scale_stat(a, b);
                wrong += ecoc_set_pair(&r, a, b, &st) != ECO_OK;
                pairs++;
            }
    CU_ASSERT_EQUAL(wrong, 0);
    /* every pair's hops back, from either end; ecoc_next visits them */
    for (int a = 0; a < n; a++) {
        for (int b = ecoc_next(&r, a, a); b < n; b = ecoc_next(&r, a, b)) {
            visited++;
            known += ecoc_hops(&r, a, b) >= 0;
            wrong += ecoc_hops(&r, a, b) != planted_hops(a, b) ||
                     ecoc_hops(&r, b, a) != planted_hops(a, b) ||
                     (ecoc_pair(&r, a, b) != NULL) != scale_measured(a, b);
        }
    }
    CU_ASSERT_EQUAL(wrong, 0);
    CU_ASSERT_EQUAL(known, (long)n * (n - 1) / 2 - (n + 6) / 7);
    CU_ASSERT(visited >= known && visited <= known + pairs);
    CU_ASSERT_EQUAL(ecoc_hops(&r, 14, 15), -1);
    CU_ASSERT_EQUAL(ecoc_hops(&r, 0, n - 1), 3);
    CU_ASSERT_EQUAL(ecoc_set_hops(&r, 1, 2, 255), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(ecoc_set_hops(&r, 1, 2, 254), ECO_OK);
    CU_ASSERT_EQUAL(ecoc_hops(&r, 2, 1), 254);
    /* the triangle, the list heads, the samples' rows at most doubled */
    bytes = ecoc_pair_bytes(&r);
    bound = (size_t)n * (n - 1) / 2 + 32 * (size_t)n + 2 * 40 * (size_t)pairs;
    CU_ASSERT(bytes >= (size_t)n * (n - 1) / 2 && bytes <= bound);
    CU_ASSERT(bytes < 55 * 1000 * 1000);
    ecoc_result_free(&r);
}

/* The bytes of a map's hops: classes, table, exceptions. */
static size_t hops_bytes(const eco_map *m)
{
    const ecoi_hops *h = &m->hops;
    size_t bytes = (size_t)m->cap * (sizeof *h->cls + sizeof *h->exc);

    bytes += (size_t)h->ncls * (size_t)(h->ncls + 1) / 2 * sizeof *h->table;
    for (int a = 0; a < m->nhosts; a++)
        bytes += (size_t)h->exc[a].cap * sizeof(ecoi_hop);
    return bytes;
}

/* A result of n hosts h00000.. (the names sort as the hosts), the
 * cheap mode's, nothing measured yet. */
static void hosts_result(ecoc_result *r, int n)
{
    char *list = malloc((size_t)n * 8 + 1), why[256];
    size_t len = 0;

    CU_ASSERT_FATAL(list != NULL);
    for (int h = 0; h < n; h++)
        len += (size_t)sprintf(list + len, "%sh%05d", h ? "," : "", h);
    memset(r, 0, sizeof *r);
    ecoc_options_init(&r->opt);
    CU_ASSERT_FATAL(ecoc_parse_hosts(list, &r->host, &r->n, why, sizeof why) == 0);
    free(list);
    r->sparse = 1;
}

/* The hops of every pair of r's hosts counted, as planted_hops says: the
 * count of those not kept. */
static long count_planted_hops(ecoc_result *r)
{
    long wrong = 0;

    r->hops_counted = 1;
    for (int a = 0; a < r->n; a++)
        for (int b = a + 1; b < r->n; b++)
            if (planted_hops(a, b) >= 0)
                wrong += ecoc_set_hops(r, a, b, planted_hops(a, b)) != ECO_OK;
    return wrong;
}

/* The default characterization of 10,000 hosts end to end: the hops of
 * every pair (planted_hops: 100 segments of 100), the sparse mode's few
 * costs a host (each host with the next two, 40 us inside a segment,
 * 1 ms across), partitioned, summarized, the subnet file written and
 * read back with every pair's hops.  Sizes: the map's hops in classes
 * (a pair a link, 1.6 GB, before), the subnet file (a line a pair, 1.2
 * GB, before). */
static void test_all_hops_end_to_end(void)
{
    const int n = SCALE_N;
    char why[512], path[400];
    ecoc_result r;
    eco_map *m = NULL;
    struct stat st;
    long wrong;
    FILE *null;

    hosts_result(&r, n);
    wrong = count_planted_hops(&r);
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b <= a + 2 && b < n; b++) {
            double c = a / 100 == b / 100 ? 40e-6 + 1e-9 * (b - a) : 1e-3;
            wrong += ecoc_set_pair(&r, a, b, &(ecoc_stat){ 8, c, c, c }) != ECO_OK;
            r.measured++;
        }
    CU_ASSERT_EQUAL_FATAL(wrong, 0);
    CU_ASSERT_EQUAL_FATAL(ecoc_result_partition(&r, why, sizeof why), ECOC_OK);
    CU_ASSERT_EQUAL(eco_map_nsubnets(r.map), 100);
    /* about a class a segment (one more when the pair of a segment's
     * first or second host with another was not counted: 29 of them),
     * an exception a pair not counted */
    printf("\n    [hops] %d hop classes, %zu exceptions\n", r.map->hops.ncls, r.map->hops.nexc);
    CU_ASSERT(r.map->hops.ncls >= 100 && r.map->hops.ncls <= 130);
    CU_ASSERT_EQUAL(r.map->hops.nexc, (size_t)(n + 6) / 7);
    CU_ASSERT(hops_bytes(r.map) < 1000 * 1000);
    null = fopen("/dev/null", "w");
    CU_ASSERT_FATAL(null != NULL);
    ecoc_print_summary(&r, null);
    fclose(null);
    snprintf(path, sizeof path, "%s/all-hops.subnets", eco_test_tmpdir());
    CU_ASSERT_EQUAL_FATAL(ecoc_commit(&r, path, NULL, why, sizeof why), ECOC_OK);
    CU_ASSERT(stat(path, &st) == 0 && st.st_size < 2 * 1000 * 1000);
    CU_ASSERT_EQUAL_FATAL(eco_map_read(path, &m, why, sizeof why), ECO_OK);
    CU_ASSERT_EQUAL(eco_map_nsubnets(m), 100);
    CU_ASSERT(hops_bytes(m) < 1000 * 1000);
    for (int a = 0; a < n; a++) /* the names sort as the hosts: one order */
        for (int b = a + 1; b < n; b++) {
            int want = planted_hops(a, b) < 0 ? ECO_ERR_NOTFOUND : planted_hops(a, b);
            wrong += eco_map_hops(m, a, b) != want || eco_map_hops(m, b, a) != want;
        }
    CU_ASSERT_EQUAL(wrong, 0);
    eco_map_free(m);
    ecoc_result_free(&r);
}

static int file_is(const char *path, const char *text)
{
    char buf[256] = "";
    FILE *f = fopen(path, "r");
    size_t got;

    if (!f)
        return 0;
    got = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[got] = '\0';
    return strcmp(buf, text) == 0;
}

static void test_commit(void)
{
    ecoc_result r;
    char sub[400], mat[400], bad[400], err[1024];
    eco_map *m = NULL;
    FILE *f;

    small_result(&r);
    /* A new directory is made; both files written; the subnet file valid. */
    snprintf(sub, sizeof sub, "%s/new/dir/subnets", eco_test_tmpdir());
    snprintf(mat, sizeof mat, "%s/new/matrix", eco_test_tmpdir());
    CU_ASSERT_EQUAL(ecoc_commit(&r, sub, mat, err, sizeof err), ECOC_OK);
    CU_ASSERT_EQUAL(eco_map_read(sub, &m, err, sizeof err), ECO_OK);
    CU_ASSERT(m && eco_map_nsubnets(m) == 2);
    eco_map_free(m);
    m = NULL;
    CU_ASSERT_EQUAL(eco_map_read_costs(mat, &m, err, sizeof err), ECO_OK);
    eco_map_free(m);

    /* The subnet file cannot be written: the old matrix stays. */
    snprintf(bad, sizeof bad, "%s/plainfile", eco_test_tmpdir());
    f = fopen(bad, "w");
    fputs("x", f);
    fclose(f);
    f = fopen(mat, "w");
    fputs("old\n", f);
    fclose(f);
    snprintf(sub, sizeof sub, "%s/plainfile/subnets", eco_test_tmpdir());
    CU_ASSERT_EQUAL(ecoc_commit(&r, sub, mat, err, sizeof err), ECOC_NOWRITE);
    CU_ASSERT(file_is(mat, "old\n"));
    CU_ASSERT(strstr(err, "plainfile") != NULL);
    ecoc_result_free(&r);
}

static void test_write_atomic(void)
{
    char path[400], err[512];
    struct stat st;

    snprintf(path, sizeof path, "%s/atomic", eco_test_tmpdir());
    CU_ASSERT_EQUAL(ecoc_write_atomic(path, "one\n", 4, err, sizeof err), 0);
    CU_ASSERT(file_is(path, "one\n"));
    chmod(path, 0600);
    CU_ASSERT_EQUAL(ecoc_write_atomic(path, "two\n", 4, err, sizeof err), 0);
    CU_ASSERT(file_is(path, "two\n"));
    CU_ASSERT(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
}

static void test_format(void)
{
    char b[32];

    CU_ASSERT_STRING_EQUAL(ecoc_fmt_time(12.34e-6, b, sizeof b), "12.3 us");
    CU_ASSERT_STRING_EQUAL(ecoc_fmt_time(2.5e-3, b, sizeof b), "2.50 ms");
    CU_ASSERT_STRING_EQUAL(ecoc_fmt_clock(65, b, sizeof b), "1:05");
    CU_ASSERT_STRING_EQUAL(ecoc_fmt_clock(3723, b, sizeof b), "1:02:03");
}

/* The model's fit: the sustained slope of two streams when it is the
 * larger, alpha from the small probe. */
static void test_fit_sustained(void)
{
    double a, b;

    /* a shaped 100 Mbit/s link (80 ns/byte) whose 12.5 KB burst carried
     * most of a 16 KB probe: the probes' slope is 20 ns/byte */
    ecoc_fit(100e-6, 64, 100e-6 + 20e-9 * (16384 - 64), 16384, &a, &b);
    CU_ASSERT_DOUBLE_EQUAL(b, 20e-9, 1e-12);
    ecoc_fit_sustained(100e-6, 64, 100e-6 + 20e-9 * (16384 - 64), 16384, 1e-3,
                       1e-3 + 80e-9 * 131072, 131072, &a, &b);
    CU_ASSERT_DOUBLE_EQUAL(b, 80e-9, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(a, 100e-6 - 80e-9 * 64, 1e-12);
    /* the streams faster per byte than one message (overlapped copies):
     * the probes' slope stays */
    ecoc_fit_sustained(100e-6, 64, 100e-6 + 20e-9 * (16384 - 64), 16384, 1e-3,
                       1e-3 + 10e-9 * 131072, 131072, &a, &b);
    CU_ASSERT_DOUBLE_EQUAL(b, 20e-9, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(a, 100e-6 - 20e-9 * 64, 1e-12);
    /* no streams, or a long stream not slower: ecoc_fit */
    ecoc_fit_sustained(100e-6, 64, 200e-6, 16384, 0.0, 0.0, 0.0, &a, &b);
    CU_ASSERT_DOUBLE_EQUAL(b, 100e-6 / (16384 - 64), 1e-15);
    ecoc_fit_sustained(100e-6, 64, 200e-6, 16384, 2e-3, 1e-3, 131072, &a, &b);
    CU_ASSERT_DOUBLE_EQUAL(b, 100e-6 / (16384 - 64), 1e-15);
    /* a steep slope past the small probe's time: alpha is that time */
    ecoc_fit_sustained(50e-6, 64, 60e-6, 16384, 1e-3, 1e-3 + 1e-6 * 131072, 131072, &a, &b);
    CU_ASSERT_DOUBLE_EQUAL(b, 1e-6, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(a, 50e-6, 1e-15);
}

/* A link's burst from its probes and its sustained beta: planted on
 * netbed's 10 Mbit/s link (tbf's 3,028 bytes at once, 8.47e-07 s/byte
 * past them; probes of 64 and 16384 bytes), an unshaped link, a probe
 * slope above beta or just below it, a burst past the probe, and inputs
 * it cannot use. */
static void test_fit_burst(void)
{
    const double beta = 8.47e-7, alpha = 120e-6;
    double t_small = alpha + beta * 64, a, b;
    double t_big = t_small + beta * (16384 - 64 - 3028); /* 3028 bytes at once */

    CU_ASSERT_EQUAL(ecoc_fit_burst(t_small, 64, t_big, 16384, beta), 3028.0);
    /* through the link's fit: streams of 1 and 9 messages give beta, the
     * probes' slope is the burst's lower one */
    ecoc_fit_sustained(t_small, 64, t_big, 16384, 20e-3, 20e-3 + beta * 131072, 131072, &a,
                       &b);
    CU_ASSERT_DOUBLE_EQUAL(b, beta, 1e-15);
    CU_ASSERT_EQUAL(ecoc_fit_burst(t_small, 64, t_big, 16384, b), 3028.0);
    /* no burst: the probes' slope is beta */
    t_big = t_small + beta * (16384 - 64);
    CU_ASSERT_EQUAL(ecoc_fit_burst(t_small, 64, t_big, 16384, beta), 0.0);
    /* the probes' slope above beta (the streams overlapped copies that
     * one message pays): no burst, not a negative one */
    t_big = t_small + 1.25 * beta * (16384 - 64);
    CU_ASSERT_EQUAL(ecoc_fit_burst(t_small, 64, t_big, 16384, beta), 0.0);
    /* a slope less than 10% below beta is noise (a fast link's
     * microsecond is hundreds of bytes): none; 11% below is a burst */
    t_big = t_small + 0.91 * beta * (16384 - 64);
    CU_ASSERT_EQUAL(ecoc_fit_burst(t_small, 64, t_big, 16384, beta), 0.0);
    t_big = t_small + 0.89 * beta * (16384 - 64);
    CU_ASSERT_DOUBLE_EQUAL(ecoc_fit_burst(t_small, 64, t_big, 16384, beta),
                           0.11 * (16384 - 64), 1.0);
    /* the large probe no dearer than the small one, and then some: the
     * bytes past the small probe's passed at once, no more */
    t_big = t_small - beta * 100;
    CU_ASSERT_EQUAL(ecoc_fit_burst(t_small, 64, t_big, 16384, beta), 16384.0 - 64);
    /* nothing to divide by, or numbers that are not */
    t_big = t_small + beta * (16384 - 64 - 3028);
    CU_ASSERT_EQUAL(ecoc_fit_burst(t_small, 64, t_big, 16384, 0.0), 0.0);
    CU_ASSERT_EQUAL(ecoc_fit_burst(t_small, 64, t_big, 16384, -beta), 0.0);
    CU_ASSERT_EQUAL(ecoc_fit_burst(t_small, 64, t_big, 16384, NAN), 0.0);
    CU_ASSERT_EQUAL(ecoc_fit_burst(t_small, 64, t_big, 16384, INFINITY), 0.0);
    CU_ASSERT_EQUAL(ecoc_fit_burst(NAN, 64, t_big, 16384, beta), 0.0);
    CU_ASSERT_EQUAL(ecoc_fit_burst(t_small, 64, INFINITY, 16384, beta), 0.0);
    CU_ASSERT_EQUAL(ecoc_fit_burst(t_small, 64, t_big, 64, beta), 0.0);
}

/* SipHash-2-4: the paper's test vector (Appendix A: key 00..0f, the
 * 15 bytes 00..0e), and the hops nonces it derives: symmetric, one per
 * pair, another under another key. */
static void test_hops_nonces(void)
{
    unsigned char key[16], msg[15], other[16];
    uint64_t seen[40 * 39 / 2];
    int k = 0;

    for (int i = 0; i < 16; i++) {
        key[i] = (unsigned char)i;
        other[i] = (unsigned char)(i == 0);
    }
    for (int i = 0; i < 15; i++)
        msg[i] = (unsigned char)i;
    CU_ASSERT_EQUAL(ecoc_siphash24(key, msg, sizeof msg), 0xa129ca6149be45e5ULL);
    /* the empty message and a whole word exercise the other tails */
    CU_ASSERT_NOT_EQUAL(ecoc_siphash24(key, msg, 0), ecoc_siphash24(key, msg, 8));
    for (int a = 0; a < 40; a++)
        for (int b = a + 1; b < 40; b++) {
            uint64_t v = ecoc_hops_nonce(key, a, b);
            CU_ASSERT_EQUAL(v, ecoc_hops_nonce(key, b, a));
            CU_ASSERT_NOT_EQUAL(v, ecoc_hops_nonce(other, a, b));
            for (int j = 0; j < k; j++)
                CU_ASSERT_NOT_EQUAL(seen[j], v);
            seen[k++] = v;
        }
}

/* Two segments of four hosts, a1-a4 and b1-b4, 4 ms apart.  Inside a,
 * a1-a2 and a3-a4 measured 72 and 73 us and the four pairs across them
 * 95 to 98 us (the 20% rule splits a in two), every pair of a with its
 * median `spread` above its minimum; b is 80 us inside, 10% spread.
 * With sparse, the pairs the cheap mode could leave out are not
 * measured: a1-a4, b with a but from a1, inside b but b1-b2, b2-b3,
 * b3-b4. */
static void split_result(ecoc_result *r, double spread, int sparse)
{
    char why[256];

    memset(r, 0, sizeof *r);
    ecoc_options_init(&r->opt);
    CU_ASSERT_FATAL(ecoc_parse_hosts("a1,a2,a3,a4,b1,b2,b3,b4", &r->host, &r->n, why,
                                     sizeof why) == 0);
    for (int a = 0; a < 8; a++)
        for (int b = a + 1; b < 8; b++) {
            double c, s = 0.1;
            if (sparse && ((a == 0 && b == 3) || (a >= 4 && b > a + 1) ||
                           (a > 0 && a < 4 && b >= 4)))
                continue;
            if (a >= 4)
                c = 80e-6;
            else if (b >= 4)
                c = 4e-3 + 1e-6 * b, s = 0.01;
            else if ((a < 2) == (b < 2))
                c = a < 2 ? 72e-6 : 73e-6, s = spread;
            else
                c = (95 + a + b - 2) * 1e-6, s = spread;
            CU_ASSERT(ecoc_set_pair(r, a, b, &(ecoc_stat){ 8, c, c * (1 + s), c * 3 }) == ECO_OK);
        }
    r->measured = sparse ? 12 : 28;
    r->sparse = sparse;
    CU_ASSERT_EQUAL_FATAL(ecoc_result_partition(r, why, sizeof why), ECOC_OK);
}

static void test_doubtful_splits(void)
{
    static const unsigned char want[8] = { 1, 1, 1, 1, 0, 0, 0, 0 };
    unsigned char mark[8];
    ecoc_result r;
    ecoc_doubt d;

    /* Under load (medians twice the minima): the split of a is doubtful,
     * its four hosts marked, b not; the worst is a's halves. */
    /* The cheap mode's pairs are judged alike (only b's are fewer). */
    for (int sparse = 0; sparse < 2; sparse++) {
        split_result(&r, 1.0, sparse);
        CU_ASSERT_EQUAL(eco_map_nsubnets(r.map), 3);
        CU_ASSERT_EQUAL(ecoc_doubtful_splits(&r, mark, &d, NULL), 1);
        CU_ASSERT_EQUAL(memcmp(mark, want, sizeof want), 0);
        CU_ASSERT_DOUBLE_EQUAL(d.cost, 95e-6, 1e-12);
        CU_ASSERT_DOUBLE_EQUAL(d.floor, 72e-6, 1e-12);
        /* medians/floor */
        CU_ASSERT_DOUBLE_EQUAL(d.noise, (1.0 + 146.0 / 72.0 - 1.0) / 2.0, 1e-9);
        CU_ASSERT(eco_map_subnet_size(r.map, d.s) == 2 && eco_map_subnet_size(r.map, d.t) == 2);
        ecoc_result_free(&r);
    }
    /* The same costs on a quiet machine (5% spread): 95 us is 1.32 times
     * 72, beyond 1.2 x 1.057 (the medians 75.6 and 76.65 us): a split
     * the samples agree on. */
    for (int sparse = 0; sparse < 2; sparse++) {
        split_result(&r, 0.05, sparse);
        CU_ASSERT_EQUAL(eco_map_nsubnets(r.map), 3);
        CU_ASSERT_EQUAL(ecoc_doubtful_splits(&r, mark, &d, NULL), 0);
        for (int h = 0; h < 8; h++)
            CU_ASSERT_EQUAL(mark[h], 0);
        ecoc_result_free(&r);
    }
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;

    return (a > b) - (a < b);
}

/* The rule of lib/doubtful.c as it reads, for every two subnets over
 * every two hosts: what ecoc_doubtful_splits must give exactly. */
static int reference_doubtful(const ecoc_result *r, unsigned char *mark, ecoc_doubt *worst)
{
    int n = r->n, ns = eco_map_nsubnets(r->map), count = 0, *sub = malloc((size_t)n * sizeof *sub);
    double *rel = malloc(((size_t)n * n + 1) * sizeof *rel);

    CU_ASSERT_FATAL(sub && rel);
    memset(mark, 0, (size_t)n);
    for (int h = 0; h < n; h++)
        sub[h] = eco_map_subnet_of(r->map, eco_map_find_host(r->map, r->host[h].name));
    for (int s = 0; s < ns; s++)
        for (int t = s + 1; t < ns; t++) {
            double lo = INFINITY, c = INFINITY, noise;
            int k = 0;
            for (int pass = 0; pass < 2; pass++)
                for (int a = 0; a < n; a++)
                    for (int b = a + 1; b < n; b++) {
                        const ecoc_stat *st = ecoc_pair(r, a, b);
                        int in = sub[a] == sub[b] && (sub[a] == s || sub[a] == t);
                        if (!st || st->n == 0 || !(st->min > 0.0))
                            continue;
                        if (pass == 0 && in)
                            lo = fmin(lo, st->min);
                        else if (pass == 0 && sub[a] + sub[b] == s + t && sub[a] != sub[b] &&
                                 (sub[a] == s || sub[b] == s))
                            c = fmin(c, st->min);
                        else if (pass == 1 && in)
                            rel[k++] = (st->median - lo) / lo;
                    }
            if (!isfinite(lo) || !isfinite(c))
                continue;
            qsort(rel, (size_t)k, sizeof *rel, cmp_double);
            noise = k % 2 ? rel[k / 2] : (rel[k / 2 - 1] + rel[k / 2]) / 2.0;
            if (!(c <= (1.0 + r->opt.threshold) * (1.0 + noise) * lo))
                continue;
            if (count++ == 0 || c / lo < worst->cost / worst->floor)
                *worst = (ecoc_doubt){ s, t, c, lo, noise };
            for (int h = 0; h < n; h++)
                mark[h] |= sub[h] == s || sub[h] == t;
        }
    free(sub);
    free(rel);
    return count;
}

/*
 * A random result of n hosts partitioned: planted subnets of 1 to 9
 * hosts, inside 50 to 500 us; a subnet with the next one (every other)
 * either 1.25 to 1.6 times apart (a split noise may explain) or 3 to 10
 * times; the medians `noise` x (0 to 2) above the minima; each pair left
 * unmeasured with odds `gaps`, hops counted for some pairs not measured;
 * with coarse, every cost a whole microsecond (ties).
 */
static void random_split_result(ecoc_result *r, int n, double noise, double gaps, int coarse)
{
    char why[256];
    int *plant = malloc((size_t)n * sizeof *plant), ns = 0;
    double base[64], apart[64];

    CU_ASSERT_FATAL(plant && n <= 64);
    hosts_result(r, n);
    r->sparse = 0;
    for (int h = 0, left = 0; h < n; h++, left--) {
        if (left == 0) {
            left = 1 + (int)(uniform() * 9);
            base[ns] = 50e-6 * pow(10.0, uniform());
            apart[ns++] = uniform() < 0.5 ? 1.25 + 0.35 * uniform() : 3.0 + 7.0 * uniform();
        }
        plant[h] = ns - 1;
    }
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
            int s = plant[a], t = plant[b];
            double c = base[s] * (1.0 + 0.1 * uniform());
            if (s != t)
                c = fmax(base[s], base[t]) * (t == s + 1 ? apart[s] : 12.0) * (1.0 + 0.1 * uniform());
            if (coarse)
                c = 1e-6 * ceil(c * 1e6);
            if (uniform() < gaps) {
                if (uniform() < 0.3)
                    CU_ASSERT(ecoc_set_hops(r, a, b, 1) == ECO_OK);
                continue;
            }
            double med = c * (1.0 + noise * 2.0 * uniform());
            if (coarse)
                med = 1e-6 * ceil(med * 1e6);
            CU_ASSERT(ecoc_set_pair(r, a, b, &(ecoc_stat){ 8, c, med, 2 * med }) == ECO_OK);
            r->measured++;
        }
    r->hops_counted = 1;
    CU_ASSERT_EQUAL_FATAL(ecoc_result_partition(r, why, sizeof why), ECOC_OK);
    free(plant);
}

/* The one walk against the rule as it reads, on random results of 3 to
 * 64 hosts: the same count, marks and worst split, to the bit. */
static void test_doubtful_reference(void)
{
    static const int sizes[] = { 3, 4, 7, 12, 20, 33, 64 };
    static const double noises[] = { 0.02, 0.3, 1.0 }, gaps[] = { 0.0, 0.3, 0.7 };
    unsigned char mark[64], want_mark[64];
    long doubtful = 0, clear = 0, ones = 0, wrong = 0;
    ecoc_doubt d, want;
    ecoc_result r;

    rng_state = 2026;
    for (int i = 0; i < 7; i++)
        for (int j = 0; j < 3; j++)
            for (int g = 0; g < 3; g++)
                for (int rep = 0; rep < 4; rep++) {
                    int k, want_k;
                    random_split_result(&r, sizes[i], noises[j], gaps[g], rep % 2);
                    memset(&d, 0, sizeof d);
                    memset(&want, 0, sizeof want);
                    k = ecoc_doubtful_splits(&r, mark, &d, NULL);
                    want_k = reference_doubtful(&r, want_mark, &want);
                    wrong += k != want_k || memcmp(mark, want_mark, (size_t)r.n) != 0 ||
                             (k > 0 && (d.s != want.s || d.t != want.t || d.cost != want.cost ||
                                        d.floor != want.floor || d.noise != want.noise));
                    wrong += ecoc_doubtful_splits(&r, NULL, NULL, NULL) != want_k;
                    doubtful += k > 0;
                    clear += k == 0;
                    for (int s = 0; s < eco_map_nsubnets(r.map); s++)
                        ones += eco_map_subnet_size(r.map, s) == 1;
                    ecoc_result_free(&r);
                }
    printf("\n    [doubt] %ld results with doubtful splits, %ld without, %ld one-host subnets\n",
           doubtful, clear, ones);
    CU_ASSERT_EQUAL(wrong, 0);
    CU_ASSERT(doubtful > 20 && clear > 20 && ones > 20); /* both kinds, and lone hosts */
}

/* 10,000 hosts in 100 segments of 100 (planted_hops: host h in segment
 * h / 100, the hops of every pair counted); each host measured with the
 * next two of its segment (100 us, medians twice that: a busy machine)
 * and with the first host of the next segment and of the 7th after
 * (4 ms; 1.3 + 0.02 j times the floor between segments 2j and 2j + 1,
 * j < 5: splits the noise explains).  The walk is of the measured pairs,
 * twice, not of every pair with hops (5 x 10^7), nor once per two
 * subnets (before: minutes); its memory O(hosts + pairs + subnets).
 * Two subnets are judged for each two with a pair between them: 200. */
static void test_doubtful_at_scale(void)
{
    const int n = SCALE_N, per = 100;
    char why[512];
    unsigned char *mark = malloc((size_t)n);
    long pairs = 0, wrong;
    ecoc_doubt_work work;
    ecoc_result r;
    ecoc_doubt d;
    size_t bound;
    double t0;
    int k, sa, sb;

    CU_ASSERT_FATAL(mark != NULL);
    hosts_result(&r, n);
    wrong = count_planted_hops(&r);
    for (int a = 0; a < n; a++) {
        int s = a / per, other[4] = { s * per + (a + 1) % per, s * per + (a + 2) % per,
                                      (s + 1) % 100 * per, (s + 7) % 100 * per };
        for (int i = 0; i < 4; i++) {
            int t = other[i] / per, close = s / 2 == t / 2 && s < 10;
            double c = s == t ? 100e-6 + 1e-9 * (a % per) : close ? 100e-6 * (1.3 + 0.02 * (s / 2))
                                                                  : 4e-3;
            if (ecoc_pair(&r, a, other[i]))
                continue; /* this pair again */
            wrong += ecoc_set_pair(&r, a, other[i], &(ecoc_stat){ 8, c, 2 * c, 3 * c }) != ECO_OK;
            pairs++;
        }
    }
    r.measured = pairs;
    CU_ASSERT_EQUAL_FATAL(wrong, 0);
    CU_ASSERT_EQUAL_FATAL(ecoc_result_partition(&r, why, sizeof why), ECOC_OK);
    CU_ASSERT_EQUAL_FATAL(eco_map_nsubnets(r.map), 100);
    t0 = now();
    k = ecoc_doubtful_splits(&r, mark, &d, &work);
    printf("\n    [doubt] 10,000 hosts, %ld pairs: %d doubtful splits in %.2f s, %ld steps, "
           "%zu bytes\n", pairs, k, now() - t0, work.visits, work.bytes);
    CU_ASSERT_EQUAL(k, 5);
    for (int h = 0; h < n; h++)
        wrong += mark[h] != (h < 10 * per);
    CU_ASSERT_EQUAL(wrong, 0);
    sa = eco_map_subnet_of(r.map, eco_map_find_host(r.map, "h00000"));
    sb = eco_map_subnet_of(r.map, eco_map_find_host(r.map, "h00100"));
    CU_ASSERT((sa == d.s && sb == d.t) || (sa == d.t && sb == d.s));
    CU_ASSERT_EQUAL(d.cost, 100e-6 * 1.3);
    CU_ASSERT_EQUAL(d.floor, 100e-6);
    CU_ASSERT_DOUBLE_EQUAL(d.noise, 1.0 + 2e-5 * 49.5, 1e-9);
    /* each measured pair walked twice, no pair with hops alone; memory
     * a few bytes a host, a subnet and a pair */
    bound = 8 * (size_t)n + 64 * 100 + 16 * (size_t)pairs + 256;
    CU_ASSERT_EQUAL(work.visits, 2 * pairs);
    CU_ASSERT_EQUAL(work.judged, 200);
    CU_ASSERT(work.bytes > 16 * (size_t)pairs / 2 && work.bytes <= bound);
    free(mark);
    ecoc_result_free(&r);
}

/* The model's cores from the machines the probes say (ecoc_shared_cores):
 * n x CPUs / hosts of the most crowded machine, 0 when none has more
 * hosts than CPUs or none is known. */
static void test_shared_cores(void)
{
    ecoc_machine mach[8];
    int hosts = -1, cpus = -1;

    memset(mach, 0, sizeof mach);
    /* netbed: 8 hosts on one machine of 2 CPUs */
    for (int i = 0; i < 8; i++) {
        snprintf(mach[i].id, sizeof mach[i].id, "boot-a");
        mach[i].cpus = 2;
    }
    CU_ASSERT_EQUAL(ecoc_shared_cores(8, mach, &hosts, &cpus), 2.0);
    CU_ASSERT_EQUAL(hosts, 8);
    CU_ASSERT_EQUAL(cpus, 2);
    /* 4 of them on it, 4 machines of 4 CPUs with one host each, in any
     * order: 8 x 2 / 4 */
    for (int i = 1; i < 8; i += 2) {
        snprintf(mach[i].id, sizeof mach[i].id, "boot-%d", i);
        mach[i].cpus = 4;
    }
    CU_ASSERT_EQUAL(ecoc_shared_cores(8, mach, &hosts, &cpus), 4.0);
    CU_ASSERT_EQUAL(hosts, 4);
    CU_ASSERT_EQUAL(cpus, 2);
    /* the most hosts a CPU, not the most hosts: 4 on 2 CPUs (2 a CPU)
     * crowd more than 3 on 2 (1.5), wherever they are */
    snprintf(mach[1].id, sizeof mach[1].id, "boot-b");
    snprintf(mach[3].id, sizeof mach[3].id, "boot-b");
    snprintf(mach[5].id, sizeof mach[5].id, "boot-b");
    mach[1].cpus = mach[3].cpus = mach[5].cpus = 2;
    CU_ASSERT_EQUAL(ecoc_shared_cores(8, mach, &hosts, &cpus), 4.0);
    CU_ASSERT_EQUAL(hosts, 4);
    /* no machine with more hosts than CPUs: 0 (each its own) */
    for (int i = 0; i < 8; i++)
        mach[i].cpus = 4;
    CU_ASSERT_EQUAL(ecoc_shared_cores(8, mach, &hosts, &cpus), 0.0);
    CU_ASSERT_EQUAL(hosts, 4);
    CU_ASSERT_EQUAL(cpus, 4);
    /* probes of an older build say nothing: no machine known, 0; a host
     * that says nothing crowds none */
    memset(mach, 0, sizeof mach);
    CU_ASSERT_EQUAL(ecoc_shared_cores(8, mach, &hosts, &cpus), 0.0);
    CU_ASSERT_EQUAL(hosts, 0);
    CU_ASSERT_EQUAL(cpus, 0);
    CU_ASSERT_EQUAL(ecoc_shared_cores(8, NULL, NULL, NULL), 0.0);
    for (int i = 0; i < 3; i++) {
        snprintf(mach[i].id, sizeof mach[i].id, "boot-a");
        mach[i].cpus = 2;
    }
    mach[3].cpus = 1; /* CPUs but no id: not known */
    CU_ASSERT_DOUBLE_EQUAL(ecoc_shared_cores(8, mach, &hosts, &cpus), 8.0 * 2 / 3, 1e-12);
    CU_ASSERT_EQUAL(hosts, 3);
}

/* ------------------------------------------------------------------ */

static const eco_unit_test sparse_tests[] = {
    { "planted 200 hosts, 19 subnets", test_planted_200 },
    { "planted 200 hosts, 5% outliers", test_planted_200_outliers },
    { "other shapes", test_planted_shapes },
    { "a failing measurement stops the plan", test_sparse_stops },
    { NULL, NULL }
};

static const eco_unit_test util_tests[] = {
    { "host lists", test_parse_hosts },
    { "options", test_options },
    { "statistics", test_stat },
    { "matrix file round trip", test_matrix_roundtrip },
    { "hops: matrix, partition and summary", test_hops_result },
    { "pairs of 10,000 hosts: lookups, O(pairs) memory", test_pairs_at_scale },
    { "hops of every pair of 10,000 hosts: a byte a pair", test_all_hops_at_scale },
    { "hops of every pair of 10,000 hosts: map, subnet file, read back",
      test_all_hops_end_to_end },
    { "commit", test_commit },
    { "atomic write", test_write_atomic },
    { "formatting", test_format },
    { "the model's sustained fit", test_fit_sustained },
    { "a link's burst", test_fit_burst },
    { "hops nonces: SipHash-2-4", test_hops_nonces },
    { "splits within the noise", test_doubtful_splits },
    { "splits within the noise: one walk as the rule reads", test_doubtful_reference },
    { "splits within the noise of 10,000 hosts: O(pairs)", test_doubtful_at_scale },
    { "the model's cores from the probes' machines", test_shared_cores },
    { NULL, NULL }
};

static const eco_suite sparse_suite = { "sparse", NULL, NULL, sparse_tests };
static const eco_suite util_suite = { "util", NULL, NULL, util_tests };
static const eco_suite *const suites[] = { &sparse_suite, &util_suite, NULL };

const eco_program eco_test_program = { "char-unit", suites, NULL, NULL };
