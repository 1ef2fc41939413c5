/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hops.c -- the routers between the hosts of a map: hop classes, the
 * table between them and the pairs that are exceptions (eco_map_impl.h,
 * ecoi_hops).  Lookups, exact and "the longer way" updates, the builder
 * eco-characterize's result and the compaction go through, and the walk
 * the partition needs (the hosts at 0 hops from one).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "eco_map_impl.h"

size_t ecoi_hops_tri(int ncls, int c, int d)
{
    size_t lo = (size_t)(c < d ? c : d), hi = (size_t)(c < d ? d : c);

    /* row lo starts after the rows 0..lo-1 of ncls, ncls-1, ... entries */
    return lo * (size_t)ncls - lo * (lo - 1) / 2 + (hi - lo);
}

int ecoi_hops_by_class(const ecoi_hops *h, int a, int b)
{
    int c = h->cls[a], d = h->cls[b];

    return c >= 0 && d >= 0 ? h->table[ecoi_hops_tri(h->ncls, c, d)] : -1;
}

/* The index of b in a's exceptions, or -(insertion point) - 1. */
static int find_exc(const ecoi_hops *h, int a, int b)
{
    return ecoi_rows_find(h->exc[a].row, h->exc[a].n, sizeof(ecoi_hop), b);
}

int ecoi_map_hops_ij(const eco_map *m, int a, int b)
{
    const ecoi_hops *h = &m->hops;
    int x = a, y = b, i;

    if (a == b)
        return 0;
    if (h->exc[b].n < h->exc[a].n) { /* the shorter list */
        x = b;
        y = a;
    }
    i = h->exc[x].n ? find_exc(h, x, y) : -1;
    return i >= 0 ? h->exc[x].row[i].hops : ecoi_hops_by_class(h, a, b);
}

/* a's exception for b: hops, put (or replaced) in place. */
static int put_exc(ecoi_hops *h, int a, int b, int hops)
{
    ecoi_hop_list *l = &h->exc[a];
    ecoi_hop fresh = { b, hops };
    ecoi_hop *row = ecoi_rows_reserve(l->row, &l->cap, l->n + 1, sizeof fresh);

    if (!row)
        return ECO_ERR_NOMEM;
    l->row = row;
    row[ecoi_rows_put(row, &l->n, sizeof fresh, &fresh)].hops = hops;
    return ECO_OK;
}

int ecoi_map_set_hops(eco_map *m, int a, int b, int hops)
{
    ecoi_hops *h = &m->hops;
    int i = find_exc(h, a, b), j = find_exc(h, b, a);
    ecoi_hop_list *la = &h->exc[a], *lb = &h->exc[b];

    if (hops < 0)
        hops = -1;
    if (hops == ecoi_hops_by_class(h, a, b)) { /* the classes say it: no exception */
        if (i >= 0) {
            ecoi_rows_remove(la->row, &la->n, i, sizeof *la->row);
            ecoi_rows_remove(lb->row, &lb->n, j, sizeof *lb->row);
            h->nexc--;
        }
        return ECO_OK;
    }
    /* both lists have room first, so that neither changes alone */
    for (ecoi_hop_list *l = la; l; l = l == la ? lb : NULL) {
        ecoi_hop *row = ecoi_rows_reserve(l->row, &l->cap, l->n + 1, sizeof *row);
        if (!row)
            return ECO_ERR_NOMEM;
        l->row = row;
    }
    h->nexc += i < 0;
    put_exc(h, a, b, hops);
    put_exc(h, b, a, hops);
    return ECO_OK;
}

/* Does a cell of the table give hops? */
static int table_known(const ecoi_hops *h)
{
    size_t cells = (size_t)h->ncls * (size_t)(h->ncls + 1) / 2;

    for (size_t t = 0; t < cells; t++)
        if (h->table[t] >= 0)
            return 1;
    return 0;
}

int ecoi_map_has_hops(const eco_map *m)
{
    const ecoi_hops *h = &m->hops;

    if (table_known(h))
        return 1;
    for (int a = 0; a < m->nhosts; a++)
        for (int i = 0; i < h->exc[a].n; i++)
            if (h->exc[a].row[i].hops >= 0)
                return 1;
    return 0;
}

/* ------------------------------------------------------------------ */
/* Storage, for map.c                                                  */
/* ------------------------------------------------------------------ */

