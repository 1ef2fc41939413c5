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
 * members across it (select.c weighs the two).  The leaders exchange
 * at once ("hier": each sends all its messages before it receives any,
 * as the direct exchange does), in rounds ("hier-rounds": in round k,
 * to the leader k ahead and from the one k behind), or in turns
 * ("hier-turns": every message cut into as many segments as the longest
 * in the plan's segments, and in turn k every leader sends segment k of
 * each of its messages and takes segment k of each of theirs before the
 * next turn, so that what is on its way into a link at once is a
 * segment from each other leader, never whole messages that meet on a
 * slower link).
 */
#include <stdlib.h>
#include <string.h>
#include "eco_coll.h"

/* Block j: count elements at j * count, or (with sc) sc[j] at sd[j] to
 * send and rc_[j] at rd[j] to receive.  Rounds of ECOI_A2A_CHUNK sends
 * and as many receives (the sends first, the receives as they come),
 * made a round at a time: a schedule of n members holds O(1) steps (in
 * place, one round of them all: O(n)). */
typedef struct direct_state {
    const char *sendbuf;
    char *recvbuf;
    const int *sc, *sd, *rc_, *rd;
    size_t count, size;
    int n, me, tag, k, chunk;
} direct_state;

#define SLEN(d, j) ((d)->sc ? (size_t)(d)->sc[j] : (d)->count)
#define SAT(d, j) ((d)->sendbuf + ((d)->sc ? (size_t)(d)->sd[j] : (size_t)(j) * (d)->count) * \
                   (d)->size)
#define RLEN(d, j) ((d)->sc ? (size_t)(d)->rc_[j] : (d)->count)
#define RAT(d, j) ((d)->recvbuf + ((d)->sc ? (size_t)(d)->rd[j] : (size_t)(j) * (d)->count) * \
                   (d)->size)

static int direct_round(ecoi_sched *s, void *arg)
{
    direct_state *d = arg;
    const int stop = d->k + d->chunk < d->n ? d->k + d->chunk : d->n;

    /* Every pair exchanges a message, empty or not: a receiver whose
     * count differs from the sender's fails (ECO_ERR_MISMATCH). */
    for (int k = d->k; k < stop; k++) {
        int to = (d->me + k) % d->n;
        ecoi_sched_send(s, to, d->tag, SAT(d, to), SLEN(d, to));
    }
    for (int k = d->k; k < stop; k++) {
        int from = (d->me - k + d->n) % d->n;
        ecoi_sched_recv(s, from, d->tag, RAT(d, from), RLEN(d, from));
    }
    ecoi_sched_fence(s);
    d->k = stop;
    if (d->k < d->n)
        ecoi_sched_more(s, direct_round, d);
    return ECO_OK;
}

static void sched_direct(ecoi_sched *s, const char *sendbuf, const int *sc, const int *sd,
                         char *recvbuf, const int *rc_, const int *rd, size_t count)
{
    eco_ctx *c = s->c;
    direct_state *d = ecoi_sched_alloc(s, sizeof *d);

    if (!d)
        return;
    *d = (direct_state){ .sendbuf = sendbuf, .recvbuf = recvbuf, .sc = sc, .sd = sd,
                         .rc_ = rc_, .rd = rd, .count = count,
                         .size = ecoi_type_size(s->datatype), .n = c->n, .me = c->rank,
                         .tag = ecoi_next_tag(c), .k = 1,
                         /* in place, every send leaves before a receive
                          * writes over the blocks: one round */
                         .chunk = sendbuf == recvbuf ? c->n : ECOI_A2A_CHUNK };
    /* in place: the sends copy before any receive */
    ecoi_sched_copy(s, RAT(d, d->me), SAT(d, d->me), SLEN(d, d->me));
    direct_round(s, d);
}
#undef SLEN
#undef SAT
#undef RLEN
#undef RAT

/* What a leader's local steps of hier need: the forest's shape, copied
 * (the forest is freed when the schedule is made), and the buffers. */
