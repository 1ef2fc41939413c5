/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_tree.c -- the per-root tree builder (lib/tree.c).
 *
 * Maps are built here directly from struct eco_map's fields, so these tests
 * do not depend on the map reader or the partitioner.  For every root of
 * many generated member lists the tree is checked twice: structurally
 * (reachability, CSR, preorder blocks, one entry per subnet and per host,
 * edge kinds, depth) and against a slow, independent rendering of the rule
 * documented in eco-subnets(5) (exact parents and sending order).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <CUnit/CUnit.h>

#include "cunit_common.h"
#include "eco.h"
#include "eco_map_impl.h"
#include "eco_compat_iface.h"

/* ------------------------------------------------------------------ */
/* Fixed-seed PRNG and hand-made maps                                  */
/* ------------------------------------------------------------------ */

static uint64_t rng_state;

static uint32_t rnd32(void)
{
    /* xorshift64*: small, fast, the same on every platform */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * 2685821657736338717ULL) >> 32);
}

/* A uniform integer in 0..n-1 (n >= 1). */
static int rnd(int n)
{
    return (int)(rnd32() % (uint32_t)n);
}

/* A map of nh hosts "h000".. with the given subnets (-1: unpartitioned)
 * and degrees; every pair unmeasured, 0 on the diagonal. */
static eco_map *mk_map(int nh, const int *subnet, int nsub, const int *deg)
{
    eco_map *m = calloc(1, sizeof *m);
    CU_ASSERT_FATAL(m != NULL);
    m->nhosts = m->cap = nh;
    m->host = calloc((size_t)nh + 1, sizeof *m->host);
    m->adj = calloc((size_t)nh + 1, sizeof *m->adj);
    m->subnet = malloc(((size_t)nh + 1) * sizeof *m->subnet);
    m->degree = malloc(((size_t)nsub + 1) * sizeof *m->degree);
    CU_ASSERT_FATAL(m->host && m->adj && m->subnet && m->degree);
    for (int a = 0; a < nh; a++) {
        m->host[a] = malloc(8);
        CU_ASSERT_FATAL(m->host[a] != NULL);
        snprintf(m->host[a], 8, "h%03d", a % 1000);
        m->subnet[a] = subnet[a];
    }
    m->nsubnets = nsub;
    for (int s = 0; s < nsub; s++)
        m->degree[s] = deg[s];
    m->threshold = ECO_DEFAULT_THRESHOLD;
    return m;
}

static void set_cost(eco_map *m, int a, int b, double c)
{
    if (ecoi_map_set_cost(m, a, b, c) != ECO_OK) /* not an assert per pair */
        CU_FAIL_FATAL("ecoi_map_set_cost");
}

static void free_map(eco_map *m)
{
    eco_map_free(m); /* made of the same parts */
}

/* ------------------------------------------------------------------ */
/* Generated configurations                                            */
/* ------------------------------------------------------------------ */

typedef struct config {
    eco_map *map;     /* NULL: every host its own subnet */
    int n;
    int *mh;          /* [n] member -> host */
    int equal;        /* every subnet-to-subnet cost is the same */
    char what[160];   /* for failure messages */
} config;

/* Costs: cheap inside a subnet, a per-pair base between subnets with some
 * jitter per host pair; a fraction `miss` of pairs left unmeasured. */
static void gen_costs(eco_map *m, int nsub, int equal, int miss_pct)
{
    double *base = malloc(((size_t)nsub + 1) * (nsub + 1) * sizeof *base);
    CU_ASSERT_FATAL(base != NULL);
    for (int s = 0; s <= nsub; s++)
        for (int t = s; t <= nsub; t++)
            base[s * (nsub + 1) + t] = base[t * (nsub + 1) + s] =
                equal ? 1e-3 : 1e-3 * (1 + rnd(20));
    for (int a = 0; a < m->nhosts; a++)
        for (int b = a + 1; b < m->nhosts; b++) {
            int sa = m->subnet[a] < 0 ? nsub : m->subnet[a];
            int sb = m->subnet[b] < 0 ? nsub : m->subnet[b];
            double c;
            if (rnd(100) < miss_pct)
                continue;
            if (sa == sb && m->subnet[a] >= 0)
                c = 1e-5 * (1 + rnd(10));
            else
                c = base[sa * (nsub + 1) + sb] * (equal ? 1.0 : 1.0 + rnd(5) / 10.0);
            set_cost(m, a, b, c);
        }
    free(base);
}

/* A map of 1..20 subnets of uneven sizes, maybe unpartitioned hosts. */
static eco_map *gen_map(int *nh_out, int *equal)
{
    int nsub = 1 + rnd(20), nh = 0, extra = rnd(3) == 0 ? rnd(4) : 0;
    int size[20], deg[20], *sub;
    eco_map *m;
    for (int s = 0; s < nsub; s++) {
        size[s] = rnd(3) == 0 ? 1 + rnd(8) : 1 + rnd(3);
        deg[s] = 1 + rnd(4);
        nh += size[s];
    }
    sub = malloc(((size_t)nh + extra) * sizeof *sub);
    CU_ASSERT_FATAL(sub != NULL);
    /* hosts interleaved, then subnets renumbered by their lowest host */
    for (int s = 0, a = 0; s < nsub; s++)
        for (int i = 0; i < size[s]; i++)
            sub[a++] = s;
    for (int a = 0; a < nh; a++) {
        int b = rnd(nh), x = sub[a];
        sub[a] = sub[b];
        sub[b] = x;
    }
    for (int a = 0; a < extra; a++)
        sub[nh + a] = -1;
    int ren[20], rdeg[20], next = 0;
    for (int s = 0; s < nsub; s++)
        ren[s] = -1;
    for (int a = 0; a < nh; a++)
        if (ren[sub[a]] < 0) {
            rdeg[next] = deg[sub[a]];
            ren[sub[a]] = next++;
        }
    for (int a = 0; a < nh; a++)
        sub[a] = ren[sub[a]];
    m = mk_map(nh + extra, sub, nsub, rdeg);
    free(sub);
    *equal = rnd(4) == 0;
    int miss = (int[]){ 0, 0, 10, 50, 100 }[rnd(5)];
    gen_costs(m, nsub, *equal, miss);
    /* equal: every pair between subnets measured at 1 ms or unmeasured,
     * and the fill (dearest measured) is then 1 ms too */
    if (miss == 100)
        *equal = 1;
    *nh_out = nh + extra;
    return m;
}