int ecoi_hops_reserve(ecoi_hops *h, size_t old, size_t ncap)
{
    int *cls = realloc(h->cls, ncap * sizeof *cls);
    ecoi_hop_list *exc;

    if (!cls)
        return ECO_ERR_NOMEM;
    h->cls = cls;
    if (!(exc = realloc(h->exc, ncap * sizeof *exc)))
        return ECO_ERR_NOMEM;
    h->exc = exc;
    for (size_t i = old; i < ncap; i++)
        cls[i] = -1;
    memset(exc + old, 0, (ncap - old) * sizeof *exc);
    return ECO_OK;
}

void ecoi_hops_insert_host(ecoi_hops *h, int nhosts, int p)
{
    for (int a = 0; p < nhosts && a < nhosts; a++) /* nothing moves after the last */
        for (int i = 0; i < h->exc[a].n; i++)
            h->exc[a].row[i].to += h->exc[a].row[i].to >= p;
    memmove(h->cls + p + 1, h->cls + p, (size_t)(nhosts - p) * sizeof *h->cls);
    memmove(h->exc + p + 1, h->exc + p, (size_t)(nhosts - p) * sizeof *h->exc);
    h->cls[p] = -1; /* in no class: its pairs unknown until given */
    memset(&h->exc[p], 0, sizeof h->exc[p]);
}

void ecoi_hops_free(ecoi_hops *h, int cap)
{
    for (int a = 0; h->exc && a < cap; a++)
        free(h->exc[a].row);
    free(h->exc);
    free(h->cls);
    free(h->table);
    memset(h, 0, sizeof *h);
}

/* ------------------------------------------------------------------ */
/* The builder                                                         */
/* ------------------------------------------------------------------ */

/* Classes: host a, the first without one, starts a class, and every
 * later host at 0 hops from it and from the class's second host joins
 * (one odd route at 0 hops does not move a host to another segment's
 * class).  O(n x classes) calls of get. */
static int make_classes(int n, int *cls, int (*get)(void *, int, int), void *arg, int *known)
{
    int ncls = 0;

    *known = 0;
    for (int a = 0; a < n; a++)
        cls[a] = -1;
    for (int a = 0; a < n; a++) {
        int second = -1;
        if (cls[a] >= 0)
            continue;
        cls[a] = ncls;
        for (int b = a + 1; b < n; b++) {
            int v = cls[b] < 0 ? get(arg, a, b) : -1;
            *known |= v >= 0;
            if (v == 0 && (second < 0 || get(arg, second, b) == 0)) {
                cls[b] = ncls;
                second = second < 0 ? b : second;
            }
        }
        ncls++;
    }
    return ncls;
}

/* The table: for each pair of classes the hops most of its pairs have
 * (Boyer and Moore's majority vote, one pass, a candidate and a count a
 * cell; the count saturates at SHRT_MAX: a cell decided by 32,767 votes
 * more stays, and any value is right, the exceptions say the rest); -1
 * for a class of one host with itself (no pair). */
static int make_table(int n, ecoi_hops *h, int (*get)(void *, int, int), void *arg)
{
    size_t cells = (size_t)h->ncls * (size_t)(h->ncls + 1) / 2;
    short *votes = calloc(cells + 1, sizeof *votes);

    if (!votes || !(h->table = malloc((cells + 1) * sizeof *h->table))) {
        free(votes);
        return ECO_ERR_NOMEM;
    }
    for (size_t t = 0; t < cells; t++)
        h->table[t] = -1;
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
            size_t t = ecoi_hops_tri(h->ncls, h->cls[a], h->cls[b]);
            int v = get(arg, a, b);
            if (votes[t] == 0)
                h->table[t] = (short)v;
            if (h->table[t] != v)
                votes[t]--;
            else if (votes[t] < SHRT_MAX)
                votes[t]++;
        }
    free(votes);
    return ECO_OK;
}

/* The pairs unlike their classes, appended in (a, b) order to both
 * hosts' lists (each stays ascending). */
static int make_exceptions(int n, ecoi_hops *h, int (*get)(void *, int, int), void *arg)
{
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
            int v = get(arg, a, b);
            if (v == ecoi_hops_by_class(h, a, b))
                continue;
            if (put_exc(h, a, b, v) != ECO_OK || put_exc(h, b, a, v) != ECO_OK)
                return ECO_ERR_NOMEM;
            h->nexc++;
        }
    return ECO_OK;
}

