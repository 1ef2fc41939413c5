/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pvm_transport.c -- the transport over PVM 3.4 messages.
 *
 * Isolation: every message of the library travels in its own PVM message
 * context (pvm_newcontext, agreed at eco_init), so the application's
 * receives never see it and it never sees theirs, whatever the tags.
 * The caller's context and active send/receive buffers are saved on entry
 * to every collective and restored on exit; the library packs into
 * buffers it makes and frees itself.
 *
 * Agreement: every message starts with its sender's call signature
 * (ecoi_sig: operation, root, count, datatype, op) and the number of
 * elements it carries.  A receiver whose own signature differs, or that
 * expects another number of elements, fails with ECO_ERR_MISMATCH (under
 * every encoding: XDR's packed length is no measure of the elements, so
 * the count travels instead of being inferred from the bytes).  A member that waits longer than
 * one slice also looks at the messages of the same call from other
 * members (taking them aside for later): one whose signature differs is a
 * mismatch too, so members that disagree on the root (different trees)
 * fail instead of waiting for a message that never comes.  And when no
 * message comes, a member that has waited ECOI_ASK_SLICES slices (or as
 * long looking through try_recv, eco_test's) tells the member it waits
 * for its call (first tag) and signature (WAIT); that member, when it
 * is in the same call with another signature, fails with
 * ECO_ERR_MISMATCH (members that disagree on a root can each wait on
 * another: nothing they send reveals it), and so does one that has left
 * the call when it never sent that tag, or when the waiting member has
 * taken every message it sent it (the WAIT says how many: fewer segments
 * than expected; a later call's message that the waiting member took
 * counts).  Such a message of a later call from the member waited on says
 * it left the call (its messages are taken in the order it sent them:
 * see Order), but the waiting member fails only if the awaited one has
 * not come ECOI_MOVED_ON_SECONDS later (a margin from before that order
 * was kept, when PVM's route changes could deliver it first), and
 * after it has looked for it ECOI_MOVED_ON_LOOKS times more (the member
 * waited on may be waiting outside the library, reading no WAIT; the
 * waiting one may look only now and then, through eco_test).
 * A message of an earlier call, or of this one left unread at its end,
 * is a disagreement too: looked for when a call starts, while it waits
 * and when it ends.
 *
 * Control plane: exit notices, aborts and acknowledgements travel in one
 * fixed context for the whole process (ECOI_CTRL_CONTEXT), each abort and
 * acknowledgement naming its context by a random instance number.  PVM is
 * asked once per task for its exit notice, and never cancels (a cancelled
 * PvmTaskExit notify still delivers a notice).  So a context leaves
 * nothing behind: whatever arrives for a context that is gone is read and
 * dropped by the next reader.
 *
 * Failures: a receive waits in slices of ECOI_POLL_USEC; between slices
 * it reads the control messages, and fails with ECO_ERR_PEER when the
 * member it waits on is gone, or with the error a member sent with its
 * abort; a send to a member known to be gone fails too (that member
 * cannot have finished the collective).  An exit alone fails nothing: the
 * member may have made every collective it had to.  A member that fails
 * tells the others (abort), so the error spreads instead of leaving them
 * hanging.
 *
 * Order: PVM 3.4 keeps the messages from S to R in order only while
 * their route stays.  When S and R start sending each other at once
 * under direct routing, the one that grants the other's link
 * (TC_CONREQ: libpvm's pvm_tc_conreq) sends through the daemons until it
 * accepts the connection, then over it, and its later messages can
 * overtake its earlier ones: two fresh tasks that each sent the other
 * 200 messages of one tag got them out of order in 5 rounds of 30 on one
 * host, message 135 where 15 was due.  In a collective, a chunk's piece
 * went into the previous chunk's place (rsag among leaders that first
 * met there).  So every message carries its number among those its
 * sender sent to that member in this context, modulo ECOI_WIRE_SEQS, in
 * its tag (wire_tag), and a member takes a member's messages off PVM's
 * queue only in that order (take_next, sweep): what PVM delivers early
 * waits in PVM's queue for its turn.  Flow control (below) keeps at most
 * two epochs, 32 messages, of a pair unread, so numbers modulo 64 never
 * meet twice in the queue.
 *
 * Flow control: the messages from one member to another are counted in
 * epochs (ECOI_FLOW_MSGS messages or ECOI_FLOW_BYTES bytes, whichever
 * comes first); the receiver acknowledges each epoch when it has read its
 * last message, and the sender starts an epoch only when all but the one
 * before it are acknowledged.  Both ends count the same messages, so no
 * message asks for an acknowledgement.  A loop of rooted collectives then
 * keeps at most two epochs per pair in the receiver's queue, instead of
 * everything the leaves ran ahead with.  Nothing must reach a task that
 * has exited while its last messages may still be on their way
 * (flow_drain): a context's destruction waits until every member has
 * read every message it sent (the closed epochs' acknowledgements, and a
 * FLUSH answered for the open one).
 *
 * A send to a task that has just exited writes to a closed socket: inside
 * the library SIGPIPE is held and a SIGPIPE it caused is discarded, so
 * that a member does not die of its peer's death (the send fails, or the
 * exit notice tells).
 */
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <pvm3.h>
#include "eco_coll.h"
#include "eco_pvm.h"
#include "eco_log.h"

#define ECOI_POLL_USEC 50000 /* one wait slice: 50 ms */
/* How many more slices a member waits for a message from a member that
 * has exited: PVM's exit notice can overtake the last message the member
 * sent (a long one, still on a slow link).  40 slices: 2 s, 2.5 MB at
 * 10 Mbit/s. */
#define ECOI_EXIT_GRACE_SLICES 40
/* The same grace for try_recv, which counts no slices: this long, and
 * half as many looks as a blocking wait makes in it (ecoi_grace_look). */
#define ECOI_EXIT_GRACE_SECONDS (ECOI_EXIT_GRACE_SLICES * ECOI_POLL_USEC * 1e-6)
#define ECOI_EXIT_GRACE_LOOKS (ECOI_EXIT_GRACE_SLICES / 2)
/* Seconds a member waits for a message from one that has gone on to a
 * later call (moved_on) before it fails: long enough for a message the
 * later one overtook when PVM's route changed (the daemons route it, a
 * few MB at a slow link's rate; no longer possible since messages are
 * taken in order, see Order), short enough for a program that waits
 * outside the library.
 * And looks: half the slices of a blocking wait in that time, so that a
 * blocking wait still ends by the clock (unless its slices take twice
 * their time), while a program that looks now and then (eco_test every
 * 15 s) is not failed for the time it spent outside the library. */
#define ECOI_MOVED_ON_SECONDS 10.0
#define ECOI_MOVED_ON_LOOKS 100
/* Slices a member waits before it tells the member it waits for; and
 * the seconds they take, for try_recv, which waits in no slices. */
#define ECOI_ASK_SLICES 10
#define ECOI_ASK_SECONDS (ECOI_ASK_SLICES * ECOI_POLL_USEC * 1e-6)
/* How long eco_finalize waits at most for the members to read what this
 * one sent them (flow_drain): two epochs, 1 MB, take 8.4 s at 1 Mbit/s. */
#define ECOI_DRAIN_SECONDS 10
/* The header of every message: magic, the signature, then the number
 * of elements that follow. */
#define ECOI_HDR_MAGIC 0x45434f32 /* "ECO2" */
#define ECOI_SIG_INTS 5
#define ECOI_HDR_INTS (1 + ECOI_SIG_INTS + 1)

/* A message's number among its sender's to one member goes in bits 24
 * to 29 of its tag (the library's tags are ECOI_TAG_BASE, 0x45 in bits 24
 * to 31, and a counter below): XOR'd in, so a wire tag stays positive and
 * of the library's (bits 30 and 31 untouched).  Numbers modulo 64: flow
 * control keeps at most 2 x ECOI_FLOW_MSGS of a pair unread. */
#define ECOI_WIRE_SEQS 64
#define ECOI_WIRE_SHIFT 24
_Static_assert(ECOI_WIRE_SEQS > 2 * ECOI_FLOW_MSGS, "wire numbers meet twice in a queue");

static int wire_tag(int tag, unsigned nth)
{
    return tag ^ (int)((nth % ECOI_WIRE_SEQS) << ECOI_WIRE_SHIFT);
}

/* 1 when a tag read off PVM in the library's context is a wire tag. */
static int is_wire(int wire)
{
    return ((wire ^ ECOI_TAG_BASE) & ~ECOI_TAG_MASK & ~((ECOI_WIRE_SEQS - 1) << ECOI_WIRE_SHIFT)) == 0;
}

static int base_tag(int wire)
{
    return (wire & ECOI_TAG_MASK) | ECOI_TAG_BASE;
}

static unsigned wire_nth(int wire)
{
    return (unsigned)((wire ^ ECOI_TAG_BASE) >> ECOI_WIRE_SHIFT) % ECOI_WIRE_SEQS;
}

/* A signature as it travels (in the header, and in WAIT): five ints, in
 * the caller's storage (packed in place, it must live until the send). */
static void sig_to_ints(const ecoi_sig *s, int *v)
{
    v[0] = s->kind;
    v[1] = s->root;
    v[2] = s->count;
    v[3] = s->datatype;
    v[4] = s->op;
}

static ecoi_sig sig_of_ints(const int *v)
{
    ecoi_sig s = { v[0], v[1], v[2], v[3], v[4] };
    return s;
}

/* A message taken out of PVM's queue while waiting for another: of the
 * current call (its header read), or of a later one (not read yet). */
typedef struct stashed {
    int src, tag, bid;
    int hdr_read;               /* its header was read and agreed */
    int count;                  /* the elements its header announced */
    struct stashed *next;
} stashed;

/* Flow control towards or from one peer. */
typedef struct flow {
    ecoi_flow c;                /* the count (ecoi_flow_count) */
    /* in: a FLUSH to answer once this many are read; out: the most
     * the receiver said it has read (FLUSHED) */
    unsigned flush_epoch, flush_msgs;
    unsigned char flush_want, has_read;
} flow;

/* What a transport knows of one member. */
typedef struct peer_state {
    unsigned char dead;         /* exit notice seen */
    int aborted;                /* the error it aborted with, or 0 */
    ecoi_grace dead_grace;      /* try_recv: since it first found it gone */
    ecoi_grace moved_grace;     /* since a wait first found it gone on to a
                                 * later call (moved_too_long) */
    ecoi_grace ask_grace;       /* try_recv: since it first missed a message
                                 * from it, or last asked it (WAIT) */
    flow out, in;               /* towards / from it */
    unsigned acked;             /* epochs it acknowledged */
    int last_sent;              /* the latest tag sent to it, or 0 */
    unsigned sent_msgs;         /* messages sent to it */
    unsigned taken;             /* messages from it taken off PVM's queue */
    unsigned later_n;           /* messages from it in the stash unread
                                 * (of a later call when taken) */
    int later_tag;              /* the latest of their tags (moved_on) */
} peer_state;

typedef struct pvm_tp {
    ecoi_transport base;
    int n, rank;
    int *tids;
    int pvmctx;                 /* the library's message context */
    int owner;                  /* 1 at rank 0, which made the context */
    int encoding;               /* PvmDataRaw when all hosts share a format */
    size_t one_frag;            /* bytes of data a copied message carries in
                                 * one PVM fragment (0: none copied) */
    unsigned instance;          /* names this context in control messages */
    int saved_ctx, saved_s, saved_r;
    ecoi_matcher saved_match;   /* the program's pvm_recvf */
    sigset_t saved_mask;        /* the caller's signal mask */
    int pipe_pending;           /* SIGPIPE was pending on entry */
    peer_state *peer;           /* [n] */
    int any_abort;              /* the first error a member aborted with */
    int mismatch;               /* a WAIT showed a disagreement */
    stashed *stash;             /* in arrival order */
    stashed **stash_tail;       /* its last next (or stash): where one goes */
    int stash_floor;            /* a tag at or before every stashed one's
                                 * (stash_stale) */
    struct pvm_tp *next_live;
    int last_pvm;               /* eco_last_pvm_error: the last failed PVM status */
} pvm_tp;

/* The last failed PVM status behind an ECO_ERR_PVM in this thread. */
static __thread int last_pvm_thread;

int ecoi_pvm_error(int code)
{
    last_pvm_thread = code < 0 ? code : PvmSysErr;
    return ECO_ERR_PVM;
}

/* The same, recorded in the transport too. */
static int tp_pvm_error(pvm_tp *p, int code)
{
    p->last_pvm = code < 0 ? code : PvmSysErr;
    return ecoi_pvm_error(code);
}

/* The pack and unpack call of each datatype. */
static int pack(int dt, void *p, int n, int unpack)
{
    switch (dt) {
    case PVM_BYTE:   return unpack ? pvm_upkbyte(p, n, 1) : pvm_pkbyte(p, n, 1);
    case PVM_SHORT:  return unpack ? pvm_upkshort(p, n, 1) : pvm_pkshort(p, n, 1);
    case PVM_INT:    return unpack ? pvm_upkint(p, n, 1) : pvm_pkint(p, n, 1);
    case PVM_FLOAT:  return unpack ? pvm_upkfloat(p, n, 1) : pvm_pkfloat(p, n, 1);
    case PVM_CPLX:   return unpack ? pvm_upkcplx(p, n, 1) : pvm_pkcplx(p, n, 1);
    case PVM_DOUBLE: return unpack ? pvm_upkdouble(p, n, 1) : pvm_pkdouble(p, n, 1);
    case PVM_DCPLX:  return unpack ? pvm_upkdcplx(p, n, 1) : pvm_pkdcplx(p, n, 1);
    case PVM_LONG:   return unpack ? pvm_upklong(p, n, 1) : pvm_pklong(p, n, 1);
    case PVM_USHORT: return unpack ? pvm_upkushort(p, n, 1) : pvm_pkushort(p, n, 1);
    case PVM_UINT:   return unpack ? pvm_upkuint(p, n, 1) : pvm_pkuint(p, n, 1);
    case PVM_ULONG:  return unpack ? pvm_upkulong(p, n, 1) : pvm_pkulong(p, n, 1);
    default:         return PvmBadParam;
    }
}

/*
 * PVM's XDR encoding carries longs as 32 bits (pvm_upklong of -1 gives
 * 4294967295 on a 64-bit host), so with XDR the library sends PVM_LONG and
 * PVM_ULONG itself as pairs of 32-bit words, high word first: 64-bit
 * values travel intact between hosts of any byte order.
 */
static int pack_long64(void *p, size_t n, int unpack)
{
    unsigned int *w = malloc(2 * n * sizeof *w + 1);
    unsigned long *v = p;
    int rc = 0;

    if (!w)
        return PvmNoMem;
    if (unpack) {
        rc = pvm_upkuint(w, (int)(2 * n), 1);
        for (size_t i = 0; rc >= 0 && i < n; i++)
            v[i] = (unsigned long)(((unsigned long long)w[2 * i] << 32) | w[2 * i + 1]);
    } else {
        for (size_t i = 0; i < n; i++) {
            unsigned long long x = v[i];
            w[2 * i] = (unsigned int)(x >> 32);
            w[2 * i + 1] = (unsigned int)x;
        }
        rc = pvm_pkuint(w, (int)(2 * n), 1);
    }
    free(w);
    return rc;
}

/* Pack or unpack n elements in the given encoding. */
static int pack_enc(int enc, int dt, void *p, int n, int unpack)
{
    if (enc == PvmDataDefault && (dt == PVM_LONG || dt == PVM_ULONG) &&
        sizeof(long) == 8)
        return pack_long64(p, (size_t)n, unpack);
    return pack(dt, p, n, unpack);
}

/* Hold SIGPIPE (the caller's mask in *saved); 1 when one was pending
 * already (the caller's, not to be discarded). */
static int pipe_hold(sigset_t *saved)
{
    sigset_t pipe, pending;

    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe, saved);
    /* One the caller did not block cannot be pending here: it would have
     * been delivered.  (A syscall less in every call.) */
    return sigismember(saved, SIGPIPE) && sigpending(&pending) == 0 &&
           sigismember(&pending, SIGPIPE);
}

