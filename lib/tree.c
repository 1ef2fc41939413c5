/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tree.c -- per-root ECO trees over a member list (section 4 of the paper).
 *
 * Pure: knows the map and the member list, never PVM.  One builder, run once
 * per root; the collectives only walk the result (struct eco_tree in
 * eco_map_impl.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eco.h"
#include "eco_map_impl.h"
#include "eco_coll.h"

/* Sort keys: three classes of subnet, numbered in this order. */
#define KEY_CLASS ((long long)1 << 32)
#define KEY_UNPARTITIONED (1 * KEY_CLASS) /* + host index: own subnet */
#define KEY_UNMAPPED (2 * KEY_CLASS)      /* + member rank: own host, own subnet */

/* The working state of one build.  Members are grouped by host ("groups"),
 * groups by subnet; each slice is stored leader/representative first. */
typedef struct build {
    const eco_map *map;
    const int *mh;     /* member -> host, as given */
    int n, root;
    int *task;         /* [n] members, slice of group g = task[gstart[g]..gstart[g+1]-1] */
    int *grp;          /* [n] member -> group */
    int *tpos;         /* [n] member -> position in its group's slice */
    int *hgrp;         /* [map->nhosts] host -> its group, -1: no members
                        * (the measured pairs are walked from the hosts) */
    int ngroups;
    int *gstart;       /* [ngroups+1] */
    int *hosts;        /* [ngroups] groups by subnet: slice of s = hosts[sstart[s]..] */
    int *hpos;         /* [ngroups] group -> position in its subnet's slice */
    int *sub;          /* [ngroups] group -> subnet */
    int nsub;
    int nmeasured;     /* subnets 0..nmeasured-1 have mapped hosts (costs) */
    int root_sub;
    int *sstart;       /* [nsub+1] */
    int *deg;          /* [nsub] k among the subnet's hosts */
    int *tdeg;         /* [nsub] k among the tasks of each of its hosts */
    int *spar;         /* [nsub] parent subnet in the subnet tree, -1 for root_sub */
    int *sfirst;       /* [nsub] first child subnet in schedule order, -1 if none */
    int *snext;        /* [nsub] next sibling in schedule order, -1 if none */
    int *slast;        /* [nsub] last child (for appending) */
    int chain;         /* subnets in a chain (see ecoi_tree_build_shape) */
    ecoi_shape shape;  /* k among hosts and tasks (see ecoi_tree_build_shape) */
} build;

/* A member's sort key: its host, or a key of its own for host -1. */
typedef struct mkey {
    long long key;
    int rank;
} mkey;

/* A group's sort key: its subnet, then its lowest rank. */
typedef struct gkey {
    long long skey;
    int low;
    int g;
} gkey;

static int cmp_mkey(const void *a, const void *b)
{
    const mkey *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

static int cmp_gkey(const void *a, const void *b)
{
    const gkey *x = a, *y = b;
    if (x->skey != y->skey)
        return x->skey < y->skey ? -1 : 1;
    return (x->low > y->low) - (x->low < y->low);
}

/* Rotate slice a[0..len-1] so that the element at index i comes first and
 * the others keep their relative order. */
static void move_to_front(int *a, int i)
{
    int v = a[i];
    memmove(a + 1, a, (size_t)i * sizeof *a);
    a[0] = v;
}

/* The subnet key of a host with members (rank: the group's lowest rank). */
static long long subnet_key(const eco_map *map, int host, int rank)
{
    if (host < 0)
        return KEY_UNMAPPED + rank;
    if (map && map->subnet && map->subnet[host] >= 0 &&
        map->subnet[host] < map->nsubnets)
        return map->subnet[host];
    return KEY_UNPARTITIONED + host;
}

/* The degree of a subnet given its key (default when unknown or invalid). */
static int subnet_degree(const eco_map *map, long long skey)
{
    int k = ECO_DEFAULT_DEGREE;
    if (skey < KEY_CLASS && map && map->degree)
        k = map->degree[skey];
    if (k < 1)
        k = ECO_DEFAULT_DEGREE;
    return k > ECO_MAX_DEGREE ? ECO_MAX_DEGREE : k;
}

static int check_args(const eco_map *map, int n, const int *member_host,
                      int root, eco_tree **tree)
{
    if (!tree)
        return ECO_ERR_ARG;
    *tree = NULL;
    if (n < 1 || !member_host || root < 0 || root >= n)
        return ECO_ERR_ARG;
    if (map && (map->nhosts < 0 || (map->nhosts > 0 && !map->adj)))
        return ECO_ERR_ARG;
    for (int m = 0; m < n; m++) {
        int h = member_host[m];
        if (h < -1 || (map && h >= map->nhosts))
            return ECO_ERR_ARG;
    }
    return ECO_OK;
}

static void build_free(build *b)
{
    free(b->task);
    free(b->grp);
    free(b->tpos);
    free(b->hgrp);
    free(b->gstart);
    free(b->hosts);
    free(b->hpos);
    free(b->sub);
    free(b->sstart);
    free(b->deg);
    free(b->tdeg);
    free(b->spar);
    free(b->sfirst);
    free(b->snext);
    free(b->slast);
}

/*
 * Level 3: group members by host.  task[] gets each host's members in rank
 * order with the leader (the root, else the lowest rank) moved first.
 */
static int group_members(build *b)
{
    int n = b->n, g = 0;
    mkey *k = malloc((size_t)n * sizeof *k);
    b->task = malloc((size_t)n * sizeof *b->task);
    b->grp = malloc((size_t)n * sizeof *b->grp);
    b->tpos = malloc((size_t)n * sizeof *b->tpos);
    b->gstart = malloc(((size_t)n + 1) * sizeof *b->gstart);
    if (!k || !b->task || !b->grp || !b->tpos || !b->gstart) {
        free(k);
        return ECO_ERR_NOMEM;
    }
    for (int m = 0; m < n; m++) {
        k[m].rank = m;
        k[m].key = b->mh[m] >= 0 ? b->mh[m] : KEY_UNMAPPED + m;
    }
    qsort(k, (size_t)n, sizeof *k, cmp_mkey);
    for (int i = 0; i < n; i++) {
        if (i == 0 || k[i].key != k[i - 1].key)
            b->gstart[g++] = i;
        b->task[i] = k[i].rank;
    }
    b->gstart[g] = n;
    b->ngroups = g;
    free(k);
    for (g = 0; g < b->ngroups; g++)
        for (int i = b->gstart[g]; i < b->gstart[g + 1]; i++)
            if (b->task[i] == b->root)
                move_to_front(b->task + b->gstart[g], i - b->gstart[g]);
    for (g = 0; g < b->ngroups; g++)
        for (int i = b->gstart[g]; i < b->gstart[g + 1]; i++) {
            b->grp[b->task[i]] = g;
            b->tpos[b->task[i]] = i - b->gstart[g];
        }
    if (b->map) {
        if (!(b->hgrp = malloc(((size_t)b->map->nhosts + 1) * sizeof *b->hgrp)))
            return ECO_ERR_NOMEM;
        for (int h = 0; h < b->map->nhosts; h++)
            b->hgrp[h] = -1;
        for (g = 0; g < b->ngroups; g++)
            if (b->mh[b->task[b->gstart[g]]] >= 0)
                b->hgrp[b->mh[b->task[b->gstart[g]]]] = g;
    }
    return ECO_OK;
}

static int alloc_subnets(build *b, int ns)
{
    size_t z = (size_t)ns;
    b->nsub = ns;
    b->sstart = malloc((z + 1) * sizeof *b->sstart);
    b->deg = malloc(z * sizeof *b->deg);
    b->tdeg = malloc(z * sizeof *b->tdeg);
    b->spar = malloc(z * sizeof *b->spar);
    b->sfirst = malloc(z * sizeof *b->sfirst);
    b->snext = malloc(z * sizeof *b->snext);
    b->slast = malloc(z * sizeof *b->slast);
    if (!b->sstart || !b->deg || !b->tdeg || !b->spar || !b->sfirst || !b->snext || !b->slast)
        return ECO_ERR_NOMEM;
    for (int s = 0; s < ns; s++)
        b->spar[s] = b->sfirst[s] = b->snext[s] = b->slast[s] = -1;
    return ECO_OK;
}

/* The k of a level: the file's (0), a star, or as given. */
static int level_k(int want, int file_k, int n)
{
    if (want == 0)
        return file_k;
    if (want >= ECOI_K_STAR)       /* a star: k >= any count */
        return n > 1 ? n : 1;
    return want;
}

/* Fill sstart/deg/sub/nmeasured from the sorted group keys. */
static int make_subnets(build *b, const gkey *k)
{
    int G = b->ngroups, ns = 0, s = -1;
    for (int i = 0; i < G; i++)
        ns += (i == 0 || k[i].skey != k[i - 1].skey);
    if (alloc_subnets(b, ns) != ECO_OK)
        return ECO_ERR_NOMEM;
    b->nmeasured = 0;
    for (int i = 0; i < G; i++) {
        if (i == 0 || k[i].skey != k[i - 1].skey) {
            b->sstart[++s] = i;
            int file_k = subnet_degree(b->map, k[i].skey);
            b->deg[s] = level_k(b->shape.khosts, file_k, b->n);
            b->tdeg[s] = level_k(b->shape.ktasks, file_k, b->n);
            if (b->map && k[i].skey < KEY_UNMAPPED)
                b->nmeasured = s + 1;
        }
        b->hosts[i] = k[i].g;
        b->sub[k[i].g] = s;
    }
    b->sstart[ns] = G;
    return ECO_OK;
}

/*
 * Fastest node first (Banikazemi, Moorthy and Panda, 1998), for slow
 * hosts: inside every measured subnet of three or more hosts, the hosts
 * whose own link is slow go last, so that the k-ary tree makes them
 * leaves (they forward nothing) and the subnet is entered through a fast
 * host.  A host is slow when its cheapest cost to another host of the
 * subnet is more than (1 + threshold) times the cheapest inside the
 * subnet: a slow interface costs the same to every other host.  Stable:
 * the fast hosts, and the slow ones, keep their order.  O(measured pairs
 * of its hosts) per subnet, as measure_subnets.
 */
static int fastest_first(build *b)
{
    double f = 1.0 + (b->map && isfinite(b->map->threshold) ? b->map->threshold : 0.2);
    int *tmp = malloc(((size_t)b->ngroups + 1) * sizeof *tmp);
    double *own = malloc(((size_t)b->ngroups + 1) * sizeof *own);

    if (!tmp || !own) {
        free(tmp);
        free(own);
        return ECO_ERR_NOMEM;
    }
    for (int s = 0; s < b->nmeasured; s++) {
        int *h = b->hosts + b->sstart[s], len = b->sstart[s + 1] - b->sstart[s], out = 0;
        double cheapest = INFINITY;
        if (len < 3)
            continue;
        for (int i = 0; i < len; i++) {
            const ecoi_adj *adj = &b->map->adj[b->mh[b->task[b->gstart[h[i]]]]];
            own[i] = INFINITY;
            for (int j = 0; j < adj->n; j++) {
                int g = b->hgrp[adj->link[j].to];
                double c = adj->link[j].cost;
                if (g >= 0 && b->sub[g] == s && c > 0.0 && c < own[i])
                    own[i] = c;
            }
            if (own[i] < cheapest)
                cheapest = own[i];
        }
        for (int slow = 0; slow <= 1; slow++)
            for (int i = 0; i < len; i++)
                if ((isfinite(own[i]) && own[i] > f * cheapest) == slow)
                    tmp[out++] = h[i];
        memcpy(h, tmp, (size_t)len * sizeof *h);
    }
    free(tmp);
    free(own);
    return ECO_OK;
}

/*
 * Level 2: group hosts by subnet.  Each subnet's slice of hosts[] is in
 * order of lowest rank, slow hosts last (fastest_first), with the
 * representative first: the root's host in the root's subnet, else the
 * first host of the slice, the fast host of the lowest rank.
 */
static int group_hosts(build *b)
{
    int G = b->ngroups, rc, rg = b->grp[b->root];
    gkey *k = malloc((size_t)G * sizeof *k);
    b->hosts = malloc((size_t)G * sizeof *b->hosts);
    b->hpos = malloc((size_t)G * sizeof *b->hpos);
    b->sub = malloc((size_t)G * sizeof *b->sub);
    if (!k || !b->hosts || !b->hpos || !b->sub) {
        free(k);
        return ECO_ERR_NOMEM;
    }
    for (int g = 0; g < G; g++) {
        /* the slice is in rank order but for a leading root */
        int first = b->task[b->gstart[g]], low = first;
        if (b->gstart[g + 1] - b->gstart[g] > 1 && b->task[b->gstart[g] + 1] < low)
            low = b->task[b->gstart[g] + 1];
        k[g].g = g;
        k[g].low = low;
        k[g].skey = subnet_key(b->map, b->mh[first], low);
    }
    qsort(k, (size_t)G, sizeof *k, cmp_gkey);
    rc = make_subnets(b, k);
    free(k);
    if (rc == ECO_OK)
        rc = fastest_first(b);
    if (rc != ECO_OK)
        return rc;
    b->root_sub = b->sub[rg];
    for (int i = b->sstart[b->root_sub]; i < b->sstart[b->root_sub + 1]; i++)
        if (b->hosts[i] == rg)
            move_to_front(b->hosts + b->sstart[b->root_sub],
                          i - b->sstart[b->root_sub]);
    for (int s = 0; s < b->nsub; s++)
        for (int i = b->sstart[s]; i < b->sstart[s + 1]; i++)
            b->hpos[b->hosts[i]] = i - b->sstart[s];
    return ECO_OK;
}

/* ------------------------------------------------------------------ */
/* Level 1: the subnet schedule                                        */
/* ------------------------------------------------------------------ */

/* Subnet-to-subnet costs among the measured subnets. */
typedef struct costs {
    int sm;         /* measured subnets */
    double fill;    /* cost of every pair without a measurement */
    double *m;      /* [sm*sm] cheapest measured host pair, else fill */
    int *row;       /* [sm*sm] row s: the other subnets by (cost, index) */
    int *cur;       /* [sm] first possibly uninformed entry of row s in s's site */
    int *curx;      /* [sm] the same outside s's site */
    int *site;      /* [sm] the site of each measured subnet (ecoi_sites) */
    double *up;     /* [sites] when the site's link out is free again */
} costs;

/* The dearest measured cost of the whole map, 1.0 when none is. */
static double fill_cost(const eco_map *map)
{
    double max = -1.0;
    for (int a = 0; map && a < map->nhosts; a++)
        for (int i = 0; i < map->adj[a].n; i++)
            if (map->adj[a].link[i].cost > max)
                max = map->adj[a].link[i].cost;
    return max >= 0.0 ? max : 1.0;
}

/* m[s][t] = the cheapest measured cost between hosts with members: the
 * measured pairs of each such host (both directions: the lists are
 * symmetric). */
static int measure_subnets(const build *b, costs *c)
{
    size_t sm = (size_t)c->sm;
    int gm = b->sstart[c->sm], missing = b->nsub > c->sm;
    c->m = malloc((sm ? sm * sm : 1) * sizeof *c->m);
    if (!c->m)
        return ECO_ERR_NOMEM;
    for (size_t i = 0; i < sm * sm; i++)
        c->m[i] = -1.0;
    for (int i = 0; i < gm; i++) {
        int gi = b->hosts[i];
        const ecoi_adj *adj = &b->map->adj[b->mh[b->task[b->gstart[gi]]]];
        size_t si = (size_t)b->sub[gi];
        for (int j = 0; j < adj->n; j++) {
            int gj = b->hgrp[adj->link[j].to];
            double x = adj->link[j].cost;
            size_t sj = gj >= 0 ? (size_t)b->sub[gj] : sm;
            if (sj >= sm || si == sj || x < 0.0)
                continue;
            if (c->m[si * sm + sj] < 0.0 || x < c->m[si * sm + sj])
                c->m[si * sm + sj] = x;
        }
    }
    for (size_t s = 0; s < sm; s++)
        for (size_t t = 0; t < sm; t++)
            missing |= (s != t && c->m[s * sm + t] < 0.0);
    c->fill = missing ? fill_cost(b->map) : 1.0;
    for (size_t i = 0; i < sm * sm; i++)
        if (c->m[i] < 0.0)
            c->m[i] = c->fill;
    return ECO_OK;
}

static int site_root(int *up, int x)
{
    while (up[x] != x)
        x = up[x] = up[up[x]];
    return x;
}

int *ecoi_sites_hops(const eco_map *map, int S, const int *rep)
{
    int *hops = malloc((S > 0 ? (size_t)S * (size_t)S : 1) * sizeof *hops);

    const int known = map && map->hops.exc;   /* a map without hops: none */

    for (int s = 0; hops && s < S; s++)
        for (int t = 0; t < S; t++)
            hops[(size_t)s * (size_t)S + (size_t)t] =
                s == t ? 0
                : known && rep[s] >= 0 && rep[s] < map->nhosts && rep[t] >= 0 &&
                  rep[t] < map->nhosts ? ecoi_map_hops_ij(map, rep[s], rep[t]) : -1;
    return hops;
}

/* Do the routers let s and t share a site: not known, or fewer between
 * them than between either and its farthest other subnet (far). */
static int sites_hops_ok(int S, const int *hops, const int *far, int s, int t)
{
    const int h = hops ? hops[(size_t)s * (size_t)S + (size_t)t] : -1;

    return h < 0 || (h < far[s] && h < far[t]);
}

int ecoi_sites(int S, const double *cost, double threshold, const int *hops, int *site)
{
    int *up = malloc((S > 0 ? 2 * (size_t)S : 1) * sizeof *up), ns = 0, *far;
    double *near = malloc((S > 0 ? (size_t)S : 1) * sizeof *near);
    double f = 1.0 + (isfinite(threshold) && threshold >= 0.0 ? threshold : 0.2);

    if (!up || !near) {
        free(up);
        free(near);
        return ECO_ERR_NOMEM;
    }
    far = up + S;
    for (int s = 0; s < S; s++) {
        up[s] = s;
        near[s] = INFINITY;
        far[s] = -1;
        for (int t = 0; t < S; t++)
            if (t != s) {
                near[s] = fmin(near[s], cost[(size_t)s * (size_t)S + (size_t)t]);
                if (hops && hops[(size_t)s * (size_t)S + (size_t)t] > far[s])
                    far[s] = hops[(size_t)s * (size_t)S + (size_t)t];
            }
    }
    for (int s = 0; s < S; s++)
        for (int t = s + 1; t < S; t++)
            if (cost[(size_t)s * (size_t)S + (size_t)t] <= f * fmin(near[s], near[t]) &&
                sites_hops_ok(S, hops, far, s, t))
                up[site_root(up, s)] = site_root(up, t);
    for (int s = 0; s < S; s++)
        site[s] = -1;
    for (int s = 0; s < S; s++) {   /* dense ids, in order of first subnet */
        int r = site_root(up, s);
        if (site[r] < 0)
            site[r] = ns++;
        site[s] = site[r];
    }
    free(up);
    free(near);
    return ns;
}

typedef struct rowent {
    double cost;
    int t;
} rowent;

static int cmp_rowent(const void *a, const void *b)
{
    const rowent *x = a, *y = b;
    if (x->cost != y->cost)
        return x->cost < y->cost ? -1 : 1;
    return (x->t > y->t) - (x->t < y->t);
}

/* Sort every measured row once: a sender's best target is then the first
 * uninformed entry at or after its cursor (amortized O(sm) per row). */
static int sort_rows(costs *c)
{
    size_t sm = (size_t)c->sm;
    rowent *tmp = malloc((sm ? sm : 1) * sizeof *tmp);
    c->row = malloc((sm ? sm * sm : 1) * sizeof *c->row);
    c->cur = calloc(sm ? sm : 1, sizeof *c->cur);
    c->curx = calloc(sm ? sm : 1, sizeof *c->curx);
    if (!tmp || !c->row || !c->cur || !c->curx) {
        free(tmp);
        return ECO_ERR_NOMEM;
    }
    for (size_t s = 0; s < sm; s++) {
        for (size_t t = 0; t < sm; t++) {
            tmp[t].cost = c->m[s * sm + t];
            tmp[t].t = (int)t;
        }
        qsort(tmp, sm, sizeof *tmp, cmp_rowent);
        for (size_t t = 0; t < sm; t++)
            c->row[s * sm + t] = tmp[t].t;
    }
    free(tmp);
    return ECO_OK;
}

/* A min-heap of unmeasured senders keyed by (ready, index).  Their costs
 * to every subnet are all `fill`, so the top is their best sender. */
typedef struct heap {
    int *a;
    int len;
    const double *ready;
} heap;

static int heap_less(const heap *h, int x, int y)
{
    if (h->ready[x] != h->ready[y])
        return h->ready[x] < h->ready[y];
    return x < y;
}

static void heap_push(heap *h, int v)
{
    int i = h->len++;
    while (i > 0 && heap_less(h, v, h->a[(i - 1) / 2])) {
        h->a[i] = h->a[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->a[i] = v;
}

static void heap_pop(heap *h)
{
    int v = h->a[--h->len], i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= h->len)
            break;
        if (c + 1 < h->len && heap_less(h, h->a[c + 1], h->a[c]))
            c++;
        if (!heap_less(h, h->a[c], v))
            break;
        h->a[i] = h->a[c];
        i = c;
    }
    if (h->len > 0)
        h->a[i] = v;
}

/* One chosen (sender, target) pair of the schedule. */
typedef struct pick {
    int s, t;
    double at;   /* ready(s) + cost(s, t) */
} pick;

/* Is (at, t, s) better than the best so far (ties: lower t, lower s)? */
static int better(const pick *best, double at, int t, int s)
{
    if (best->s < 0 || at != best->at)
        return best->s < 0 || at < best->at;
    return t != best->t ? t < best->t : s < best->s;
}

/* The schedule's state: who is informed, when senders are free again. */
typedef struct sched {
    costs c;
    double *ready;
    char *informed;
    int low_any;      /* lowest maybe-uninformed subnet */
    int low_unmeasured;
    heap h;
} sched;

static int first_uninformed(const sched *q, int *low, int end)
{
    while (*low < end && q->informed[*low])
        (*low)++;
    return *low;
}

/* The first uninformed entry of s's row at or after *cur that is in s's
 * site (out = 0) or outside it (out = 1), -1 if none. */
static int first_of_kind(const sched *q, int s, int *cur, int out)
{
    const costs *c = &q->c;
    size_t base = (size_t)s * (size_t)c->sm;
    while (*cur < c->sm) {
        int t = c->row[base + (size_t)*cur];
        if (!q->informed[t] && (c->site[t] != c->site[s]) == out)
            return t;
        (*cur)++;
    }
    return -1;
}

/* The best pair of a measured sender s, folded into *best.  A message to
 * another site leaves through the sender's site's link, which carries
 * one such message at a time (c->up): without this, two subnets of one
 * site would both send across a shared wide-area link at once. */
static void offer_measured(sched *q, int s, int nsub, pick *best)
{
    costs *c = &q->c;
    size_t base = (size_t)s * (size_t)c->sm;
    int t = first_of_kind(q, s, &c->cur[s], 0), tx = first_of_kind(q, s, &c->curx[s], 1);
    int tu = first_uninformed(q, &q->low_unmeasured, nsub);
    double x = t >= 0 ? q->ready[s] + c->m[base + (size_t)t] : INFINITY;

    if (tx >= 0) {
        double ax = fmax(q->ready[s], c->up[c->site[s]]) + c->m[base + (size_t)tx];
        if (t < 0 || ax < x || (ax == x && tx < t)) {
            t = tx;
            x = ax;
        }
    }
    if (tu < nsub && (t < 0 || q->ready[s] + c->fill < x ||
                      (q->ready[s] + c->fill == x && tu < t))) {
        t = tu;
        x = q->ready[s] + c->fill;
    }
    if (t >= 0 && better(best, x, t, s)) {
        best->s = s;
        best->t = t;
        best->at = x;
    }
}

/* Choose the next (sender, target) pair: min ready(S)+cost(S,T). */
static pick next_pair(sched *q, int nsub)
{
    pick best = { -1, -1, 0.0 };
    for (int s = 0; s < q->c.sm; s++)
        if (q->informed[s])
            offer_measured(q, s, nsub, &best);
    if (q->h.len > 0) {
        int s = q->h.a[0];
        int t = first_uninformed(q, &q->low_any, nsub);
        if (better(&best, q->ready[s] + q->c.fill, t, s)) {
            best.s = s;
            best.t = t;
            best.at = q->ready[s] + q->c.fill;
        }
    }
    return best;
}

/* Make t the last child of s in the subnet tree and mark it informed. */
static void apply_pick(build *b, sched *q, pick p)
{
    b->spar[p.t] = p.s;
    if (b->slast[p.s] < 0)
        b->sfirst[p.s] = p.t;
    else
        b->snext[b->slast[p.s]] = p.t;
    b->slast[p.s] = p.t;
    q->informed[p.t] = 1;
    if (p.s < q->c.sm && p.t < q->c.sm && q->c.site[p.s] != q->c.site[p.t])
        q->c.up[q->c.site[p.s]] = p.at;
    if (p.s >= q->c.sm)
        heap_pop(&q->h);     /* s was the top; re-insert with its new time */
    /* In a chain a subnet passes the message on once: only the newest
     * subnet is ever ready to send.  In a star only the root's subnet
     * ever sends. */
    q->ready[p.s] = b->chain ? INFINITY : p.at;
    q->ready[p.t] = b->shape.subnets == ECOI_AMONG_STAR ||
                    b->shape.subnets == ECOI_AMONG_STAR_FAR ? INFINITY : p.at;
    if (p.s >= q->c.sm)
        heap_push(&q->h, p.s);
    if (p.t >= q->c.sm)
        heap_push(&q->h, p.t);
}

/* The measured subnets' sites (ecoi_sites on their cheapest costs);
 * every site's link free at time 0. */
static int site_subnets(const build *b, costs *c)
{
    size_t sm = (size_t)c->sm;
    c->site = malloc((sm ? sm : 1) * sizeof *c->site);
    if (!c->site)
        return ECO_ERR_NOMEM;
    int *rep = malloc((sm ? sm : 1) * sizeof *rep), *hops = NULL, ns;
    /* each measured subnet's first host stands for it in routers */
    for (int s = 0; rep && s < c->sm; s++)
        rep[s] = b->mh[b->task[b->gstart[b->hosts[b->sstart[s]]]]];
    if (!rep || !(hops = ecoi_sites_hops(b->map, c->sm, rep))) {
        free(rep);
        return ECO_ERR_NOMEM;
    }
    ns = ecoi_sites(c->sm, c->m, b->map ? b->map->threshold : 0.2, hops, c->site);
    free(rep);
    free(hops);
    if (ns < 0)
        return ns;
    c->up = calloc(ns > 0 ? (size_t)ns : 1, sizeof *c->up);
    return c->up ? ECO_OK : ECO_ERR_NOMEM;
}

static void sched_free(sched *q)
{
    free(q->c.m);
    free(q->c.row);
    free(q->c.cur);
    free(q->c.curx);
    free(q->c.site);
    free(q->c.up);
    free(q->ready);
    free(q->informed);
    free(q->h.a);
}

/*
 * The greedy earliest-completion schedule among subnets (see the picture
 * above eco_tree_build).  Cost: O(sm^2 log sm) to sort the measured rows,
 * then per step O(sm + log nsub), so O(nsub * sm + nsub log nsub) in all.
 */
static int schedule_subnets(build *b)
{
    int ns = b->nsub, rc;
    sched q;
    memset(&q, 0, sizeof q);
    q.c.sm = b->nmeasured;
    q.ready = calloc((size_t)ns, sizeof *q.ready);
    q.informed = calloc((size_t)ns, 1);
    q.h.a = malloc((size_t)ns * sizeof *q.h.a);
    q.h.ready = q.ready;
    q.low_unmeasured = q.c.sm;
    rc = (!q.ready || !q.informed || !q.h.a) ? ECO_ERR_NOMEM : ECO_OK;
    if (rc == ECO_OK)
        rc = measure_subnets(b, &q.c);
    if (rc == ECO_OK)
        rc = sort_rows(&q.c);
    if (rc == ECO_OK)
        rc = site_subnets(b, &q.c);
    if (rc == ECO_OK) {
        q.informed[b->root_sub] = 1;
        if (b->root_sub >= q.c.sm)
            heap_push(&q.h, b->root_sub);
        for (int step = 1; step < ns; step++)
            apply_pick(b, &q, next_pair(&q, ns));
    }
    sched_free(&q);
    return rc;
}

/* ------------------------------------------------------------------ */
/* From groups and subnets to members                                  */
/* ------------------------------------------------------------------ */

static int leader_of(const build *b, int g)
{
    return b->task[b->gstart[g]];
}

static int rep_of(const build *b, int s)
{
    return leader_of(b, b->hosts[b->sstart[s]]);
}

/* Parent of member m and the kind of the edge into it. */
static int parent_of(const build *b, int m, int *kind)
{
    int g = b->grp[m], q = b->tpos[m], s = b->sub[g], p = b->hpos[g];
    long long k = b->deg[s], kt = b->tdeg[s];
    if (q > 0) {
        *kind = ECO_EDGE_TASKS;
        return b->task[b->gstart[g] + (int)((q - 1) / kt)];
    }
    if (p > 0) {
        *kind = ECO_EDGE_HOSTS;
        return leader_of(b, b->hosts[b->sstart[s] + (int)((p - 1) / k)]);
    }
    if (s == b->root_sub) {
        *kind = ECO_EDGE_ROOT;
        return -1;
    }
    *kind = ECO_EDGE_SUBNETS;
    return rep_of(b, b->spar[s]);
}

/* Children of m in sending order (written to out unless NULL): child
 * subnets in schedule order, then host children, then task children. */
static int children_of(const build *b, int m, int *out)
{
    int g = b->grp[m], q = b->tpos[m], s = b->sub[g], p = b->hpos[g], cnt = 0;
    long long k = b->deg[s], kt = b->tdeg[s];
    if (q == 0 && p == 0)
        for (int t = b->sfirst[s]; t >= 0; t = b->snext[t]) {
            if (out)
                out[cnt] = rep_of(b, t);
            cnt++;
        }
    /* STAR_FAR: the dearest subnet first (the schedule took the cheapest
     * first), so that a scatter starts on its slowest link first */
    if (out && b->shape.subnets == ECOI_AMONG_STAR_FAR)
        for (int i = 0, j = cnt - 1; i < j; i++, j--) {
            int x = out[i];
            out[i] = out[j];
            out[j] = x;
        }
    if (q == 0) {
        long long nh = b->sstart[s + 1] - b->sstart[s];
        for (long long i = k * p + 1; i <= k * p + k && i < nh; i++) {
            if (out)
                out[cnt] = leader_of(b, b->hosts[b->sstart[s] + (int)i]);
            cnt++;
        }
    }
    long long nt = b->gstart[g + 1] - b->gstart[g];
    for (long long i = kt * q + 1; i <= kt * q + kt && i < nt; i++) {
        if (out)
            out[cnt] = b->task[b->gstart[g] + (int)i];
        cnt++;
    }
    return cnt;
}

static eco_tree *tree_alloc(int n)
{
    size_t z = (size_t)n;
    eco_tree *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->n = n;
    t->parent = malloc(z * sizeof *t->parent);
    t->child_off = malloc((z + 1) * sizeof *t->child_off);
    t->child = malloc((z > 1 ? z - 1 : 1) * sizeof *t->child);
    t->order = malloc(z * sizeof *t->order);
    t->pos = malloc(z * sizeof *t->pos);
    t->subtree = malloc(z * sizeof *t->subtree);
    t->kind = malloc(z * sizeof *t->kind);
    if (!t->parent || !t->child_off || !t->child || !t->order || !t->pos ||
        !t->subtree || !t->kind)
        eco_tree_free(&t);
    return t;
}

/* Preorder with an explicit stack (children pushed in reverse so they pop
 * in sending order), then subtree sizes bottom-up and depths top-down. */
static int tree_walk(eco_tree *t)
{
    int top = 0, len = 0;
    int *stack = malloc((size_t)t->n * sizeof *stack);
    int *depth = malloc((size_t)t->n * sizeof *depth);
    if (!stack || !depth) {
        free(stack);
        free(depth);
        return ECO_ERR_NOMEM;
    }
    stack[top++] = t->root;
    while (top > 0) {
        int m = stack[--top];
        t->pos[m] = len;
        t->order[len++] = m;
        for (int i = t->child_off[m + 1] - 1; i >= t->child_off[m]; i--)
            stack[top++] = t->child[i];
    }
    t->depth = 0;
    for (int i = 0; i < t->n; i++) {
        int m = t->order[i];
        depth[m] = m == t->root ? 0 : depth[t->parent[m]] + 1;
        if (depth[m] > t->depth)
            t->depth = depth[m];
        t->subtree[m] = 1;
    }
    for (int i = t->n - 1; i > 0; i--)
        t->subtree[t->parent[t->order[i]]] += t->subtree[t->order[i]];
    free(stack);
    free(depth);
    return ECO_OK;
}

/* Fill every field of the tree from the grouped members. */
static int tree_fill(const build *b, eco_tree *t)
{
    t->root = b->root;
    t->child_off[0] = 0;
    for (int m = 0; m < b->n; m++) {
        t->parent[m] = parent_of(b, m, &t->kind[m]);
        t->child_off[m + 1] = t->child_off[m] + children_of(b, m, NULL);
    }
    for (int m = 0; m < b->n; m++)
        children_of(b, m, t->child + t->child_off[m]);
    return tree_walk(t);
}

/*
 * eco_tree_build -- the ECO tree for one root.  Three levels, cheapest
 * links last:
 *
 *   level 1, subnets: a tree among one REPRESENTATIVE per subnet, rooted at
 *   the root's subnet; every other subnet is entered by exactly one message
 *   (kind ECO_EDGE_SUBNETS).  Built by a greedy earliest-completion
 *   schedule: the root's subnet is ready at time 0; repeatedly take the
 *   pair (informed S, uninformed T) minimizing ready(S) + cost(S,T) (ties:
 *   lower T, then lower S), make T a child of S, and set
 *   ready(T) = ready(S) += cost(S,T)  (a sender sends one message at a time).
 *   cost(S,T) is the cheapest measured cost between hosts with members of S
 *   and of T, else the dearest measured cost of the map, else 1.0.  Equal
 *   costs give a binomial tree (ties favour the lowest sender).
 *
 *   level 2, hosts: inside subnet S the host LEADERS form a k-ary tree
 *   (k = degree of S) in heap order: position 0 is the representative's
 *   host (the root's host in the root's subnet, else the host of the
 *   subnet's lowest rank), then the other hosts by lowest rank; host i's
 *   parent is host (i-1)/k (kind ECO_EDGE_HOSTS).
 *
 *   level 3, tasks: on each host the leader (the root, else the lowest rank)
 *   at position 0, then the other members in rank order; task i's parent is
 *   task (i-1)/k, k of the host's subnet (kind ECO_EDGE_TASKS).
 *
 *   Example, k = 2: the root r is the leader of host H0 of subnet A, and a
 *   second task r2 runs on H0; A has hosts H0..H3; b and c represent the
 *   subnets B and C, and B is cheaper to reach, so the schedule picks it
 *   first:
 *
 *                               r   (leader of H0, subnet A)
 *           .---------.---------+----------.----------.
 *        SUBNETS   SUBNETS    HOSTS      HOSTS      TASKS
 *           |         |         |          |          |
 *           b         c     H1 leader  H2 leader      r2
 *           |         |         |
 *      B's k-ary  C's k-ary   HOSTS
 *      host tree  host tree     |
 *                           H3 leader     (heap position 3: parent 1)
 *
 *   A member sends to its children in this order: child subnets (in
 *   schedule order), then host children, then task children, so the
 *   slowest and furthest subtrees start first.  A host or subnet of its own
 *   is made for every member of host -1, and a subnet of its own for every
 *   host with subnet -1 (and every host when map is NULL).
 *
 *   Depth.  With hd(h, k) the depth of a k-ary heap of h nodes (the least d
 *   with 1 + k + ... + k^d >= h, i.e. floor(log_k((k-1)(h-1)+1)) for k >= 2;
 *   h - 1 for k = 1):
 *     depth = max over members m (on host H of subnet S) of
 *             dsub(S) + heap depth of H in S + heap depth of m on H
 *          <= D + max_S hd(hosts of S, k_S) + max_H hd(members on H, k_H)
 *   where D, the subnet tree's depth, is at most nsubnets - 1; with equal
 *   subnet costs every subnet is informed within ceil(log2 nsubnets)
 *   rounds, so D <= ceil(log2 nsubnets), with equality (binomial tree)
 *   when nsubnets is a power of two.
 *
 * Cost: O(n log n + G log G) to group (G hosts with members), O(the map's
 * hosts and measured pairs) for the subnet costs, and the schedule,
 * O(sm^2 log sm + S * sm + S log S) for S subnets of which sm have mapped
 * hosts (unmapped subnets all cost the same and share one heap).
 */
static int build_tree(const eco_map *map, int n, const int *member_host,
                      int root, ecoi_shape shape, eco_tree **tree)
{
    build b;
    eco_tree *t = NULL;
    int rc = check_args(map, n, member_host, root, tree);
    if (rc != ECO_OK)
        return rc;
    memset(&b, 0, sizeof b);
    b.chain = shape.subnets == ECOI_AMONG_CHAIN;
    b.shape = shape;
    b.map = map;
    b.mh = member_host;
    b.n = n;
    b.root = root;
    rc = group_members(&b);
    if (rc == ECO_OK)
        rc = group_hosts(&b);
    if (rc == ECO_OK)
        rc = schedule_subnets(&b);
    if (rc == ECO_OK)
        rc = (t = tree_alloc(n)) ? ECO_OK : ECO_ERR_NOMEM;
    if (rc == ECO_OK)
        rc = tree_fill(&b, t);
    build_free(&b);
    if (rc != ECO_OK) {
        eco_tree_free(&t);
        return rc;
    }
    *tree = t;
    return ECO_OK;
}

int eco_tree_build(const eco_map *map, int n, const int *member_host,
                   int root, eco_tree **tree)
{
    return build_tree(map, n, member_host, root, (ecoi_shape){ ECOI_AMONG_TREE, 0, 0 }, tree);
}

/*
 * Variants of the same tree for particular messages:
 *
 * chain: the subnets form a CHAIN: from the root's subnet, each subnet
 * passes the message on to the cheapest subnet not yet reached (ties: the
 * lower subnet).  For long, pipelined broadcasts and reductions: every
 * link into and out of a subnet then carries the message once, where a
 * fan-out sends one copy per child subnet through the sender's own link.
 *
 *      root's subnet --> nearest --> next nearest --> ...
 *
 * ECOI_AMONG_STAR: the root's subnet sends to every other subnet itself,
 * cheapest first (gather and scatter: no block is relayed through a
 * third subnet's link).  ECOI_AMONG_STAR_FAR: the same, dearest first:
 * a scatter's sends do not wait for their receivers, so the slowest
 * subnet's link, started first, carries its blocks while the root's link
 * carries the others' (cheapest first, it started when the root's link
 * had carried all the others').
 *
 * khosts, ktasks: the degree among a subnet's hosts and among a host's
 * tasks: the subnet file's k (0), a given k (2: short messages, where a
 * chain's depth costs more than its bandwidth saves), or a star
 * (ECOI_K_STAR: gather and scatter, whose blocks all cross the root's own
 * link anyway, so relaying them only adds store-and-forward hops).
 * Which shape a call uses is select.c's choice.
 */
int ecoi_tree_build_shape(const eco_map *map, int n, const int *member_host,
                          int root, ecoi_shape shape, eco_tree **tree)
{
    return build_tree(map, n, member_host, root, shape, tree);
}

/*
 * The forest of t's trees inside groups, for the first and last steps of
 * rsag and hier: t without its edges between subnets (subnet[m]: the
 * member's subnet group), so that each subnet's members form a tree of
 * their own, rooted at the member t enters the subnet by.  With site
 * (site[m]: the member's site), t keeps its edges between the subnets
 * of a site (a chain of them carries a run through each subnet's link
 * once, where hanging them all from the first sent it a copy per
 * subnet: campus24.topo's gather-to-all), and a site's trees that t
 * entered apart hang from the first of them in t's preorder, so that
 * each site is one tree whatever way t crossed between sites.  Roots
 * come in t's preorder, each followed by its tree in preorder.
 */
int ecoi_tree_cut(const eco_tree *t, const int *subnet, const int *site, eco_tree **forest)
{
    const int n = t->n;
    eco_tree *f = tree_alloc(n);
    int *stack = malloc((size_t)n * sizeof *stack);
    int *lead = malloc((size_t)n * sizeof *lead), len = 0;

    if (!f || !stack || !lead) {
        eco_tree_free(&f);
        free(stack);
        free(lead);
        return ECO_ERR_NOMEM;
    }
    f->root = t->root;
    for (int m = 0; m < n; m++) {
        const int *g = site ? site : subnet;
        int cut = t->parent[m] < 0 || g[t->parent[m]] != g[m];
        f->parent[m] = cut ? -1 : t->parent[m];
        f->kind[m] = cut ? ECO_EDGE_ROOT : t->kind[m];
        lead[m] = -1;
    }
    /* a site's later subnet trees hang from its first (site numbers are
     * below n: ecoi_groups) */
    for (int i = 0; i < n && site; i++) {
        int m = t->order[i], g = site[m];
        if (f->parent[m] >= 0 || g < 0 || g >= n)
            continue;
        if (lead[g] < 0) {
            lead[g] = m;
        } else {
            f->parent[m] = lead[g];
            f->kind[m] = ECO_EDGE_SUBNETS;
        }
    }
    /* children in t's preorder: counts, offsets, fill */
    for (int m = 0; m <= n; m++)
        f->child_off[m] = 0;
    for (int m = 0; m < n; m++)
        if (f->parent[m] >= 0)
            f->child_off[f->parent[m] + 1]++;
    for (int m = 0; m < n; m++)
        f->child_off[m + 1] += f->child_off[m];
    for (int m = 0; m < n; m++)
        stack[m] = f->child_off[m];
    for (int i = 0; i < n; i++) {
        int m = t->order[i];
        if (f->parent[m] >= 0)
            f->child[stack[f->parent[m]]++] = m;
    }
    f->depth = 0;
    for (int i = 0; i < n; i++) {
        int top = 0;
        if (f->parent[t->order[i]] >= 0)
            continue;
        stack[top++] = t->order[i];
        while (top > 0) {
            int m = stack[--top];
            f->pos[m] = len;
            f->order[len++] = m;
            for (int j = f->child_off[m + 1] - 1; j >= f->child_off[m]; j--)
                stack[top++] = f->child[j];
        }
    }
    for (int i = 0; i < n; i++) {
        int m = f->order[i];
        f->subtree[m] = 1;
        stack[m] = f->parent[m] < 0 ? 0 : stack[f->parent[m]] + 1;   /* depth */
        if (stack[m] > f->depth)
            f->depth = stack[m];
    }
    for (int i = n - 1; i >= 0; i--)
        if (f->parent[f->order[i]] >= 0)
            f->subtree[f->parent[f->order[i]]] += f->subtree[f->order[i]];
    free(stack);
    free(lead);
    *forest = f;
    return ECO_OK;
}

/* ------------------------------------------------------------------ */
/* Accessors                                                           */
/* ------------------------------------------------------------------ */

void eco_tree_free(eco_tree **tree)
{
    eco_tree *t;
    if (!tree || !*tree)
        return;
    t = *tree;
    free(t->parent);
    free(t->child_off);
    free(t->child);
    free(t->order);
    free(t->pos);
    free(t->subtree);
    free(t->kind);
    free(t);
    *tree = NULL;
}

int eco_tree_size(const eco_tree *tree)
{
    return tree ? tree->n : ECO_ERR_ARG;
}

int eco_tree_root(const eco_tree *tree)
{
    return tree ? tree->root : ECO_ERR_ARG;
}

int eco_tree_parent(const eco_tree *tree, int m)
{
    if (!tree || m < 0 || m >= tree->n)
        return ECO_ERR_ARG;
    return tree->parent[m];
}

int eco_tree_nchildren(const eco_tree *tree, int m)
{
    if (!tree || m < 0 || m >= tree->n)
        return ECO_ERR_ARG;
    return tree->child_off[m + 1] - tree->child_off[m];
}

const int *eco_tree_children(const eco_tree *tree, int m)
{
    if (!tree || m < 0 || m >= tree->n)
        return NULL;
    return tree->child + tree->child_off[m];
}

int eco_tree_depth(const eco_tree *tree)
{
    return tree ? tree->depth : ECO_ERR_ARG;
}

/* A subtree in preorder (eco_compat_iface.h): order[pos[m] .. + subtree[m]). */
int ecoi_subtree_begin(ecoi_subtree_walk *w, const eco_tree *tree, int m)
{
    if (!w || !tree || m < 0 || m >= tree->n)
        return ECO_ERR_ARG;
    w->tree = tree;
    w->next = tree->pos[m];
    w->end = tree->pos[m] + tree->subtree[m];
    return tree->subtree[m];
}

int ecoi_subtree_next(ecoi_subtree_walk *w, int *member, int *size)
{
    int v;

    if (w->next >= w->end)
        return 0;
    v = w->tree->order[w->next++];
    *member = v;
    *size = w->tree->subtree[v];
    return 1;
}

/* ------------------------------------------------------------------ */
/* Topology-unaware shapes, for comparison (eco_set_pattern)           */
/* ------------------------------------------------------------------ */

/*
 * A k-ary heap over the ranks in the order root, root+1, ..., n-1, 0, ...,
 * root-1 (virtual rank v = (rank - root + n) % n); v's children are
 * v*k+1 .. v*k+k.  k = 1 is a chain, k >= n-1 a star.  Every edge is of
 * kind ECO_EDGE_HOSTS: the shape knows nothing of the network.
 *
 *   k = 2, root 0:        0
 *                       /   \
 *                      1     2
 *                     / \   / \
 *                    3   4 5   6
 */
int ecoi_tree_kary(int n, int root, int k, eco_tree **tree)
{
    eco_tree *t;

    if (n < 1 || root < 0 || root >= n || k < 1 || !tree)
        return ECO_ERR_ARG;
    if (!(t = tree_alloc(n)))
        return ECO_ERR_NOMEM;
    t->root = root;
    t->child_off[0] = 0;
    for (int m = 0; m < n; m++) {
        long long v = (m - root + n) % n, first = v * k + 1;
        int cnt = first >= n ? 0 : (int)(first + k <= n ? k : n - first);

        t->parent[m] = v == 0 ? -1 : (int)(((v - 1) / k + root) % n);
        t->kind[m] = v == 0 ? ECO_EDGE_ROOT : ECO_EDGE_HOSTS;
        t->child_off[m + 1] = t->child_off[m] + cnt;
        for (int i = 0; i < cnt; i++)
            t->child[t->child_off[m] + i] = (int)((first + i + root) % n);
    }
    if (tree_walk(t) != ECO_OK) {
        eco_tree_free(&t);
        return ECO_ERR_NOMEM;
    }
    *tree = t;
    return ECO_OK;
}