int ecoi_map_build_hops(eco_map *m, int (*get)(void *arg, int a, int b), void *arg)
{
    ecoi_hops h;
    int n = m->nhosts, rc;

    memset(&h, 0, sizeof h);
    rc = ecoi_hops_reserve(&h, 0, (size_t)m->cap);
    if (rc == ECO_OK) {
        int known;
        h.ncls = make_classes(n, h.cls, get, arg, &known);
        /* nothing known (every datagram lost: a class per host), or too
         * many classes for a table: every known pair an exception */
        if (!known || h.ncls > ECOI_HOPS_MAX_CLASSES) {
            h.ncls = 0;
            for (int a = 0; a < n; a++)
                h.cls[a] = -1;
        } else {
            rc = make_table(n, &h, get, arg);
        }
    }
    if (rc == ECO_OK)
        rc = make_exceptions(n, &h, get, arg);
    if (rc != ECO_OK) {
        ecoi_hops_free(&h, m->cap);
        return rc;
    }
    if (h.nexc == 0 && !table_known(&h)) { /* nothing known: no classes either */
        free(h.table);
        h.table = NULL;
        h.ncls = 0;
        for (int a = 0; a < n; a++)
            h.cls[a] = -1;
    }
    ecoi_hops_free(&m->hops, m->cap);
    m->hops = h;
    return ECO_OK;
}

/* ------------------------------------------------------------------ */
/* The walk of the partition                                           */
/* ------------------------------------------------------------------ */

void ecoi_group_lists(int n, const int *group, int ngroups, int *first, int *next)
{
    for (int g = 0; g < ngroups; g++)
        first[g] = -1;
    for (int h = n - 1; h >= 0; h--) { /* lists end up ascending */
        int g = group[h];
        next[h] = g >= 0 ? first[g] : -1;
        if (g >= 0)
            first[g] = h;
    }
}

void ecoi_hops_members(const eco_map *m, int *first, int *next)
{
    ecoi_group_lists(m->nhosts, m->hops.cls, m->hops.ncls, first, next);
}

int ecoi_map_zero_hops(const eco_map *m, const int *first, const int *next, int a, int *out)
{
    const ecoi_hops *h = &m->hops;
    int count = 0, ca = h->cls[a];

    /* the members of the classes at 0 hops from a's, but for exceptions */
    for (int c = 0; ca >= 0 && c < h->ncls; c++)
        if (h->table[ecoi_hops_tri(h->ncls, ca, c)] == 0)
            for (int b = first[c]; b >= 0; b = next[b])
                if (b != a && (h->exc[a].n == 0 || find_exc(h, a, b) < 0))
                    out[count++] = b;
    /* the exceptions at 0 hops */
    for (int i = 0; i < h->exc[a].n; i++)
        if (h->exc[a].row[i].hops == 0)
            out[count++] = h->exc[a].row[i].to;
    return count;
}

/* ------------------------------------------------------------------ */
/* A part of the hops: what eco_init's boot message carries           */
/* ------------------------------------------------------------------ */

void ecoi_hops_part_free(ecoi_hops_part *p)
{
    free(p->cls);
    free(p->table);
    free(p->exc);
    memset(p, 0, sizeof *p);
}

/* Room for one more exception in p (cap: its room now). */
static int part_room(ecoi_hops_part *p, size_t *cap)
{
    size_t ncap;
    int *e;

    if ((size_t)p->nexc < *cap)
        return ECO_OK;
    ncap = *cap ? 2 * *cap : 16;
    if (!(e = realloc(p->exc, 3 * ncap * sizeof *e)))
        return ECO_ERR_NOMEM;
    p->exc = e;
    *cap = ncap;
    return ECO_OK;
}

/* The table among out's classes (old[c]: the map's class of out's c). */
static void part_table(const ecoi_hops *h, const int *old, ecoi_hops_part *out)
{
    for (int c = 0; c < out->ncls; c++)
        for (int d = c; d < out->ncls; d++)
            out->table[ecoi_hops_tri(out->ncls, c, d)] =
                h->table[ecoi_hops_tri(h->ncls, old[c], old[d])];
}

int *ecoi_file_members(const eco_map *map, const int *fh, int nh)
{
    int *mine = malloc(((size_t)map->nhosts + 1) * sizeof *mine);

    for (int f = 0; mine && f < map->nhosts; f++)
        mine[f] = -1;
    for (int x = 0; mine && x < nh; x++)
        if (fh[x] >= 0)
            mine[fh[x]] = x;
    return mine;
}

