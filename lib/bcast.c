/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bcast.c -- broadcast down the root's tree.
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
    const int me = c->rank, parent = t->parent[me];
    const int *kids = &t->child[t->child_off[me]];
    const int nkids = t->child_off[me + 1] - t->child_off[me];
    const size_t size = ecoi_type_size(datatype);
    size_t off = 0;
    int rc = ECO_OK;

    if (step == 0 || step > count)
        step = count;
    /* One pass even for count 0: barrier sends empty messages. */
    do {
        size_t len = count - off < step ? count - off : step;
        char *seg = (char *)buf + off * size;

        if (parent >= 0) {
            rc = c->tp->recv(c->tp, parent, tag, seg, len, datatype, kids, nkids);
        } else {
            for (int i = 0; i < nkids && rc == ECO_OK; i++)
                rc = c->tp->send(c->tp, kids[i], tag, seg, len, datatype);
        }
        off += len;
    } while (rc == ECO_OK && off < count);
    return rc;
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

int eco_bcast(eco_ctx *ctx, void *buf, int count, int datatype, int root)
{
    const eco_tree *t = NULL;
    const size_t size = ecoi_type_size(datatype);
    ecoi_plan plan;
    int rc = ecoi_check_rooted(ctx, buf, count, datatype, root, 0);

    if (rc != ECO_OK)
        return rc;
    if (buf == ECO_IN_PLACE)
        return ECO_ERR_ARG;
    if ((rc = ecoi_begin(ctx, ECOI_KIND_BCAST, count, datatype, NULL, root)) != ECO_OK)
        return rc;
    if (count == 0)
        return ecoi_end(ctx, ecoi_empty(ctx));
    rc = ecoi_select(ctx, ECOI_C_BCAST, root, (size_t)count * size, &plan);
    if (rc == ECO_OK)
        rc = ecoi_ctx_shape(ctx, root, plan.shape, &t);
    if (rc == ECO_OK)
        rc = ecoi_tree_bcast(ctx, t, ecoi_next_tag(ctx), buf, (size_t)count, datatype,
                             ecoi_plan_elems(&plan, (size_t)count, size));
    return ecoi_end(ctx, rc);
}
