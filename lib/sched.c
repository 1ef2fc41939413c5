/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sched.c -- schedules: a collective as steps in rounds, and the loop
 * that advances them over a transport.
 *
 * A builder (ecoi_sched_bcast, ecoi_sched_reduce, ...) writes, for this
 * member, what the collective does: send a buffer to a member, receive
 * one (passing it on to other members before reading it), receive and
 * combine into an accumulator, copy.  Steps are grouped in rounds; a
 * round starts when the one before has finished.  When a round starts,
 * its copies and sends run at once, in order; then its receives finish
 * in whatever order their messages arrive, each combine as soon as its
 * message is read (so a reduce combines whichever child comes first).
 *
 *     round 0   copy mine -> acc   recv child 3 (op)   recv child 7 (op)
 *     round 1   send acc -> parent
 *
 * ecoi_sched_advance runs as far as the messages that have arrived let
 * it, or (wait) to the end, blocking on the first receive of the round
 * when none of the round's messages is there.  Builders append to the
 * end, so collectives compose: rsag is a reduce inside subnets, rounds
 * among the leaders, then a broadcast inside subnets.
 */
#include <stdlib.h>
#include <string.h>
#include "eco_coll.h"

void ecoi_sched_init(ecoi_sched *s, eco_ctx *c, int datatype, eco_op op)
{
    memset(s, 0, sizeof *s);
    s->c = c;
    s->datatype = datatype;
    s->op = op;
}

void ecoi_sched_free(ecoi_sched *s)
{
    for (int i = 0; i < s->nowned; i++)
        s->owned[i].drop(s->owned[i].p);
    free(s->owned);
    free(s->steps);
    free(s->fwd);
    free(s->in);
    memset(s, 0, sizeof *s);
}

/* A step at the end of the current round; NULL (and s->rc) without memory. */
static ecoi_step *add(ecoi_sched *s, int kind)
{
    ecoi_step *st;

    if (s->rc != ECO_OK)
        return NULL;
    if (s->nsteps == s->cap) {
        int cap = s->cap ? 2 * s->cap : 16;
        ecoi_step *v = realloc(s->steps, (size_t)cap * sizeof *v);
        if (!v) {
            s->rc = ECO_ERR_NOMEM;
            return NULL;
        }
        s->steps = v;
        s->cap = cap;
    }
    st = &s->steps[s->nsteps++];
    memset(st, 0, sizeof *st);
    st->kind = kind;
    st->round = s->nrounds;
    return st;
}

void ecoi_sched_fence(ecoi_sched *s)
{
    /* an empty round is no round */
    if (s->nsteps > 0 && s->steps[s->nsteps - 1].round == s->nrounds)
        s->nrounds++;
}

/* p freed with the schedule by drop(p); at once without memory. */
static void own(ecoi_sched *s, void *p, void (*drop)(void *p))
{
    ecoi_owned *v;

    if (!p)
        return;
    if (s->rc == ECO_OK) {
        if ((v = realloc(s->owned, (size_t)(s->nowned + 1) * sizeof *v))) {
            s->owned = v;
            s->owned[s->nowned++] = (ecoi_owned){ p, drop };
            return;
        }
        s->rc = ECO_ERR_NOMEM;
    }
    drop(p);
}

void ecoi_sched_own(ecoi_sched *s, void *p)
{
    own(s, p, free);
}

static void drop_tree(void *p)
{
    eco_tree *t = p;

    eco_tree_free(&t);
}

void ecoi_sched_own_tree(ecoi_sched *s, eco_tree *t)
{
    own(s, t, drop_tree);
}

void *ecoi_sched_alloc(ecoi_sched *s, size_t bytes)
{
    void *p;

    if (s->rc != ECO_OK)
        return NULL;
    if (!(p = malloc(bytes + 1))) {
        s->rc = ECO_ERR_NOMEM;
        return NULL;
    }
    ecoi_sched_own(s, p);
    return s->rc == ECO_OK ? p : NULL;
}

void ecoi_sched_send(ecoi_sched *s, int peer, int tag, const void *buf, size_t count)
{
    ecoi_step *st = add(s, ECOI_STEP_SEND);

    if (st) {
        st->peer = peer;
        st->tag = tag;
        st->buf = (char *)buf;
        st->count = count;
    }
}