/* Discard the SIGPIPE the library caused (none was pending before), then
 * give the caller its mask back. */
static void pipe_release(const sigset_t *saved, int was_pending)
{
    if (!was_pending) {
        sigset_t pipe, pending;
        struct timespec zero = { 0, 0 };
        sigemptyset(&pipe);
        sigaddset(&pipe, SIGPIPE);
        if (sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE))
            sigtimedwait(&pipe, NULL, &zero);
    }
    pthread_sigmask(SIG_SETMASK, saved, NULL);
}

ecoi_matcher ecoi_pvm_set_matcher(ecoi_matcher m)
{
    return (ecoi_matcher)(void (*)(void))pvm_recvf(m);
}

static void tp_enter(ecoi_transport *t)
{
    pvm_tp *p = (pvm_tp *)t;

    p->pipe_pending = pipe_hold(&p->saved_mask);
    p->saved_ctx = pvm_setcontext(p->pvmctx);
    p->saved_s = pvm_setsbuf(0);
    p->saved_r = pvm_setrbuf(0);
    /* PVM's own matching for the library's receives, not one the
     * program installed (that may ignore contexts) */
    p->saved_match = ecoi_pvm_set_matcher(NULL);
}

static void tp_leave(ecoi_transport *t)
{
    pvm_tp *p = (pvm_tp *)t;
    int r = pvm_getrbuf();

    if (r > 0 && r != p->saved_r)
        pvm_freebuf(r);
    pvm_setrbuf(p->saved_r > 0 ? p->saved_r : 0);
    pvm_setsbuf(p->saved_s > 0 ? p->saved_s : 0);
    pvm_setcontext(p->saved_ctx);
    ecoi_pvm_set_matcher(p->saved_match);
    pipe_release(&p->saved_mask, p->pipe_pending);
}

