/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scatter.c -- scatter down the root's tree.
 *
 * The root lays its blocks out in the tree's preorder; every member
 * receives the run of its subtree from its parent, keeps the first block
 * (its own) and sends each child the child's run.  Runs go in the plan's
 * segments, the children taking turns (sched.c, ecoi_sched_scatter), so
 * that a child behind a slow link does not hold the others' sends.
 */
#include <stdlib.h>
#include <string.h>
#include "eco_coll.h"

static int scatter_call(eco_ctx *ctx, const void *sendbuf, void *recvbuf, int count,
                        int datatype, int root, eco_request **req)
{
    const eco_tree *t = NULL;
    ecoi_plan plan;
    int rc = ecoi_check_rooted(ctx, recvbuf, count, datatype, root, 0);
    size_t unit;
    eco_request *r;
    ecoi_sched *s;

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
    if (!(r = ecoi_request_new(ctx, ECOI_KIND_SCATTER, count, datatype, NULL, root, &rc)))
        return rc;
    s = &r->sched;
    if (count == 0) {
        ecoi_sched_empty(s);
        return req ? ecoi_request_start(r, req) : ecoi_request_run(r);
    }
    rc = ecoi_select(ctx, ECOI_C_SCATTER, root, unit, &plan);
    if (rc == ECO_OK)
        rc = ecoi_ctx_shape(ctx, root, plan.shape, &t);
    if (rc == ECO_OK) {
        /* the root lays its blocks out in the tree's preorder now: the
         * call has started, sendbuf is the library's */
        char *pre = NULL;
        if (ctx->rank == root && (pre = ecoi_sched_alloc(s, (size_t)ctx->n * unit)))
            ecoi_ranks_to_preorder(t, sendbuf, pre, unit);
        if (s->rc == ECO_OK)
            ecoi_sched_scatter(s, t, ecoi_next_tag(ctx), pre, recvbuf, (size_t)count,
                               ecoi_plan_elems(&plan, (size_t)ctx->n * count,
                                               ecoi_type_size(datatype)));
    } else {
        s->rc = rc;
    }
    return req ? ecoi_request_start(r, req) : ecoi_request_run(r);
}

int eco_scatter(eco_ctx *ctx, const void *sendbuf, void *recvbuf, int count,
                int datatype, int root)
{
    return scatter_call(ctx, sendbuf, recvbuf, count, datatype, root, NULL);
}

int eco_iscatter(eco_ctx *ctx, const void *sendbuf, void *recvbuf, int count,
                 int datatype, int root, eco_request **req)
{
    if (!req)
        return ECO_ERR_ARG;
    *req = NULL;
    return scatter_call(ctx, sendbuf, recvbuf, count, datatype, root, req);
}
