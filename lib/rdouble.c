/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdouble.c -- recursive doubling: reduce-to-all and scan in about
 * log2(n) rounds, for short vectors, where PVM's cost per message and
 * the number of rounds, not the bytes, set the time.
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
 * Scan ("rdouble").  Recursive doubling of the operands, not of partial
 * results: in round d = 1, 2, 4, ... while d < n, rank r sends every
 * vector it holds, those of ranks r - d + 1 .. r (from 0 at most), to
 * rank r + d, and takes those of ranks r - 2d + 1 .. r - d from rank
 * r - d.  After ceil(log2 n) rounds rank r holds the vectors of ranks 0
 * to r and makes its prefix from left to right, x_0 op x_1 op ... op x_r
 * grouped as the tree and chain scans group it, so the three give the
 * same bits (Hillis and Steele's partial results would group
 * (x_0 op x_1) op (x_2 op x_3), another rounding of float sums).  Rank r
 * receives r vectors, in messages of 1, 2, 4, ... vectors: for the short
 * vectors it is chosen for, the rounds cost, not the bytes.
 */
#include <stdlib.h>
#include <string.h>
#include "eco_coll.h"

void ecoi_sched_rdouble(ecoi_sched *s, const void *mine, void *result, size_t count)
{
    eco_ctx *c = s->c;
    const int n = c->n, p = ecoi_rd_pow2(n);
    const int fold = ecoi_next_tag(c), round = ecoi_next_tag(c), unfold = ecoi_next_tag(c);
    const int *ring = NULL;
    int pos = 0, num, partner, rc = ecoi_ctx_ring(c, &ring);
    char *acc = result;

    if (rc != ECO_OK) {
        s->rc = rc;
        return;
    }
    while (ring[pos] != c->rank)
        pos++;
    num = ecoi_rd_number(n, pos);
    partner = pos > 0 && ecoi_rd_number(n, pos - 1) < 0;   /* 2i + 1 of a fold */
    ecoi_sched_copy(s, acc, mine, count);     /* nothing in place */
    if (num < 0) {
        /* folded: my vector to the next position, the result back from it */
        ecoi_sched_send(s, ring[pos + 1], fold, acc, count);
        ecoi_sched_fence(s);
        ecoi_sched_recv(s, ring[pos + 1], unfold, acc, count);
        return;
    }
    /* the folded vector of the position before goes on the left */
    if (partner) {
        ecoi_sched_recv_op(s, ring[pos - 1], fold, acc, count, 1);
        ecoi_sched_fence(s);
    }
    for (int d = 1; d < p; d *= 2) {
        int peer = ring[ecoi_rd_position(n, num ^ d)];
        /* both send first (the round's sends leave before its receives
         * are read), then combine, the lower position on the left */
        ecoi_sched_send(s, peer, round, acc, count);
        ecoi_sched_recv_op(s, peer, round, acc, count, (num ^ d) < num);
        ecoi_sched_fence(s);
    }
    if (partner)
        ecoi_sched_send(s, ring[pos - 1], unfold, acc, count);
}

void ecoi_sched_rdouble_scan(ecoi_sched *s, const void *mine, void *result, size_t count,
                             int exclusive)
{
    eco_ctx *c = s->c;
    const size_t unit = count * ecoi_type_size(s->datatype);
    const int n = c->n, me = c->rank, tag = ecoi_next_tag(c);
    /* x: the vectors of ranks 0 .. me at their places; held: the last ones */
    char *x = ecoi_sched_alloc(s, (size_t)(me + 1) * unit);
    int held = 1;

    if (!x)
        return;
    ecoi_sched_copy(s, x + (size_t)me * unit, mine, count);
    for (int d = 1; d < n; d *= 2) {
        const int src = me - d, lo = me - held + 1;
        const int from = src < 0 ? 0 : src + 1 < d ? src + 1 : d;   /* what src holds */
        if (me + d < n)
            ecoi_sched_send(s, me + d, tag, x + (size_t)lo * unit, (size_t)held * count);
        if (from > 0) {
            ecoi_sched_recv(s, src, tag, x + (size_t)(lo - from) * unit, (size_t)from * count);
            held += from;
        }
        ecoi_sched_fence(s);
    }
    /* exclusive: ranks 0 .. me - 1, nothing at rank 0 */
    if (me > 0 || !exclusive)
        ecoi_sched_copy(s, result, x, count);
    for (int q = 1; q <= me - exclusive; q++)
        ecoi_sched_op(s, result, x + (size_t)q * unit, count, 0);
}
