/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * brecv.c -- the receive side of tree broadcasts.
 *
 * Forwarding happens inside the PVM calls a member makes: every
 * interposed receive and group call first "pumps" (ecopvm_pump): it reads
 * the layer's messages that have arrived, takes each broadcast body (PAY)
 * out of PVM's receive queue, passes it on to the member's children in the
 * tree (as libeco forwards: the received buffer, sent again), and puts it
 * back into the queue by a send to this task itself (REINJ).  When that
 * arrives, pvm_setminfo makes it S's own message (source S, S's tag, S's
 * context).  From then on pvm_recv, pvm_trecv, pvm_nrecv, pvm_probe,
 * pvm_precv, pvm_bufinfo and pvm_getminfo see exactly what PVM's own
 * broadcast would have delivered.  A member blocked in a receive keeps
 * forwarding: the receive runs with a matching function (pvm_recvf) that
 * makes it return early, consuming nothing, when the layer's traffic
 * arrives.  The only thing done to a message still in PVM's queue is
 * pvm_setminfo; the sends never pump (see bsend.c: PVM sends from inside
 * its own message routing).
 *
 * Order (see bsend.c): broadcasts from S are numbered per receiver and put
 * back in number order, each when its place in S's stream has arrived: at
 * once, or at the MARK that S sent on the direct path.  Direct messages of
 * S that arrive after a MARK whose broadcast has not been put back yet are
 * taken out too and put back after it.  Only messages in the contexts that
 * S's headers and MARKs named are held (the program's, never libeco's or
 * PVM's own).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include "ecopvm.h"
#include "eco_log.h"

extern int pvm_errno;
/* libpvm's error report (honours PvmAutoErr); weak: absent is fine. */
extern int lpvmerr(char *, int) __attribute__((weak));

#define HDR_MAGIC 0x45435048
#define HDR_VERSION 1
#define FLAG_NEEDMARK 1
#define FLAG_DIRECT 2
/* A matcher's answer that makes the receive return at once, unconsumed. */
#define ECOPVM_BREAK (-0x3ec1)

/* ------------------------------------------------------------------ */
/* Per-sender state                                                    */
/* ------------------------------------------------------------------ */
typedef struct held {            /* a broadcast body taken out of the queue */
    unsigned q;
    int bid, tag, ctx, needmark;
    struct held *next;           /* ascending q */
} held;

typedef struct hidden {          /* a direct message taken out of the queue */
    int bid, tag, ctx, wid;
    unsigned cov;                /* the broadcasts it comes after */
    struct hidden *next;
} hidden;

typedef struct sender {
    int tid;
    unsigned next;               /* the next broadcast number to deliver */
    unsigned marked;             /* broadcasts whose place has arrived */
    held *held;
    hidden *hid, *hid_tail;
    int reinj;                   /* put-backs still on their way */
    int *ctxs, nctx;             /* contexts of S's broadcasts */
    int *vis, nvis, capvis;      /* S's queued messages known to be in place */
    struct sender *link;
} sender;

static sender *senders;
/* A receive returned early for a message of libeco's control context
 * (app_match): the next pump hands it to libeco. */
static int ctrl_seen;

/* The put-backs on their way to this task, in sending order. */
typedef struct reinj {
    int src, tag, ctx, wid;
    struct reinj *next;
} reinj;
static reinj *rq_head, *rq_tail;

ecopvm_stats ecopvm_count;
static ecopvm_match_fn app_matcher; /* the application's pvm_recvf */
static int pumping;

static sender *find_sender(int tid, int create)
{
    sender *s;

    for (s = senders; s; s = s->link)
        if (s->tid == tid)
            return s;
    if (!create || !(s = calloc(1, sizeof *s)))
        return NULL;
    s->tid = tid;
    s->next = 1;
    s->link = senders;
    senders = s;
    return s;
}

static int has_ctx(const sender *s, int ctx)
{
    for (int i = 0; i < s->nctx; i++)
        if (s->ctxs[i] == ctx)
            return 1;
    return 0;
}

