/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gather.c -- gather and gather-to-all up the root's tree.
 *
 * The tree's preorder makes every subtree one contiguous run of members,
 * so a member sends its parent a single message: its own block followed
 * by its children's runs, in preorder.  The root turns preorder into rank
 * order.  The tree is a star inside each subnet and host: every block
 * crosses the root's own link anyway, and relaying only adds hops.
 * Gather-to-all (root ECO_ALL) gathers at rank 0 and broadcasts the
 * result down a broadcast tree, or exchanges among subnets (hier, below),
 * or runs around eco_ring's ring, where each subnet's members are
 * neighbours (select.c chooses):
 *
 *     step s: every member sends right the block it got at step s - 1
 *             (its own at step 0) and receives the next one from the left
 *
 *     [a] -> [b] -> [c] -> [d] -> back to [a]     n - 1 steps
 *
 * Every link of the ring carries n - 1 blocks, and a subnet is entered
 * over one link only, so each block enters each subnet about once: near
 * the least any algorithm must move, against n blocks through rank 0's
 * link twice for the tree.
 */
#include <stdlib.h>
#include <string.h>
#include "eco_coll.h"

int ecoi_tree_gather(eco_ctx *c, const eco_tree *t, int tag, const void *mine,
                     void *block, size_t count, int datatype)
{
    ecoi_sched s;

    ecoi_sched_init(&s, c, datatype, NULL);
    ecoi_sched_gather(&s, t, tag, mine, block, count);
    return ecoi_sched_run(&s);
}

/* Rank order <-> preorder of a tree, unit bytes per member. */
void ecoi_preorder_to_ranks(const eco_tree *t, const void *pre, void *ranks, size_t unit)
{
    for (int i = 0; i < t->n; i++)
        memcpy((char *)ranks + (size_t)t->order[i] * unit,
               (const char *)pre + (size_t)i * unit, unit);
}

void ecoi_ranks_to_preorder(const eco_tree *t, const void *ranks, void *pre, size_t unit)
{
    for (int i = 0; i < t->n; i++)
        memcpy((char *)pre + (size_t)i * unit,
               (const char *)ranks + (size_t)t->order[i] * unit, unit);
}

/* Gather to one root (root >= 0) or to all; recvbuf is significant at the
 * root, or everywhere for ECO_ALL. */
static void sched_gather_tree(ecoi_sched *s, const eco_tree *t, const void *sendbuf,
                              void *recvbuf, size_t count, int root)
{
    eco_ctx *c = s->c;
    const size_t unit = count * ecoi_type_size(s->datatype);
    const int top = root == ECO_ALL ? 0 : root, tag = ecoi_next_tag(c);
    char *pre = NULL;

    if (c->rank == top && !(pre = ecoi_sched_alloc(s, (size_t)c->n * unit)))
        return;
    ecoi_sched_gather(s, t, tag, sendbuf, pre, count);
    if (c->rank == top)
        ecoi_sched_unpack(s, t, pre, recvbuf, unit);
    if (root == ECO_ALL)
        ecoi_sched_bcast_from0(s, recvbuf, (size_t)c->n * count);
}

/* Down the broadcast tree select.c picks for the whole vector. */
int ecoi_bcast_from0(eco_ctx *c, void *buf, size_t count, int datatype)
{
    ecoi_sched s;

    ecoi_sched_init(&s, c, datatype, NULL);
    ecoi_sched_bcast_from0(&s, buf, count);
    return ecoi_sched_run(&s);
}

/* Gather-to-all around the ring (long blocks); block q: counts[q]
 * elements at displs[q], or count elements at q * count. */
/* The ring's rounds, made ECOI_RING_CHUNK at a time (n - 1 in all). */
#define ECOI_RING_CHUNK 32
typedef struct ring_state {
    const char *sendbuf;
    char *recvbuf;
    const int *counts, *displs, *ring;
    size_t count, size;
    int n, p, left, right, tag, k;
} ring_state;

#define LEN(r, q) ((r)->counts ? (size_t)(r)->counts[q] : (r)->count)
#define AT(r, q) ((r)->recvbuf + ((r)->counts ? (size_t)(r)->displs[q] \
                                              : (size_t)(q) * (r)->count) * (r)->size)

