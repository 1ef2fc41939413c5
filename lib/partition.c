/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * partition.c -- split the hosts of a map into subnets: Figure 2 of
 * Lowekamp & Beguelin (1996), with the factor 1.20 generalized to
 * (1 + threshold).
 *
 *   for every host:  min_edge = its cheapest measured edge
 *   for every edge (a, b), cheapest first:
 *       skip when a and b are already in one subnet
 *       skip when cost > f * min_edge(a)  or  cost > f * min_edge(b)
 *       skip when a's subnet has been merged and cost > f * its min edge
 *       skip when b's subnet has been merged and cost > f * its min edge
 *       merge; the subnet's min edge = min(cost, both subnet min edges)
 *
 * A host joins a subnet through one good edge, so a few wrong (too high)
 * measurements to other members cannot split a real subnet.
 *
 * Then, when the map has hops (routers between pairs), the subnets that
 * costs cannot place join the network they are on (place_by_hops).
 */
#include <math.h>
#include <stdlib.h>

#include "eco_map_impl.h"

typedef struct edge {
    double cost;
    int a, b;      /* a < b */
} edge;

/* Nondecreasing cost; ties by lower host, then the other host. */
static int cmp_edge(const void *x, const void *y)
{
    const edge *p = x, *q = y;

    if (p->cost != q->cost)
        return p->cost < q->cost ? -1 : 1;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    return (p->b > q->b) - (p->b < q->b);
}

/* Union-find over hosts; size and min edge are kept at each root. */
typedef struct uf {
    int *parent;
    int *size;
    double *sub_min; /* meaningful once the set has been merged (size > 1) */
    double *min_edge;
} uf;

static int find(uf *u, int x)
{
    while (u->parent[x] != x) {
        u->parent[x] = u->parent[u->parent[x]]; /* path halving */
        x = u->parent[x];
    }
    return x;
}

/* Figure 2 for one edge: merge its two sides when the rule allows. */
static void consider(uf *u, const edge *e, double f)
{
    int ra = find(u, e->a), rb = find(u, e->b);
    double m;

    if (ra == rb)
        return;
    if (e->cost > f * u->min_edge[e->a] || e->cost > f * u->min_edge[e->b])
        return;
    if (u->size[ra] > 1 && e->cost > f * u->sub_min[ra])
        return;
    if (u->size[rb] > 1 && e->cost > f * u->sub_min[rb])
        return;
    m = e->cost;
    if (u->size[ra] > 1 && u->sub_min[ra] < m)
        m = u->sub_min[ra];
    if (u->size[rb] > 1 && u->sub_min[rb] < m)
        m = u->sub_min[rb];
    if (u->size[ra] < u->size[rb]) { /* union by size */
        int t = ra;
        ra = rb;
        rb = t;
    }
    u->parent[rb] = ra;
    u->size[ra] += u->size[rb];
    u->sub_min[ra] = m;
}

/*
 * A host is unplaced when its cheapest edge to a host outside its subnet
 * is within f of its cheapest edge inside (a host alone always is): cost
 * cannot say where it belongs.  A slow host on a fast segment is such a
 * host: its own link dominates every pair it is in, so it measures the
 * same to its neighbours as to hosts behind routers.  A subnet made only
 * of unplaced hosts joins the one other subnet it shares a network with:
 * 0 hops measured for every pair between the two, and for no other
 * subnet.  Decided on Figure 2's subnets, then applied; a subnet that
 * cost does place never changes.
 */
typedef struct hopwork {
    int *root;     /* [n] host -> its subnet's union-find root */
    int *first;    /* [n] root -> first member, -1 */
    int *next;     /* [n] member -> next member of its subnet, -1 */
    int *size;     /* [n] root -> members of its subnet */
    long long *zero; /* [n] root -> pairs at 0 hops with the subnet at hand */
    int *into;     /* [n] root -> root to join, -1 */
    double *in_min, *out_min;
    int *cfirst, *cnext; /* the hop classes' members (ecoi_hops_members) */
    int *out;      /* [n] the hosts at 0 hops from one */
} hopwork;

static int all_unplaced(const hopwork *w, int s, double f)
{
    for (int h = w->first[s]; h >= 0; h = w->next[h])
        if (!isfinite(w->out_min[h]) || w->out_min[h] > f * w->in_min[h])
            return 0;
    return 1;
}

/* The one subnet (root) that shares subnet s's network, or -1: the
 * subnets r whose every pair with s has 0 hops measured, counted over
 * the hosts at 0 hops from s's (ecoi_map_zero_hops; zero[] is all 0 on
 * entry and exit). */
