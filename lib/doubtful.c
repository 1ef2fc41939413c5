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
 *
 * The measured pairs are walked once (twice: counted, then filed), not
 * once for every two subnets: a pair inside a subnet gives its floor and
 * a median, a pair between two the cheapest between them.  Each two
 * subnets with a pair between them are then judged once, their noise
 * picked from the two subnets' sorted medians by a binary search.  Time
 * O(hosts + pairs log pairs + subnets), memory O(hosts + pairs +
 * subnets): at 10,000 hosts in 100 subnets (the cheap mode's 10^6
 * pairs, the hops of every pair counted) 0.3 s and 16 MB, where a walk
 * of two subnets' pairs for every two of them took 273 s.
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

static int cmp_int(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;

    return (a > b) - (a < b);
}

/* A pair between subnets s < t, filed under s: t and its cost. */
typedef struct cross {
    int t;
    double min;
} cross;

/*
 * What the walk keeps.  sub[h]: host h's subnet.  Subnet s: floor[s]
 * the least cost inside (INFINITY: none), the medians of its pairs
 * inside at med[in[s] .. in[s + 1] - 1] (sorted once filed), and its
 * pairs with the subnets after it at cross[out[s] .. out[s + 1] - 1].
 * While filing, in[s] and out[s] count down from the ends of s's runs.
 * best, seen and near: the judging's scratch, one of each a subnet.
 */
typedef struct walk {
    int n, ns, *sub, *seen, *near;
    size_t *in, *out;
    double *floor, *med, *best;
    cross *cross;
    ecoc_doubt_work *work;
} walk;

static void *walk_alloc(walk *w, size_t count, size_t size)
{
    void *p = calloc(count + 1, size);

    if (p && w->work)
        w->work->bytes += (count + 1) * size;
    return p;
}

static void walk_free(walk *w)
{
    free(w->sub);
    free(w->seen);
    free(w->near);
    free(w->in);
    free(w->out);
    free(w->floor);
    free(w->med);
    free(w->best);
    free(w->cross);
}

/* The hosts' subnets and the per-subnet arrays. */
static int walk_start(const ecoc_result *r, walk *w, ecoc_doubt_work *work)
{
    size_t ns;

    memset(w, 0, sizeof *w);
    w->work = work;
    w->n = r->n;
    w->ns = eco_map_nsubnets(r->map);
    ns = (size_t)w->ns;
    w->sub = walk_alloc(w, (size_t)r->n, sizeof *w->sub);
    w->seen = walk_alloc(w, ns, sizeof *w->seen);
    w->near = walk_alloc(w, ns, sizeof *w->near);
    w->in = walk_alloc(w, ns, sizeof *w->in);
    w->out = walk_alloc(w, ns, sizeof *w->out);
    w->floor = walk_alloc(w, ns, sizeof *w->floor);
    w->best = walk_alloc(w, ns, sizeof *w->best);
    if (!w->sub || !w->seen || !w->near || !w->in || !w->out || !w->floor || !w->best)
        return ECO_ERR_NOMEM;
    for (int h = 0; h < r->n; h++) {
        w->sub[h] = eco_map_subnet_of(r->map, eco_map_find_host(r->map, r->host[h].name));
        if (w->sub[h] < 0 || w->sub[h] >= w->ns)
            w->sub[h] = 0; /* not in the map: cannot be (result_map adds all) */
    }
    for (int s = 0; s < w->ns; s++)
        w->floor[s] = INFINITY;
    return ECO_OK;
}

/* One walk of the measured pairs: with fill 0, each counted in its
 * subnet's run (in[], out[]) and the floors kept; with fill 1, filed. */
static void walk_pairs(const ecoc_result *r, walk *w, int fill)
{
    for (int a = 0; a < r->n; a++)
        for (int b = ecoc_next_measured(r, a, a); b < r->n; b = ecoc_next_measured(r, a, b)) {
            const ecoc_stat *st = ecoc_pair(r, a, b);
            int s = w->sub[a], t = w->sub[b];
            if (w->work)
                w->work->visits++;
            if (!st || st->n == 0 || !(st->min > 0.0))
                continue;
            if (s == t && !fill) {
                w->in[s]++;
                w->floor[s] = st->min < w->floor[s] ? st->min : w->floor[s];
            } else if (s == t) {
                w->med[--w->in[s]] = st->median;
            } else if (!fill) {
                w->out[s < t ? s : t]++;
            } else {
                w->cross[--w->out[s < t ? s : t]] = (cross){ s < t ? t : s, st->min };
            }
        }
}

