/*
 * barrier.c -- no member leaves before every member has entered.
 *
 * Over several subnets: fan-in to rank 0 up its tree, then fan-out down
 * it, so each slow link is crossed twice.  Inside one subnet, where every
 * hop costs the same, a dissemination barrier: in round k every member
 * signals the member 2^k places after it and waits for the one 2^k places
 * before it; after ceil(log2 n) rounds each has heard, directly or not,
 * from all, and no member handles more than two messages a round.
 *
 *     round 0:  0->1  1->2  2->3  3->4  4->0
 *     round 1:  0->2  1->3  2->4  3->0  4->1
 *     round 2:  0->4  1->0  2->1  3->2  4->3
 */
#include <pvm3.h>
#include "eco_coll.h"

static int dissemination(eco_ctx *c)
{
    const int n = c->n, r = c->rank, tag = ecoi_next_tag(c);
    int rc = ECO_OK;

    /* PVM buffers sends, so sending before receiving cannot deadlock. */
    for (int d = 1; d < n && rc == ECO_OK; d <<= 1) {
        rc = c->tp->send(c->tp, (r + d) % n, tag, NULL, 0, PVM_BYTE);
        if (rc == ECO_OK)
            rc = c->tp->recv(c->tp, (r - d + n) % n, tag, NULL, 0, PVM_BYTE, NULL, 0);
    }
    return rc;
}

int eco_barrier(eco_ctx *ctx)
{
    const eco_tree *t = NULL;
    int rc;

    if (!ctx)
        return ECO_ERR_ARG;
    if ((rc = ecoi_begin(ctx)) != ECO_OK)
        return rc;
    if (ecoi_ctx_flat_net(ctx))
        return ecoi_end(ctx, dissemination(ctx));
    /* Stars inside subnets: the fewest hops for empty messages. */
    rc = ecoi_ctx_tree_flat(ctx, 0, &t);
    if (rc == ECO_OK)
        rc = ecoi_tree_gather(ctx, t, ecoi_next_tag(ctx), NULL, NULL, 0, PVM_BYTE);
    if (rc == ECO_OK)
        rc = ecoi_tree_bcast(ctx, t, ecoi_next_tag(ctx), NULL, 0, PVM_BYTE);
    return ecoi_end(ctx, rc);
}
