/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * map.c -- the network map: hosts sorted by name, the measured pairs
 * (cost, and routers between them: hops), and the subnets with their
 * per-subnet parameters.
 *
 * Storage (see eco_map_impl.h): host[], subnet[] and adj[] have `cap`
 * rows; adj[h] lists h's measured pairs, ascending by the other host.
 * Inserting a host keeps host[] sorted, so the hosts after the insertion
 * point move up by one, in every list too.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "eco_map_impl.h"
#include "eco_compat_iface.h"

#define MIN_CAP 8

/* A host name: 1..ECO_MAX_HOSTNAME characters, no whitespace, no '#'. */
static int name_ok(const char *name)
{
    size_t len;

    if (!name)
        return 0;
    len = strlen(name);
    if (len == 0 || len > ECO_MAX_HOSTNAME)
        return 0;
    return strpbrk(name, " \t\r\n\v\f#") == NULL;
}

/* Make room for `need` hosts: grow host[], subnet[] and adj[] to a new
 * capacity (geometric); the new rows of adj[] are empty lists. */
static int reserve(eco_map *m, int need)
{
    size_t ncap, old = (size_t)m->cap;
    ecoi_adj *adj;
    char **host;
    int *subnet;

    if (need <= m->cap)
        return ECO_OK;
    ncap = old < MIN_CAP ? MIN_CAP : old;
    while (ncap < (size_t)need)
        ncap *= 2;
    if (ncap > INT32_MAX)
        return ECO_ERR_NOMEM;
    host = realloc(m->host, ncap * sizeof *host);
    if (host)
        m->host = host;
    subnet = host ? realloc(m->subnet, ncap * sizeof *subnet) : NULL;
    if (subnet)
        m->subnet = subnet;
    adj = subnet ? realloc(m->adj, ncap * sizeof *adj) : NULL;
    if (!adj)
        return ECO_ERR_NOMEM; /* what was grown stays: cap is the least of them */
    memset(adj + old, 0, (ncap - old) * sizeof *adj);
    m->adj = adj;
    if (ecoi_hops_reserve(&m->hops, old, ncap) != ECO_OK)
        return ECO_ERR_NOMEM;
    m->cap = (int)ncap;
    return ECO_OK;
}

eco_map *eco_map_new(void)
{
    eco_map *m = calloc(1, sizeof *m);

    if (!m)
        return NULL;
    m->threshold = ECO_DEFAULT_THRESHOLD;
    if (reserve(m, MIN_CAP) != ECO_OK) {
        eco_map_free(m);
        return NULL;
    }
    return m;
}

void eco_map_free(eco_map *map)
{
    if (!map)
        return;
    for (int i = 0; i < map->nhosts; i++)
        free(map->host[i]);
    free(map->host);
    for (int i = 0; map->adj && i < map->cap; i++)
        free(map->adj[i].link);
    free(map->adj);
    ecoi_hops_free(&map->hops, map->cap);
    free(map->subnet);
    free(map->degree);
    ecoi_model_free(map->model);
    free(map);
}

eco_map *ecoi_map_new_hosts(const char *const *names, int n)
{
    eco_map *m;

    if (n < 0 || (n > 0 && !names))
        return NULL;
    for (int i = 0; i < n; i++)
        if (!name_ok(names[i]) || (i > 0 && strcmp(names[i - 1], names[i]) >= 0))
            return NULL;
    m = eco_map_new();
    if (!m || reserve(m, n) != ECO_OK) {
        eco_map_free(m);
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        m->host[i] = strdup(names[i]);
        if (!m->host[i]) {
            eco_map_free(m);
            return NULL;
        }
        m->subnet[i] = -1;
        m->nhosts = i + 1;
    }
    return m;
}

/* A name with its place in the caller's order, for sorting once. */
typedef struct named {
    const char *name;
    int id;
} named;

static int cmp_named(const void *x, const void *y)
{
    return strcmp(((const named *)x)->name, ((const named *)y)->name);
}

