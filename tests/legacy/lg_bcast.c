/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lg_bcast.c -- a legacy PVM program: pvm_bcast is one-sided.  The
 * senders call pvm_bcast; the members receive with pvm_recv, pvm_trecv,
 * pvm_nrecv, pvm_probe and pvm_precv, by the sender's tid or -1, and look
 * at pvm_bufinfo.  Point-to-point messages on the same tags, from the
 * same sender before and after a broadcast and from other tasks, must
 * keep PVM's order.  The workers end every phase with a barrier of "w",
 * so that no phase's messages race with the next one's.
 *
 *   "w"    the workers (the master is not a member: it only sends)
 *   "all"  the master and the workers
 */
#include <sys/time.h>
#include "lg_common.h"

#define BIG 32768            /* doubles: 256 KB */

/* A name for a tid that does not change from run to run. */
static const char *who(int tid)
{
    static char buf[8][32];
    static int k;
    int w = lg_worker_index(tid);

    k = (k + 1) % 8;
    if (tid == pvm_parent() || (lg_is_master && tid == pvm_mytid()))
        snprintf(buf[k], sizeof buf[k], "master");
    else if (w >= 0)
        snprintf(buf[k], sizeof buf[k], "worker%d", w);
    else
        snprintf(buf[k], sizeof buf[k], "t?");
    return buf[k];
}

static void send_ints(int tid, int tag, int a, int b, int enc)
{
    int v[2] = { a, b };

    pvm_initsend(enc);
    pvm_pkint(v, 2, 1);
    pvm_send(tid, tag);
}

static void bcast_ints(const char *group, int tag, int a, int b, int enc)
{
    int v[2] = { a, b }, rc;

    pvm_initsend(enc);
    pvm_pkint(v, 2, 1);
    rc = pvm_bcast((char *)group, tag);
    if (rc < 0)
        lg_line("bcast %s tag %d rc=%d", group, tag, rc);
}

/* Describe the active receive buffer bid: sender, tag, size, content,
 * and its place among this task's receives (the order is checked too). */
static void report(const char *phase, int me, int bid)
{
    static int nth;
    int bytes = -1, tag = -1, src = -1, v[2] = { -1, -1 };

    nth++;
    if (bid <= 0) {
        lg_line("%s: %s got bid %d", phase, who(me), bid);
        return;
    }
    pvm_bufinfo(bid, &bytes, &tag, &src);
    pvm_upkint(v, 2, 1);
    lg_line("%s: %s receive %02d: tag %d from %s, %d bytes: %d %d", phase, who(me), nth,
            tag, who(src), bytes, v[0], v[1]);
}

/* Compute for ms milliseconds without any PVM call. */
static void busy(int ms)
{
    struct timeval t0, t1;

    gettimeofday(&t0, NULL);
    do
        gettimeofday(&t1, NULL);
    while ((t1.tv_sec - t0.tv_sec) * 1000000 + (t1.tv_usec - t0.tv_usec) < ms * 1000L);
}

/* ------------------------------------------------------------------ */