void ecoi_sched_recv_fwd(ecoi_sched *s, int peer, int tag, void *buf, size_t count,
                         const int *fwd, int nfwd)
{
    ecoi_step *st = add(s, ECOI_STEP_RECV);

    if (!st)
        return;
    st->peer = peer;
    st->tag = tag;
    st->buf = buf;
    st->count = count;
    if (nfwd > 0) {
        int *v = realloc(s->fwd, (size_t)(s->nfwd + nfwd) * sizeof *v);
        if (!v) {
            s->rc = ECO_ERR_NOMEM;
            return;
        }
        memcpy(v + s->nfwd, fwd, (size_t)nfwd * sizeof *v);
        s->fwd = v;
        st->fwd = s->nfwd;
        st->nfwd = nfwd;
        s->nfwd += nfwd;
    }
}

void ecoi_sched_recv(ecoi_sched *s, int peer, int tag, void *buf, size_t count)
{
    ecoi_sched_recv_fwd(s, peer, tag, buf, count, NULL, 0);
}

/* The scratch buffer (s->in) holds at least bytes. */
static void scratch(ecoi_sched *s, size_t bytes)
{
    if (s->rc == ECO_OK && bytes > s->inbytes) {
        char *v = realloc(s->in, bytes + 1);
        if (!v) {
            s->rc = ECO_ERR_NOMEM;
            return;
        }
        s->in = v;
        s->inbytes = bytes;
    }
}

void ecoi_sched_recv_op(ecoi_sched *s, int peer, int tag, void *acc, size_t count, int left)
{
    ecoi_step *st = add(s, ECOI_STEP_RECV);
    size_t bytes = count * ecoi_type_size(s->datatype);

    if (!st)
        return;
    st->peer = peer;
    st->tag = tag;
    st->acc = acc;
    st->count = count;
    st->left = (unsigned char)left;
    /* one buffer for every combining receive: each is combined as soon
     * as it is read, before the next is */
    scratch(s, bytes);
}

void ecoi_sched_copy(ecoi_sched *s, void *to, const void *from, size_t count)
{
    ecoi_step *st;

    if (to == from || count == 0)
        return;
    if ((st = add(s, ECOI_STEP_COPY))) {
        st->acc = to;
        st->buf = (char *)from;
        st->count = count;
    }
}

void ecoi_sched_op(ecoi_sched *s, void *acc, const void *in, size_t count, int left)
{
    ecoi_step *st;

    if (left)
        scratch(s, count * ecoi_type_size(s->datatype));
    if ((st = add(s, ECOI_STEP_OP))) {
        st->acc = acc;
        st->buf = (char *)in;
        st->count = count;
        st->left = (unsigned char)left;
    }
}

void ecoi_sched_call(ecoi_sched *s, int (*fn)(void *arg), void *arg)
{
    ecoi_step *st = add(s, ECOI_STEP_CALL);

    if (st) {
        st->fn = fn;
        st->buf = arg;
    }
}

void ecoi_sched_more(ecoi_sched *s, int (*more)(ecoi_sched *s, void *arg), void *arg)
{
    ecoi_step *st;

    ecoi_sched_fence(s);
    if ((st = add(s, ECOI_STEP_MORE))) {
        st->more = more;
        st->buf = arg;
    }
    ecoi_sched_fence(s);
}

/* Round cur is a MORE: drop it and the steps done, and append. */
static int more_steps(ecoi_sched *s)
{
    const ecoi_step m = s->steps[s->cur];
    const int keep = s->nsteps - s->cur - 1;   /* none: a MORE ends what is made */

    memmove(s->steps, s->steps + s->cur + 1, (size_t)keep * sizeof *s->steps);
    s->nsteps = keep;
    if (keep == 0)     /* the lists passed on to went with their steps */
        s->nfwd = 0;
    s->cur = 0;
    s->started = 0;
    return m.more(s, m.buf);
}

/* A round of its own that reorders t's blocks (kind UNPACK or PACK). */
static void reorder(ecoi_sched *s, int kind, const eco_tree *t, const void *from, void *to,
                    size_t unit)
{
    int *order;
    ecoi_step *st;

    /* the tree may leave the context's cache before the step runs */
    if (!(order = ecoi_sched_alloc(s, (size_t)t->n * sizeof *order)))
        return;
    memcpy(order, t->order, (size_t)t->n * sizeof *order);
    ecoi_sched_fence(s);
    if ((st = add(s, kind))) {
        st->buf = (char *)from;
        st->acc = to;
        st->count = (size_t)t->n;
        st->order = order;
        st->unit = unit;
    }
    ecoi_sched_fence(s);
}

