/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * alltoall.c -- every member sends block j of its sendbuf to member j.
 *
 * No root and no relay: in step k (1 <= k < n) member r sends to r+k and
 * later receives from r-k (mod n), so every pair exchanges directly and
 * no member carries anybody else's data.  Sends do not wait for the
 * receiver (PVM buffers them), so posting all sends first cannot deadlock.
 *
 * Aggregated ("hier"), for short blocks: each subnet's tree gathers its
 * members' whole send buffers at its leader; every leader sends every
 * other one message with all the blocks from its subnet to that subnet;
 * each leader scatters to its members their received blocks.  A shared
 * link then carries S - 1 messages each way instead of one per pair of
 * members across it (select.c weighs the two).  A leader sends all its
 * messages before it receives any, as the direct exchange does.
 */
#include <stdlib.h>
#include <string.h>
#include "eco_coll.h"

/* Block j: count elements at j * count, or (with sc) sc[j] at sd[j] to
 * send and rc_[j] at rd[j] to receive. */
static int alltoall_run(eco_ctx *ctx, const char *sendbuf, const int *sc, const int *sd,
                        char *recvbuf, const int *rc_, const int *rd, size_t count,
                        int datatype)
{
    const int n = ctx->n, me = ctx->rank, tag = ecoi_next_tag(ctx);
    const size_t size = ecoi_type_size(datatype);
    int rc = ECO_OK;
#define SLEN(j) (sc ? (size_t)sc[j] : count)
#define SAT(j) (sendbuf + (sc ? (size_t)sd[j] : (size_t)(j) * count) * size)
#define RLEN(j) (sc ? (size_t)rc_[j] : count)
#define RAT(j) (recvbuf + (sc ? (size_t)rd[j] : (size_t)(j) * count) * size)

    if (RAT(me) != SAT(me))   /* in place: the sends below copy before any receive */
        memcpy(RAT(me), SAT(me), SLEN(me) * size);
    /* Every pair exchanges a message, empty or not: a receiver whose
     * count differs from the sender's fails (ECO_ERR_MISMATCH). */
    for (int k = 1; k < n && rc == ECO_OK; k++) {
        int to = (me + k) % n;
        rc = ctx->tp->send(ctx->tp, to, tag, SAT(to), SLEN(to), datatype);
    }
    for (int k = 1; k < n && rc == ECO_OK; k++) {
        int from = (me - k + n) % n;
        rc = ctx->tp->recv(ctx->tp, from, tag, RAT(from), RLEN(from), datatype, NULL, 0);
    }
#undef SLEN
#undef SAT
#undef RLEN
#undef RAT
    return rc;
}

/* The members of leader l's subnet tree, in its preorder. */
#define SUBTREE(f, l) ((f)->order + (f)->pos[l])