eco_map *ecoi_map_new_named(const char *const *names, int n, int *rank)
{
    named *byname = malloc(((size_t)n + 1) * sizeof *byname);
    const char **sorted = malloc(((size_t)n + 1) * sizeof *sorted);
    eco_map *map = NULL;

    if (n >= 0 && byname && sorted) {
        for (int i = 0; i < n; i++)
            byname[i] = (named){ names[i], i };
        qsort(byname, (size_t)n, sizeof *byname, cmp_named);
        for (int i = 0; i < n; i++) {
            rank[byname[i].id] = i;
            sorted[i] = byname[i].name;
        }
        map = ecoi_map_new_hosts(sorted, n);
    }
    free(byname);
    free(sorted);
    return map;
}

/* Binary search: the index of name, or -(insertion point) - 1. */
static int search(const eco_map *m, const char *name)
{
    int lo = 0, hi = m->nhosts - 1;

    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        int c = strcmp(m->host[mid], name);
        if (c == 0)
            return mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -lo - 1;
}

/* Host indexes from p up move one up (a host was inserted at p): every
 * list stays ascending.  Nothing to do when the new host is the last. */
static void open_index(eco_map *m, int p)
{
    for (int h = 0; h < m->nhosts; h++)
        for (int i = 0; i < m->adj[h].n; i++)
            if (m->adj[h].link[i].to >= p)
                m->adj[h].link[i].to++;
}

int eco_map_add_host(eco_map *map, const char *name)
{
    char *copy;
    int pos, rc;

    if (!map || !name_ok(name))
        return ECO_ERR_ARG;
    pos = search(map, name);
    if (pos >= 0)
        return pos;
    pos = -pos - 1;
    rc = reserve(map, map->nhosts + 1);
    if (rc != ECO_OK)
        return rc;
    copy = strdup(name);
    if (!copy)
        return ECO_ERR_NOMEM;
    if (pos < map->nhosts)
        open_index(map, pos);
    ecoi_hops_insert_host(&map->hops, map->nhosts, pos);
    memmove(map->adj + pos + 1, map->adj + pos,
            (size_t)(map->nhosts - pos) * sizeof *map->adj);
    memset(&map->adj[pos], 0, sizeof map->adj[pos]);
    memmove(map->host + pos + 1, map->host + pos,
            (size_t)(map->nhosts - pos) * sizeof *map->host);
    memmove(map->subnet + pos + 1, map->subnet + pos,
            (size_t)(map->nhosts - pos) * sizeof *map->subnet);
    map->host[pos] = copy;
    map->subnet[pos] = -1; /* not in a subnet until the next partition */
    map->nhosts++;
    return pos;
}

/* ------------------------------------------------------------------ */
/* Sorted rows (eco_map_impl.h): the lists below are such rows        */
/* ------------------------------------------------------------------ */

int ecoi_rows_key(const void *rows, int i, size_t size)
{
    return *(const int *)((const char *)rows + (size_t)i * size);
}

int ecoi_rows_find(const void *rows, int n, size_t size, int key)
{
    int lo = 0, hi = n - 1;

    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2, k = ecoi_rows_key(rows, mid, size);
        if (k == key)
            return mid;
        if (k < key)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -lo - 1;
}

void *ecoi_rows_reserve(void *rows, int *cap, int need, size_t size)
{
    size_t c = *cap > 0 ? (size_t)*cap : 2;

    if (need <= *cap)
        return rows;
    while (c < (size_t)need)
        c *= 2;
    if (c > INT32_MAX || c > SIZE_MAX / size || !(rows = realloc(rows, c * size)))
        return NULL;
    *cap = (int)c;
    return rows;
}

int ecoi_rows_put(void *rows, int *n, size_t size, const void *fresh)
{
    int i = ecoi_rows_find(rows, *n, size, *(const int *)fresh);
    char *at;

    if (i >= 0)
        return i;
    i = -i - 1;
    at = (char *)rows + (size_t)i * size;
    memmove(at + size, at, (size_t)(*n - i) * size);
    memcpy(at, fresh, size);
    (*n)++;
    return i;
}