static void add_ctx(sender *s, int ctx)
{
    int *c;

    if (has_ctx(s, ctx) || !(c = realloc(s->ctxs, (size_t)(s->nctx + 1) * sizeof *c)))
        return;
    s->ctxs = c;
    s->ctxs[s->nctx++] = ctx;
}

static int is_vis(const sender *s, int mid)
{
    for (int i = 0; i < s->nvis; i++)
        if (s->vis[i] == mid)
            return 1;
    return 0;
}

static void add_vis(sender *s, int mid)
{
    if (is_vis(s, mid))
        return;
    if (s->nvis == s->capvis) {
        int ncap = s->capvis ? 2 * s->capvis : 16;
        int *v = realloc(s->vis, (size_t)ncap * sizeof *v);
        if (!v)
            return;
        s->vis = v;
        s->capvis = ncap;
    }
    s->vis[s->nvis++] = mid;
}

static void drop_vis(int mid)
{
    for (sender *s = senders; s; s = s->link)
        for (int i = 0; i < s->nvis; i++)
            if (s->vis[i] == mid) {
                s->vis[i] = s->vis[--s->nvis];
                break;
            }
}

/* S's later messages must wait: a place arrived for a broadcast not yet
 * delivered, or held messages and put-backs are still to come. */
static int blocking(const sender *s)
{
    return s->marked >= s->next || s->hid || s->reinj > 0;
}

static int any_blocking(void)
{
    for (sender *s = senders; s; s = s->link)
        if (blocking(s))
            return 1;
    return 0;
}

/* ------------------------------------------------------------------ */
/* The queue                                                           */
/* ------------------------------------------------------------------ */
typedef struct item {
    int mid, src, ctx, tag;
    int done;                    /* handled in this pass */
    int gone;                    /* taken out of the queue */
} item;

static item *snap;
static int nsnap, capsnap;

static int snap_match(int mid, int tid, int tag)
{
    struct pvmminfo mi;

    (void)tid;
    (void)tag;
    if (pvm_getminfo(mid, &mi) < 0)
        return 0;
    if (nsnap == capsnap) {
        int ncap = capsnap ? 2 * capsnap : 64;
        item *n = realloc(snap, (size_t)ncap * sizeof *n);
        if (!n)
            return 0;
        snap = n;
        capsnap = ncap;
    }
    snap[nsnap].mid = mid;
    snap[nsnap].src = mi.src;
    snap[nsnap].ctx = mi.ctx;
    snap[nsnap].tag = mi.tag;
    snap[nsnap].done = 0;
    snap[nsnap].gone = 0;
    nsnap++;
    return 0;
}

/* The receive queue, in arrival order. */
static void snapshot(void)
{
    ecopvm_match_fn old = REAL_RECVF(snap_match);

    nsnap = 0;
    REAL(pvm_nrecv)(-1, -1);
    REAL_RECVF(old);
}

static int take_mid;
static int take_match(int mid, int tid, int tag)
{
    (void)tid;
    (void)tag;
    return mid == take_mid;
}

/* Take one queued message out of the queue; its bufid, or -1.  The
 * active receive buffer is left as it was. */
static int take(int mid)
{
    ecopvm_match_fn old = REAL_RECVF(take_match);
    int rb = pvm_setrbuf(0), got;

    take_mid = mid;
    got = REAL(pvm_nrecv)(-1, -1);
    REAL_RECVF(old);
    pvm_setrbuf(rb > 0 ? rb : 0);
    return got == mid ? mid : -1;
}

/* Make queued message k of the snapshot look as if src had sent it with
 * tag in ctx (and say so in the snapshot, which later checks read). */
static void rewrite(int k, int src, int tag, int ctx, int wid)
{
    struct pvmminfo mi;

    if (pvm_getminfo(snap[k].mid, &mi) < 0)
        return;
    mi.src = src;
    mi.tag = tag;
    mi.ctx = ctx;
    mi.wid = wid;
    pvm_setminfo(snap[k].mid, &mi);
    snap[k].src = src;
    snap[k].tag = tag;
    snap[k].ctx = ctx;
}

