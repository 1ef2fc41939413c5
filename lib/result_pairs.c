/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * result_pairs.c -- what eco-characterize's result knows of each pair
 * (eco_char.h): its samples when measured, the routers between its hosts
 * when counted, and nothing for the others.  Host a's lists hold its
 * pairs with the hosts b > a, each pair once, as sorted rows keyed by b
 * (eco_map_impl.h, the functions of the map's lists): a lookup is a
 * binary search in the lower host's list, and a host's pairs in order
 * are its lists in order.  The samples and the hops are two lists: the
 * hops are counted for every pair, the samples in the sparse mode for a
 * few a host, and a pair with hops only takes 8 bytes.
 *
 * In libecocore beside the matrix writer (costs.c), which reads them.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "eco_char.h"
#include "eco_map_impl.h" /* ecoi_rows_* */

typedef struct pair_rows {
    void *row;
    int n, cap;
} pair_rows;

enum { SAMPLES, HOPS };

struct ecoc_pairs {
    pair_rows list[2];   /* [SAMPLES] stat_row, [HOPS] hops_row */
};

typedef struct stat_row {
    int to;
    ecoc_stat st;
} stat_row;

typedef struct hops_row {
    int to;
    int hops;
} hops_row;

static const size_t row_size[2] = { sizeof(stat_row), sizeof(hops_row) };

static int pair_ok(const ecoc_result *r, int a, int b)
{
    return a != b && a >= 0 && b >= 0 && a < r->n && b < r->n;
}

/* Pair a-b's row of list k, NULL when none. */
static const void *row_of(const ecoc_result *r, int a, int b, int k)
{
    const pair_rows *l;
    int i;

    if (!r->pairs || !pair_ok(r, a, b))
        return NULL;
    l = &r->pairs[a < b ? a : b].list[k];
    i = ecoi_rows_find(l->row, l->n, row_size[k], a < b ? b : a);
    return i >= 0 ? (const char *)l->row + (size_t)i * row_size[k] : NULL;
}

const ecoc_stat *ecoc_pair(const ecoc_result *r, int a, int b)
{
    const stat_row *s = row_of(r, a, b, SAMPLES);

    return s ? &s->st : NULL;
}

int ecoc_hops(const ecoc_result *r, int a, int b)
{
    const hops_row *h;

    if (a == b)
        return 0;
    h = r->hops_counted ? row_of(r, a, b, HOPS) : NULL;
    return h ? h->hops : -1;
}

int ecoc_next(const ecoc_result *r, int a, int b)
{
    int next = r->n, lists = r->hops_counted ? 2 : 1;

    for (int k = 0; r->pairs && a >= 0 && a < r->n && k < lists; k++) {
        const pair_rows *l = &r->pairs[a].list[k];
        int i = ecoi_rows_find(l->row, l->n, row_size[k], b + 1);
        if (i < 0)
            i = -i - 1;
        if (i < l->n && ecoi_rows_key(l->row, i, row_size[k]) < next)
            next = ecoi_rows_key(l->row, i, row_size[k]);
    }
    return next;
}

/* Keep row in list k of pair a-b's lower host, in place of the pair's
 * row there; its key (the higher host) is set here. */
static int keep(ecoc_result *r, int a, int b, int k, void *row)
{
    pair_rows *l;
    void *grown;
    int i;

    if (!pair_ok(r, a, b))
        return ECO_ERR_ARG;
    if (!r->pairs && !(r->pairs = calloc((size_t)r->n, sizeof *r->pairs)))
        return ECO_ERR_NOMEM;
    l = &r->pairs[a < b ? a : b].list[k];
    *(int *)row = a < b ? b : a;
    if (!(grown = ecoi_rows_reserve(l->row, &l->cap, l->n + 1, row_size[k])))
        return ECO_ERR_NOMEM;
    l->row = grown;
    i = ecoi_rows_put(l->row, &l->n, row_size[k], row);
    memcpy((char *)l->row + (size_t)i * row_size[k], row, row_size[k]);
    return ECO_OK;
}

int ecoc_set_pair(ecoc_result *r, int a, int b, const ecoc_stat *st)
{
    stat_row s;

    if (!st || st->n <= 0)
        return ECO_ERR_ARG;
    s.st = *st;
    return keep(r, a, b, SAMPLES, &s);
}

int ecoc_set_hops(ecoc_result *r, int a, int b, int hops)
{
    hops_row h = { 0, hops };

    return hops < 0 ? ECO_ERR_ARG : keep(r, a, b, HOPS, &h);
}

size_t ecoc_pair_bytes(const ecoc_result *r)
{
    size_t bytes = r->pairs ? (size_t)r->n * sizeof *r->pairs : 0;

    for (int a = 0; r->pairs && a < r->n; a++)
        for (int k = 0; k < 2; k++)
            bytes += (size_t)r->pairs[a].list[k].cap * row_size[k];
    return bytes;
}

void ecoc_pairs_free(ecoc_result *r)
{
    for (int a = 0; r->pairs && a < r->n; a++)
        for (int k = 0; k < 2; k++)
            free(r->pairs[a].list[k].row);
    free(r->pairs);
    r->pairs = NULL;
}