/* ------------------------------------------------------------------ */
/* The control plane: one context for the whole process                */
/* ------------------------------------------------------------------ */

static pvm_tp *live;            /* the transports of this process */

/* A sorted set of tids. */
typedef struct tidset {
    int *v;
    size_t n, cap;
} tidset;

static tidset watched, gone;

static int tidset_find(const tidset *s, int tid, size_t *at)
{
    size_t lo = 0, hi = s->n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->v[mid] < tid)
            lo = mid + 1;
        else
            hi = mid;
    }
    *at = lo;
    return lo < s->n && s->v[lo] == tid;
}

static int tidset_add(tidset *s, int tid)
{
    size_t at;

    if (tidset_find(s, tid, &at))
        return ECO_OK;
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        int *v = realloc(s->v, cap * sizeof *v);
        if (!v)
            return ECO_ERR_NOMEM;
        s->v = v;
        s->cap = cap;
    }
    memmove(s->v + at + 1, s->v + at, (s->n - at) * sizeof *s->v);
    s->v[at] = tid;
    s->n++;
    return ECO_OK;
}

int ecoi_pvm_gone(int tid)
{
    size_t at;

    return tidset_find(&gone, tid, &at);
}

int ecoi_pvm_watch_tids(int n, const int *tids)
{
    int me = pvm_mytid(), *fresh = malloc((size_t)(n > 0 ? n : 1) * sizeof *fresh);
    int nf = 0, rc = ECO_OK, old;
    size_t at;

    if (!fresh)
        return ECO_ERR_NOMEM;
    for (int i = 0; i < n; i++)
        if (tids[i] != me && !tidset_find(&watched, tids[i], &at)) {
            int dup = 0;
            for (int j = 0; j < nf; j++)
                dup |= fresh[j] == tids[i];
            if (!dup)
                fresh[nf++] = tids[i];
        }
    if (nf > 0) {
        old = pvm_setcontext(ECOI_CTRL_CONTEXT);
        if ((rc = pvm_notify(PvmTaskExit, ECOI_TAG_EXIT, nf, fresh)) < 0)
            rc = ecoi_pvm_error(rc);
        pvm_setcontext(old);
    }
    for (int i = 0; i < nf && rc == ECO_OK; i++)
        rc = tidset_add(&watched, fresh[i]);
    free(fresh);
    return rc;
}

static pvm_tp *live_find(unsigned instance)
{
    for (pvm_tp *p = live; p; p = p->next_live)
        if (p->instance == instance)
            return p;
    return NULL;
}

static int rank_of(const pvm_tp *p, int tid)
{
    for (int r = 0; r < p->n; r++)
        if (p->tids[r] == tid)
            return r;
    return -1;
}

/* A control message for a context (abort, acknowledgement, wait). */
typedef struct ctrl_msg {
    int tag, src;
    unsigned instance;
    int value;
    ecoi_sig sig;               /* WAIT: the waiting member's signature */
    int tag_waited;             /* WAIT: the tag it waits for */
    unsigned taken;             /* WAIT: the messages it took from me */
    unsigned msgs;              /* FLUSH: messages of the open epoch */
} ctrl_msg;

/*
 * A control message can arrive before its context exists here (a member
 * that finished eco_init and its first call before this one got its boot
 * message), or after the context is gone.  The first kind waits in
 * `early` until the context is made (ecoi_pvm_transport); the second is
 * dropped: the instances of the last ECOI_PAST contexts are remembered.
 * Both lists are bounded, so nothing grows with the number of contexts.
 */
#define ECOI_PAST 1024
#define ECOI_EARLY 1024
static unsigned past[ECOI_PAST];
static unsigned npast;
static ctrl_msg early[ECOI_EARLY];
static unsigned nearly, early_next;

static int is_past(unsigned instance)
{
    for (unsigned i = 0; i < npast && i < ECOI_PAST; i++)
        if (past[i] == instance)
            return 1;
    return 0;
}

static void send_ctrl(int tid, int tag, unsigned instance, int value);
static void send_ctrl_n(int tid, int tag, unsigned instance, int value,
                        const int *extra, int nextra);

/* (epoch, msgs) a at or past b. */
static int count_reached(unsigned ea, unsigned ma, unsigned eb, unsigned mb)
{
    return ea != eb ? (int)(ea - eb) > 0 : ma >= mb;
}

/* Tell member r how much of what it sent has been read here. */
static void send_read(pvm_tp *p, int r, unsigned epoch, unsigned msgs)
{
    int m = (int)msgs;

    send_ctrl_n(p->tids[r], ECOI_TAG_FLUSHED, p->instance, (int)epoch, &m, 1);
}

/* Answer member r's FLUSH once every message it counted has been read. */
static void flush_answer(pvm_tp *p, int r)
{
    flow *f = &p->peer[r].in;

    if (f->flush_want && count_reached(f->c.epoch, f->c.msgs, f->flush_epoch, f->flush_msgs)) {
        f->flush_want = 0;
        send_read(p, r, f->c.epoch, f->c.msgs);
    }
}

/* Apply a control message to its transport. */
static void apply(pvm_tp *p, const ctrl_msg *m)
{
    int r = rank_of(p, m->src);
    const ecoi_sig *s = &p->base.sig;

    if (r < 0)
        return;
    if (m->tag == ECOI_TAG_WAIT && p->base.call_tag) {
        /* Where am I against the call it waits in? */
        int d = ecoi_tag_diff(p->base.call_tag, m->value);
        if (d == 0 && p->base.active)
            p->mismatch |= !ecoi_sig_equal(&m->sig, s);
        else if (d >= 0)
            /* Done with that call: if I never sent it that tag, or it has
             * taken every message I sent it (none is on its way), it
             * waits for a message I will never send. */
            p->mismatch |= !p->peer[r].last_sent ||
                           ecoi_tag_diff(p->peer[r].last_sent, m->tag_waited) < 0 ||
                           p->peer[r].sent_msgs == m->taken;
    } else if (m->tag == ECOI_TAG_ACK) {
        if ((unsigned)m->value > p->peer[r].acked)
            p->peer[r].acked = (unsigned)m->value;
    } else if (m->tag == ECOI_TAG_FLUSH) {
        p->peer[r].in.flush_epoch = (unsigned)m->value;
        p->peer[r].in.flush_msgs = m->msgs;
        p->peer[r].in.flush_want = 1;
        flush_answer(p, r);
    } else if (m->tag == ECOI_TAG_FLUSHED) {
        flow *f = &p->peer[r].out;
        if (!f->has_read || count_reached((unsigned)m->value, m->msgs, f->flush_epoch,
                                          f->flush_msgs)) {
            f->flush_epoch = (unsigned)m->value;    /* out: what it read */
            f->flush_msgs = m->msgs;
            f->has_read = 1;
        }
    } else if (m->value < 0) {
        if (!p->peer[r].aborted)
            p->peer[r].aborted = m->value;
        if (!p->any_abort)
            p->any_abort = m->value;
    }
}