/* Put a held message back: it lands at the end of the queue. */
static void put_back(sender *s, int bid, int tag, int ctx, int wid)
{
    reinj *r = malloc(sizeof *r);
    int old;

    if (!r) {
        pvm_freebuf(bid);
        return;
    }
    r->src = s->tid;
    r->tag = tag;
    r->ctx = ctx;
    r->wid = wid;
    r->next = NULL;
    old = pvm_setsbuf(bid);
    if (REAL(pvm_send)(pvm_mytid(), ECOPVM_TAG_REINJ) < 0) {
        free(r);
    } else {
        ecopvm_count.put_back++;
        if (rq_tail)
            rq_tail->next = r;
        else
            rq_head = r;
        rq_tail = r;
        s->reinj++;
    }
    pvm_setsbuf(old > 0 ? old : 0);
    pvm_freebuf(bid);
}

/* Deliver what S's stream allows, in order. */
static void release(sender *s)
{
    for (;;) {
        held *h = s->held;
        while (s->hid && s->hid->cov < s->next) {
            hidden *x = s->hid;
            s->hid = x->next;
            if (!s->hid)
                s->hid_tail = NULL;
            put_back(s, x->bid, x->tag, x->ctx, x->wid);
            free(x);
        }
        if (!h || h->q != s->next || (h->needmark && s->marked < h->q))
            return;
        s->held = h->next;
        s->next++;
        put_back(s, h->bid, h->tag, h->ctx, 0);
        free(h);
    }
}

static void hold(sender *s, unsigned q, int bid, int tag, int ctx, int needmark)
{
    held *h = malloc(sizeof *h), **p = &s->held;

    if (!h) {
        pvm_freebuf(bid);
        return;
    }
    h->q = q;
    h->bid = bid;
    h->tag = tag;
    h->ctx = ctx;
    h->needmark = needmark;
    while (*p && (*p)->q < q)
        p = &(*p)->next;
    h->next = *p;
    *p = h;
}

/* ------------------------------------------------------------------ */
/* The layer's messages                                                */
/* ------------------------------------------------------------------ */
typedef struct header {
    int src, tag, ctx, n;
    int *e;                      /* n entries of (tid, size, seq, flags) */
} header;

static int read_header(int bid, header *h)
{
    int head[6];

    pvm_setrbuf(bid);
    if (pvm_upkint(head, 6, 1) < 0 || head[0] != HDR_MAGIC || head[1] != HDR_VERSION ||
        head[5] < 1 || head[5] > (1 << 20))
        return -1;
    h->src = head[2];
    h->tag = head[3];
    h->ctx = head[4];
    h->n = head[5];
    h->e = malloc((size_t)h->n * 4 * sizeof *h->e);
    if (!h->e || pvm_upkint(h->e, 4 * h->n, 1) < 0)
        return -1;
    /* A preorder with subtree sizes: every subtree fits in its parent's. */
    if (h->e[0] != pvm_mytid() || h->e[1] != h->n)
        return -1;
    for (int i = 1; i < h->n; i++)
        if (h->e[4 * i + 1] < 1 || i + h->e[4 * i + 1] > h->n)
            return -1;
    return 0;
}

/* Pass PAY (the buffer bid, never one still in the receive queue) and
 * each child's part of the header on. */
static void forward(int bid, const header *h)
{
    for (int i = 1; i < h->n; i += h->e[4 * i + 1]) {
        int head[6] = { HDR_MAGIC, HDR_VERSION, h->src, h->tag, h->ctx, h->e[4 * i + 1] };
        int hb;

        pvm_setsbuf(bid);
        if (REAL(pvm_send)(h->e[4 * i], ECOPVM_TAG_PAY) < 0)
            continue;
        ecopvm_count.forwarded++;
        hb = pvm_mkbuf(PvmDataDefault);
        pvm_setsbuf(hb);
        pvm_pkint(head, 6, 1);
        pvm_pkint(&h->e[4 * i], 4 * head[5], 1);
        REAL(pvm_send)(h->e[4 * i], ECOPVM_TAG_HDR);
        pvm_setsbuf(0);
        pvm_freebuf(hb);
    }
    pvm_setsbuf(0);
}

