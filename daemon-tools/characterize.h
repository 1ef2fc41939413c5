/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * characterize.h -- private: the PVM half of the network characterization
 * shared by eco-characterize(1), ecod(8) and eco-probe, built once into
 * daemon-tools/libecochar.la.  Not installed; not libeco API.
 *
 *   characterize.c the PVM master: probes, pairs, the degree k
 *   protocol.c     bounded strings in messages, hops datagrams
 *   eco-probe.c    the probe task the master spawns on every host
 *
 * The pure half (options, hosts, the result, the matrix file, the cheap
 * mode, the commit) is in lib/ (eco_char.h, in libecocore).
 */
#ifndef ECO_CHARACTERIZE_H
#define ECO_CHARACTERIZE_H

#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "eco_char.h"

/* Set by the tools' signal handlers: the number of the signal that asks
 * the measurement to stop, 0 while none has.  Checked at least every
 * 100 ms while measuring. */
extern volatile sig_atomic_t ecoc_stop;

/* ------------------------------------------------------------------ */
/* The PVM master (characterize.c)                                     */
/* ------------------------------------------------------------------ */

/* Log hook: the tools print progress and notes their own way. */
typedef void (*ecoc_note_fn)(void *arg, const char *fmt, ...);

/*
 * Characterize the virtual machine the caller is enrolled in (pvm_mytid
 * done): resolve the hosts, spawn one probe per host, measure, partition,
 * choose k, stop the probes.  On success *r holds the result (free with
 * ecoc_result_free).  On failure err says what happened and, for
 * ECOC_INTERRUPTED, ecoc_stop holds the signal.  Nothing is written.
 */
int ecoc_characterize(const ecoc_options *o, ecoc_result *r, char *err, size_t errlen);

/* Enroll in PVM (pvm_mytid) without libpvm's noise when there is no
 * daemon: 0, or ECOC_NOSTART with a message in why. */
int ecoc_enroll(char *why, size_t len);

/* Where the probe program is: o->probe, else the sibling of the running
 * program, else ECO_PKGLIBEXECDIR/eco-probe.  0, or -1 with why. */
int ecoc_find_probe(const char *given, char *path, size_t len, char *why, size_t wlen);

/* ------------------------------------------------------------------ */
/* The master-probe protocol (characterize.c and eco-probe.c)          */
/* ------------------------------------------------------------------ */
#define ECOC_TAG_BASE 0x45430000
enum {
    ECOC_TAG_HELLO = ECOC_TAG_BASE + 1, /* probe -> master: started: its
                                         * host name, its machine's id
                                         * ("": not known) and its CPUs
                                         * (int, 0: not known); a probe
                                         * of a build before the machine
                                         * sends the name alone */
    ECOC_TAG_CMD,                       /* master -> probe: a command */
    ECOC_TAG_RESULT,                    /* probe -> master: its outcome */
    ECOC_TAG_ECHO,                      /* probe -> probe: please echo */
    ECOC_TAG_ECHO_BACK,                 /* probe -> probe: the echo */
    ECOC_TAG_ACK,                       /* probe -> root probe: got it */
    ECOC_TAG_PARENT_GONE,               /* at a probe: the master exited */
    ECOC_TAG_EXIT,                      /* at the master: a probe exited */
    ECOC_TAG_HOSTDEL,                   /* at the master: a host left */
    ECOC_TAG_SINK,                      /* probe -> probe: stream data, dropped */
    ECOC_TAG_SINK_END,                  /* probe -> probe: stream ends, ack it */
    ECOC_TAG_SINK_ACK,                  /* probe -> probe: all of it arrived */
    ECOC_TAG_GO,                        /* master -> probe: start the stream
                                         * (or the steps) */
    ECOC_TAG_STEP,                      /* probe -> next probe: one lock-step
                                         * step's message */
    ECOC_TAG_RELAY,                     /* probe -> probe: pass it on (next
                                         * tid, origin tid, sequence, length,
                                         * data; XDR) */
    ECOC_TAG_RELAYED,                   /* probe -> probe: passed on; echo it
                                         * to its origin as RELAY_BACK */
    ECOC_TAG_RELAY_BACK                 /* probe -> origin probe: the relay's
                                         * echo, its own tag: only the relay
                                         * whose sequence it carries takes it,
                                         * a late one no ping nor later relay */
};
enum {
    ECOC_CMD_QUIT = 1,   /* (nothing) */
    ECOC_CMD_PING = 2,   /* peer tid, size, rounds, trials -> status, trials doubles */
    ECOC_CMD_BCAST = 3,  /* n, tids[n], size, reps, warm, file text -> status, reps doubles at rank 0 */
    ECOC_CMD_HOPS_OPEN = 4, /* (nothing) -> status, the UDP port it listens on */
    ECOC_CMD_HOPS = 5,   /* n, self, n x (host name, port, nonce high, nonce low)
                            -> status, n hops (-1: none) */
    ECOC_CMD_STREAM = 6, /* peer tid, size, count -> status (0: the route to
                            the peer is connected, ready), then on the
                            master's ECOC_TAG_GO -> status, 1 double: seconds
                            from the first of count messages of size bytes
                            to the peer (ECOC_TAG_SINK, then ECOC_TAG_SINK_END)
                            until its ECOC_TAG_SINK_ACK.  Two streams start
                            together: neither one's connecting waits behind
                            the other's data */
    ECOC_CMD_STEPS = 7,  /* next tid, prev tid, size, count -> status (0: the
                            route to next is connected, ready), then on the
                            master's ECOC_TAG_GO -> status, 1 double: seconds
                            from the first send to the last receive of count
                            lock-step steps, each one message of size bytes
                            to next (ECOC_TAG_STEP), then the wait for prev's.
                            Every probe of a ring runs it at once: a step is
                            a message's latency with every host sending */
    ECOC_CMD_RELAY = 8   /* via tid, to tid, size, rounds, trials, wait ms
                            -> status, trials doubles: seconds per round trip
                            through a middle member, each the mean of
                            `rounds`: a message of size bytes to via
                            (ECOC_TAG_RELAY), which unpacks it, packs it
                            again and sends it to `to` (ECOC_TAG_RELAYED),
                            which echoes it back (ECOC_TAG_RELAY_BACK): the
                            cost model's forward.  Status ECOC_RELAY_LATE:
                            an echo did not come within `wait` ms (a via or
                            to that drops or mangles relays) */
};
/* A relay's status when an echo is late (ECOC_CMD_RELAY), and the wait
 * for one when the master gives none (a master of an older build). */
