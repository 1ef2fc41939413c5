/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * protocol.c -- private: what the master (characterize.c) and the probe
 * (eco-probe.c) exchange that needs care on the receiving side:
 *
 *   strings in PVM messages   an int length, then the bytes: the receiver
 *                             checks the length against its storage
 *                             before it unpacks (pvm_upkstr cannot)
 *   hops datagrams            which datagram counts as this round's,
 *                             from which probe
 *
 * Both ends of every message are in daemon-tools; see characterize.h.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <pvm3.h>

#include "characterize.h"

/* ------------------------------------------------------------------ */
/* Strings                                                             */
/* ------------------------------------------------------------------ */

int ecoc_pkstr(const char *s)
{
    size_t len = strlen(s);
    int n = (int)len, rc;

    if (len > (size_t)ECOC_MAX_STRING)
        return PvmBadParam;
    if ((rc = pvm_pkint(&n, 1, 1)) < 0 || n == 0)
        return rc;
    return pvm_pkbyte((char *)s, n, 1);
}

/* The length that comes next, when 0 <= length <= max: else -1. */
static int upk_length(int max)
{
    int n = -1;

    if (pvm_upkint(&n, 1, 1) < 0 || n < 0 || n > max)
        return -1;
    return n;
}

int ecoc_upkstr(char *buf, size_t cap)
{
    int n;

    if (cap < 1 || (n = upk_length(cap - 1 < ECOC_MAX_STRING ? (int)(cap - 1)
                                                             : ECOC_MAX_STRING)) < 0)
        return -1;
    if (n > 0 && pvm_upkbyte(buf, n, 1) < 0)
        return -1;
    buf[n] = '\0';
    return 0;
}

char *ecoc_upkstr_new(void)
{
    int bytes = 0, tag, src, n;
    char *s;

    /* never longer than the message that carries it */
    if (pvm_bufinfo(pvm_getrbuf(), &bytes, &tag, &src) < 0 ||
        (n = upk_length(bytes < ECOC_MAX_STRING ? bytes : ECOC_MAX_STRING)) < 0 ||
        !(s = malloc((size_t)n + 1)))
        return NULL;
    if (n > 0 && pvm_upkbyte(s, n, 1) < 0) {
        free(s);
        return NULL;
    }
    s[n] = '\0';
    return s;
}

/* ------------------------------------------------------------------ */
/* Hops datagrams                                                      */
/* ------------------------------------------------------------------ */

void ecoc_hops_datagram(uint32_t msg[ECOC_HOPS_WORDS], uint64_t nonce, int self)
{
    msg[0] = htonl(ECOC_HOPS_MAGIC);
    msg[1] = htonl((uint32_t)(nonce >> 32));
    msg[2] = htonl((uint32_t)nonce);
    msg[3] = htonl((uint32_t)self);
}

static int loopback(const struct sockaddr_in *a)
{
    return (ntohl(a->sin_addr.s_addr) >> 24) == 127;
}

/* Did this datagram come from where probe j's socket is?  The address
 * and the port; a probe on this host that we reach on 127.x.y.z sends
 * from another loopback address (Linux picks 127.0.0.1), which only this
 * host can. */
static int from_peer(const struct sockaddr_in *src, const ecoc_hops_peer *p)
{
    if (src->sin_family != AF_INET || src->sin_port != p->addr.sin_port)
        return 0;
    return src->sin_addr.s_addr == p->addr.sin_addr.s_addr ||
           (loopback(src) && loopback(&p->addr));
}

int ecoc_hops_sender(const void *msg, size_t len, const struct sockaddr_in *src,
                     const ecoc_hops_peer *peer, int n, int self)
{
    uint32_t w[ECOC_HOPS_WORDS];
    uint64_t nonce;
    uint32_t from;

    if (len != sizeof w)
        return -1;
    memcpy(w, msg, sizeof w);
    if (ntohl(w[0]) != ECOC_HOPS_MAGIC)
        return -1;
    from = ntohl(w[3]);
    if (from >= (uint32_t)n || (int)from == self || !peer[from].ok)
        return -1;
    nonce = (uint64_t)ntohl(w[1]) << 32 | ntohl(w[2]);
    if (nonce != peer[from].nonce || !from_peer(src, &peer[from]))
        return -1; /* a forgery, or of another round */
    return (int)from;
}