void ecoi_rows_remove(void *rows, int *n, int i, size_t size)
{
    char *at = (char *)rows + (size_t)i * size;

    memmove(at, at + size, (size_t)(*n - i - 1) * size);
    (*n)--;
}

/* ------------------------------------------------------------------ */
/* The measured pairs                                                  */
/* ------------------------------------------------------------------ */

/* The index in a's list of the link to b, or -(insertion point) - 1. */
static int find_link(const ecoi_adj *a, int b)
{
    return ecoi_rows_find(a->link, a->n, sizeof *a->link, b);
}

/* The link a -> b, or NULL when the pair has nothing measured. */
static const ecoi_link *get_link(const eco_map *m, int a, int b)
{
    int i;

    if (m->adj[b].n < m->adj[a].n) { /* the shorter list: hubs are long */
        int t = a;
        a = b;
        b = t;
    }
    i = find_link(&m->adj[a], b);
    return i >= 0 ? &m->adj[a].link[i] : NULL;
}

double ecoi_map_cost_ij(const eco_map *m, int a, int b)
{
    const ecoi_link *l;

    if (a == b)
        return 0.0;
    l = get_link(m, a, b);
    return l ? l->cost : -1.0;
}

/* Room for `extra` more links in a's list. */
static int grow_list(ecoi_adj *a, int extra)
{
    ecoi_link *l = ecoi_rows_reserve(a->link, &a->cap, a->n + extra, sizeof *l);

    if (!l)
        return ECO_ERR_NOMEM;
    a->link = l;
    return ECO_OK;
}

/* The link a -> b, inserted (nothing measured) when new; NULL: no memory. */
static ecoi_link *link_at(eco_map *m, int a, int b)
{
    ecoi_adj *x = &m->adj[a];
    ecoi_link fresh = { b, -1.0 };

    if (grow_list(x, 1) != ECO_OK)
        return NULL;
    return &x->link[ecoi_rows_put(x->link, &x->n, sizeof fresh, &fresh)];
}

/* Drop the link a -> b when its cost is not measured any more. */
static void drop_if_empty(eco_map *m, int a, int b)
{
    ecoi_adj *x = &m->adj[a];
    int i = find_link(x, b);

    if (i >= 0 && x->link[i].cost < 0.0)
        ecoi_rows_remove(x->link, &x->n, i, sizeof *x->link);
}

/* Set the pair's cost in both lists (< 0: not measured). */
static int set_pair(eco_map *m, int a, int b, double cost)
{
    ecoi_link *ab, *ba;

    /* both lists have room first, so that neither changes alone */
    if (grow_list(&m->adj[a], 1) != ECO_OK || grow_list(&m->adj[b], 1) != ECO_OK)
        return ECO_ERR_NOMEM;
    ab = link_at(m, a, b);
    ba = link_at(m, b, a);
    ab->cost = ba->cost = cost < 0.0 ? -1.0 : cost;
    drop_if_empty(m, a, b);
    drop_if_empty(m, b, a);
    return ECO_OK;
}

int ecoi_map_set_cost(eco_map *m, int a, int b, double seconds)
{
    if (a == b)
        return ECO_ERR_ARG; /* the diagonal is 0, not stored */
    return set_pair(m, a, b, seconds);
}

size_t ecoi_map_measured_pairs(const eco_map *m)
{
    size_t count = 0;

    for (int a = 0; a < m->nhosts; a++)
        for (int i = 0; i < m->adj[a].n; i++)
            count += m->adj[a].link[i].to > a && m->adj[a].link[i].cost > 0.0;
    return count;
}

/* One direction of a pair, for sorting the pairs of a bulk load. */
typedef struct dlink {
    int from;
    ecoi_link l;
} dlink;

static int cmp_dlink(const void *x, const void *y)
{
    const dlink *p = x, *q = y;

    if (p->from != q->from)
        return p->from < q->from ? -1 : 1;
    return (p->l.to > q->l.to) - (p->l.to < q->l.to);
}