/* One control message, the active receive buffer. */
static void dispatch(int bid)
{
    int bytes, body[2], wait[2 + ECOI_SIG_INTS];
    ctrl_msg m = { 0 };
    pvm_tp *p;

    if (pvm_bufinfo(bid, &bytes, &m.tag, &m.src) < 0)
        return;
    if (m.tag == ECOI_TAG_EXIT) {
        int tid, r;
        if (pvm_upkint(&tid, 1, 1) < 0)
            return;
        tidset_add(&gone, tid);
        for (p = live; p; p = p->next_live)
            if ((r = rank_of(p, tid)) >= 0)
                p->peer[r].dead = 1;
        return;
    }
    if ((m.tag != ECOI_TAG_ABORT && m.tag != ECOI_TAG_ACK && m.tag != ECOI_TAG_WAIT &&
         m.tag != ECOI_TAG_FLUSH && m.tag != ECOI_TAG_FLUSHED) ||
        pvm_upkint(body, 2, 1) < 0 ||
        (m.tag == ECOI_TAG_WAIT && pvm_upkint(wait, 2 + ECOI_SIG_INTS, 1) < 0) ||
        ((m.tag == ECOI_TAG_FLUSH || m.tag == ECOI_TAG_FLUSHED) &&
         pvm_upkint(wait, 1, 1) < 0))
        return;
    if (m.tag == ECOI_TAG_WAIT) {
        m.tag_waited = wait[0];
        m.sig = sig_of_ints(wait + 1);
        m.taken = (unsigned)wait[1 + ECOI_SIG_INTS];
    }
    if (m.tag == ECOI_TAG_FLUSH || m.tag == ECOI_TAG_FLUSHED)
        m.msgs = (unsigned)wait[0];
    m.instance = (unsigned)body[0];
    m.value = body[1];
    if ((p = live_find(m.instance)))
        apply(p, &m);
    else if (is_past(m.instance)) {
        /* gone here: it read all it was sent in that context */
        if (m.tag == ECOI_TAG_FLUSH) {
            int msgs = (int)m.msgs;
            send_ctrl_n(m.src, ECOI_TAG_FLUSHED, m.instance, m.value, &msgs, 1);
        }
    } else {
        early[early_next] = m;      /* the oldest goes when full */
        early_next = (early_next + 1) % ECOI_EARLY;
        if (nearly < ECOI_EARLY)
            nearly++;
    }
}

/* A new transport takes the messages that came before it. */
static void claim_early(pvm_tp *p)
{
    for (unsigned i = 0; i < nearly; i++)
        if (early[i].instance == p->instance) {
            apply(p, &early[i]);
            early[i].instance = 0;  /* instances are never 0 */
        }
}

/* Read control messages under matcher match (NULL: PVM's own, in the
 * control context): those that have arrived, or (wait) the first one to
 * arrive within one slice and any behind it. */
static void pump_with(int wait, ecoi_matcher with)
{
    int old = pvm_setcontext(ECOI_CTRL_CONTEXT), r = pvm_setrbuf(0), b;
    ecoi_matcher match = ecoi_pvm_set_matcher(with);
    struct timeval tv = { 0, ECOI_POLL_USEC };

    b = wait ? pvm_trecv(-1, -1, &tv) : pvm_nrecv(-1, -1);
    while (b > 0) {
        dispatch(b);
        pvm_freebuf(b);
        b = pvm_nrecv(-1, -1);
    }
    ecoi_pvm_set_matcher(match);
    pvm_setrbuf(r > 0 ? r : 0);
    pvm_setcontext(old);
}

static void pump(int wait)
{
    pump_with(wait, NULL);
}

void ecoi_pvm_pump(void)
{
    pump(0);
}

static double now_seconds(void);

/* The exit watch is the process-wide one (ecoi_pvm_watch_tids): a watch
 * of its own, cancelled afterwards, would leave PVM's cancel notice
 * behind. */
int ecoi_pvm_recv_from(int tid, int tag, int *bid)
{
    ecoi_matcher match;
    int rc;

    ecoi_grace dead = { 0, 0 };

    *bid = 0;
    if ((rc = ecoi_pvm_watch_tids(1, &tid)) != ECO_OK)
        return rc;
    match = ecoi_pvm_set_matcher(NULL);
    for (;;) {
        struct timeval tv = { 0, ECOI_POLL_USEC };
        if ((*bid = pvm_trecv(tid, tag, &tv)) != 0)
            break;
        pump(0);
        /* Gone: what it sent before it left may be behind the exit
         * notice, or read in with it by pump (pvm.test's members that
         * disagree: rank 0 sent the last case's boot message and left
         * while rank 2, loaded, was still on its way to eco_init, which
         * gave up at once with ECO_ERR_PEER), as long as a wait's
         * exit grace. */
        if (ecoi_pvm_gone(tid) &&
            ecoi_grace_look(&dead, now_seconds(), ECOI_EXIT_GRACE_SECONDS,
                            ECOI_EXIT_GRACE_LOOKS) &&
            (*bid = pvm_nrecv(tid, tag)) == 0)
            break;
        if (*bid != 0)
            break;
    }
    ecoi_pvm_set_matcher(match);
    if (*bid == 0)
        return ECO_ERR_PEER;
    return *bid < 0 ? ecoi_pvm_error(*bid) : ECO_OK;
}

/* Send a control message (instance, value, extra[0..nextra-1]) to tid.
 * It may go out where no collective holds SIGPIPE (a FLUSHED answered
 * while eco_init waits, a FLUSH before eco_finalize enters), to a task
 * that has just exited: SIGPIPE is held here too, and one it caused
 * discarded. */
static void send_ctrl_n(int tid, int tag, unsigned instance, int value,
                        const int *extra, int nextra)
{
    int old, bid = pvm_mkbuf(PvmDataDefault), s, body[2], was_pending;
    sigset_t saved;

    if (bid < 0)
        return;
    was_pending = pipe_hold(&saved);
    body[0] = (int)instance;
    body[1] = value;
    old = pvm_setcontext(ECOI_CTRL_CONTEXT);
    s = pvm_setsbuf(bid);
    if (pvm_pkint(body, 2, 1) >= 0 && (nextra == 0 || pvm_pkint((int *)extra, nextra, 1) >= 0))
        pvm_send(tid, tag);
    pvm_setsbuf(s > 0 ? s : 0);
    pvm_freebuf(bid);
    pvm_setcontext(old);
    pipe_release(&saved, was_pending);
}

static void send_ctrl(int tid, int tag, unsigned instance, int value)
{
    send_ctrl_n(tid, tag, instance, value, NULL, 0);
}

unsigned ecoi_random32(void)
{
    static unsigned counter;
    unsigned v = 0;

    if (getrandom(&v, sizeof v, GRND_NONBLOCK) != (ssize_t)sizeof v) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        v = (unsigned)ts.tv_nsec ^ (unsigned)ts.tv_sec * 2654435761u ^
            (unsigned)getpid() << 16 ^ ++counter * 40503u;
    }
    return v ? v : 1;
}

/* ------------------------------------------------------------------ */
/* Flow control                                                        */
/* ------------------------------------------------------------------ */

/* Before a message to dest: wait until dest has read all but the last
 * closed epoch.  Fails when dest is gone or gave up. */
static int flow_wait(pvm_tp *p, int dest)
{
    while (p->peer[dest].out.c.epoch > p->peer[dest].acked + 1) {
        if (p->peer[dest].dead)
            return ECO_ERR_PEER;
        if (p->peer[dest].aborted)
            return p->peer[dest].aborted;
        if (p->mismatch)
            return ECO_ERR_MISMATCH;
        pump(1);
    }
    return p->peer[dest].dead ? ECO_ERR_PEER : ECO_OK;
}

/*
 * Before a context goes (eco_finalize): wait until every member has read
 * every message it was sent.  Anything that reaches a task that has
 * exited over a task-to-task TCP connection (an acknowledgement, or a
 * WAIT from a member that has waited 0.5 s for a message still queued
 * behind a slow link) makes its host answer with a reset and throw away
 * what that task had written but not yet put on the wire: the last
 * messages, and the member that waits for them fails with ECO_ERR_PEER
 * (seen: an all-to-all of 128 KB blocks, 16 streams through a 5 Mbit/s
 * link).  The closed epochs are acknowledged anyway.  For the open one,
 * every member says at its own eco_finalize how much of it it has read
 * (FLUSHED, unasked: both ends count the same messages, so it knows the
 * sender waits for it), and this task asks the members it still waits
 * for (FLUSH), which answer as soon as they have read that much, or at
 * once when their context is gone (they read what they were sent).  A
 * member that finalizes first thus releases the others without waiting
 * for them.  Once all is read, a correct run sends this task nothing it
 * needs.  The wait ends early when a member exits or aborts, and after
 * ECOI_DRAIN_SECONDS (a member that makes its call late, after waiting
 * for something this task does after eco_finalize, must not hang it).
 * Only over direct task-to-task links (PvmRouteDirect, eco_init's
 * default): routed through the daemons, a task's messages leave it at
 * once for its own daemon, which keeps them, and the layer for legacy
 * programs (lib/compat), which keeps PVM's default route and rebuilds a
 * group's context whenever its members change, must not wait at each
 * rebuild for members busy elsewhere.  A legacy program that asked for
 * direct links does wait, e.g. in pvm_lvgroup, but a member blocked in
 * any receive of the program's answers at once (lib/compat/brecv.c): one
 * that waits for the leaver's next message would otherwise hold it 10 s.
 * Giving up is logged (ECO_LOG_INFO).
 */