/* The first body from src not yet handled, and its place in the snapshot. */
static int find_body(int src, int upto)
{
    for (int j = 0; j < upto; j++)
        if (!snap[j].done && snap[j].src == src && snap[j].ctx == ECOPVM_CTX &&
            snap[j].tag == ECOPVM_TAG_PAY)
            return j;
    return -1;
}

static void on_header(int i)
{
    header h = { 0, 0, 0, 0, NULL };
    int bid = take(snap[i].mid), j, ok;
    sender *s;

    snap[i].done = snap[i].gone = 1;
    if (bid < 0)
        return;
    ok = read_header(bid, &h) == 0;
    pvm_setrbuf(0);
    pvm_freebuf(bid);
    j = ok ? find_body(snap[i].src, i) : -1;
    if (j < 0 || !(s = find_sender(h.src, 1))) {
        free(h.e);
        return;
    }
    snap[j].done = 1;
    add_ctx(s, h.ctx);
    /* Take the body out of the queue (PVM sends only buffers that are not
     * in its receive queue), pass it on, and hold it: it goes back into
     * the queue, as S's message, when S's order allows (release). */
    if ((bid = take(snap[j].mid)) > 0) {
        unsigned q = (unsigned)h.e[2];
        int flags = h.e[3];
        snap[j].gone = 1;
        forward(bid, &h);
        if (flags & FLAG_DIRECT && q > s->marked)
            s->marked = q;
        hold(s, q, bid, h.tag, h.ctx, (flags & FLAG_NEEDMARK) != 0);
        release(s);
    }
    free(h.e);
}

/* A MARK: the place of S's broadcasts up to q in S's direct stream, and a
 * context S sends direct messages in (held back from now on when they
 * come before their broadcasts, as those of the broadcasts' contexts). */
static void on_mark(int i)
{
    int bid = take(snap[i].mid), v[2] = { 0, 0 };
    sender *s = find_sender(snap[i].src, 1);

    snap[i].done = snap[i].gone = 1;
    if (bid < 0)
        return;
    pvm_setrbuf(bid);
    if (pvm_upkint(v, 2, 1) < 0)
        v[0] = 0;
    pvm_setrbuf(0);
    pvm_freebuf(bid);
    ecopvm_count.marks_read++;
    if (!s || v[0] <= 0)
        return;
    add_ctx(s, v[1]);
    if ((unsigned)v[0] > s->marked)
        s->marked = (unsigned)v[0];
    release(s);
}

static void on_putback(int i)
{
    reinj *r = rq_head;
    sender *s;

    snap[i].done = 1;
    if (!r)
        return;
    rq_head = r->next;
    if (!rq_head)
        rq_tail = NULL;
    rewrite(i, r->src, r->tag, r->ctx, r->wid);
    if ((s = find_sender(r->src, 0))) {
        s->reinj--;
        add_vis(s, snap[i].mid);
        release(s);
    }
    free(r);
}

/* A direct message of s: in place, or held until its broadcasts come. */
static void on_direct(sender *s, int i)
{
    struct pvmminfo mi;
    hidden *x;
    int bid;

    if (!has_ctx(s, snap[i].ctx) || is_vis(s, snap[i].mid))
        return;
    if (!blocking(s)) {
        add_vis(s, snap[i].mid);
        return;
    }
    if (pvm_getminfo(snap[i].mid, &mi) < 0 || !(x = malloc(sizeof *x)))
        return;
    if ((bid = take(snap[i].mid)) < 0) {
        free(x);
        add_vis(s, snap[i].mid);
        return;
    }
    snap[i].done = snap[i].gone = 1;
    ecopvm_count.hidden++;
    x->bid = bid;
    x->tag = mi.tag;
    x->ctx = mi.ctx;
    x->wid = mi.wid;
    x->cov = s->marked;
    x->next = NULL;
    if (s->hid_tail)
        s->hid_tail->next = x;
    else
        s->hid = x;
    s->hid_tail = x;
}