int ecoi_hops_part_of(const eco_map *map, const int *fh, const int *mine, int nh,
                      ecoi_hops_part *out)
{
    const ecoi_hops *h = &map->hops;
    int *renum = malloc(((size_t)h->ncls + 1) * sizeof *renum);
    int *old = malloc(((size_t)nh + 1) * sizeof *old), rc = ECO_OK;
    size_t cap = 0;

    memset(out, 0, sizeof *out);
    out->nh = nh;
    out->cls = malloc(((size_t)nh + 1) * sizeof *out->cls);
    if (!renum || !old || !out->cls)
        rc = ECO_ERR_NOMEM;
    for (int c = 0; c < h->ncls && rc == ECO_OK; c++)
        renum[c] = -1;
    for (int x = 0; x < nh && rc == ECO_OK; x++) {
        const int c = fh[x] >= 0 ? h->cls[fh[x]] : -1;
        if (c >= 0 && renum[c] < 0) {
            old[out->ncls] = c;
            renum[c] = out->ncls++;
        }
        out->cls[x] = c >= 0 ? renum[c] : -1;
    }
    if (rc == ECO_OK &&
        !(out->table = malloc(((size_t)out->ncls * (out->ncls + 1) / 2 + 1) * sizeof *out->table)))
        rc = ECO_ERR_NOMEM;
    if (rc == ECO_OK)
        part_table(h, old, out);
    /* each pair is in both its hosts' lists: taken from the first's */
    for (int a = 0; a < nh && rc == ECO_OK; a++)
        for (int i = 0; fh[a] >= 0 && i < h->exc[fh[a]].n && rc == ECO_OK; i++) {
            const ecoi_hop *e = &h->exc[fh[a]].row[i];
            const int b = mine[e->to];
            if (b <= a || (rc = part_room(out, &cap)) != ECO_OK)
                continue;
            out->exc[3 * out->nexc] = a;
            out->exc[3 * out->nexc + 1] = b;
            out->exc[3 * out->nexc++ + 2] = e->hops;
        }
    free(renum);
    free(old);
    if (rc != ECO_OK)
        ecoi_hops_part_free(out);
    return rc;
}

int ecoi_hops_part_valid(const ecoi_hops_part *p)
{
    const size_t cells = (size_t)p->ncls * (p->ncls + 1) / 2;

    if (p->nh < 1 || p->ncls < 0 || p->ncls > p->nh || p->ncls > ECOI_HOPS_MAX_CLASSES ||
        p->nexc < 0)
        return 0;
    for (int x = 0; x < p->nh && p->ncls > 0; x++)
        if (p->cls[x] < -1 || p->cls[x] >= p->ncls)
            return 0;
    for (size_t t = 0; t < cells; t++)
        if (p->table[t] < -1 || p->table[t] > SHRT_MAX)
            return 0;
    for (int i = 0; i < p->nexc; i++)
        if (p->exc[3 * i] < 0 || p->exc[3 * i] >= p->exc[3 * i + 1] ||
            p->exc[3 * i + 1] >= p->nh || p->exc[3 * i + 2] < -1 ||
            p->exc[3 * i + 2] > SHRT_MAX)
            return 0;
    return 1;
}

int ecoi_map_put_hops(eco_map *m, const ecoi_hops_part *p)
{
    ecoi_hops *h = &m->hops;
    const size_t cells = (size_t)p->ncls * (p->ncls + 1) / 2;
    int rc = ECO_OK;

    if (m->nhosts != p->nh || h->ncls > 0)
        return ECO_ERR_ARG;
    if (p->ncls > 0) {
        if (!(h->table = malloc((cells + 1) * sizeof *h->table)))
            return ECO_ERR_NOMEM;
        for (size_t t = 0; t < cells; t++)
            h->table[t] = (short)p->table[t];
        for (int x = 0; x < p->nh; x++)
            h->cls[x] = p->cls[x];
        h->ncls = p->ncls;
    }
    for (int i = 0; i < p->nexc && rc == ECO_OK; i++)
        rc = ecoi_map_set_hops(m, p->exc[3 * i], p->exc[3 * i + 1], p->exc[3 * i + 2]);
    return rc;
}
