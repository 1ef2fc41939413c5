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
 * Failures: at eco_init every member asks PVM to notify it (in the
 * library's context) when another member exits.  A receive waits in slices
 * of ECOI_POLL_SECONDS; between slices it reads the exit notices and the
 * abort notices of peers that gave up, and fails with ECO_ERR_PEER when the
 * member it waits on is gone; a send to a member known to be gone fails
 * too (that member cannot have finished the collective).  An exit alone
 * fails nothing: the member may have made every collective it had to.
 * A member that fails tells the others (abort), so the error spreads
 * instead of leaving them hanging.
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
#include <sys/time.h>
#include <pvm3.h>
#include "eco_coll.h"
#include "eco_pvm.h"

#define ECOI_POLL_USEC 50000 /* one wait slice: 50 ms */
/* How many more slices a member waits for a message from a member that
 * has exited: PVM's exit notice can overtake the last message the member
 * sent (a long one, still on a slow link).  40 slices: 2 s, 2.5 MB at
 * 10 Mbit/s. */
#define ECOI_EXIT_GRACE_SLICES 40

typedef struct pvm_tp {
    ecoi_transport base;
    int n, rank;
    int *tids;
    int pvmctx;                 /* the library's message context */
    int owner;                  /* 1 at rank 0, which made the context */
    int encoding;               /* PvmDataRaw when all hosts share a format */
    int saved_ctx, saved_s, saved_r;
    sigset_t saved_mask;        /* the caller's signal mask */
    int pipe_pending;           /* SIGPIPE was pending on entry */
    unsigned char *dead;        /* [n] exit notice seen */
} pvm_tp;

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

static void tp_enter(ecoi_transport *t)
{
    pvm_tp *p = (pvm_tp *)t;
    sigset_t pipe, pending;

    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe, &p->saved_mask);
    p->pipe_pending = sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE);
    p->saved_ctx = pvm_setcontext(p->pvmctx);
    p->saved_s = pvm_setsbuf(0);
    p->saved_r = pvm_setrbuf(0);
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
    /* Discard the SIGPIPE the library caused, then unblock. */
    if (!p->pipe_pending) {
        sigset_t pipe, pending;
        struct timespec zero = { 0, 0 };
        sigemptyset(&pipe);
        sigaddset(&pipe, SIGPIPE);
        if (sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE))
            sigtimedwait(&pipe, NULL, &zero);
    }
    pthread_sigmask(SIG_SETMASK, &p->saved_mask, NULL);
}

static int tp_send(ecoi_transport *t, int dest, int tag, const void *buf,
                   size_t count, int datatype)
{
    pvm_tp *p = (pvm_tp *)t;
    int bid, rc = ECO_OK;

    if (count > INT_MAX)
        return ECO_ERR_ARG;
    if (p->dead[dest])
        return ECO_ERR_PEER;
    bid = pvm_mkbuf(p->encoding);
    if (bid < 0)
        return ECO_ERR_PVM;
    pvm_setsbuf(bid);
    if (count && pack_enc(p->encoding, datatype, (void *)buf, (int)count, 0) < 0)
        rc = ECO_ERR_PVM;
    if (rc == ECO_OK && pvm_send(p->tids[dest], tag) < 0)
        rc = ECO_ERR_PEER;
    pvm_setsbuf(0);
    pvm_freebuf(bid);
    return rc;
}

/* Read the exit notices that have arrived. */
static void read_exits(pvm_tp *p)
{
    int b, tid;

    while ((b = pvm_nrecv(-1, ECOI_TAG_EXIT)) > 0) {
        if (pvm_upkint(&tid, 1, 1) >= 0)
            for (int r = 0; r < p->n; r++)
                if (p->tids[r] == tid)
                    p->dead[r] = 1;
        pvm_freebuf(b);
    }
}

/* Wait for the message (src, tag); fail when src exits or gives up. */
static int wait_msg(pvm_tp *p, int src, int tag, int *bid)
{
    int grace = ECOI_EXIT_GRACE_SLICES;

    for (;;) {
        struct timeval tv = { 0, ECOI_POLL_USEC };
        int b = pvm_trecv(p->tids[src], tag, &tv);

        if (b > 0) {
            *bid = b;
            return ECO_OK;
        }
        if (b < 0)
            return ECO_ERR_PVM;
        read_exits(p);
        /* Gone: a message it sent before it left may still be on its
         * way, behind the exit notice. */
        if (p->dead[src] && grace-- <= 0)
            return ECO_ERR_PEER;
        b = pvm_nrecv(p->tids[src], ECOI_TAG_ABORT);
        if (b > 0) {
            pvm_freebuf(b);
            return ECO_ERR_PEER;
        }
    }
}