/* Forget queued messages that are gone (received by the application). */
static void prune(void)
{
    for (sender *s = senders; s; s = s->link)
        for (int i = 0; i < s->nvis;) {
            int present = 0;
            for (int k = 0; k < nsnap && !present; k++)
                present = snap[k].mid == s->vis[i] && !snap[k].gone;
            if (present)
                i++;
            else
                s->vis[i] = s->vis[--s->nvis];
        }
}

static int ctl_match(int mid, int tid, int tag)
{
    struct pvmminfo mi;

    (void)tid;
    (void)tag;
    return pvm_getminfo(mid, &mi) >= 0 && mi.ctx == ECOPVM_CTX &&
           mi.tag != ECOPVM_TAG_PAY;
}

/* Is any of the layer's messages (other than bodies) queued? */
static int control_queued(void)
{
    ecopvm_match_fn old = REAL_RECVF(ctl_match);
    int got = REAL(pvm_probe)(-1, -1);

    REAL_RECVF(old);
    return got > 0;
}

void ecopvm_pump(void)
{
    ecopvm_saved sv;
    int me;

    if (!ecopvm_on() || pumping)
        return;
    pumping = 1;
    ecopvm.depth++;
    ecopvm_save(&sv, ECOPVM_CTX);
    if (ctrl_seen) {    /* under the layer's error settings (ecopvm_save) */
        ctrl_seen = 0;
        ecoi_pvm_pump();
    }
    me = pvm_mytid();
    for (int round = 0; round < 64 && (control_queued() || any_blocking()); round++) {
        int before = 0;
        snapshot();
        for (int i = 0; i < nsnap; i++) {
            sender *s;
            if (snap[i].done)
                continue;
            if (snap[i].ctx == ECOPVM_CTX) {
                before++;
                if (snap[i].tag == ECOPVM_TAG_HDR)
                    on_header(i);
                else if (snap[i].tag == ECOPVM_TAG_MARK)
                    on_mark(i);
                else if (snap[i].tag == ECOPVM_TAG_REINJ && snap[i].src == me)
                    on_putback(i);
                else
                    before--;
            } else if ((s = find_sender(snap[i].src, 0))) {
                on_direct(s, i);
            }
        }
        prune();
        if (before == 0)
            break;
    }
    ecopvm_restore(&sv);
    ecopvm.depth--;
    pumping = 0;
}

/* ------------------------------------------------------------------ */
/* The application's receives                                          */
/* ------------------------------------------------------------------ */
static int app_ctx;   /* the caller's context during its receive */
static int internal;  /* the receive is PVM's or libeco's, not the program's */
/* An internal receive's own matcher: what PVM had installed when it began
 * (PVM's default, or libeco's: its transport takes each member's
 * messages in order under a matcher of its own). */
static ecopvm_match_fn internal_matcher;
static int picked;    /* the message the matcher chose (for pvm_precv) */
static int picked_rank;