typedef struct a2a_hier {
    size_t unit, row;
    int n, S, me;
    const int *lead, *order, *pos, *subtree;
    char *rows, *out, *pack, *inbox;
} a2a_hier;

/* The members of leader l's subnet tree, in its preorder. */
#define SUBTREE(h, l) ((h)->order + (h)->pos[l])

/* Before the exchange: the blocks that stay in the subnet, from rows to
 * out; every other leader's message, one after the other, into pack. */
static int hier_pack(void *arg)
{
    const a2a_hier *h = arg;
    const int ni = h->subtree[h->lead[h->me]], *mine = SUBTREE(h, h->lead[h->me]);
    size_t at = 0;

    /* block a -> b: rows[a's place][b's rank] to out[b's place][a's rank] */
    for (int ib = 0; ib < ni; ib++)
        for (int ia = 0; ia < ni; ia++)
            memcpy(h->out + (size_t)ib * h->row + (size_t)mine[ia] * h->unit,
                   h->rows + (size_t)ia * h->row + (size_t)mine[ib] * h->unit, h->unit);
    /* to the leader k ahead: its blocks for every b there, for every a here */
    for (int k = 1; k < h->S; k++) {
        int to = (h->me + k) % h->S, nt = h->subtree[h->lead[to]];
        const int *theirs = SUBTREE(h, h->lead[to]);
        for (int ib = 0; ib < nt; ib++)
            for (int ia = 0; ia < ni; ia++, at += h->unit)
                memcpy(h->pack + at,
                       h->rows + (size_t)ia * h->row + (size_t)theirs[ib] * h->unit, h->unit);
    }
    return ECO_OK;
}

/* After it: every leader's message, from inbox to out. */
static int hier_unpack(void *arg)
{
    const a2a_hier *h = arg;
    const int ni = h->subtree[h->lead[h->me]];
    size_t at = 0;

    for (int k = 1; k < h->S; k++) {
        int from = (h->me - k + h->S) % h->S, nf = h->subtree[h->lead[from]];
        const int *src = SUBTREE(h, h->lead[from]);
        for (int ib = 0; ib < ni; ib++)
            for (int ia = 0; ia < nf; ia++, at += h->unit)
                memcpy(h->out + (size_t)ib * h->row + (size_t)src[ia] * h->unit,
                       h->inbox + at, h->unit);
    }
    return ECO_OK;
}

static int *copy_ints(ecoi_sched *s, const int *v, int n)
{
    int *w = ecoi_sched_alloc(s, (size_t)n * sizeof *w);

    if (w)
        memcpy(w, v, (size_t)n * sizeof *w);
    return w;
}

/* The leaders' exchange in turns (ecoi_sched_turns): to the leader d
 * ahead its blocks from pack, from the one d behind into inbox, for
 * d = 1 .. S - 1, every message in as many segments as the longest of
 * all the leaders' (ni nj blocks) takes in segments of step elements. */
static void hier_exchange_turns(ecoi_sched *s, const eco_tree *f, const int *lead, int S,
                                int me, int tag, const a2a_hier *h, size_t count, size_t step)
{
    const size_t ni = (size_t)f->subtree[lead[me]];
    int *peer = malloc(2 * (size_t)S * sizeof *peer);
    char **buf = malloc(2 * (size_t)S * sizeof *buf);
    size_t *len = malloc(2 * (size_t)S * sizeof *len), most = 0, at = 0, in = 0;

    if (!peer || !buf || !len) {
        s->rc = ECO_ERR_NOMEM;
    } else {
        for (int i = 0; i < S; i++)
            for (int j = 0; j < S; j++)
                if (i != j && (size_t)f->subtree[lead[i]] * f->subtree[lead[j]] * count > most)
                    most = (size_t)f->subtree[lead[i]] * f->subtree[lead[j]] * count;
        for (int d = 1; d < S; d++) {
            peer[d - 1] = lead[(me + d) % S];
            len[d - 1] = (size_t)f->subtree[peer[d - 1]] * ni * count;
            buf[d - 1] = h->pack + at * (h->unit / count);
            at += len[d - 1];
            peer[S + d - 1] = lead[(me - d + S) % S];
            len[S + d - 1] = (size_t)f->subtree[peer[S + d - 1]] * ni * count;
            buf[S + d - 1] = h->inbox + in * (h->unit / count);
            in += len[S + d - 1];
        }
        ecoi_sched_turns(s, tag, S - 1, peer, buf, len, peer + S, buf + S, len + S,
                         ecoi_turns_of(most, step));
    }
    free(peer);
    free(buf);
    free(len);
}

