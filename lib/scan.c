/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scan.c -- inclusive scan in rank order.
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
 */
#include <stdlib.h>
#include <string.h>
#include "eco_coll.h"

/* At rank 0: rank-ordered inputs in `ranks` become inclusive prefixes. */
static int prefixes(eco_op op, int datatype, char *ranks, int n, size_t count)
{
    const size_t unit = count * ecoi_type_size(datatype);
    char *tmp = malloc(unit);
    int rc = ECO_OK;

    if (!tmp)
        return ECO_ERR_NOMEM;
    for (int r = 1; r < n && rc == ECO_OK; r++) {
        memcpy(tmp, ranks + (size_t)(r - 1) * unit, unit);
        rc = ecoi_op_apply(op, datatype, tmp, ranks + (size_t)r * unit, count);
        memcpy(ranks + (size_t)r * unit, tmp, unit);
    }
    free(tmp);
    return rc;
}

static int scan_run(eco_ctx *ctx, const eco_tree *t, const void *sendbuf,
                    void *recvbuf, size_t count, int datatype, eco_op op)
{
    const size_t unit = count * ecoi_type_size(datatype);
    const int tag = ecoi_next_tag(ctx), tag2 = ecoi_next_tag(ctx);
    char *pre = NULL, *ranks = NULL;
    int rc;

    if (ctx->rank == 0) {
        pre = malloc((size_t)ctx->n * unit);
        ranks = malloc((size_t)ctx->n * unit);
        if (!pre || !ranks) {
            free(pre);
            free(ranks);
            return ECO_ERR_NOMEM;
        }
    }
    rc = ecoi_tree_gather(ctx, t, tag, sendbuf, pre, count, datatype);
    if (rc == ECO_OK && ctx->rank == 0) {
        ecoi_preorder_to_ranks(t, pre, ranks, unit);
        rc = prefixes(op, datatype, ranks, ctx->n, count);
        ecoi_ranks_to_preorder(t, ranks, pre, unit);
    }
    /* On failure (here or below) ecoi_end aborts the tree neighbours. */
    if (rc == ECO_OK)
        rc = ecoi_tree_scatter(ctx, t, tag2, pre, recvbuf, count, datatype);
    free(pre);
    free(ranks);
    return rc;
}

/* The pipelined chain in rank order (long vectors). */
static int scan_chain(eco_ctx *c, const char *mine, char *out, size_t count,
                      int datatype, eco_op op, size_t step)
{
    const size_t size = ecoi_type_size(datatype);
    const int tag = ecoi_next_tag(c), me = c->rank;
    /* In place (mine == out), the prefix arrives beside, not over, mine. */
    char *in = me > 0 && mine == out ? malloc(step * size + 1) : NULL;
    int rc = me > 0 && mine == out && !in ? ECO_ERR_NOMEM : ECO_OK;

    for (size_t off = 0; off < count && rc == ECO_OK; off += step) {
        size_t len = count - off < step ? count - off : step;
        char *seg = out + off * size, *got = in ? in : seg;
        if (me > 0) {
            rc = c->tp->recv(c->tp, me - 1, tag, got, len, datatype, NULL, 0);
            if (rc == ECO_OK)
                rc = ecoi_op_apply(op, datatype, got, mine + off * size, len);
            if (rc == ECO_OK && in)
                memcpy(seg, in, len * size);
        } else if (seg != mine + off * size) {
            memcpy(seg, mine + off * size, len * size);
        }
        if (rc == ECO_OK && me + 1 < c->n)
            rc = c->tp->send(c->tp, me + 1, tag, seg, len, datatype);
    }
    free(in);
    return rc;
}

int eco_scan(eco_ctx *ctx, const void *sendbuf, void *recvbuf, int count,
             int datatype, eco_op op)
{
    const eco_tree *t = NULL;
    const size_t size = ecoi_type_size(datatype);
    ecoi_plan plan;
    int rc = ecoi_check_rooted(ctx, sendbuf, count, datatype, 0, 0);

    if (rc == ECO_OK)
        rc = ecoi_op_check(op, datatype);
    if (rc != ECO_OK)
        return rc;
    if ((count > 0 && !recvbuf) || recvbuf == ECO_IN_PLACE)
        return ECO_ERR_ARG;
    if (sendbuf == ECO_IN_PLACE)              /* the input is in recvbuf */
        sendbuf = recvbuf;
    else if (ecoi_overlap(sendbuf, (size_t)count * size, recvbuf, (size_t)count * size))
        return ECO_ERR_ARG;
    if ((rc = ecoi_begin(ctx, ECOI_KIND_SCAN, count, datatype, op, 0)) != ECO_OK)
        return rc;
    if (count == 0)
        return ecoi_end(ctx, ecoi_empty(ctx));
    rc = ecoi_select(ctx, ECOI_C_SCAN, 0, (size_t)count * size, &plan);
    if (rc == ECO_OK && plan.run == ECOI_RUN_RDOUBLE)
        return ecoi_end(ctx, ecoi_rdouble_scan(ctx, sendbuf, recvbuf, (size_t)count, datatype,
                                               op));
    if (rc == ECO_OK && plan.run == ECOI_RUN_CHAIN)
        return ecoi_end(ctx, scan_chain(ctx, sendbuf, recvbuf, (size_t)count, datatype, op,
                                        ecoi_plan_elems(&plan, (size_t)count, size)));
    if (rc == ECO_OK)
        rc = ecoi_ctx_shape(ctx, 0, plan.shape, &t);
    if (rc == ECO_OK)
        rc = scan_run(ctx, t, sendbuf, recvbuf, (size_t)count, datatype, op);
    return ecoi_end(ctx, rc);
}
