/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * alltoall.c -- every member sends block j of its sendbuf to member j.
 *
 * No root and no relay: in step k (1 <= k < n) member r sends to r+k and
 * later receives from r-k (mod n), so every pair exchanges directly and
 * no member carries anybody else's data.  Sends do not wait for the
 * receiver (PVM buffers them), so posting all sends first cannot deadlock.
 */
#include <string.h>
#include "eco_coll.h"

static int alltoall_run(eco_ctx *ctx, const char *sendbuf, char *recvbuf,
                        size_t count, int datatype)
{
    const int n = ctx->n, me = ctx->rank, tag = ecoi_next_tag(ctx);
    const size_t unit = count * ecoi_type_size(datatype);
    int rc = ECO_OK;

    if (recvbuf != sendbuf)   /* in place: the sends below copy before any receive */
        memcpy(recvbuf + (size_t)me * unit, sendbuf + (size_t)me * unit, unit);
    for (int k = 1; k < n && rc == ECO_OK; k++) {
        int to = (me + k) % n;
        rc = ctx->tp->send(ctx->tp, to, tag, sendbuf + (size_t)to * unit, count, datatype);
    }
    for (int k = 1; k < n && rc == ECO_OK; k++) {
        int from = (me - k + n) % n;
        rc = ctx->tp->recv(ctx->tp, from, tag, recvbuf + (size_t)from * unit,
                           count, datatype, NULL, 0);
    }
    return rc;
}

int eco_alltoall(eco_ctx *ctx, const void *sendbuf, void *recvbuf, int count,
                 int datatype)
{
    ecoi_plan plan;
    int rc = ecoi_check_rooted(ctx, sendbuf, count, datatype, 0, 0);
    size_t all;

    if (rc != ECO_OK)
        return rc;
    all = (size_t)count * ecoi_type_size(datatype) * (size_t)ctx->n;
    if ((count > 0 && !recvbuf) || recvbuf == ECO_IN_PLACE)
        return ECO_ERR_ARG;
    if (sendbuf == ECO_IN_PLACE)              /* the blocks are in recvbuf */
        sendbuf = recvbuf;
    else if (ecoi_overlap(sendbuf, all, recvbuf, all))
        return ECO_ERR_ARG;
    if ((rc = ecoi_begin(ctx, ECOI_KIND_ALLTOALL, count, datatype, NULL, 0)) != ECO_OK)
        return rc;
    if (count == 0)
        return ecoi_end(ctx, ecoi_empty(ctx));
    /* one candidate today: the choice is still made, to be printed */
    rc = ecoi_select(ctx, ECOI_C_ALLTOALL, 0, (size_t)count * ecoi_type_size(datatype), &plan);
    if (rc == ECO_OK)
        rc = alltoall_run(ctx, sendbuf, recvbuf, (size_t)count, datatype);
    return ecoi_end(ctx, rc);
}
