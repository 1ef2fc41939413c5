/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bsend.c -- pvm_bcast over an ECO tree, and the send side's bookkeeping.
 *
 * PVM's broadcast is one-sided: only the sender calls pvm_bcast; members
 * receive it with pvm_recv and friends.  The sender S here builds an ECO
 * tree rooted at itself over the group's other members and sends each of
 * its children, in the layer's own message context:
 *
 *   PAY  the caller's send buffer, untouched (pvm_send of the active buffer)
 *   HDR  S, the tag, S's context, and the child's subtree in preorder:
 *        (tid, subtree size, sequence number, flags) per member
 *
 * A member forwards both to its children inside its next receive or group
 * call, and puts PAY back into its own queue as S's message (brecv.c).
 *
 * Order.  PVM keeps the messages from S to R in order (while their route
 * stays the same: the layer never changes the program's routing, see
 * group.c); a tree message takes another path than S's direct ones.  So S
 * numbers its tree broadcasts to each R (1, 2, ...) and, when a direct
 * message to R and a tree broadcast to R meet, sends R a small MARK (the
 * number, and a context) on the direct path, where the broadcast belongs:
 *   - before a direct send to R, if a tree broadcast to R is not yet
 *     covered by a MARK or a direct PAY (a fence), or if R has had tree
 *     broadcasts and not yet a MARK naming the send's context;
 *   - after a tree broadcast to R, if S sent R direct messages since its
 *     previous broadcast to R (the broadcast then waits for its MARK).
 * R delivers the broadcasts in number order and at the MARK's place, and
 * holds back S's direct messages that come too early, in the contexts the
 * headers and MARKs named (a header can come after the direct messages
 * that follow its broadcast, so the MARK names their context itself).
 * Without direct traffic between them no MARK is sent at all.
 */
#include <stdlib.h>
#include <string.h>
#include "ecopvm.h"

#define HDR_MAGIC 0x45435048 /* "ECPH" */
#define HDR_VERSION 1
#define FLAG_NEEDMARK 1      /* wait for S's MARK before delivering */
#define FLAG_DIRECT 2        /* this member got PAY straight from S */

/* ------------------------------------------------------------------ */
/* Per-destination state                                               */
/* ------------------------------------------------------------------ */
#define NTOLD 8              /* contexts remembered as told, per destination */

typedef struct dest {
    int tid;              /* 0: empty slot */
    unsigned out;         /* tree broadcasts sent to tid */
    unsigned fenced;      /* the last of them covered by a MARK or direct PAY */
    int dirty;            /* direct messages since the last broadcast */
    int told[NTOLD];      /* contexts a MARK named to tid (its direct ones) */
    int ntold;
} dest;

static dest *dests;
static size_t ndest, capdest;

static size_t slot_of(int tid, size_t cap)
{
    return ((unsigned)tid * 2654435761u) & (cap - 1);
}

static int grow(void)
{
    size_t ncap = capdest ? capdest * 2 : 64;
    dest *nd = calloc(ncap, sizeof *nd);

    if (!nd)
        return -1;
    for (size_t i = 0; i < capdest; i++)
        if (dests[i].tid) {
            size_t s = slot_of(dests[i].tid, ncap);
            while (nd[s].tid)
                s = (s + 1) & (ncap - 1);
            nd[s] = dests[i];
        }
    free(dests);
    dests = nd;
    capdest = ncap;
    return 0;
}

static dest *find_dest(int tid, int create)
{
    size_t s;

    if (capdest) {
        for (s = slot_of(tid, capdest); dests[s].tid; s = (s + 1) & (capdest - 1))
            if (dests[s].tid == tid)
                return &dests[s];
    }
    if (!create || (2 * (ndest + 1) > capdest && grow() < 0))
        return NULL;
    for (s = slot_of(tid, capdest); dests[s].tid; s = (s + 1) & (capdest - 1))
        ;
    dests[s].tid = tid;
    ndest++;
    return &dests[s];
}

static int told(const dest *d, int ctx)
{
    for (int i = 0; i < d->ntold; i++)
        if (d->told[i] == ctx)
            return 1;
    return 0;
}

/* A MARK for broadcast q on the direct path to d->tid, naming ctx: the
 * context of the direct messages that follow it (or of the broadcast).
 * The receiver holds S's direct messages back only in contexts it knows
 * S uses; a broadcast's header names its own, but may come after them. */
static void send_mark(dest *d, unsigned q, int ctx)
{
    ecopvm_saved s;
    int v[2] = { (int)q, ctx }, bid, tid = d->tid;

    if (!told(d, ctx) && d->ntold < NTOLD)
        d->told[d->ntold++] = ctx;
    ecopvm_save(&s, ECOPVM_CTX);
    bid = pvm_mkbuf(PvmDataDefault);
    if (bid > 0) {
        pvm_setsbuf(bid);
        pvm_pkint(v, 2, 1);
        if (REAL(pvm_send)(tid, ECOPVM_TAG_MARK) >= 0)
            ecopvm_count.marks_sent++;
        pvm_setsbuf(0);
        pvm_freebuf(bid);
    }
    ecopvm_restore(&s);
}