#define ECOC_RELAY_LATE (-2)
#define ECOC_RELAY_WAIT_MS 5000

/* Strings travel as an int length, then that many bytes (pvm_pkbyte), no
 * terminator: pvm_upkstr writes whatever length the sender packed, these
 * check it first.  At most ECOC_MAX_STRING bytes. */
#define ECOC_MAX_STRING (1 << 24)
/* Pack s: 0, or a PVM error (PvmBadParam when longer than the maximum). */
int ecoc_pkstr(const char *s);
/* Unpack a string into buf of cap bytes, terminated: 0, or -1 when it is
 * longer than cap - 1 (or the message ends). */
int ecoc_upkstr(char *buf, size_t cap);
/* Unpack a string into new storage (free it), or NULL: too long for the
 * message that carries it, or no memory. */
char *ecoc_upkstr_new(void);

/* Hops: every probe sends ECOC_HOPS_COPIES datagrams with TTL
 * ECOC_HOPS_TTL to every other and reads the TTL they arrive with, for at
 * most ECOC_HOPS_WAIT seconds; hops = ECOC_HOPS_TTL - TTL on arrival. */
#define ECOC_HOPS_TTL 64
#define ECOC_HOPS_COPIES 3
#define ECOC_HOPS_WAIT 2.0

/* A hops datagram: ECOC_HOPS_WORDS 32-bit words in network order, the
 * magic, the nonce of the pair (high word, low word), the sender's index.
 * Every pair of probes has its own unpredictable 64-bit nonce in every
 * HOPS round: SipHash-2-4 of the pair under a secret key the master
 * draws afresh for the round (ecoc_hops_nonce, lib/keyed_hash.c); each
 * probe is given those of its pairs. */
#define ECOC_HOPS_MAGIC 0x45434f48u /* "ECOH" */
#define ECOC_HOPS_WORDS 4
void ecoc_hops_datagram(uint32_t msg[ECOC_HOPS_WORDS], uint64_t nonce, int self);

/* What a probe knows of probe j in a HOPS round. */
typedef struct ecoc_hops_peer {
    struct sockaddr_in addr; /* its socket, as this host resolves its name */
    uint64_t nonce;          /* of the pair (this probe, j) */
    int ok;                  /* j is another probe with a known address */
} ecoc_hops_peer;

/* The index of the probe that sent this datagram of len bytes from src,
 * or -1 when it is not one of this round: the wrong size or magic, not a
 * peer, not the pair's nonce, or not from that peer's address and port
 * (peer[n], this probe is self). */
int ecoc_hops_sender(const void *msg, size_t len, const struct sockaddr_in *src,
                     const ecoc_hops_peer *peer, int n, int self);

#endif /* ECO_CHARACTERIZE_H */