static int shared_network(const eco_map *m, const hopwork *w, int s)
{
    int found = -1, two = 0;

    for (int pass = 0; pass < 2; pass++)
        for (int a = w->first[s]; a >= 0; a = w->next[a]) {
            int k = ecoi_map_zero_hops(m, w->cfirst, w->cnext, a, w->out);
            for (int i = 0; i < k; i++) {
                int r = w->root[w->out[i]];
                if (r == s)
                    continue;
                if (pass == 0) {
                    w->zero[r]++;
                    continue;
                }
                /* the pass that reads the counts also clears them */
                if (w->zero[r] == (long long)w->size[s] * w->size[r] && r != found) {
                    two |= found >= 0;
                    found = r;
                }
                w->zero[r] = 0;
            }
        }
    return two ? -1 : found; /* two candidates: the hops do not say which */
}

static void costs_around(const eco_map *m, hopwork *w)
{
    int n = m->nhosts;

    for (int a = 0; a < n; a++) {
        w->in_min[a] = w->out_min[a] = INFINITY;
        for (int b = 0; b < m->adj[a].n; b++) {
            double c = m->adj[a].link[b].cost;
            int to = m->adj[a].link[b].to;
            double *side = w->root[a] == w->root[to] ? &w->in_min[a] : &w->out_min[a];
            if (c < *side)
                *side = c;
        }
    }
}

static int place_by_hops(const eco_map *m, uf *u, double f)
{
    size_t n = (size_t)m->nhosts + 1;
    hopwork w;
    int rc = ECO_ERR_NOMEM;

    if (!ecoi_map_has_hops(m))
        return ECO_OK;
    w.root = malloc(n * sizeof *w.root);
    w.first = malloc(n * sizeof *w.first);
    w.next = malloc(n * sizeof *w.next);
    w.size = calloc(n, sizeof *w.size);
    w.zero = calloc(n, sizeof *w.zero);
    w.into = malloc(n * sizeof *w.into);
    w.in_min = malloc(n * sizeof *w.in_min);
    w.out_min = malloc(n * sizeof *w.out_min);
    w.cfirst = malloc(((size_t)m->hops.ncls + 1) * sizeof *w.cfirst);
    w.cnext = malloc(n * sizeof *w.cnext);
    w.out = malloc(n * sizeof *w.out);
    if (w.root && w.first && w.next && w.size && w.zero && w.into && w.in_min && w.out_min &&
        w.cfirst && w.cnext && w.out) {
        ecoi_hops_members(m, w.cfirst, w.cnext);
        for (int h = 0; h < m->nhosts; h++) {
            w.root[h] = find(u, h);
            w.into[h] = -1;
            w.size[w.root[h]]++;
        }
        ecoi_group_lists(m->nhosts, w.root, m->nhosts, w.first, w.next);
        costs_around(m, &w);
        for (int s = 0; s < m->nhosts; s++)
            if (w.first[s] >= 0 && all_unplaced(&w, s, f))
                w.into[s] = shared_network(m, &w, s);
        for (int s = 0; s < m->nhosts; s++)
            if (w.into[s] >= 0 && find(u, s) != find(u, w.into[s]))
                u->parent[find(u, s)] = find(u, w.into[s]);
        rc = ECO_OK;
    }
    free(w.root);
    free(w.first);
    free(w.next);
    free(w.size);
    free(w.zero);
    free(w.into);
    free(w.in_min);
    free(w.out_min);
    free(w.cfirst);
    free(w.cnext);
    free(w.out);
    return rc;
}

/* The measured edges, a < b, sorted; min_edge of every host. */
static edge *sorted_edges(const eco_map *m, double *min_edge, size_t *nedges)
{
    size_t n = (size_t)m->nhosts, count = ecoi_map_measured_pairs(m);
    edge *e = malloc((count + 1) * sizeof *e);

    if (!e)
        return NULL;
    count = 0;
    for (size_t a = 0; a < n; a++)
        min_edge[a] = INFINITY;
    for (size_t a = 0; a < n; a++)
        for (int i = 0; i < m->adj[a].n; i++) {
            size_t b = (size_t)m->adj[a].link[i].to;
            double c = m->adj[a].link[i].cost;
            if (b < a || c <= 0.0)
                continue; /* the other direction, or hops only */
            e[count].cost = c;
            e[count].a = (int)a;
            e[count].b = (int)b;
            count++;
            if (c < min_edge[a])
                min_edge[a] = c;
            if (c < min_edge[b])
                min_edge[b] = c;
        }
    qsort(e, count, sizeof *e, cmp_edge);
    *nedges = count;
    return e;
}

