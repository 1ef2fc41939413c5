/*
 * reduce.c -- reduce and reduce-to-all up the root's tree.
 *
 * Every member combines its own data with each child's partial result
 * (acc = acc op child, children in tree order) and sends the result to its
 * parent.  Long vectors are cut into segments, so partial results stream
 * up the tree.  Reduce-to-all reduces at rank 0 and broadcasts the result
 * down the same tree.  Ops must be associative and commutative: the tree
 * combines members in its own order, not in rank order.
 *
 * Reduce-to-all of a short vector inside one subnet uses recursive
 * doubling instead: log2 n rounds in which partners swap their partial
 * results, every member busy every round, none a bottleneck.  With n not
 * a power of two, the first 2 * rem ranks pair off first (the odd one
 * takes its even neighbour's vector and stands for both) and hand the
 * result back at the end:
 *
 *     n = 6, p = 4, rem = 2:   0->1  2->3    then 1,3,4,5 double:
 *     round 1: 1<->3  4<->5    round 2: 1<->4  3<->5    then 1->0  3->2
 *
 * Partners always combine as (lower op higher), so every member ends with
 * the very same bits.
 */
#include <stdlib.h>
#include <string.h>
#include "eco_coll.h"

int ecoi_tree_reduce(eco_ctx *c, const eco_tree *t, int tag, const void *mine,
                     void *result, size_t count, int datatype, eco_op op)
{
    const int me = c->rank, parent = t->parent[me];
    const size_t size = ecoi_type_size(datatype);
    size_t seg = ecoi_segment_for(c, count * size), step = seg ? seg / size : count;
    char *acc, *in;
    int rc = ECO_OK;

    if (step == 0)
        step = 1;
    if (step > count)
        step = count;
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

/* *acc = (lower op higher) of *acc and in; mine_lower says which is which. */
static int combine(eco_op op, int datatype, char *acc, char *in, size_t count,
                   int mine_lower)
{
    int rc;

    if (mine_lower)
        return ecoi_op_apply(op, datatype, acc, in, count);
    rc = ecoi_op_apply(op, datatype, in, acc, count);
    if (rc == ECO_OK)
        memcpy(acc, in, count * ecoi_type_size(datatype));
    return rc;
}

/* Reduce-to-all by recursive doubling (short vectors, one subnet). */
static int rd_allreduce(eco_ctx *c, const void *sendbuf, void *recvbuf,
                        size_t count, int datatype, eco_op op)
{
    const size_t unit = count * ecoi_type_size(datatype);
    const int n = c->n, r = c->rank, tag = ecoi_next_tag(c);
    int p = 1, rem, nr, rc = ECO_OK;
    char *acc = recvbuf, *in = malloc(unit + 1);

    if (!in)
        return ECO_ERR_NOMEM;
    while (p * 2 <= n)
        p *= 2;
    rem = n - p;
    memcpy(acc, sendbuf, unit);
    nr = r < 2 * rem ? (r % 2 ? r / 2 : -1) : r - rem;   /* rank among p */
    if (r < 2 * rem && r % 2 == 0) {
        rc = c->tp->send(c->tp, r + 1, tag, acc, count, datatype);
    } else if (r < 2 * rem) {
        rc = c->tp->recv(c->tp, r - 1, tag, in, count, datatype, NULL, 0);
        if (rc == ECO_OK)
            rc = combine(op, datatype, acc, in, count, 0);
    }
    for (int mask = 1; nr >= 0 && mask < p && rc == ECO_OK; mask <<= 1) {
        int pn = nr ^ mask, peer = pn < rem ? 2 * pn + 1 : pn + rem;
        /* PVM buffers sends, so sending before receiving cannot deadlock. */
        rc = c->tp->send(c->tp, peer, tag, acc, count, datatype);
        if (rc == ECO_OK)
            rc = c->tp->recv(c->tp, peer, tag, in, count, datatype, NULL, 0);
        if (rc == ECO_OK)
            rc = combine(op, datatype, acc, in, count, nr < pn);
    }
    if (rc == ECO_OK && r < 2 * rem)
        rc = r % 2 ? c->tp->send(c->tp, r - 1, tag, acc, count, datatype)
                   : c->tp->recv(c->tp, r + 1, tag, acc, count, datatype, NULL, 0);
    free(in);
    return rc;
}

int eco_reduce(eco_ctx *ctx, const void *sendbuf, void *recvbuf, int count,
               int datatype, eco_op op, int root)
{
    const eco_tree *t = NULL;
    int rc = ecoi_check_rooted(ctx, sendbuf, count, datatype, root, 1);
    int top;
    size_t bytes;

    if (rc == ECO_OK)
        rc = ecoi_op_check(op, datatype);
    if (rc != ECO_OK)
        return rc;
    if (count > 0 && !recvbuf && (root == ECO_ALL || root == ctx->rank))
        return ECO_ERR_ARG;
    if (count == 0)
        return ECO_OK;
    if ((rc = ecoi_begin(ctx)) != ECO_OK)
        return rc;
    top = root == ECO_ALL ? 0 : root;
    bytes = (size_t)count * ecoi_type_size(datatype);
    if (root == ECO_ALL && bytes < ECOI_SMALL_BYTES && ecoi_ctx_flat_net(ctx))
        return ecoi_end(ctx, rd_allreduce(ctx, sendbuf, recvbuf, (size_t)count, datatype, op));
    /* Short vectors fan in over stars inside subnets: the children send
     * at once, in parallel, and the parent only combines. */
    rc = bytes < ECOI_SMALL_BYTES ? ecoi_ctx_tree_flat(ctx, top, &t)
                                  : ecoi_ctx_tree_for(ctx, top, bytes, &t);
    if (rc == ECO_OK)
        rc = ecoi_tree_reduce(ctx, t, ecoi_next_tag(ctx), sendbuf, recvbuf,
                              (size_t)count, datatype, op);
    if (rc == ECO_OK && root == ECO_ALL && bytes < ECOI_SMALL_BYTES)
        rc = ecoi_ctx_tree_for(ctx, top, bytes, &t);
    if (rc == ECO_OK && root == ECO_ALL)
        rc = ecoi_tree_bcast(ctx, t, ecoi_next_tag(ctx), recvbuf, (size_t)count, datatype);
    return ecoi_end(ctx, rc);
}