/* Configuration number i: a map (or none) and a member list. */
static void gen_config(config *c, int i)
{
    int nh = 1 + rnd(40), used, unmapped = rnd(3) == 0 ? rnd(20) : 0;
    memset(c, 0, sizeof *c);
    c->equal = 1;
    if (i % 5 != 4)
        c->map = gen_map(&nh, &c->equal);
    c->n = rnd(4) == 0 ? 1 + rnd(300) : 1 + rnd(60);
    c->mh = malloc((size_t)c->n * sizeof *c->mh);
    CU_ASSERT_FATAL(c->mh != NULL);
    used = 1 + rnd(nh);        /* hosts with members: a random subset */
    int off = rnd(nh - used + 1);
    for (int m = 0; m < c->n; m++)
        c->mh[m] = rnd(100) < unmapped ? -1 : off + rnd(used);
    snprintf(c->what, sizeof c->what, "config %d: n=%d, %s, %d hosts, %d%% unmapped",
             i, c->n, c->map ? "map" : "no map", nh, unmapped);
}

static void free_config(config *c)
{
    free_map(c->map);
    free(c->mh);
}

/* ------------------------------------------------------------------ */
/* A slow, independent rendering of the rule                           */
/* ------------------------------------------------------------------ */

typedef struct ref {
    int n, S;
    long long *key;   /* [n] member -> subnet key */
    int *msub;        /* [n] member -> subnet index */
    long long *hid;   /* [n] member -> host id (-1 members: unique) */
    int *hlow;        /* [n] member -> lowest rank on its host (names the host) */
    int *slow;        /* [n] at a host's lowest member: its own link is slow */
    int *deg;         /* [S] */
    double *cost;     /* [S*S] */
    /* per root */
    int *spar;        /* [S] parent subnet */
    int *pick;        /* [S] step at which the subnet was informed */
    int *tpos;        /* [n] position of m among its host's members */
    int *hpos;        /* [n] position of m's host among its subnet's hosts */
    int *tat;         /* [n*n] (host, position) -> member */
    int *hat;         /* [S*n] (subnet, position) -> leader of that host */
    int *ntask;       /* [n] members on host (by hlow) */
    int *nhost;       /* [S] hosts of subnet */
    int *eparent, *ekind;
    int dsub;         /* depth of the subnet tree */
    int has_map;      /* the configuration has a map */
    double th;        /* its threshold */
} ref;

static long long ref_key(const eco_map *map, int h, int low)
{
    if (h < 0)
        return (2LL << 32) + low;
    if (map && map->subnet[h] >= 0)
        return map->subnet[h];
    return (1LL << 32) + h;
}

static double ref_fill(const eco_map *map)
{
    double x = -1.0;
    if (map)
        for (int a = 0; a < map->nhosts; a++)
            for (int b = 0; b < map->nhosts; b++)
                if (a != b && ecoi_map_cost_ij(map, a, b) > x)
                    x = ecoi_map_cost_ij(map, a, b);
    return x < 0.0 ? 1.0 : x;
}

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

static void *xmalloc(size_t z)
{
    void *p = malloc(z ? z : 1);
    CU_ASSERT_FATAL(p != NULL);
    return p;
}

/* Subnet index = rank of the member's key among the distinct keys. */
static void ref_subnets(ref *r)
{
    int n = r->n, nk = 0;
    long long *k = xmalloc((size_t)n * sizeof *k);
    memcpy(k, r->key, (size_t)n * sizeof *k);
    qsort(k, (size_t)n, sizeof *k, cmp_ll);
    for (int i = 0; i < n; i++)
        if (i == 0 || k[i] != k[i - 1])
            k[nk++] = k[i];
    r->S = nk;
    for (int m = 0; m < n; m++) {
        long long *at = bsearch(&r->key[m], k, (size_t)nk, sizeof *k, cmp_ll);
        r->msub[m] = (int)(at - k);
    }
    free(k);
}

static void ref_costs(ref *r, const config *c)
{
    int S = r->S;
    double fill = ref_fill(c->map);
    for (int i = 0; i < S * S; i++)
        r->cost[i] = -1.0;
    for (int a = 0; a < r->n; a++)
        for (int b = 0; b < r->n; b++) {
            int sa = r->msub[a], sb = r->msub[b];
            double x;
            if (sa == sb || !c->map || c->mh[a] < 0 || c->mh[b] < 0)
                continue;
            x = ecoi_map_cost_ij(c->map, c->mh[a], c->mh[b]);
            if (x >= 0.0 && (r->cost[sa * S + sb] < 0.0 || x < r->cost[sa * S + sb]))
                r->cost[sa * S + sb] = x;
        }
    for (int i = 0; i < S * S; i++)
        if (r->cost[i] < 0.0)
            r->cost[i] = fill;
}

/* Fastest node first: in a map subnet with three or more hosts with
 * members, a host whose cheapest cost to another of them is more than
 * (1 + threshold) times the subnet's cheapest is slow. */
static void ref_slow(ref *r, const config *c)
{
    int n = r->n;
    double *own = xmalloc((size_t)n * sizeof *own);

    r->slow = xmalloc((size_t)n * sizeof *r->slow);
    for (int m = 0; m < n; m++)
        r->slow[m] = 0;
    for (int s = 0; s < r->S; s++) {
        int count = 0;
        double cheapest = INFINITY;
        for (int m = 0; m < n; m++) {
            if (r->msub[m] != s || r->hlow[m] != m || r->key[m] >= (1LL << 32))
                continue;
            count++;
            own[m] = INFINITY;
            for (int j = 0; j < n; j++) {
                double x;
                if (r->msub[j] != s || r->hlow[j] != j || j == m)
                    continue;
                x = ecoi_map_cost_ij(c->map, c->mh[m], c->mh[j]);
                if (x > 0.0 && x < own[m])
                    own[m] = x;
            }
            if (own[m] < cheapest)
                cheapest = own[m];
        }
        for (int m = 0; count >= 3 && m < n; m++)
            if (r->msub[m] == s && r->hlow[m] == m && r->key[m] < (1LL << 32))
                r->slow[m] = isfinite(own[m]) &&
                             own[m] > (1.0 + c->map->threshold) * cheapest;
    }
    free(own);
}

