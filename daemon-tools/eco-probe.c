/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * eco-probe -- the probe task of eco-characterize(1) and ecod(8).
 *
 * Spawned by the master through PVM, one per host; never run by hand.
 * It answers commands from its parent (characterize.h, "protocol"):
 *
 *   PING peer size rounds trials   time `trials` samples of `rounds` round
 *                                  trips of `size` bytes with the peer
 *                                  probe; reply the one-way times
 *   BCAST n tids size reps warm F  eco_init over the n probes (rank 0
 *                                  reads subnet file text F) and time
 *                                  `reps` broadcasts of `size` bytes:
 *                                  root start to the last acknowledgement
 *   STREAM peer size count         send count messages of size bytes to
 *                                  the peer probe, then an end mark; reply
 *                                  the time until the peer acknowledges
 *                                  the end (the cost model's shared links)
 *   STEPS next prev size count     on the master's word, count lock-step
 *                                  steps: send one message of size bytes
 *                                  to the next probe, then wait for the
 *                                  previous one's; reply the time from
 *                                  the first send to the last receive
 *                                  (every probe of a ring at once: the
 *                                  cost model's step)
 *   RELAY via to size rounds trials
 *                                  time `trials` samples of `rounds` round
 *                                  trips of `size` bytes through the via
 *                                  probe, which passes them on to the `to`
 *                                  probe, which echoes them back; reply
 *                                  the round trips' times (the cost
 *                                  model's forward)
 *   HOPS_OPEN                      open a UDP socket; reply its port
 *   HOPS n self hosts ports nonces send datagrams to every other probe's
 *                                  socket, read the TTL of those that
 *                                  arrive from it with the pair's nonce
 *                                  after the command; reply the hops
 *                                  from each
 *   QUIT                           leave PVM and exit
 *
 * and echoes ECHO messages of other probes back to their sender, unread;
 * passes a RELAY on to the probe it names, unpacked and packed again
 * (what a collective's middle member does), and echoes a RELAYED one to
 * the probe it started from (RELAY_BACK); drops SINK messages and
 * acknowledges SINK_END (a stream's end).  A relay's messages are XDR
 * (PvmDataDefault) like every other message with ids: a probe of another
 * byte order reads them right.  They carry the origin's sequence number
 * of the relay: an echo that comes after its relay gave up (a slow or
 * broken middle member) is dropped, never taken for a later one's.  A
 * STEP is neither: it stays in PVM's queue until the step that waits
 * for it (step_match), though it arrive during another wait.
 * Direct task-to-task routing.  It exits when its parent does.
 *
 * For tests only, ECO_PROBE_TEST_FAULT (passed through PVM_EXPORT) makes
 * it a broken relay member: "relay-drop" drops RELAY messages (a build
 * before RELAY), "relay-stale" passes them on with another sequence
 * number (an echo that is not this relay's), "relay-nan" answers its
 * own RELAY command with times that are not numbers.  "slow-first:N"
 * plants the split a busy machine makes (campus24 at load 7): the first
 * N samples a probe takes with each peer (PING's, the warm-up round trip
 * not counted) are each SLOW_FIRST_MS late, but the second one between
 * the master's first two probes (their pass 1 with all pairs, their
 * second sample in the cheap mode): that pair keeps one quiet sample
 * and so the floor, every other pair's minimum is far above it, and
 * their medians as far (slow_first).
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "config.h"

#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <pvm3.h>

#include "characterize.h"

#define PROG "eco-probe"

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char *fault = ""; /* ECO_PROBE_TEST_FAULT: tests only */

/* 100 ms: 12.5 ms one way over 4 round trips.  At 30 ms (3.75 ms) the
 * quiet sample itself took 3.0 ms one way at load 14 (a CI run beside
 * two builds), too close to the late ones for any split. */
#define SLOW_FIRST_MS 100

/* The rank of tid among the master's children (its probes, spawned in
 * the order of its hosts: a pvmd gives its tasks rising ids), -1 when
 * not one. */
static int probe_rank(int master, int tid)
{
    struct pvmtaskinfo *ti = NULL;
    int nt = 0, rank = 0, found = 0;

    if (pvm_tasks(0, &nt, &ti) < 0)
        return -1;
    for (int i = 0; i < nt; i++)
        if (ti[i].ti_ptid == master) {
            rank += ti[i].ti_tid < tid;
            found |= ti[i].ti_tid == tid;
        }
    return found ? rank : -1;
}

/* "slow-first:N": is the next sample with peer one to make late?  (A
 * test's few probes: peers beyond the first 64 are never late.) */
static int slow_first(int master, int peer)
{
    static int tids[64], taken[64], known;
    int n = 0, i = 0, me, other;

    if (strncmp(fault, "slow-first:", 11) != 0 || (n = atoi(fault + 11)) <= 0)
        return 0;
    while (i < known && tids[i] != peer)
        i++;
    if (i == known) {
        if (known == 64)
            return 0;
        tids[known++] = peer;
    }
    if (++taken[i] > n)
        return 0;
    if (taken[i] != 2)
        return 1;
    me = probe_rank(master, pvm_mytid());
    other = probe_rank(master, peer);
    return !(me >= 0 && other >= 0 && me + other == 1);
}

/* Send the received message back to `to` with tag, unchanged (an ECHO
 * as ECHO_BACK, a RELAYED one as RELAY_BACK): the received buffer
 * becomes the send buffer; the previous send buffer is freed. */
static void echo(int to, int tag)
{
    int old = pvm_setsbuf(pvm_getrbuf());

    if (old > 0)
        pvm_freebuf(old);
    pvm_send(to, tag);
}

/* A relay message's head: next tid, origin tid, sequence, data length. */
enum { RELAY_NEXT, RELAY_ORIGIN, RELAY_SEQ, RELAY_LEN, RELAY_HEAD };

/* Pack a relay message into a new XDR send buffer (the caller's is
 * kept, not freed): its id, or -1. */
static int relay_message(const int *head, const char *data)
{
    int sb = pvm_mkbuf(PvmDataDefault), keep;

    if (sb < 0)
        return -1;
    keep = pvm_setsbuf(sb);
    if (pvm_pkint((int *)head, RELAY_HEAD, 1) < 0 ||
        pvm_pkbyte((char *)data, head[RELAY_LEN], 1) < 0) {
        pvm_freebuf(sb);
        sb = -1;
    }
    pvm_setsbuf(keep > 0 ? keep : 0);
    return sb;
}

/* A RELAY (relay_message) in the receive buffer: its data unpacked,
 * packed again into a message of its own and sent on to next as
 * RELAYED, as a collective's middle member takes a message in and
 * passes it on.  The caller's send buffer is kept. */
static void relay_on(void)
{
    int head[RELAY_HEAD] = { 0 }, sb = -1;
    char *data = NULL;

    if (strcmp(fault, "relay-drop") == 0)
        return; /* as a probe that does not know RELAY */
    if (pvm_upkint(head, RELAY_HEAD, 1) < 0 || head[RELAY_NEXT] <= 0 ||
        head[RELAY_LEN] < 0 || head[RELAY_LEN] > ECOC_MAX_STRING)
        return; /* not one of ours: the relay's origin gives up */
    if ((data = malloc((size_t)head[RELAY_LEN] + 1)) &&
        pvm_upkbyte(data, head[RELAY_LEN], 1) >= 0) {
        if (strcmp(fault, "relay-stale") == 0)
            head[RELAY_SEQ]--;
        sb = relay_message(head, data);
    }
    if (sb > 0) {
        int keep = pvm_setsbuf(sb);
        pvm_send(head[RELAY_NEXT], ECOC_TAG_RELAYED);
        pvm_setsbuf(keep > 0 ? keep : 0);
        pvm_freebuf(sb);
    }
    free(data);
}

/* A RELAYED message: echoed to its origin as RELAY_BACK. */
static void relay_back(void)
{
    int head[RELAY_HEAD] = { 0 };

    if (pvm_upkint(head, RELAY_HEAD, 1) >= 0 && head[RELAY_ORIGIN] > 0)
        echo(head[RELAY_ORIGIN], ECOC_TAG_RELAY_BACK);
}

static void reply(int master, int status, const double *v, int nv)
{
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&status, 1, 1);
    if (status == 0 && nv > 0)
        pvm_pkdouble((double *)v, nv, 1);
    pvm_send(master, ECOC_TAG_RESULT);
}

static void reply_ints(int master, int status, const int *v, int nv)
{
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&status, 1, 1);
    if (status == 0 && nv > 0)
        pvm_pkint((int *)v, nv, 1);
    pvm_send(master, ECOC_TAG_RESULT);
}

/* Another probe's message that any wait serves: an ECHO is answered, a
 * RELAY passed on, a RELAYED one echoed to its origin, stream data
 * dropped, a stream's end acknowledged.  1 when it was one. */
static int serve_peer(int tag, int src)
{
    if (tag == ECOC_TAG_ECHO)
        echo(src, ECOC_TAG_ECHO_BACK);
    else if (tag == ECOC_TAG_RELAY)
        relay_on();
    else if (tag == ECOC_TAG_RELAYED)
        relay_back();
    else if (tag == ECOC_TAG_SINK_END) {
        pvm_initsend(PvmDataDefault);
        pvm_send(src, ECOC_TAG_SINK_ACK);
    } else if (tag != ECOC_TAG_SINK)
        return 0;
    return 1;
}

/* Is the message just received (tag t from src) the one awaited: tag
 * from peer and, with seq >= 0, a relay's echo of that sequence? */
static int awaited(int t, int src, int peer, int tag, int seq)
{
    int head[RELAY_HEAD];

    if (t != tag || src != peer)
        return 0;
    return seq < 0 || (pvm_upkint(head, RELAY_HEAD, 1) >= 0 && head[RELAY_SEQ] == seq &&
                       head[RELAY_ORIGIN] == pvm_mytid());
}

/* Wait for tag from peer (with seq >= 0: the relay echo of that
 * sequence; any other is dropped), serving the other probes meanwhile:
 * in the round with every probe busy (ECOC_CMD_STREAM on every host at
 * once) each probe streams to the next host while the previous one
 * streams to it, and a ring of probes each waiting on its own peer
 * alone would wait forever.  The caller's send buffer is kept.  0; -1:
 * the daemon or the master is gone; ECOC_RELAY_LATE: not within wait
 * seconds (wait > 0). */
static int await_match(int peer, int tag, int seq, double wait)
{
    int keep = pvm_setsbuf(0), cur, rc = -1;
    double until = now() + wait;

    for (;;) {
        int bid, bytes, t, src;
        if (wait > 0.0) {
            double left = until - now();
            struct timeval tv = { 0, 0 };
            if (left > 0.0) {
                tv.tv_sec = (long)left;
                tv.tv_usec = (long)((left - (double)tv.tv_sec) * 1e6);
            }
            if ((bid = pvm_trecv(-1, -1, &tv)) == 0) {
                rc = ECOC_RELAY_LATE;
                break;
            }
        } else
            bid = pvm_recv(-1, -1);
        if (bid < 0)
            break;
        pvm_bufinfo(bid, &bytes, &t, &src);
        if (awaited(t, src, peer, tag, seq)) {
            rc = 0;
            break;
        }
        if (t == ECOC_TAG_PARENT_GONE)
            break;
        (void)serve_peer(t, src); /* nothing else comes while streams run */
    }
    cur = pvm_setsbuf(keep > 0 ? keep : 0);
    if (cur > 0 && cur != keep)
        pvm_freebuf(cur);
    return rc;
}

static int await_peer(int peer, int tag)
{
    return await_match(peer, tag, -1, 0.0);
}

/* One round trip with the peer; 0 or -1.  (The pings' own: nothing else
 * is measured at the same time, and the wait stays the plain one.) */
static int round_trip(int peer)
{
    int bid;

    if (pvm_send(peer, ECOC_TAG_ECHO) < 0)
        return -1;
    if ((bid = pvm_recv(peer, ECOC_TAG_ECHO_BACK)) < 0)
        return -1;
    pvm_freebuf(bid);
    return 0;
}

static void do_ping(int master)
{
    int peer = 0, size = 0, rounds = 0, trials = 0, status = 0, sb, old;
    double *t = NULL;
    char *data = NULL;

    pvm_upkint(&peer, 1, 1);
    pvm_upkint(&size, 1, 1);
    pvm_upkint(&rounds, 1, 1);
    pvm_upkint(&trials, 1, 1);
    t = malloc(((size_t)trials + 1) * sizeof *t);
    data = calloc((size_t)size + 1, 1);
    sb = pvm_mkbuf(PvmDataRaw);
    if (!t || !data || sb < 0 || peer <= 0 || size < 1 || rounds < 1 || trials < 1) {
        reply(master, -1, NULL, 0);
        free(t);
        free(data);
        return;
    }
    old = pvm_setsbuf(sb);
    if (old > 0)
        pvm_freebuf(old);
    pvm_pkbyte(data, size, 1);
    status = round_trip(peer); /* warm up: connect the direct route */
    for (int i = 0; i < trials && status == 0; i++) {
        double t0 = now();
        if (slow_first(master, peer))
            nanosleep(&(struct timespec){ 0, SLOW_FIRST_MS * 1000000L }, NULL);
        for (int r = 0; r < rounds && status == 0; r++)
            status = round_trip(peer);
        t[i] = (now() - t0) / (2.0 * rounds);
    }
    reply(master, status, t, trials);
    free(t);
    free(data);
}

/* Wait for the master's GO (answering echoes meanwhile): 0, or -1 when
 * the master is gone. */
static int wait_go(int master)
{
    for (;;) {
        int bid = pvm_recv(-1, -1), bytes, tag, src;
        if (bid < 0)
            return -1;
        pvm_bufinfo(bid, &bytes, &tag, &src);
        if (tag == ECOC_TAG_GO && src == master)
            return 0;
        if (tag == ECOC_TAG_PARENT_GONE)
            return -1;
        (void)serve_peer(tag, src); /* a stream that started first */
    }
}

static double since(double t0);

/* RELAY: `trials` samples of `rounds` round trips through via to `to`
 * and back, each a relay message (to, this probe, this relay's sequence
 * number, size zero bytes); after one untimed, which connects the three
 * direct routes.  Replies the seconds per round trip of each sample, or
 * ECOC_RELAY_LATE when an echo did not come within the wait. */
static void do_relay(int master)
{
    static int sequence; /* of this probe's relays */
    int a[6] = { 0, 0, 0, 0, 0, ECOC_RELAY_WAIT_MS }, status = 0, sb = -1, old;
    int head[RELAY_HEAD], via, to, size, rounds, trials;
    double *t = NULL, wait;
    char *data = NULL;

    pvm_upkint(a, 5, 1); /* via, to, size, rounds, trials */
    pvm_upkint(&a[5], 1, 1); /* the wait (ms), unless an older master */
    via = a[0];
    to = a[1];
    size = a[2];
    rounds = a[3];
    trials = a[4];
    wait = a[5] > 0 ? a[5] / 1000.0 : ECOC_RELAY_WAIT_MS / 1000.0;
    head[RELAY_NEXT] = to;
    head[RELAY_ORIGIN] = pvm_mytid();
    head[RELAY_SEQ] = ++sequence;
    head[RELAY_LEN] = size;
    if (via > 0 && to > 0 && size >= 1 && size <= ECOC_MAX_STRING && rounds >= 1 &&
        trials >= 1 && trials <= 1 << 20) {
        t = malloc((size_t)trials * sizeof *t);
        data = calloc((size_t)size, 1);
        sb = t && data ? relay_message(head, data) : -1;
    }
    if (sb < 0) {
        reply(master, -1, NULL, 0);
        goto out;
    }
    old = pvm_setsbuf(sb);
    if (old > 0)
        pvm_freebuf(old);
    for (int i = -1; i < trials && status == 0; i++) { /* -1: the untimed one */
        double t0 = now();
        for (int r = 0; r < (i < 0 ? 1 : rounds) && status == 0; r++)
            status = pvm_send(via, ECOC_TAG_RELAY) < 0
                ? -1 : await_match(to, ECOC_TAG_RELAY_BACK, head[RELAY_SEQ], wait);
        if (i >= 0)
            t[i] = strcmp(fault, "relay-nan") == 0 ? NAN : since(t0) / rounds;
    }
    reply(master, status, t, trials);
out:
    free(t);
    free(data);
}

/* A raw message of size zero bytes, not yet the send buffer: its id, or
 * -1. */
static int data_message(int size)
{
    char *data = calloc((size_t)size, 1);
    int sb = data ? pvm_mkbuf(PvmDataRaw) : -1;

    if (sb > 0) {
        int old = pvm_setsbuf(sb);
        pvm_pkbyte(data, size, 1);
        pvm_setsbuf(old > 0 ? old : 0);
    }
    free(data);
    return sb > 0 ? sb : -1;
}

/* Seconds since t0, at least 1 ns. */
static double since(double t0)
{
    double t = now() - t0;

    return t > 0.0 ? t : 1e-9;
}

/* Before a run timed together with the other probes' (STREAM, STEPS):
 * connect the direct route to peer, untimed (it may be connecting its
 * own meanwhile), reply "ready" to the master and wait for its GO.  0:
 * go, with sb (data_message) the send buffer; -1: the route failed, the
 * master was told, sb is freed.  The master gone, the probe exits. */
static int ready_go(int master, int peer, int sb)
{
    int status, old;

    pvm_initsend(PvmDataDefault);
    status = pvm_send(peer, ECOC_TAG_ECHO) < 0 ? -1 : await_peer(peer, ECOC_TAG_ECHO_BACK);
    reply(master, status, NULL, 0); /* ready, or not */
    if (status != 0) {
        pvm_freebuf(sb);
        return -1;
    }
    if (wait_go(master) != 0) {
        pvm_exit();
        exit(0); /* the master is gone */
    }
    old = pvm_setsbuf(sb);
    if (old > 0)
        pvm_freebuf(old);
    return 0;
}

/* STREAM: one stream of count messages to the peer, timed from the first
 * send to the peer's acknowledgement of the end mark (after all of it,
 * PVM keeping the order between two tasks).  The route is connected
 * first, untimed; then "ready" to the master, and the stream starts on
 * its GO. */
static void do_stream(int master)
{
    int peer = 0, size = 0, count = 0, status = 0, sb = -1;
    double t, t0;

    pvm_upkint(&peer, 1, 1);
    pvm_upkint(&size, 1, 1);
    pvm_upkint(&count, 1, 1);
    if (peer <= 0 || size < 1 || count < 1 || count > 1 << 20 ||
        (sb = data_message(size)) < 0) {
        reply(master, -1, NULL, 0);
        return;
    }
    if (ready_go(master, peer, sb) != 0)
        return;
    t0 = now();
    for (int i = 0; i < count && status == 0; i++)
        status = pvm_send(peer, ECOC_TAG_SINK) < 0 ? -1 : 0;
    pvm_initsend(PvmDataDefault);
    if (status == 0 && pvm_send(peer, ECOC_TAG_SINK_END) < 0)
        status = -1;
    if (status == 0)
        status = await_peer(peer, ECOC_TAG_SINK_ACK); /* serving our own sender */
    t = since(t0);
    reply(master, status, &t, 1);
}

/* The probe whose STEP messages a receive may take now, 0 while none
 * may: the previous probe of a ring can start its steps (its GO) while
 * this one still waits for its own GO, and that first STEP must wait for
 * this probe's first step, not be taken by wait_go and dropped.  PVM
 * keeps a message that no receive matches in its queue: step_match,
 * PVM's matching function during STEPS (pvm_recvf), matches no other
 * probe's STEP. */
static int step_src;
static int (*plain_match)(int, int, int);

static int step_match(int bid, int tid, int tag)
{
    int bytes, t = -1, src = -1;

    if (pvm_bufinfo(bid, &bytes, &t, &src) >= 0 && t == ECOC_TAG_STEP && src != step_src)
        return 0; /* left in the queue */
    if (plain_match)
        return plain_match(bid, tid, tag);
    /* a libpvm whose pvm_recvf gives 0 for its default: the default's
     * rule but for contexts, which the probes' own messages share */
    return (tid == -1 || tid == src) && (tag == -1 ? t >= 0 : tag == t);
}

/* STEPS: count lock-step steps of a ring, each one message of size bytes
 * to next, then the wait for prev's (serving the other probes meanwhile,
 * as every wait does), timed from the first send to the last receive.
 * Connected, "ready" and GO as STREAM. */
static void do_steps(int master)
{
    int next = 0, prev = 0, size = 0, count = 0, status = 0, sb = -1;
    double t, t0;

    pvm_upkint(&next, 1, 1);
    pvm_upkint(&prev, 1, 1);
    pvm_upkint(&size, 1, 1);
    pvm_upkint(&count, 1, 1);
    if (next <= 0 || prev <= 0 || size < 1 || count < 1 || count > 1 << 20 ||
        (sb = data_message(size)) < 0) {
        reply(master, -1, NULL, 0);
        return;
    }
    step_src = 0;
    /* (pvm3.h declares the old function's type wrong) */
    plain_match = (int (*)(int, int, int))(void (*)(void))pvm_recvf(step_match);
    if (ready_go(master, next, sb) == 0) {
        step_src = prev;
        t0 = now();
        for (int i = 0; i < count && status == 0; i++) {
            status = pvm_send(next, ECOC_TAG_STEP) < 0 ? -1 : 0;
            if (status == 0)
                status = await_peer(prev, ECOC_TAG_STEP);
        }
        t = since(t0);
        step_src = 0;
        reply(master, status, &t, 1);
    }
    pvm_recvf(plain_match);
}

/* Write the subnet file text to a private temporary file: its path. */
static int temp_subnet_file(const char *text, char *path, size_t len)
{
    const char *dir = getenv("TMPDIR");
    FILE *f;
    int fd;

    snprintf(path, len, "%s/eco-probe-XXXXXX", dir && *dir ? dir : "/tmp");
    if ((fd = mkstemp(path)) < 0)
        return -1;
    if (!(f = fdopen(fd, "w"))) {
        close(fd);
        unlink(path);
        return -1;
    }
    fputs(text, f);
    if (fclose(f) != 0) {
        unlink(path);
        return -1;
    }
    return 0;
}

/* Broadcasts over ctx; at the root, reps times in t[]. */
static int time_bcasts(eco_ctx *ctx, const int *tids, int n, int size, int reps, int warm,
                       double *t)
{
    char *buf = calloc((size_t)size + 1, 1);
    int rc = buf ? ECO_OK : ECO_ERR_NOMEM, root = eco_rank(ctx) == 0;

    for (int i = 0; i < warm + reps && rc == ECO_OK; i++) {
        double t0 = now();
        rc = eco_bcast(ctx, buf, size, PVM_BYTE, 0);
        if (rc == ECO_OK && root) {
            for (int a = 1; a < n && rc == ECO_OK; a++) {
                int bid = pvm_recv(-1, ECOC_TAG_ACK);
                rc = bid > 0 ? ECO_OK : ECO_ERR_PVM;
                if (bid > 0)
                    pvm_freebuf(bid);
            }
            if (i >= warm)
                t[i - warm] = now() - t0;
        } else if (rc == ECO_OK) {
            pvm_initsend(PvmDataDefault);
            rc = pvm_send(tids[0], ECOC_TAG_ACK) < 0 ? ECO_ERR_PVM : ECO_OK;
        }
    }
    free(buf);
    return rc;
}

static void do_bcast(int master)
{
    int n = 0, size = 0, reps = 0, warm = 0, rc = ECO_ERR_ARG, *tids = NULL;
    char *text = NULL, path[4200] = "";
    double *t = NULL;
    eco_ctx *ctx = NULL;

    pvm_upkint(&n, 1, 1);
    if (n >= 1 && n <= 1 << 20 && (tids = malloc((size_t)n * sizeof *tids)) &&
        pvm_upkint(tids, n, 1) < 0) {
        free(tids); /* a short message */
        tids = NULL;
    }
    pvm_upkint(&size, 1, 1);
    pvm_upkint(&reps, 1, 1);
    pvm_upkint(&warm, 1, 1);
    text = ecoc_upkstr_new();
    if (tids && text && size >= 1 && reps >= 1 && warm >= 0 &&
        (t = calloc((size_t)reps, sizeof *t))) {
        rc = ECO_OK;
        if (tids[0] == pvm_mytid() && temp_subnet_file(text, path, sizeof path) != 0)
            rc = ECO_ERR_IO;
        if (rc == ECO_OK)
            rc = eco_init(path[0] ? path : NULL, n, tids, &ctx);
        if (path[0])
            unlink(path);
        if (rc == ECO_OK)
            rc = time_bcasts(ctx, tids, n, size, reps, warm, t);
        if (ctx)
            eco_finalize(ctx);
    }
    reply(master, rc, t, tids && tids[0] == pvm_mytid() ? reps : 0);
    free(tids);
    free(text);
    free(t);
}

/* ------------------------------------------------------------------ */
/* Hops: the TTL that datagrams from the other probes arrive with      */
/* ------------------------------------------------------------------ */

static int hops_fd = -1;

static void do_hops_open(int master)
{
    struct sockaddr_in a;
    socklen_t len = sizeof a;
    int on = 1, port;

    if (hops_fd < 0) {
        memset(&a, 0, sizeof a);
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_ANY);
        hops_fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (hops_fd >= 0 &&
            (setsockopt(hops_fd, IPPROTO_IP, IP_RECVTTL, &on, sizeof on) != 0 ||
             bind(hops_fd, (struct sockaddr *)&a, sizeof a) != 0)) {
            close(hops_fd);
            hops_fd = -1;
        }
    }
    if (hops_fd < 0 || getsockname(hops_fd, (struct sockaddr *)&a, &len) != 0) {
        reply_ints(master, -1, NULL, 0);
        return;
    }
    port = ntohs(a.sin_port);
    reply_ints(master, 0, &port, 1);
}

/* The IPv4 address of a host name, as this host resolves it: 0 or -1. */
static int address_of(const char *name, int port, struct sockaddr_in *to)
{
    struct addrinfo hints, *res = NULL;

    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_DGRAM;
    if (getaddrinfo(name, NULL, &hints, &res) != 0 || !res)
        return -1;
    memcpy(to, res->ai_addr, sizeof *to);
    to->sin_port = htons((unsigned short)port);
    freeaddrinfo(res);
    return 0;
}

/* Drop every datagram already queued: it came before the command, so it
 * is not of this round, whatever it carries. */
static void drain_hops(void)
{
    char junk[64];

    while (recv(hops_fd, junk, sizeof junk, MSG_DONTWAIT) >= 0)
        ;
}

/* One datagram to every other probe: the pair's nonce, our index. */
static void send_hops(const ecoc_hops_peer *peer, int n, int self)
{
    int ttl = ECOC_HOPS_TTL;

    setsockopt(hops_fd, IPPROTO_IP, IP_TTL, &ttl, sizeof ttl);
    for (int j = 0; j < n; j++)
        if (j != self && peer[j].ok) {
            uint32_t msg[ECOC_HOPS_WORDS];
            ecoc_hops_datagram(msg, peer[j].nonce, self);
            (void)sendto(hops_fd, msg, sizeof msg, 0, (const struct sockaddr *)&peer[j].addr,
                         sizeof peer[j].addr);
        }
}

/* Receive one datagram: the index of the probe that sent it in this
 * round (ecoc_hops_sender: size, magic, nonce, source address) and the
 * TTL it arrived with in *ttl; -1 for anything else. */
static int recv_hops(const ecoc_hops_peer *peer, int n, int self, int *ttl)
{
    uint32_t msg[ECOC_HOPS_WORDS + 1]; /* room for one more: a longer one is not ours */
    union { char buf[CMSG_SPACE(sizeof(int)) * 4]; struct cmsghdr align; } ctl;
    struct sockaddr_in src;
    struct iovec iov = { msg, sizeof msg };
    struct msghdr mh;
    struct cmsghdr *c;
    ssize_t got;

    memset(&mh, 0, sizeof mh);
    memset(&src, 0, sizeof src);
    mh.msg_name = &src;
    mh.msg_namelen = sizeof src;
    mh.msg_iov = &iov;
    mh.msg_iovlen = 1;
    mh.msg_control = ctl.buf;
    mh.msg_controllen = sizeof ctl.buf;
    if ((got = recvmsg(hops_fd, &mh, MSG_DONTWAIT)) < 0 || (mh.msg_flags & MSG_TRUNC) ||
        mh.msg_namelen != sizeof src)
        return -1;
    *ttl = -1;
    for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
        if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TTL)
            memcpy(ttl, CMSG_DATA(c), sizeof *ttl);
    return ecoc_hops_sender(msg, (size_t)got, &src, peer, n, self);
}

