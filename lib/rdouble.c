/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdouble.c -- recursive doubling: reduce-to-all and scan in about
 * log2(n) rounds of whole vectors, for short vectors, where PVM's cost
 * per message and the number of rounds, not the bytes, set the time.
 *
 * Reduce-to-all ("rdouble").  The members take positions in eco_ring's
 * order, where each subnet's members, and inside it each host's, are
 * contiguous.  With p the largest power of two <= n and e = n - p,
 * positions 0, 2, ..., 2e - 2 first fold their vector into the next
 * position and wait.  The other p, numbered 0 to p - 1 in position order
 * (eco_coll.h: ecoi_rd_number), exchange their whole vectors with the
 * number at distance 1, 2, 4, ... (number XOR distance) and combine.
 * At the end each folded position takes the result from its partner.
 *
 *     n = 6, p = 4:   positions  0  1  2  3  4  5
 *                     numbers    -  0  -  1  2  3
 *     fold            0 -> 1, 2 -> 3
 *     distance 1      0 <-> 1, 2 <-> 3     (positions 1 <-> 3, 4 <-> 5)
 *     distance 2      0 <-> 2, 1 <-> 3     (positions 1 <-> 4, 3 <-> 5)
 *     unfold          1 -> 0, 3 -> 2
 *
 * Neighbours in the ring pair first, so the first rounds stay inside a
 * host or a subnet and only the last ones cross the slow links.
 *
 * Every pair combines the lower position's vector on the left.  After
 * the round at distance d, the members of each aligned group of 2d
 * numbers hold the same bits (the group's vectors combined in position
 * order); the two halves of the next group start from the same two
 * operands in the same order and make the same bits again.  So every
 * member ends with exactly the same result, as with the trees, though
 * every member computes it.
 *
 * Scan ("rdouble", Hillis and Steele).  In round d = 1, 2, 4, ... while
 * d < n, rank r sends its partial result, the ranks r - 2d + 1 .. r
 * combined, to rank r + d and combines the one from rank r - d on its
 * left: after the round it holds ranks r - 2d + 1 .. r (from 0 at most).
 * ceil(log2 n) rounds, n - d messages each; operands stay in rank order,
 * so only associativity is needed of the op.
 */
#include <stdlib.h>
#include <string.h>
#include "eco_coll.h"

/* acc = in op acc: in holds the lower positions (or ranks). */
static int combine_left(eco_op op, int datatype, char *acc, char *in, size_t count)
{
    int rc = ecoi_op_apply(op, datatype, in, acc, count);

    if (rc == ECO_OK)
        memcpy(acc, in, count * ecoi_type_size(datatype));
    return rc;
}

int ecoi_rdouble_allreduce(eco_ctx *c, const void *mine, void *result, size_t count,
                           int datatype, eco_op op)
{
    const int n = c->n, p = ecoi_rd_pow2(n);
    const int fold = ecoi_next_tag(c), round = ecoi_next_tag(c), unfold = ecoi_next_tag(c);
    const int *ring = NULL;
    int pos = 0, num, partner, rc = ecoi_ctx_ring(c, &ring);
    char *acc = result, *in = NULL;

    if (rc != ECO_OK)
        return rc;
    while (ring[pos] != c->rank)
        pos++;
    num = ecoi_rd_number(n, pos);
    partner = pos > 0 && ecoi_rd_number(n, pos - 1) < 0;   /* 2i + 1 of a fold */
    memcpy(acc, mine, count * ecoi_type_size(datatype));
    if (num < 0) {
        /* folded: my vector to the next position, the result back from it */
        rc = c->tp->send(c->tp, ring[pos + 1], fold, acc, count, datatype);
        if (rc == ECO_OK)
            rc = c->tp->recv(c->tp, ring[pos + 1], unfold, acc, count, datatype, NULL, 0);
        return rc;
    }
    if (!(in = malloc(count * ecoi_type_size(datatype) + 1)))
        return ECO_ERR_NOMEM;
    /* the folded vector of the position before goes on the left */
    if (partner) {
        rc = c->tp->recv(c->tp, ring[pos - 1], fold, in, count, datatype, NULL, 0);
        if (rc == ECO_OK)
            rc = combine_left(op, datatype, acc, in, count);
    }
    for (int d = 1; d < p && rc == ECO_OK; d *= 2) {
        int peer = ring[ecoi_rd_position(n, num ^ d)];
        /* PVM buffers sends: both members send first, then receive */
        rc = c->tp->send(c->tp, peer, round, acc, count, datatype);
        if (rc == ECO_OK)
            rc = c->tp->recv(c->tp, peer, round, in, count, datatype, NULL, 0);
        if (rc == ECO_OK)
            rc = (num ^ d) < num ? combine_left(op, datatype, acc, in, count)
                                 : ecoi_op_apply(op, datatype, acc, in, count);
    }
    if (rc == ECO_OK && partner)
        rc = c->tp->send(c->tp, ring[pos - 1], unfold, acc, count, datatype);
    free(in);
    return rc;
}

int ecoi_rdouble_scan(eco_ctx *c, const void *mine, void *result, size_t count,
                      int datatype, eco_op op)
{
    const int n = c->n, me = c->rank, tag = ecoi_next_tag(c);
    char *acc = result, *in = malloc(count * ecoi_type_size(datatype) + 1);
    int rc = ECO_OK;

    if (!in)
        return ECO_ERR_NOMEM;
    memcpy(acc, mine, count * ecoi_type_size(datatype));
    /* Every round's message to r + d leaves before the one from r - d is
     * combined: it carries the partial result of the round before. */
    for (int d = 1; d < n && rc == ECO_OK; d *= 2) {
        if (me + d < n)
            rc = c->tp->send(c->tp, me + d, tag, acc, count, datatype);
        if (rc == ECO_OK && me - d >= 0) {
            rc = c->tp->recv(c->tp, me - d, tag, in, count, datatype, NULL, 0);
            if (rc == ECO_OK)
                rc = combine_left(op, datatype, acc, in, count);
        }
    }
    free(in);
    return rc;
}