/* Host a (its lowest member) comes before host b in its subnet: fast
 * hosts first, then by rank. */
static int ref_before(const ref *r, int a, int b)
{
    return r->slow[a] != r->slow[b] ? r->slow[a] < r->slow[b] : a < b;
}

static void ref_init(ref *r, const config *c)
{
    int n = c->n;
    size_t z = (size_t)n;
    memset(r, 0, sizeof *r);
    r->n = n;
    r->key = xmalloc(z * sizeof *r->key);
    r->hid = xmalloc(z * sizeof *r->hid);
    r->hlow = xmalloc(z * sizeof *r->hlow);
    r->msub = xmalloc(z * sizeof *r->msub);
    r->eparent = xmalloc(z * sizeof *r->eparent);
    r->ekind = xmalloc(z * sizeof *r->ekind);
    r->tpos = xmalloc(z * sizeof *r->tpos);
    r->hpos = xmalloc(z * sizeof *r->hpos);
    r->ntask = xmalloc(z * sizeof *r->ntask);
    r->tat = xmalloc(z * z * sizeof *r->tat);
    for (int m = 0; m < n; m++) {
        r->hid[m] = c->mh[m] >= 0 ? c->mh[m] : (1LL << 40) + m;
        r->hlow[m] = m;
        for (int j = m - 1; j >= 0; j--)
            if (r->hid[j] == r->hid[m])
                r->hlow[m] = j;
        r->key[m] = ref_key(c->map, c->mh[m], r->hlow[m]);
    }
    ref_subnets(r);
    r->has_map = c->map != NULL;
    r->th = c->map ? c->map->threshold : 0.2;
    r->deg = xmalloc((size_t)r->S * sizeof *r->deg);
    r->cost = xmalloc((size_t)r->S * r->S * sizeof *r->cost);
    r->spar = xmalloc((size_t)r->S * sizeof *r->spar);
    r->pick = xmalloc((size_t)r->S * sizeof *r->pick);
    r->nhost = xmalloc((size_t)r->S * sizeof *r->nhost);
    r->hat = xmalloc((size_t)r->S * z * sizeof *r->hat);
    for (int m = 0; m < n; m++) {
        long long k = r->key[m];
        r->deg[r->msub[m]] = (c->map && k < (1LL << 32)) ? c->map->degree[k]
                                                          : ECO_DEFAULT_DEGREE;
    }
    ref_costs(r, c);
    ref_slow(r, c);
}

static void ref_free(ref *r)
{
    void *p[] = { r->key, r->hid, r->hlow, r->slow, r->msub, r->eparent, r->ekind, r->tpos,
                  r->hpos, r->ntask, r->tat, r->deg, r->cost, r->spar, r->pick,
                  r->nhost, r->hat };
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
        free(p[i]);
}

/* Sites among the subnets with mapped hosts (the first sm): s and t
 * share one when their cost is within the threshold of the cheapest
 * either has, and transitively (a closure by repeated passes). */
static int ref_sites(const ref *r, int sm, double th, int *site)
{
    double *near = xmalloc(((size_t)sm + 1) * sizeof *near);
    int changed = 1, ns = 0;
    for (int s = 0; s < sm; s++) {
        site[s] = s;
        near[s] = INFINITY;
        for (int t = 0; t < sm; t++)
            if (t != s && r->cost[s * r->S + t] < near[s])
                near[s] = r->cost[s * r->S + t];
    }
    while (changed) {
        changed = 0;
        for (int s = 0; s < sm; s++)
            for (int t = 0; t < sm; t++)
                if (s != t && site[t] != site[s] &&
                    r->cost[s * r->S + t] <= (1.0 + th) * fmin(near[s], near[t])) {
                    int lo = site[s] < site[t] ? site[s] : site[t];
                    int hi = site[s] < site[t] ? site[t] : site[s];
                    for (int u = 0; u < sm; u++)
                        if (site[u] == hi)
                            site[u] = lo;
                    changed = 1;
                }
    }
    for (int s = 0; s < sm; s++)
        ns += site[s] == s;
    free(near);
    return ns;
}

/* The greedy schedule, by brute force over all pairs at every step.  A
 * message between two sites leaves through the sender's site's link,
 * one at a time: it starts when both the sender and that link are free. */
static void ref_schedule(ref *r, int rs)
{
    int S = r->S, sm = 0;
    double *ready = calloc((size_t)S + 1, sizeof *ready);
    double *up = calloc((size_t)S + 1, sizeof *up);
    int *depth = calloc((size_t)S + 1, sizeof *depth);
    int *site = calloc((size_t)S + 1, sizeof *site);
    CU_ASSERT_FATAL(ready && depth && up && site);
    if (r->has_map)
        for (int m = 0; m < r->n; m++)
            if (r->key[m] < (2LL << 32) && r->msub[m] + 1 > sm)
                sm = r->msub[m] + 1;
    ref_sites(r, sm, r->th, site);
    for (int s = 0; s < S; s++)
        r->spar[s] = r->pick[s] = -1;
    r->pick[rs] = 0;
    r->dsub = 0;
    for (int step = 1; step < S; step++) {
        int bs = -1, bt = -1;
        double bat = 0.0;
        for (int t = 0; t < S; t++)
            for (int s = 0; s < S; s++) {
                double at;
                if (r->pick[s] < 0 || r->pick[t] >= 0)
                    continue;
                at = ready[s];
                if (s < sm && t < sm && site[s] != site[t] && up[site[s]] > at)
                    at = up[site[s]];
                at += r->cost[s * S + t];
                if (bs < 0 || at < bat) { /* t, then s, ascending: ties keep the first */
                    bs = s;
                    bt = t;
                    bat = at;
                }
            }
        r->spar[bt] = bs;
        r->pick[bt] = step;
        if (bs < sm && bt < sm && site[bs] != site[bt])
            up[site[bs]] = bat;
        ready[bs] = ready[bt] = bat;
        depth[bt] = depth[bs] + 1;
        if (depth[bt] > r->dsub)
            r->dsub = depth[bt];
    }
    free(ready);
    free(up);
    free(site);
    free(depth);
}

