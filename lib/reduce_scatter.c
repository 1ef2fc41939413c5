/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * reduce_scatter.c -- eco_reduce_scatter: the members' vectors of
 * sum(recvcounts) elements combined element by element, block q of the
 * result (recvcounts[q] elements, in rank order) to member q.
 *
 * The vector is reduced up rank 0's tree (ECO's tree, or the subnets
 * chained, for long vectors: select.c chooses, with the segment), and the
 * result scattered down the same tree, each member receiving its
 * subtree's blocks in one message (vector.c).  Every member passes the
 * same recvcounts, so all know every block's size; the call's signature
 * carries a hash of them (ecoi_counts_sig), and members that pass other
 * counts fail with ECO_ERR_MISMATCH.  As for eco_reduce, op must be
 * associative and commutative.
 */
#include <stdlib.h>
#include <string.h>
#include "eco_coll.h"

static int reduce_scatter_run(eco_ctx *c, const ecoi_plan *plan, const eco_tree *t,
                              const void *sendbuf, void *recvbuf, const int *recvcounts,
                              size_t total, int datatype, eco_op op)
{
    const int n = c->n, me = c->rank;
    const size_t size = ecoi_type_size(datatype);
    const int tag = ecoi_next_tag(c), tag2 = ecoi_next_tag(c);
    size_t *off = malloc(((size_t)n + 1) * sizeof *off), *at = NULL;
    char *res = NULL, *run = NULL;
    int rc = ECO_OK;

    if (!off)
        return ECO_ERR_NOMEM;
    ecoi_preorder_offsets(t, recvcounts, off);
    /* rank 0: the result in rank order, then in the tree's preorder;
     * the others: their subtree's run */
    if (t->parent[me] < 0) {
        res = malloc(total * size + 1);
        at = malloc(((size_t)n + 1) * sizeof *at);
        if (!res || !at)
            rc = ECO_ERR_NOMEM;
    }
    if (rc == ECO_OK &&
        !(run = malloc((off[t->pos[me] + t->subtree[me]] - off[t->pos[me]]) * size + 1)))
        rc = ECO_ERR_NOMEM;
    if (rc == ECO_OK)
        rc = ecoi_tree_reduce(c, t, tag, sendbuf, res, total, datatype, op,
                              ecoi_plan_elems(plan, total, size));
    if (rc == ECO_OK && res) {
        at[0] = 0;                     /* block q's start in rank order */
        for (int q = 0; q < n; q++)
            at[q + 1] = at[q] + (size_t)recvcounts[q];
        for (int i = 0; i < n; i++)
            memcpy(run + off[i] * size, res + at[t->order[i]] * size,
                   (off[i + 1] - off[i]) * size);
    }
    if (rc == ECO_OK)
        rc = ecoi_tree_scatterv(c, t, tag2, run, off, datatype);
    if (rc == ECO_OK && recvcounts[me])
        memcpy(recvbuf, run, (size_t)recvcounts[me] * size);
    free(off);
    free(at);
    free(res);
    free(run);
    return rc;
}

int eco_reduce_scatter(eco_ctx *ctx, const void *sendbuf, void *recvbuf,
                       const int *recvcounts, int datatype, eco_op op)
{
    const eco_tree *t = NULL;
    ecoi_plan plan;
    size_t size, total = 0;
    int rc;

    if (!ctx || !recvcounts)
        return ECO_ERR_ARG;
    if ((size = ecoi_type_size(datatype)) == 0)
        return ECO_ERR_DATATYPE;
    if ((rc = ecoi_op_check(op, datatype)) != ECO_OK)
        return rc;
    for (int q = 0; q < ctx->n; q++) {
        if (recvcounts[q] < 0)
            return ECO_ERR_ARG;
        total += (size_t)recvcounts[q];
    }
    if (recvbuf == ECO_IN_PLACE || (recvcounts[ctx->rank] > 0 && !recvbuf))
        return ECO_ERR_ARG;
    if (sendbuf == ECO_IN_PLACE) {            /* the input is in recvbuf */
        if (total > 0 && !recvbuf)
            return ECO_ERR_ARG;
        sendbuf = recvbuf;
    } else if ((total > 0 && !sendbuf) ||
               ecoi_overlap(sendbuf, total * size, recvbuf,
                            (size_t)recvcounts[ctx->rank] * size)) {
        return ECO_ERR_ARG;
    }
    rc = ecoi_begin(ctx, ECOI_KIND_REDUCE_SCATTER, ecoi_counts_sig(ctx->n, recvcounts),
                    datatype, op, 0);
    if (rc != ECO_OK)
        return rc;
    if (total == 0)
        return ecoi_end(ctx, ecoi_empty(ctx));
    rc = ecoi_select(ctx, ECOI_C_REDUCE_SCATTER, 0, total * size, &plan);
    if (rc == ECO_OK)
        rc = ecoi_ctx_shape(ctx, 0, plan.shape, &t);
    if (rc == ECO_OK)
        rc = reduce_scatter_run(ctx, &plan, t, sendbuf, recvbuf, recvcounts, total, datatype,
                                op);
    return ecoi_end(ctx, rc);
}