static int tp_recv(ecoi_transport *t, int src, int tag, void *buf, size_t count,
                   int datatype, const int *fwd, int nfwd)
{
    pvm_tp *p = (pvm_tp *)t;
    int bid, bytes, mtag, mtid, rc;

    if (count > INT_MAX)
        return ECO_ERR_ARG;
    rc = wait_msg(p, src, tag, &bid);
    if (rc != ECO_OK)
        return rc;
    /* Pass the message on untouched before reading it. */
    if (nfwd > 0) {
        pvm_setsbuf(bid);
        for (int i = 0; i < nfwd && rc == ECO_OK; i++)
            if (p->dead[fwd[i]] || pvm_send(p->tids[fwd[i]], tag) < 0)
                rc = ECO_ERR_PEER;
        pvm_setsbuf(0);
        pvm_setrbuf(bid);
    }
    if (rc == ECO_OK && pvm_bufinfo(bid, &bytes, &mtag, &mtid) < 0)
        rc = ECO_ERR_PVM;
    if (rc == ECO_OK && p->encoding != PvmDataDefault &&
        (size_t)bytes != count * ecoi_type_size(datatype))
        rc = ECO_ERR_MISMATCH;
    if (rc == ECO_OK && count && pack_enc(p->encoding, datatype, buf, (int)count, 1) < 0)
        rc = ECO_ERR_MISMATCH;
    pvm_freebuf(bid);
    return rc;
}

static int tp_poll(ecoi_transport *t)
{
    pvm_tp *p = (pvm_tp *)t;

    if (pvm_probe(-1, ECOI_TAG_ABORT) > 0)
        return ECO_ERR_PEER;
    read_exits(p);
    return ECO_OK;
}

static void tp_abort(ecoi_transport *t, const int *peers, int npeers)
{
    pvm_tp *p = (pvm_tp *)t;
    int bid = pvm_mkbuf(PvmDataDefault);

    if (bid < 0)
        return;
    pvm_setsbuf(bid);
    for (int i = 0; i < npeers; i++)
        if (!p->dead[peers[i]])
            pvm_send(p->tids[peers[i]], ECOI_TAG_ABORT);
    pvm_setsbuf(0);
    pvm_freebuf(bid);
}

/* The other members' tids (n-1 of them); NULL when out of memory. */
static int *others(const pvm_tp *p)
{
    int *o = malloc((size_t)p->n * sizeof *o), k = 0;

    if (o)
        for (int r = 0; r < p->n; r++)
            if (r != p->rank)
                o[k++] = p->tids[r];
    return o;
}

static void tp_destroy(ecoi_transport *t)
{
    pvm_tp *p = (pvm_tp *)t;
    int *o = others(p), b;

    tp_enter(t);
    if (o && p->n > 1)
        pvm_notify(PvmTaskExit | PvmNotifyCancel, ECOI_TAG_EXIT, p->n - 1, o);
    /* Drop whatever is left in the library's context. */
    while ((b = pvm_nrecv(-1, -1)) > 0)
        pvm_freebuf(b);
    tp_leave(t);
    if (p->owner)
        pvm_freecontext(p->pvmctx);
    free(o);
    free(p->tids);
    free(p->dead);
    free(p);
}

ecoi_transport *ecoi_pvm_transport(int n, int rank, const int *tids,
                                   int pvmctx, int owner, int encoding)
{
    pvm_tp *p = calloc(1, sizeof *p);

    if (!p)
        return NULL;
    p->tids = malloc((size_t)n * sizeof *p->tids);
    p->dead = calloc((size_t)n, 1);
    if (!p->tids || !p->dead) {
        free(p->tids);
        free(p->dead);
        free(p);
        return NULL;
    }
    memcpy(p->tids, tids, (size_t)n * sizeof *tids);
    p->n = n;
    p->rank = rank;
    p->pvmctx = pvmctx;
    p->owner = owner;
    p->encoding = encoding;
    p->base.enter = tp_enter;
    p->base.leave = tp_leave;
    p->base.send = tp_send;
    p->base.recv = tp_recv;
    p->base.poll = tp_poll;
    p->base.abort = tp_abort;
    p->base.destroy = tp_destroy;
    return &p->base;
}

int ecoi_pvm_watch(ecoi_transport *t)
{
    pvm_tp *p = (pvm_tp *)t;
    int *o, rc = ECO_OK;

    if (p->n == 1)
        return ECO_OK;
    o = others(p);
    if (!o)
        return ECO_ERR_NOMEM;
    tp_enter(t);
    if (pvm_notify(PvmTaskExit, ECOI_TAG_EXIT, p->n - 1, o) < 0)
        rc = ECO_ERR_PVM;
    tp_leave(t);
    free(o);
    return rc;
}