static int app_match(int mid, int tid, int tag)
{
    struct pvmminfo mi;
    sender *s;
    int r;

    if (pvm_getminfo(mid, &mi) < 0)
        return 0;
    if (mi.ctx == ECOPVM_CTX)
        return mi.tag == ECOPVM_TAG_PAY ? 0 : ECOPVM_BREAK;
    /* libeco's control messages, unless libeco itself is waiting for
     * them: a member that leaves a group or exits waits until the others
     * have read what it sent them (FLUSH), and one blocked here answers. */
    if (mi.ctx == ECOI_CTRL_CONTEXT && app_ctx != ECOI_CTRL_CONTEXT) {
        ctrl_seen = 1;
        return ECOPVM_BREAK;
    }
    if ((s = find_sender(mi.src, 0)) && has_ctx(s, mi.ctx) && !is_vis(s, mid)) {
        if (blocking(s))
            return ECOPVM_BREAK;
        add_vis(s, mid);
    }
    if (app_matcher && !internal)
        r = app_matcher(mid, tid, tag);
    else if (internal_matcher)  /* set for internal receives alone */
        r = internal_matcher(mid, tid, tag);
    else
        r = (tid == -1 || tid == mi.src) && (tag == -1 || tag == mi.tag) &&
            (app_ctx == -1 || app_ctx == mi.ctx);
    if (r > 0 && (picked == 0 || r > picked_rank || r == 1)) {
        picked = mid;
        picked_rank = r;
    }
    return r;
}

enum { K_RECV, K_TRECV, K_NRECV, K_PROBE, K_PRECV };

static char *const call_names[] = {
    "pvm_recv", "pvm_trecv", "pvm_nrecv", "pvm_probe", "pvm_precv"
};

typedef struct call {
    int kind, tid, tag;
    struct timeval *tmo;
    void *buf;
    int len, type, *atid, *atag, *alen;
} call;

static int real_call(const call *c, struct timeval *tmo)
{
    switch (c->kind) {
    case K_RECV:  return REAL(pvm_recv)(c->tid, c->tag);
    case K_TRECV: return REAL(pvm_trecv)(c->tid, c->tag, tmo);
    case K_NRECV: return REAL(pvm_nrecv)(c->tid, c->tag);
    case K_PROBE: return REAL(pvm_probe)(c->tid, c->tag);
    default:      return REAL(pvm_precv)(c->tid, c->tag, c->buf, c->len, c->type,
                                         c->atid, c->atag, c->alen);
    }
}

static double now(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + tv.tv_usec / 1e6;
}

/* One application receive: the real call under app_match, pumping
 * whenever the layer's traffic makes it return early.  Also used for the
 * blocking receives inside PVM's and libeco's own calls (inner), so that a
 * member waiting there, e.g. for the group server, keeps forwarding. */
static int app_receive(const call *c, int inner)
{
    double end = c->tmo ? now() + (double)c->tmo->tv_sec + c->tmo->tv_usec / 1e6 : 0;
    int r;

    ecopvm_pump();
    for (;;) {
        struct timeval left = { 0, 0 };
        int autoerr, err = pvm_errno;
        ecopvm_match_fn old;

        if (c->tmo) {
            double l = end - now();
            if (l > 0) {
                left.tv_sec = (long)l;
                left.tv_usec = (long)((l - (double)left.tv_sec) * 1e6);
            }
        }
        app_ctx = pvm_getcontext();
        internal = inner;
        picked = 0;
        picked_rank = 0;
        autoerr = pvm_setopt(PvmAutoErr, 0);
        old = REAL_RECVF(app_match);
        internal_matcher = inner && old != app_match ? old : NULL;
        r = real_call(c, &left);
        REAL_RECVF(old);
        pvm_setopt(PvmAutoErr, autoerr);
        if (r != ECOPVM_BREAK) {
            if (r > 0 && c->kind != K_PROBE)
                drop_vis(c->kind == K_PRECV ? picked : r);
            else if (r == 0 && c->kind == K_PRECV)
                drop_vis(picked);
            /* The layer silenced PVM's own report of errors: give it. */
            if (r < 0 && autoerr && lpvmerr)
                lpvmerr(call_names[c->kind], r);
            return r;
        }
        pvm_errno = err;
        ecopvm_pump();
    }
}

#define APP_RECEIVE(...)                                                \
    do {                                                                \
        call c_ = { __VA_ARGS__ };                                      \
        return app_receive(&c_, 0);                                     \
    } while (0)
#define INNER_RECEIVE(...)                                              \
    do {                                                                \
        call c_ = { __VA_ARGS__ };                                      \
        return app_receive(&c_, 1);                                     \
    } while (0)

