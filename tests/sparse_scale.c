/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sparse_scale.c -- eco-characterize's sparse planner (lib/sparse.c) on a
 * planted network of N hosts in S subnets of N / S hosts (doc/scale.md):
 * the pairs it measures, its time, and whether the partition of the
 * measured pairs is the plant.  Not a test (minutes at 10,000 hosts):
 *   make tests/sparse_scale && tests/sparse_scale [N [S]]   (1000 100)
 * The costs are those of tests/test_characterize.c's plant, without
 * outliers, each pair's noise a hash of the pair: no n x n matrix here
 * or in the planner, memory grows with the pairs measured.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include "eco_char.h"

static unsigned long long rng;
static double uniform(void)
{
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rng >> 11) / 9007199254740992.0;
}
typedef struct net { int n, nsub; int *subnet; double *base; unsigned long long seed; } net;
/* the cost of a pair, made from its hosts and the seed (no n x n matrix) */
static double cost(const net *p, int a, int b)
{
    int s = p->subnet[a], t = p->subnet[b];
    unsigned long long x = p->seed ^ ((unsigned long long)(a < b ? a : b) << 32 | (unsigned)(a < b ? b : a));
    x ^= x >> 33; x *= 0xff51afd7ed558ccdULL; x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ULL; x ^= x >> 33;
    double u = (double)(x >> 11) / 9007199254740992.0;
    if (s == t) return p->base[s] * (1.0 + 0.12 * u);
    return (3.0 * fmax(p->base[s], p->base[t]) + 60e-6 * abs(s - t)) * (1.0 + 0.10 * u);
}
/* the pairs measured, in the order asked */
typedef struct pair { int a, b; double cost; } pair;
static pair *got;
static long ngot, capgot;
static int measure(void *arg, int a, int b, double *seconds)
{
    if (ngot == capgot) {
        pair *g = realloc(got, (size_t)(capgot = capgot ? 2 * capgot : 1024) * sizeof *g);
        if (!g) return -1;
        got = g;
    }
    *seconds = cost(arg, a, b);
    got[ngot++] = (pair){ a, b, *seconds };
    return 0;
}
static double clock_s(clockid_t id) { struct timespec ts; clock_gettime(id, &ts); return ts.tv_sec + 1e-9 * ts.tv_nsec; }
static double now(void) { return clock_s(CLOCK_MONOTONIC); }
static double cpu(void) { return clock_s(CLOCK_PROCESS_CPUTIME_ID); }

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000, nsub = argc > 2 ? atoi(argv[2]) : 100;
    net p = { n, nsub, malloc(n * sizeof(int)), malloc(nsub * sizeof(double)), 12345 };
    int *order = malloc(n * sizeof *order);
    long measured = 0;
    ecoc_sparse_ops ops = { measure, NULL, &p };

    rng = 42;
    for (int i = 0; i < n; i++) order[i] = i;
    for (int i = n - 1; i > 0; i--) { int j = (int)(uniform() * (i + 1)), t = order[i]; order[i] = order[j]; order[j] = t; }
    for (int s = 0, k = 0; s < nsub; s++) {
        p.base[s] = 20e-6 * pow(25.0, uniform());
        for (int i = 0; i < n / nsub; i++) p.subnet[order[k++]] = s;
    }
    double t0 = now(), c0 = cpu();
    int rc = ecoc_sparse(n, ECO_DEFAULT_THRESHOLD, &ops, &measured);
    double t1 = now(), c1 = cpu();
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru); /* the peak so far: the planner, and the pairs kept here */
    /* the subnets of the measured pairs against the plant */
    eco_map *m = eco_map_new();
    char a[16], b[16];
    for (int h = 0; h < n; h++) { snprintf(a, sizeof a, "h%07d", h); eco_map_add_host(m, a); }
    for (long i = 0; i < ngot; i++) {
        snprintf(a, sizeof a, "h%07d", got[i].a); snprintf(b, sizeof b, "h%07d", got[i].b);
        eco_map_add_cost(m, a, b, got[i].cost);
    }
    eco_map_partition(m, ECO_DEFAULT_THRESHOLD);
    int ok = eco_map_nsubnets(m) == nsub;
    for (int x = 0; x < n && ok; x++)
        for (int y = x + 1; y < n && ok; y++)
            if ((eco_map_subnet_of(m, x) == eco_map_subnet_of(m, y)) != (p.subnet[x] == p.subnet[y]))
                ok = 0;
    printf("%d hosts, %d subnets: rc %d, %ld pairs measured of %ld (%.2f%%, %.1f per host), planner %.1f s (%.1f s CPU, peak %.0f MB), found %d subnets: %s\n",
           n, nsub, rc, measured, (long)n * (n - 1) / 2, 100.0 * measured / ((double)n * (n - 1) / 2),
           (double)measured / n, t1 - t0, c1 - c0, ru.ru_maxrss / 1024.0, eco_map_nsubnets(m),
           ok ? "the plant" : "NOT the plant");
    return 0;
}