/* Read datagrams until the time is up (or, with all, until every other
 * probe has been heard): hops[j] from the TTL of probe j's datagrams,
 * the fewest seen; -1 while none. */
static void read_hops(const ecoc_hops_peer *peer, int n, int self, int *hops, double until,
                      int all)
{
    int heard = 0;

    for (int j = 0; j < n; j++)
        heard += j != self && hops[j] >= 0;
    while (!(all && heard >= n - 1) && now() < until) {
        struct pollfd p = { hops_fd, POLLIN, 0 };
        int ttl = -1, from;

        if (poll(&p, 1, (int)((until - now()) * 1000.0) + 1) <= 0)
            continue;
        if ((from = recv_hops(peer, n, self, &ttl)) < 0 || ttl < 0 || ttl > ECOC_HOPS_TTL)
            continue; /* not of this round, or no TTL */
        if (hops[from] < 0)
            heard++;
        if (hops[from] < 0 || ECOC_HOPS_TTL - ttl < hops[from])
            hops[from] = ECOC_HOPS_TTL - ttl;
    }
}

/* The rest of HOPS after n and self: every probe's name, port and the
 * nonce of our pair; peer[j].ok when j is another probe we can address.
 * 0, or -1 for a malformed command (a name too long among them). */
static int unpack_peers(ecoc_hops_peer *peer, int n, int self)
{
    char name[ECO_MAX_HOSTNAME + 1];

    for (int j = 0; j < n; j++) {
        unsigned int w[2] = { 0, 0 };
        int port = 0;
        if (ecoc_upkstr(name, sizeof name) != 0 || pvm_upkint(&port, 1, 1) < 0 ||
            pvm_upkuint(w, 2, 1) < 0)
            return -1;
        peer[j].nonce = (uint64_t)w[0] << 32 | w[1];
        peer[j].ok = j != self && port > 0 && port < 65536 &&
                     address_of(name, port, &peer[j].addr) == 0;
    }
    return 0;
}