void ecoi_sched_unpack(ecoi_sched *s, const eco_tree *t, const void *pre, void *ranks,
                       size_t unit)
{
    reorder(s, ECOI_STEP_UNPACK, t, pre, ranks, unit);
}

void ecoi_sched_pack(ecoi_sched *s, const eco_tree *t, const void *ranks, void *pre,
                     size_t unit)
{
    reorder(s, ECOI_STEP_PACK, t, ranks, pre, unit);
}

/* acc = acc op in, or (left) in op acc, through the scratch buffer. */
static int combine(ecoi_sched *s, char *acc, const char *in, size_t count, int left)
{
    int rc;

    if (!left)
        return ecoi_op_apply(s->op, s->datatype, acc, in, count);
    if (in != s->in)
        memcpy(s->in, in, count * ecoi_type_size(s->datatype));
    rc = ecoi_op_apply(s->op, s->datatype, s->in, acc, count);
    if (rc == ECO_OK)
        memcpy(acc, s->in, count * ecoi_type_size(s->datatype));
    return rc;
}

/* Run one receive that has its message, or the transport's answer. */
static int recv_step(ecoi_sched *s, ecoi_step *st, int wait)
{
    ecoi_transport *tp = s->c->tp;
    char *into = st->acc ? s->in : st->buf;
    const int *fwd = st->nfwd ? s->fwd + st->fwd : NULL;
    int rc = wait ? tp->recv(tp, st->peer, st->tag, into, st->count, s->datatype, fwd,
                             st->nfwd)
                  : tp->try_recv(tp, st->peer, st->tag, into, st->count, s->datatype, fwd,
                                 st->nfwd);

    if (rc != ECO_OK || !st->acc)
        return rc;
    /* left: in holds the lower positions (rdouble, scan) */
    return combine(s, st->acc, s->in, st->count, st->left);
}

/* Step i is the last receive of [i, end) not done. */
static int only_left(const ecoi_sched *s, int i, int end)
{
    for (int j = i + 1; j < end; j++)
        if (s->steps[j].kind == ECOI_STEP_RECV && !s->steps[j].done)
            return 0;
    return 1;
}

int ecoi_sched_advance(ecoi_sched *s, int wait)
{
    ecoi_transport *tp = s->c->tp;
    const size_t size = ecoi_type_size(s->datatype);

    if (s->rc != ECO_OK)
        return s->rc;
    while (s->cur < s->nsteps) {
        const int round = s->steps[s->cur].round;
        int end = s->cur, first = -1, rc = ECO_OK;

        while (end < s->nsteps && s->steps[end].round == round)
            end++;
        if (s->steps[s->cur].kind == ECOI_STEP_MORE) {
            if ((rc = more_steps(s)) != ECO_OK || (rc = s->rc) != ECO_OK)
                return s->rc = rc;
            continue;
        }
        if (!s->started) {
            for (int i = s->cur; i < end && rc == ECO_OK; i++) {
                ecoi_step *st = &s->steps[i];
                if (st->kind == ECOI_STEP_SEND) {
                    rc = tp->send(tp, st->peer, st->tag, st->buf, st->count, s->datatype);
                    st->done = 1;
                } else if (st->kind == ECOI_STEP_COPY) {
                    memmove(st->acc, st->buf, st->count * size);
                    st->done = 1;
                } else if (st->kind == ECOI_STEP_UNPACK || st->kind == ECOI_STEP_PACK) {
                    const int pack = st->kind == ECOI_STEP_PACK;
                    for (size_t b = 0; b < st->count; b++)
                        memcpy(st->acc + (pack ? b : (size_t)st->order[b]) * st->unit,
                               st->buf + (pack ? (size_t)st->order[b] : b) * st->unit,
                               st->unit);
                    st->done = 1;
                } else if (st->kind == ECOI_STEP_OP) {
                    rc = combine(s, st->acc, st->buf, st->count, st->left);
                    st->done = 1;
                } else if (st->kind == ECOI_STEP_CALL) {
                    rc = st->fn(st->buf);
                    st->done = 1;
                }
            }
            s->started = 1;
        }
        for (int i = s->cur; i < end && rc == ECO_OK; i++) {
            ecoi_step *st = &s->steps[i];
            if (st->done)
                continue;
            /* waiting for the only receive left: no need to look first */
            if (wait && first < 0 && only_left(s, i, end)) {
                first = i;
                break;
            }
            rc = recv_step(s, st, 0);
            if (rc == ECO_OK)
                st->done = 1;
            else if (rc == ECOI_AGAIN && first < 0)
                first = i;
            if (rc == ECOI_AGAIN)
                rc = ECO_OK;
        }
        if (rc == ECO_OK && first >= 0) {
            if (!wait)
                return ECOI_AGAIN;
            rc = recv_step(s, &s->steps[first], 1);
            if (rc == ECO_OK) {
                s->steps[first].done = 1;
                continue;       /* the others of the round, as they come */
            }
        }
        if (rc != ECO_OK)
            return s->rc = rc;
        s->cur = end;
        s->started = 0;
    }
    return ECO_OK;
}

