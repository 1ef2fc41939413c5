/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scan.c -- inclusive and exclusive scan in rank order.
 *
 * Short vectors: the members' vectors are gathered at rank 0 up its tree,
 * rank 0 forms the prefixes in rank order (prefix[r] = prefix[r-1] op x[r])
 * and scatters them down the same tree: two tree passes, few hops, but
 * n * count elements through rank 0's link.
 *
 * Long vectors: a pipelined chain in rank order (select.c chooses).
 *
 *     x0 -> [0] -p0-> [1] -p1-> [2] -p2-> ... [n-1]      p_r = p_(r-1) op x_r
 *
 * Member r takes each segment of p_(r-1) from r-1, combines its own
 * segment and passes p_r on to r+1 at once, so segments stream down the
 * chain: about count * size / bandwidth + (n - 1) segment times, and no
 * member's link carries more than two vectors.
 *
 * Or recursive doubling in rank order (rdouble.c): ceil(log2 n) rounds of
 * whole vectors, the fewest rounds when the cost per message dominates.
 * Only associativity is needed of the op in all three.
 *
 * The exclusive scan (eco_exscan) runs the same three, shifted by one:
 * rank r gets p_(r-1), and rank 0 nothing.  The tree scatters the
 * prefixes moved one place up; in the chain rank r keeps what it takes
 * from r - 1 and passes on p_r, made beside it; recursive doubling
 * combines ranks 0 to r - 1 only.
 */
#include <stdlib.h>
#include <string.h>
#include "eco_coll.h"

/* exclusive: rank r gets prefix[r - 1], rank 0 nothing.  Rank 0 turns
 * the gathered inputs into prefixes: ranks[r] = ranks[r - 1] op ranks[r]. */
static void sched_scan_tree(ecoi_sched *s, const eco_tree *t, const void *sendbuf,
                            void *recvbuf, size_t count, int exclusive)
{
    eco_ctx *c = s->c;
    const size_t unit = count * ecoi_type_size(s->datatype);
    const int tag = ecoi_next_tag(c), tag2 = ecoi_next_tag(c);
    char *pre = NULL, *ranks = NULL;

    if (c->rank == 0) {
        pre = ecoi_sched_alloc(s, (size_t)c->n * unit);
        ranks = ecoi_sched_alloc(s, (size_t)c->n * unit);
        if (s->rc != ECO_OK)
            return;
    }
    ecoi_sched_gather(s, t, tag, sendbuf, pre, count);
    if (c->rank == 0) {
        ecoi_sched_unpack(s, t, pre, ranks, unit);
        for (int r = 1; r < c->n; r++)
            ecoi_sched_op(s, ranks + (size_t)r * unit, ranks + (size_t)(r - 1) * unit,
                          count, 1);
        if (exclusive)
            ecoi_sched_copy(s, ranks + unit, ranks, (size_t)(c->n - 1) * count);
        ecoi_sched_pack(s, t, ranks, pre, unit);
    }
    ecoi_sched_scatter(s, t, tag2, pre, exclusive && c->rank == 0 ? NULL : recvbuf, count, 0);
}

/* The pipelined chain in rank order (long vectors): rank r takes the
 * prefix of r - 1 and combines it on the left of its own. */
static void sched_scan_chain(ecoi_sched *s, const char *mine, char *out, size_t count,
                             size_t step)
{
    eco_ctx *c = s->c;
    const size_t size = ecoi_type_size(s->datatype);
    const int tag = ecoi_next_tag(c), me = c->rank;

    for (size_t off = 0; off < count; off += step) {
        size_t len = count - off < step ? count - off : step;
        char *seg = out + off * size;
        /* in place (mine == out), the prefix arrives beside, not over, mine */
        ecoi_sched_copy(s, seg, mine + off * size, len);
        if (me > 0)
            ecoi_sched_recv_op(s, me - 1, tag, seg, len, 1);
        ecoi_sched_fence(s);
        if (me + 1 < c->n) {
            ecoi_sched_send(s, me + 1, tag, seg, len);
            ecoi_sched_fence(s);
        }
    }
}

/* The exclusive chain: rank r takes prefix[r - 1] (its result) from
 * r - 1 and passes prefix[r - 1] op x_r on; rank 0 sends x_0. */
