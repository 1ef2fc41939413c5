/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * barrier.c -- fan-in to rank 0 up its tree, then fan-out down it.
 * No member leaves before every member has entered.
 */
#include <pvm3.h>
#include "eco_coll.h"

int eco_barrier(eco_ctx *ctx)
{
    int rc;

    if (!ctx)
        return ECO_ERR_ARG;
    if ((rc = ecoi_begin(ctx, ECOI_KIND_BARRIER, 0, PVM_BYTE, NULL, 0)) != ECO_OK)
        return rc;
    return ecoi_end(ctx, ecoi_empty(ctx));
}

/* Empty messages up rank 0's tree and down again, the tree select.c
 * chooses (stars inside subnets: the fewest hops for empty messages). */
int ecoi_empty(eco_ctx *c)
{
    const eco_tree *t = NULL;
    ecoi_plan plan;
    int rc = ecoi_select(c, ECOI_C_BARRIER, 0, 0, &plan);

    if (rc == ECO_OK)
        rc = ecoi_ctx_shape(c, 0, plan.shape, &t);
    if (rc == ECO_OK)
        rc = ecoi_tree_gather(c, t, ecoi_next_tag(c), NULL, NULL, 0, PVM_BYTE);
    if (rc == ECO_OK)
        rc = ecoi_tree_bcast(c, t, ecoi_next_tag(c), NULL, 0, PVM_BYTE, 0);
    return rc;
}
