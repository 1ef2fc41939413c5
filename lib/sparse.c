/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sparse.c -- the cheap mode of eco-characterize: measure O(p * S) pairs
 * of p hosts in S subnets instead of all p(p-1)/2, and find the subnets
 * that all pairs would.  Pure: the measurement is a callback, so the
 * selection logic is tested on planted matrices without PVM.
 *
 * ECO's partition (Figure 2 of the paper) merges two hosts through one
 * edge within (1+t) of the cheapest edge of each host and of each side's
 * subnet.  So it needs, for every host, one or two edges to its own
 * subnet (its cheapest ones) and enough edges elsewhere to know the rest
 * is dearer.  With f = 1 + t:
 *
 *   1. Hosts join one at a time, 0 .. p-1, into provisional subnets:
 *      ECO's rule on what is measured so far.  Each provisional subnet
 *      has representatives: its lowest and second-lowest host.  Measure
 *      the new host h against the first representative of every
 *      provisional subnet, then against the second representative of
 *      the cheapest one (a second edge into its own subnet, so one bad
 *      measurement does not isolate h) and of every subnet whose first
 *      representative costs within f^2 of the cheapest (the ambiguous).
 *      Then place h (fit): when its new edges plainly put it in one
 *      subnet, or in none, it is added there or alone and nothing else
 *      moves; otherwise (ambiguous, or an edge that may unsettle another
 *      host's subnet) everything measured is partitioned again with
 *      eco_map_partition.  Partitioning for every host cost hosts^2 x
 *      subnets x log (18 minutes at 10,000 hosts in 100 subnets).
 *
 *   2. Verify, until nothing new is measured (at most 8 rounds):
 *      partition everything measured; measure the first representatives
 *      of every two subnets against each other (every pair of subnets
 *      gets a measured cost for the trees between subnets), and the
 *      second representatives too (two chances, so that one bad
 *      measurement does not keep two halves of a subnet apart); a host
 *      alone in its subnet is measured against four hosts of every
 *      subnet, a host of a subnet of two against three (a small subnet
 *      may be a piece of a real one cut off by bad measurements); a host whose measured cost to another subnet T is within
 *      f^2 of its cheapest edge is measured against three hosts of T and
 *      of its own subnet (falls back to more pairs where the decision is
 *      close).
 *
 * The provisional subnets only choose pairs: the rounds of step 2
 * partition in full, and the caller partitions the measured pairs with
 * eco_map_partition.
 * Measurements: about p * (S + 1) plus S^2 / 2 plus the ambiguous ones.
 * Memory: O(p + pairs measured), no p x p matrix: the measured costs are
 * the planner's map (eco_map_impl.h: each host's pairs, sorted), which
 * answers "measured yet?" by a binary search in the shorter list.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eco_char.h"
#include "eco_map_impl.h" /* the measured pairs: the map's lists */

typedef struct plan {
    int n;
    double f;               /* 1 + threshold: ECO's rule */
    double f2;              /* (1 + threshold)^2: "close" */
    double threshold;
    const ecoc_sparse_ops *ops;
    long *measured;
    eco_map *map;           /* hosts "h0000000".. in index order, and
                             * every measured cost */
    int *sub;               /* [n] provisional subnet, -1: not yet */
    int nsub;
    int *first, *second;    /* [n] representatives per subnet, -1 none */
    int *size;              /* [n] hosts per subnet */
    int *head, *tail;       /* [n] per subnet: its hosts, ascending, */
    int *next;              /* [n] linked through next[] (-1 ends) */
    double *smin;           /* [n] per subnet: its cheapest inside edge
                             * (INFINITY: none), at most ECO's subnet min */
    double *min_edge;       /* [n] per host: its cheapest edge, INFINITY */
} plan;

/* The measured cost of a-b, -1 when not measured (0 when a == b). */
static double cost_of(const plan *p, int a, int b)
{
    return ecoi_map_cost_ij(p->map, a, b);
}

