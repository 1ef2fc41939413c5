/*
 * barrier.c -- fan-in to rank 0 up its tree, then fan-out down it.
 * No member leaves before every member has entered.
 */
#include <pvm3.h>
#include "eco_coll.h"

int eco_barrier(eco_ctx *ctx)
{
    const eco_tree *t = NULL;
    int rc;

    if (!ctx)
        return ECO_ERR_ARG;
    if ((rc = ecoi_begin(ctx)) != ECO_OK)
        return rc;
    /* Stars inside subnets: the fewest hops for empty messages. */
    rc = ecoi_ctx_tree_flat(ctx, 0, &t);
    if (rc == ECO_OK)
        rc = ecoi_tree_gather(ctx, t, ecoi_next_tag(ctx), NULL, NULL, 0, PVM_BYTE);
    if (rc == ECO_OK)
        rc = ecoi_tree_bcast(ctx, t, ecoi_next_tag(ctx), NULL, 0, PVM_BYTE);
    return ecoi_end(ctx, rc);
}