static void do_hops(int master)
{
    int n = 0, self = -1, *hops = NULL;
    ecoc_hops_peer *peer = NULL;
    double until;

    if (hops_fd >= 0)
        drain_hops(); /* before the command: none of it counts */
    pvm_upkint(&n, 1, 1);
    pvm_upkint(&self, 1, 1);
    if (hops_fd < 0 || n < 1 || n > 1 << 20 || self < 0 || self >= n ||
        !(peer = calloc((size_t)n, sizeof *peer)) ||
        !(hops = malloc((size_t)n * sizeof *hops)) || unpack_peers(peer, n, self) != 0) {
        reply_ints(master, -1, NULL, 0);
        goto out;
    }
    for (int j = 0; j < n; j++)
        hops[j] = j == self ? 0 : -1;
    until = now() + ECOC_HOPS_WAIT;
    for (int c = 0; c < ECOC_HOPS_COPIES; c++) { /* spaced: a burst may be dropped */
        send_hops(peer, n, self);
        read_hops(peer, n, self, hops, now() + 0.05, 0);
    }
    read_hops(peer, n, self, hops, until, 1); /* the late ones */
    reply_ints(master, 0, hops, n);
out:
    free(peer);
    free(hops);
}

static int serve(int master)
{
    for (;;) {
        int bid = pvm_recv(-1, -1), bytes, tag, src, cmd = 0;

        if (bid < 0)
            return 1; /* the daemon is gone */
        pvm_bufinfo(bid, &bytes, &tag, &src);
        if (serve_peer(tag, src))
            continue; /* stream data is freed by the next receive */
        if (tag == ECOC_TAG_PARENT_GONE)
            return 0;
        if (tag != ECOC_TAG_CMD || src != master || pvm_upkint(&cmd, 1, 1) < 0)
            continue; /* not for us */
        if (cmd == ECOC_CMD_QUIT)
            return 0;
        if (cmd == ECOC_CMD_PING)
            do_ping(master);
        else if (cmd == ECOC_CMD_BCAST)
            do_bcast(master);
        else if (cmd == ECOC_CMD_HOPS_OPEN)
            do_hops_open(master);
        else if (cmd == ECOC_CMD_HOPS)
            do_hops(master);
        else if (cmd == ECOC_CMD_STREAM)
            do_stream(master);
        else if (cmd == ECOC_CMD_STEPS)
            do_steps(master);
        else if (cmd == ECOC_CMD_RELAY)
            do_relay(master);
        else
            reply(master, -1, NULL, 0);
    }
}

