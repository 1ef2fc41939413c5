/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scatter.c -- scatter down the root's tree.
 *
 * The root lays its blocks out in the tree's preorder; every member
 * receives the run of its subtree from its parent in one message, keeps
 * the first block (its own) and sends each child the child's run.
 */
#include <stdlib.h>
#include <string.h>
#include "eco_coll.h"

int ecoi_tree_scatter(eco_ctx *c, const eco_tree *t, int tag, const void *block,
                      void *mine, size_t count, int datatype)
{
    const int me = c->rank, parent = t->parent[me];
    const size_t size = ecoi_type_size(datatype), unit = count * size;
    char *buf = (char *)block;
    int rc = ECO_OK;

    if (parent >= 0) {
        buf = malloc((size_t)t->subtree[me] * unit + 1);
        if (!buf)
            return ECO_ERR_NOMEM;
        rc = c->tp->recv(c->tp, parent, tag, buf,
                         (size_t)t->subtree[me] * count, datatype, NULL, 0);
    }
    for (int i = t->child_off[me]; i < t->child_off[me + 1] && rc == ECO_OK; i++) {
        int kid = t->child[i];
        size_t at = (size_t)(t->pos[kid] - t->pos[me]) * unit;
        rc = c->tp->send(c->tp, kid, tag, buf + at,
                         (size_t)t->subtree[kid] * count, datatype);
    }
    if (rc == ECO_OK && unit && mine)    /* NULL: the root, in place */
        memcpy(mine, buf, unit);
    if (parent >= 0)
        free(buf);
    return rc;
}

static int scatter_run(eco_ctx *ctx, const eco_tree *t, const void *sendbuf,
                       void *recvbuf, size_t count, int datatype, int root)
{
    const size_t unit = count * ecoi_type_size(datatype);
    char *pre = NULL;
    int rc;

    if (ctx->rank == root) {
        pre = malloc((size_t)ctx->n * unit);
        if (!pre)
            return ECO_ERR_NOMEM;
        ecoi_ranks_to_preorder(t, sendbuf, pre, unit);
    }
    rc = ecoi_tree_scatter(ctx, t, ecoi_next_tag(ctx), pre, recvbuf, count, datatype);
    free(pre);
    return rc;
}

int eco_scatter(eco_ctx *ctx, const void *sendbuf, void *recvbuf, int count,
                int datatype, int root)
{
    const eco_tree *t = NULL;
    ecoi_plan plan;
    int rc = ecoi_check_rooted(ctx, recvbuf, count, datatype, root, 0);
    size_t unit;

    if (rc != ECO_OK)
        return rc;
    unit = (size_t)count * ecoi_type_size(datatype);
    if (root != ctx->rank)
        sendbuf = NULL;                   /* not significant there */
    if ((count > 0 && root == ctx->rank && !sendbuf) || sendbuf == ECO_IN_PLACE)
        return ECO_ERR_ARG;
    if (recvbuf == ECO_IN_PLACE) {        /* the root's block stays in sendbuf */
        if (root != ctx->rank)
            return ECO_ERR_ARG;
        recvbuf = NULL;
    } else if (sendbuf && ecoi_overlap(sendbuf, (size_t)ctx->n * unit, recvbuf, unit)) {
        return ECO_ERR_ARG;
    }
    if ((rc = ecoi_begin(ctx, ECOI_KIND_SCATTER, count, datatype, NULL, root)) != ECO_OK)
        return rc;
    if (count == 0)
        return ecoi_end(ctx, ecoi_empty(ctx));
    rc = ecoi_select(ctx, ECOI_C_SCATTER, root, (size_t)count * ecoi_type_size(datatype), &plan);
    if (rc == ECO_OK)
        rc = ecoi_ctx_shape(ctx, root, plan.shape, &t);
    if (rc == ECO_OK)
        rc = scatter_run(ctx, t, sendbuf, recvbuf, (size_t)count, datatype, root);
    return ecoi_end(ctx, rc);
}