static int ring_rounds(ecoi_sched *s, void *arg)
{
    ring_state *r = arg;
    const int stop = r->k + ECOI_RING_CHUNK < r->n - 1 ? r->k + ECOI_RING_CHUNK : r->n - 1;

    /* Each round sends before it receives: PVM buffers sends, so this
     * cannot deadlock.  Empty blocks are not sent: both ends know their
     * counts. */
    for (; r->k < stop; r->k++) {
        int out = r->ring[(r->p + r->n - r->k) % r->n];
        int in = r->ring[(r->p + r->n - r->k - 1) % r->n];
        if (LEN(r, out))
            ecoi_sched_send(s, r->right, r->tag, AT(r, out), LEN(r, out));
        if (LEN(r, in))
            ecoi_sched_recv(s, r->left, r->tag, AT(r, in), LEN(r, in));
        ecoi_sched_fence(s);
    }
    if (r->k < r->n - 1)
        ecoi_sched_more(s, ring_rounds, r);
    return ECO_OK;
}

static void sched_ring(ecoi_sched *s, const void *sendbuf, void *recvbuf, const int *counts,
                       const int *displs, size_t count)
{
    eco_ctx *c = s->c;
    ring_state *r = ecoi_sched_alloc(s, sizeof *r);
    int rc;

    if (!r)
        return;
    *r = (ring_state){ .sendbuf = sendbuf, .recvbuf = recvbuf, .counts = counts,
                       .displs = displs, .count = count, .size = ecoi_type_size(s->datatype),
                       .n = c->n, .tag = ecoi_next_tag(c) };
    if ((rc = ecoi_ctx_ring(c, &r->ring)) != ECO_OK) {
        s->rc = rc;
        return;
    }
    while (r->ring[r->p] != c->rank)
        r->p++;
    r->left = r->ring[(r->p + r->n - 1) % r->n];
    r->right = r->ring[(r->p + 1) % r->n];
    ecoi_sched_copy(s, AT(r, c->rank), sendbuf, LEN(r, c->rank));   /* nothing in place */
    ecoi_sched_fence(s);
    ring_rounds(s, r);
}
#undef LEN
#undef AT

int ecoi_ring_allgather(eco_ctx *c, const void *sendbuf, void *recvbuf, const int *counts,
                        const int *displs, size_t count, int datatype)
{
    ecoi_sched s;

    ecoi_sched_init(&s, c, datatype, NULL);
    sched_ring(&s, sendbuf, recvbuf, counts, displs, count);
    return ecoi_sched_run(&s);
}

/*
 * Gather-to-all among subnets ("hier"): each subnet's own tree gathers
 * its members' blocks at its leader; every leader sends its subnet's run
 * of blocks to every other leader; each subnet's tree broadcasts the runs.
 * A subnet's shared link then carries only the blocks of the other
 * subnets in, and its own out once per other subnet: the least any
 * algorithm moves through it when S = 2, and far less than the ring's
 * n - 1 steps at the slowest edge's pace.
 *
 * The exchange and the broadcasts overlap: a leader sends its own run
 * down its tree in the round of its first exchange, and passes each
 * segment of another leader's run on down as it comes in.  Every member
 * of group g takes the runs in the same order, each a segmented
 * broadcast of its own: g's, then the runs of the leaders 1, 2, ...,
 * S - 1 behind (the order they reach g's leader), into the forest's
 * preorder; each member turns that into rank order at the end.  A
 * round's streams go in the plan's segments, taking turns (sub-round i:
 * exchange segment i out, the own run's segment i down, exchange
 * segment i in and down), so none waits for another to end: a whole
 * run's send holds the leader until the slow link has taken it
 * (campus24.topo, 16 KB per member: 432 ms in whole runs, 360 in 64 KB
 * segments), and a run that went down only once it was all in came a
 * whole exchange late (S = 2: after the exchange, every run down).
 *
 *     leader, round 1:  own run -> leader 1 ahead; own run down;
 *                       the run of the leader 1 behind in and down
 *     round k:          own run -> leader k ahead;
 *                       the run of the leader k behind in and down
 *     (S - 1 rounds; the own run goes down on its own tag, the others
 *     on the exchange's, so the two runs of round 1 can interleave)
 */