/* Fold link y into x: the cheaper cost. */
static void merge_link(ecoi_link *x, const ecoi_link *y)
{
    if (y->cost > 0.0 && (x->cost < 0.0 || y->cost < x->cost))
        x->cost = y->cost;
}

/* Host h's list merged with the sorted new links d[0..nd-1] into out,
 * equal `to` folded together; the length of out. */
static int merge_list(const ecoi_adj *old, const dlink *d, size_t nd, ecoi_link *out)
{
    int i = 0, len = 0;
    size_t j = 0;

    while (i < old->n || j < nd) {
        const ecoi_link *next;
        if (j >= nd || (i < old->n && old->link[i].to <= d[j].l.to))
            next = &old->link[i++];
        else
            next = &d[j++].l;
        if (len > 0 && out[len - 1].to == next->to)
            merge_link(&out[len - 1], next);
        else
            out[len++] = *next;
    }
    return len;
}

/* The costs of ecoi_map_add_pairs: all lists remade at once. */
static int add_costs(eco_map *m, const ecoi_pair *p, size_t n)
{
    dlink *d;
    ecoi_link **fresh;
    size_t i, j, nd = 0;
    int rc = ECO_OK, k = 0;

    if (n == 0)
        return ECO_OK;
    if (n > SIZE_MAX / 2 / sizeof *d)
        return ECO_ERR_NOMEM;
    if (!(d = malloc(2 * n * sizeof *d)))
        return ECO_ERR_NOMEM;
    for (i = 0; i < n; i++) {
        ecoi_link l = { p[i].b, p[i].cost };
        if (l.cost <= 0.0)
            continue; /* no cost measured */
        d[nd].from = p[i].a;
        d[nd++].l = l;
        l.to = p[i].a;
        d[nd].from = p[i].b;
        d[nd++].l = l;
    }
    qsort(d, nd, sizeof *d, cmp_dlink);
    /* the new lists first, installed only when every one was made */
    fresh = calloc((size_t)m->nhosts + 1, sizeof *fresh);
    for (i = 0; fresh && i < nd; i = j) {
        int h = d[i].from;
        for (j = i; j < nd && d[j].from == h; j++)
            ;
        if (!(fresh[h] = malloc(((size_t)m->adj[h].n + (j - i)) * sizeof **fresh))) {
            rc = ECO_ERR_NOMEM;
            break;
        }
    }
    if (!fresh)
        rc = ECO_ERR_NOMEM;
    for (i = 0; rc == ECO_OK && i < nd; i = j) {
        int h = d[i].from;
        for (j = i; j < nd && d[j].from == h; j++)
            ;
        k = merge_list(&m->adj[h], d + i, j - i, fresh[h]);
        free(m->adj[h].link);
        m->adj[h].link = fresh[h];
        m->adj[h].cap = m->adj[h].n + (int)(j - i);
        m->adj[h].n = k;
        fresh[h] = NULL;
    }
    for (int h = 0; fresh && h < m->nhosts; h++)
        free(fresh[h]);
    free(fresh);
    free(d);
    return rc;
}

/* Pairs by lower host, then higher. */
static int cmp_pair(const void *x, const void *y)
{
    const ecoi_pair *p = x, *q = y;

    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    return (p->b > q->b) - (p->b < q->b);
}

/* The hops of ecoi_map_add_pairs, in (lower, higher) order: each new
 * exception goes at the end of both hosts' lists. */
static int add_hops(eco_map *m, const ecoi_pair *p, size_t n)
{
    ecoi_pair *q;
    size_t k = 0;
    int rc = ECO_OK;

    for (size_t i = 0; i < n; i++)
        k += p[i].hops >= 0;
    if (k == 0)
        return ECO_OK;
    if (!(q = malloc(k * sizeof *q)))
        return ECO_ERR_NOMEM;
    k = 0;
    for (size_t i = 0; i < n; i++)
        if (p[i].hops >= 0)
            q[k++] = (ecoi_pair){ p[i].a < p[i].b ? p[i].a : p[i].b,
                                  p[i].a < p[i].b ? p[i].b : p[i].a, p[i].hops, -1.0 };
    qsort(q, k, sizeof *q, cmp_pair);
    for (size_t i = 0; i < k && rc == ECO_OK; i++)
        if (q[i].hops > ecoi_map_hops_ij(m, q[i].a, q[i].b))
            rc = ecoi_map_set_hops(m, q[i].a, q[i].b, q[i].hops);
    free(q);
    return rc;
}

