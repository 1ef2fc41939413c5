/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doubtful.c -- the splits of a characterization that noise can explain.
 *
 * A pair's cost is the least of a few samples; on a busy machine the
 * quiet floor is not reached by every pair, and minima of one switched
 * segment drift apart: with another session's unit tests running (load
 * 14), two segments of four hosts measured 97 to 204 us inside one
 * segment, medians 60 to 190% above the minima; campus24 at load 7 split
 * bh1-bh4 into two subnets of two.  A split of subnets S and T is
 * doubtful when the cheapest pair between them, c, is within the rule's
 * factor of the floor lo (the cheaper of the two subnets' cheapest pair
 * inside; a subnet of one host has none) once that floor is allowed the
 * noise of the pairs there:
 *
 *     c <= (1 + threshold) * (1 + noise) * lo
 *
 * noise: the median, over the measured pairs inside S and inside T, of
 * how far the pair's median sample lies above the floor, median / lo - 1:
 * where the samples typically land, so that a cross pair's minimum there
 * cannot be told from an inside pair's that missed the floor.  (A pair's
 * own spread, median / min - 1, says too little: under load whole pairs
 * miss the floor, every sample 2 to 3 times it, their spreads 15-40%.)
 * Between real segments c is many times lo (a router, a slower link: 4
 * ms against 80 us on the emulated networks), and a quiet machine's
 * noise is small (uneven's segment of three: 0.24): nothing is doubtful
 * there, and nothing is measured again.  Two subnets of one
 * host each are not compared (neither has a floor of its own).  The
 * cheap mode's splits are judged alike, on the pairs it measured.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eco_char.h"

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;

    return (a > b) - (a < b);
}

/* The subnets of r's hosts, members grouped: sub[h], and the hosts of
 * subnet s at mem[start[s] .. start[s + 1] - 1]. */
typedef struct groups {
    int ns, *sub, *start, *mem;
} groups;

static void groups_free(groups *g)
{
    free(g->sub);
    free(g->start);
    free(g->mem);
}

static int groups_of(const ecoc_result *r, groups *g)
{
    int n = r->n, ns = eco_map_nsubnets(r->map), *fill;

    g->ns = ns;
    g->sub = malloc(((size_t)n + 1) * sizeof *g->sub);
    g->start = calloc((size_t)ns + 2, sizeof *g->start);
    g->mem = malloc(((size_t)n + 1) * sizeof *g->mem);
    fill = calloc((size_t)ns + 1, sizeof *fill);
    if (!g->sub || !g->start || !g->mem || !fill) {
        free(fill);
        groups_free(g);
        return ECO_ERR_NOMEM;
    }
    for (int h = 0; h < n; h++) {
        g->sub[h] = eco_map_subnet_of(r->map, eco_map_find_host(r->map, r->host[h].name));
        if (g->sub[h] < 0 || g->sub[h] >= ns)
            g->sub[h] = 0; /* not in the map: cannot be (result_map adds all) */
        g->start[g->sub[h] + 1]++;
    }
    for (int s = 0; s < ns; s++)
        g->start[s + 1] += g->start[s];
    for (int h = 0; h < n; h++)
        g->mem[g->start[g->sub[h]] + fill[g->sub[h]]++] = h;
    free(fill);
    return ECO_OK;
}

/* The least cost among the measured pairs of s's hosts with t's (s ==
 * t: inside s), INFINITY when none; with k, the pairs are counted in
 * *k, and with rel too each one's median as a multiple of floor, less
 * 1, is stored at rel[*k] first.  The hosts' measured pairs are walked
 * (ecoc_next), not every two hosts: the cheap mode's subnets may be
 * large and measured in few pairs. */
static double least(const ecoc_result *r, const groups *g, int s, int t, double floor,
                    double *rel, int *k)
{
    double c = INFINITY;

    for (int side = 0; side < (s == t ? 1 : 2); side++) {
        int u = side ? t : s, other = side ? s : t;
        for (int i = g->start[u]; i < g->start[u + 1]; i++) {
            int a = g->mem[i];
            for (int b = ecoc_next(r, a, a); b < r->n; b = ecoc_next(r, a, b)) {
                const ecoc_stat *st = ecoc_pair(r, a, b);
                if (g->sub[b] != other || !st || st->n == 0 || !(st->min > 0.0))
                    continue;
                c = st->min < c ? st->min : c;
                if (k && rel)
                    rel[*k] = (st->median - floor) / floor;
                if (k)
                    (*k)++;
            }
        }
    }
    return c;
}

/* Judge the split of s and t: 1 doubtful (d filled), 0 not, or
 * ECO_ERR_NOMEM. */
static int judge(const ecoc_result *r, const groups *g, int s, int t, ecoc_doubt *d)
{
    int m = 0, k = 0;
    double lo = fmin(least(r, g, s, s, 0, NULL, &m), least(r, g, t, t, 0, NULL, &m));
    double c = least(r, g, s, t, 0, NULL, NULL), f = 1.0 + r->opt.threshold, *rel;

    if (!isfinite(lo) || !isfinite(c))
        return 0;
    if (!(rel = malloc(((size_t)m + 1) * sizeof *rel)))
        return ECO_ERR_NOMEM;
    least(r, g, s, s, lo, rel, &k);
    least(r, g, t, t, lo, rel, &k);
    qsort(rel, (size_t)k, sizeof *rel, cmp_double);
    d->noise = k % 2 ? rel[k / 2] : (rel[k / 2 - 1] + rel[k / 2]) / 2.0;
    free(rel);
    d->s = s;
    d->t = t;
    d->cost = c;
    d->floor = lo;
    return c <= f * (1.0 + d->noise) * lo;
}

int ecoc_doubtful_splits(const ecoc_result *r, unsigned char *mark, ecoc_doubt *worst)
{
    groups g;
    int count = 0, rc = ECO_OK;

    if (mark)
        memset(mark, 0, (size_t)r->n);
    if (!r->map || r->n < 3)
        return 0;
    if (groups_of(r, &g) != ECO_OK)
        return ECO_ERR_NOMEM;
    for (int s = 0; s < g.ns && rc >= 0; s++)
        for (int t = s + 1; t < g.ns && rc >= 0; t++) {
            ecoc_doubt d;
            if ((rc = judge(r, &g, s, t, &d)) <= 0)
                continue;
            if (worst && (count == 0 || d.cost / d.floor < worst->cost / worst->floor))
                *worst = d;
            count++;
            for (int i = g.start[s]; mark && i < g.start[s + 1]; i++)
                mark[g.mem[i]] = 1;
            for (int i = g.start[t]; mark && i < g.start[t + 1]; i++)
                mark[g.mem[i]] = 1;
        }
    groups_free(&g);
    return rc < 0 ? rc : count;
}
