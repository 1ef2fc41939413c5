/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * reduce.c -- reduce and reduce-to-all up the root's tree.
 *
 * Every member combines its own data with each child's partial result
 * (acc = acc op child, children as their messages arrive) and sends the result to its
 * parent.  Long vectors are cut into segments, so partial results stream
 * up the tree.  Reduce-to-all either reduces at rank 0 and broadcasts the
 * result down the same tree, the two passes pipelined into each other
 * (ecoi_sched_allreduce), or runs rsag (below), or recursive doubling
 * (rdouble.c), or the ring (ring_reduce.c): select.c chooses.  Ops must
 * be associative and commutative: the tree combines members in its own
 * order, not in rank order.
 */
#include <stdlib.h>
#include <string.h>
#include "eco_coll.h"

int ecoi_tree_reduce(eco_ctx *c, const eco_tree *t, int tag, const void *mine,
                     void *result, size_t count, int datatype, eco_op op, size_t step)
{
    ecoi_sched s;

    ecoi_sched_init(&s, c, datatype, op);
    ecoi_sched_reduce(&s, t, tag, mine, result, count, step);
    return ecoi_sched_run(&s);
}

/*
 * Reduce-to-all among subnets ("rsag"): the subnets' own trees reduce to
 * one leader per subnet; the leaders split the vector into one piece per
 * subnet and each reduces one piece (every leader sends piece j to leader
 * j: a reduce-scatter), then every leader sends its piece to the others
 * (a gather-to-all); the subnets' trees broadcast the result.  Each
 * subnet's shared link carries 2 (S - 1) / S vectors each way, against
 * two whole vectors through the busiest link for reduce-then-broadcast.
 *
 *     subnet A   a2 -> a1 --piece B-->  b1   <- b2    subnet B
 *                      a1 <--piece A--  b1
 *                      a1 --result A--> b1 ...        then down again
 *
 * All of it is pipelined (ecoi_sched_allreduce): the vector goes in
 * chunks of the plan's segment, and the leaders exchange the pieces of
 * chunk c while their subnets reduce chunk c + 1 and take chunk c - 1
 * down.  The exchange is the leaders' middle stages: 2 (S - 1) rounds.
 */
typedef struct rsag {
    const int *lead;
    int S, me, t2, t3;
    char *res;
    size_t size;
} rsag;

/* Stage k of the chunk [off, off + len): reduce-scatter round k (k < S),
 * else gather-to-all round k - (S - 1).  Round k: send to the leader k
 * ahead, take from the one k behind: one stream into and out of every
 * subnet at a time (several at once overflow the links' queues). */
static void rsag_stage(ecoi_sched *s, void *arg, int k, size_t off, size_t len)
{
    const rsag *g = arg;
    const int S = g->S, me = g->me, gather = k >= S, d = gather ? k - (S - 1) : k;
    const int to = (me + d) % S, from = (me - d + S) % S;
#define LO(j) (off + len * (size_t)(j) / (size_t)S)
#define PIECE(j) (g->res + LO(j) * g->size), (LO((j) + 1) - LO(j))

    if (!gather) {      /* piece `to` there, piece me combined here */
        if (LO(to + 1) > LO(to))
            ecoi_sched_send(s, g->lead[to], g->t2, PIECE(to));
        if (LO(me + 1) > LO(me))
            ecoi_sched_recv_op(s, g->lead[from], g->t2, PIECE(me), 0);
    } else {            /* piece me there, piece `from` here */
        if (LO(me + 1) > LO(me))
            ecoi_sched_send(s, g->lead[to], g->t3, PIECE(me));
        if (LO(from + 1) > LO(from))
            ecoi_sched_recv(s, g->lead[from], g->t3, PIECE(from));
    }
#undef PIECE
#undef LO
}

static void sched_rsag(ecoi_sched *s, const ecoi_plan *plan, const void *mine,
                       void *result, size_t count)
{
    eco_ctx *c = s->c;
    const size_t size = ecoi_type_size(s->datatype);
    const size_t step = ecoi_plan_elems(plan, count, size);
    const int t1 = ecoi_next_tag(c), t2 = ecoi_next_tag(c);
    const int t3 = ecoi_next_tag(c), t4 = ecoi_next_tag(c);
    eco_tree *forest = NULL;
    int *lead = NULL, S = 0, me = -1, rc;
    rsag g;

    if ((rc = ecoi_ctx_forest(c, plan, &forest, &lead, &S, &me)) != ECO_OK) {
        s->rc = rc;
        return;
    }
    g.lead = lead;
    g.S = S;
    g.me = me;
    g.t2 = t2;
    g.t3 = t3;
    g.res = result;
    g.size = size;
    /* every member counts the leaders' stages: its lag down depends on them */
    ecoi_sched_allreduce(s, forest, t1, t4, mine, result, count, step, 2 * (S - 1),
                         rsag_stage, &g);
    free(lead);
    eco_tree_free(&forest);
}