/* Positions for this root.  On a host: the leader (the root, else the
 * lowest rank) first, then rank order.  In a subnet: the representative's
 * host (the root's, else the lowest rank's) first, then by lowest rank. */
static void ref_positions(ref *r, int root)
{
    int n = r->n;
    for (int m = 0; m < n; m++) {
        int lead = r->hlow[m] == r->hlow[root] ? root : r->hlow[m];
        int fixed = r->msub[root] == r->msub[m], rep = fixed ? r->hlow[root] : -1;
        r->tpos[m] = 0;
        if (m != lead)
            for (int j = 0; j <= m; j++)
                r->tpos[m] += r->hlow[j] == r->hlow[m] && j != lead;
        r->tat[(size_t)r->hlow[m] * n + r->tpos[m]] = m;
        r->hpos[m] = 0;
        for (int j = 0; !fixed && j < n; j++)   /* the first fast host enters */
            if (r->msub[j] == r->msub[m] && r->hlow[j] == j && (rep < 0 || ref_before(r, j, rep)))
                rep = j;
        for (int j = 0; j < n; j++)
            if (r->msub[j] == r->msub[m] && r->hlow[j] == j && j != rep &&
                ref_before(r, j, r->hlow[m]))
                r->hpos[m]++;
        if (r->hlow[m] != rep)
            r->hpos[m]++;
        else
            r->hpos[m] = 0;
    }
    for (int s = 0; s < r->S; s++)
        r->nhost[s] = 0;
    for (int m = 0; m < n; m++)
        r->ntask[m] = 0;
    for (int m = 0; m < n; m++) {
        r->ntask[r->hlow[m]]++;
        if (r->tpos[m] == 0) {
            r->hat[(size_t)r->msub[m] * n + r->hpos[m]] = m;
            r->nhost[r->msub[m]]++;
        }
    }
}

/* Expected parent and edge kind of every member for this root. */
static void ref_parents(ref *r, int root)
{
    int n = r->n;
    ref_schedule(r, r->msub[root]);
    ref_positions(r, root);
    for (int m = 0; m < n; m++) {
        int s = r->msub[m], k = r->deg[s], q = r->tpos[m], p = r->hpos[m];
        if (q > 0) {
            r->eparent[m] = r->tat[(size_t)r->hlow[m] * n + (q - 1) / k];
            r->ekind[m] = ECO_EDGE_TASKS;
        } else if (p > 0) {
            r->eparent[m] = r->hat[(size_t)s * n + (p - 1) / k];
            r->ekind[m] = ECO_EDGE_HOSTS;
        } else if (s == r->msub[root]) {
            r->eparent[m] = -1;
            r->ekind[m] = ECO_EDGE_ROOT;
        } else {
            r->eparent[m] = r->hat[(size_t)r->spar[s] * n + 0];
            r->ekind[m] = ECO_EDGE_SUBNETS;
        }
    }
}

/* Sending rank of child c: subnets by schedule step, hosts, then tasks. */
static long long ref_child_key(const ref *r, int c)
{
    int kind = r->ekind[c];
    long long sub = kind == ECO_EDGE_SUBNETS ? r->pick[r->msub[c]]
                  : kind == ECO_EDGE_HOSTS ? r->hpos[c] : r->tpos[c];
    return (long long)kind * (1LL << 32) + sub;
}

/* ------------------------------------------------------------------ */
/* Checks                                                              */
/* ------------------------------------------------------------------ */

/* The depth of a k-ary heap of h nodes: the depth of node h-1. */
static int heap_depth(int h, int k)
{
    int d = 0;
    for (long long i = h - 1; i > 0; i = (i - 1) / k)
        d++;
    return d;
}

static int failures_reported;