/* The degree of every new subnet s (hosts with new_of[h] == s, s < count):
 * the old degree when an old subnet had exactly these hosts, else the
 * default.  O(hosts): s keeps old subnet o's degree when every host of s
 * was in o and o had as many hosts.  kept[] (count ints) and old_size[]
 * (one per old subnet) are scratch; degree[] counts the hosts of each new
 * subnet first.  (One subnet test over all hosts per new subnet made
 * partitioning hosts x subnets: 10^8 steps at 10,000 hosts not yet
 * measured, each a subnet of its own, in eco-characterize's planner.) */
static void kept_degrees(const eco_map *m, const int *new_of, int count, int *degree,
                         int *kept, int *old_size)
{
    int n = m->nhosts, nold = m->degree ? m->nsubnets : 0;

    for (int s = 0; s < count; s++) {
        kept[s] = -2; /* -2: no host seen yet, -1: no one old subnet */
        degree[s] = 0;
    }
    for (int o = 0; o < nold; o++)
        old_size[o] = 0;
    for (int h = 0; h < n; h++) {
        int o = m->subnet[h], s = new_of[h];
        if (o < 0 || o >= nold)
            o = -1;
        else
            old_size[o]++;
        if (kept[s] == -2)
            kept[s] = o;
        else if (kept[s] != o)
            kept[s] = -1;
        degree[s]++;
    }
    for (int s = 0; s < count; s++)
        degree[s] = kept[s] >= 0 && old_size[kept[s]] == degree[s] ? m->degree[kept[s]]
                                                                  : ECO_DEFAULT_DEGREE;
}

/* Number the sets by their lowest host and install them in the map. */
static int install(eco_map *m, uf *u, double threshold)
{
    int n = m->nhosts, count = 0;
    int *id = malloc(((size_t)n + 1) * sizeof *id);     /* root -> subnet */
    int *new_of = malloc(((size_t)n + 1) * sizeof *id); /* host -> subnet */
    int *degree = malloc(((size_t)n + 1) * sizeof *degree);
    int *old_size = malloc(((size_t)(n > m->nsubnets ? n : m->nsubnets) + 1) * sizeof *old_size);

    if (!id || !new_of || !degree || !old_size) {
        free(id);
        free(new_of);
        free(degree);
        free(old_size);
        return ECO_ERR_NOMEM;
    }
    for (int h = 0; h < n; h++)
        id[h] = -1;
    for (int h = 0; h < n; h++) {
        int r = find(u, h);
        if (id[r] < 0)
            id[r] = count++;
        new_of[h] = id[r];
    }
    kept_degrees(m, new_of, count, degree, id, old_size); /* id[] is free again */
    for (int h = 0; h < n; h++)
        m->subnet[h] = new_of[h];
    free(m->degree);
    m->degree = degree;
    m->nsubnets = count;
    m->threshold = threshold;
    /* The model was measured on the old subnets: new ones need measuring
     * (eco-characterize); select.c uses its defaults meanwhile. */
    ecoi_model_free(m->model);
    m->model = NULL;
    free(id);
    free(new_of);
    free(old_size);
    return ECO_OK;
}

int eco_map_partition(eco_map *map, double threshold)
{
    size_t n, nedges = 0;
    edge *e = NULL;
    uf u;
    int rc = ECO_ERR_NOMEM;

    if (!map || !isfinite(threshold) || threshold < 0.0)
        return ECO_ERR_ARG;
    n = (size_t)map->nhosts;
    u.parent = malloc((n + 1) * sizeof *u.parent);
    u.size = malloc((n + 1) * sizeof *u.size);
    u.sub_min = malloc((n + 1) * sizeof *u.sub_min);
    u.min_edge = malloc((n + 1) * sizeof *u.min_edge);
    if (u.parent && u.size && u.sub_min && u.min_edge)
        e = sorted_edges(map, u.min_edge, &nedges);
    if (e) {
        for (size_t h = 0; h < n; h++) {
            u.parent[h] = (int)h;
            u.size[h] = 1;
            u.sub_min[h] = INFINITY;
        }
        for (size_t i = 0; i < nedges; i++)
            consider(&u, &e[i], 1.0 + threshold);
        rc = place_by_hops(map, &u, 1.0 + threshold);
        if (rc == ECO_OK)
            rc = install(map, &u, threshold);
    }
    free(e);
    free(u.parent);
    free(u.size);
    free(u.sub_min);
    free(u.min_edge);
    return rc;
}