static int all_read(const pvm_tp *p, int d)
{
    const flow *f = &p->peer[d].out;

    return f->c.msgs == 0 ||
           (f->has_read && count_reached(f->flush_epoch, f->flush_msgs, f->c.epoch, f->c.msgs));
}

static void flow_drain(pvm_tp *p)
{
    const int direct = pvm_getopt(PvmRoute) == PvmRouteDirect;
    struct timespec t0, t;

    for (int d = 0; d < p->n && direct; d++) {
        if (d == p->rank || p->peer[d].dead || p->peer[d].aborted)
            continue;
        if (p->peer[d].in.c.msgs > 0)
            send_read(p, d, p->peer[d].in.c.epoch, p->peer[d].in.c.msgs);
        if (!all_read(p, d)) {
            int msgs = (int)p->peer[d].out.c.msgs;
            send_ctrl_n(p->tids[d], ECOI_TAG_FLUSH, p->instance, (int)p->peer[d].out.c.epoch,
                        &msgs, 1);
        }
    }
    if (direct)
        pump(0);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        int pending = -1;
        for (int d = 0; d < p->n && pending < 0; d++)
            if (d != p->rank && !p->peer[d].dead && !p->peer[d].aborted &&
                (p->peer[d].acked < p->peer[d].out.c.epoch || (direct && !all_read(p, d))))
                pending = d;
        if (pending < 0 || p->any_abort || p->mismatch)
            return;
        clock_gettime(CLOCK_MONOTONIC, &t);
        if (t.tv_sec - t0.tv_sec > ECOI_DRAIN_SECONDS) {
            ecoi_log(ECO_LOG_INFO, "eco_finalize: member %d (t%x) has not said in %d s that "
                     "it read what it was sent; going on", pending, (unsigned)p->tids[pending],
                     ECOI_DRAIN_SECONDS);
            return;
        }
        pump(1);
    }
}

/* After reading a message from src: acknowledge the epoch it closes. */
static void flow_read(pvm_tp *p, int src, size_t bytes)
{
    if (ecoi_flow_count(&p->peer[src].in.c, bytes))
        send_ctrl(p->tids[src], ECOI_TAG_ACK, p->instance, (int)p->peer[src].in.c.epoch);
    flush_answer(p, src);
}

/* ------------------------------------------------------------------ */
/* Messages                                                            */
/* ------------------------------------------------------------------ */

/* PVM's own headers in a message's first fragment (the fragment's 16
 * bytes and the message's 32): copied (PvmDataRaw) with libeco's header,
 * 4,000 bytes of data go out as one fragment of 4,076 bytes, PVM's
 * fragment size 4,080; 4,040 bytes as two (strace, PVM 3.4.6). */
#define PVM_FRAG_HEADERS 48
/* PVM's default fragment: a program that sets PvmFragSize larger still
 * has only short messages copied (lib/select.c's ONE_FRAGMENT is cut to
 * this size). */
#define PVM_DEFAULT_FRAG 4080

/* How many bytes of data a message copied into PVM's buffer carries in
 * one fragment with libeco's header; 0 when messages go out in place
 * always (ECOI_ENC_INPLACE) or are not sent in place at all. */
static size_t one_fragment(int encoding)
{
    int fs = encoding == PvmDataInPlace ? pvm_getopt(PvmFragSize) : 0;
    int over = PVM_FRAG_HEADERS + ECOI_HDR_INTS * (int)sizeof(int);

    if (fs > PVM_DEFAULT_FRAG)
        fs = PVM_DEFAULT_FRAG;
    return fs > over ? (size_t)(fs - over) : 0;
}

/* A message of `bytes` payload sent to dest (tp_send's, or passed on by
 * deliver): its flow's count, the latest tag, the messages sent. */
static void note_out(pvm_tp *p, int dest, int tag, size_t bytes)
{
    ecoi_flow_count(&p->peer[dest].out.c, bytes);
    ecoi_note_sent(&p->peer[dest].last_sent, tag);
    p->peer[dest].sent_msgs++;
}

static int tp_send(ecoi_transport *t, int dest, int tag, const void *buf,
                   size_t count, int datatype)
{
    pvm_tp *p = (pvm_tp *)t;
    int hdr[ECOI_HDR_INTS] = { ECOI_HDR_MAGIC };
    int bid, rc, enc = p->encoding;

    if (count > INT_MAX)
        return ECO_ERR_ARG;
    if ((rc = flow_wait(p, dest)) != ECO_OK)
        return rc;
    sig_to_ints(&t->sig, hdr + 1);
    hdr[1 + ECOI_SIG_INTS] = (int)count;
    /* In place, the header and the data are two fragments, each written
     * to the socket on its own: a short message costs twice the packets
     * and wake-ups.  Copied, it is one.  switched8.topo, gather-to-all
     * around the ring (7 lock-step steps) of 8 to 1,000 bytes: 1.9-2.0 ms
     * in place, 0.92-1.04 copied; 4,000 bytes (two fragments either
     * way): 2.5 and 2.4. */
    if (enc == PvmDataInPlace && count * ecoi_type_size(datatype) <= p->one_frag)
        enc = PvmDataRaw;
    bid = pvm_mkbuf(enc);
    if (bid < 0)
        return tp_pvm_error(p, bid);
    pvm_setsbuf(bid);
    if ((rc = pvm_pkint(hdr, ECOI_HDR_INTS, 1)) >= 0 && count)
        rc = pack_enc(enc, datatype, (void *)buf, (int)count, 0);
    rc = rc < 0 ? tp_pvm_error(p, rc) : ECO_OK;
    if (rc == ECO_OK && pvm_send(p->tids[dest], wire_tag(tag, p->peer[dest].sent_msgs)) < 0)
        rc = ECO_ERR_PEER;
    pvm_setsbuf(0);
    pvm_freebuf(bid);
    if (rc == ECO_OK)
        note_out(p, dest, tag, count * ecoi_type_size(datatype));
    return rc;
}

/* Read the header of the active receive buffer: ECO_OK when its
 * signature is this member's; *count the elements it announces. */
static int check_header(const pvm_tp *p, int *count)
{
    int h[ECOI_HDR_INTS];
    ecoi_sig theirs;

    *count = -1;
    if (pvm_upkint(h, ECOI_HDR_INTS, 1) < 0 || h[0] != ECOI_HDR_MAGIC)
        return ECO_ERR_MISMATCH;
    theirs = sig_of_ints(h + 1);
    *count = h[1 + ECOI_SIG_INTS];
    return ecoi_sig_equal(&theirs, &p->base.sig) ? ECO_OK : ECO_ERR_MISMATCH;
}

/* 1 when tag is of a call after the current one. */
static int of_later_call(const pvm_tp *p, int tag)
{
    return ecoi_tag_diff(tag, p->base.call_tag) >= ECOI_CALL_TAGS;
}

/* The latest tag of the messages from src in the stash unread, by a walk
 * (0: none). */
static int latest_unread(const pvm_tp *p, int src)
{
    int latest = 0;

    for (const stashed *s = p->stash; s; s = s->next)
        if (s->src == src && !s->hdr_read && (!latest || ecoi_tag_diff(s->tag, latest) > 0))
            latest = s->tag;
    return latest;
}

/* Take *pp off the stash; the caller frees it.  src's later_tag stays the
 * latest unread tag from src, or one of the current call or before with
 * none unread after it: what is taken off is of the current call (a
 * receive's), and the calls only go on, so such a tag can never say
 * later again.  Only one taken off while still of a later call needs the
 * walk. */
static stashed *stash_unlink(pvm_tp *p, stashed **pp)
{
    stashed *s = *pp;

    *pp = s->next;
    if (p->stash_tail == &s->next)
        p->stash_tail = pp;
    if (!s->hdr_read && --p->peer[s->src].later_n > 0 && s->tag == p->peer[s->src].later_tag &&
        of_later_call(p, s->tag))
        p->peer[s->src].later_tag = latest_unread(p, s->src);
    return s;
}

/* The first stashed message (src, tag), taken off the stash (*count the
 * elements its header announced); 0 if none. */