/* Which machine this probe runs on, for the hello (characterize.h): the
 * running kernel's boot id, "" when it cannot be read (not Linux).
 * Processes under one kernel share its CPUs, whatever their network
 * namespace or container (netbed's emulated hosts all have the machine's
 * boot id); another kernel draws another at random when it boots.
 * /etc/machine-id is not used: containers of one kernel may each have
 * their own, sharing the CPUs all the same, and cloned images share one
 * without sharing CPUs. */
static void machine_id(char *id, size_t cap)
{
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    size_t len;

    id[0] = '\0';
    if (!f)
        return;
    if (!fgets(id, (int)cap, f))
        id[0] = '\0';
    fclose(f);
    len = strcspn(id, " \t\r\n");
    id[len] = '\0';
}

/* The CPUs this probe may run on: its affinity's, else the online ones;
 * 0 when neither is known. */
static int cpu_count(void)
{
    cpu_set_t set;
    long n;

    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 && n < (1L << 20) ? (int)n : 0;
}

int main(int argc, char **argv)
{
    char host[256] = "", machine[ECOC_MACHINE_ID_MAX + 1];
    int master, rc, cpus;

    if (argc > 1 && strcmp(argv[1], "--version") == 0) {
        printf(PROG " (libeco) %s\n", PACKAGE_VERSION);
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "--help") == 0) {
        printf("Usage: " PROG "\n"
               "The probe task of eco-characterize(1) and ecod(8), which spawn it\n"
               "through PVM on every host they measure.  It is not run by hand.\n");
        return 0;
    }
    if (argc > 1) {
        fprintf(stderr, PROG ": unexpected argument '%s'\n"
                        "Try '" PROG " --help' for more information.\n", argv[1]);
        return 2;
    }
    pvm_setopt(PvmAutoErr, 0);
    if (pvm_mytid() < 0 || (master = pvm_parent()) <= 0) {
        fprintf(stderr, PROG ": not started through PVM by eco-characterize or ecod; "
                        "it is not run by hand\n");
        if (pvm_mytid() >= 0)
            pvm_exit();
        return 2;
    }
    if (getenv("ECO_PROBE_TEST_FAULT"))
        fault = getenv("ECO_PROBE_TEST_FAULT");
    pvm_setopt(PvmRoute, PvmRouteDirect);
    pvm_notify(PvmTaskExit, ECOC_TAG_PARENT_GONE, 1, &master);
    gethostname(host, sizeof host - 1);
    machine_id(machine, sizeof machine);
    cpus = cpu_count();
    pvm_initsend(PvmDataDefault);
    ecoc_pkstr(host);
    ecoc_pkstr(machine);
    pvm_pkint(&cpus, 1, 1);
    pvm_send(master, ECOC_TAG_HELLO);
    rc = serve(master);
    pvm_exit();
    return rc;
}
