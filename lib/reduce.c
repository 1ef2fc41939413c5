/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * reduce.c -- reduce and reduce-to-all up the root's tree.
 *
 * Every member combines its own data with each child's partial result
 * (acc = acc op child, children in tree order) and sends the result to its
 * parent.  Long vectors are cut into segments, so partial results stream
 * up the tree.  Reduce-to-all either reduces at rank 0 and broadcasts the
 * result down the same tree, or runs rsag (below), or recursive doubling
 * (rdouble.c): select.c chooses.  Ops must be associative and
 * commutative: the tree combines members in its own order, not in rank
 * order.
 */
#include <stdlib.h>
#include <string.h>
#include "eco_coll.h"

int ecoi_tree_reduce(eco_ctx *c, const eco_tree *t, int tag, const void *mine,
                     void *result, size_t count, int datatype, eco_op op, size_t step)
{
    const int me = c->rank, parent = t->parent[me];
    const size_t size = ecoi_type_size(datatype);
    char *acc, *in;
    int rc = ECO_OK;

    if (step == 0 || step > count)
        step = count ? count : 1;
    acc = parent >= 0 ? malloc(step * size + 1) : NULL;
    in = malloc(step * size + 1);
    if ((parent >= 0 && !acc) || !in) {
        free(acc);
        free(in);
        return ECO_ERR_NOMEM;
    }
    for (size_t off = 0; off < count && rc == ECO_OK; off += step) {
        size_t len = count - off < step ? count - off : step;
        char *a = parent >= 0 ? acc : (char *)result + off * size;

        if (a != (const char *)mine + off * size)   /* else in place */
            memcpy(a, (const char *)mine + off * size, len * size);
        for (int i = t->child_off[me]; i < t->child_off[me + 1] && rc == ECO_OK; i++) {
            rc = c->tp->recv(c->tp, t->child[i], tag, in, len, datatype, NULL, 0);
            if (rc == ECO_OK)
                rc = ecoi_op_apply(op, datatype, a, in, len);
        }
        if (rc == ECO_OK && parent >= 0)
            rc = c->tp->send(c->tp, parent, tag, a, len, datatype);
    }
    free(acc);
    free(in);
    return rc;
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
 */
static int rsag(eco_ctx *c, const ecoi_plan *plan, const void *mine, void *result,
                size_t count, int datatype, eco_op op)
{
    const size_t size = ecoi_type_size(datatype);
    const size_t step = ecoi_plan_elems(plan, count, size);
    const int t1 = ecoi_next_tag(c), t2 = ecoi_next_tag(c);
    const int t3 = ecoi_next_tag(c), t4 = ecoi_next_tag(c);
    eco_tree *forest = NULL;
    int *lead = NULL, S = 0, me = -1, rc;
    char *in = NULL, *res = result;

    rc = ecoi_ctx_forest(c, plan, &forest, &lead, &S, &me);
    if (rc != ECO_OK)
        return rc;
    rc = ecoi_tree_reduce(c, forest, t1, mine, result, count, datatype, op, step);
    if (rc == ECO_OK && me >= 0) {
        /* piece j: elements [count * j / S, count * (j + 1) / S) */
#define LO(j) (count * (size_t)(j) / (size_t)S)
        const size_t mylen = LO(me + 1) - LO(me);
        if (!(in = malloc(mylen * size + 1)))
            rc = ECO_ERR_NOMEM;
        /* Round k: send to the leader k ahead, take from the one k
         * behind: one stream into and out of every subnet at a time
         * (several at once overflow the links' queues). */
        for (int k = 1; k < S && rc == ECO_OK; k++) {
            int j = (me + k) % S, from = (me - k + S) % S;
            if (LO(j + 1) > LO(j))
                rc = c->tp->send(c->tp, lead[j], t2, res + LO(j) * size,
                                 LO(j + 1) - LO(j), datatype);
            if (rc == ECO_OK && mylen)
                rc = c->tp->recv(c->tp, lead[from], t2, in, mylen, datatype, NULL, 0);
            if (rc == ECO_OK && mylen)
                rc = ecoi_op_apply(op, datatype, res + LO(me) * size, in, mylen);
        }
        for (int k = 1; k < S && rc == ECO_OK; k++) {
            int j = (me + k) % S, from = (me - k + S) % S;
            if (mylen)
                rc = c->tp->send(c->tp, lead[j], t3, res + LO(me) * size, mylen, datatype);
            if (rc == ECO_OK && LO(from + 1) > LO(from))
                rc = c->tp->recv(c->tp, lead[from], t3, res + LO(from) * size,
                                 LO(from + 1) - LO(from), datatype, NULL, 0);
        }
#undef LO
    }
    if (rc == ECO_OK)
        rc = ecoi_tree_bcast(c, forest, t4, result, count, datatype, step);
    free(in);
    free(lead);
    eco_tree_free(&forest);
    return rc;
}

int eco_reduce(eco_ctx *ctx, const void *sendbuf, void *recvbuf, int count,
               int datatype, eco_op op, int root)
{
    return ecoi_reduce(ctx, sendbuf, recvbuf, count, datatype, op, root, 0);
}

int ecoi_reduce(eco_ctx *ctx, const void *sendbuf, void *recvbuf, int count,
                int datatype, eco_op op, int root, unsigned flags)
{
    const eco_tree *t = NULL;
    const size_t size = ecoi_type_size(datatype);
    int rc = ecoi_check_rooted(ctx, sendbuf, count, datatype, root, 1);
    int top, gets;
    size_t step;
    ecoi_plan plan;

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
    if ((rc = ecoi_begin(ctx, ECOI_KIND_REDUCE, count, datatype, op, root)) != ECO_OK)
        return rc;
    if (count == 0)
        return ecoi_end(ctx, ecoi_empty(ctx));
    top = root == ECO_ALL ? 0 : root;
    rc = ecoi_select_flags(ctx, root == ECO_ALL ? ECOI_C_ALLREDUCE : ECOI_C_REDUCE, top,
                           (size_t)count * size, flags, &plan);
    if (rc == ECO_OK && plan.run == ECOI_RUN_RSAG)
        return ecoi_end(ctx, rsag(ctx, &plan, sendbuf, recvbuf, (size_t)count, datatype, op));
    if (rc == ECO_OK && plan.run == ECOI_RUN_RDOUBLE)
        return ecoi_end(ctx, ecoi_rdouble_allreduce(ctx, sendbuf, recvbuf, (size_t)count,
                                                    datatype, op));
    if (rc == ECO_OK)
        rc = ecoi_ctx_shape(ctx, top, plan.shape, &t);
    step = ecoi_plan_elems(&plan, (size_t)count, size);
    if (rc == ECO_OK)
        rc = ecoi_tree_reduce(ctx, t, ecoi_next_tag(ctx), sendbuf, recvbuf,
                              (size_t)count, datatype, op, step);
    if (rc == ECO_OK && root == ECO_ALL)
        rc = ecoi_tree_bcast(ctx, t, ecoi_next_tag(ctx), recvbuf, (size_t)count, datatype, step);
    return ecoi_end(ctx, rc);
}
