/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * result_pairs.c -- what eco-characterize's result knows of each pair
 * (eco_char.h): its samples when measured, the routers between its hosts
 * when counted, and nothing for the others.
 *
 * The samples: host a's list holds its measured pairs with the hosts
 * b > a, each pair once, as sorted rows keyed by b (eco_map_impl.h, the
 * functions of the map's lists): a lookup is a binary search in the lower
 * host's list.  The sparse mode measures a few pairs a host.
 *
 * The hops: counted for every pair at once (one round of datagrams), so
 * a triangle of bytes, one a pair (hops + 1, 0 unknown): 50 MB at 10,000
 * hosts where sorted rows of 8 bytes a pair took 597 MB.  Allocated
 * zeroed by the first pair kept: the pages of a triangle nobody fills
 * stay untouched.
 *
 *        b: 1  2  3  4          pair (a, b), a < b, at
 *   a = 0 [ .  .  .  . ]        a * n - a * (a + 1) / 2 + b - a - 1:
 *   a = 1    [ .  .  . ]        row a holds the pairs with b > a,
 *   a = 2       [ .  . ]        in order
 *   a = 3          [ . ]
 *
 * In libecocore beside the matrix writer (costs.c), which reads them.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "eco_char.h"
#include "eco_map_impl.h" /* ecoi_rows_* */

/* The most hops the triangle holds: a byte, less the unknown (the probes
 * count at most ECOC_HOPS_TTL, 64). */
#define MAX_KEPT_HOPS 254

typedef struct stat_rows {
    struct stat_row *row;
    int n, cap;
} stat_rows;

struct ecoc_pairs {
    stat_rows *samples;   /* [n] */
    unsigned char *hops;  /* [n (n - 1) / 2] hops + 1, 0 unknown; NULL: none yet */
};

typedef struct stat_row {
    int to;
    ecoc_stat st;
} stat_row;

static int pair_ok(const ecoc_result *r, int a, int b)
{
    return a != b && a >= 0 && b >= 0 && a < r->n && b < r->n;
}

/* The triangle's index of pair a < b (drawn above). */
static size_t tri(const ecoc_result *r, int a, int b)
{
    return (size_t)a * (size_t)r->n - (size_t)a * (size_t)(a + 1) / 2 + (size_t)(b - a - 1);
}

/* The pairs, made (empty) when missing; NULL: no memory. */
static struct ecoc_pairs *pairs_of(ecoc_result *r)
{
    if (!r->pairs && (r->pairs = calloc(1, sizeof *r->pairs)) &&
        !(r->pairs->samples = calloc((size_t)r->n + 1, sizeof *r->pairs->samples))) {
        free(r->pairs);
        r->pairs = NULL;
    }
    return r->pairs;
}

const ecoc_stat *ecoc_pair(const ecoc_result *r, int a, int b)
{
    const stat_rows *l;
    int i;

    if (!r->pairs || !pair_ok(r, a, b))
        return NULL;
    l = &r->pairs->samples[a < b ? a : b];
    i = ecoi_rows_find(l->row, l->n, sizeof *l->row, a < b ? b : a);
    return i >= 0 ? &l->row[i].st : NULL;
}

int ecoc_hops(const ecoc_result *r, int a, int b)
{
    if (a == b)
        return 0;
    if (!r->hops_counted || !r->pairs || !r->pairs->hops || !pair_ok(r, a, b))
        return -1;
    return (int)r->pairs->hops[a < b ? tri(r, a, b) : tri(r, b, a)] - 1;
}

int ecoc_next_measured(const ecoc_result *r, int a, int b)
{
    const stat_rows *l;
    int i;

    if (!r->pairs || a < 0 || a >= r->n)
        return r->n;
    l = &r->pairs->samples[a];
    i = ecoi_rows_find(l->row, l->n, sizeof *l->row, b + 1);
    if (i < 0)
        i = -i - 1;
    return i < l->n ? l->row[i].to : r->n;
}

int ecoc_next(const ecoc_result *r, int a, int b)
{
    int next = ecoc_next_measured(r, a, b);

    /* a's row of the triangle, from b + 1 */
    if (r->pairs && a >= 0 && a < r->n && r->hops_counted && r->pairs->hops) {
        int c = b + 1 > a ? b + 1 : a + 1;
        for (size_t at = c < r->n ? tri(r, a, c) : 0; c < next; c++, at++)
            if (r->pairs->hops[at])
                return c;
    }
    return next;
}

int ecoc_set_pair(ecoc_result *r, int a, int b, const ecoc_stat *st)
{
    stat_rows *l;
    stat_row *grown, s;
    int i;

    if (!st || st->n <= 0 || !pair_ok(r, a, b))
        return ECO_ERR_ARG;
    if (!pairs_of(r))
        return ECO_ERR_NOMEM;
    l = &r->pairs->samples[a < b ? a : b];
    if (!(grown = ecoi_rows_reserve(l->row, &l->cap, l->n + 1, sizeof *l->row)))
        return ECO_ERR_NOMEM;
    l->row = grown;
    s.to = a < b ? b : a;
    s.st = *st;
    i = ecoi_rows_put(l->row, &l->n, sizeof s, &s);
    l->row[i] = s; /* in place of what was kept */
    return ECO_OK;
}

int ecoc_set_hops(ecoc_result *r, int a, int b, int hops)
{
    size_t cells = (size_t)r->n * (size_t)(r->n - 1) / 2;

    if (hops < 0 || hops > MAX_KEPT_HOPS || !pair_ok(r, a, b))
        return ECO_ERR_ARG;
    if (!pairs_of(r) || (!r->pairs->hops && !(r->pairs->hops = calloc(cells, 1))))
        return ECO_ERR_NOMEM;
    r->pairs->hops[a < b ? tri(r, a, b) : tri(r, b, a)] = (unsigned char)(hops + 1);
    return ECO_OK;
}

size_t ecoc_pair_bytes(const ecoc_result *r)
{
    size_t bytes;

    if (!r->pairs)
        return 0;
    bytes = sizeof *r->pairs + (size_t)r->n * sizeof *r->pairs->samples;
    for (int a = 0; a < r->n; a++)
        bytes += (size_t)r->pairs->samples[a].cap * sizeof(stat_row);
    if (r->pairs->hops)
        bytes += (size_t)r->n * (size_t)(r->n - 1) / 2;
    return bytes;
}

void ecoc_pairs_free(ecoc_result *r)
{
    for (int a = 0; r->pairs && a < r->n; a++)
        free(r->pairs->samples[a].row);
    if (r->pairs) {
        free(r->pairs->samples);
        free(r->pairs->hops);
    }
    free(r->pairs);
    r->pairs = NULL;
}