static void master(void)
{
    int me = pvm_mytid(), ctx, v[2] = { 77, 78 };
    double *big = malloc(BIG * sizeof *big);

    pvm_joingroup("all");
    lg_wait_size("w", lg_ntask);
    lg_wait_size("all", lg_ntask + 1);

    /* 1. A non-member sends; members receive by its tid. */
    bcast_ints("w", 10, 1, 100, PvmDataDefault);
    bcast_ints("w", 10, 2, 200, PvmDataRaw);
    lg_flush("1 non-member sender, pvm_recv(tid)");

    /* 2. Same tag, point-to-point before and after the broadcast. */
    for (int i = 0; i < lg_ntask; i++)
        send_ints(lg_tids[i], 11, 0, -1, PvmDataDefault);
    bcast_ints("w", 11, 1, 1000, PvmDataDefault);
    for (int i = 0; i < lg_ntask; i++)
        send_ints(lg_tids[i], 11, 2, -2, PvmDataDefault);
    bcast_ints("w", 11, 3, 3000, PvmDataDefault);
    lg_flush("2 same tag: p2p, bcast, p2p, bcast");

    /* 2b. The same while the workers (forwarders too) are busy: a point-
     * to-point message sent after a broadcast gets there first, and must
     * still be received after it. */
    for (int k = 0; k < 3; k++) {
        bcast_ints("w", 18, 2 * k, 1, PvmDataDefault);
        for (int i = 0; i < lg_ntask; i++)
            send_ints(lg_tids[i], 18, 2 * k + 1, 0, PvmDataDefault);
    }
    lg_flush("2b same tag, busy workers: bcast, p2p, ...");

    /* 3. Every kind of receive. */
    bcast_ints("w", 12, 12, 0, PvmDataDefault);
    bcast_ints("w", 13, 13, 0, PvmDataDefault);
    bcast_ints("w", 14, 14, 0, PvmDataDefault);
    pvm_initsend(PvmDataRaw);
    pvm_pkint(v, 2, 1);
    pvm_bcast("w", 15);
    for (int i = 0; i < BIG; i++)
        big[i] = i * 0.5;
    pvm_initsend(PvmDataDefault);
    pvm_pkdouble(big, BIG, 1);
    pvm_bcast("w", 16);
    bcast_ints("w", 17, 17, 0, PvmDataInPlace);
    lg_flush("3 trecv, nrecv, probe, precv, long, in place, wildcard");

    /* 4. A member sends to "all": the master receives too. */
    report("4 member sender", me, pvm_recv(-1, 20));
    lg_flush("4 member sender");

    /* 5. Two groups, interleaved. */
    for (int k = 0; k < 4; k++) {
        bcast_ints("w", 30, k, 30, PvmDataDefault);
        bcast_ints("all", 31, k, 31, PvmDataDefault);
    }
    lg_flush("5 two groups");

    /* 6. Another context: the same tag in both. */
    ctx = pvm_newcontext();
    for (int i = 0; i < lg_ntask; i++)
        send_ints(lg_tids[i], 40, ctx, 0, PvmDataDefault);
    bcast_ints("w", 41, 1, 0, PvmDataDefault);
    pvm_setcontext(ctx);
    bcast_ints("w", 41, 2, 0, PvmDataDefault);
    /* A point-to-point message in the new context right after the first
     * broadcast there: with busy forwarders it gets to a member before
     * the broadcast's header does, the first word of that context. */
    for (int i = 0; i < lg_ntask; i++)
        send_ints(lg_tids[i], 41, 3, 0, PvmDataDefault);
    pvm_setcontext(0);
    lg_flush("6 contexts");
    pvm_freecontext(ctx);

    /* 7. A worker that is busy (no PVM call) for a while. */
    bcast_ints("w", 50, 50, 0, PvmDataDefault);
    lg_flush("7 a busy worker");

    pvm_barrier("all", lg_ntask + 1);
    free(big);
}

