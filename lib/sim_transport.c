/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sim_transport.c -- the simulated transport (eco_sim.h): members as
 * threads in virtual time, one running at a time, over a modelled
 * network.  Memory is O(n + links + messages in flight): a mailbox per
 * member and a free time per link direction, never an n x n array.
 *
 * Scheduling: a member runs until it must wait: before every send (at its
 * clock, after the sender's overhead) and every receive (at the later of
 * its clock and the message's arrival) it yields unless no other member
 * has an earlier event; a member whose message is not sent yet blocks,
 * and the sender makes it ready at the arrival time.  The ready members
 * wait in a heap by (time, rank); the running one hands the baton to the
 * heap's first through its semaphore.  When nobody is ready and somebody
 * waits, the waiting members fail with ECO_ERR_TIMEOUT (they would wait
 * for ever: members that disagree).
 *
 * A send between hosts may hold its sender as PVM's does (costs'
 * socket_bytes, hold_until): its clock goes on to when all but that much
 * of the message is through the path, so that a member's sends to several
 * members follow one another at each path's pace.
 *
 * A member is a fiber (ucontext: makecontext and swapcontext, each on its
 * own stack) where the C library has them: the baton passes in one
 * thread, a few hundred nanoseconds, where two threads and their
 * semaphores take 10 to 20 us of system time (10^8 messages: half an
 * hour).  Elsewhere, and under the sanitizers (which need to be told of
 * stack switches), every member is a thread.
 */
#include <math.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "eco_sim.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SIM_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SIM_SANITIZED 1
#endif
#endif
#if defined(__GLIBC__) && !defined(SIM_SANITIZED) && !defined(ECO_SIM_THREADS)
#define SIM_FIBERS 1
#include <ucontext.h>
#include <sys/mman.h>
#include <unistd.h>
#else
#define SIM_FIBERS 0
#endif

/* A message in a mailbox, 24 bytes: an all-to-all of 10,000 members has
 * its 10^8 messages in flight at once.  Its tag and signature, the same
 * in every message of a call, are interned (key). */
typedef struct srec {
    double arrive;
    uint64_t bytes;
    int src;                 /* -1: taken */
    int key;                 /* s->keys[key] */
} srec;
typedef struct skey {
    int tag;
    ecoi_sig sig;
} skey;

/* A mailbox is a list of chunks of records in order of sending; a chunk
 * goes when all its records are taken. */
#define CHUNK 64
typedef struct schunk {
    struct schunk *next;
    int n, live, first;      /* written, not taken, the first maybe not taken */
    char **data;             /* [CHUNK] the payloads, with data; else NULL */
    srec r[CHUNK];
} schunk;

enum { M_READY, M_BLOCKED, M_DONE };

/* A member's last message to dest that may still be on its way (its
 * socket to dest not yet empty): when it is through, and the bytes per
 * second it got.  A member keeps FLOWS of them, dest's in slot dest %
 * FLOWS, the latest in a slot replacing the one before: O(n) in all,
 * where an all-to-all of 10,000 members has 10^8 messages on their way
 * (a member's turns among its children, and its segments to one, fit). */
#define FLOWS 64
typedef struct sflow {
    int dest;                /* -1: none */
    double end, rate;
} sflow;

typedef struct smember {
    ecoi_transport base;
    ecoi_sim *s;
    int rank, host;          /* host: a node of the topology, or the rank */
    int state;
    double clock, key;       /* key: the time it resumes at, when ready */
    int wait_src, wait_tag, wake_rc;
    int aborted;             /* the status of an abort notice, or 0 */
    schunk *head, *tail;     /* mailbox, in order of sending */
    eco_ctx *busy;           /* its contexts with requests (request.c): the
                              * members may share one thread */
    sflow *flows;            /* [FLOWS] once it sent with the hold */
#if SIM_FIBERS
    ucontext_t uc;
    char *stack;             /* mapped, a guard page first */
#else
    sem_t sem;
    pthread_t th;
#endif
} smember;

/* One direction of a link: the times it is reserved, in order, apart. */
typedef struct busy {
    double st, en;
} busy;
typedef struct lane {
    busy *iv;          /* iv[head .. n-1] */
    int head, n, cap;
} lane;

struct ecoi_sim {
    int n;
    smember *m;
    const ecoi_topo *topo;
    int nlinks;
    lane *up, *down;               /* [nlinks]: out of and into each node */
    ecoi_sim_costs c;
    int data;
    int *heap, nheap;              /* ready members by (key, rank) */
    int nblocked;
    int ndone;                     /* members whose body returned */
    int cancel;                    /* threads that must not run the body */
#if SIM_FIBERS
    ucontext_t main_uc;            /* ecoi_sim_run's */
    size_t stack_bytes;
#else
    sem_t main_sem;
#endif
    long messages;
    skey *keys;                    /* the messages' tags and signatures */
    int nkeys, capkeys;
    int *khash, hcap;              /* keys by hash, -1 empty; hcap a power of 2 */
    void (*body)(int, void *);
    void *arg;
    smember *cur;                  /* the running member */
};

