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

/* Cheapest measured cost between any host of subnet s and of subnet u. */
static double subnet_cost(const eco_map *m, int s, int u)
{
    double best = -1.0;

    for (int a = 0; a < m->nhosts; a++) {
        if (m->subnet[a] != s)
            continue;
        for (int b = 0; b < m->nhosts; b++) {
            double cst = m->subnet[b] == u ? ecoi_map_cost_ij(m, a, b) : -1.0;
            if (cst >= 0 && (best < 0 || cst < best))
                best = cst;
        }
    }
    return best;
}

/* The order in which subnets are visited, greedily by cost.  Every
 * member must find the same order: out of memory is an error, never a
 * different order. */
static int subnet_order(const eco_map *m, int first, int *seq)
{
    int ns = m->nsubnets, cur = first;
    char *seen = calloc((size_t)ns, 1);

    if (!seen && ns > 0)
        return ECO_ERR_NOMEM;
    for (int i = 0; i < ns; i++) {
        seq[i] = cur;
        seen[cur] = 1;
        int next = -1;
        double nc = -1.0;
        for (int u = 0; u < ns; u++) {
            double cst;
            if (seen[u])
                continue;
            cst = subnet_cost(m, cur, u);
            if (next < 0 || (cst >= 0 && (nc < 0 || cst < nc))) {
                next = u;
                nc = cst;
            }
        }
        cur = next;
    }
    free(seen);
    return ECO_OK;
}

int eco_ring(const eco_ctx *ctx, int *order)
{
    if (!ctx || !order)
        return ECO_ERR_ARG;
    return ecoi_ring_order(ctx->map, ctx->n, ctx->member_host, order);
}

int ecoi_ring_order(const eco_map *m, int n, const int *member_host, int *order)
{
    int *seq, k = 0;

    seq = malloc((size_t)m->nsubnets * sizeof *seq);
    if (!seq)
        return ECO_ERR_NOMEM;
    if (subnet_order(m, m->subnet[member_host[0]], seq) != ECO_OK) {
        free(seq);
        return ECO_ERR_NOMEM;
    }
    /* Hosts in order of their lowest rank, ranks ascending per host. */
    for (int i = 0; i < m->nsubnets; i++)
        for (int r = 0; r < n; r++) {
            int h = member_host[r], first = 1;
            if (m->subnet[h] != seq[i])
                continue;
            for (int q = 0; q < r && first; q++)
                first = member_host[q] != h;
            if (!first)
                continue;
            for (int q = r; q < n; q++)
                if (member_host[q] == h)
                    order[k++] = q;
        }
    free(seq);
    return ECO_OK;
}
