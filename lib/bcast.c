/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bcast.c -- broadcast down the root's tree (the schedule: sched.c's
 * ecoi_sched_bcast).
 *
 * Each member receives from its parent and passes every message on to its
 * children before unpacking it.  Messages longer than the context's
 * segment are cut into segments, so a member forwards segment i while
 * segment i+1 is still on its way (pipelining): a long message then costs
 * about the slowest link once, not once per tree level.
 */
#include <string.h>
#include "eco_coll.h"

int ecoi_tree_bcast(eco_ctx *c, const eco_tree *t, int tag, void *buf,
                    size_t count, int datatype, size_t step)
{
    ecoi_sched s;

    ecoi_sched_init(&s, c, datatype, NULL);
    ecoi_sched_bcast(&s, t, tag, buf, count, step);
    return ecoi_sched_run(&s);
}

/* Checks shared by the rooted collectives. */
int ecoi_check_rooted(const eco_ctx *ctx, const void *buf, int count,
                      int datatype, int root, int allow_all)
{
    if (!ctx || count < 0)
        return ECO_ERR_ARG;
    if (ecoi_type_size(datatype) == 0)
        return ECO_ERR_DATATYPE;
    if (root == ECO_ALL ? !allow_all : (root < 0 || root >= ctx->n))
        return ECO_ERR_ARG;
    if (count > 0 && !buf)
        return ECO_ERR_ARG;
    return ECO_OK;
}

static int bcast_call(eco_ctx *ctx, void *buf, int count, int datatype, int root,
                      eco_request **req)
{
    const eco_tree *t = NULL;
    const size_t size = ecoi_type_size(datatype);
    eco_request *r;
    ecoi_plan plan;
    int rc = ecoi_check_rooted(ctx, buf, count, datatype, root, 0);

    if (rc != ECO_OK)
        return rc;
    if (buf == ECO_IN_PLACE)
        return ECO_ERR_ARG;
    if (!(r = ecoi_request_new(ctx, ECOI_KIND_BCAST, count, datatype, NULL, root, &rc)))
        return rc;
    if (count == 0) {
        ecoi_sched_empty(&r->sched);
    } else {
        rc = ecoi_select(ctx, ECOI_C_BCAST, root, (size_t)count * size, &plan);
        if (rc == ECO_OK)
            rc = ecoi_ctx_shape(ctx, root, plan.shape, &t);
        if (rc == ECO_OK)
            ecoi_sched_bcast(&r->sched, t, ecoi_next_tag(ctx), buf, (size_t)count,
                             ecoi_plan_elems(&plan, (size_t)count, size));
        else
            r->sched.rc = rc;
    }
    return req ? ecoi_request_start(r, req) : ecoi_request_run(r);
}

int eco_bcast(eco_ctx *ctx, void *buf, int count, int datatype, int root)
{
    return bcast_call(ctx, buf, count, datatype, root, NULL);
}

int eco_ibcast(eco_ctx *ctx, void *buf, int count, int datatype, int root,
               eco_request **req)
{
    if (!req)
        return ECO_ERR_ARG;
    *req = NULL;
    return bcast_call(ctx, buf, count, datatype, root, req);
}