static int unstash(pvm_tp *p, int src, int tag, int *read_hdr, int *count)
{
    for (stashed **pp = &p->stash; *pp; pp = &(*pp)->next)
        if ((*pp)->src == src && (*pp)->tag == tag) {
            stashed *s = stash_unlink(p, pp);
            int bid = s->bid;
            *read_hdr = s->hdr_read;
            *count = s->count;
            free(s);
            return bid;
        }
    return 0;
}

/* The active receive buffer b, a message (r, tag) taken while waiting
 * for another: to the stash for its own receive.  One of this call
 * (check) has its header read: a signature other than ours is a
 * mismatch. */
static int stash_active(pvm_tp *p, int r, int tag, int b, int check)
{
    stashed *s;
    int count = -1;

    if (check && check_header(p, &count) != ECO_OK) {
        pvm_freebuf(b);
        return ECO_ERR_MISMATCH;
    }
    pvm_setrbuf(0);     /* keep it: the next receive would free it */
    if (!(s = malloc(sizeof *s))) {
        pvm_freebuf(b);
        return ECO_ERR_NOMEM;
    }
    s->src = r;
    s->tag = tag;
    s->bid = b;
    s->hdr_read = check;
    s->count = count;
    s->next = NULL;
    if (!p->stash || ecoi_tag_diff(tag, p->stash_floor) < 0)
        p->stash_floor = tag;
    *p->stash_tail = s;
    p->stash_tail = &s->next;
    if (!check && (p->peer[r].later_n++ == 0 || ecoi_tag_diff(tag, p->peer[r].later_tag) > 0))
        p->peer[r].later_tag = tag;
    return ECO_OK;
}

/* The matchers' first test: message mid (*mi its information) is of
 * PVM context ctx. */
static int in_ctx(int mid, int ctx, struct pvmminfo *mi)
{
    return pvm_getminfo(mid, mi) >= 0 && mi->ctx == ctx;
}

/* A message taken off PVM's queue, not the one waited for: to the stash
 * (stash_active: its header read when it is of this call, unread when
 * of a later one), or, of an earlier call, a mismatch: r sent what
 * nobody read here (a call ends only when it has read all it was sent). */
static int keep_aside(pvm_tp *p, int r, int tag, int b)
{
    const int d = ecoi_tag_diff(tag, p->base.call_tag);

    if (d < 0) {
        pvm_freebuf(b);
        return ECO_ERR_MISMATCH;
    }
    return stash_active(p, r, tag, b, d < ECOI_CALL_TAGS);
}

/* 1 when wire is the tag of the message member r is to be taken next:
 * the library's, numbered as many as were taken from r. */
static int in_turn(const pvm_tp *p, int r, int wire)
{
    return is_wire(wire) && wire_nth(wire) == p->peer[r].taken % ECOI_WIRE_SEQS;
}

/* What match_next looks for: set by take_next around its receive. */
static const pvm_tp *next_tp;
static int next_src;

/* A matcher for pvm_recvf: the message next_src sent next, in next_tp's
 * context. */
static int match_next(int mid, int tid, int tag)
{
    struct pvmminfo mi;

    (void)tid;
    (void)tag;
    return in_ctx(mid, next_tp->pvmctx, &mi) && mi.src == next_tp->tids[next_src] &&
           in_turn(next_tp, next_src, mi.tag);
}

/* The next message of src, in the order src sent them, off PVM's queue
 * (waiting up to one slice when wait): its buffer (*tag its tag), 0 when
 * it has not come, or PVM's error. */
static int take_next(pvm_tp *p, int src, int wait, int *tag)
{
    struct timeval tv = { 0, ECOI_POLL_USEC };
    ecoi_matcher old;
    int b, bytes, mtid;

    next_tp = p;
    next_src = src;
    old = ecoi_pvm_set_matcher(match_next);
    b = wait ? pvm_trecv(-1, -1, &tv) : pvm_nrecv(-1, -1);
    ecoi_pvm_set_matcher(old);
    if (b > 0) {
        p->peer[src].taken++;
        if (pvm_bufinfo(b, &bytes, tag, &mtid) < 0)
            *tag = 0;
        *tag = base_tag(*tag);
    }
    return b;
}

/* src's messages in the order it sent them, until (src, tag) (*bid) or
 * none more has come (*bid 0); the others go aside (keep_aside).  wait:
 * the first one waited for up to one slice. */
static int take_until(pvm_tp *p, int src, int tag, int wait, int *bid)
{
    int b, mtag, rc = ECO_OK;

    *bid = 0;
    while (rc == ECO_OK && (b = take_next(p, src, wait, &mtag)) != 0) {
        if (b < 0)
            return tp_pvm_error(p, b);
        if (mtag == tag) {
            *bid = b;
            break;
        }
        rc = keep_aside(p, src, mtag, b);
        wait = 0;
    }
    return rc;
}

/* What match_sweep looks for: set by sweep around its receives. */
static const pvm_tp *sweep_tp;
static int sweep_src, sweep_tag;

/* A matcher for pvm_recvf: a message of the library's context with the
 * tag waited for, from anyone, or from the member waited on, any tag;
 * each member's in the order it sent them. */
static int match_sweep(int mid, int tid, int tag)
{
    struct pvmminfo mi;
    int r;

    (void)tid;
    (void)tag;
    if (!in_ctx(mid, sweep_tp->pvmctx, &mi) || !is_wire(mi.tag))
        return 0;
    if (base_tag(mi.tag) != sweep_tag && mi.src != sweep_tp->tids[sweep_src])
        return 0;
    return (r = rank_of(sweep_tp, mi.src)) >= 0 && in_turn(sweep_tp, r, mi.tag);
}

/*
 * While waiting for (src, tag): take what has come of it.
 *  - (src, tag) itself is returned in *bid.
 *  - The same tag from another member goes to the stash (stash_active),
 *    its header read.
 *  - Another tag from src: of this call, to the stash too; of an earlier
 *    call, a mismatch (keep_aside); of a later call, to the stash
 *    unread, for that call: src has left this call, and what it sent in
 *    it is here already (taken in order).  The WAIT's count settles it
 *    (apply), or, when src reads no WAIT (it waits outside the library),
 *    moved_on's grace.
 * One receive under a matcher (match_sweep) a message, and one that finds
 * none: a pass over the sockets each.
 */
static int sweep(pvm_tp *p, int src, int tag, int *bid)
{
    ecoi_matcher old;
    int b, bytes, mtag, mtid, r, rc = ECO_OK;

    *bid = 0;
    sweep_tp = p;
    sweep_src = src;
    sweep_tag = tag;
    old = ecoi_pvm_set_matcher(match_sweep);
    while (rc == ECO_OK && (b = pvm_nrecv(-1, -1)) != 0) {
        if (b < 0) {
            rc = tp_pvm_error(p, b);
            break;
        }
        if (pvm_bufinfo(b, &bytes, &mtag, &mtid) < 0 || (r = rank_of(p, mtid)) < 0) {
            pvm_freebuf(b);
            continue;
        }
        p->peer[r].taken++;
        mtag = base_tag(mtag);
        if (r == src && mtag == tag) {
            *bid = b;
            break;
        }
        rc = keep_aside(p, r, mtag, b);
    }
    ecoi_pvm_set_matcher(old);
    return rc;
}

/* What match_stale looks for: set by unread_stale around its probe. */
static int stale_ctx, stale_call, stale_this_too;

/* A matcher for pvm_recvf: a message of the library's context (stale_ctx)
 * whose tag is of one of the calls unread_stale looks for, whoever sent
 * it.  One probe then looks at PVM's whole queue, where a probe per tag
 * cost a pass over the sockets each (11 at every call's end: a barrier of
 * 8 tasks on 2 cores took twice as long). */
static int match_stale(int mid, int tid, int tag)
{
    struct pvmminfo mi;

    (void)tid;
    (void)tag;
    if (!in_ctx(mid, stale_ctx, &mi))
        return 0;
    if (!is_wire(mi.tag))
        return 0;
    return ecoi_tag_stale(base_tag(mi.tag), stale_call, stale_this_too);
}

/* 1 when a stashed message is of one of the ECOI_STALE_CALLS calls
 * before this one, or (this_too) of this one.  Every slice of a wait
 * asks, and a walk of the stash would find none there: what is stashed
 * in a call is of it or of a later one.  So the stash is walked only
 * when its floor is before the first tag that cannot be stale (at the
 * end of a call that stashed some of its own messages, say), and a walk
 * that finds none raises the floor to the earliest stashed tag. */
