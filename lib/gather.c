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
 * root, or everywhere for ECO_ALL.  paced: each segment of step elements
 * asked for by the parent (ecoi_sched_gather_paced). */
static void sched_gather_tree(ecoi_sched *s, const eco_tree *t, const void *sendbuf,
                              void *recvbuf, size_t count, int root, int paced, size_t step)
{
    eco_ctx *c = s->c;
    const size_t unit = count * ecoi_type_size(s->datatype);
    const int top = root == ECO_ALL ? 0 : root, tag = ecoi_next_tag(c);
    char *pre = NULL;

    if (c->rank == top && !(pre = ecoi_sched_alloc(s, (size_t)c->n * unit)))
        return;
    if (paced)
        ecoi_sched_gather_paced(s, t, tag, sendbuf, pre, count, step);
    else
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
 * Gather-to-all among groups ("hier"): every block goes up its group's
 * tree to the group's leader, the leaders exchange their groups' runs,
 * and each group's tree takes every run down.  A group's shared link
 * then carries only the blocks of the other groups in, and its own out
 * once per other group: the least any algorithm moves through it when
 * S = 2, and far less than the ring's n - 1 steps at the slowest edge's
 * pace.
 *
 * Nothing waits for a whole run.  A group's run is cut into units, the
 * plan's segments of each block (one unit a block when blocks are
 * shorter), numbered in the forest's preorder, and in round r every
 * member moves unit r of its subtree up: its own, or the one its child
 * passes on, which it passes on at once to its parent, and the leader to
 * the leader ahead, so the exchange starts with the leader's own block
 * and takes each block as it comes.  Each unit goes down the group's tree
 * only where it did not come up (a child is not sent back its own
 * subtree's units): a member sends it to its other children the round
 * after it passed it up, and each member below passes it on as it comes
 * in.  The run of the leader behind comes in unit by unit and goes down
 * the same way, passed on as it comes.  A member d levels down takes
 * what its parent sent lag rounds later (the plan's: select.c decides
 * lag and xlag, hier_lags), so a member's units go up while the ones
 * before go down, instead of every round waiting for a unit's way up
 * and down the whole tree (campus24.topo, 128 KB a member, simulated:
 * 2.7 s in lock step, 1.34 s one round behind, against the 1.26 s of the
 * link between its sites).
 *
 *     round r of member v, d levels below its group's leader:
 *       up:     unit r of v's subtree -> parent (leader: -> leader ahead)
 *       down:   unit x = r - 1 - d lag of the group's run: v's subtree's
 *               -> the children it did not come from; else from the
 *               parent, passed on to every child
 *       across: unit r - xlag - d lag of the run of the leader behind,
 *               from the parent (leader: from the leader behind), passed
 *               on to every child (xlag: the plan's)
 *     then (S > 2) rounds 2 .. S - 1: the leader's whole run to the
 *     leader k ahead, the run of the leader k behind in and down, in
 *     the plan's segments, taking turns
 *
 * Every stream comes in the order it was sent, at most a unit a round:
 * up from a child and across from the leader behind on one tag (t1, the
 * tag a unit keeps when passed on), the group's run down on another (t3)
 * and the later rounds on a third (t2); a parent's two streams to a child
 * (down and across) are told apart by their tags.  What a member reads in
 * a round was sent in that round or lag rounds before (a leader's run of
 * the leader behind: xlag), so that flow control (pvm_transport.c: a
 * sender stops an epoch and a message ahead of what its receiver read)
 * holds back a sender that ran ahead, never one whose receiver waits for
 * something only that sender can send.
 */

/* Rounds of hier's pipeline made at a time (ecoi_sched_more). */
#define ECOI_HIER_CHUNK 32

/* A member's part of hier, kept with its schedule while it is made. */
typedef struct hier_state {
    const eco_tree *f;       /* the forest, the schedule's to free */
    const int *lead;         /* [S] the groups' leaders, the same */
    ecoi_plan plan;
    char *pre;               /* every block, in the forest's preorder */
    void *recvbuf;
    const int *kids;
    size_t count, size, step, u;   /* a block's elements, an element's bytes,
                                    * a unit's elements, a block's units */
    size_t U, Ub, lo, hi;    /* units of the group's run, of the run of the
                              * leader behind; this member's subtree's */
    size_t down, across;     /* rounds after which its down, across units come */
    size_t r, rounds, kid;   /* the next round, the last; the child up now */
    int S, me, g, top, parent, up, behind, nkids, t1, t2, t3;
} hier_state;

/* Unit x of the run that starts at forest position at, and its length. */
static char *hier_unit(const hier_state *h, int at, size_t x)
{
    return h->pre + (((size_t)at + x / h->u) * h->count + (x % h->u) * h->step) * h->size;
}

static size_t hier_len(const hier_state *h, size_t x)
{
    return ecoi_run_piece(h->count, h->step, x % h->u);
}

/* Up: unit r of this member's subtree to its parent (the leader's to
 * the leader ahead), its own from its buffer, a child's as it comes. */
static void hier_up(ecoi_sched *s, hier_state *h, size_t r)
{
    const int top = h->f->pos[h->top];
    const int *up = h->up >= 0 ? &h->up : NULL;

    if (r < h->lo + h->u) {
        if (up)
            ecoi_sched_send(s, h->up, h->t1, hier_unit(h, top, r), hier_len(h, r));
        return;
    }
    /* the children's subtrees follow each other in the preorder */
    while (h->kid + 1 < (size_t)h->nkids &&
           r >= (size_t)(h->f->pos[h->kids[h->kid + 1]] - top) * h->u)
        h->kid++;
    ecoi_sched_recv_fwd(s, h->kids[h->kid], h->t1, hier_unit(h, top, r), hier_len(h, r),
                        up, up ? 1 : 0);
}

/* Down: unit x of the group's run, sent on to the children it did not
 * come up from, or taken from the parent and passed on. */
static void hier_down(ecoi_sched *s, const hier_state *h, size_t x)
{
    const eco_tree *f = h->f;
    const int top = f->pos[h->top];

    if (x < h->lo || x >= h->hi) {
        ecoi_sched_recv_fwd(s, h->parent, h->t3, hier_unit(h, top, x), hier_len(h, x),
                            h->kids, h->nkids);
        return;
    }
    for (int j = 0; j < h->nkids; j++) {
        const size_t lo = (size_t)(f->pos[h->kids[j]] - top) * h->u;
        if (x < lo || x >= lo + (size_t)f->subtree[h->kids[j]] * h->u)
            ecoi_sched_send(s, h->kids[j], h->t3, hier_unit(h, top, x), hier_len(h, x));
    }
}

/* Rounds 2 .. S - 1 (k = 1 .. S - 2): the leader's whole run to the
 * leader k + 1 ahead, the run of the one k + 1 behind in and down, in
 * the plan's segments, taking turns. */
static void hier_later(ecoi_sched *s, const hier_state *h)
{
    const eco_tree *f = h->f;
    const size_t unit = h->count * h->size;

    for (int k = 1; k < h->S - 1; k++) {
        const int from = h->lead[(h->g - k - 1 + h->S) % h->S];
        const int to = h->lead[(h->g + k + 1) % h->S];
        const size_t in = (size_t)f->subtree[from] * h->count;
        const size_t out = h->me >= 0 ? (size_t)f->subtree[h->top] * h->count : 0;
        const size_t sin = ecoi_plan_elems(&h->plan, in, h->size);
        const size_t sout = ecoi_plan_elems(&h->plan, out, h->size);
        char *mine = h->pre + (size_t)f->pos[h->top] * unit;

        for (size_t i = 0; i * sout < out || i * sin < in; i++) {
            if (i * sout < out)
                ecoi_sched_send(s, to, h->t2, mine + i * sout * h->size, ecoi_run_piece(out, sout, i));
            if (i * sin < in)
                ecoi_sched_recv_fwd(s, h->me >= 0 ? from : h->parent, h->t2,
                                    h->pre + ((size_t)f->pos[from] * h->count + i * sin) * h->size,
                                    ecoi_run_piece(in, sin, i), h->kids, h->nkids);
            ecoi_sched_fence(s);
        }
    }
}

/* The pipeline's next ECOI_HIER_CHUNK rounds; after the last, the later
 * rounds and the turn into rank order. */
static int hier_rounds(ecoi_sched *s, void *arg)
{
    hier_state *h = arg;
    const size_t stop = h->r + ECOI_HIER_CHUNK < h->rounds ? h->r + ECOI_HIER_CHUNK : h->rounds;

    for (; h->r < stop; h->r++) {
        const size_t r = h->r;
        if (r >= h->lo && r < h->hi)
            hier_up(s, h, r);
        if (r >= h->down && r - h->down < h->U)
            hier_down(s, h, r - h->down);
        if (r >= h->across && r - h->across < h->Ub)
            ecoi_sched_recv_fwd(s, h->parent >= 0 ? h->parent : h->behind, h->t1,
                                hier_unit(h, h->f->pos[h->behind], r - h->across),
                                hier_len(h, r - h->across), h->kids, h->nkids);
        ecoi_sched_fence(s);
    }
    if (h->r < h->rounds) {
        ecoi_sched_more(s, hier_rounds, h);
    } else {
        hier_later(s, h);
        ecoi_sched_unpack(s, h->f, h->pre, h->recvbuf, h->count * h->size);
    }
    return ECO_OK;
}

/* The schedule frees the forest and the leaders with itself. */
static int hier_own(ecoi_sched *s, eco_tree *f, int *lead)
{
    ecoi_sched_own_tree(s, f);
    ecoi_sched_own(s, lead);
    return s->rc;
}

/* This member's place: its group, parent, children, units and rounds. */
static void hier_place(hier_state *h, int rank)
{
    const eco_tree *f = h->f;
    const size_t lag = h->plan.lag;
    size_t d = 0;

    for (h->top = rank; f->parent[h->top] >= 0; h->top = f->parent[h->top])
        d++;
    while (h->g < h->S - 1 && h->lead[h->g] != h->top)
        h->g++;
    h->parent = f->parent[rank];
    h->behind = h->S > 1 ? h->lead[(h->g - 1 + h->S) % h->S] : -1;
    h->up = h->parent >= 0 ? h->parent : h->S > 1 ? h->lead[(h->g + 1) % h->S] : -1;
    h->kids = &f->child[f->child_off[rank]];
    h->nkids = f->child_off[rank + 1] - f->child_off[rank];
    h->U = (size_t)f->subtree[h->top] * h->u;
    h->Ub = h->S > 1 ? (size_t)f->subtree[h->behind] * h->u : 0;
    h->lo = (size_t)(f->pos[rank] - f->pos[h->top]) * h->u;
    h->hi = h->lo + (size_t)f->subtree[rank] * h->u;
    h->down = 1 + d * lag;
    h->across = h->plan.xlag + d * lag;
    h->rounds = h->hi > h->U + h->down ? h->hi : h->U + h->down;
    if (h->Ub > 0 && h->Ub + h->across > h->rounds)
        h->rounds = h->Ub + h->across;
}

static void sched_hier(ecoi_sched *s, const ecoi_plan *plan, const void *sendbuf,
                       void *recvbuf, size_t count)
{
    eco_ctx *c = s->c;
    const size_t size = ecoi_type_size(s->datatype);
    const int t1 = ecoi_next_tag(c), t2 = ecoi_next_tag(c), t3 = ecoi_next_tag(c);
    eco_tree *forest = NULL;
    int *lead = NULL, S = 0, me = -1, rc;
    hier_state *h;

    if ((rc = ecoi_ctx_forest(c, plan, &forest, &lead, &S, &me)) != ECO_OK) {
        s->rc = rc;
        return;
    }
    if (hier_own(s, forest, lead) != ECO_OK || !(h = ecoi_sched_alloc(s, sizeof *h)))
        return;
    *h = (hier_state){ .f = forest, .lead = lead, .plan = *plan, .recvbuf = recvbuf,
                       .count = count, .size = size, .S = S, .me = me,
                       .t1 = t1, .t2 = t2, .t3 = t3 };
    h->step = ecoi_plan_elems(plan, count, size);
    h->u = (count + h->step - 1) / h->step;
    if (!(h->pre = ecoi_sched_alloc(s, (size_t)c->n * count * size)))
        return;
    hier_place(h, c->rank);
    ecoi_sched_copy(s, h->pre + (size_t)forest->pos[c->rank] * count * size, sendbuf, count);
    hier_rounds(s, h);
}

/*
 * Gather-to-all in turns ("hier-turns"): every block up its group's tree
 * whole to the leader, the leaders' runs to every other leader at once in
 * turns (ecoi_sched_turns: every run in as many segments as the longest
 * takes in the plan's segments, a segment of each a turn), then the whole
 * vector down each group's tree.  hier's ring of leaders goes at its
 * slowest stream's pace (a leader blocked sending into a slower link
 * reads the leader behind late), so a slow link whose streams are
 * shorter than the longest run idles while that run ends (uneven.topo,
 * 128 KB a member: 1,252-1,342 ms against a bound of 1,049; in turns
 * 1,169-1,188): in turns every link carries its runs' segments in every
 * turn.
 */
static void sched_hier_turns(ecoi_sched *s, const ecoi_plan *plan, const void *sendbuf,
                             void *recvbuf, size_t count)
{
    eco_ctx *c = s->c;
    const size_t size = ecoi_type_size(s->datatype), unit = count * size;
    const int t1 = ecoi_next_tag(c), t2 = ecoi_next_tag(c), t3 = ecoi_next_tag(c);
    eco_tree *f = NULL;
    int *lead = NULL, S = 0, me = -1, rc, *peer = NULL;
    char *pre, **buf = NULL;
    size_t *len = NULL, most = 0;

    if ((rc = ecoi_ctx_forest(c, plan, &f, &lead, &S, &me)) != ECO_OK) {
        s->rc = rc;
        return;
    }
    if (hier_own(s, f, lead) != ECO_OK || !(pre = ecoi_sched_alloc(s, (size_t)c->n * unit)))
        return;
    ecoi_sched_gather(s, f, t1, sendbuf, me >= 0 ? pre + (size_t)f->pos[lead[me]] * unit : NULL,
                      count);
    if (me >= 0 && S > 1) {
        peer = malloc(2 * (size_t)S * sizeof *peer);
        buf = malloc(2 * (size_t)S * sizeof *buf);
        len = malloc(2 * (size_t)S * sizeof *len);
        if (!peer || !buf || !len)
            s->rc = ECO_ERR_NOMEM;
    }
    if (s->rc == ECO_OK && peer) {
        for (int g = 0; g < S; g++)
            if ((size_t)f->subtree[lead[g]] * count > most)
                most = (size_t)f->subtree[lead[g]] * count;
        for (int d = 1; d < S; d++) {
            const int to = lead[(me + d) % S], from = lead[(me - d + S) % S];
            peer[d - 1] = to;
            buf[d - 1] = pre + (size_t)f->pos[lead[me]] * unit;
            len[d - 1] = (size_t)f->subtree[lead[me]] * count;
            peer[S + d - 1] = from;
            buf[S + d - 1] = pre + (size_t)f->pos[from] * unit;
            len[S + d - 1] = (size_t)f->subtree[from] * count;
        }
        ecoi_sched_turns(s, t2, S - 1, peer, buf, len, peer + S, buf + S, len + S,
                         ecoi_turns_of(most, ecoi_plan_step(plan, size)));
    }
    free(peer);
    free(buf);
    free(len);
    ecoi_sched_bcast(s, f, t3, pre, (size_t)c->n * count, 0);
    ecoi_sched_unpack(s, f, pre, recvbuf, unit);
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
    } else if (rc == ECO_OK && plan.run == ECOI_RUN_TURNS) {
        sched_hier_turns(s, &plan, sendbuf, recvbuf, (size_t)count);
    } else {
        if (rc == ECO_OK)
            rc = ecoi_ctx_shape(ctx, root == ECO_ALL ? 0 : root, plan.shape, &t);
        if (rc == ECO_OK)
            sched_gather_tree(s, t, sendbuf, recvbuf, (size_t)count, root,
                              plan.run == ECOI_RUN_PACED,
                              ecoi_plan_elems(&plan, (size_t)ctx->n * count,
                                              ecoi_type_size(datatype)));
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
