/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ring_reduce.c -- reduce-to-all around eco_ring's ring ("ring"), for
 * long vectors among members that share one network: a reduce-scatter
 * around the ring, then a gather-to-all around it (Patarasuk and Yuan's
 * bandwidth-optimal allreduce).
 *
 * The n members take positions in eco_ring's order (each subnet's
 * members, and inside it each host's, contiguous).  The vector of count
 * elements is cut into n blocks, block b the elements
 * [b * count / n, (b + 1) * count / n): some are empty when count < n,
 * and an empty block is neither sent nor received, in every member alike.
 * In step k = 0 .. 2n - 3 the member at position i sends block
 * (i - k) mod n right, to position i + 1, and receives block
 * (i - k - 1) mod n from the left:
 *
 *     steps 0 .. n - 2    the block received is combined into this
 *                         member's own: block b leaves position b and
 *                         gathers every position's part on its way
 *                         round, the earlier positions on the left; at
 *                         the end position i holds block i + 1 finished
 *     steps n - 1 .. 2n - 3   the finished blocks go round once more and
 *                         are stored as they come
 *
 *     n = 4, block 0:  0 -> 1 (+) -> 2 (+) -> 3 (+, finished), then
 *                      3 -> 0 -> 1 -> 2
 *
 * Every member sends and receives 2 (n - 1) blocks of count / n, about
 * twice the vector whatever n: near the least a reduce-to-all must move
 * through a member's link, against log2(n) whole vectors for recursive
 * doubling and the whole vector twice through the tree's inner links.
 * Each block is combined in one member only and copied from there, so
 * every member ends with the same bits, as with the trees.  The ring
 * crosses each boundary between subnets in each of its 2 (n - 1) steps,
 * which makes it slow where subnets are joined by slow links (select.c
 * predicts it, and rsag wins there).
 *
 * The steps are lock-step (each sends before it receives: PVM buffers
 * sends), made ECOI_RING_ROUNDS at a time with ecoi_sched_more so that
 * the schedule holds O(1) steps.
 */
#include "eco_coll.h"

#define ECOI_RING_ROUNDS 32

typedef struct ringar {
    char *acc;                  /* the result, where the blocks are made */
    size_t count, size;
    int n, pos, left, right, tag, k;
} ringar;

/* Block b's first element. */
static size_t block_at(const ringar *r, int b)
{
    return (size_t)b * r->count / (size_t)r->n;
}

static int ringar_rounds(ecoi_sched *s, void *arg)
{
    ringar *r = arg;
    const int last = 2 * (r->n - 1);
    const int stop = r->k + ECOI_RING_ROUNDS < last ? r->k + ECOI_RING_ROUNDS : last;

    for (; r->k < stop; r->k++) {
        const int out = ((r->pos - r->k) % r->n + r->n) % r->n;
        const int in = (out + r->n - 1) % r->n;
        const size_t olen = block_at(r, out + 1) - block_at(r, out);
        const size_t ilen = block_at(r, in + 1) - block_at(r, in);
        char *ibuf = r->acc + block_at(r, in) * r->size;

        if (olen)
            ecoi_sched_send(s, r->right, r->tag, r->acc + block_at(r, out) * r->size, olen);
        if (ilen && r->k < r->n - 1)
            ecoi_sched_recv_op(s, r->left, r->tag, ibuf, ilen, 1);
        else if (ilen)
            ecoi_sched_recv(s, r->left, r->tag, ibuf, ilen);
        ecoi_sched_fence(s);
    }
    if (r->k < last)
        ecoi_sched_more(s, ringar_rounds, r);
    return ECO_OK;
}

void ecoi_sched_ring_allreduce(ecoi_sched *s, const void *mine, void *result, size_t count)
{
    eco_ctx *c = s->c;
    const int *ring = NULL;
    ringar *r;
    int rc;

    if ((rc = ecoi_ctx_ring(c, &ring)) != ECO_OK) {
        s->rc = rc;
        return;
    }
    if (!(r = ecoi_sched_alloc(s, sizeof *r)))
        return;
    *r = (ringar){ .acc = result, .count = count, .size = ecoi_type_size(s->datatype),
                   .n = c->n, .tag = ecoi_next_tag(c) };
    while (ring[r->pos] != c->rank)
        r->pos++;
    r->left = ring[(r->pos + r->n - 1) % r->n];
    r->right = ring[(r->pos + 1) % r->n];
    ecoi_sched_copy(s, result, mine, count);     /* nothing in place */
    ringar_rounds(s, r);
}
