/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hops_forge.c -- for tests/probe.test: play the master of one eco-probe
 * and attack its HOPS rounds the way a host on the network could:
 *
 *   - a datagram sent before the HOPS command, with the round's nonce
 *   - the round's nonce from the wrong source port
 *   - the nonce of an earlier round (a replay)
 *   - 4,096 guessed nonces, and the master's tid (the old nonce)
 *
 * None may count (the probe reports no hops from us); a genuine datagram
 * does (the control).  Then HOPS commands whose host name is longer than
 * the probe's storage, or whose length field lies: the probe must refuse
 * them and live on.  We are probe 1 of a two-probe round, at 127.0.0.1.
 *
 *   hops_forge PROBE      (inside a virtual machine: tests/private_vm.sh)
 *
 * Prints "ok - ..." or "not ok - ..." per check; exits 0 when all pass.
 */
#include "config.h"

#include <arpa/inet.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>
#include <pvm3.h>

#include "characterize.h"

#define TAG_GONE (ECOC_TAG_BASE + 0x200)

static int probe;                 /* its tid */
static struct sockaddr_in at;     /* its UDP socket */
static int failures;

static void check(int cond, const char *what)
{
    printf("%s - %s\n", cond ? "ok" : "not ok", what);
    failures += !cond;
}

static uint64_t random64(void)
{
    uint64_t v = 0;

    if (getrandom(&v, sizeof v, 0) != (ssize_t)sizeof v)
        abort();
    return v;
}

/* A UDP socket on 127.0.0.1: the fd, its port in *port. */
static int udp_socket(int *port)
{
    struct sockaddr_in a;
    socklen_t len = sizeof a;
    int fd = socket(AF_INET, SOCK_DGRAM, 0), ttl = ECOC_HOPS_TTL;

    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) != 0 ||
        setsockopt(fd, IPPROTO_IP, IP_TTL, &ttl, sizeof ttl) != 0) {
        perror("hops_forge: socket");
        exit(99);
    }
    *port = ntohs(a.sin_port);
    return fd;
}

/* A datagram as a probe sends it, from fd to the probe under test. */
static void forge(int fd, uint64_t nonce, int from)
{
    uint32_t msg[ECOC_HOPS_WORDS];

    ecoc_hops_datagram(msg, nonce, from);
    if (sendto(fd, msg, sizeof msg, 0, (struct sockaddr *)&at, sizeof at) < 0)
        perror("hops_forge: sendto");
}

/* HOPS to the probe: it is probe 0 at 127.0.0.1, we are probe 1 at
 * NAME:port with the pair's nonce.  name NULL: a length field of
 * 1 << 30 followed by a few bytes. */
static void send_hops(const char *name, int port, uint64_t nonce)
{
    int cmd = ECOC_CMD_HOPS, n = 2, self = 0, lie = 1 << 30, probe_port = ntohs(at.sin_port);
    unsigned int none[2] = { 0, 0 }, w[2] = { (unsigned int)(nonce >> 32), (unsigned int)nonce };

    pvm_initsend(PvmDataDefault);
    pvm_pkint(&cmd, 1, 1);
    pvm_pkint(&n, 1, 1);
    pvm_pkint(&self, 1, 1);
    ecoc_pkstr("127.0.0.1");
    pvm_pkint(&probe_port, 1, 1);
    pvm_pkuint(none, 2, 1);
    if (name && strlen(name) <= ECO_MAX_HOSTNAME)
        ecoc_pkstr(name);
    else if (name)
        pvm_pkstr((char *)name); /* what a careless master sends: any length */
    else {
        pvm_pkint(&lie, 1, 1);
        pvm_pkbyte("127.0.0.1", 9, 1);
    }
    pvm_pkint(&port, 1, 1);
    pvm_pkuint(w, 2, 1);
    pvm_send(probe, ECOC_TAG_CMD);
}

/* The probe's reply: its status, with count ints in v when 0; -2 when
 * it does not answer within 10 s (or has died). */
static int result(int *v, int count)
{
    struct timeval tv = { 10, 0 };
    int bid = pvm_trecv(probe, ECOC_TAG_RESULT, &tv), status = -1;

    if (bid <= 0)
        return -2;
    if (pvm_upkint(&status, 1, 1) < 0 || (status == 0 && pvm_upkint(v, count, 1) < 0))
        status = -1;
    return status;
}

/* Wait for the probe's own datagram to us: it has read the command (and
 * dropped what came before).  1 when it came with the pair's nonce. */
static int heard_probe(int fd, uint64_t nonce)
{
    struct pollfd p = { fd, POLLIN, 0 };
    uint32_t msg[ECOC_HOPS_WORDS + 1], want[ECOC_HOPS_WORDS];

    ecoc_hops_datagram(want, nonce, 0);
    while (poll(&p, 1, 5000) == 1) {
        ssize_t got = recv(fd, msg, sizeof msg, 0);
        if (got == (ssize_t)sizeof want && memcmp(msg, want, sizeof want) == 0)
            return 1;
    }
    return 0;
}

/* Drop what the probe sent us in earlier rounds. */
static void drain(int fd)
{
    char junk[64];

    while (recv(fd, junk, sizeof junk, MSG_DONTWAIT) >= 0)
        ;
}