static int stash_stale(pvm_tp *p, int this_too)
{
    const int call = p->base.call_tag, upto = this_too ? ECOI_CALL_TAGS : 0;
    int floor;

    if (!p->stash || ecoi_tag_diff(p->stash_floor, call) >= upto)
        return 0;
    floor = p->stash->tag;
    for (const stashed *s = p->stash; s; s = s->next) {
        if (ecoi_tag_stale(s->tag, call, this_too))
            return 1;
        if (ecoi_tag_diff(s->tag, floor) < 0)
            floor = s->tag;
    }
    p->stash_floor = floor;
    return 0;
}

/* What match_stale is to look for in PVM's queue, set for p's call; 1
 * when the stash has such a message already (stash_stale). */
static int stale_look(pvm_tp *p, int this_too)
{
    stale_ctx = p->pvmctx;
    stale_call = p->base.call_tag;
    stale_this_too = this_too;
    return stash_stale(p, this_too);
}

/* 1 when a message of one of the ECOI_STALE_CALLS calls before this one,
 * or (this_too) of this one, is still unread here: in PVM's queue or in
 * the stash.  In agreement a call ends only when it has read every
 * message it was sent. */
static int unread_stale(pvm_tp *p, int this_too)
{
    ecoi_matcher old;
    int found;

    if (stale_look(p, this_too))
        return 1;
    old = ecoi_pvm_set_matcher(match_stale);
    found = pvm_probe(-1, -1) > 0;
    ecoi_pvm_set_matcher(old);
    return found;
}

/* 1 when a message of a later call from src is in the stash: src has
 * left this call (a member runs one call at a time), and what it sent in
 * it is here or on its way.  (One stashed unread in an earlier call may
 * be of this one now.)  Without a walk: the latest unread one's tag
 * (stash_unlink). */
static int moved_on(const pvm_tp *p, int src)
{
    return p->peer[src].later_n > 0 && of_later_call(p, p->peer[src].later_tag);
}

int ecoi_pvm_stash_check(const ecoi_transport *t)
{
    const pvm_tp *p = (const pvm_tp *)t;
    stashed *const *tail = &p->stash;
    int total = 0;

    for (const stashed *s = p->stash; s; s = s->next) {
        if (ecoi_tag_diff(s->tag, p->stash_floor) < 0)
            return -1;
        tail = &s->next;
    }
    if (tail != p->stash_tail)
        return -1;

    for (int r = 0; r < p->n; r++) {
        unsigned n = 0;
        int later = 0;
        for (const stashed *s = p->stash; s; s = s->next)
            if (s->src == r && !s->hdr_read) {
                n++;
                later |= of_later_call(p, s->tag);
            }
        if (n != p->peer[r].later_n || later != moved_on(p, r))
            return -1;
        total += (int)n;
    }
    return total;
}

