/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gather.c -- gather and gather-to-all up the root's tree.
 *
 * The tree's preorder makes every subtree one contiguous run of members,
 * so a member sends its parent a single message: its own block followed
 * by its children's runs, in preorder.  The root turns preorder into rank
 * order.  The tree is a star inside each subnet and host: every block
 * crosses the root's own link anyway, and relaying only adds hops.
 * Gather-to-all (root ECO_ALL) gathers at rank 0 and broadcasts the
 * result down a broadcast tree, or exchanges among subnets (hier, below),
 * or runs around eco_ring's ring, where each subnet's members are
 * neighbours (select.c chooses):
 *
 *     step s: every member sends right the block it got at step s - 1
 *             (its own at step 0) and receives the next one from the left
 *
 *     [a] -> [b] -> [c] -> [d] -> back to [a]     n - 1 steps
 *
 * Every link of the ring carries n - 1 blocks, and a subnet is entered
 * over one link only, so each block enters each subnet about once: near
 * the least any algorithm must move, against n blocks through rank 0's
 * link twice for the tree.
 */
#include <stdlib.h>
#include <string.h>
#include "eco_coll.h"

int ecoi_tree_gather(eco_ctx *c, const eco_tree *t, int tag, const void *mine,
                     void *block, size_t count, int datatype)
{
    const int me = c->rank, parent = t->parent[me];
    const size_t size = ecoi_type_size(datatype), unit = count * size;
    char *buf = block;
    int rc = ECO_OK;

    if (parent >= 0) {
        buf = malloc((size_t)t->subtree[me] * unit + 1);
        if (!buf)
            return ECO_ERR_NOMEM;
    }
    if (unit)
        memcpy(buf, mine, unit);
    for (int i = t->child_off[me]; i < t->child_off[me + 1] && rc == ECO_OK; i++) {
        int kid = t->child[i];
        size_t at = (size_t)(t->pos[kid] - t->pos[me]) * unit;
        rc = c->tp->recv(c->tp, kid, tag, buf + at,
                         (size_t)t->subtree[kid] * count, datatype, NULL, 0);
    }
    if (rc == ECO_OK && parent >= 0)
        rc = c->tp->send(c->tp, parent, tag, buf,
                         (size_t)t->subtree[me] * count, datatype);
    if (parent >= 0)
        free(buf);
    return rc;
}

/* Rank order <-> preorder of a tree, unit bytes per member. */
void ecoi_preorder_to_ranks(const eco_tree *t, const void *pre, void *ranks, size_t unit)
{
    for (int i = 0; i < t->n; i++)
        memcpy((char *)ranks + (size_t)t->order[i] * unit,
               (const char *)pre + (size_t)i * unit, unit);
}

void ecoi_ranks_to_preorder(const eco_tree *t, const void *ranks, void *pre, size_t unit)
{
    for (int i = 0; i < t->n; i++)
        memcpy((char *)pre + (size_t)i * unit,
               (const char *)ranks + (size_t)t->order[i] * unit, unit);
}

/* Gather to one root (root >= 0) or to all; recvbuf is significant at the
 * root, or everywhere for ECO_ALL. */
static int gather_run(eco_ctx *ctx, const eco_tree *t, const void *sendbuf,
                      void *recvbuf, size_t count, int datatype, int root)
{
    const size_t unit = count * ecoi_type_size(datatype);
    int top = root == ECO_ALL ? 0 : root, rc = ECO_OK;
    int tag = ecoi_next_tag(ctx);
    char *pre = NULL;

    if (ctx->rank == top) {
        pre = malloc((size_t)ctx->n * unit);
        if (!pre)
            return ECO_ERR_NOMEM;
    }
    rc = ecoi_tree_gather(ctx, t, tag, sendbuf, pre, count, datatype);
    if (rc == ECO_OK && ctx->rank == top)
        ecoi_preorder_to_ranks(t, pre, recvbuf, unit);
    free(pre);
    if (rc == ECO_OK && root == ECO_ALL)
        rc = ecoi_bcast_from0(ctx, recvbuf, (size_t)ctx->n * count, datatype);
    return rc;
}

/* Down the broadcast tree select.c picks for the whole vector. */
int ecoi_bcast_from0(eco_ctx *c, void *buf, size_t count, int datatype)
{
    const size_t size = ecoi_type_size(datatype);
    const eco_tree *tb = NULL;
    ecoi_plan plan;
    int rc = ecoi_select(c, ECOI_C_BCAST, 0, count * size, &plan);

    if (rc == ECO_OK)
        rc = ecoi_ctx_shape(c, 0, plan.shape, &tb);
    if (rc == ECO_OK)
        rc = ecoi_tree_bcast(c, tb, ecoi_next_tag(c), buf, count, datatype,
                             ecoi_plan_elems(&plan, count, size));
    return rc;
}

/* Gather-to-all around the ring (long blocks); block q: counts[q]
 * elements at displs[q], or count elements at q * count. */
int ecoi_ring_allgather(eco_ctx *c, const void *sendbuf, void *recvbuf, const int *counts,
                        const int *displs, size_t count, int datatype)
{
    const size_t size = ecoi_type_size(datatype);
    const int n = c->n, tag = ecoi_next_tag(c);
    const int *ring = NULL;
    int p = 0, left, right, rc = ecoi_ctx_ring(c, &ring);
#define LEN(q) (counts ? (size_t)counts[q] : count)
#define AT(q) ((char *)recvbuf + (counts ? (size_t)displs[q] : (size_t)(q) * count) * size)

    if (rc != ECO_OK)
        return rc;
    while (ring[p] != c->rank)
        p++;
    left = ring[(p + n - 1) % n];
    right = ring[(p + 1) % n];
    if (AT(c->rank) != sendbuf && LEN(c->rank))   /* else in place */
        memcpy(AT(c->rank), sendbuf, LEN(c->rank) * size);
    /* PVM buffers sends, so sending before receiving cannot deadlock.
     * Empty blocks are not sent: both ends know their counts. */
    for (int s = 0; s < n - 1 && rc == ECO_OK; s++) {
        int out = ring[(p + n - s) % n], in = ring[(p + n - s - 1) % n];
        if (LEN(out))
            rc = c->tp->send(c->tp, right, tag, AT(out), LEN(out), datatype);
        if (rc == ECO_OK && LEN(in))
            rc = c->tp->recv(c->tp, left, tag, AT(in), LEN(in), datatype, NULL, 0);
    }
#undef LEN
#undef AT
    return rc;
}