int eco_reduce(eco_ctx *ctx, const void *sendbuf, void *recvbuf, int count,
               int datatype, eco_op op, int root)
{
    return ecoi_reduce(ctx, sendbuf, recvbuf, count, datatype, op, root, 0);
}

static int reduce_call(eco_ctx *ctx, const void *sendbuf, void *recvbuf, int count,
                       int datatype, eco_op op, int root, unsigned flags, eco_request **req)
{
    const eco_tree *t = NULL;
    const size_t size = ecoi_type_size(datatype);
    int rc = ecoi_check_rooted(ctx, sendbuf, count, datatype, root, 1);
    int top, gets;
    size_t step;
    ecoi_plan plan;
    eco_request *r;
    ecoi_sched *s;

    if (rc == ECO_OK)
        rc = ecoi_op_check(op, datatype);
    if (rc != ECO_OK)
        return rc;
    gets = root == ECO_ALL || root == ctx->rank;
    if ((count > 0 && gets && !recvbuf) || recvbuf == ECO_IN_PLACE)
        return ECO_ERR_ARG;
    if (sendbuf == ECO_IN_PLACE) {            /* the input is in recvbuf */
        if (!gets)
            return ECO_ERR_ARG;
        sendbuf = recvbuf;
    } else if (gets && ecoi_overlap(sendbuf, (size_t)count * size, recvbuf,
                                    (size_t)count * size)) {
        return ECO_ERR_ARG;
    }
    if (!(r = ecoi_request_new(ctx, ECOI_KIND_REDUCE, count, datatype, op, root, &rc)))
        return rc;
    s = &r->sched;
    if (count == 0) {
        ecoi_sched_empty(s);
        return req ? ecoi_request_start(r, req) : ecoi_request_run(r);
    }
    top = root == ECO_ALL ? 0 : root;
    rc = ecoi_select_flags(ctx, root == ECO_ALL ? ECOI_C_ALLREDUCE : ECOI_C_REDUCE, top,
                           (size_t)count * size, flags, &plan);
    if (rc == ECO_OK && plan.run == ECOI_RUN_RSAG) {
        sched_rsag(s, &plan, sendbuf, recvbuf, (size_t)count);
    } else if (rc == ECO_OK && plan.run == ECOI_RUN_RDOUBLE) {
        ecoi_sched_rdouble(s, sendbuf, recvbuf, (size_t)count);
    } else if (rc == ECO_OK && plan.run == ECOI_RUN_RING) {
        ecoi_sched_ring_allreduce(s, sendbuf, recvbuf, (size_t)count);
    } else {
        if (rc == ECO_OK)
            rc = ecoi_ctx_shape(ctx, top, plan.shape, &t);
        step = ecoi_plan_elems(&plan, (size_t)count, size);
        if (rc == ECO_OK && root == ECO_ALL) {
            const int up = ecoi_next_tag(ctx), down = ecoi_next_tag(ctx);
            ecoi_sched_allreduce(s, t, up, down, sendbuf, recvbuf, (size_t)count, step,
                                 0, NULL, NULL);
        } else if (rc == ECO_OK) {
            ecoi_sched_reduce(s, t, ecoi_next_tag(ctx), sendbuf, recvbuf, (size_t)count,
                              step);
        }
    }
    if (rc != ECO_OK)
        s->rc = rc;
    return req ? ecoi_request_start(r, req) : ecoi_request_run(r);
}

int ecoi_reduce(eco_ctx *ctx, const void *sendbuf, void *recvbuf, int count,
                int datatype, eco_op op, int root, unsigned flags)
{
    return reduce_call(ctx, sendbuf, recvbuf, count, datatype, op, root, flags, NULL);
}

int eco_ireduce(eco_ctx *ctx, const void *sendbuf, void *recvbuf, int count,
                int datatype, eco_op op, int root, eco_request **req)
{
    if (!req)
        return ECO_ERR_ARG;
    *req = NULL;
    return reduce_call(ctx, sendbuf, recvbuf, count, datatype, op, root, 0, req);
}
