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

/* exclusive: rank r gets prefix[r - 1], rank 0 nothing. */
static int scan_run(eco_ctx *ctx, const eco_tree *t, const void *sendbuf,
                    void *recvbuf, size_t count, int datatype, eco_op op, int exclusive)
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
        if (exclusive)
            memmove(ranks + unit, ranks, (size_t)(ctx->n - 1) * unit);
        ecoi_ranks_to_preorder(t, ranks, pre, unit);
    }
    /* On failure (here or below) ecoi_end aborts the tree neighbours. */
    if (rc == ECO_OK)
        rc = ecoi_tree_scatter(ctx, t, tag2, pre, exclusive && ctx->rank == 0 ? NULL : recvbuf,
                               count, datatype);
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

/* The exclusive chain: rank r takes prefix[r - 1] (its result) from
 * r - 1 and passes prefix[r - 1] op x_r on; rank 0 sends x_0. */
static int exscan_chain(eco_ctx *c, const char *mine, char *out, size_t count,
                        int datatype, eco_op op, size_t step)
{
    const size_t size = ecoi_type_size(datatype);
    const int tag = ecoi_next_tag(c), me = c->rank, last = me + 1 == c->n;
    /* got: the prefix from the left; acc: it combined with mine (both
     * beside out, which may be mine) */
    char *got = me > 0 ? malloc(2 * step * size + 1) : NULL, *acc = got ? got + step * size : NULL;
    int rc = me > 0 && !got ? ECO_ERR_NOMEM : ECO_OK;

    for (size_t off = 0; off < count && rc == ECO_OK; off += step) {
        size_t len = count - off < step ? count - off : step;
        const char *x = mine + off * size;
        if (me == 0) {
            rc = last ? ECO_OK : c->tp->send(c->tp, 1, tag, x, len, datatype);
            continue;
        }
        rc = c->tp->recv(c->tp, me - 1, tag, got, len, datatype, NULL, 0);
        if (rc == ECO_OK && !last) {
            memcpy(acc, got, len * size);
            rc = ecoi_op_apply(op, datatype, acc, x, len);
            if (rc == ECO_OK)
                rc = c->tp->send(c->tp, me + 1, tag, acc, len, datatype);
        }
        if (rc == ECO_OK)
            memcpy(out + off * size, got, len * size);
    }
    free(got);
    return rc;
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

/* eco_scan and eco_exscan (exclusive). */
static int scan_call(eco_ctx *ctx, const void *sendbuf, void *recvbuf, int count,
                     int datatype, eco_op op, int exclusive)
{
    const eco_tree *t = NULL;
    ecoi_plan plan;
    size_t size;
    int rc = scan_check(ctx, &sendbuf, recvbuf, count, datatype, op, exclusive);

    if (rc != ECO_OK)
        return rc;
    size = ecoi_type_size(datatype);
    rc = ecoi_begin(ctx, exclusive ? ECOI_KIND_EXSCAN : ECOI_KIND_SCAN, count, datatype, op, 0);
    if (rc != ECO_OK)
        return rc;
    if (count == 0)
        return ecoi_end(ctx, ecoi_empty(ctx));
    rc = ecoi_select(ctx, exclusive ? ECOI_C_EXSCAN : ECOI_C_SCAN, 0, (size_t)count * size,
                     &plan);
    if (rc == ECO_OK && plan.run == ECOI_RUN_RDOUBLE)
        return ecoi_end(ctx, ecoi_rdouble_scan(ctx, sendbuf, recvbuf, (size_t)count, datatype,
                                               op, exclusive));
    if (rc == ECO_OK && plan.run == ECOI_RUN_CHAIN) {
        size_t step = ecoi_plan_elems(&plan, (size_t)count, size);
        return ecoi_end(ctx, exclusive ? exscan_chain(ctx, sendbuf, recvbuf, (size_t)count,
                                                      datatype, op, step)
                                       : scan_chain(ctx, sendbuf, recvbuf, (size_t)count,
                                                    datatype, op, step));
    }
    if (rc == ECO_OK)
        rc = ecoi_ctx_shape(ctx, 0, plan.shape, &t);
    if (rc == ECO_OK)
        rc = scan_run(ctx, t, sendbuf, recvbuf, (size_t)count, datatype, op, exclusive);
    return ecoi_end(ctx, rc);
}

int eco_scan(eco_ctx *ctx, const void *sendbuf, void *recvbuf, int count,
             int datatype, eco_op op)
{
    return scan_call(ctx, sendbuf, recvbuf, count, datatype, op, 0);
}

int eco_exscan(eco_ctx *ctx, const void *sendbuf, void *recvbuf, int count,
               int datatype, eco_op op)
{
    return scan_call(ctx, sendbuf, recvbuf, count, datatype, op, 1);
}