/*
 * Gather-to-all among subnets ("hier"): each subnet's own tree gathers
 * its members' blocks at its leader; every leader sends its subnet's run
 * of blocks to every other leader; each subnet's tree broadcasts the whole
 * vector.  A subnet's shared link then carries only the blocks of the
 * other subnets in, and its own out once per other subnet: the least any
 * algorithm moves through it when S = 2, and far less than the ring's
 * n - 1 steps at the slowest edge's pace.
 */
static int hier_allgather(eco_ctx *c, const ecoi_plan *plan, const void *sendbuf,
                          void *recvbuf, size_t count, int datatype)
{
    const size_t size = ecoi_type_size(datatype), unit = count * size;
    const size_t total = (size_t)c->n * count;
    const int t1 = ecoi_next_tag(c), t2 = ecoi_next_tag(c), t3 = ecoi_next_tag(c);
    eco_tree *forest = NULL;
    int *lead = NULL, S = 0, me = -1, rc;
    char *pre = NULL;

    rc = ecoi_ctx_forest(c, plan, &forest, &lead, &S, &me);
    if (rc != ECO_OK)
        return rc;
    /* the forest's preorder keeps each subnet's blocks together */
    if (me >= 0 && !(pre = malloc((size_t)c->n * unit + 1)))
        rc = ECO_ERR_NOMEM;
    if (rc == ECO_OK)
        rc = ecoi_tree_gather(c, forest, t1, sendbuf,
                              pre ? pre + (size_t)forest->pos[c->rank] * unit : NULL,
                              count, datatype);
    /* Round k: to the leader k ahead, from the one k behind: one stream
     * into and out of every subnet at a time. */
    for (int k = 1; k < S && me >= 0 && rc == ECO_OK; k++) {
        int to = lead[(me + k) % S], from = lead[(me - k + S) % S];
        rc = c->tp->send(c->tp, to, t2, pre + (size_t)forest->pos[c->rank] * unit,
                         (size_t)forest->subtree[c->rank] * count, datatype);
        if (rc == ECO_OK)
            rc = c->tp->recv(c->tp, from, t2, pre + (size_t)forest->pos[from] * unit,
                             (size_t)forest->subtree[from] * count, datatype, NULL, 0);
    }
    if (rc == ECO_OK && me >= 0)
        ecoi_preorder_to_ranks(forest, pre, recvbuf, unit);
    if (rc == ECO_OK)
        rc = ecoi_tree_bcast(c, forest, t3, recvbuf, total, datatype,
                             ecoi_plan_elems(plan, total, size));
    free(pre);
    free(lead);
    eco_tree_free(&forest);
    return rc;
}

int eco_gather(eco_ctx *ctx, const void *sendbuf, void *recvbuf, int count,
               int datatype, int root)
{
    const eco_tree *t = NULL;
    ecoi_plan plan;
    int rc = ecoi_check_rooted(ctx, sendbuf, count, datatype, root, 1), gets;
    size_t unit;

    if (rc != ECO_OK)
        return rc;
    gets = root == ECO_ALL || root == ctx->rank;
    unit = (size_t)count * ecoi_type_size(datatype);
    if ((count > 0 && gets && !recvbuf) || recvbuf == ECO_IN_PLACE)
        return ECO_ERR_ARG;
    if (sendbuf == ECO_IN_PLACE) {    /* this member's block is in recvbuf */
        if (!gets)
            return ECO_ERR_ARG;
        sendbuf = (char *)recvbuf + (size_t)ctx->rank * unit;
    } else if (gets && ecoi_overlap(sendbuf, unit, recvbuf, (size_t)ctx->n * unit)) {
        return ECO_ERR_ARG;
    }
    if ((rc = ecoi_begin(ctx, ECOI_KIND_GATHER, count, datatype, NULL, root)) != ECO_OK)
        return rc;
    if (count == 0)
        return ecoi_end(ctx, ecoi_empty(ctx));
    rc = ecoi_select(ctx, root == ECO_ALL ? ECOI_C_ALLGATHER : ECOI_C_GATHER,
                     root == ECO_ALL ? 0 : root, (size_t)count * ecoi_type_size(datatype),
                     &plan);
    if (rc == ECO_OK && plan.run == ECOI_RUN_RING)
        return ecoi_end(ctx, ecoi_ring_allgather(ctx, sendbuf, recvbuf, NULL, NULL,
                                                 (size_t)count, datatype));
    if (rc == ECO_OK && plan.run == ECOI_RUN_HIER)
        return ecoi_end(ctx, hier_allgather(ctx, &plan, sendbuf, recvbuf, (size_t)count,
                                            datatype));
    if (rc == ECO_OK)
        rc = ecoi_ctx_shape(ctx, root == ECO_ALL ? 0 : root, plan.shape, &t);
    if (rc == ECO_OK)
        rc = gather_run(ctx, t, sendbuf, recvbuf, (size_t)count, datatype, root);
    return ecoi_end(ctx, rc);
}