/* ------------------------------------------------------------------ */
/* Builders shared by several collectives                              */
/* ------------------------------------------------------------------ */

void ecoi_sched_bcast(ecoi_sched *s, const eco_tree *t, int tag, void *buf, size_t count,
                      size_t step)
{
    const int me = s->c->rank, parent = t->parent[me];
    const int *kids = &t->child[t->child_off[me]];
    const int nkids = t->child_off[me + 1] - t->child_off[me];
    const size_t size = ecoi_type_size(s->datatype);
    size_t off = 0;

    if (step == 0 || step > count)
        step = count;
    /* One round even for count 0: barrier sends empty messages.  A
     * member passes segment i on while segment i + 1 is on its way. */
    do {
        size_t len = count - off < step ? count - off : step;
        char *seg = (char *)buf + off * size;

        if (parent >= 0)
            ecoi_sched_recv_fwd(s, parent, tag, seg, len, kids, nkids);
        else
            for (int i = 0; i < nkids; i++)
                ecoi_sched_send(s, kids[i], tag, seg, len);
        ecoi_sched_fence(s);
        off += len;
    } while (off < count);
}

void ecoi_sched_reduce(ecoi_sched *s, const eco_tree *t, int tag, const void *mine,
                       void *result, size_t count, size_t step)
{
    const int me = s->c->rank, parent = t->parent[me];
    const size_t size = ecoi_type_size(s->datatype);
    char *acc = NULL;

    if (step == 0 || step > count)
        step = count ? count : 1;
    if (parent >= 0 && !(acc = ecoi_sched_alloc(s, step * size)))
        return;
    for (size_t off = 0; off < count; off += step) {
        size_t len = count - off < step ? count - off : step;
        char *a = parent >= 0 ? acc : (char *)result + off * size;

        ecoi_sched_copy(s, a, (const char *)mine + off * size, len);
        for (int i = t->child_off[me]; i < t->child_off[me + 1]; i++)
            ecoi_sched_recv_op(s, t->child[i], tag, a, len, 0);
        ecoi_sched_fence(s);
        if (parent >= 0) {
            ecoi_sched_send(s, parent, tag, a, len);
            ecoi_sched_fence(s);
        }
    }
}

/*
 * Reduce-to-all up and down one tree (or forest), pipelined.  Chunk c of
 * the vector (step elements) is combined here in round c and sent up at
 * the start of round c + 1; a root runs its nmid middle stages on it
 * (rsag's exchange among leaders; none for a plain tree) in rounds
 * c + 1 .. c + nmid and sends it down in round c + nmid + 1; a member d
 * levels down takes it from its parent (and forwards it) in round
 * c + nmid + 1 + d.  So a link carries chunks up and down at once, and
 * no member runs more than nmid + 1 + depth chunks ahead of the chunk it
 * takes down: what it waits for down was always sent by a parent that
 * needed only chunks this member sent before, so the rounds cannot wait
 * on each other in a circle, and the transport's flow-control window
 * (two epochs of messages per pair) is not what paces them.
 *
 *     round        0       1        2        3        4
 *     root         up 0    up 1     up 2     up 3 ...
 *                          mid 0    mid 1    mid 2
 *                                   down 0   down 1
 *     child        up 0    up 1     up 2     up 3 ...
 *                                            down 0   down 1
 */