static void worker(void)
{
    int me = pvm_mytid(), w = lg_worker_index(me), parent = pvm_parent();
    int next = lg_tids[(w + 1) % lg_ntask], prev = lg_tids[(w + lg_ntask - 1) % lg_ntask];
    int bid, bid2, buf[4], atid, atag, alen, ctx, bytes, tag, src;
    struct timeval tmo = { 20, 0 };
    double *big = malloc(BIG * sizeof *big), sum = 0;

    pvm_joingroup("w");
    pvm_joingroup("all");

    report("1 non-member sender, pvm_recv(tid)", me, pvm_recv(parent, 10));
    report("1 non-member sender, pvm_recv(tid)", me, pvm_recv(parent, 10));
    lg_flush("1");
    pvm_barrier("w", lg_ntask);
    /* The layer's barrier must leave PVM's routing as it was: a direct
     * link this worker opened to the master now would let the master's
     * next messages overtake those still on their way through the
     * daemons (PVM keeps a pair's order only on one route). */
    lg_line("2 routing: %s has %s PvmRoute after a barrier", who(me),
            pvm_getopt(PvmRoute) == lg_route ? "its own" : "another");

    /* Worker-to-worker traffic on the same tag, while the master sends. */
    send_ints(next, 11, 9, w, PvmDataDefault);
    for (int k = 0; k < 4; k++)
        report("2 same tag: p2p, bcast, p2p, bcast", me, pvm_recv(parent, 11));
    report("2 same tag: p2p, bcast, p2p, bcast (neighbour)", me, pvm_recv(prev, 11));
    lg_flush("2");
    pvm_barrier("w", lg_ntask);

    busy(w * 60 % 250);
    for (int k = 0; k < 6; k++)
        report("2b same tag, busy workers: bcast, p2p, ...", me, pvm_recv(parent, 18));
    lg_flush("2b");
    pvm_barrier("w", lg_ntask);

    report("3 trecv", me, pvm_trecv(-1, 12, &tmo));
    while ((bid = pvm_nrecv(-1, 13)) == 0)
        usleep(1000);
    report("3 nrecv", me, bid);
    while ((bid = pvm_probe(parent, 14)) == 0)
        usleep(1000);
    pvm_bufinfo(bid, &bytes, &tag, &src);
    lg_line("3 probe: %s sees tag %d from %s, %d bytes", who(me), tag, who(src), bytes);
    report("3 probe then recv", me, pvm_recv(parent, 14));
    memset(buf, 0, sizeof buf);
    bid = pvm_precv(parent, 15, buf, 4, PVM_INT, &atid, &atag, &alen);
    lg_line("3 precv: %s rc=%d from %s tag %d len %d: %d %d", who(me), bid, who(atid), atag,
            alen, buf[0], buf[1]);
    bid = pvm_recv(parent, 16);
    pvm_bufinfo(bid, &bytes, &tag, &src);
    pvm_upkdouble(big, BIG, 1);
    for (int i = 0; i < BIG; i++)
        sum += big[i] * (i % 5 + 1);
    lg_line("3 long: %s tag %d from %s, %d bytes, checksum %.17g", who(me), tag, who(src),
            bytes, sum);
    report("3 wildcard", me, pvm_recv(-1, -1));
    bid = pvm_nrecv(-1, -1);
    if (bid > 0)
        report("3 stray", me, bid);
    else
        lg_line("3 stray: %s nothing (%d)", who(me), bid);
    lg_flush("3");
    pvm_barrier("w", lg_ntask);

    /* Worker 0 sends to "all"; the others receive from it by tid. */
    if (w == 0)
        bcast_ints("all", 20, 20, 0, PvmDataDefault);
    else
        report("4 member sender", me, pvm_recv(lg_tids[0], 20));
    lg_flush("4");
    pvm_barrier("w", lg_ntask);

    for (int k = 0; k < 4; k++) {
        report("5 two groups", me, pvm_recv(parent, 31));
        report("5 two groups", me, pvm_recv(parent, 30));
    }
    lg_flush("5");
    pvm_barrier("w", lg_ntask);

    pvm_recv(parent, 40);
    pvm_upkint(&ctx, 1, 1);
    busy(w * 60 % 250);     /* forwarders late: headers after direct messages */
    pvm_setcontext(ctx);
    bid = pvm_recv(parent, 41);
    pvm_setrbuf(0);
    bid2 = pvm_recv(parent, 41);
    pvm_setrbuf(0);
    pvm_setcontext(0);      /* report() sends in the default context */
    pvm_setrbuf(bid);
    report("6 contexts: in the new one", me, bid);
    pvm_freebuf(pvm_setrbuf(bid2));
    report("6 contexts: in the new one, then", me, bid2);
    report("6 contexts: in the default one", me, pvm_recv(parent, 41));
    lg_flush("6");
    pvm_barrier("w", lg_ntask);

    /* Worker 0 computes for a while before its next PVM call: its subtree
     * waits for it (documented), nobody loses the message. */
    if (w == 0)
        busy(300);
    report("7 a busy worker", me, pvm_recv(parent, 50));
    lg_flush("7");

    pvm_barrier("all", lg_ntask + 1);
    free(big);
}

int main(int argc, char **argv)
{
    lg_start(argc, argv);
    if (lg_is_master)
        master();
    else
        worker();
    pvm_lvgroup("all");
    if (!lg_is_master)
        pvm_lvgroup("w");
    return lg_end();
}
