/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * local_transport.c -- an in-process transport: members are threads of
 * one process, messages are copies in per-member mailboxes.  It lets the
 * unit tests run every collective over trees of many subnets and hosts
 * without PVM, and simulate members that die mid-collective.  Like the
 * PVM transport, every message carries its sender's call signature, and a
 * waiting member fails with ECO_ERR_MISMATCH when a message of the same
 * call (from anyone) carries another, or when the member it waits on is
 * in the same call with another signature, or has finished the call and
 * the message is not in the mailbox: a send puts it there before its
 * sender can leave the call, so it never comes.  And a message that its
 * receiver will never read, one of a call the receiver has left, is a
 * disagreement too: found in any mailbox when a call starts, in the own
 * while waiting, and in the own again when a call ends.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "eco_coll.h"

typedef struct lmsg {
    struct lmsg *next;
    int src, tag;
    ecoi_sig sig;
    size_t bytes;
    char data[];
} lmsg;

struct ecoi_local_world {
    int n;
    double timeout;            /* seconds a receive may wait */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    lmsg **head;               /* [n] mailbox of each member (FIFO) */
    unsigned char *dead;       /* [n] */
    int *aborted;              /* [n*n]: aborted[to*n+from], the error */
    long posted;               /* messages sent so far */
    /* Each member's call under way, seen by those who wait on it. */
    ecoi_sig *sig;             /* [n] */
    int *call_tag;             /* [n] */
    unsigned char *inside;     /* [n] */
    /* Flow control as pvm_transport.c's: epochs of ECOI_FLOW_MSGS
     * messages or ECOI_FLOW_BYTES bytes, whichever comes first; a send
     * waits while its epoch is more than one ahead of the last its
     * receiver finished reading. */
    ecoi_flow *sent, *read;    /* [n*n]: [from*n+to] */
};

typedef struct local_tp {
    ecoi_transport base;
    ecoi_local_world *w;
    int rank;
} local_tp;

ecoi_local_world *ecoi_local_world_new(int n, double timeout_seconds)
{
    ecoi_local_world *w = calloc(1, sizeof *w);

    if (!w)
        return NULL;
    w->n = n;
    w->timeout = timeout_seconds;
    w->head = calloc((size_t)n, sizeof *w->head);
    w->dead = calloc((size_t)n, 1);
    w->aborted = calloc((size_t)n * (size_t)n, sizeof *w->aborted);
    w->sig = calloc((size_t)n, sizeof *w->sig);
    w->call_tag = calloc((size_t)n, sizeof *w->call_tag);
    w->inside = calloc((size_t)n, 1);
    w->sent = calloc((size_t)n * (size_t)n, sizeof *w->sent);
    w->read = calloc((size_t)n * (size_t)n, sizeof *w->read);
    if (!w->head || !w->dead || !w->aborted || !w->sig || !w->call_tag || !w->inside ||
        !w->sent || !w->read) {
        ecoi_local_world_free(w);
        return NULL;
    }
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->cond, NULL);
    return w;
}

void ecoi_local_world_free(ecoi_local_world *w)
{
    if (!w)
        return;
    for (int r = 0; w->head && r < w->n; r++)
        while (w->head[r]) {
            lmsg *m = w->head[r];
            w->head[r] = m->next;
            free(m);
        }
    if (w->head && w->dead && w->aborted && w->sig && w->call_tag && w->inside &&
        w->sent && w->read) {
        pthread_mutex_destroy(&w->lock);
        pthread_cond_destroy(&w->cond);
    }
    free(w->head);
    free(w->dead);
    free(w->aborted);
    free(w->sig);
    free(w->call_tag);
    free(w->inside);
    free(w->sent);
    free(w->read);
    free(w);
}

long ecoi_local_world_posted(ecoi_local_world *w)
{
    long n;

    pthread_mutex_lock(&w->lock);
    n = w->posted;
    pthread_mutex_unlock(&w->lock);
    return n;
}