/* Measure a-b unless known; sets *fresh when it measured.  0 or the
 * callback's value. */
static int measure(plan *p, int a, int b, int *fresh)
{
    double s = 0.0;
    int rc;

    if (a == b || a < 0 || b < 0 || cost_of(p, a, b) > 0.0)
        return 0;
    if ((rc = p->ops->measure(p->ops->arg, a, b, &s)) != 0)
        return rc;
    if (!(s > 0.0))
        s = 1e-9; /* a clock that did not move: the cheapest possible */
    (*p->measured)++;
    if (fresh)
        *fresh = 1;
    if (s < p->min_edge[a])
        p->min_edge[a] = s;
    if (s < p->min_edge[b])
        p->min_edge[b] = s;
    return ecoi_map_set_cost(p->map, a, b, s) == ECO_OK ? 0 : ECO_ERR_NOMEM;
}

/* Partition the measured pairs of hosts 0..upto-1 into p->sub. */
static int partition(plan *p, int upto)
{
    int rc = eco_map_partition(p->map, p->threshold);

    if (rc != ECO_OK)
        return rc;
    /* Renumber the subnets of hosts < upto densely, by lowest host. */
    int *id = p->size; /* reused as scratch: map subnet -> our number */
    for (int i = 0; i < p->n; i++)
        id[i] = -1;
    p->nsub = 0;
    for (int h = 0; h < upto; h++) {
        int s = eco_map_subnet_of(p->map, h);
        if (id[s] < 0) {
            id[s] = p->nsub;
            p->first[p->nsub] = h;
            p->second[p->nsub] = -1;
            p->nsub++;
        } else if (p->second[id[s]] < 0)
            p->second[id[s]] = h;
        p->sub[h] = id[s];
    }
    memset(p->size, 0, (size_t)p->n * sizeof *p->size);
    for (int s = 0; s < p->nsub; s++) {
        p->head[s] = p->tail[s] = -1;
        p->smin[s] = INFINITY;
    }
    for (int h = upto - 1; h >= 0; h--) { /* lists ascending: pushed from the top */
        int s = p->sub[h];
        p->next[h] = p->head[s];
        p->head[s] = h;
        if (p->tail[s] < 0)
            p->tail[s] = h;
        p->size[s]++;
        for (int i = 0; i < p->map->adj[h].n; i++) {
            const ecoi_link *l = &p->map->adj[h].link[i];
            if (l->to < upto && p->sub[l->to] == s && l->cost > 0.0 && l->cost < p->smin[s])
                p->smin[s] = l->cost;
        }
    }
    return 0;
}

/*
 * May the edge h-y, y's cheapest now, change what ECO's rule does with
 * y's other edges?  They are checked against f times y's cheapest edge:
 * a lower cheapest edge can fail one of them that joined y to its
 * subnet.  Not when y is alone (no edge of y joined anything) or every
 * edge inside y's subnet stays within f of the new one.
 */
static int unsettles(const plan *p, int h, int y, double c)
{
    int s = p->sub[y];

    if (c > p->min_edge[y] || p->size[s] == 1)
        return 0;
    for (int i = 0; i < p->map->adj[y].n; i++) {
        const ecoi_link *l = &p->map->adj[y].link[i];
        if (l->to != h && l->cost > p->f * c && p->sub[l->to] == s)
            return 1;
    }
    return 0;
}

/*
 * Place host h, just measured against hosts 0..h-1, without partitioning
 * again (the provisional subnets of 0..h-1 stay): 1 when placed, 0 when
 * its edges leave it open.  Through ECO's rule h joins subnet B, the one
 * of its cheapest edge e (to x), when no edge to another subnet is within
 * f of e (none can take h, h joins no two), e is within f of x's cheapest
 * edge and of B's cheapest inside edge (at most the rule's subnet min);
 * h stays alone when no edge passes the test of both its hosts; and no
 * edge of h unsettles its other host.  Not a proof for every order of
 * the rule's merges, and it need not be: the provisional subnets only
 * choose pairs, step 2 partitions in full.  Checked against partitioning
 * again after every join of the planted tests (characterize_unit, and
 * tests/sparse_scale up to 2,000 hosts in 100 subnets): the same subnets
 * every time, so the same pairs are measured as before.
 */