void ecoi_sim_costs_default(ecoi_sim_costs *c)
{
    ecoi_model *d = ecoi_model_default(NULL);

    c->alpha_hosts = d ? d->link[0].alpha : 40e-6;
    c->alpha_tasks = d ? d->task.alpha : 25e-6;
    c->beta_tasks = d ? d->task.beta : 0.5e-9;
    c->nic_rate = d && d->link[0].beta > 0 ? 8.0 / d->link[0].beta : 1e9;
    c->gamma = 0.5e-9;
    c->burst_bytes = 0;     /* a plain wire (eco-sim --burst: a token bucket) */
    c->burst_seconds = 0;
    c->socket_bytes = 0;    /* a send returns when it leaves (eco-sim
                             * --socket-bytes: PVM's hold) */
    c->mtu_bytes = 0;       /* fluid: a link passes each bit on at once
                             * (eco-sim --mtu: store and forward) */
    c->frame_bytes = 0;     /* a link carries only the message (eco-sim
                             * --frame: its packets' headers too) */
    c->cores = 0;           /* every host its own CPUs: alpha_hosts
                             * whatever runs (eco-sim --cores) */
    c->busy_members = 0;
    c->alpha_quiet = 0;
    c->stepbyte = 0;
    ecoi_model_free(d);
}

/* ------------------------------------------------------------------ */
/* The ready heap                                                      */
/* ------------------------------------------------------------------ */

static int before(const ecoi_sim *s, int a, int b)
{
    return s->m[a].key < s->m[b].key || (s->m[a].key == s->m[b].key && a < b);
}

