/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * relay_order.c -- for tests/probe.test: play the master of one eco-probe
 * and both other members of its relay (ECOC_CMD_RELAY: we are its via and
 * its to).  Its relay message must be XDR-encoded as PvmDataDefault
 * messages are (a host of another byte order reads the ids right) and
 * name us, it and the relay's sequence; an echo of another sequence (a
 * late one of an earlier relay, or a mangled one) must not be taken for
 * the relay's: the probe answers ECOC_RELAY_LATE after the wait, and a
 * later relay still times what we echo right.
 *
 *   relay_order PROBE      (inside a virtual machine: tests/private_vm.sh)
 *
 * Prints "ok - ..." or "not ok - ..." per check; exits 0 when all pass.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <pvm3.h>

#include "probe_master.h"

#define TRIALS 2
#define SIZE 64

/* The encoding PVM gives a message of this kind (PvmDataDefault,
 * PvmDataRaw) sent to ourselves, or -1. */
static int encoding_of(int kind)
{
    struct pvmminfo mi;
    struct timeval tv = { 10, 0 };
    int one = 1, bid;

    pvm_initsend(kind);
    pvm_pkint(&one, 1, 1);
    if (pvm_send(pvm_mytid(), ECOC_TAG_BASE + 99) < 0 ||
        (bid = pvm_trecv(pvm_mytid(), ECOC_TAG_BASE + 99, &tv)) <= 0)
        return -1;
    memset(&mi, 0, sizeof mi);
    return pvm_getminfo(bid, &mi) < 0 ? -1 : mi.enc;
}

static void send_relay(int wait_ms)
{
    int cmd = ECOC_CMD_RELAY, me = pvm_mytid(), a[6] = { me, me, SIZE, 1, TRIALS, wait_ms };

    pvm_initsend(PvmDataDefault);
    pvm_pkint(&cmd, 1, 1);
    pvm_pkint(a, 6, 1);
    pvm_send(probe, ECOC_TAG_CMD);
}

/* The probe's reply: its status, then TRIALS times in t; -9 when none. */
static int result(double *t)
{
    int status = -9;

    if (from_probe(ECOC_TAG_RESULT) <= 0)
        return -9;
    pvm_upkint(&status, 1, 1);
    if (status == 0 && pvm_upkdouble(t, TRIALS, 1) < 0)
        return -8;
    return status;
}

/* Receive the probe's RELAY (as its via): its head in h[4] and its
 * encoding; 0, or -1 when none came. */
static int take_relay(int h[4], int *enc)
{
    struct pvmminfo mi;
    char data[SIZE];
    int bid = from_probe(ECOC_TAG_RELAY);

    if (bid <= 0 || pvm_upkint(h, 4, 1) < 0 || h[3] != SIZE || pvm_upkbyte(data, SIZE, 1) < 0)
        return -1;
    memset(&mi, 0, sizeof mi);
    *enc = pvm_getminfo(bid, &mi) < 0 ? -1 : mi.enc;
    return 0;
}

/* Echo a relay back to the probe (as its to) with sequence seq. */
static void echo_relay(const int h[4], int seq)
{
    char data[SIZE] = { 0 };
    int head[4] = { h[0], h[1], seq, SIZE };

    pvm_initsend(PvmDataDefault);
    pvm_pkint(head, 4, 1);
    pvm_pkbyte(data, SIZE, 1);
    pvm_send(probe, ECOC_TAG_RELAY_BACK);
}

static void relays(void)
{
    int h[4] = { 0 }, enc = -1, first, ok = 1, xdr = encoding_of(PvmDataDefault);
    double t[TRIALS] = { 0 };

    check(xdr >= 0 && xdr != encoding_of(PvmDataRaw), "PVM tells XDR from raw messages");
    /* A relay whose echo comes with another sequence: not taken. */
    send_relay(500);
    check(take_relay(h, &enc) == 0, "RELAY: the message reaches its via");
    check(enc == xdr, "RELAY: XDR-encoded, as PvmDataDefault");
    check(h[0] == pvm_mytid() && h[1] == probe && h[2] != 0,
          "RELAY: names its to, its origin and a sequence");
    first = h[2];
    echo_relay(h, first + 1);
    check(result(t) == ECOC_RELAY_LATE, "RELAY: an echo of another sequence is not its own");
    /* The next relay: a late echo of the first, then its own, each round. */
    send_relay(5000);
    for (int r = 0; r < 1 + TRIALS && ok; r++) {
        ok = take_relay(h, &enc) == 0 && h[2] != first;
        echo_relay(h, first);
        echo_relay(h, h[2]);
    }
    check(ok, "RELAY: the next relay has a sequence of its own");
    check(result(t) == 0 && t[0] > 0.0 && t[1] > 0.0,
          "RELAY: the next relay times its own echoes, not the late ones");
}

int main(int argc, char **argv)
{
    int rc = start_probe("relay_order", argc, argv);

    if (rc != 0)
        return rc;
    relays();
    pvm_kill(probe);
    pvm_exit();
    return failures ? 1 : 0;
}