void ecoi_sched_allreduce(ecoi_sched *s, const eco_tree *t, int tup, int tdown,
                          const void *mine, void *result, size_t count, size_t step,
                          int nmid, ecoi_mid_fn mid, void *arg)
{
    const int me = s->c->rank, parent = t->parent[me];
    const int *kids = &t->child[t->child_off[me]];
    const int nkids = t->child_off[me + 1] - t->child_off[me];
    const size_t size = ecoi_type_size(s->datatype);
    size_t nchunks, lag = (size_t)nmid + 1;
    char *res = result;

    if (step == 0 || step > count)
        step = count ? count : 1;
    nchunks = (count + step - 1) / step;
    for (int v = me; t->parent[v] >= 0; v = t->parent[v])
        lag++;
#define OFF(c) ((c) * step)
#define LEN(c) (count - OFF(c) < step ? count - OFF(c) : step)
    for (size_t r = 0; r < nchunks + lag; r++) {
        if (parent >= 0 && r >= 1 && r <= nchunks)
            ecoi_sched_send(s, parent, tup, res + OFF(r - 1) * size, LEN(r - 1));
        if (r < nchunks) {
            ecoi_sched_copy(s, res + OFF(r) * size, (const char *)mine + OFF(r) * size,
                            LEN(r));
            for (int i = 0; i < nkids; i++)
                ecoi_sched_recv_op(s, kids[i], tup, res + OFF(r) * size, LEN(r), 0);
        }
        for (int k = 1; parent < 0 && k <= nmid; k++)
            if (r >= (size_t)k && r - (size_t)k < nchunks)
                mid(s, arg, k, OFF(r - (size_t)k), LEN(r - (size_t)k));
        if (r >= lag && r - lag < nchunks) {
            size_t c = r - lag;
            if (parent >= 0)
                ecoi_sched_recv_fwd(s, parent, tdown, res + OFF(c) * size, LEN(c), kids,
                                    nkids);
            else
                for (int i = 0; i < nkids; i++)
                    ecoi_sched_send(s, kids[i], tdown, res + OFF(c) * size, LEN(c));
        }
        ecoi_sched_fence(s);
    }
#undef OFF
#undef LEN
}

void ecoi_sched_gather(ecoi_sched *s, const eco_tree *t, int tag, const void *mine,
                       void *block, size_t count)
{
    const int me = s->c->rank, parent = t->parent[me];
    const size_t unit = count * ecoi_type_size(s->datatype);
    char *buf = block;

    if (parent >= 0 && !(buf = ecoi_sched_alloc(s, (size_t)t->subtree[me] * unit)))
        return;
    ecoi_sched_copy(s, buf, mine, count);
    for (int i = t->child_off[me]; i < t->child_off[me + 1]; i++) {
        int kid = t->child[i];
        ecoi_sched_recv(s, kid, tag, buf + (size_t)(t->pos[kid] - t->pos[me]) * unit,
                        (size_t)t->subtree[kid] * count);
    }
    ecoi_sched_fence(s);
    if (parent >= 0) {
        ecoi_sched_send(s, parent, tag, buf, (size_t)t->subtree[me] * count);
        ecoi_sched_fence(s);
    }
}

/*
 * An exchange in turns (all-to-all's and gather-to-all's hier-turns):
 * this member sends sbuf[i] (slen[i] elements) to to[i] and takes
 * rlen[i] from from[i] into rbuf[i], for i < n, every message in `turns`
 * segments (ecoi_run_segments), and in turn k segment k of each: the
 * turn's sends at once, then its receives, the next turn when they are
 * in.  What is on its way into a link at once is then a segment from
 * each sender, never whole messages that meet on a slower link.
 */
void ecoi_sched_turns(ecoi_sched *s, int tag, int n, const int *to, char *const *sbuf,
                      const size_t *slen, const int *from, char *const *rbuf,
                      const size_t *rlen, size_t turns)
{
    const size_t size = ecoi_type_size(s->datatype);

    for (size_t k = 0; k < turns; k++) {
        for (int i = 0; i < n; i++) {
            size_t seg;
            if (k < ecoi_run_segments(slen[i], turns, &seg))
                ecoi_sched_send(s, to[i], tag, sbuf[i] + k * seg * size,
                                ecoi_run_piece(slen[i], seg, k));
        }
        for (int i = 0; i < n; i++) {
            size_t seg;
            if (k < ecoi_run_segments(rlen[i], turns, &seg))
                ecoi_sched_recv(s, from[i], tag, rbuf[i] + k * seg * size,
                                ecoi_run_piece(rlen[i], seg, k));
        }
        ecoi_sched_fence(s);
    }
}

size_t ecoi_turns_of(size_t most, size_t step)
{
    return step == 0 || step >= most ? 1 : (most + step - 1) / step;
}