/* Before a direct send to tid in the caller's context: a MARK when a
 * tree broadcast to tid is not yet covered, or when tid has had tree
 * broadcasts and this context is new to it. */
void ecopvm_fence(int tid)
{
    dest *d = find_dest(tid, 0);
    int ctx = pvm_getcontext();

    if (d && (d->out > d->fenced || (d->out > 0 && !told(d, ctx)))) {
        send_mark(d, d->out, ctx);
        d->fenced = d->out;
    }
}

void ecopvm_sent(int tid)
{
    dest *d = find_dest(tid, 1);

    if (d)
        d->dirty = 1;
}

/* ------------------------------------------------------------------ */
/* Application sends                                                   */
/*                                                                     */
/* These never pump: PVM calls pvm_send from inside its own message    */
/* routing (mroute, e.g. to answer a route request), where it only     */
/* queues sends and transmits them later, with the buffer's address    */
/* and tag as they are by then.  Forwarding from there would re-address */
/* queued bodies.  A fence mark is a buffer of its own: safe.          */
/* ------------------------------------------------------------------ */

int ECOPVM_API(pvm_send)(int tid, int tag)
{
    int rc;

    if (!ecopvm_on() || ecopvm.depth)
        return REAL(pvm_send)(tid, tag);
    ecopvm_fence(tid);
    rc = REAL(pvm_send)(tid, tag);
    if (rc >= 0)
        ecopvm_sent(tid);
    return rc;
}

int ECOPVM_API(pvm_psend)(int tid, int tag, void *buf, int len, int datatype)
{
    int rc;

    if (!ecopvm_on() || ecopvm.depth)
        return REAL(pvm_psend)(tid, tag, buf, len, datatype);
    ecopvm_fence(tid);
    rc = REAL(pvm_psend)(tid, tag, buf, len, datatype);
    if (rc >= 0)
        ecopvm_sent(tid);
    return rc;
}

