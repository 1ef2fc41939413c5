/*
 * scan.c -- inclusive scan in rank order.
 *
 * The members' vectors are gathered at rank 0 up its tree, rank 0 forms
 * the prefixes in rank order (prefix[r] = prefix[r-1] op x[r]) and
 * scatters them down the same tree.  Only associativity is needed of the
 * op.  Cost: two tree passes carrying n * count elements at the top.
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

int eco_scan(eco_ctx *ctx, const void *sendbuf, void *recvbuf, int count,
             int datatype, eco_op op)
{
    const eco_tree *t = NULL;
    int rc = ecoi_check_rooted(ctx, sendbuf, count, datatype, 0, 0);

    if (rc == ECO_OK)
        rc = ecoi_op_check(op, datatype);
    if (rc != ECO_OK)
        return rc;
    if (count > 0 && !recvbuf)
        return ECO_ERR_ARG;
    if (count == 0)
        return ECO_OK;
    if ((rc = ecoi_begin(ctx)) != ECO_OK)
        return rc;
    rc = ecoi_ctx_tree_flat(ctx, 0, &t);
    if (rc == ECO_OK)
        rc = scan_run(ctx, t, sendbuf, recvbuf, (size_t)count, datatype, op);
    return ecoi_end(ctx, rc);
}
