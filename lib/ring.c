/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ring.c -- a ring of ranks for nearest-neighbour codes.
 *
 * Each subnet's members are contiguous, and inside a subnet each host's
 * members are contiguous, so all but one link per subnet boundary stay
 * inside a subnet.  Subnets follow each other greedily: from rank 0's
 * subnet, always on to the cheapest subnet not yet visited (ties: lowest
 * subnet number).  Inside a subnet, hosts go by their lowest rank, and
 * ranks ascend inside a host.
 */
#include <stdlib.h>
#include "eco_coll.h"

/* best[u] = the cheapest measured cost between a host of subnet s and
 * one of subnet u, -1 when no pair is measured: s's hosts (first[s],
 * next[]) and their measured pairs. */
static void subnet_costs(const eco_map *m, const int *first, const int *next, int s,
                         double *best)
{
    for (int u = 0; u < m->nsubnets; u++)
        best[u] = -1.0;
    for (int a = first[s]; a >= 0; a = next[a])
        for (int i = 0; i < m->adj[a].n; i++) {
            const ecoi_link *l = &m->adj[a].link[i];
            int u = m->subnet[l->to];
            if (u >= 0 && l->cost >= 0 && (best[u] < 0 || l->cost < best[u]))
                best[u] = l->cost;
        }
}

/* The order in which subnets are visited, greedily by cost.  Every
 * member must find the same order: out of memory is an error, never a
 * different order.  O(S^2 + measured pairs) for S subnets. */
static int subnet_order(const eco_map *m, int first_subnet, int *seq)
{
    int ns = m->nsubnets, cur = first_subnet, rc = ECO_ERR_NOMEM;
    char *seen = calloc((size_t)ns + 1, 1);
    double *best = malloc(((size_t)ns + 1) * sizeof *best);
    int *first = malloc(((size_t)ns + 1) * sizeof *first);
    int *next = malloc(((size_t)m->nhosts + 1) * sizeof *next);

    if (seen && best && first && next) {
        for (int u = 0; u < ns; u++)
            first[u] = -1;
        for (int h = m->nhosts - 1; h >= 0; h--)
            if (m->subnet[h] >= 0 && m->subnet[h] < ns) {
                next[h] = first[m->subnet[h]];
                first[m->subnet[h]] = h;
            }
        for (int i = 0; i < ns; i++) {
            int nxt = -1;
            double nc = -1.0;
            seq[i] = cur;
            seen[cur] = 1;
            subnet_costs(m, first, next, cur, best);
            for (int u = 0; u < ns; u++) {
                if (seen[u])
                    continue;
                if (nxt < 0 || (best[u] >= 0 && (nc < 0 || best[u] < nc))) {
                    nxt = u;
                    nc = best[u];
                }
            }
            cur = nxt;
        }
        rc = ECO_OK;
    }
    free(seen);
    free(best);
    free(first);
    free(next);
    return rc;
}

/* A rank's place in the ring: its subnet's turn, its host's lowest rank,
 * itself. */
typedef struct ringkey {
    int turn, low, rank;
} ringkey;

static int cmp_ringkey(const void *x, const void *y)
{
    const ringkey *p = x, *q = y;

    if (p->turn != q->turn)
        return p->turn < q->turn ? -1 : 1;
    if (p->low != q->low)
        return p->low < q->low ? -1 : 1;
    return (p->rank > q->rank) - (p->rank < q->rank);
}

int eco_ring(const eco_ctx *ctx, int *order)
{
    if (!ctx || !order)
        return ECO_ERR_ARG;
    return ecoi_ring_order(ctx->map, ctx->n, ctx->member_host, order);
}

int ecoi_ring_order(const eco_map *m, int n, const int *member_host, int *order)
{
    int *seq, *turn, *low, k = 0, rc = ECO_ERR_NOMEM;
    ringkey *key;

    seq = malloc(((size_t)m->nsubnets + 1) * sizeof *seq);
    turn = malloc(((size_t)m->nsubnets + 1) * sizeof *turn);
    low = malloc(((size_t)m->nhosts + 1) * sizeof *low);
    key = malloc(((size_t)n + 1) * sizeof *key);
    if (seq && turn && low && key &&
        subnet_order(m, m->subnet[member_host[0]], seq) == ECO_OK) {
        /* Subnets in the order found, hosts in order of their lowest
         * rank, ranks ascending per host: one sort. */
        for (int i = 0; i < m->nsubnets; i++)
            turn[seq[i]] = i;
        for (int h = 0; h < m->nhosts; h++)
            low[h] = -1;
        for (int r = 0; r < n; r++) {
            int h = member_host[r];
            if (low[h] < 0)
                low[h] = r;
            if (m->subnet[h] >= 0 && m->subnet[h] < m->nsubnets)
                key[k++] = (ringkey){ turn[m->subnet[h]], low[h], r };
        }
        qsort(key, (size_t)k, sizeof *key, cmp_ringkey);
        for (int i = 0; i < k; i++)
            order[i] = key[i].rank;
        rc = ECO_OK;
    }
    free(seq);
    free(turn);
    free(low);
    free(key);
    return rc;
}
