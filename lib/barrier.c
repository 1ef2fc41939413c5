/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * barrier.c -- fan-in to rank 0 up its tree, then fan-out down it.
 * No member leaves before every member has entered.
 */
#include <pvm3.h>
#include "eco_coll.h"

static int barrier_call(eco_ctx *ctx, eco_request **req)
{
    eco_request *r;
    int rc;

    if (!ctx)
        return ECO_ERR_ARG;
    if (!(r = ecoi_request_new(ctx, ECOI_KIND_BARRIER, 0, PVM_BYTE, NULL, 0, &rc)))
        return rc;
    ecoi_sched_empty(&r->sched);
    return req ? ecoi_request_start(r, req) : ecoi_request_run(r);
}

int eco_barrier(eco_ctx *ctx)
{
    return barrier_call(ctx, NULL);
}

int eco_ibarrier(eco_ctx *ctx, eco_request **req)
{
    if (!req)
        return ECO_ERR_ARG;
    *req = NULL;
    return barrier_call(ctx, req);
}

/* Empty messages up rank 0's tree and down again, the tree select.c
 * chooses (stars inside subnets: the fewest hops for empty messages). */
void ecoi_sched_empty(ecoi_sched *s)
{
    eco_ctx *c = s->c;
    const eco_tree *t = NULL;
    ecoi_plan plan;
    int rc = ecoi_select(c, ECOI_C_BARRIER, 0, 0, &plan), me = c->rank, up, down;

    if (rc == ECO_OK)
        rc = ecoi_ctx_shape(c, 0, plan.shape, &t);
    if (rc != ECO_OK) {
        s->rc = rc;
        return;
    }
    up = ecoi_next_tag(c);
    down = ecoi_next_tag(c);
    for (int i = t->child_off[me]; i < t->child_off[me + 1]; i++)
        ecoi_sched_recv(s, t->child[i], up, NULL, 0);
    ecoi_sched_fence(s);
    if (t->parent[me] >= 0) {
        ecoi_sched_send(s, t->parent[me], up, NULL, 0);
        ecoi_sched_fence(s);
    }
    ecoi_sched_bcast(s, t, down, NULL, 0, 0);
}

int ecoi_empty(eco_ctx *c)
{
    ecoi_sched s;

    ecoi_sched_init(&s, c, PVM_BYTE, NULL);
    ecoi_sched_empty(&s);
    return ecoi_sched_run(&s);
}