static int alltoall_hier(eco_ctx *c, const ecoi_plan *plan, const char *sendbuf,
                         char *recvbuf, size_t count, int datatype)
{
    const size_t unit = count * ecoi_type_size(datatype), row = (size_t)c->n * unit;
    const int t1 = ecoi_next_tag(c), t2 = ecoi_next_tag(c), t3 = ecoi_next_tag(c);
    eco_tree *f = NULL;
    int *lead = NULL, S = 0, me = -1, rc, ni = 0;
    char *rows = NULL, *out = NULL, *pack = NULL;
    const int *mine = NULL;

    rc = ecoi_ctx_forest(c, plan, &f, &lead, &S, &me);
    if (rc != ECO_OK)
        return rc;
    if (me >= 0) {
        /* rows: the subnet's send buffers; out: its receive buffers, both
         * in the subnet tree's preorder; pack: one message to a leader */
        ni = f->subtree[lead[me]];
        mine = SUBTREE(f, lead[me]);
        rows = malloc((size_t)ni * row + 1);
        out = malloc((size_t)ni * row + 1);
        pack = malloc((size_t)(c->n - ni) * (size_t)ni * unit + 1);
        if (!rows || !out || !pack)
            rc = ECO_ERR_NOMEM;
    }
    if (rc == ECO_OK)
        rc = ecoi_tree_gather(c, f, t1, sendbuf, rows, (size_t)c->n * count, datatype);
    if (rc == ECO_OK && me >= 0) {
        /* block a -> b: rows[a's place][b's rank] to out[b's place][a's rank] */
        for (int ib = 0; ib < ni; ib++)
            for (int ia = 0; ia < ni; ia++)
                memcpy(out + (size_t)ib * row + (size_t)mine[ia] * unit,
                       rows + (size_t)ia * row + (size_t)mine[ib] * unit, unit);
        /* Every send first, to the leader k ahead for k = 1, 2, ..., each
         * message its blocks for every b of the target, for every a of
         * this subnet (pack holds them all, one after the other); then
         * the receives, from the leader k behind.  Sends do not wait for
         * the receiver, so no subnet's link waits for another's: in
         * rounds of a send and a receive each, a leader's next send
         * waited for its receive, and the slowest subnet's link stood
         * idle (uneven.topo, 16 KB: 309 ms simulated for a 256 ms
         * exchange). */
        size_t at = 0;
        for (int k = 1; k < S && rc == ECO_OK; k++) {
            int to = (me + k) % S, nt = f->subtree[lead[to]];
            const int *theirs = SUBTREE(f, lead[to]);
            char *msg = pack + at;
            for (int ib = 0; ib < nt; ib++)
                for (int ia = 0; ia < ni; ia++, at += unit)
                    memcpy(pack + at, rows + (size_t)ia * row + (size_t)theirs[ib] * unit, unit);
            rc = c->tp->send(c->tp, lead[to], t2, msg, (size_t)nt * (size_t)ni * count, datatype);
        }
        /* pack's contents are sent: it takes one message at a time */
        for (int k = 1; k < S && rc == ECO_OK; k++) {
            int from = (me - k + S) % S, nf = f->subtree[lead[from]];
            const int *src = SUBTREE(f, lead[from]);
            rc = c->tp->recv(c->tp, lead[from], t2, pack, (size_t)ni * (size_t)nf * count,
                             datatype, NULL, 0);
            at = 0;
            for (int ib = 0; ib < ni && rc == ECO_OK; ib++)
                for (int ia = 0; ia < nf; ia++, at += unit)
                    memcpy(out + (size_t)ib * row + (size_t)src[ia] * unit, pack + at, unit);
        }
    }
    if (rc == ECO_OK)
        rc = ecoi_tree_scatter(c, f, t3, out, recvbuf, (size_t)c->n * count, datatype);
    free(rows);
    free(out);
    free(pack);
    free(lead);
    eco_tree_free(&f);
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
    rc = ecoi_select(ctx, ECOI_C_ALLTOALL, 0, (size_t)count * ecoi_type_size(datatype), &plan);
    if (rc == ECO_OK && plan.run == ECOI_RUN_HIER)
        rc = alltoall_hier(ctx, &plan, sendbuf, recvbuf, (size_t)count, datatype);
    else if (rc == ECO_OK)
        rc = alltoall_run(ctx, sendbuf, NULL, NULL, recvbuf, NULL, NULL, (size_t)count,
                          datatype);
    return ecoi_end(ctx, rc);
}

/*
 * With a count per pair: sendcounts[j] elements at sdispls[j] go to
 * member j, which takes recvcounts[i] elements from member i at
 * rdispls[i]; the two must agree.  Directly between every pair (the
 * counts of pairs no member knows whole, so no member can aggregate for
 * its subnet); the signature carries 0 as count.
 */
int eco_alltoallv(eco_ctx *ctx, const void *sendbuf, const int *sendcounts,
                  const int *sdispls, void *recvbuf, const int *recvcounts,
                  const int *rdispls, int datatype)
{
    ecoi_plan plan;
    size_t size, stotal = 0, rtotal = 0;
    int rc;

    if (!ctx)
        return ECO_ERR_ARG;
    if ((size = ecoi_type_size(datatype)) == 0)
        return ECO_ERR_DATATYPE;
    if (recvbuf == ECO_IN_PLACE)
        return ECO_ERR_ARG;
    if (sendbuf == ECO_IN_PLACE) {            /* the blocks are in recvbuf */
        rc = ecoi_check_blocks(ctx->n, recvcounts, rdispls, recvbuf, &rtotal);
        sendbuf = recvbuf;
        sendcounts = recvcounts;
        sdispls = rdispls;
    } else {
        /* each layout's blocks apart, and every send block apart from
         * every receive block: sorted, O(n log n) */
        rc = ecoi_check_two_layouts(ctx->n, sendcounts, sdispls, sendbuf, &stotal,
                                    recvcounts, rdispls, recvbuf, &rtotal, size);
    }
    if (rc == ECO_ERR_NOMEM)     /* the others may wait on this member */
        return ecoi_fail_call(ctx, ECOI_KIND_ALLTOALLV, rc);
    if (rc != ECO_OK)
        return rc;
    if (sendcounts[ctx->rank] != recvcounts[ctx->rank])
        return ECO_ERR_ARG;
    if ((rc = ecoi_begin(ctx, ECOI_KIND_ALLTOALLV, 0, datatype, NULL, 0)) != ECO_OK)
        return rc;
    /* Members send and receive different amounts: the choice, the same
     * in all, is made for no bytes. */
    rc = ecoi_select(ctx, ECOI_C_ALLTOALLV, 0, 0, &plan);
    if (rc == ECO_OK)
        rc = alltoall_run(ctx, sendbuf, sendcounts, sdispls, recvbuf, recvcounts, rdispls, 0,
                          datatype);
    return ecoi_end(ctx, rc);
}
