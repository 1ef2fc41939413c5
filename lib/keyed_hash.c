/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * keyed_hash.c -- SipHash-2-4 (Aumasson and Bernstein, "SipHash: a fast
 * short-input PRF", 2012), written from the paper's description, and the
 * nonces of eco-characterize's hops datagrams drawn through it
 * (eco_char.h).
 *
 * The master used to draw a random 64-bit nonce for every pair of
 * probes and keep them all: n x n words, 800 MB at 10,000 hosts.  A
 * pseudorandom function of a secret key drawn per round gives every pair
 * a nonce as unpredictable to anyone without the key, computed when the
 * probe's command is packed, in no memory at all.
 */
#include "config.h"

#include "eco_char.h"

static uint64_t rotl(uint64_t x, int b)
{
    return (x << b) | (x >> (64 - b));
}

/* A 64-bit word from 8 bytes, little-endian (the paper's convention). */
static uint64_t le64(const unsigned char *p)
{
    uint64_t w = 0;

    for (int i = 7; i >= 0; i--)
        w = w << 8 | p[i];
    return w;
}

/* One SipRound: the ARX network of the paper's Figure 2.
 *
 *   v0 += v1   v2 += v3     v1 <<<= 13  v3 <<<= 16
 *   v1 ^= v0   v3 ^= v2     v0 <<<= 32
 *   v2 += v1   v0 += v3     v1 <<<= 17  v3 <<<= 21
 *   v1 ^= v2   v3 ^= v0     v2 <<<= 32
 */
static void sipround(uint64_t v[4])
{
    v[0] += v[1];
    v[2] += v[3];
    v[1] = rotl(v[1], 13) ^ v[0];
    v[3] = rotl(v[3], 16) ^ v[2];
    v[0] = rotl(v[0], 32);
    v[2] += v[1];
    v[0] += v[3];
    v[1] = rotl(v[1], 17) ^ v[2];
    v[3] = rotl(v[3], 21) ^ v[0];
    v[2] = rotl(v[2], 32);
}

/* Absorb one message word: c = 2 rounds. */
static void compress(uint64_t v[4], uint64_t m)
{
    v[3] ^= m;
    sipround(v);
    sipround(v);
    v[0] ^= m;
}

uint64_t ecoc_siphash24(const unsigned char key[16], const void *msg, size_t len)
{
    const unsigned char *p = msg;
    unsigned char last[8] = { 0 };
    uint64_t k0 = le64(key), k1 = le64(key + 8);
    /* "somepseudorandomlygeneratedbytes", the paper's constants */
    uint64_t v[4] = { k0 ^ 0x736f6d6570736575ULL, k1 ^ 0x646f72616e646f6dULL,
                      k0 ^ 0x6c7967656e657261ULL, k1 ^ 0x7465646279746573ULL };
    size_t whole = len - len % 8;

    for (size_t i = 0; i < whole; i += 8)
        compress(v, le64(p + i));
    /* the last word: the 0..7 bytes left, the length mod 256 on top */
    for (size_t i = whole; i < len; i++)
        last[i - whole] = p[i];
    last[7] = (unsigned char)len;
    compress(v, le64(last));
    /* finalization: d = 4 rounds */
    v[2] ^= 0xff;
    for (int i = 0; i < 4; i++)
        sipround(v);
    return v[0] ^ v[1] ^ v[2] ^ v[3];
}

uint64_t ecoc_hops_nonce(const unsigned char key[16], int a, int b)
{
    unsigned char msg[8];
    uint32_t lo = (uint32_t)(a < b ? a : b), hi = (uint32_t)(a < b ? b : a);

    /* the pair, lower index first: nonce(a, b) == nonce(b, a) */
    for (int i = 0; i < 4; i++) {
        msg[i] = (unsigned char)(lo >> 8 * i);
        msg[4 + i] = (unsigned char)(hi >> 8 * i);
    }
    return ecoc_siphash24(key, msg, sizeof msg);
}