void ecoi_local_kill(ecoi_local_world *w, int rank)
{
    pthread_mutex_lock(&w->lock);
    w->dead[rank] = 1;
    pthread_cond_broadcast(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

/* Publish the call this member is in, or that it left (t->active). */
static void l_publish(ecoi_transport *t)
{
    local_tp *p = (local_tp *)t;
    ecoi_local_world *w = p->w;

    pthread_mutex_lock(&w->lock);
    w->inside[p->rank] = (unsigned char)t->active;
    w->sig[p->rank] = t->sig;
    w->call_tag[p->rank] = t->call_tag;
    pthread_cond_broadcast(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

static void l_enter(ecoi_transport *t)
{
    l_publish(t);
}

static void l_leave(ecoi_transport *t)
{
    l_publish(t);
}

static int l_post(ecoi_local_world *w, int src, int dest, int tag,
                  const ecoi_sig *sig, const void *buf, size_t bytes)
{
    lmsg *m = malloc(sizeof *m + bytes + 1), **tail;

    if (!m)
        return ECO_ERR_NOMEM;
    m->next = NULL;
    m->src = src;
    m->tag = tag;
    m->sig = *sig;
    m->bytes = bytes;
    if (bytes)
        memcpy(m->data, buf, bytes);
    pthread_mutex_lock(&w->lock);
    /* a schedule whose receiver reads in another order than its sender
     * sent would stop here for ever over PVM: it times out instead */
    {
        const size_t k = (size_t)src * (size_t)w->n + (size_t)dest;
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += (time_t)w->timeout;
        int rc = ECO_OK;
        /* as flow_wait: the receiver's abort (aborted[to*n+from], to
         * this sender) ends the wait with its error */
        while (w->sent[k].epoch > w->read[k].epoch + 1 &&
               !w->dead[dest] && !w->dead[src] && rc == ECO_OK)
            if ((rc = w->aborted[k]) == ECO_OK &&
                pthread_cond_timedwait(&w->cond, &w->lock, &until) == ETIMEDOUT)
                rc = ECO_ERR_TIMEOUT;
        if (rc != ECO_OK) {
            pthread_mutex_unlock(&w->lock);
            free(m);
            return rc;
        }
        ecoi_flow_count(&w->sent[k], bytes);
    }
    for (tail = &w->head[dest]; *tail; tail = &(*tail)->next)
        ;
    *tail = m;
    w->posted++;
    pthread_cond_broadcast(&w->cond);
    pthread_mutex_unlock(&w->lock);
    return ECO_OK;
}

static int l_send(ecoi_transport *t, int dest, int tag, const void *buf,
                  size_t count, int datatype)
{
    local_tp *p = (local_tp *)t;

    if (p->w->dead[p->rank] || p->w->dead[dest])
        return ECO_ERR_PEER;
    return l_post(p->w, p->rank, dest, tag, &t->sig, buf, count * ecoi_type_size(datatype));
}

/* Is m, in the mailbox of member r, one that r will never read: of one
 * of the calls before r's own, or (left: r is out of the call, or about
 * to be) of r's own call?  In agreement a call ends only when it has read
 * every message it was sent.  Not for a member that has made no call,
 * died, or gave up (its abort reached me): it stopped reading. */
static int never_read(const ecoi_local_world *w, int me, int r, const lmsg *m, int left)
{
    return w->call_tag[r] && !w->dead[r] && !w->aborted[me * w->n + r] &&
           ecoi_tag_stale(m->tag, w->call_tag[r], left);
}

/* Take the first message (src, tag) from the mailbox of me; NULL when the
 * wait ends otherwise (*rc says why: ECOI_AGAIN without wait). */
static lmsg *l_take(ecoi_local_world *w, int me, int src, int tag,
                    const ecoi_sig *sig, int call_tag, int wait, int *rc)
{
    struct timespec until;
    lmsg *m = NULL;

    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += (time_t)w->timeout;
    pthread_mutex_lock(&w->lock);
    for (;;) {
        for (lmsg **pp = &w->head[me]; *pp; pp = &(*pp)->next)
            if ((*pp)->src == src && (*pp)->tag == tag) {
                m = *pp;
                *pp = m->next;
                ecoi_flow_count(&w->read[(size_t)src * (size_t)w->n + (size_t)me], m->bytes);
                pthread_cond_broadcast(&w->cond);
                break;
            } else if (((*pp)->tag == tag && !ecoi_sig_equal(&(*pp)->sig, sig)) ||
                       never_read(w, me, me, *pp, 0)) {
                *rc = ECO_ERR_MISMATCH;
            }
        /* The member it waits on is in this call with another signature,
         * or done with it (past it, or out of it) while the message is not
         * here: that member sent every message of the call before it
         * left, so this one never comes, whatever it sent before or after
         * (fewer segments of this tag, a later call's message).  The PVM
         * transport learns it by asking (pvm_transport.c). */
        if (!m && w->call_tag[src] && !w->dead[src] && !w->aborted[me * w->n + src]) {
            int d = ecoi_tag_diff(w->call_tag[src], call_tag);
            if (d == 0 && w->inside[src] ? !ecoi_sig_equal(&w->sig[src], sig) : d >= 0)
                *rc = ECO_ERR_MISMATCH;
        }
        if (m || *rc != ECO_OK || w->dead[src] || w->dead[me] ||
            w->aborted[me * w->n + src])
            break;
        if (!wait) {
            *rc = ECOI_AGAIN;
            break;
        }
        if (pthread_cond_timedwait(&w->cond, &w->lock, &until) == ETIMEDOUT) {
            *rc = ECO_ERR_TIMEOUT;
            break;
        }
    }
    if (m && *rc != ECO_OK) {          /* a mismatch behind it: later */
        *rc = ECO_OK;
    }
    if (!m && *rc == ECO_OK)
        *rc = w->aborted[me * w->n + src] ? w->aborted[me * w->n + src] : ECO_ERR_PEER;
    pthread_mutex_unlock(&w->lock);
    return m;
}

static int l_get(ecoi_transport *t, int src, int tag, void *buf, size_t count,
                 int datatype, const int *fwd, int nfwd, int wait)
{
    local_tp *p = (local_tp *)t;
    size_t bytes = count * ecoi_type_size(datatype);
    int rc = ECO_OK;
    lmsg *m = l_take(p->w, p->rank, src, tag, &t->sig, t->call_tag, wait, &rc);

    if (!m)
        return rc;
    for (int i = 0; i < nfwd && rc == ECO_OK; i++)
        rc = p->w->dead[fwd[i]] ? ECO_ERR_PEER
                                : l_post(p->w, p->rank, fwd[i], tag, &m->sig,
                                         m->data, m->bytes);
    if (rc == ECO_OK && !ecoi_sig_equal(&m->sig, &t->sig))
        rc = ECO_ERR_MISMATCH;
    if (rc == ECO_OK && m->bytes != bytes)
        rc = ECO_ERR_MISMATCH;
    if (rc == ECO_OK && bytes)
        memcpy(buf, m->data, bytes);
    free(m);
    return rc;
}

static int l_recv(ecoi_transport *t, int src, int tag, void *buf, size_t count,
                  int datatype, const int *fwd, int nfwd)
{
    return l_get(t, src, tag, buf, count, datatype, fwd, nfwd, 1);
}

static int l_try_recv(ecoi_transport *t, int src, int tag, void *buf, size_t count,
                      int datatype, const int *fwd, int nfwd)
{
    return l_get(t, src, tag, buf, count, datatype, fwd, nfwd, 0);
}

/*
 * At the start of a call: its signature is published first.  Then every
 * mailbox, not only the own, is looked at for a message its member will
 * never read.  A message is posted before its sender starts its next
 * call, so the last member to start a call that waits for every member
 * (a barrier) sees every message of the calls before it that went astray,
 * and fails before it sends anything of its own: nobody leaves the
 * barrier, and the error spreads along the waits.  Seen once in 40 loaded
 * runs: "gather of 3000 ints, another root at rank 1" (seed 2) had every
 * member return 0 twice, member 1 (root 2 in its view) a leaf that sends
 * to member 2, itself a leaf in the others' view, while members 0 and 4
 * sent member 1 their runs after it had started the barrier.
 */
static int l_poll(ecoi_transport *t)
{
    local_tp *p = (local_tp *)t;
    ecoi_local_world *w = p->w;
    int rc = ECO_OK;

    l_publish(t);

    pthread_mutex_lock(&w->lock);
    for (int r = 0; r < w->n && rc == ECO_OK; r++)
        rc = w->aborted[p->rank * w->n + r];
    for (int r = 0; r < w->n && rc == ECO_OK; r++)
        for (lmsg *m = w->head[r]; m && rc == ECO_OK; m = m->next)
            if (never_read(w, p->rank, r, m, !w->inside[r]))
                rc = ECO_ERR_MISMATCH;
    pthread_mutex_unlock(&w->lock);
    return rc;
}

/* At the end of a call that went well: nothing of it, or of the calls
 * before it, is left in the own mailbox. */
static int l_finish(ecoi_transport *t)
{
    local_tp *p = (local_tp *)t;
    ecoi_local_world *w = p->w;
    int rc = ECO_OK;

    pthread_mutex_lock(&w->lock);
    for (lmsg *m = w->head[p->rank]; m && rc == ECO_OK; m = m->next)
        if (ecoi_tag_stale(m->tag, t->call_tag, 1))
            rc = ECO_ERR_MISMATCH;
    pthread_mutex_unlock(&w->lock);
    return rc;
}

static void l_abort(ecoi_transport *t, const int *peers, int npeers, int status)
{
    local_tp *p = (local_tp *)t;
    ecoi_local_world *w = p->w;

    pthread_mutex_lock(&w->lock);
    for (int i = 0; i < npeers; i++)
        w->aborted[peers[i] * w->n + p->rank] = status;
    pthread_cond_broadcast(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

static void l_destroy(ecoi_transport *t)
{
    free(t);
}

ecoi_transport *ecoi_local_transport(ecoi_local_world *w, int rank)
{
    local_tp *p = calloc(1, sizeof *p);

    if (!p)
        return NULL;
    p->w = w;
    p->rank = rank;
    p->base.enter = l_enter;
    p->base.leave = l_leave;
    p->base.send = l_send;
    p->base.recv = l_recv;
    p->base.try_recv = l_try_recv;
    p->base.poll = l_poll;
    p->base.finish = l_finish;
    p->base.abort = l_abort;
    p->base.destroy = l_destroy;
    return &p->base;
}