static void sched_hier(ecoi_sched *s, const ecoi_plan *plan, const char *sendbuf,
                       char *recvbuf, size_t count)
{
    const int rounds = plan->run == ECOI_RUN_ROUNDS;
    eco_ctx *c = s->c;
    const size_t unit = count * ecoi_type_size(s->datatype), row = (size_t)c->n * unit;
    const int t1 = ecoi_next_tag(c), t2 = ecoi_next_tag(c), t3 = ecoi_next_tag(c);
    eco_tree *f = NULL;
    int *lead = NULL, S = 0, me = -1, rc;
    a2a_hier *h = NULL;

    if ((rc = ecoi_ctx_forest(c, plan, &f, &lead, &S, &me)) != ECO_OK) {
        s->rc = rc;
        return;
    }
    if (me >= 0 && (h = ecoi_sched_alloc(s, sizeof *h))) {
        /* rows: the subnet's send buffers; out: its receive buffers, both
         * in the subnet tree's preorder; pack: its messages to the other
         * leaders; inbox: theirs to it */
        const size_t ni = (size_t)f->subtree[lead[me]], away = (size_t)c->n - ni;
        h->unit = unit;
        h->row = row;
        h->n = c->n;
        h->S = S;
        h->me = me;
        h->lead = copy_ints(s, lead, S);
        h->order = copy_ints(s, f->order, c->n);
        h->pos = copy_ints(s, f->pos, c->n);
        h->subtree = copy_ints(s, f->subtree, c->n);
        h->rows = ecoi_sched_alloc(s, ni * row);
        h->out = ecoi_sched_alloc(s, ni * row);
        h->pack = ecoi_sched_alloc(s, away * ni * unit);
        h->inbox = ecoi_sched_alloc(s, away * ni * unit);
    }
    if (s->rc == ECO_OK) {
        ecoi_sched_gather(s, f, t1, sendbuf, h ? h->rows : NULL, (size_t)c->n * count);
        if (h) {
            /* At once: every send, to the leader k ahead for k = 1, 2,
             * ..., then the receives as they come (no subnet's link waits
             * for another's).  In rounds: to the leader k ahead and from
             * the one k behind, one round after the other (one stream
             * into every leader's link at a time).  In turns:
             * hier_exchange_turns.  select.c weighs the three. */
            const size_t ni = (size_t)f->subtree[lead[me]];
            size_t at = 0, in = 0;
            ecoi_sched_call(s, hier_pack, h);
            if (plan->run == ECOI_RUN_TURNS)
                hier_exchange_turns(s, f, lead, S, me, t2, h, count,
                                    ecoi_plan_step(plan, ecoi_type_size(s->datatype)));
            for (int k = 1; k < S && plan->run != ECOI_RUN_TURNS; k++) {
                size_t nt = (size_t)f->subtree[lead[(me + k) % S]];
                ecoi_sched_send(s, lead[(me + k) % S], t2, h->pack + at, nt * ni * count);
                at += nt * ni * unit;
                if (rounds) {
                    size_t nf = (size_t)f->subtree[lead[(me - k + S) % S]];
                    ecoi_sched_recv(s, lead[(me - k + S) % S], t2, h->inbox + in,
                                    ni * nf * count);
                    in += ni * nf * unit;
                    ecoi_sched_fence(s);
                }
            }
            for (int k = 1; k < S && plan->run == ECOI_RUN_HIER; k++) {
                size_t nf = (size_t)f->subtree[lead[(me - k + S) % S]];
                ecoi_sched_recv(s, lead[(me - k + S) % S], t2, h->inbox + in, ni * nf * count);
                in += ni * nf * unit;
            }
            ecoi_sched_fence(s);
            ecoi_sched_call(s, hier_unpack, h);
            ecoi_sched_fence(s);
        }
        ecoi_sched_scatter(s, f, t3, h ? h->out : NULL, recvbuf, (size_t)c->n * count, 0);
    }
    free(lead);
    eco_tree_free(&f);
}