/* The elements of segment i of a run of len in segments of step. */
static size_t piece(size_t len, size_t i, size_t step)
{
    return len - i * step < step ? len - i * step : step;
}

static void sched_hier(ecoi_sched *s, const ecoi_plan *plan, const void *sendbuf,
                       void *recvbuf, size_t count)
{
    eco_ctx *c = s->c;
    const size_t size = ecoi_type_size(s->datatype), unit = count * size;
    const int t1 = ecoi_next_tag(c), t2 = ecoi_next_tag(c), t3 = ecoi_next_tag(c);
    eco_tree *forest = NULL;
    int *lead = NULL, S = 0, me = -1, g = 0, top, rc;
    char *pre;

    if ((rc = ecoi_ctx_forest(c, plan, &forest, &lead, &S, &me)) != ECO_OK) {
        s->rc = rc;
        return;
    }
    /* this member's group: its tree's root among the leaders */
    for (top = c->rank; forest->parent[top] >= 0; top = forest->parent[top])
        ;
    while (g < S - 1 && lead[g] != top)
        g++;
    /* the forest's preorder keeps each group's blocks together */
    pre = ecoi_sched_alloc(s, (size_t)c->n * unit);
    if (s->rc == ECO_OK) {
        const int *kids = &forest->child[forest->child_off[c->rank]];
        const int nkids = forest->child_off[c->rank + 1] - forest->child_off[c->rank];
        char *mine = pre + (size_t)forest->pos[c->rank] * unit;
        int to = -1, from = -1;

        ecoi_sched_gather(s, forest, t1, sendbuf, mine, count);
        /* Run k is the group's of the leader k behind, a segmented
         * broadcast down the group's tree: run 0 (the group's own) on t3,
         * the others on t2, each forwarded by the leader as its exchange
         * segments come in.  The leader's round k: its own run to the
         * leader k + 1 ahead, the run of the one k + 1 behind in and on
         * down (one stream into and out of every group at a time), and in
         * round 0 its own run down. */
        for (int k = 0; k < (S > 1 ? S - 1 : 1); k++) {
            const int j = lead[(g - k - 1 + S) % S];
            const size_t len0 = (size_t)forest->subtree[top] * count;
            const size_t step0 = ecoi_plan_elems(plan, len0, size);
            size_t out = 0, in = 0, sout = 1, sin = 1;

            if (me < 0) {
                /* run k + 1, and in round 0 run 0, their segments taken
                 * in the order the leader sends them: a member that read
                 * one run first would leave the other's messages unread,
                 * and flow control (pvm_transport.c) stops a sender two
                 * epochs ahead of what its receiver read */
                const int p = forest->parent[c->rank];
                const size_t len = S > 1 ? (size_t)forest->subtree[j] * count : 0;
                const size_t step = ecoi_plan_elems(plan, len, size);
                char *run0 = pre + (size_t)forest->pos[top] * unit;
                char *run = pre + (size_t)forest->pos[j] * unit;
                for (size_t i = 0; i * step < len || (k == 0 && i * step0 < len0); i++) {
                    if (k == 0 && i * step0 < len0)
                        ecoi_sched_recv_fwd(s, p, t3, run0 + i * step0 * size,
                                            piece(len0, i, step0),
                                            kids, nkids);
                    if (i * step < len)
                        ecoi_sched_recv_fwd(s, p, t2, run + i * step * size,
                                            piece(len, i, step),
                                            kids, nkids);
                    ecoi_sched_fence(s);
                }
                continue;
            }
            if (S > 1) {
                to = lead[(me + k + 1) % S];
                from = lead[(me - k - 1 + S) % S];
                out = (size_t)forest->subtree[c->rank] * count;
                in = (size_t)forest->subtree[from] * count;
                sout = ecoi_plan_elems(plan, out, size);
                sin = ecoi_plan_elems(plan, in, size);
            }
            /* sub-round i: exchange segment i out, run 0's segment i down
             * (round 0), exchange segment i in and down: no stream waits
             * for another to end */
            for (size_t i = 0; i * sout < out || i * sin < in || (k == 0 && i * step0 < len0);
                 i++) {
                if (i * sout < out)
                    ecoi_sched_send(s, to, t2, mine + i * sout * size,
                                    piece(out, i, sout));
                if (k == 0 && i * step0 < len0)
                    for (int j2 = 0; j2 < nkids; j2++)
                        ecoi_sched_send(s, kids[j2], t3, mine + i * step0 * size,
                                        piece(len0, i, step0));
                if (i * sin < in)
                    ecoi_sched_recv_fwd(s, from, t2,
                                        pre + ((size_t)forest->pos[from] * count + i * sin) * size,
                                        piece(in, i, sin), kids, nkids);
                ecoi_sched_fence(s);
            }
        }
        ecoi_sched_unpack(s, forest, pre, recvbuf, unit);
    }
    free(lead);
    eco_tree_free(&forest);
}