int ecoi_map_add_pairs(eco_map *m, const ecoi_pair *p, size_t n)
{
    int rc = add_costs(m, p, n);

    return rc == ECO_OK ? add_hops(m, p, n) : rc;
}

/* The indexes of two distinct valid names, added when new. */
static int pair_of(eco_map *map, const char *a, const char *b, int *ia, int *ib)
{
    if (!map || !name_ok(a) || !name_ok(b) || strcmp(a, b) == 0)
        return ECO_ERR_ARG;
    *ia = eco_map_add_host(map, a);
    if (*ia < 0)
        return *ia;
    *ib = eco_map_add_host(map, b);
    if (*ib < 0)
        return *ib;
    *ia = search(map, a); /* adding b may have moved a */
    return ECO_OK;
}

int eco_map_add_cost(eco_map *map, const char *a, const char *b, double seconds)
{
    double old;
    int ia, ib, rc;

    if (!isfinite(seconds) || seconds <= 0.0)
        return ECO_ERR_ARG;
    if ((rc = pair_of(map, a, b, &ia, &ib)) != ECO_OK)
        return rc;
    old = ecoi_map_cost_ij(map, ia, ib);
    if (old < 0.0 || seconds < old)
        return set_pair(map, ia, ib, seconds);
    return ECO_OK;
}

int eco_map_add_hops(eco_map *map, const char *a, const char *b, int hops)
{
    int ia, ib, rc;

    if (hops < 0 || hops > ECO_MAX_HOPS)
        return ECO_ERR_ARG;
    if ((rc = pair_of(map, a, b, &ia, &ib)) != ECO_OK)
        return rc;
    if (ecoi_map_hops_ij(map, ia, ib) < hops) /* the longer way of the two directions */
        return ecoi_map_set_hops(map, ia, ib, hops);
    return ECO_OK;
}

/* ------------------------------------------------------------------ */
/* Accessors                                                           */
/* ------------------------------------------------------------------ */

static int host_ok(const eco_map *m, int h)
{
    return m && h >= 0 && h < m->nhosts;
}

static int subnet_ok(const eco_map *m, int s)
{
    return m && s >= 0 && s < m->nsubnets;
}

int eco_map_nhosts(const eco_map *map)
{
    return map ? map->nhosts : ECO_ERR_ARG;
}

const char *eco_map_host(const eco_map *map, int host)
{
    return host_ok(map, host) ? map->host[host] : NULL;
}

int eco_map_find_host(const eco_map *map, const char *name)
{
    int i;

    if (!map || !name)
        return ECO_ERR_ARG;
    i = search(map, name);
    return i >= 0 ? i : ECO_ERR_NOTFOUND;
}

double eco_map_cost(const eco_map *map, int a, int b)
{
    if (!host_ok(map, a) || !host_ok(map, b))
        return -1.0;
    return ecoi_map_cost_ij(map, a, b);
}

int eco_map_hops(const eco_map *map, int a, int b)
{
    if (!host_ok(map, a) || !host_ok(map, b))
        return ECO_ERR_ARG;
    if (a == b)
        return 0;
    return ecoi_map_hops_ij(map, a, b) >= 0 ? ecoi_map_hops_ij(map, a, b) : ECO_ERR_NOTFOUND;
}

double eco_map_threshold(const eco_map *map)
{
    return map ? map->threshold : (double)ECO_ERR_ARG;
}

int eco_map_nsubnets(const eco_map *map)
{
    return map ? map->nsubnets : ECO_ERR_ARG;
}

int eco_map_subnet_of(const eco_map *map, int host)
{
    if (!host_ok(map, host))
        return ECO_ERR_ARG;
    /* a host added after the last partition belongs to no subnet */
    return map->subnet[host] >= 0 ? map->subnet[host] : ECO_ERR_NOTFOUND;
}