#define CHECK(cond)                                                        \
    do {                                                                   \
        if (!(cond)) {                                                     \
            if (failures_reported++ < 20)                                  \
                fprintf(stderr, "\n  %s, root %d: %s (line %d)\n", what,   \
                        root, #cond, __LINE__);                            \
            return 0;                                                      \
        }                                                                  \
    } while (0)

/* CSR, reachability, preorder blocks, subtree sizes, depth. */
static int check_shape(const eco_tree *t, int n, int root, const char *what)
{
    int edges = 0, maxd = 0;
    int *seen = calloc((size_t)n, sizeof *seen), *dep = calloc((size_t)n, sizeof *dep);
    CU_ASSERT_FATAL(seen && dep);
    CHECK(eco_tree_size(t) == n && eco_tree_root(t) == root && t->n == n);
    CHECK(t->parent[root] == -1 && eco_tree_parent(t, root) == -1);
    CHECK(t->kind[root] == ECO_EDGE_ROOT && t->order[0] == root);
    CHECK(t->child_off[0] == 0 && t->child_off[n] == n - 1);
    for (int i = 0; i < n; i++) {
        int m = t->order[i];
        const int *ch = eco_tree_children(t, m);
        int nc = eco_tree_nchildren(t, m), next = i + 1;
        CHECK(m >= 0 && m < n && !seen[m] && t->pos[m] == i);
        seen[m] = 1;
        CHECK(m == root || seen[t->parent[m]]);  /* parents come first */
        CHECK(ch == t->child + t->child_off[m] && nc >= 0);
        CHECK((m == root) == (t->parent[m] < 0) && (m == root) == (t->kind[m] == 0));
        int sub = 1;
        for (int j = 0; j < nc; j++) {
            int c = ch[j];
            CHECK(c >= 0 && c < n && t->parent[c] == m && eco_tree_parent(t, c) == m);
            CHECK(t->pos[c] == next);            /* contiguous blocks */
            next += t->subtree[c];
            sub += t->subtree[c];
            edges++;
        }
        CHECK(t->subtree[m] == sub);
        dep[m] = m == root ? 0 : dep[t->parent[m]] + 1;
        if (dep[m] > maxd)
            maxd = dep[m];
    }
    CHECK(edges == n - 1 && t->subtree[root] == n);
    CHECK(t->depth == maxd && eco_tree_depth(t) == maxd);
    free(seen);
    free(dep);
    return 1;
}

/* One entry per subnet and per host, kinds, degrees, sending order. */
static int check_levels(const eco_tree *t, const ref *r, int root, const char *what)
{
    int n = r->n;
    int *sub_in = calloc((size_t)r->S, sizeof *sub_in), *host_in = calloc((size_t)n, sizeof *host_in);
    CU_ASSERT_FATAL(sub_in && host_in);
    for (int m = 0; m < n; m++) {
        int p = t->parent[m];
        if (p < 0)
            continue;
        int kind = r->msub[p] != r->msub[m] ? ECO_EDGE_SUBNETS
                 : r->hid[p] != r->hid[m] ? ECO_EDGE_HOSTS : ECO_EDGE_TASKS;
        CHECK(t->kind[m] == kind);
        if (kind == ECO_EDGE_SUBNETS)
            sub_in[r->msub[m]]++;
        if (kind != ECO_EDGE_TASKS)
            host_in[r->hlow[m]]++;
    }
    for (int m = 0; m < n; m++) {
        int s = r->msub[m], nk[4] = { 0, 0, 0, 0 }, last = 0;
        CHECK(sub_in[s] == (s == r->msub[root] ? 0 : 1));
        if (r->hlow[m] == m)
            CHECK(host_in[m] == (r->hid[m] == r->hid[root] ? 0 : 1));
        for (int j = 0; j < eco_tree_nchildren(t, m); j++) {
            int kind = t->kind[eco_tree_children(t, m)[j]];
            CHECK(kind >= last);                 /* subnets, hosts, tasks */
            last = kind;
            nk[kind]++;
        }
        CHECK(nk[ECO_EDGE_HOSTS] <= r->deg[s] && nk[ECO_EDGE_TASKS] <= r->deg[s]);
    }
    free(sub_in);
    free(host_in);
    return 1;
}

/* Exact parents and sending order against the reference; depth bound. */
static int check_reference(const eco_tree *t, ref *r, int root, int equal,
                           const char *what)
{
    int maxh = 0, maxt = 0;
    ref_parents(r, root);
    for (int m = 0; m < r->n; m++) {
        const int *ch = eco_tree_children(t, m);
        int k = r->deg[r->msub[m]];
        CHECK(t->parent[m] == r->eparent[m] && t->kind[m] == r->ekind[m]);
        for (int j = 1; j < eco_tree_nchildren(t, m); j++)
            CHECK(ref_child_key(r, ch[j - 1]) < ref_child_key(r, ch[j]));
        if (heap_depth(r->ntask[r->hlow[m]], k) > maxt)
            maxt = heap_depth(r->ntask[r->hlow[m]], k);
        if (heap_depth(r->nhost[r->msub[m]], k) > maxh)
            maxh = heap_depth(r->nhost[r->msub[m]], k);
    }
    /* the documented bound */
    CHECK(r->dsub <= r->S - 1);
    CHECK(t->depth <= r->dsub + maxh + maxt);
    if (equal) {
        int lg = 0;
        while ((1 << lg) < r->S)
            lg++;
        CHECK(r->dsub <= lg);                  /* ceil(log2 S) rounds */
        CHECK((r->S & (r->S - 1)) || r->dsub == lg);  /* binomial at 2^i */
    }
    return 1;
}

static int same_tree(const eco_tree *a, const eco_tree *b)
{
    size_t n = (size_t)a->n;
    return a->n == b->n && a->root == b->root && a->depth == b->depth &&
           !memcmp(a->parent, b->parent, n * sizeof(int)) &&
           !memcmp(a->child_off, b->child_off, (n + 1) * sizeof(int)) &&
           !memcmp(a->child, b->child, (n - 1) * sizeof(int)) &&
           !memcmp(a->order, b->order, n * sizeof(int)) &&
           !memcmp(a->pos, b->pos, n * sizeof(int)) &&
           !memcmp(a->subtree, b->subtree, n * sizeof(int)) &&
           !memcmp(a->kind, b->kind, n * sizeof(int));
}

/* ------------------------------------------------------------------ */
/* Tests                                                               */
/* ------------------------------------------------------------------ */

#define NCONFIGS 160

static void test_generated_all_roots(void)
{
    long trees = 0;
    rng_state = 0x9e3779b97f4a7c15ULL;
    for (int i = 0; i < NCONFIGS; i++) {
        config c;
        ref r;
        gen_config(&c, i);
        ref_init(&r, &c);
        for (int root = 0; root < c.n; root++) {
            eco_tree *t = NULL, *t2 = NULL;
            CU_ASSERT_FATAL(eco_tree_build(c.map, c.n, c.mh, root, &t) == ECO_OK);
            CU_ASSERT_FATAL(eco_tree_build(c.map, c.n, c.mh, root, &t2) == ECO_OK);
            CU_ASSERT(check_shape(t, c.n, root, c.what));
            CU_ASSERT(check_levels(t, &r, root, c.what));
            CU_ASSERT(check_reference(t, &r, root, c.equal, c.what));
            CU_ASSERT(same_tree(t, t2));
            eco_tree_free(&t);
            eco_tree_free(&t2);
            CU_ASSERT(t == NULL && t2 == NULL);
            trees++;
        }
        ref_free(&r);
        free_config(&c);
    }
    CU_ASSERT(trees > 5000);
}

/*
 * The paper's Figure 1: hosts a..f (0..5), subnets {a,b} {c,d} {e,f}, one
 * task per host, k = 2.  Between subnets first all at 3 ms (binomial),
 * then in a line {a,b} - {c,d} - {e,f} (2 ms per hop, 5 ms end to end).
 */
static eco_map *figure1(int line)
{
    static const int sub[6] = { 0, 0, 1, 1, 2, 2 }, deg[3] = { 2, 2, 2 };
    eco_map *m = mk_map(6, sub, 3, deg);
    for (int a = 0; a < 6; a++)
        for (int b = a + 1; b < 6; b++) {
            int sa = sub[a], sb = sub[b];
            double c = sa == sb ? 1e-4 : 3e-3;
            if (line && sa != sb)
                c = (sa == 0 && sb == 2) ? 5e-3 : 2e-3;
            set_cost(m, a, b, c);
        }
    return m;
}

static void expect_parents(const eco_map *m, int root, const int *want,
                           const int *want_root_children, int nrc)
{
    static const int one_each[6] = { 0, 1, 2, 3, 4, 5 };
    eco_tree *t = NULL;
    CU_ASSERT_FATAL(eco_tree_build(m, 6, one_each, root, &t) == ECO_OK);
    for (int i = 0; i < 6; i++)
        CU_ASSERT_EQUAL(eco_tree_parent(t, i), want[i]);
    CU_ASSERT_EQUAL(eco_tree_nchildren(t, root), nrc);
    for (int i = 0; i < nrc && i < eco_tree_nchildren(t, root); i++)
        CU_ASSERT_EQUAL(eco_tree_children(t, root)[i], want_root_children[i]);
    eco_tree_free(&t);
}

static void test_figure1(void)
{
    enum { a, b, c, d, e, f };
    eco_map *m = figure1(0);
    /* equal costs: from a, {c,d} then {e,f} (ties: lower subnet) */
    expect_parents(m, a, (const int[]){ -1, a, a, c, a, e }, (const int[]){ c, e, b }, 3);
    /* from d: {a,b} first; then a and d both free at 3 ms: lower sender a */
    expect_parents(m, d, (const int[]){ d, a, d, -1, a, e }, (const int[]){ a, c }, 2);
    free_map(m);
    m = figure1(1);
    /* a line: from a, {c,d} at 2 ms; c reaches {e,f} at 4 ms, a only at 7 */
    expect_parents(m, a, (const int[]){ -1, a, a, c, c, e }, (const int[]){ c, b }, 2);
    /* from the middle, d feeds both ends itself */
    expect_parents(m, d, (const int[]){ d, a, d, -1, d, e }, (const int[]){ a, e, c }, 3);
    free_map(m);
}

/* Two sites of two subnets of two hosts (multilevel.topo): from every
 * root exactly one edge crosses between the sites (the far site's other
 * subnet is fed from inside it, not across the shared link again). */
static void test_sites(void)
{
    static const int sub[8] = { 0, 0, 1, 1, 2, 2, 3, 3 }, deg[4] = { 2, 2, 2, 2 };
    static const int one_each[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
    eco_map *m = mk_map(8, sub, 4, deg);
    for (int a = 0; a < 8; a++)
        for (int b = a + 1; b < 8; b++)
            set_cost(m, a, b, sub[a] == sub[b] ? 1e-4 : sub[a] / 2 == sub[b] / 2 ? 2.8e-3 : 55e-3);
    for (int root = 0; root < 8; root++) {
        eco_tree *t = NULL;
        int across = 0;
        CU_ASSERT_FATAL(eco_tree_build(m, 8, one_each, root, &t) == ECO_OK);
        for (int i = 0; i < 8; i++) {
            int p = eco_tree_parent(t, i);
            across += p >= 0 && sub[p] / 2 != sub[i] / 2;
        }
        CU_ASSERT_EQUAL(across, 1);
        eco_tree_free(&t);
    }
    free_map(m);
}

/* Fastest node first: s0 and s3 have slow interfaces on the switch of f1
 * f2 (10 ms to everybody, f1-f2 0.1 ms); o4 o5 are another subnet. */
static void test_slow_hosts_last(void)
{
    enum { s0, f1, f2, s3, o4, o5 };
    static const int sub[6] = { 0, 0, 0, 0, 1, 1 }, deg[2] = { 2, 2 };
    eco_map *m = mk_map(6, sub, 2, deg);
    for (int a = 0; a < 6; a++)
        for (int b = a + 1; b < 6; b++)
            set_cost(m, a, b, a == s0 || a == s3 || b == s3 ? 1e-2
                              : sub[a] == sub[b] ? 1e-4 : 5e-3);
    /* from o4: the subnet is entered through f1, not s0 (rank 0); f1
     * sends to f2 and s0, f2 to s3: the slow hosts are leaves */
    expect_parents(m, o4, (const int[]){ f1, o4, f1, f2, -1, o4 }, (const int[]){ f1, o5 }, 2);
    /* from s0, the root: to the other subnet, then the fast hosts; s3
     * hangs below f1 */
    expect_parents(m, s0, (const int[]){ -1, s0, s0, f1, s0, o4 }, (const int[]){ o4, f1, f2 },
                   3);
    /* uniform costs: rank order, s0 enters */
    for (int a = 0; a < 4; a++)
        for (int b = a + 1; b < 4; b++)
            set_cost(m, a, b, 1e-4);
    expect_parents(m, o4, (const int[]){ o4, s0, s0, f1, -1, o4 }, (const int[]){ s0, o5 }, 2);
    free_map(m);
}

/* Tasks on one host: the root leads, the rest hang below in rank order. */
static void test_tasks_on_one_host(void)
{
    static const int sub[1] = { 0 };
    int mh[7] = { 0, 0, 0, 0, 0, 0, 0 }, deg = 3;
    eco_map *m = mk_map(1, sub, 1, &deg);
    eco_tree *t = NULL;
    /* root 4, k = 3: order 4 0 1 2 3 5 6; position i's parent is (i-1)/3 */
    CU_ASSERT_FATAL(eco_tree_build(m, 7, mh, 4, &t) == ECO_OK);
    int want[7] = { 4, 4, 4, 0, -1, 0, 0 };
    for (int i = 0; i < 7; i++) {
        CU_ASSERT_EQUAL(eco_tree_parent(t, i), want[i]);
        CU_ASSERT_EQUAL(t->kind[i], i == 4 ? ECO_EDGE_ROOT : ECO_EDGE_TASKS);
    }
    CU_ASSERT_EQUAL(eco_tree_depth(t), 2);
    eco_tree_free(&t);
    /* k = 1: a chain */
    m->degree[0] = 1;
    CU_ASSERT_FATAL(eco_tree_build(m, 7, mh, 0, &t) == ECO_OK);
    CU_ASSERT_EQUAL(eco_tree_depth(t), 6);
    for (int i = 1; i < 7; i++)
        CU_ASSERT_EQUAL(eco_tree_parent(t, i), i - 1);
    eco_tree_free(&t);
    free_map(m);
}

/* h hosts of one subnet, one task each: depth is exactly hd(h, k), which
 * is floor(log_k((k-1)(h-1)+1)) for k >= 2 and h - 1 for k = 1. */
static void test_heap_depth_formula(void)
{
    for (int k = 1; k <= 5; k++)
        for (int h = 1; h <= 200; h++) {
            int *sub = calloc((size_t)h, sizeof *sub), *mh = malloc((size_t)h * sizeof *mh);
            CU_ASSERT_FATAL(sub && mh);
            eco_map *m = mk_map(h, sub, 1, &k);
            eco_tree *t = NULL;
            for (int i = 0; i < h; i++)
                mh[i] = i;
            CU_ASSERT_FATAL(eco_tree_build(m, h, mh, h / 2, &t) == ECO_OK);
            int want = k == 1 ? h - 1 : 0;
            for (long long span = k, x = (long long)(k - 1) * (h - 1) + 1; k > 1 && span <= x; span *= k)
                want++;
            CU_ASSERT_EQUAL(eco_tree_depth(t), want);
            CU_ASSERT_EQUAL(heap_depth(h, k), want);
            eco_tree_free(&t);
            free_map(m);
            free(sub);
            free(mh);
        }
}

/* Without a map all subnet costs are equal: every subnet is informed in
 * ceil(log2 S) rounds, so the depth is at most that; with S = 2^i subnets
 * the tree is the binomial tree B_i: depth i, i children at the root. */
static void test_binomial_without_map(void)
{
    for (int s = 1; s <= 300; s++) {
        int *mh = malloc((size_t)s * sizeof *mh), lg = 0;
        eco_tree *t = NULL;
        CU_ASSERT_FATAL(mh != NULL);
        for (int i = 0; i < s; i++)
            mh[i] = (i % 2) ? -1 : i;   /* half unmapped, half distinct hosts */
        while ((1 << lg) < s)
            lg++;
        CU_ASSERT_FATAL(eco_tree_build(NULL, s, mh, s - 1, &t) == ECO_OK);
        CU_ASSERT(eco_tree_depth(t) <= lg);
        if ((s & (s - 1)) == 0) {
            CU_ASSERT_EQUAL(eco_tree_depth(t), lg);
            CU_ASSERT_EQUAL(eco_tree_nchildren(t, s - 1), lg);
        }
        eco_tree_free(&t);
        free(mh);
    }
}

/* A star of segments: a hub subnet close to every leaf segment, leaves
 * far from each other; from a leaf, the hub is reached first and then the
 * hub and the root share the fan-out by cost. */
static void test_star_fanout(void)
{
    enum { NS = 6 };
    int sub[NS], deg[NS], mh[NS];
    for (int s = 0; s < NS; s++) {
        sub[s] = s;
        deg[s] = 2;
        mh[s] = s;
    }
    eco_map *m = mk_map(NS, sub, NS, deg);
    for (int a = 0; a < NS; a++)
        for (int b = a + 1; b < NS; b++)
            set_cost(m, a, b, a == 0 ? 1.0 : 3.0);  /* host 0 is the hub */
    eco_tree *t = NULL;
    CU_ASSERT_FATAL(eco_tree_build(m, NS, mh, 5, &t) == ECO_OK);
    /* 5->0 done at 1; 0->1 at 2; 0->2 at 3 (5->2 would end at 4);
     * 0->3 and 5->3 both end at 4: the lower sender 0 wins; then
     * 5->4 ends at 4, 0->4 only at 5 */
    int want[NS] = { 5, 0, 0, 0, 5, -1 };
    for (int i = 0; i < NS; i++)
        CU_ASSERT_EQUAL(eco_tree_parent(t, i), want[i]);
    eco_tree_free(&t);
    free_map(m);
}

/* Big inputs run quickly and stay consistent. */
static void test_large(void)
{
    enum { N = 10000 };
    int *mh = malloc(N * sizeof *mh), *sub = malloc(1000 * sizeof *sub), deg[1] = { 2 };
    CU_ASSERT_FATAL(mh && sub);
    eco_tree *t = NULL;
    /* 10,000 hosts without a map: 10,000 subnets */
    for (int i = 0; i < N; i++)
        mh[i] = i;
    CU_ASSERT_FATAL(eco_tree_build(NULL, N, mh, 1234, &t) == ECO_OK);
    CU_ASSERT(check_shape(t, N, 1234, "10000 hosts, no map"));
    CU_ASSERT(eco_tree_depth(t) <= 14);      /* ceil(log2 10000) rounds */
    eco_tree_free(&t);
    /* 10,000 tasks on one host */
    for (int i = 0; i < N; i++)
        mh[i] = 0;
    CU_ASSERT_FATAL(eco_tree_build(NULL, N, mh, N - 1, &t) == ECO_OK);
    CU_ASSERT(check_shape(t, N, N - 1, "10000 tasks, one host"));
    CU_ASSERT_EQUAL(eco_tree_depth(t), 13);  /* binary heap of 10,000 */
    eco_tree_free(&t);
    /* 1,000 unpartitioned measured hosts, 10 tasks each */
    for (int a = 0; a < 1000; a++)
        sub[a] = -1;
    eco_map *m = mk_map(1000, sub, 0, deg);
    rng_state = 42;
    for (int a = 0; a < 1000; a++)
        for (int b = a + 1; b < 1000; b++)
            set_cost(m, a, b, 1e-3 * (1 + rnd(50)));
    for (int i = 0; i < N; i++)
        mh[i] = i % 1000;
    CU_ASSERT_FATAL(eco_tree_build(m, N, mh, 777, &t) == ECO_OK);
    CU_ASSERT(check_shape(t, N, 777, "1000 measured subnets"));
    eco_tree_free(&t);
    free_map(m);
    free(mh);
    free(sub);
}

static void test_bad_arguments(void)
{
    static const int sub[3] = { 0, 0, -1 }, deg[1] = { 2 };
    eco_map *m = mk_map(3, sub, 1, deg);
    int mh[3] = { 0, 1, 2 }, dummy;
    eco_tree *const junk = (eco_tree *)(void *)&dummy;
    eco_tree *t;
#define BAD(call)                                   \
    do {                                            \
        t = junk;                                   \
        CU_ASSERT_EQUAL(call, ECO_ERR_ARG);         \
        CU_ASSERT_PTR_NULL(t);                      \
    } while (0)
    BAD(eco_tree_build(m, 0, mh, 0, &t));
    BAD(eco_tree_build(m, -3, mh, 0, &t));
    BAD(eco_tree_build(m, 3, NULL, 0, &t));
    BAD(eco_tree_build(m, 3, mh, -1, &t));
    BAD(eco_tree_build(m, 3, mh, 3, &t));
    mh[1] = 3;   /* beyond the map */
    BAD(eco_tree_build(m, 3, mh, 0, &t));
    mh[1] = -2;
    BAD(eco_tree_build(m, 3, mh, 0, &t));
    BAD(eco_tree_build(NULL, 3, mh, 0, &t));
    mh[1] = 1;
#undef BAD
    CU_ASSERT_EQUAL(eco_tree_build(m, 3, mh, 0, NULL), ECO_ERR_ARG);
    /* accessors */
    CU_ASSERT_EQUAL(eco_tree_size(NULL), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_tree_root(NULL), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_tree_depth(NULL), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_tree_parent(NULL, 0), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_tree_nchildren(NULL, 0), ECO_ERR_ARG);
    CU_ASSERT_PTR_NULL(eco_tree_children(NULL, 0));
    CU_ASSERT_FATAL(eco_tree_build(m, 3, mh, 2, &t) == ECO_OK);
    CU_ASSERT_EQUAL(eco_tree_nchildren(t, 3), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_tree_nchildren(t, -1), ECO_ERR_ARG);
    CU_ASSERT_PTR_NULL(eco_tree_children(t, 3));
    CU_ASSERT_EQUAL(eco_tree_parent(t, 3), ECO_ERR_ARG);
    eco_tree_free(&t);
    CU_ASSERT_PTR_NULL(t);
    eco_tree_free(&t);       /* harmless twice */
    eco_tree_free(NULL);
    /* a single member: no edges */
    CU_ASSERT_FATAL(eco_tree_build(NULL, 1, (const int[]){ -1 }, 0, &t) == ECO_OK);
    CU_ASSERT_EQUAL(eco_tree_depth(t), 0);
    CU_ASSERT_EQUAL(eco_tree_nchildren(t, 0), 0);
    CU_ASSERT_EQUAL(eco_tree_parent(t, 0), -1);
    eco_tree_free(&t);
    free_map(m);
}

/* The compatibility layer's view of a tree (eco_compat_iface.h): every
 * member's subtree in preorder, the member first, each subtree
 * contiguous, with the sizes the parents give. */
static void test_subtree_walk(void)
{
    enum { N = 23 };
    int mh[N], size[N];
    eco_tree *t = NULL;
    ecoi_subtree_walk w;

    for (int i = 0; i < N; i++)
        mh[i] = i % 5;
    CU_ASSERT_FATAL(eco_tree_build(NULL, N, mh, 7, &t) == ECO_OK);
    /* subtree sizes from the parents alone */
    for (int v = 0; v < N; v++)
        size[v] = 0;
    for (int v = 0; v < N; v++)
        for (int a = v; a >= 0; a = eco_tree_parent(t, a))
            size[a]++;
    CU_ASSERT_EQUAL(size[7], N);
    for (int m = 0; m < N; m++) {
        int seq[N], sz[N], k = 0, v, s;
        CU_ASSERT_EQUAL_FATAL(ecoi_subtree_begin(&w, t, m), size[m]);
        while (ecoi_subtree_next(&w, &v, &s)) {
            CU_ASSERT_FATAL(k < size[m]);
            seq[k] = v;
            sz[k++] = s;
        }
        CU_ASSERT_EQUAL(k, size[m]);
        CU_ASSERT_EQUAL(ecoi_subtree_next(&w, &v, &s), 0);
        CU_ASSERT_EQUAL(seq[0], m);
        for (int i = 0; i < k; i++) {
            CU_ASSERT_EQUAL(sz[i], size[seq[i]]);
            /* the next sz[i] - 1 members descend from seq[i] */
            for (int j = i + 1; j < i + sz[i] && j < k; j++) {
                int a = seq[j];
                while (a >= 0 && a != seq[i])
                    a = eco_tree_parent(t, a);
                CU_ASSERT_EQUAL(a, seq[i]);
            }
        }
    }
    CU_ASSERT_EQUAL(ecoi_subtree_begin(&w, t, N), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(ecoi_subtree_begin(&w, t, -1), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(ecoi_subtree_begin(&w, NULL, 0), ECO_ERR_ARG);
    eco_tree_free(&t);
}

static const eco_unit_test tree_tests[] = {
    { "bad arguments", test_bad_arguments },
    { "figure 1 of the paper", test_figure1 },
    { "slow hosts last (fastest node first)", test_slow_hosts_last },
    { "sites: one edge across the wide-area link", test_sites },
    { "tasks on one host", test_tasks_on_one_host },
    { "k-ary depth formula", test_heap_depth_formula },
    { "binomial subnet tree without a map", test_binomial_without_map },
    { "star of segments", test_star_fanout },
    { "generated configurations, every root", test_generated_all_roots },
    { "10,000 members", test_large },
    { "subtree walk (compatibility layer)", test_subtree_walk },
    { NULL, NULL }
};

const eco_suite eco_suite_tree = { "tree", NULL, NULL, tree_tests };