static int gather_call(eco_ctx *ctx, const void *sendbuf, void *recvbuf, int count,
                       int datatype, int root, eco_request **req)
{
    const eco_tree *t = NULL;
    ecoi_plan plan;
    int rc = ecoi_check_rooted(ctx, sendbuf, count, datatype, root, 1), gets;
    size_t unit;
    eco_request *r;
    ecoi_sched *s;

    if (rc != ECO_OK)
        return rc;
    gets = root == ECO_ALL || root == ctx->rank;
    unit = (size_t)count * ecoi_type_size(datatype);
    if ((count > 0 && gets && !recvbuf) || recvbuf == ECO_IN_PLACE)
        return ECO_ERR_ARG;
    if (sendbuf == ECO_IN_PLACE) {    /* this member's block is in recvbuf */
        if (!gets)
            return ECO_ERR_ARG;
        sendbuf = (char *)recvbuf + (size_t)ctx->rank * unit;
    } else if (gets && ecoi_overlap(sendbuf, unit, recvbuf, (size_t)ctx->n * unit)) {
        return ECO_ERR_ARG;
    }
    if (!(r = ecoi_request_new(ctx, ECOI_KIND_GATHER, count, datatype, NULL, root, &rc)))
        return rc;
    s = &r->sched;
    if (count == 0) {
        ecoi_sched_empty(s);
        return req ? ecoi_request_start(r, req) : ecoi_request_run(r);
    }
    rc = ecoi_select(ctx, root == ECO_ALL ? ECOI_C_ALLGATHER : ECOI_C_GATHER,
                     root == ECO_ALL ? 0 : root, unit, &plan);
    if (rc == ECO_OK && plan.run == ECOI_RUN_RING) {
        sched_ring(s, sendbuf, recvbuf, NULL, NULL, (size_t)count);
    } else if (rc == ECO_OK && plan.run == ECOI_RUN_HIER) {
        sched_hier(s, &plan, sendbuf, recvbuf, (size_t)count);
    } else {
        if (rc == ECO_OK)
            rc = ecoi_ctx_shape(ctx, root == ECO_ALL ? 0 : root, plan.shape, &t);
        if (rc == ECO_OK)
            sched_gather_tree(s, t, sendbuf, recvbuf, (size_t)count, root);
    }
    if (rc != ECO_OK)
        s->rc = rc;
    return req ? ecoi_request_start(r, req) : ecoi_request_run(r);
}

int eco_gather(eco_ctx *ctx, const void *sendbuf, void *recvbuf, int count,
               int datatype, int root)
{
    return gather_call(ctx, sendbuf, recvbuf, count, datatype, root, NULL);
}

int eco_igather(eco_ctx *ctx, const void *sendbuf, void *recvbuf, int count,
                int datatype, int root, eco_request **req)
{
    if (!req)
        return ECO_ERR_ARG;
    *req = NULL;
    return gather_call(ctx, sendbuf, recvbuf, count, datatype, root, req);
}