/* Does v's run into u come paced: from another subnet (its stream
 * crosses a shared link).  A child in u's own subnet sends it whole. */
static int paced_kid(const eco_ctx *c, int u, int v)
{
    return eco_map_subnet_of(c->map, c->member_host[u]) !=
           eco_map_subnet_of(c->map, c->member_host[v]);
}

/* How many turns member u's children's runs take (only its paced
 * children's, if paced_only): the longest run in segments of step
 * elements (step 0: whole runs, one turn). */
static size_t run_turns(const eco_ctx *c, const eco_tree *t, int u, size_t count,
                        size_t step, int paced_only)
{
    size_t most = 0;

    for (int i = t->child_off[u]; i < t->child_off[u + 1]; i++)
        if ((!paced_only || paced_kid(c, u, t->child[i])) &&
            (size_t)t->subtree[t->child[i]] * count > most)
            most = (size_t)t->subtree[t->child[i]] * count;
    return ecoi_turns_of(most, step);
}

/* A child's run of len elements in `turns` turns: segments of seg (at
 * least one element), how many (one message even for an empty run). */
size_t ecoi_run_segments(size_t len, size_t turns, size_t *seg)
{
    *seg = (len + turns - 1) / turns;
    return len == 0 ? 1 : (len + *seg - 1) / *seg;
}

/* The length of segment k of a run of len in segments of seg. */
size_t ecoi_run_piece(size_t len, size_t seg, size_t k)
{
    return len - k * seg < seg ? len - k * seg : seg;
}

/*
 * Each stream into a parent from another subnet paced by the parent: the
 * child sends a segment only when asked (an empty message on the
 * gather's own tag: only asks go down it), and the parent asks for
 * segment k + ECOI_PACED_AHEAD as it takes segment k.  Without it every
 * child sends its whole run at once, and where two subnets' runs meet on
 * a slower link, together they take it slower than its rate (not by
 * loss: doc/benchmarks.md run 20 counts no TCP timeout and a few
 * retransmissions there): uneven.topo's gather of 131,072 bytes into
 * its 10 Mbit/s segment took 502-530 ms (medians) by the star, whose
 * fastest runs were 441-449 ms, the model's 447; paced in 16 KB
 * segments 449-451.  Asked ahead, a child's
 * next segment is on its way before its last is in, so a stream does not
 * stop for a round trip a segment.  A child of the parent's own subnet
 * sends its run whole, at once: a subnet leader pacing its own members
 * made the leader start late by a turn's cost each (eco-paper.topo, 8 KB
 * segments: 454.6 ms against the star's 440).
 *
 *     parent:  ask 0, 1 | take 0, ask 2 | take 1, ask 3 | ... | take K-1
 *     child:   (its subtree in) wait ask 0 | send 0, wait ask 1 | ...
 */
void ecoi_sched_gather_paced(ecoi_sched *s, const eco_tree *t, int tag, const void *mine,
                             void *block, size_t count, size_t step)
{
    const eco_ctx *c = s->c;
    const int me = c->rank, parent = t->parent[me];
    const size_t size = ecoi_type_size(s->datatype), unit = count * size;
    const int *kids = &t->child[t->child_off[me]];
    const int nkids = t->child_off[me + 1] - t->child_off[me];
    const size_t turns = run_turns(c, t, me, count, step, 1);
    char *buf = block;

    if (parent >= 0 && !(buf = ecoi_sched_alloc(s, (size_t)t->subtree[me] * unit)))
        return;
    ecoi_sched_copy(s, buf, mine, count);
    for (size_t k = 0; k < ECOI_PACED_AHEAD; k++)
        for (int i = 0; i < nkids; i++) {
            size_t seg;
            if (paced_kid(c, me, kids[i]) &&
                k < ecoi_run_segments((size_t)t->subtree[kids[i]] * count, turns, &seg))
                ecoi_sched_send(s, kids[i], tag, buf, 0);
        }
    for (size_t k = 0; k < turns; k++) {
        for (int i = 0; i < nkids; i++) {
            const size_t len = (size_t)t->subtree[kids[i]] * count;
            const int paced = paced_kid(c, me, kids[i]);
            size_t seg, nseg = paced ? ecoi_run_segments(len, turns, &seg) : 1;
            char *at = buf + (size_t)(t->pos[kids[i]] - t->pos[me]) * unit;
            if (!paced)
                seg = len;
            if (k >= nseg)
                continue;
            ecoi_sched_recv(s, kids[i], tag, at + k * seg * size, ecoi_run_piece(len, seg, k));
            if (paced && k + ECOI_PACED_AHEAD < nseg)
                ecoi_sched_send(s, kids[i], tag, buf, 0);
        }
        ecoi_sched_fence(s);
    }
    if (parent >= 0 && !paced_kid(c, parent, me)) {
        ecoi_sched_send(s, parent, tag, buf, (size_t)t->subtree[me] * count);
        ecoi_sched_fence(s);
    } else if (parent >= 0) {
        const size_t len = (size_t)t->subtree[me] * count;
        size_t seg, nseg = ecoi_run_segments(len, run_turns(c, t, parent, count, step, 1), &seg);
        ecoi_sched_recv(s, parent, tag, buf, 0);
        ecoi_sched_fence(s);
        for (size_t k = 0; k < nseg; k++) {
            ecoi_sched_send(s, parent, tag, buf + k * seg * size, ecoi_run_piece(len, seg, k));
            if (k + 1 < nseg)
                ecoi_sched_recv(s, parent, tag, buf, 0);
            ecoi_sched_fence(s);
        }
    }
}