/* One round: HOPS with nonce, then after the probe has read it, what
 * attack(nonce, arg) sends; the hops the probe reports from us (-1:
 * none). */
static int round_with(int fd, int port, uint64_t nonce, void (*attack)(uint64_t, uint64_t),
                      uint64_t arg)
{
    int hops[2] = { -1, -1 }, status;

    drain(fd);
    send_hops("127.0.0.1", port, nonce);
    if (!heard_probe(fd, nonce))
        check(0, "the probe sends the pair's nonce after the command");
    if (attack)
        attack(nonce, arg);
    status = result(hops, 2);
    if (status != 0) {
        printf("# HOPS failed: status %d\n", status);
        return -2;
    }
    return hops[1];
}

static int fd_right, fd_wrong; /* our socket as probe 1; another one */

static void genuine(uint64_t nonce, uint64_t unused)
{
    (void)unused;
    forge(fd_right, nonce, 1);
}

static void wrong_source(uint64_t nonce, uint64_t unused)
{
    (void)unused;
    forge(fd_wrong, nonce, 1);
}

static void replay(uint64_t nonce, uint64_t old)
{
    (void)nonce;
    forge(fd_right, old, 1);
}

static void guesses(uint64_t nonce, uint64_t unused)
{
    (void)nonce;
    (void)unused;
    forge(fd_right, (uint64_t)(unsigned int)pvm_mytid(), 1); /* the old nonce */
    for (int i = 0; i < 4096; i++)
        forge(fd_right, random64(), 1);
}

/* The probe answers HOPS_OPEN with the same port: it lives on. */
static int alive(void)
{
    int cmd = ECOC_CMD_HOPS_OPEN, port = -1;

    pvm_initsend(PvmDataDefault);
    pvm_pkint(&cmd, 1, 1);
    pvm_send(probe, ECOC_TAG_CMD);
    return pvm_pstat(probe) == PvmOk && result(&port, 1) == 0 && port == ntohs(at.sin_port);
}

static void attacks(int port)
{
    uint64_t n1 = random64(), n2 = random64();
    int hops;

    hops = round_with(fd_right, port, n1, genuine, n1);
    check(hops == 0, "control: a genuine datagram counts (0 hops)");
    hops = round_with(fd_right, port, random64(), wrong_source, 0);
    check(hops == -1, "the round's nonce from the wrong source port does not count");
    hops = round_with(fd_right, port, random64(), replay, n1);
    check(hops == -1, "an earlier round's nonce does not count");
    hops = round_with(fd_right, port, random64(), guesses, 0);
    check(hops == -1, "4096 guessed nonces and the master's tid do not count");
    /* before the command: sent, queued, then the command */
    drain(fd_right);
    forge(fd_right, n2, 1);
    usleep(300000);
    hops = round_with(fd_right, port, n2, NULL, 0);
    check(hops == -1, "a datagram sent before the command does not count");
}

static void oversized(int port)
{
    char *longname = malloc(5001);
    int hops[2];

    memset(longname, 'a', 5000);
    longname[5000] = '\0';
    send_hops(longname, port, random64());
    check(result(hops, 2) == -1, "a 5000-byte host name: HOPS refused");
    check(alive(), "a 5000-byte host name: the probe lives on");
    send_hops(NULL, port, random64());
    check(result(hops, 2) == -1, "a length field of 2^30: HOPS refused");
    check(alive(), "a length field of 2^30: the probe lives on");
    free(longname);
}

/* Spawn the probe and open its socket: 0, or 99 (cannot test). */
static int start(const char *path)
{
    int cmd = ECOC_CMD_HOPS_OPEN, port = -1;
    struct timeval tv = { 10, 0 };

    if (pvm_spawn((char *)path, NULL, PvmTaskDefault, "", 1, &probe) != 1 ||
        pvm_trecv(probe, ECOC_TAG_HELLO, &tv) <= 0) {
        fprintf(stderr, "hops_forge: cannot start %s\n", path);
        return 99;
    }
    pvm_notify(PvmTaskExit, TAG_GONE, 1, &probe);
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&cmd, 1, 1);
    pvm_send(probe, ECOC_TAG_CMD);
    if (result(&port, 1) != 0) {
        fprintf(stderr, "hops_forge: the probe opened no socket\n");
        return 99;
    }
    memset(&at, 0, sizeof at);
    at.sin_family = AF_INET;
    at.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    at.sin_port = htons((unsigned short)port);
    return 0;
}

int main(int argc, char **argv)
{
    int port, other, rc;

    if (argc != 2) {
        fprintf(stderr, "usage: hops_forge PROBE\n");
        return 2;
    }
    pvm_setopt(PvmAutoErr, 0);
    if (pvm_mytid() < 0)
        return 99;
    if ((rc = start(argv[1])) != 0) {
        pvm_exit();
        return rc;
    }
    fd_right = udp_socket(&port);
    fd_wrong = udp_socket(&other);
    attacks(port);
    oversized(port);
    pvm_kill(probe);
    pvm_exit();
    return failures ? 1 : 0;
}