static int alltoall_call(eco_ctx *ctx, const void *sendbuf, void *recvbuf, int count,
                         int datatype, eco_request **req)
{
    ecoi_plan plan;
    int rc = ecoi_check_rooted(ctx, sendbuf, count, datatype, 0, 0);
    size_t all;
    eco_request *r;
    ecoi_sched *s;

    if (rc != ECO_OK)
        return rc;
    all = (size_t)count * ecoi_type_size(datatype) * (size_t)ctx->n;
    if ((count > 0 && !recvbuf) || recvbuf == ECO_IN_PLACE)
        return ECO_ERR_ARG;
    if (sendbuf == ECO_IN_PLACE)              /* the blocks are in recvbuf */
        sendbuf = recvbuf;
    else if (ecoi_overlap(sendbuf, all, recvbuf, all))
        return ECO_ERR_ARG;
    if (!(r = ecoi_request_new(ctx, ECOI_KIND_ALLTOALL, count, datatype, NULL, 0, &rc)))
        return rc;
    s = &r->sched;
    if (count == 0) {
        ecoi_sched_empty(s);
        return req ? ecoi_request_start(r, req) : ecoi_request_run(r);
    }
    rc = ecoi_select(ctx, ECOI_C_ALLTOALL, 0, (size_t)count * ecoi_type_size(datatype), &plan);
    if (rc == ECO_OK && (plan.run == ECOI_RUN_HIER || plan.run == ECOI_RUN_ROUNDS ||
                         plan.run == ECOI_RUN_TURNS))
        sched_hier(s, &plan, sendbuf, recvbuf, (size_t)count);
    else if (rc == ECO_OK)
        sched_direct(s, sendbuf, NULL, NULL, recvbuf, NULL, NULL, (size_t)count);
    else
        s->rc = rc;
    return req ? ecoi_request_start(r, req) : ecoi_request_run(r);
}

int eco_alltoall(eco_ctx *ctx, const void *sendbuf, void *recvbuf, int count,
                 int datatype)
{
    return alltoall_call(ctx, sendbuf, recvbuf, count, datatype, NULL);
}

int eco_ialltoall(eco_ctx *ctx, const void *sendbuf, void *recvbuf, int count,
                  int datatype, eco_request **req)
{
    if (!req)
        return ECO_ERR_ARG;
    *req = NULL;
    return alltoall_call(ctx, sendbuf, recvbuf, count, datatype, req);
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
        return ecoi_fail_call(ctx, ECOI_KIND_ALLTOALLV, 0, datatype, NULL, 0, rc);
    if (rc != ECO_OK)
        return rc;
    if (sendcounts[ctx->rank] != recvcounts[ctx->rank])
        return ECO_ERR_ARG;
    if ((rc = ecoi_begin(ctx, ECOI_KIND_ALLTOALLV, 0, datatype, NULL, 0)) != ECO_OK)
        return rc;
    /* Members send and receive different amounts: the choice, the same
     * in all, is made for no bytes. */
    rc = ecoi_select(ctx, ECOI_C_ALLTOALLV, 0, 0, &plan);
    if (rc == ECO_OK) {
        ecoi_sched sv;
        ecoi_sched_init(&sv, ctx, datatype, NULL);
        sched_direct(&sv, sendbuf, sendcounts, sdispls, recvbuf, recvcounts, rdispls, 0);
        rc = ecoi_sched_run(&sv);
    }
    return ecoi_end(ctx, rc);
}
