/*
 * reduce.c -- reduce and reduce-to-all up the root's tree.
 *
 * Every member combines its own data with each child's partial result
 * (acc = acc op child, children in tree order) and sends the result to its
 * parent.  Long vectors are cut into segments, so partial results stream
 * up the tree.  Reduce-to-all reduces at rank 0 and broadcasts the result
 * down the same tree.  Ops must be associative and commutative: the tree
 * combines members in its own order, not in rank order.
 */
#include <stdlib.h>
#include <string.h>
#include "eco_coll.h"

int ecoi_tree_reduce(eco_ctx *c, const eco_tree *t, int tag, const void *mine,
                     void *result, size_t count, int datatype, eco_op op)
{
    const int me = c->rank, parent = t->parent[me];
    const size_t size = ecoi_type_size(datatype);
    const size_t step = ecoi_segment_elems(c, count, size);
    char *acc, *in;
    int rc = ECO_OK;

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

int eco_reduce(eco_ctx *ctx, const void *sendbuf, void *recvbuf, int count,
               int datatype, eco_op op, int root)
{
    const eco_tree *t = NULL;
    int rc = ecoi_check_rooted(ctx, sendbuf, count, datatype, root, 1);
    int top;

    if (rc == ECO_OK)
        rc = ecoi_op_check(op, datatype);
    if (rc != ECO_OK)
        return rc;
    if (count > 0 && !recvbuf && (root == ECO_ALL || root == ctx->rank))
        return ECO_ERR_ARG;
    if ((rc = ecoi_begin(ctx, ECOI_KIND_REDUCE, count, datatype, op, root)) != ECO_OK)
        return rc;
    if (count == 0)
        return ecoi_end(ctx, ecoi_empty(ctx));
    top = root == ECO_ALL ? 0 : root;
    rc = ecoi_ctx_tree_for(ctx, top, (size_t)count * ecoi_type_size(datatype), &t);
    if (rc == ECO_OK)
        rc = ecoi_tree_reduce(ctx, t, ecoi_next_tag(ctx), sendbuf, recvbuf,
                              (size_t)count, datatype, op);
    if (rc == ECO_OK && root == ECO_ALL)
        rc = ecoi_tree_bcast(ctx, t, ecoi_next_tag(ctx), recvbuf, (size_t)count, datatype);
    return ecoi_end(ctx, rc);
}