int ECOPVM_API(pvm_recv)(int tid, int tag)
{
    if (!ecopvm_on())
        return REAL(pvm_recv)(tid, tag);
    if (pumping)
        return REAL(pvm_recv)(tid, tag);
    if (ecopvm.depth)
        INNER_RECEIVE(K_RECV, tid, tag, NULL, NULL, 0, 0, NULL, NULL, NULL);
    APP_RECEIVE(K_RECV, tid, tag, NULL, NULL, 0, 0, NULL, NULL, NULL);
}

int ECOPVM_API(pvm_trecv)(int tid, int tag, struct timeval *tmo)
{
    if (!ecopvm_on())
        return REAL(pvm_trecv)(tid, tag, tmo);
    if (pumping)
        return REAL(pvm_trecv)(tid, tag, tmo);
    if (ecopvm.depth && !tmo)
        INNER_RECEIVE(K_RECV, tid, tag, NULL, NULL, 0, 0, NULL, NULL, NULL);
    if (ecopvm.depth)
        INNER_RECEIVE(K_TRECV, tid, tag, tmo, NULL, 0, 0, NULL, NULL, NULL);
    if (!tmo)
        APP_RECEIVE(K_RECV, tid, tag, NULL, NULL, 0, 0, NULL, NULL, NULL);
    APP_RECEIVE(K_TRECV, tid, tag, tmo, NULL, 0, 0, NULL, NULL, NULL);
}

int ECOPVM_API(pvm_nrecv)(int tid, int tag)
{
    if (!ecopvm_on())
        return REAL(pvm_nrecv)(tid, tag);
    if (ecopvm.depth) {
        ecopvm_pump();
        return REAL(pvm_nrecv)(tid, tag);
    }
    APP_RECEIVE(K_NRECV, tid, tag, NULL, NULL, 0, 0, NULL, NULL, NULL);
}

int ECOPVM_API(pvm_probe)(int tid, int tag)
{
    if (!ecopvm_on())
        return REAL(pvm_probe)(tid, tag);
    if (ecopvm.depth) {
        ecopvm_pump();
        return REAL(pvm_probe)(tid, tag);
    }
    APP_RECEIVE(K_PROBE, tid, tag, NULL, NULL, 0, 0, NULL, NULL, NULL);
}

int ECOPVM_API(pvm_precv)(int tid, int tag, void *buf, int len, int type,
                          int *atid, int *atag, int *alen)
{
    if (!ecopvm_on() || ecopvm.depth)
        return REAL(pvm_precv)(tid, tag, buf, len, type, atid, atag, alen);
    APP_RECEIVE(K_PRECV, tid, tag, NULL, buf, len, type, atid, atag, alen);
}

ecopvm_recvf_ret ECOPVM_API(pvm_recvf)(int (*match)(int, int, int))
{
    ecopvm_match_fn old;

    /* libeco's own (inside a collective the layer runs): PVM's, so that
     * its next receive or probe, which goes straight to PVM's, uses it */
    if (!ecopvm_on() || ecopvm.depth)
        return REAL(pvm_recvf)(match);
    /* The application's matcher runs inside the layer's. */
    old = app_matcher;
    app_matcher = match;
    return (ecopvm_recvf_ret)(void (*)(void))old;
}

int ECOPVM_API(pvm_exit)(void)
{
    const ecopvm_stats *c = &ecopvm_count;

    if (ecopvm_on() && !ecopvm.depth) {
        ecopvm_pump();
        if (ecopvm.verbose && (c->sent || c->held)) {
            char origin[32];
            snprintf(origin, sizeof origin, "eco-pvm[t%x]", pvm_mytid());
            ecoi_log_as(origin, ECO_LOG_INFO, "broadcasts: %ld sent, %ld received, %ld "
                        "forwarded; %ld direct messages held back for order; %ld marks "
                        "sent, %ld read", c->sent, c->held, c->forwarded, c->hidden,
                        c->marks_sent, c->marks_read);
        }
    }
    return REAL(pvm_exit)();
}