/* Count, make room, file; each subnet's medians sorted. */
static int walk_all(const ecoc_result *r, walk *w)
{
    walk_pairs(r, w, 0);
    for (int s = 1; s <= w->ns; s++) { /* the ends of the runs */
        w->in[s] += w->in[s - 1];
        w->out[s] += w->out[s - 1];
    }
    w->med = walk_alloc(w, w->in[w->ns], sizeof *w->med);
    w->cross = walk_alloc(w, w->out[w->ns], sizeof *w->cross);
    if (!w->med || !w->cross)
        return ECO_ERR_NOMEM;
    walk_pairs(r, w, 1); /* in[s], out[s]: now the starts */
    for (int s = 0; s < w->ns; s++)
        qsort(w->med + w->in[s], w->in[s + 1] - w->in[s], sizeof *w->med, cmp_double);
    return ECO_OK;
}

/* The k-th least (from 0) of the sorted runs x[nx] and y[ny] together,
 * k < nx + ny: of the k + 1 least, i come from x, the least i at which
 * x[i] is not below y[k - i] (a binary search); the k-th is the greater
 * of the last taken from either. */
static double kth(const double *x, size_t nx, const double *y, size_t ny, size_t k)
{
    size_t lo = k + 1 > ny ? k + 1 - ny : 0, hi = k + 1 < nx ? k + 1 : nx, j;

    while (lo < hi) {
        size_t i = lo + (hi - lo) / 2;
        if (x[i] < y[k - i])
            lo = i + 1;
        else
            hi = i;
    }
    j = k + 1 - lo;
    if (lo == 0 || (j > 0 && y[j - 1] > x[lo - 1]))
        return y[j - 1];
    return x[lo - 1];
}

/* Judge the split of s and t, c their cheapest pair between: 1 doubtful
 * (d filled), 0 not.  The noise: the median over both subnets' pairs
 * inside of median / lo - 1, picked among the medians (a monotone map
 * of them: the same order, the same values as when sorted). */
static int judge(const ecoc_result *r, const walk *w, int s, int t, double c, ecoc_doubt *d)
{
    const double *x = w->med + w->in[s], *y = w->med + w->in[t];
    size_t nx = w->in[s + 1] - w->in[s], ny = w->in[t + 1] - w->in[t], k = nx + ny;
    double lo = fmin(w->floor[s], w->floor[t]), f = 1.0 + r->opt.threshold;

    if (!isfinite(lo) || !isfinite(c))
        return 0;
    d->noise = (kth(x, nx, y, ny, k / 2) - lo) / lo;
    if (k % 2 == 0)
        d->noise = ((kth(x, nx, y, ny, k / 2 - 1) - lo) / lo + d->noise) / 2.0;
    d->s = s;
    d->t = t;
    d->cost = c;
    d->floor = lo;
    if (w->work)
        w->work->judged++;
    return c <= f * (1.0 + d->noise) * lo;
}

/* Judge s against each subnet after it that it has a pair with, in
 * their order (best, seen, near: the scratch); the subnets of a doubtful
 * split flagged in flag[].  The count so far, *worst kept as
 * ecoc_doubtful_splits says. */
static int judge_subnet(const ecoc_result *r, walk *w, int s, unsigned char *flag, int count,
                        ecoc_doubt *worst)
{
    int m = 0;

    for (size_t i = w->out[s]; i < w->out[s + 1]; i++) {
        const cross *x = &w->cross[i];
        if (w->seen[x->t] != s + 1) {
            w->seen[x->t] = s + 1;
            w->best[x->t] = INFINITY;
            w->near[m++] = x->t;
        }
        w->best[x->t] = x->min < w->best[x->t] ? x->min : w->best[x->t];
    }
    qsort(w->near, (size_t)m, sizeof *w->near, cmp_int);
    for (int i = 0; i < m; i++) {
        ecoc_doubt d;
        if (!judge(r, w, s, w->near[i], w->best[w->near[i]], &d))
            continue;
        if (worst && (count == 0 || d.cost / d.floor < worst->cost / worst->floor))
            *worst = d;
        count++;
        flag[s] = flag[w->near[i]] = 1;
    }
    return count;
}

int ecoc_doubtful_splits(const ecoc_result *r, unsigned char *mark, ecoc_doubt *worst,
                         ecoc_doubt_work *work)
{
    walk w;
    unsigned char *flag = NULL;
    int count = 0, rc;

    if (work)
        memset(work, 0, sizeof *work);
    if (mark)
        memset(mark, 0, (size_t)r->n);
    if (!r->map || r->n < 3)
        return 0;
    if ((rc = walk_start(r, &w, work)) == ECO_OK && (rc = walk_all(r, &w)) == ECO_OK &&
        !(flag = walk_alloc(&w, (size_t)w.ns, 1)))
        rc = ECO_ERR_NOMEM;
    for (int s = 0; s < w.ns && rc == ECO_OK; s++)
        count = judge_subnet(r, &w, s, flag, count, worst);
    for (int h = 0; h < r->n && mark && rc == ECO_OK; h++)
        mark[h] = flag[w.sub[h]];
    free(flag);
    walk_free(&w);
    return rc != ECO_OK ? rc : count;
}