static void heap_push(ecoi_sim *s, int r)
{
    int i = s->nheap++;

    while (i > 0 && before(s, r, s->heap[(i - 1) / 2])) {
        s->heap[i] = s->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    s->heap[i] = r;
}

static int heap_pop(ecoi_sim *s)
{
    int top = s->heap[0], last = s->heap[--s->nheap], i = 0;

    for (;;) {
        int c = 2 * i + 1;
        if (c >= s->nheap)
            break;
        if (c + 1 < s->nheap && before(s, s->heap[c + 1], s->heap[c]))
            c++;
        if (!before(s, s->heap[c], last))
            break;
        s->heap[i] = s->heap[c];
        i = c;
    }
    if (s->nheap > 0)
        s->heap[i] = last;
    return top;
}

/* ------------------------------------------------------------------ */
/* Scheduling                                                          */
/* ------------------------------------------------------------------ */

/* Hand the baton to the earliest ready member (me may be it); returns
 * when me runs again, at once when me is done. */
static void switch_from(ecoi_sim *s, smember *me)
{
    smember *next = NULL;
    int done;

    if (s->nheap == 0 && s->nblocked > 0)    /* nobody will ever send */
        for (int r = 0; r < s->n; r++)
            if (s->m[r].state == M_BLOCKED) {
                s->m[r].state = M_READY;
                s->m[r].wake_rc = ECO_ERR_TIMEOUT;
                s->m[r].key = s->m[r].clock;
                s->nblocked--;
                heap_push(s, r);
            }
    if (s->nheap > 0)
        next = &s->m[heap_pop(s)];
    s->cur = next;
    if (next == me)
        return;
#if SIM_FIBERS
    /* a member done is never resumed: its stack goes when the run ends */
    swapcontext(&me->uc, next ? &next->uc : &s->main_uc);
    (void)done;
#else
    done = me->state == M_DONE;   /* read before the next one runs */
    sem_post(next ? &next->sem : &s->main_sem);
    if (!done)
        while (sem_wait(&me->sem) != 0)
            ;
#endif
}

/* Go on at time t, after every member with an earlier event. */
static void yield_at(ecoi_sim *s, smember *me, double t)
{
    me->key = t;
    if (s->nheap == 0 || before(s, me->rank, s->heap[0]))
        return;
    heap_push(s, me->rank);
    switch_from(s, me);
}

static void wake(ecoi_sim *s, smember *m, double t, int rc)
{
    m->state = M_READY;
    m->wake_rc = rc;
    m->key = fmax(m->clock, t);
    s->nblocked--;
    heap_push(s, m->rank);
}

/* ------------------------------------------------------------------ */
/* The network                                                         */
/* ------------------------------------------------------------------ */

static double link_rate(const ecoi_sim *s, int node)
{
    double r = s->topo ? s->topo->node[node].rate : 0;

    return r > 0 ? r : !s->topo || s->topo->node[node].kind == ECOI_TOPO_HOST
                       ? s->c.nic_rate : 0;
}

/* Mark [a, b) busy in L, after every interval that starts before it,
 * joining the intervals it touches: 0, or -1 (no memory). */
static int occupy(lane *L, int i, double a, double b)
{
    if (i > L->head && L->iv[i - 1].en >= a) {             /* extends i - 1 */
        L->iv[i - 1].en = fmax(L->iv[i - 1].en, b);
    } else {
        if (L->n == L->cap) {
            int nc = L->cap ? 2 * L->cap : 4;
            busy *nb = realloc(L->iv, (size_t)nc * sizeof *nb);
            if (!nb)
                return -1;
            L->iv = nb;
            L->cap = nc;
        }
        memmove(L->iv + i + 1, L->iv + i, (size_t)(L->n - i) * sizeof *L->iv);
        L->iv[i] = (busy){ a, b };
        L->n++;
        i++;
    }
    if (i < L->n && L->iv[i].st <= L->iv[i - 1].en) {     /* reaches i */
        L->iv[i - 1].en = fmax(L->iv[i - 1].en, L->iv[i].en);
        memmove(L->iv + i, L->iv + i + 1, (size_t)(L->n - i - 1) * sizeof *L->iv);
        L->n--;
    }
    return 0;
}

/* Reserve d seconds of L from t0 on in the gaps it has, the first first
 * (packets of messages that share a link interleave; those reserved
 * before keep their times); *st when the first piece starts, *th when dh
 * seconds of it are done (dh <= 0: *st), returns when the last ends.
 * Nothing is reserved before now: what ended by then is forgotten. */
static double reserve(lane *L, double now, double t0, double d, double dh, double *st,
                      double *th)
{
    double cur = t0;
    int i = L->head;

    while (L->head < L->n && L->iv[L->head].en <= now)
        L->head++;
    if (L->head > 16 && 2 * L->head > L->n) {
        memmove(L->iv, L->iv + L->head, (size_t)(L->n - L->head) * sizeof *L->iv);
        L->n -= L->head;
        L->head = 0;
    }
    /* from the first interval that ends after t0: they are in order and
     * apart, and a host's link may hold thousands ahead (an all-to-all:
     * one per sender) */
    {
        int lo = L->head, hi = L->n;
        while (lo < hi) {
            int mid = lo + (hi - lo) / 2;
            if (L->iv[mid].en <= cur)
                lo = mid + 1;
            else
                hi = mid;
        }
        i = lo;
    }
    *st = *th = -1;
    while (d > 0) {
        double piece;
        if (i < L->n && L->iv[i].en <= cur) {
            i++;
            continue;
        }
        if (i < L->n && L->iv[i].st <= cur) {
            cur = L->iv[i++].en;
            continue;
        }
        piece = i < L->n ? fmin(d, L->iv[i].st - cur) : d;
        if (*st < 0)
            *st = cur;
        if (*th < 0 && dh <= piece)
            *th = cur + fmax(dh, 0.0);
        if (occupy(L, i, cur, cur + piece) != 0) {  /* no memory: unrecorded */
            if (*th < 0)
                *th = cur + dh;
            return cur + d;
        }
        cur += piece;
        d -= piece;
        dh -= piece;
        /* back to the interval that may now cover cur (occupy merges) */
        while (i > L->head && L->iv[i - 1].en > cur)
            i--;
    }
    if (*st < 0)
        *st = cur;
    if (*th < 0)
        *th = cur;
    return cur;
}

/* The time by which L, serving at its rate, had `lead` seconds of work
 * less done than by t: walked back from t over its busy intervals (the
 * idle time between them does not count); -INFINITY when it was idle
 * before that (or forgot: what ended before the current send's time). */
static double served_before(const lane *L, double t, double lead)
{
    int lo = L->head, hi = L->n;

    while (lo < hi) {           /* the first interval that starts at t or later */
        int mid = lo + (hi - lo) / 2;
        if (L->iv[mid].st < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (int i = lo - 1; i >= L->head; i--) {
        double top = fmin(t, L->iv[i].en), span = top - L->iv[i].st;
        if (span >= lead)
            return top - lead;
        lead -= span;
    }
    return -INFINITY;
}

/* A message on its way over the links of its path, one after another. */
typedef struct flight {
    double bits;       /* on each link, headers included (link_bits) */
    double start;      /* when it starts on the next link */
    double end;        /* when it is through the links so far */
    double hbits;      /* the bits that hold the sender (< 0: none) */
    double held;       /* when hbits of it are through the links so far */
    double span;       /* the longest a link took from its first bit to
                        * its last: bits / span, the pace it got */
} flight;

/*
 * One link on the way: the message starts on it when it has room and
 * the message has started on the link before, and is through it when
 * its bits are and when they are through the link before.  A link with
 * a token bucket of B bytes (netbed's tbf) lets each bit go as soon as
 * it has come and the link at its rate (the reservation) has sent the
 * bit B bytes before it: the bucket refills while the link idles, so a
 * short message on a quiet link passes at once, and the link still
 * carries no more than its rate over time.  (A tbf's output is the
 * smaller of its input and B plus what a server at the rate would have
 * sent, both counted from the start.)  A link that stores and forwards
 * packets (mtu_bytes) passes the first on to the next link when its last
 * bit is through, and sends the last one only when it has come whole
 * (f->end): a packet's time later at each link but the slowest, a delay
 * that reserves nothing more; with a bucket, a packet the bucket holds
 * goes at once.
 */
static void cross(const ecoi_sim *s, lane *dir, int node, double now, flight *f)
{
    double r = link_rate(s, node), st, en, th, lead, pkt;

    if (r <= 0)
        return;
    en = reserve(&dir[node], now, f->start, f->bits / r, f->hbits / r, &st, &th);
    f->span = fmax(f->span, en - st);
    /* store and forward: pkt seconds of the first packet before the next
     * link has it, of the last after it came */
    pkt = fmin(8.0 * s->c.mtu_bytes, f->bits) / r;
    st += pkt;
    if (pkt > 0)
        en = fmax(en, f->end + pkt);
    lead = fmax(8.0 * s->c.burst_bytes / r, s->c.burst_seconds);
    if (lead > 0) {
        st = fmax(f->start, served_before(&dir[node], st, lead));
        en = served_before(&dir[node], en, lead);
        th = served_before(&dir[node], th, lead);
    }
    f->start = st;
    f->end = fmax(f->end, en);
    if (f->hbits >= 0)
        f->held = fmax(f->held, th);
}

/* f (bits and hbits set) sent from host a to host b at time t: when it
 * arrives (f->end), when its first hbits have (f->held) and the pace it
 * got (f->span). */
static void route(ecoi_sim *s, int a, int b, double t, flight *f)
{
    int down[256], nd = 0;

    f->start = f->end = f->held = t;
    f->span = 0;
    if (a == b) {
        f->end = t + s->c.beta_tasks * f->bits / 8.0;
        return;
    }
    if (!s->topo) {
        cross(s, s->up, a, t, f);
        cross(s, s->down, b, t, f);
        return;
    }
    const ecoi_topo_node *nd_ = s->topo->node;
    while (a != b) {
        if (a >= 0 && (b < 0 || nd_[a].depth >= nd_[b].depth)) {
            cross(s, s->up, a, t, f);
            a = nd_[a].parent;
        } else {
            if (nd < (int)(sizeof down / sizeof down[0]))
                down[nd++] = b;
            b = nd_[b].parent;
        }
    }
    while (nd > 0)
        cross(s, s->down, down[--nd], t, f);
}

/* ------------------------------------------------------------------ */
/* The transport                                                       */
/* ------------------------------------------------------------------ */

static ecoi_sim *running;   /* the simulation ecoi_sim_run runs */

static void sim_combine(size_t bytes)
{
    if (running && running->cur)
        running->cur->clock += running->c.gamma * (double)bytes;
}

/* The members runnable now: all but those blocked for a message nobody
 * sent yet and those done.  A member waiting for a message on its way
 * counts: on netbed the kernel copies its bytes through the emulated
 * links on the same cores. */
static int runnable(const ecoi_sim *s)
{
    return s->n - s->nblocked - s->ndone;
}

/* A message between hosts costs alpha_hosts while busy_members run; on
 * shared cores what it costs at the members runnable now (runnable,
 * ecoi_busy_at). */
static double alpha_between(const ecoi_sim *s, const smember *a, const smember *b)
{
    if (a->host == b->host)
        return s->c.alpha_tasks;
    if (s->c.busy_members <= 0)
        return s->c.alpha_hosts;
    return ecoi_busy_at(s->c.alpha_hosts, s->c.alpha_quiet, runnable(s),
                        s->c.busy_members, s->c.cores);
}

/* What `bytes` of a message between a and b add at one end (half of it
 * at each) while the members runnable now copy theirs on the shared
 * cores (ecoi_sim_costs.stepbyte, ecoi_step_share). */
static double bytes_between(const ecoi_sim *s, const smember *a, const smember *b,
                            double bytes)
{
    if (a->host == b->host || s->c.stepbyte <= 0 || s->c.busy_members <= 0)
        return 0.0;
    return s->c.stepbyte * bytes / 2 *
           ecoi_step_share(runnable(s), s->c.busy_members, s->c.cores);
}

static unsigned key_hash(int tag, const ecoi_sig *g)
{
    const int v[6] = { tag, g->kind, g->root, g->count, g->datatype, g->op };
    unsigned h = 2166136261u;

    for (int i = 0; i < 6; i++)
        h = (h ^ (unsigned)v[i]) * 16777619u;
    return h;
}

/* The key of (tag, sig), made when new: >= 0, or -1 (no memory). */
static int intern(ecoi_sim *s, int tag, const ecoi_sig *sig)
{
    unsigned i;

    if (2 * (s->nkeys + 1) > s->hcap) {       /* grow: half full at most */
        int nc = s->hcap ? 2 * s->hcap : 64, *nh = malloc((size_t)nc * sizeof *nh);
        if (!nh)
            return -1;
        for (int j = 0; j < nc; j++)
            nh[j] = -1;
        for (int k = 0; k < s->nkeys; k++) {
            for (i = key_hash(s->keys[k].tag, &s->keys[k].sig) & (unsigned)(nc - 1);
                 nh[i] >= 0; i = (i + 1) & (unsigned)(nc - 1))
                ;
            nh[i] = k;
        }
        free(s->khash);
        s->khash = nh;
        s->hcap = nc;
    }
    for (i = key_hash(tag, sig) & (unsigned)(s->hcap - 1); s->khash[i] >= 0;
         i = (i + 1) & (unsigned)(s->hcap - 1)) {
        const skey *k = &s->keys[s->khash[i]];
        if (k->tag == tag && ecoi_sig_equal(&k->sig, sig))
            return s->khash[i];
    }
    if (s->nkeys == s->capkeys) {
        int nc = s->capkeys ? 2 * s->capkeys : 64;
        skey *nk = realloc(s->keys, (size_t)nc * sizeof *nk);
        if (!nk)
            return -1;
        s->keys = nk;
        s->capkeys = nc;
    }
    s->keys[s->nkeys] = (skey){ tag, *sig };
    s->khash[i] = s->nkeys;
    return s->nkeys++;
}

static void chunk_free(schunk *c)
{
    if (c->data)
        for (int i = 0; i < c->n; i++)
            if (c->r[i].src >= 0)
                free(c->data[i]);
    free(c->data);
    free(c);
}

/* me's last message to dest if it may still be on its way, or NULL. */
static const sflow *flow_find(const smember *me, int dest)
{
    const sflow *f = me->flows ? &me->flows[dest % FLOWS] : NULL;

    return f && f->dest == dest && f->end > me->clock ? f : NULL;
}

/* Record me's message to dest, through at end at rate bytes/s: 0, or -1. */
static int flow_put(smember *me, int dest, double end, double rate)
{
    if (!me->flows) {
        if (!(me->flows = malloc(FLOWS * sizeof *me->flows)))
            return -1;
        for (int i = 0; i < FLOWS; i++)
            me->flows[i].dest = -1;
    }
    me->flows[dest % FLOWS] = (sflow){ dest, end, rate };
    return 0;
}

/*
 * PVM's hold: pvm_send returns when what it has left to write fits in the
 * socket to dest (k bytes), so that a member's sends to several
 * destinations follow one another at the pace of each path.  Written
 * after the messages before it to dest (the latest of them: prev, which
 * went at its own pace), this one (f) leaves the sender when f->held (all
 * but k of it through: f->hbits) and prev is through but for the room
 * left.  Returns when.
 */
static double hold_until(double now, double k, double bytes, const flight *f,
                         const sflow *prev)
{
    double t = bytes > k ? fmax(now, f->held) : now;

    if (prev)
        t = fmax(t, prev->end - fmax(0.0, k - bytes) / prev->rate);
    return t;
}

/* The bits that `bytes` of a message occupy on a link: with frame bytes of
 * headers per packet of ECOI_SIM_MSS bytes (the last packet may be
 * short), b + ceil(b / MSS) * frame bytes.  bytes <= 0: no packet. */
static double link_bits(double bytes, double frame)
{
    return 8.0 * (bytes + (bytes > 0 ? ceil(bytes / ECOI_SIM_MSS) : 0.0) * frame);
}

static int post(ecoi_sim *s, smember *me, int dest, int tag, const ecoi_sig *sig,
                const void *buf, size_t bytes)
{
    smember *d = &s->m[dest];
    size_t keep = s->data ? bytes : 0;
    const int hold = s->c.socket_bytes > 0 && d->host != me->host;
    double until = 0, frame;
    schunk *c;
    srec *m;
    flight fl;
    int key;

    me->clock += alpha_between(s, me, d) / 2 + bytes_between(s, me, d, (double)bytes);
    yield_at(s, me, me->clock);
    c = d->tail;    /* after the yield: others post to d meanwhile */
    if ((key = intern(s, tag, sig)) < 0)
        return ECO_ERR_NOMEM;
    if (!c || c->n == CHUNK) {
        if (!(c = malloc(sizeof *c)))
            return ECO_ERR_NOMEM;
        c->next = NULL;
        c->n = c->live = c->first = 0;
        c->data = NULL;
        if (s->data && !(c->data = malloc(CHUNK * sizeof *c->data))) {
            free(c);
            return ECO_ERR_NOMEM;
        }
        if (d->tail)
            d->tail->next = c;
        else
            d->head = c;
        d->tail = c;
    }
    if (c->data && !(c->data[c->n] = malloc(keep + 1)))
        return ECO_ERR_NOMEM;
    if (keep)
        memcpy(c->data[c->n], buf, keep);
    m = &c->r[c->n++];
    c->live++;
    m->src = me->rank;
    m->key = key;
    m->bytes = bytes;
    /* between hosts the links carry the headers too (all of a flight's
     * bits, a bucket's and a packet's bytes count them); through memory
     * (route: a == b) the bytes alone */
    frame = d->host != me->host ? s->c.frame_bytes : 0.0;
    fl.bits = link_bits((double)bytes, frame);
    fl.hbits = hold ? link_bits((double)bytes - s->c.socket_bytes, frame) : -1;
    route(s, me->host, d->host, me->clock, &fl);
    m->arrive = fl.end;
    s->messages++;
    if (d->state == M_BLOCKED) {
        if (d->wait_src == me->rank && d->wait_tag == tag)
            wake(s, d, m->arrive, ECO_OK);
        else if (d->wait_tag == tag && !ecoi_sig_equal(sig, &d->base.sig))
            wake(s, d, me->clock, ECO_ERR_MISMATCH);
    }
    if (hold) {
        until = hold_until(me->clock, s->c.socket_bytes, (double)bytes, &fl,
                           flow_find(me, dest));
        if (flow_put(me, dest, fl.end, fl.span > 0 ? (double)bytes / fl.span : INFINITY))
            return ECO_ERR_NOMEM;
        if (until > me->clock) {
            me->clock = until;
            yield_at(s, me, me->clock);
        }
    }
    return ECO_OK;
}

static int s_send(ecoi_transport *t, int dest, int tag, const void *buf, size_t count,
                  int datatype)
{
    smember *me = (smember *)t;

    if (dest < 0 || dest >= me->s->n)
        return ECO_ERR_ARG;
    return post(me->s, me, dest, tag, &t->sig, buf, count * ecoi_type_size(datatype));
}

/* Where the first message (src, tag) in me's mailbox is: its chunk (and
 * the one before, *prev), *at its index; *other set when one of that tag
 * carries another signature. */
static schunk *find(smember *me, int src, int tag, schunk **prev, int *at, int *other)
{
    const skey *keys = me->s->keys;
    schunk *p = NULL;

    for (schunk *c = me->head; c; p = c, c = c->next)
        for (int i = c->first; i < c->n; i++) {
            const srec *m = &c->r[i];
            if (m->src < 0 || keys[m->key].tag != tag)
                continue;
            if (m->src == src) {
                *prev = p;
                *at = i;
                return c;
            }
            if (!ecoi_sig_equal(&keys[m->key].sig, &me->base.sig))
                *other = 1;
        }
    return NULL;
}

/* Take record i of chunk c (after prev) out of me's mailbox. */
static void take(smember *me, schunk *c, schunk *prev, int i)
{
    c->r[i].src = -1;
    c->live--;
    while (c->first < c->n && c->r[c->first].src < 0)
        c->first++;
    if (c->live > 0)
        return;
    if (c == me->tail) {            /* empty: written again from the start */
        c->n = c->first = 0;
        return;
    }
    if (prev)
        prev->next = c->next;
    else
        me->head = c->next;
    chunk_free(c);
}

static int s_get(ecoi_transport *t, int src, int tag, void *buf, size_t count,
                 int datatype, const int *fwd, int nfwd, int wait)
{
    smember *me = (smember *)t;
    ecoi_sim *s = me->s;
    size_t bytes = count * ecoi_type_size(datatype);
    schunk *c, *prev = NULL;
    srec m;
    skey k;
    char *data;
    int other = 0, rc = ECO_OK, at = 0;

    if (src < 0 || src >= s->n)
        return ECO_ERR_ARG;
    c = find(me, src, tag, &prev, &at, &other);
    if (!wait && (!c || c->r[at].arrive > me->clock))   /* not there yet */
        return !c && (other || me->aborted) ? (other ? ECO_ERR_MISMATCH : me->aborted)
                                            : ECOI_AGAIN;
    if (!c) {
        if (other || me->aborted)
            return other ? ECO_ERR_MISMATCH : me->aborted;
        me->state = M_BLOCKED;
        me->wait_src = src;
        me->wait_tag = tag;
        s->nblocked++;
        switch_from(s, me);
        if (me->wake_rc != ECO_OK)
            return me->wake_rc;
        if (!(c = find(me, src, tag, &prev, &at, &other)))
            return ECO_ERR_PEER;
    }
    /* taken before anything else runs: others append to this mailbox */
    m = c->r[at];
    k = s->keys[m.key];
    data = c->data ? c->data[at] : NULL;
    take(me, c, prev, at);
    me->clock = fmax(me->clock, m.arrive);
    yield_at(s, me, me->clock);
    me->clock += alpha_between(s, me, &s->m[src]) / 2 +
                 bytes_between(s, me, &s->m[src], (double)m.bytes);
    for (int i = 0; i < nfwd && rc == ECO_OK; i++)
        rc = fwd[i] < 0 || fwd[i] >= s->n
            ? ECO_ERR_ARG : post(s, me, fwd[i], tag, &k.sig, data, (size_t)m.bytes);
    if (rc == ECO_OK && (!ecoi_sig_equal(&k.sig, &t->sig) || m.bytes != bytes))
        rc = ECO_ERR_MISMATCH;
    if (rc == ECO_OK && bytes && data)
        memcpy(buf, data, bytes);
    free(data);
    return rc;
}

static int s_recv(ecoi_transport *t, int src, int tag, void *buf, size_t count,
                  int datatype, const int *fwd, int nfwd)
{
    return s_get(t, src, tag, buf, count, datatype, fwd, nfwd, 1);
}

static int s_try_recv(ecoi_transport *t, int src, int tag, void *buf, size_t count,
                      int datatype, const int *fwd, int nfwd)
{
    return s_get(t, src, tag, buf, count, datatype, fwd, nfwd, 0);
}

/* A member that polls lets ECOI_SIM_POLL seconds of its time pass, so
 * that the others go on and its messages come. */
#define ECOI_SIM_POLL 5e-6
static void s_idle(ecoi_transport *t)
{
    smember *me = (smember *)t;

    me->clock += ECOI_SIM_POLL;
    yield_at(me->s, me, me->clock);
}

static int s_poll(ecoi_transport *t)
{
    smember *me = (smember *)t;

    if (me->aborted)
        return me->aborted;
    for (const schunk *c = me->head; c; c = c->next)
        for (int i = c->first; i < c->n; i++) {
            int d = ecoi_tag_diff(me->s->keys[c->r[i].key].tag, t->call_tag);
            if (c->r[i].src >= 0 && d < 0 && d >= -ECOI_STALE_CALLS * ECOI_CALL_TAGS)
                return ECO_ERR_MISMATCH;
        }
    return ECO_OK;
}

static void s_abort(ecoi_transport *t, const int *peers, int npeers, int status)
{
    smember *me = (smember *)t;
    ecoi_sim *s = me->s;

    for (int i = 0; i < npeers; i++) {
        smember *p = peers[i] >= 0 && peers[i] < s->n ? &s->m[peers[i]] : NULL;
        if (!p || p == me)
            continue;
        if (!p->aborted)
            p->aborted = status;
        if (p->state == M_BLOCKED)
            wake(s, p, me->clock, status);
    }
}

static void s_nothing(ecoi_transport *t)
{
    (void)t;
}

/* ------------------------------------------------------------------ */
/* The simulation                                                      */
/* ------------------------------------------------------------------ */

ecoi_sim *ecoi_sim_new(int n, const ecoi_topo *topo, const int *host_of,
                       const ecoi_sim_costs *costs, int data)
{
    ecoi_sim *s;
    size_t links = topo ? (size_t)topo->nnodes : (size_t)n;

    if (n < 1 || (topo && !host_of) || !costs || !(s = calloc(1, sizeof *s)))
        return NULL;
    s->n = n;
    s->topo = topo;
    s->c = *costs;
    s->data = data;
    s->m = calloc((size_t)n, sizeof *s->m);
    s->heap = malloc((size_t)n * sizeof *s->heap);
    s->nlinks = (int)links;
    s->up = calloc(links + 1, sizeof *s->up);
    s->down = calloc(links + 1, sizeof *s->down);
#if SIM_FIBERS
    if (!s->m || !s->heap || !s->up || !s->down) {
#else
    if (!s->m || !s->heap || !s->up || !s->down || sem_init(&s->main_sem, 0, 0)) {
#endif
        free(s->m);
        s->m = NULL;
        ecoi_sim_free(s);
        return NULL;
    }
    for (int r = 0; r < n; r++) {
        smember *m = &s->m[r];
        m->s = s;
        m->rank = r;
        m->host = topo ? host_of[r] : r;
        m->base.enter = m->base.leave = s_nothing;
        m->base.send = s_send;
        m->base.recv = s_recv;
        m->base.try_recv = s_try_recv;
        m->base.idle = s_idle;
        m->base.busy = &m->busy;
        m->base.poll = s_poll;
        m->base.abort = s_abort;
        m->base.destroy = s_nothing;   /* the simulation owns its members */
#if !SIM_FIBERS
        sem_init(&m->sem, 0, 0);
#endif
    }
    return s;
}

void ecoi_sim_free(ecoi_sim *s)
{
    if (!s)
        return;
    for (int r = 0; s->m && r < s->n; r++) {
        free(s->m[r].flows);
        while (s->m[r].head) {
            schunk *c = s->m[r].head;
            s->m[r].head = c->next;
            chunk_free(c);
        }
#if !SIM_FIBERS
        sem_destroy(&s->m[r].sem);
#endif
    }
#if !SIM_FIBERS
    if (s->m)
        sem_destroy(&s->main_sem);
#endif
    free(s->m);
    free(s->heap);
    free(s->keys);
    free(s->khash);
    for (int l = 0; l < s->nlinks; l++) {
        free(s->up ? s->up[l].iv : NULL);
        free(s->down ? s->down[l].iv : NULL);
    }
    free(s->up);
    free(s->down);
    free(s);
}

ecoi_transport *ecoi_sim_transport(ecoi_sim *s, int rank)
{
    return rank >= 0 && rank < s->n ? &s->m[rank].base : NULL;
}

double ecoi_sim_clock(const ecoi_sim *s, int rank)
{
    return s->m[rank].clock;
}

long ecoi_sim_messages(const ecoi_sim *s)
{
    return s->messages;
}

#if SIM_FIBERS
/* A member's fiber: runs the body, then passes the baton for good. */
static void fiber_main(int rank)
{
    ecoi_sim *s = running;
    smember *me = &s->m[rank];

    s->body(rank, s->arg);
    me->state = M_DONE;
    s->ndone++;
    switch_from(s, me);
}

static void stacks_free(ecoi_sim *s)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);

    for (int r = 0; r < s->n; r++)
        if (s->m[r].stack) {
            munmap(s->m[r].stack, s->stack_bytes + page);
            s->m[r].stack = NULL;
        }
}

/* Member r's stack and context, ready to run the body: 0, or -1. */
static int fiber_make(ecoi_sim *s, int r, size_t page)
{
    smember *m = &s->m[r];
    char *st = mmap(NULL, s->stack_bytes + page, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

    if (st == MAP_FAILED)
        return -1;
    if (mprotect(st, page, PROT_NONE) != 0 || getcontext(&m->uc) != 0) {
        munmap(st, s->stack_bytes + page);
        return -1;
    }
    m->stack = st;
    m->uc.uc_stack.ss_sp = st + page;
    m->uc.uc_stack.ss_size = s->stack_bytes;
    m->uc.uc_link = NULL;
    makecontext(&m->uc, (void (*)(void))fiber_main, 1, r);
    m->state = M_READY;
    m->key = m->clock;
    return 0;
}

int ecoi_sim_run(ecoi_sim *s, void (*body)(int rank, void *arg), void *arg,
                 size_t stack_bytes)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);

    if (running)
        return ECO_ERR_ARG;    /* one simulation at a time */
    s->body = body;
    s->arg = arg;
    s->nheap = 0;
    s->nblocked = s->ndone = 0;
    s->stack_bytes = ((stack_bytes ? stack_bytes : 128 * 1024) + page - 1) / page * page;
    /* Every stack first (mapped, touched only as deep as it is used), so
     * that nothing runs when one cannot be made. */
    for (int r = 0; r < s->n; r++)
        if (fiber_make(s, r, page) != 0) {
            stacks_free(s);
            return ECO_ERR_NOMEM;
        }
    running = s;
    ecoi_combine_hook = sim_combine;
    for (int r = 0; r < s->n; r++)
        heap_push(s, r);
    s->cur = &s->m[heap_pop(s)];
    swapcontext(&s->main_uc, &s->cur->uc);   /* back when every member is done */
    stacks_free(s);
    ecoi_combine_hook = NULL;
    running = NULL;
    return ECO_OK;
}
#else
static void *member_main(void *arg)
{
    smember *me = arg;
    ecoi_sim *s = me->s;

    while (sem_wait(&me->sem) != 0)
        ;
    if (s->cancel)
        return NULL;
    s->body(me->rank, s->arg);
    me->state = M_DONE;
    s->ndone++;
    switch_from(s, me);
    return NULL;
}

int ecoi_sim_run(ecoi_sim *s, void (*body)(int rank, void *arg), void *arg,
                 size_t stack_bytes)
{
    pthread_attr_t attr;
    int made = 0;

    if (running)
        return ECO_ERR_ARG;    /* one simulation at a time */
    s->body = body;
    s->arg = arg;
    s->cancel = 0;
    s->nheap = 0;
    s->nblocked = s->ndone = 0;
    if (pthread_attr_init(&attr) != 0)
        return ECO_ERR_NOMEM;
    pthread_attr_setstacksize(&attr, stack_bytes ? stack_bytes : 128 * 1024);
    for (; made < s->n; made++) {
        smember *m = &s->m[made];
        m->state = M_READY;
        m->key = m->clock;
        if (pthread_create(&m->th, &attr, member_main, m) != 0)
            break;
    }
    pthread_attr_destroy(&attr);
    if (made < s->n) {
        /* Let the threads made end without running anything. */
        s->cancel = 1;
        for (int r = 0; r < made; r++) {
            sem_post(&s->m[r].sem);
            pthread_join(s->m[r].th, NULL);
        }
        return ECO_ERR_NOMEM;
    }
    running = s;
    ecoi_combine_hook = sim_combine;
    for (int r = 0; r < s->n; r++)
        heap_push(s, r);
    s->cur = &s->m[heap_pop(s)];
    sem_post(&s->cur->sem);
    while (sem_wait(&s->main_sem) != 0)
        ;
    for (int r = 0; r < s->n; r++)
        pthread_join(s->m[r].th, NULL);
    ecoi_combine_hook = NULL;
    running = NULL;
    return ECO_OK;
}
#endif