static double now_seconds(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int ecoi_grace_look(ecoi_grace *g, double now, double seconds, unsigned looks)
{
    if (g->looks == 0)
        g->since = now;
    if (g->looks < UINT_MAX)
        g->looks++;
    return now - g->since > seconds && g->looks > looks;
}

void ecoi_grace_reset(ecoi_grace *g)
{
    g->since = 0.0;
    g->looks = 0;
}

/* 1 when src has been gone on to a later call (moved_on) for
 * ECOI_MOVED_ON_SECONDS and ECOI_MOVED_ON_LOOKS of this member's looks
 * for it, with nothing from it delivered meanwhile (deliver starts the
 * grace again). */
static int moved_too_long(pvm_tp *p, int src)
{
    if (!moved_on(p, src)) {
        ecoi_grace_reset(&p->peer[src].moved_grace);
        return 0;
    }
    return ecoi_grace_look(&p->peer[src].moved_grace, now_seconds(), ECOI_MOVED_ON_SECONDS,
                           ECOI_MOVED_ON_LOOKS);
}

/* Tell src that this member waits for its message tag (WAIT), in which
 * call, with which signature, and how many of its messages it took. */
static void send_wait(pvm_tp *p, int src, int tag)
{
    int w[2 + ECOI_SIG_INTS] = { tag };

    sig_to_ints(&p->base.sig, w + 1);
    w[1 + ECOI_SIG_INTS] = (int)p->peer[src].taken;
    send_ctrl_n(p->tids[src], ECOI_TAG_WAIT, p->instance, p->base.call_tag, w,
                2 + ECOI_SIG_INTS);
}

/* try_recv: 1 when it is time to ask src (send_wait), as a blocking
 * wait does every ECOI_ASK_SLICES slices: ECOI_ASK_SECONDS after its
 * first miss of a message from src since the last one delivered
 * (deliver), or after it last asked.  Per member, not per tag: a round
 * may wait for two tags from one member (hier's runs), and a grace kept
 * per tag would restart at each and never run out.  Time alone, no
 * looks: a WAIT is right whenever it goes (apply judges it by what the
 * member asked has done, and the count it carries), and a program that
 * polls eco_test rarely must still ask. */
static int ask_due(pvm_tp *p, int src)
{
    ecoi_grace *g = &p->peer[src].ask_grace;
    const double now = now_seconds();

    if (!ecoi_grace_look(g, now, ECOI_ASK_SECONDS, 0))
        return 0;
    ecoi_grace_reset(g);        /* the next one counts from this one */
    ecoi_grace_look(g, now, ECOI_ASK_SECONDS, 0);
    return 1;
}

/* Wait for the message (src, tag); fail when src exits or gives up, or
 * when a message of this call reveals a disagreement.  *read_hdr: the
 * message's header has been read already (it was stashed; *count the
 * elements it announced). */
static int wait_msg(pvm_tp *p, int src, int tag, int *bid, int *read_hdr, int *count)
{
    int grace = ECOI_EXIT_GRACE_SLICES, slices = 0, rc;

    *read_hdr = 0;
    if ((*bid = unstash(p, src, tag, read_hdr, count)) > 0)
        return ECO_OK;
    for (;;) {
        if ((rc = take_until(p, src, tag, 1, bid)) != ECO_OK || *bid > 0)
            return rc;
        pump(0);
        if (p->peer[src].aborted)
            return p->peer[src].aborted;
        if (p->mismatch || unread_stale(p, 0))
            return ECO_ERR_MISMATCH;
        if ((rc = sweep(p, src, tag, bid)) != ECO_OK || *bid > 0)
            return rc;
        if (++slices % ECOI_ASK_SLICES == 0 && !p->peer[src].dead)
            send_wait(p, src, tag);
        /* Gone: a message it sent before it left may still be on its
         * way, behind the exit notice. */
        if (p->peer[src].dead && grace-- <= 0)
            return ECO_ERR_PEER;
        /* On to a later call, and reading no WAIT (waiting outside the
         * library, say): what it sent before may have been overtaken,
         * but not by this long. */
        if (moved_too_long(p, src))
            return ECO_ERR_MISMATCH;
    }
}

/* The message bid from src, taken: pass it on, check it, unpack it.
 * read_hdr: its header was read (stashed), announcing theirs elements. */
static int deliver(pvm_tp *p, int src, int tag, int bid, int read_hdr, int theirs,
                   void *buf, size_t count, int datatype, const int *fwd, int nfwd)
{
    const size_t payload = count * ecoi_type_size(datatype);
    int bytes, mtag, mtid, rc = ECO_OK;

    ecoi_grace_reset(&p->peer[src].moved_grace);
    ecoi_grace_reset(&p->peer[src].ask_grace);
    ecoi_grace_reset(&p->peer[src].dead_grace);  /* a later message's own grace */

    /* Pass the message on untouched before reading it. */
    for (int i = 0; i < nfwd && rc == ECO_OK; i++) {
        rc = flow_wait(p, fwd[i]);
        pvm_setsbuf(bid);
        if (rc == ECO_OK &&
            pvm_send(p->tids[fwd[i]], wire_tag(tag, p->peer[fwd[i]].sent_msgs)) < 0)
            rc = ECO_ERR_PEER;
        pvm_setsbuf(0);
        if (rc == ECO_OK)
            note_out(p, fwd[i], tag, payload);
    }
    pvm_setrbuf(bid);
    /* a send rewinds the buffer: a stashed message whose header was
     * read, once passed on, has it to read again (read past, the header
     * came out as the data's first bytes: the gather-to-all of 1 MB
     * across netbed's hosts, where a member took its parent's run 0
     * while waiting for another run) */
    if (rc == ECO_OK && (!read_hdr || nfwd > 0))
        rc = check_header(p, &theirs);
    /* The sender's count, under every encoding (members that disagree on
     * a pair's count in alltoallv, say, where the signature carries none). */
    if (rc == ECO_OK && (size_t)theirs != count)
        rc = ECO_ERR_MISMATCH;
    if (rc == ECO_OK && (rc = pvm_bufinfo(bid, &bytes, &mtag, &mtid)) < 0)
        rc = tp_pvm_error(p, rc);
    /* Raw and in place: the bytes must match too. */
    if (rc == ECO_OK && p->encoding != PvmDataDefault &&
        (size_t)bytes != ECOI_HDR_INTS * sizeof(int) + payload)
        rc = ECO_ERR_MISMATCH;
    if (rc == ECO_OK && count && pack_enc(p->encoding, datatype, buf, (int)count, 1) < 0)
        rc = ECO_ERR_MISMATCH;
    pvm_freebuf(bid);
    if (rc == ECO_OK)
        flow_read(p, src, payload);
    return rc;
}

static int tp_recv(ecoi_transport *t, int src, int tag, void *buf, size_t count,
                   int datatype, const int *fwd, int nfwd)
{
    pvm_tp *p = (pvm_tp *)t;
    int bid, read_hdr, theirs = -1, rc;

    if (count > INT_MAX)
        return ECO_ERR_ARG;
    rc = wait_msg(p, src, tag, &bid, &read_hdr, &theirs);
    if (rc != ECO_OK)
        return rc;
    return deliver(p, src, tag, bid, read_hdr, theirs, buf, count, datatype, fwd, nfwd);
}

/* wait_msg without the wait: ECOI_AGAIN when (src, tag) has not come. */
static int tp_try_recv(ecoi_transport *t, int src, int tag, void *buf, size_t count,
                       int datatype, const int *fwd, int nfwd)
{
    pvm_tp *p = (pvm_tp *)t;
    int bid, read_hdr = 0, theirs = -1, rc;

    if (count > INT_MAX)
        return ECO_ERR_ARG;
    if ((bid = unstash(p, src, tag, &read_hdr, &theirs)) <= 0) {
        if ((rc = take_until(p, src, tag, 0, &bid)) != ECO_OK)
            return rc;
        if (bid == 0 && (rc = sweep(p, src, tag, &bid)) != ECO_OK)
            return rc;
    }
    if (bid == 0) {
        pump(0);
        if (p->peer[src].aborted)
            return p->peer[src].aborted;
        if (p->mismatch || moved_too_long(p, src))
            return ECO_ERR_MISMATCH;
        /* ask, as a blocking wait does: members that disagree on a root
         * can each wait on the other, and nothing they send tells */
        if (!p->peer[src].dead && ask_due(p, src))
            send_wait(p, src, tag);
    }
    if (bid == 0) {
        /* gone: its last message may still be behind the exit notice,
         * for as long as wait_msg would wait */
        if (p->peer[src].dead && ecoi_grace_look(&p->peer[src].dead_grace, now_seconds(),
                                            ECOI_EXIT_GRACE_SECONDS, ECOI_EXIT_GRACE_LOOKS))
            return ECO_ERR_PEER;
        return ECOI_AGAIN;
    }
    return deliver(p, src, tag, bid, read_hdr, theirs, buf, count, datatype, fwd, nfwd);
}

/* Set by match_poll: a stale message is in PVM's queue. */
static int poll_saw_stale;

/* A matcher for pvm_recvf: a control message; a message of the library's
 * context of one of the calls match_stale looks for is noted
 * (poll_saw_stale) and left in the queue. */
static int match_poll(int mid, int tid, int tag)
{
    struct pvmminfo mi;

    if (in_ctx(mid, ECOI_CTRL_CONTEXT, &mi))
        return 1;
    if (match_stale(mid, tid, tag))
        poll_saw_stale = 1;
    return 0;
}

/* The control messages read, and unread_stale(p, 0), in one pass over
 * the sockets (pump and unread_stale's probe made one each: a call's
 * start in two system calls instead of one). */
static int tp_poll(ecoi_transport *t)
{
    pvm_tp *p = (pvm_tp *)t;

    poll_saw_stale = stale_look(p, 0);
    pump_with(0, match_poll);
    if (poll_saw_stale)
        p->mismatch = 1;
    return p->any_abort ? p->any_abort : p->mismatch ? ECO_ERR_MISMATCH : ECO_OK;
}

/* At the end of a call that went well: nothing of it, or of the calls
 * before it, is left unread here. */
static int tp_finish(ecoi_transport *t)
{
    pvm_tp *p = (pvm_tp *)t;

    if (unread_stale(p, 1))
        p->mismatch = 1;
    return p->mismatch ? ECO_ERR_MISMATCH : ECO_OK;
}

static void tp_abort(ecoi_transport *t, const int *peers, int npeers, int status)
{
    pvm_tp *p = (pvm_tp *)t;

    for (int i = 0; i < npeers; i++)
        if (!p->peer[peers[i]].dead)
            send_ctrl(p->tids[peers[i]], ECOI_TAG_ABORT, p->instance, status);
}

/* A transport's memory: its arrays (either may be NULL) and itself. */
static void tp_free(pvm_tp *p)
{
    free(p->tids);
    free(p->peer);
    free(p);
}

static void tp_destroy(ecoi_transport *t)
{
    pvm_tp *p = (pvm_tp *)t;
    int b;

    flow_drain(p);
    for (pvm_tp **pp = &live; *pp; pp = &(*pp)->next_live)
        if (*pp == p) {
            *pp = p->next_live;
            break;
        }
    past[npast++ % ECOI_PAST] = p->instance;
    tp_enter(t);
    /* Drop whatever is left in the library's context. */
    while (p->stash) {
        stashed *st = stash_unlink(p, &p->stash);
        pvm_freebuf(st->bid);
        free(st);
    }
    while ((b = pvm_nrecv(-1, -1)) > 0)
        pvm_freebuf(b);
    tp_leave(t);
    if (p->owner)
        pvm_freecontext(p->pvmctx);
    tp_free(p);
}

ecoi_transport *ecoi_pvm_transport(int n, int rank, const int *tids,
                                   int pvmctx, int owner, int encoding,
                                   unsigned instance)
{
    pvm_tp *p = calloc(1, sizeof *p);

    if (!p)
        return NULL;
    p->tids = malloc((size_t)n * sizeof *p->tids);
    p->peer = calloc((size_t)n, sizeof *p->peer);
    if (!p->tids || !p->peer) {
        tp_free(p);
        return NULL;
    }
    p->stash_tail = &p->stash;
    memcpy(p->tids, tids, (size_t)n * sizeof *tids);
    for (int r = 0; r < n; r++)
        p->peer[r].dead = (unsigned char)ecoi_pvm_gone(tids[r]);
    p->n = n;
    p->rank = rank;
    p->pvmctx = pvmctx;
    p->owner = owner;
    p->encoding = encoding == ECOI_ENC_INPLACE ? PvmDataInPlace : encoding;
    p->one_frag = encoding == ECOI_ENC_INPLACE ? 0 : one_fragment(encoding);
    p->instance = instance;
    p->base.enter = tp_enter;
    p->base.leave = tp_leave;
    p->base.send = tp_send;
    p->base.recv = tp_recv;
    p->base.try_recv = tp_try_recv;
    p->base.poll = tp_poll;
    p->base.finish = tp_finish;
    p->base.abort = tp_abort;
    p->base.destroy = tp_destroy;
    p->next_live = live;
    live = p;
    claim_early(p);
    return &p->base;
}

int ecoi_pvm_watch(ecoi_transport *t)
{
    pvm_tp *p = (pvm_tp *)t;

    return ecoi_pvm_watch_tids(p->n, p->tids);
}

/* ------------------------------------------------------------------ */
/* Public accessors of a context over PVM                              */
/* ------------------------------------------------------------------ */

/* The PVM transport of a context, or NULL (the in-process one). */
static pvm_tp *pvm_of(const eco_ctx *ctx)
{
    return ctx && ctx->tp && ctx->tp->destroy == tp_destroy ? (pvm_tp *)ctx->tp : NULL;
}

int eco_tid(const eco_ctx *ctx, int rank)
{
    pvm_tp *p = pvm_of(ctx);

    if (!p || rank < 0 || rank >= p->n)
        return ECO_ERR_ARG;
    return p->tids[rank];
}

int eco_last_pvm_error(const eco_ctx *ctx)
{
    pvm_tp *p = pvm_of(ctx);

    if (!ctx)
        return last_pvm_thread;
    return p ? p->last_pvm : 0;
}
