/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * barrier.c -- fan-in to rank 0 up its tree, then fan-out down it; or the
 * dissemination barrier: in round k every member r sends an empty
 * message to r + 2^k and waits for one from r - 2^k (mod n), so after
 * ceil(log2 n) rounds each has heard, directly or not, from every other.
 * select.c chooses.  No member leaves before every member has entered.
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

/* The rounds' partners are 2^k apart, all distinct below n: one tag. */
static int dissemination(eco_ctx *c)
{
    const int n = c->n, me = c->rank, tag = ecoi_next_tag(c);
    int rc = ECO_OK;

    for (int d = 1; d < n && rc == ECO_OK; d *= 2) {
        rc = c->tp->send(c->tp, (me + d) % n, tag, NULL, 0, PVM_BYTE);
        if (rc == ECO_OK)
            rc = c->tp->recv(c->tp, (me - d % n + n) % n, tag, NULL, 0, PVM_BYTE, NULL, 0);
    }
    return rc;
}

/* Empty messages up rank 0's tree and down again, the tree select.c
 * chooses (stars inside subnets: the fewest hops for empty messages), or
 * the dissemination rounds. */
int ecoi_empty(eco_ctx *c)
{
    const eco_tree *t = NULL;
    ecoi_plan plan;
    int rc = ecoi_select(c, ECOI_C_BARRIER, 0, 0, &plan);

    if (rc == ECO_OK && plan.run == ECOI_RUN_DISSEM)
        return dissemination(c);
    if (rc == ECO_OK)
        rc = ecoi_ctx_shape(c, 0, plan.shape, &t);
    if (rc == ECO_OK)
        rc = ecoi_tree_gather(c, t, ecoi_next_tag(c), NULL, NULL, 0, PVM_BYTE);
    if (rc == ECO_OK)
        rc = ecoi_tree_bcast(c, t, ecoi_next_tag(c), NULL, 0, PVM_BYTE, 0);
    return rc;
}
