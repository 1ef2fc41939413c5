/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * request.c -- requests: collective calls queued on a context, run one
 * after the other, each a schedule (sched.c) that advances inside the
 * library's calls.
 *
 * A call is numbered and its schedule made when it starts, so its tags
 * and its tree are fixed then; it runs when every call started before it
 * on the context is done (its turn), which every member reaches in the
 * same order.  Only the request whose turn it is touches the transport,
 * which therefore still sees one call at a time, as with blocking calls:
 * its signature, its tags, its stale-message check at the start.
 *
 * Progress: eco_ibcast and the others run their request as far as it
 * goes when they start it (the root's first segments leave at once);
 * eco_test runs every request of the thread's contexts as far as the
 * messages that have arrived let it; eco_wait runs them until its own is
 * done.  When one context has requests, eco_wait blocks in the transport
 * on the message it needs; when several have, it looks at each in turn
 * (a member may need another context's call to go on before its peers
 * can finish this one), sleeping ECOI_NAP_USEC between rounds.
 */
#include <stdlib.h>
#include <time.h>
#include "eco_coll.h"

#define ECOI_NAP_USEC 50

/* A member's contexts with queued requests: the transport's list, or
 * the calling thread's (a member is a thread but in the simulation). */
static __thread eco_ctx *thread_busy;

static eco_ctx **busy_of(const eco_ctx *c)
{
    return c->tp->busy ? c->tp->busy : &thread_busy;
}

static void busy_add(eco_ctx *c)
{
    eco_ctx **busy = busy_of(c);

    c->busy_next = *busy;
    *busy = c;
}

static void busy_remove(eco_ctx *c)
{
    for (eco_ctx **pp = busy_of(c); *pp; pp = &(*pp)->busy_next)
        if (*pp == c) {
            *pp = c->busy_next;
            break;
        }
    c->busy_next = NULL;
}

eco_request *ecoi_request_new(eco_ctx *c, int kind, int count, int datatype, eco_op op,
                              int root, int *rc)
{
    const ecoi_sig sig = { kind, root, count, datatype, ecoi_op_id(op) };
    eco_request *r;

    if (c->broken) {
        *rc = c->broken;
        return NULL;
    }
    if (!(r = calloc(1, sizeof *r))) {
        *rc = ECO_ERR_NOMEM;
        return NULL;
    }
    r->ctx = c;
    r->sig = sig;
    r->call = c->calls++;
    c->seq = r->call * ECOI_CALL_TAGS;
    r->status = ECOI_AGAIN;
    ecoi_sched_init(&r->sched, c, datatype, op);
    *rc = ECO_OK;
    return r;
}

/* Its turn: the transport takes its call. */
static int begin(eco_request *r)
{
    ecoi_transport *tp = r->ctx->tp;

    r->begun = 1;
    tp->sig = r->sig;
    tp->call_tag = ECOI_TAG_BASE | (int)((r->call * ECOI_CALL_TAGS) & ECOI_TAG_MASK);
    tp->active = 1;
    return tp->poll(tp);
}

/* Done (status), off the queue; a failure breaks the context.  A call
 * that went well still fails when a message it was sent is left unread
 * (the transport's finish). */
static void end(eco_request *r, int status)
{
    eco_ctx *c = r->ctx;

    if (status == ECO_OK && r->begun && c->tp->finish)
        status = c->tp->finish(c->tp);
    if (status != ECO_OK)
        ecoi_ctx_fail(c, status);
    if (r->begun)
        c->tp->active = 0;
    r->status = status;
    ecoi_sched_free(&r->sched);
    c->queue = r->next;
    if (!c->queue) {
        c->queue_tail = NULL;
        busy_remove(c);
    }
    r->next = NULL;
    r->ctx = NULL;
}

/* Run c's requests in order, as far as they go (wait: until `until` is
 * done, or all of them when it is NULL). */
static void progress(eco_ctx *c, const eco_request *until, int wait)
{
    eco_request *r;

    if (!c->queue)
        return;
    c->tp->enter(c->tp);
    while ((r = c->queue)) {
        int rc = c->broken;
        if (rc == ECO_OK && !r->begun)
            rc = begin(r);
        if (rc == ECO_OK)
            rc = ecoi_sched_advance(&r->sched, wait);
        if (rc == ECOI_AGAIN)
            break;
        end(r, rc);
        if (r == until)
            break;
    }
    c->tp->leave(c->tp);
}

/* Every context of the list as far as it goes now. */
static void progress_all(eco_ctx *const *busy)
{
    eco_ctx *c = *busy;

    while (c) {
        eco_ctx *next = c->busy_next;   /* c may leave the list */
        progress(c, NULL, 0);
        c = next;
    }
}

/* Until r is done. */
static void wait_done(eco_request *r)
{
    eco_ctx **busy = r->ctx ? busy_of(r->ctx) : NULL;

    while (r->ctx) {
        if (*busy == r->ctx && !(*busy)->busy_next) {
            progress(r->ctx, r, 1);
        } else {
            struct timespec nap = { 0, ECOI_NAP_USEC * 1000L };
            progress_all(busy);
            if (r->ctx && r->ctx->tp->idle)
                r->ctx->tp->idle(r->ctx->tp);
            else if (r->ctx)
                nanosleep(&nap, NULL);
        }
    }
}

/* At the end of its context's queue (one that failed to build,
 * r->sched.rc, fails in its turn). */
static void enqueue(eco_request *r)
{
    eco_ctx *c = r->ctx;

    r->next = NULL;
    if (c->queue_tail) {
        c->queue_tail->next = r;
    } else {
        c->queue = r;
        busy_add(c);
    }
    c->queue_tail = r;
}

int ecoi_request_start(eco_request *r, eco_request **out)
{
    enqueue(r);
    progress(r->ctx, NULL, 0);
    *out = r;
    return ECO_OK;
}

int ecoi_request_run(eco_request *r)
{
    /* no pass that waits for nothing first: straight to the wait */
    enqueue(r);
    return eco_wait(&r);
}

int ecoi_ctx_drain(eco_ctx *c)
{
    if (c->queue_tail)
        wait_done(c->queue_tail);
    return c->broken;
}

int eco_test(eco_request **req, int *done)
{
    eco_request *r;
    int rc;

    if (!req || !done)
        return ECO_ERR_ARG;
    *done = 0;
    if (!(r = *req)) {
        *done = 1;
        return ECO_OK;
    }
    if (r->ctx)
        progress_all(busy_of(r->ctx));
    if (r->ctx) {
        if (r->ctx->tp->idle)
            r->ctx->tp->idle(r->ctx->tp);
        return ECO_OK;
    }
    rc = r->status;
    free(r);
    *req = NULL;
    *done = 1;
    return rc;
}

int eco_wait(eco_request **req)
{
    eco_request *r;
    int rc;

    if (!req)
        return ECO_ERR_ARG;
    if (!(r = *req))
        return ECO_OK;
    wait_done(r);
    rc = r->status;
    free(r);
    *req = NULL;
    return rc;
}

int eco_waitall(int n, eco_request **reqs)
{
    int first = ECO_OK;

    if (n < 0 || (n > 0 && !reqs))
        return ECO_ERR_ARG;
    for (int i = 0; i < n; i++) {
        int rc = eco_wait(&reqs[i]);
        if (first == ECO_OK)
            first = rc;
    }
    return first;
}