/* A member's run comes from its parent, and goes to its children, in
 * turns: in each, every child gets the next segment of its run, each run
 * in as many segments as the longest in step elements (a shorter run in
 * shorter segments), so that every child's run ends in the last turn.  A
 * send holds its sender until the receiver's socket has taken all but
 * its buffer (PVM's TTSOCKBUF, 32 KB), so a whole run to a child behind a
 * slow link kept every other child waiting: uneven.topo's scatter of
 * 128 KB from a 10 Mbit/s segment took 600 ms whole, 444 ms in 32 KB
 * segments (bound 419).  step 0: whole runs. */
void ecoi_sched_scatter(ecoi_sched *s, const eco_tree *t, int tag, const void *block,
                        void *mine, size_t count, size_t step)
{
    const int me = s->c->rank, parent = t->parent[me];
    const size_t size = ecoi_type_size(s->datatype), unit = count * size;
    const int *kids = &t->child[t->child_off[me]];
    const int nkids = t->child_off[me + 1] - t->child_off[me];
    const size_t turns = run_turns(s->c, t, me, count, step, 0);
    char *buf = (char *)block;

    if (parent >= 0) {
        const size_t len = (size_t)t->subtree[me] * count;
        size_t seg, nseg = ecoi_run_segments(len, run_turns(s->c, t, parent, count, step, 0), &seg);
        if (!(buf = ecoi_sched_alloc(s, len * size)))
            return;
        for (size_t k = 0; k < nseg; k++) {
            ecoi_sched_recv(s, parent, tag, buf + k * seg * size, ecoi_run_piece(len, seg, k));
            ecoi_sched_fence(s);
        }
    }
    for (size_t k = 0; k < turns; k++) {
        for (int i = 0; i < nkids; i++) {
            const size_t len = (size_t)t->subtree[kids[i]] * count;
            size_t seg;
            if (k < ecoi_run_segments(len, turns, &seg))
                ecoi_sched_send(s, kids[i], tag,
                                buf + (size_t)(t->pos[kids[i]] - t->pos[me]) * unit + k * seg * size,
                                ecoi_run_piece(len, seg, k));
        }
        ecoi_sched_fence(s);
    }
    if (mine)       /* NULL: the root, in place */
        ecoi_sched_copy(s, mine, buf, count);
    ecoi_sched_fence(s);
}

void ecoi_sched_bcast_from0(ecoi_sched *s, void *buf, size_t count)
{
    const size_t size = ecoi_type_size(s->datatype);
    const eco_tree *tb = NULL;
    ecoi_plan plan;
    int rc = ecoi_select(s->c, ECOI_C_BCAST, 0, count * size, &plan);

    if (rc == ECO_OK)
        rc = ecoi_ctx_shape(s->c, 0, plan.shape, &tb);
    if (rc == ECO_OK)
        ecoi_sched_bcast(s, tb, ecoi_next_tag(s->c), buf, count,
                         ecoi_plan_elems(&plan, count, size));
    else
        s->rc = rc;
}

int ecoi_sched_run(ecoi_sched *s)
{
    int rc = ecoi_sched_advance(s, 1);

    ecoi_sched_free(s);
    return rc;
}