int eco_map_subnet_size(const eco_map *map, int subnet)
{
    int count = 0;

    if (!subnet_ok(map, subnet))
        return ECO_ERR_ARG;
    for (int h = 0; h < map->nhosts; h++)
        count += map->subnet[h] == subnet;
    return count;
}

int eco_map_subnet_host(const eco_map *map, int subnet, int i)
{
    if (!subnet_ok(map, subnet) || i < 0)
        return ECO_ERR_ARG;
    for (int h = 0; h < map->nhosts; h++)
        if (map->subnet[h] == subnet && i-- == 0)
            return h;
    return ECO_ERR_ARG;
}

int eco_map_degree(const eco_map *map, int subnet)
{
    return subnet_ok(map, subnet) ? map->degree[subnet] : ECO_ERR_ARG;
}

int eco_map_set_degree(eco_map *map, int subnet, int k)
{
    if (!subnet_ok(map, subnet) || k < 1 || k > ECO_MAX_DEGREE)
        return ECO_ERR_ARG;
    map->degree[subnet] = k;
    return ECO_OK;
}

/* ------------------------------------------------------------------ */
/* Canonical subnet numbering                                          */
/* ------------------------------------------------------------------ */

int ecoi_map_canonicalize_subnets(eco_map *m)
{
    int *newid, *deg, next = 0, bad = 0;

    if (!m || m->nsubnets < 0 || (m->nsubnets > 0 && !m->degree))
        return ECO_ERR_ARG;
    if (m->nsubnets == 0)
        return ECO_OK;
    newid = malloc((size_t)m->nsubnets * sizeof *newid);
    deg = malloc((size_t)m->nsubnets * sizeof *deg);
    if (!newid || !deg) {
        free(newid);
        free(deg);
        return ECO_ERR_NOMEM;
    }
    for (int s = 0; s < m->nsubnets; s++)
        newid[s] = -1;
    /* number the subnets in the order of their lowest host */
    for (int h = 0; h < m->nhosts; h++) {
        int s = m->subnet[h];
        if (s >= m->nsubnets)
            bad = 1;
        else if (s >= 0 && newid[s] < 0)
            newid[s] = next++;
    }
    if (bad || next != m->nsubnets) { /* an ID out of range, or an empty subnet */
        free(newid);
        free(deg);
        return ECO_ERR_ARG;
    }
    /* the model first: it is the only step that can fail */
    if (m->model && (m->model->nsubnets != m->nsubnets ||
                     ecoi_model_renumber(m->model, newid) != ECO_OK)) {
        int rc = m->model->nsubnets != m->nsubnets ? ECO_ERR_ARG : ECO_ERR_NOMEM;
        free(newid);
        free(deg);
        return rc;
    }
    for (int s = 0; s < m->nsubnets; s++)
        deg[newid[s]] = m->degree[s];
    for (int h = 0; h < m->nhosts; h++)
        m->subnet[h] = m->subnet[h] >= 0 ? newid[m->subnet[h]] : -1;
    free(m->degree);
    m->degree = deg;
    free(newid);
    return ECO_OK;
}

/* Subnets given whole (eco_init's members, the compatibility layer). */
int ecoi_map_set_subnets(eco_map *m, int nsubnets, const int *subnet, const int *degree)
{
    int *deg;

    if (!m || nsubnets < 0 || (m->nhosts > 0 && !subnet) || (nsubnets > 0 && !degree))
        return ECO_ERR_ARG;
    if (!(deg = malloc(((size_t)nsubnets + 1) * sizeof *deg)))
        return ECO_ERR_NOMEM;
    if (nsubnets > 0)
        memcpy(deg, degree, (size_t)nsubnets * sizeof *deg);
    free(m->degree);
    m->degree = deg;
    if (m->nhosts > 0)
        memcpy(m->subnet, subnet, (size_t)m->nhosts * sizeof *m->subnet);
    m->nsubnets = nsubnets;
    return ecoi_map_canonicalize_subnets(m);
}