static int fit(plan *p, int h)
{
    const ecoi_adj *a = &p->map->adj[h];
    double e = p->min_edge[h];
    int x = -1, b, open = 0;

    for (int i = 0; i < a->n; i++) {
        int y = a->link[i].to;
        double c = a->link[i].cost;
        if (c <= 0.0)
            continue;
        if (unsettles(p, h, y, c))
            return 0;
        if (c == e && x < 0)
            x = y;
        open |= c <= p->f * e && c <= p->f * p->min_edge[y]; /* the rule may merge */
    }
    if (!open) { /* alone: a new subnet, numbered after the others (lowest host) */
        b = p->nsub++;
        p->first[b] = h;
        p->second[b] = -1;
        p->size[b] = 0;
        p->head[b] = -1;
        p->smin[b] = INFINITY;
    } else {
        b = p->sub[x];
        if (e > p->f * p->min_edge[x] || (p->size[b] > 1 && e > p->f * p->smin[b]))
            return 0;
        for (int i = 0; i < a->n; i++)
            if (a->link[i].cost > 0.0 && p->sub[a->link[i].to] != b &&
                a->link[i].cost <= p->f * e)
                return 0;
        if (p->second[b] < 0)
            p->second[b] = h;
        if (e < p->smin[b])
            p->smin[b] = e;
    }
    p->sub[h] = b;
    p->size[b]++;
    p->next[h] = -1;
    if (p->head[b] < 0)
        p->head[b] = h;
    else
        p->next[p->tail[b]] = h;
    p->tail[b] = h;
    return 1;
}

/* Step 1 for host h: representatives, then the close second ones. */
static int join(plan *p, int h)
{
    int best = -1, rc;

    for (int s = 0; s < p->nsub; s++) {
        if ((rc = measure(p, h, p->first[s], NULL)) != 0)
            return rc;
        if (best < 0 || cost_of(p, h, p->first[s]) < cost_of(p, h, p->first[best]))
            best = s;
    }
    if (best < 0)
        return 0;
    for (int s = 0; s < p->nsub; s++)
        if (s == best || cost_of(p, h, p->first[s]) <= p->f2 * cost_of(p, h, p->first[best]))
            if ((rc = measure(p, h, p->second[s], NULL)) != 0)
                return rc;
    return 0;
}

/* The cheapest measured edge of h, and per subnet the cheapest to it. */
static double edges_of(const plan *p, int h, double *to)
{
    double e = -1.0;

    for (int s = 0; s < p->nsub; s++)
        to[s] = -1.0;
    for (int i = 0; i < p->map->adj[h].n; i++) {
        int x = p->map->adj[h].link[i].to;
        double c = p->map->adj[h].link[i].cost;
        if (c <= 0.0)
            continue;
        if (e < 0.0 || c < e)
            e = c;
        if (to[p->sub[x]] < 0.0 || c < to[p->sub[x]])
            to[p->sub[x]] = c;
    }
    return e;
}

/* Measure h against hosts of subnet s until it has `want` edges there. */
static int at_least(plan *p, int h, int s, int want, int *fresh)
{
    int have = 0, rc;

    for (int i = 0; i < p->map->adj[h].n; i++)
        have += p->sub[p->map->adj[h].link[i].to] == s && p->map->adj[h].link[i].cost > 0.0;
    for (int x = p->head[s]; x >= 0 && have < want; x = p->next[x])
        if (x != h && cost_of(p, h, x) <= 0.0) {
            if ((rc = measure(p, h, x, fresh)) != 0)
                return rc;
            have++;
        }
    return 0;
}

