/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * map.c -- the network map: hosts sorted by name, a symmetric cost matrix,
 * the routers between pairs (hops), and the subnets with their per-subnet
 * parameters.
 *
 * Storage (see eco_map_impl.h): host[], subnet[] have `cap` rows and the
 * cost and hop matrices are cap x cap, row-major.  Inserting a host keeps
 * host[] sorted, so the rows and columns after the insertion point move by one.
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

/* A ncap x ncap matrix of -1 (unmeasured) with 0 on the diagonal, holding
 * the first n rows and columns of old (old_cap wide); NULL: no memory. */
static double *grown_matrix(const double *old, size_t old_cap, size_t n, size_t ncap)
{
    double *c = malloc(ncap * ncap * sizeof *c);

    if (!c)
        return NULL;
    for (size_t i = 0; i < ncap * ncap; i++)
        c[i] = -1.0;
    for (size_t i = 0; i < ncap; i++)
        c[i * ncap + i] = 0.0;
    for (size_t r = 0; r < n; r++)
        memcpy(c + r * ncap, old + r * old_cap, n * sizeof *c);
    return c;
}

/* Make room for `need` hosts: grow host[], subnet[] and the matrices to a
 * new capacity (geometric), keeping every entry at its (row, col). */
static int reserve(eco_map *m, int need)
{
    size_t ncap, old = (size_t)m->cap, n = (size_t)m->nhosts;
    double *cost, *hops;
    char **host;
    int *subnet;

    if (need <= m->cap)
        return ECO_OK;
    ncap = old < MIN_CAP ? MIN_CAP : old;
    while (ncap < (size_t)need)
        ncap *= 2;
    if (ncap > INT32_MAX || ncap > SIZE_MAX / sizeof(double) / ncap)
        return ECO_ERR_NOMEM;
    cost = grown_matrix(m->cost, old, n, ncap);
    hops = grown_matrix(m->hops, old, n, ncap);
    if (!cost || !hops) {
        free(cost);
        free(hops);
        return ECO_ERR_NOMEM;
    }
    host = realloc(m->host, ncap * sizeof *host);
    if (host)
        m->host = host;
    subnet = host ? realloc(m->subnet, ncap * sizeof *subnet) : NULL;
    if (subnet)
        m->subnet = subnet;
    if (!host || !subnet) {
        free(cost);
        free(hops);
        return ECO_ERR_NOMEM;
    }
    free(m->cost);
    free(m->hops);
    m->cost = cost;
    m->hops = hops;
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
    free(map->cost);
    free(map->hops);
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

/*
 * Open row and column `pos` of a matrix for a new host (nhosts grows by
 * one).  Entries move to higher addresses only, so walking rows from the
 * last down, and within a row the right part before the left, never reads
 * an entry that was already overwritten.
 */
static void open_matrix(double *c, size_t cap, size_t n, size_t p)
{
    for (size_t r = n; r-- > 0;) {
        size_t src;
        if (r == p)
            continue;
        src = r < p ? r : r - 1;
        memmove(c + r * cap + p + 1, c + src * cap + p, (n - 1 - p) * sizeof *c);
        if (r != src)
            memmove(c + r * cap, c + src * cap, p * sizeof *c);
    }
    for (size_t i = 0; i < n; i++) {
        c[p * cap + i] = -1.0;
        c[i * cap + p] = -1.0;
    }
    c[p * cap + p] = 0.0;
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
    open_matrix(map->cost, (size_t)map->cap, (size_t)map->nhosts + 1, (size_t)pos);
    open_matrix(map->hops, (size_t)map->cap, (size_t)map->nhosts + 1, (size_t)pos);
    memmove(map->host + pos + 1, map->host + pos,
            (size_t)(map->nhosts - pos) * sizeof *map->host);
    memmove(map->subnet + pos + 1, map->subnet + pos,
            (size_t)(map->nhosts - pos) * sizeof *map->subnet);
    map->host[pos] = copy;
    map->subnet[pos] = -1; /* not in a subnet until the next partition */
    map->nhosts++;
    return pos;
}

/* The indexes of two distinct valid names, added when new. */
static int pair_of(eco_map *map, const char *a, const char *b, size_t *ab, size_t *ba)
{
    int ia, ib;

    if (!map || !name_ok(a) || !name_ok(b) || strcmp(a, b) == 0)
        return ECO_ERR_ARG;
    ia = eco_map_add_host(map, a);
    if (ia < 0)
        return ia;
    ib = eco_map_add_host(map, b);
    if (ib < 0)
        return ib;
    ia = search(map, a); /* adding b may have moved a */
    *ab = (size_t)ia * (size_t)map->cap + (size_t)ib;
    *ba = (size_t)ib * (size_t)map->cap + (size_t)ia;
    return ECO_OK;
}

int eco_map_add_cost(eco_map *map, const char *a, const char *b, double seconds)
{
    size_t ab, ba;
    int rc;

    if (!isfinite(seconds) || seconds <= 0.0)
        return ECO_ERR_ARG;
    if ((rc = pair_of(map, a, b, &ab, &ba)) != ECO_OK)
        return rc;
    if (map->cost[ab] < 0.0 || seconds < map->cost[ab])
        map->cost[ab] = map->cost[ba] = seconds;
    return ECO_OK;
}

int eco_map_add_hops(eco_map *map, const char *a, const char *b, int hops)
{
    size_t ab, ba;
    int rc;

    if (hops < 0 || hops > ECO_MAX_HOPS)
        return ECO_ERR_ARG;
    if ((rc = pair_of(map, a, b, &ab, &ba)) != ECO_OK)
        return rc;
    if (map->hops[ab] < (double)hops) /* the longer way of the two directions */
        map->hops[ab] = map->hops[ba] = hops;
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

int ecoi_map_has_hops(const eco_map *m)
{
    for (int a = 0; a < m->nhosts; a++)
        for (int b = a + 1; b < m->nhosts; b++)
            if (ecoi_map_hops_ij(m, a, b) >= 0)
                return 1;
    return 0;
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