static void sched_exscan_chain(ecoi_sched *s, const char *mine, char *out, size_t count,
                               size_t step)
{
    eco_ctx *c = s->c;
    const size_t size = ecoi_type_size(s->datatype);
    const int tag = ecoi_next_tag(c), me = c->rank, last = me + 1 == c->n;
    /* got: the prefix from the left; acc: it combined with mine (both
     * beside out, which may be mine) */
    char *got = me > 0 ? ecoi_sched_alloc(s, 2 * step * size) : NULL;
    char *acc = got ? got + step * size : NULL;

    if (s->rc != ECO_OK)
        return;
    for (size_t off = 0; off < count; off += step) {
        size_t len = count - off < step ? count - off : step;
        const char *x = mine + off * size;
        if (me == 0) {
            if (!last)
                ecoi_sched_send(s, 1, tag, x, len);
            ecoi_sched_fence(s);
            continue;
        }
        ecoi_sched_recv(s, me - 1, tag, got, len);
        ecoi_sched_fence(s);
        if (!last) {
            ecoi_sched_copy(s, acc, got, len);
            ecoi_sched_op(s, acc, x, len, 0);
            ecoi_sched_send(s, me + 1, tag, acc, len);
        }
        ecoi_sched_copy(s, out + off * size, got, len);
        ecoi_sched_fence(s);
    }
}

/* The checks of eco_scan and eco_exscan; in place, *sendbuf becomes
 * recvbuf.  exclusive: rank 0's recvbuf may be NULL. */
static int scan_check(eco_ctx *ctx, const void **sendbuf, void *recvbuf, int count,
                      int datatype, eco_op op, int exclusive)
{
    const size_t bytes = (size_t)count * ecoi_type_size(datatype);
    int rc = ecoi_check_rooted(ctx, *sendbuf, count, datatype, 0, 0);

    if (rc == ECO_OK)
        rc = ecoi_op_check(op, datatype);
    if (rc != ECO_OK)
        return rc;
    if (recvbuf == ECO_IN_PLACE)
        return ECO_ERR_ARG;
    if (*sendbuf == ECO_IN_PLACE)             /* the input is in recvbuf */
        *sendbuf = recvbuf;
    else if (!(exclusive && ctx->rank == 0) &&   /* not significant there */
             ecoi_overlap(*sendbuf, bytes, recvbuf, recvbuf ? bytes : 0))
        return ECO_ERR_ARG;
    if (count > 0 && !recvbuf && (!exclusive || ctx->rank > 0 || !*sendbuf))
        return ECO_ERR_ARG;
    return ECO_OK;
}

/* eco_scan and eco_exscan (exclusive), blocking (req NULL) or not. */
static int scan_call(eco_ctx *ctx, const void *sendbuf, void *recvbuf, int count,
                     int datatype, eco_op op, int exclusive, eco_request **req)
{
    const eco_tree *t = NULL;
    ecoi_plan plan;
    size_t size;
    int rc = scan_check(ctx, &sendbuf, recvbuf, count, datatype, op, exclusive);
    eco_request *r;
    ecoi_sched *s;

    if (rc != ECO_OK)
        return rc;
    size = ecoi_type_size(datatype);
    if (!(r = ecoi_request_new(ctx, exclusive ? ECOI_KIND_EXSCAN : ECOI_KIND_SCAN, count,
                               datatype, op, 0, &rc)))
        return rc;
    s = &r->sched;
    if (count == 0) {
        ecoi_sched_empty(s);
        return req ? ecoi_request_start(r, req) : ecoi_request_run(r);
    }
    rc = ecoi_select(ctx, exclusive ? ECOI_C_EXSCAN : ECOI_C_SCAN, 0, (size_t)count * size,
                     &plan);
    if (rc == ECO_OK && plan.run == ECOI_RUN_RDOUBLE) {
        ecoi_sched_rdouble_scan(s, sendbuf, recvbuf, (size_t)count, exclusive);
    } else if (rc == ECO_OK && plan.run == ECOI_RUN_CHAIN) {
        size_t step = ecoi_plan_elems(&plan, (size_t)count, size);
        if (exclusive)
            sched_exscan_chain(s, sendbuf, recvbuf, (size_t)count, step);
        else
            sched_scan_chain(s, sendbuf, recvbuf, (size_t)count, step);
    } else {
        if (rc == ECO_OK)
            rc = ecoi_ctx_shape(ctx, 0, plan.shape, &t);
        if (rc == ECO_OK)
            sched_scan_tree(s, t, sendbuf, recvbuf, (size_t)count, exclusive);
    }
    if (rc != ECO_OK)
        s->rc = rc;
    return req ? ecoi_request_start(r, req) : ecoi_request_run(r);
}

int eco_scan(eco_ctx *ctx, const void *sendbuf, void *recvbuf, int count,
             int datatype, eco_op op)
{
    return scan_call(ctx, sendbuf, recvbuf, count, datatype, op, 0, NULL);
}

int eco_exscan(eco_ctx *ctx, const void *sendbuf, void *recvbuf, int count,
               int datatype, eco_op op)
{
    return scan_call(ctx, sendbuf, recvbuf, count, datatype, op, 1, NULL);
}

int eco_iscan(eco_ctx *ctx, const void *sendbuf, void *recvbuf, int count,
              int datatype, eco_op op, eco_request **req)
{
    if (!req)
        return ECO_ERR_ARG;
    *req = NULL;
    return scan_call(ctx, sendbuf, recvbuf, count, datatype, op, 0, req);
}