/* Step 2, one round: sets *fresh when anything new was measured. */
static int verify(plan *p, double *to, int *fresh)
{
    int rc;

    for (int s = 0; s < p->nsub; s++)
        for (int t = s + 1; t < p->nsub; t++)
            if ((rc = measure(p, p->first[s], p->first[t], fresh)) != 0 ||
                (rc = measure(p, p->second[s], p->second[t], fresh)) != 0)
                return rc;
    for (int h = 0; h < p->n; h++) {
        int own = p->sub[h];
        double e = edges_of(p, h, to);
        if (p->size[own] <= 2) /* alone or nearly: more chances to find its subnet */
            for (int s = 0; s < p->nsub; s++)
                if (s != own && (rc = at_least(p, h, s, 5 - p->size[own], fresh)) != 0)
                    return rc;
        for (int s = 0; s < p->nsub && e > 0.0; s++) {
            if (s == own || to[s] <= 0.0 || to[s] > p->f2 * e)
                continue;
            if ((rc = at_least(p, h, s, 3, fresh)) != 0 ||
                (rc = at_least(p, h, own, 3, fresh)) != 0)
                return rc;
        }
    }
    return 0;
}

static int plan_init(plan *p, int n, double threshold, const ecoc_sparse_ops *ops,
                     long *measured)
{
    memset(p, 0, sizeof *p);
    p->n = n;
    p->threshold = threshold;
    p->f = 1.0 + threshold;
    p->f2 = p->f * p->f;
    p->ops = ops;
    p->measured = measured;
    p->sub = malloc((size_t)n * sizeof *p->sub);
    p->first = malloc((size_t)n * sizeof *p->first);
    p->second = malloc((size_t)n * sizeof *p->second);
    p->size = malloc((size_t)n * sizeof *p->size);
    p->head = malloc((size_t)n * sizeof *p->head);
    p->tail = malloc((size_t)n * sizeof *p->tail);
    p->next = malloc((size_t)n * sizeof *p->next);
    p->smin = malloc((size_t)n * sizeof *p->smin);
    p->min_edge = malloc((size_t)n * sizeof *p->min_edge);
    p->map = eco_map_new();
    if (!p->sub || !p->first || !p->second || !p->size || !p->head || !p->tail ||
        !p->next || !p->smin || !p->min_edge || !p->map)
        return ECO_ERR_NOMEM;
    for (int h = 0; h < n; h++) {
        char name[16];
        snprintf(name, sizeof name, "h%07d", h);
        if (eco_map_add_host(p->map, name) != h)
            return ECO_ERR_NOMEM;
        p->sub[h] = -1;
        p->min_edge[h] = INFINITY;
    }
    return 0;
}

static void plan_free(plan *p)
{
    free(p->sub);
    free(p->first);
    free(p->second);
    free(p->size);
    free(p->head);
    free(p->tail);
    free(p->next);
    free(p->smin);
    free(p->min_edge);
    eco_map_free(p->map);
}

int ecoc_sparse(int n, double threshold, const ecoc_sparse_ops *ops, long *measured)
{
    plan p;
    double *to = malloc(((size_t)n + 1) * sizeof *to);
    int rc = to ? plan_init(&p, n, threshold, ops, measured) : ECO_ERR_NOMEM;

    for (int h = 0; h < n && rc == 0; h++) {
        if (ops->estimate)
            ops->estimate(ops->arg, (long)(n - h) * (p.nsub + 2) +
                          (long)(p.nsub + 1) * p.nsub / 2);
        if ((rc = join(&p, h)) == 0 && !fit(&p, h))
            rc = partition(&p, h + 1);
    }
    for (int round = 0, fresh = 1; rc == 0 && fresh && round < 8; round++) {
        fresh = 0;
        if ((rc = partition(&p, n)) != 0)
            break;
        if (ops->estimate)
            ops->estimate(ops->arg, (long)(p.nsub) * (p.nsub - 1) / 2);
        rc = verify(&p, to, &fresh);
    }
    if (to)
        plan_free(&p);
    free(to);
    return rc;
}