int ECOPVM_API(pvm_mcast)(int *tids, int ntask, int tag)
{
    int rc;

    if (!ecopvm_on() || ecopvm.depth || !tids)
        return REAL(pvm_mcast)(tids, ntask, tag);
    for (int i = 0; i < ntask; i++)
        ecopvm_fence(tids[i]);
    rc = REAL(pvm_mcast)(tids, ntask, tag);
    if (rc >= 0)
        for (int i = 0; i < ntask; i++)
            ecopvm_sent(tids[i]);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Trees, cached per member list                                       */
/* ------------------------------------------------------------------ */
typedef struct tcache {
    int n;
    int *tids;           /* [0] the sender, then the recipients */
    eco_tree *tree;
} tcache;

#define NCACHE 4
static tcache cache[NCACHE];
static int cache_next;

static const eco_tree *tree_for(int n, const int *tids, const char **why)
{
    int *host;
    eco_map *map = NULL;
    eco_tree *tree = NULL;
    tcache *c;
    int rc;

    for (int i = 0; i < NCACHE; i++)
        if (cache[i].tree && cache[i].n == n &&
            memcmp(cache[i].tids, tids, (size_t)n * sizeof *tids) == 0)
            return cache[i].tree;
    host = malloc((size_t)n * sizeof *host);
    if (!host) {
        *why = eco_strerror(ECO_ERR_NOMEM);
        return NULL;
    }
    rc = ecopvm_member_hosts(n, tids, &map, host);
    if (rc == ECO_OK)
        rc = eco_tree_build(map, n, host, 0, &tree);
    eco_map_free(map);
    free(host);
    if (rc != ECO_OK) {
        *why = rc == ECO_ERR_NOTFOUND ? "a member's host is unknown" : eco_strerror(rc);
        return NULL;
    }
    c = &cache[cache_next];
    cache_next = (cache_next + 1) % NCACHE;
    eco_tree_free(&c->tree);
    free(c->tids);
    c->tids = malloc((size_t)n * sizeof *tids);
    if (!c->tids) {
        eco_tree_free(&tree);
        *why = eco_strerror(ECO_ERR_NOMEM);
        return NULL;
    }
    memcpy(c->tids, tids, (size_t)n * sizeof *tids);
    c->n = n;
    c->tree = tree;
    return tree;
}

/* ------------------------------------------------------------------ */
/* pvm_bcast                                                           */
/* ------------------------------------------------------------------ */

/* Pack HDR for member m's subtree (in preorder, m first). */
static int pack_header(const eco_tree *t, const int *tids, const unsigned *seq,
                       const int *flags, int m, int tag, int ctx)
{
    ecoi_subtree_walk w;
    int head[6], rc = 0, v, size;

    head[0] = HDR_MAGIC;
    head[1] = HDR_VERSION;
    head[2] = tids[0];
    head[3] = tag;
    head[4] = ctx;
    head[5] = ecoi_subtree_begin(&w, t, m);
    if (head[5] < 1)
        return -1;
    rc |= pvm_pkint(head, 6, 1);
    while (ecoi_subtree_next(&w, &v, &size)) {
        int e[4] = { tids[v], size, (int)seq[v], flags[v] };
        rc |= pvm_pkint(e, 4, 1);
    }
    return rc < 0 ? -1 : 0;
}

/* Send PAY (the caller's buffer) then HDR to each child of the root. */
static int send_tree(const eco_tree *t, const int *tids, const unsigned *seq,
                     const int *flags, int tag, int appctx)
{
    const int *kids = eco_tree_children(t, 0);
    int nk = eco_tree_nchildren(t, 0), sbuf, old, rc = PvmOk;

    old = pvm_setcontext(ECOPVM_CTX);
    sbuf = pvm_getsbuf();
    for (int i = 0; i < nk && rc >= 0; i++) {
        int bid;
        pvm_setsbuf(sbuf);
        rc = REAL(pvm_send)(tids[kids[i]], ECOPVM_TAG_PAY);
        if (rc < 0)
            break;
        bid = pvm_mkbuf(PvmDataDefault);
        pvm_setsbuf(bid);
        rc = pack_header(t, tids, seq, flags, kids[i], tag, appctx);
        if (rc >= 0)
            rc = REAL(pvm_send)(tids[kids[i]], ECOPVM_TAG_HDR);
        pvm_setsbuf(sbuf);
        pvm_freebuf(bid);
    }
    pvm_setsbuf(sbuf);
    pvm_setcontext(old);
    return rc < 0 ? rc : PvmOk;
}

/* The tree broadcast itself; members[0] is the caller. */
static int tree_bcast(const eco_tree *t, int n, const int *members, int tag)
{
    unsigned *seq = calloc((size_t)n, sizeof *seq);
    int *flags = calloc((size_t)n, sizeof *flags), rc;

    if (!seq || !flags) {
        free(seq);
        free(flags);
        return PvmNoMem;
    }
    for (int m = 1; m < n; m++) {
        dest *d = find_dest(members[m], 1);
        if (!d) {
            free(seq);
            free(flags);
            return PvmNoMem;
        }
        seq[m] = ++d->out;
        flags[m] = eco_tree_parent(t, m) == 0 ? FLAG_DIRECT : (d->dirty ? FLAG_NEEDMARK : 0);
    }
    rc = send_tree(t, members, seq, flags, tag, pvm_getcontext());
    for (int m = 1; m < n && rc >= 0; m++) {
        dest *d = find_dest(members[m], 0);
        if (flags[m] & FLAG_NEEDMARK)
            send_mark(d, seq[m], pvm_getcontext());
        if (flags[m] & (FLAG_NEEDMARK | FLAG_DIRECT))
            d->fenced = seq[m];
        d->dirty = 0;
    }
    free(seq);
    free(flags);
    return rc;
}

/* PVM's own broadcast, with the layer's order kept (fences first). */
static int fallback(char *group, int tag, int n, const int *members)
{
    int rc;

    for (int m = 1; m < n; m++)
        ecopvm_fence(members[m]);
    rc = REAL(pvm_bcast)(group, tag);
    if (rc >= 0)
        for (int m = 1; m < n; m++)
            ecopvm_sent(members[m]);
    return rc;
}

/* The caller first, then the other members; NULL reason when usable. */
static const char *recipients(char *group, int tag, int *n, int **members)
{
    int nt, *t, me = pvm_mytid(), k = 1, bytes = 0, mtag, mtid;
    int sbuf = pvm_getsbuf();

    *n = 0;
    *members = NULL;
    if (ecopvm_tidlist(group, 0, &nt, &t) != PvmOk)
        return "no member list";
    *members = malloc(((size_t)nt + 1) * sizeof **members);
    if (!*members) {
        free(t);
        return "out of memory";
    }
    (*members)[0] = me;
    for (int i = 0; i < nt; i++)
        if (t[i] != me)
            (*members)[k++] = t[i];
    free(t);
    *n = k;
    if (!ecopvm.bcast)
        return "ECO_PVM_BCAST=0";
    if (tag < 0)
        return "bad argument";
    if (k < 2)
        return "no other member";
    if (sbuf <= 0 || pvm_bufinfo(sbuf, &bytes, &mtag, &mtid) < 0)
        return "no send buffer";
    if (bytes < ecopvm.bcast_min)
        return "message below ECO_PVM_BCAST_MIN";
    return NULL;
}

int ECOPVM_API(pvm_bcast)(char *group, int tag)
{
    const eco_tree *t = NULL;
    const char *why;
    int n, *members, rc;

    if (!ecopvm_on() || ecopvm.depth)
        return REAL(pvm_bcast)(group, tag);
    ecopvm_pump();
    ecopvm.depth++;
    why = recipients(group, tag, &n, &members);
    if (!why)
        t = tree_for(n, members, &why);
    if (t) {
        ecopvm_log("pvm_bcast", group, "root=t%x", members[0], "eco tree", NULL);
        rc = tree_bcast(t, n, members, tag);
        ecopvm_count.sent++;
    } else {
        ecopvm_log("pvm_bcast", group, "root=t%x", pvm_mytid(), "pvm fallback", why);
        rc = fallback(group, tag, n, members);
    }
    ecopvm.depth--;
    free(members);
    return rc;
}
