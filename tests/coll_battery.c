/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * coll_battery.c -- see coll_battery.h.
 */
#include <stdarg.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pvm3.h>
#include "coll_battery.h"

static const int all_types[] = {
    PVM_BYTE, PVM_SHORT, PVM_INT, PVM_FLOAT, PVM_CPLX, PVM_DOUBLE,
    PVM_DCPLX, PVM_LONG, PVM_USHORT, PVM_UINT, PVM_ULONG,
};
#define NTYPES (int)(sizeof all_types / sizeof all_types[0])

static size_t tsize(int dt)
{
    switch (dt) {
    case PVM_BYTE: return 1;
    case PVM_SHORT: case PVM_USHORT: return sizeof(short);
    case PVM_INT: case PVM_UINT: return sizeof(int);
    case PVM_FLOAT: return sizeof(float);
    case PVM_CPLX: return 2 * sizeof(float);
    case PVM_DOUBLE: return sizeof(double);
    case PVM_DCPLX: return 2 * sizeof(double);
    default: return sizeof(long);
    }
}

static const char *tname(int dt)
{
    static const char *names[] = { "STR", "BYTE", "SHORT", "INT", "FLOAT", "CPLX",
                                   "DOUBLE", "DCPLX", "LONG", "USHORT", "UINT", "ULONG" };
    return dt >= 0 && dt <= PVM_ULONG ? names[dt] : "?";
}

void ecot_check(ecot_report *rep, int ok, const char *fmt, ...)
{
    va_list ap;

    rep->checks++;
    if (ok)
        return;
    if (rep->failures++ == 0) {
        va_start(ap, fmt);
        vsnprintf(rep->first, sizeof rep->first, fmt, ap);
        va_end(ap);
    }
}

/* Store integer v (and w, the imaginary part) as element i of type dt. */
static void put(int dt, void *buf, size_t i, long v, long w)
{
    switch (dt) {
    case PVM_BYTE: ((unsigned char *)buf)[i] = (unsigned char)v; break;
    case PVM_SHORT: ((short *)buf)[i] = (short)v; break;
    case PVM_INT: ((int *)buf)[i] = (int)v; break;
    case PVM_FLOAT: ((float *)buf)[i] = (float)v; break;
    case PVM_CPLX: ((float *)buf)[2 * i] = (float)v; ((float *)buf)[2 * i + 1] = (float)w; break;
    case PVM_DOUBLE: ((double *)buf)[i] = (double)v; break;
    case PVM_DCPLX: ((double *)buf)[2 * i] = (double)v; ((double *)buf)[2 * i + 1] = (double)w; break;
    case PVM_LONG: ((long *)buf)[i] = v; break;
    case PVM_USHORT: ((unsigned short *)buf)[i] = (unsigned short)v; break;
    case PVM_UINT: ((unsigned int *)buf)[i] = (unsigned int)v; break;
    case PVM_ULONG: ((unsigned long *)buf)[i] = (unsigned long)v; break;
    }
}

/* Distinct values per (rank, index, salt): catches any mix-up of blocks. */
static void fill(int dt, void *buf, size_t count, int rank, int salt)
{
    for (size_t i = 0; i < count; i++) {
        long v = ((long)rank * 1000003L + (long)i * 7919L + (long)salt * 104729L) % 32000L;
        put(dt, buf, i, v, (v * 3 + 1) % 1000);
    }
}

/* Small values in {-1, 1, 2} (non-negative for unsigned types), so that
 * sums and products stay exact in every type and any combining order. */
static void fill_small(int dt, void *buf, size_t count, int rank, int salt)
{
    int unsig = dt == PVM_BYTE || dt == PVM_USHORT || dt == PVM_UINT || dt == PVM_ULONG;

    for (size_t i = 0; i < count; i++) {
        long k = (long)(rank * 7 + (int)(i % 1024) * 3 + salt) % 6;
        long v = k == 0 ? 2 : (k % 2 ? 1 : (unsig ? 1 : -1));
        /* Complex: 2, 1, i, -1, -i, 1: products keep exact magnitudes. */
        static const long re[6] = { 2, 1, 0, -1, 0, 1 }, im[6] = { 0, 0, 1, 0, -1, 0 };
        if (dt == PVM_CPLX || dt == PVM_DCPLX)
            put(dt, buf, i, re[k], im[k]);
        else
            put(dt, buf, i, v, 0);
    }
}

/* Equal values (for floating types 0.0 == -0.0: the combining order of a
 * reduction may change the sign of a zero product). */
static int same(int dt, const void *a, const void *b, size_t count)
{
    size_t k = count * (dt == PVM_CPLX || dt == PVM_DCPLX ? 2 : 1);

    if (dt == PVM_FLOAT || dt == PVM_CPLX) {
        for (size_t i = 0; i < k; i++)
            if (((const float *)a)[i] != ((const float *)b)[i])
                return 0;
        return 1;
    }
    if (dt == PVM_DOUBLE || dt == PVM_DCPLX) {
        for (size_t i = 0; i < k; i++)
            if (((const double *)a)[i] != ((const double *)b)[i])
                return 0;
        return 1;
    }
    return memcmp(a, b, count * tsize(dt)) == 0;
}

static void *xalloc(size_t bytes)
{
    void *p = malloc(bytes + 1);
    if (!p) {
        fprintf(stderr, "battery: out of memory\n");
        abort();
    }
    return p;
}

/* ------------------------------------------------------------------ */
/* The operations                                                      */
/* ------------------------------------------------------------------ */

typedef struct run {
    eco_ctx *ctx;
    int n, me;
    ecot_report *rep;
} run;

/* Half the calls (by salt, the same in every member) pass ECO_IN_PLACE
 * where the call allows it. */
static int in_place(int salt)
{
    return salt % 2;
}

static const char *ipname(int ip)
{
    return ip ? " in place" : "";
}

static void t_bcast(run *r, int dt, size_t count, int root, int salt)
{
    size_t b = count * tsize(dt);
    char *buf = xalloc(b), *ref = xalloc(b);
    int rc;

    fill(dt, ref, count, root, salt);
    if (r->me == root)
        memcpy(buf, ref, b);
    else
        memset(buf, 0xA5, b);
    rc = eco_bcast(r->ctx, buf, (int)count, dt, root);
    ecot_check(r->rep, rc == 0 && memcmp(buf, ref, b) == 0,
               "bcast %s count %zu root %d: rank %d rc %d", tname(dt), count, root, r->me, rc);
    free(buf);
    free(ref);
}

static void t_scatter(run *r, int dt, size_t count, int root, int salt)
{
    size_t b = count * tsize(dt);
    char *send = NULL, *mine = xalloc(b), *ref = xalloc(b);
    int ip = in_place(salt) && r->me == root, rc;

    if (r->me == root) {
        send = xalloc(b * (size_t)r->n);
        for (int q = 0; q < r->n; q++)
            fill(dt, send + (size_t)q * b, count, q, salt);
    }
    fill(dt, ref, count, r->me, salt);
    memset(mine, 0x5A, b);
    rc = eco_scatter(r->ctx, send, ip ? ECO_IN_PLACE : mine, (int)count, dt, root);
    ecot_check(r->rep, rc == 0 && memcmp(ip ? send + (size_t)root * b : mine, ref, b) == 0,
               "scatter%s %s count %zu root %d: rank %d rc %d", ipname(ip), tname(dt), count,
               root, r->me, rc);
    free(send);
    free(mine);
    free(ref);
}

/* root may be ECO_ALL. */
static void t_gather(run *r, int dt, size_t count, int root, int salt)
{
    size_t b = count * tsize(dt), all = b * (size_t)r->n;
    int gets = root == ECO_ALL || root == r->me, ip = gets && in_place(salt), rc;
    char *mine = xalloc(b), *out = gets ? xalloc(all) : NULL, *ref = xalloc(all);

    fill(dt, mine, count, r->me, salt);
    for (int q = 0; q < r->n; q++)
        fill(dt, ref + (size_t)q * b, count, q, salt);
    if (out)
        memset(out, 0x3C, all);
    if (ip)
        memcpy(out + (size_t)r->me * b, mine, b);
    rc = eco_gather(r->ctx, ip ? ECO_IN_PLACE : mine, out, (int)count, dt, root);
    ecot_check(r->rep, rc == 0 && (!gets || memcmp(out, ref, all) == 0),
               "gather%s %s count %zu root %d: rank %d rc %d", ipname(ip), tname(dt), count,
               root, r->me, rc);
    free(mine);
    free(out);
    free(ref);
}

static const char *opname(eco_op op)
{
    if (op == ECO_SUM) return "SUM";
    if (op == ECO_PROD) return "PROD";
    if (op == ECO_MIN) return "MIN";
    if (op == ECO_MAX) return "MAX";
    if (op == ecot_xor) return "user-XOR";
    if (op == ecot_matmul) return "user-MATMUL";
    return "user";
}

/* Reference: every member's input combined in rank order. */
static void reduce_ref(run *r, int dt, size_t count, eco_op op, int salt, char *acc, int upto)
{
    char *in = xalloc(count * tsize(dt));
    int num = (int)count, info = 0, d = dt;

    fill_small(dt, acc, count, 0, salt);
    for (int q = 1; q <= upto; q++) {
        fill_small(dt, in, count, q, salt);
        op(&d, acc, in, &num, &info);
    }
    (void)r;
    free(in);
}

static void t_reduce(run *r, int dt, size_t count, eco_op op, int root, int salt)
{
    size_t b = count * tsize(dt);
    int gets = root == ECO_ALL || root == r->me, ip = gets && in_place(salt), rc;
    char *mine = xalloc(b), *out = xalloc(b), *ref = xalloc(b);

    fill_small(dt, mine, count, r->me, salt);
    memset(out, 0x77, b);
    if (ip)
        memcpy(out, mine, b);
    rc = eco_reduce(r->ctx, ip ? ECO_IN_PLACE : mine, gets ? out : NULL, (int)count, dt, op,
                    root);
    if (gets)
        reduce_ref(r, dt, count, op, salt, ref, r->n - 1);
    ecot_check(r->rep, rc == 0 && (!gets || same(dt, out, ref, count)),
               "reduce%s %s %s count %zu root %d: rank %d rc %d", ipname(ip), opname(op),
               tname(dt), count, root, r->me, rc);
    free(mine);
    free(out);
    free(ref);
}

/* Doubles whose sums round differently in another order (mixed
 * magnitudes), or for MIN, +0.0 and -0.0 (MIN keeps the left operand of
 * two equal ones). */
static void fill_rounding(double *x, size_t count, int rank, eco_op op, int salt)
{
    for (size_t i = 0; i < count; i++) {
        int k = (rank * 37 + (int)i * 11 + salt) % 97;
        if (op == ECO_MIN)
            x[i] = (k % 2 ? -1.0 : 1.0) * 0.0;
        else
            x[i] = (k % 3 ? 1.0 : 1e9) / (3 + k % 7) * (k % 2 ? -1.0 : 1.0);
    }
}

/* Reduce-to-all where the order of combining shows in the bits: whatever
 * the order, every member must end with exactly rank 0's bits. */
static void t_allreduce_agree(run *r, size_t count, eco_op op, int salt)
{
    size_t b = count * sizeof(double);
    double *mine = xalloc(b), *out = xalloc(b), *zero = xalloc(b);
    int rc, rc0;

    fill_rounding(mine, count, r->me, op, salt);
    memset(out, 0x5A, b);
    rc = eco_reduce(r->ctx, mine, out, (int)count, PVM_DOUBLE, op, ECO_ALL);
    memcpy(zero, out, b);
    rc0 = eco_bcast(r->ctx, zero, (int)count, PVM_DOUBLE, 0);
    ecot_check(r->rep, rc == 0 && rc0 == 0 && memcmp(out, zero, b) == 0,
               "reduce-to-all %s DOUBLE count %zu: rank %d has other bits than rank 0"
               " (rc %d, %d)", opname(op), count, r->me, rc, rc0);
    free(mine);
    free(out);
    free(zero);
}

/* A scan where the grouping shows in the bits: every algorithm makes
 * prefix[r] = prefix[r - 1] op x_r, so rank r must end with exactly the
 * bits of that sum made here. */
static void t_scan_grouping(run *r, size_t count, int salt)
{
    size_t b = count * sizeof(double);
    double *mine = xalloc(b), *out = xalloc(b), *ref = xalloc(b);
    int rc, num = (int)count, info = 0, d = PVM_DOUBLE;

    fill_rounding(mine, count, r->me, ECO_SUM, salt);
    memset(out, 0x3C, b);
    rc = eco_scan(r->ctx, mine, out, (int)count, PVM_DOUBLE, ECO_SUM);
    fill_rounding(ref, count, 0, ECO_SUM, salt);
    for (int q = 1; q <= r->me; q++) {
        fill_rounding(mine, count, q, ECO_SUM, salt);
        ECO_SUM(&d, ref, mine, &num, &info);
    }
    ecot_check(r->rep, rc == 0 && memcmp(out, ref, b) == 0,
               "scan SUM DOUBLE count %zu: rank %d has other bits than the sum in rank"
               " order (rc %d)", count, r->me, rc);
    free(mine);
    free(out);
    free(ref);
}

/* Member q's matrices for the matmul scan: [[1, a], [b, 1]], a, b small. */
static void mat_fill(int *m, size_t count, int q)
{
    for (size_t i = 0; i < count; i++) {
        size_t k = i % 4;
        m[i] = (k == 0 || k == 3) ? 1 : (k == 1 ? (q + (int)i) % 3 : (2 * q + (int)i) % 2);
    }
}

/* Inclusive: rank r ends with x_0 op ... op x_r.  Exclusive (eco_exscan):
 * with x_0 op ... op x_(r-1), and rank 0's recvbuf is unchanged. */
static void scan_case(run *r, int dt, size_t count, eco_op op, int salt, int exclusive)
{
    size_t b = count * tsize(dt);
    char *mine = xalloc(b), *out = xalloc(b), *ref = xalloc(b);
    int ip = in_place(salt), rc, num = (int)count, info = 0, d = dt;
    int upto = r->me - exclusive;

    if (op == ecot_matmul)
        mat_fill((int *)mine, count, r->me);
    else
        fill_small(dt, mine, count, r->me, salt);
    memset(out, 0x11, b);
    if (ip)
        memcpy(out, mine, b);
    if (!exclusive)
        rc = eco_scan(r->ctx, ip ? ECO_IN_PLACE : mine, out, (int)count, dt, op);
    else    /* rank 0's recvbuf is not significant: now and then NULL */
        rc = eco_exscan(r->ctx, ip ? ECO_IN_PLACE : mine,
                        r->me == 0 && !ip && salt % 4 == 0 ? NULL : out, (int)count, dt, op);
    if (upto < 0) {
        memset(ref, 0x11, b);
        if (ip)
            memcpy(ref, mine, b);
    } else if (op == ecot_matmul) {
        mat_fill((int *)ref, count, 0);
        for (int q = 1; q <= upto; q++) {
            mat_fill((int *)mine, count, q);
            ecot_matmul(&d, ref, mine, &num, &info);
        }
    } else {
        reduce_ref(r, dt, count, op, salt, ref, upto);
    }
    ecot_check(r->rep, rc == 0 && (upto < 0 ? memcmp(out, ref, b) == 0
                                            : same(dt, out, ref, count)),
               "%s%s %s %s count %zu: rank %d rc %d", exclusive ? "exscan" : "scan",
               ipname(ip), opname(op), tname(dt), count, r->me, rc);
    free(mine);
    free(out);
    free(ref);
}

static void t_scan(run *r, int dt, size_t count, eco_op op, int salt)
{
    scan_case(r, dt, count, op, salt, 0);
}

static void t_exscan(run *r, int dt, size_t count, eco_op op, int salt)
{
    scan_case(r, dt, count, op, salt, 1);
}

static void t_alltoall(run *r, int dt, size_t count, int salt)
{
    size_t b = count * tsize(dt), all = b * (size_t)r->n;
    char *send = xalloc(all), *out = xalloc(all), *ref = xalloc(all);
    int ip = in_place(salt), rc;

    /* Block j of member i carries fill(rank = i * n + j). */
    for (int q = 0; q < r->n; q++) {
        fill(dt, send + (size_t)q * b, count, r->me * r->n + q, salt);
        fill(dt, ref + (size_t)q * b, count, q * r->n + r->me, salt);
    }
    memset(out, 0x2B, all);
    if (ip)
        memcpy(out, send, all);
    rc = eco_alltoall(r->ctx, ip ? ECO_IN_PLACE : send, out, (int)count, dt);
    ecot_check(r->rep, rc == 0 && memcmp(out, ref, all) == 0,
               "alltoall%s %s count %zu: rank %d rc %d", ipname(ip), tname(dt), count, r->me, rc);
    free(send);
    free(out);
    free(ref);
}

/* ------------------------------------------------------------------ */
/* The vector forms                                                    */
/* ------------------------------------------------------------------ */

/* Member q's count: about count, some members 0 (all when count is 0). */
static int vcount(size_t count, int q, int salt)
{
    if (count == 0 || (q * 5 + salt) % 4 == 0)
        return 0;
    return (int)count + (q + salt) % 3;
}

/* Displacements of the blocks counts[0..n-1]: in reverse rank order,
 * with gaps; returns the buffer's length in elements. */
static size_t vdispls(int n, const int *counts, int salt, int *displs)
{
    size_t d = 0;

    for (int q = n - 1; q >= 0; q--) {
        d += (size_t)((q + salt) % 3);
        displs[q] = (int)d;
        d += (size_t)counts[q];
    }
    return d + 1;
}

static int *vcounts(run *r, size_t count, int salt)
{
    int *c = xalloc(2 * (size_t)r->n * sizeof *c);

    for (int q = 0; q < r->n; q++)
        c[q] = vcount(count, q, salt);
    return c;   /* room for the displacements after the counts */
}

/* root may be ECO_ALL.  Non-receiving members pass NULL arrays. */
static void t_gatherv(run *r, int dt, size_t count, int root, int salt)
{
    const size_t sz = tsize(dt);
    int *cnt = vcounts(r, count, salt), *dsp = cnt + r->n;
    size_t len = vdispls(r->n, cnt, salt, dsp) * sz;
    int gets = root == ECO_ALL || root == r->me, ip = gets && in_place(salt), rc;
    char *mine = xalloc((size_t)cnt[r->me] * sz), *out = gets ? xalloc(len) : NULL;
    char *ref = xalloc(len);

    fill(dt, mine, (size_t)cnt[r->me], r->me, salt);
    memset(ref, 0x3C, len);
    for (int q = 0; q < r->n; q++)
        fill(dt, ref + (size_t)dsp[q] * sz, (size_t)cnt[q], q, salt);
    if (out)
        memset(out, 0x3C, len);
    if (ip)
        memcpy(out + (size_t)dsp[r->me] * sz, mine, (size_t)cnt[r->me] * sz);
    rc = eco_gatherv(r->ctx, ip ? ECO_IN_PLACE : mine, cnt[r->me], out,
                     gets ? cnt : NULL, gets ? dsp : NULL, dt, root);
    ecot_check(r->rep, rc == 0 && (!gets || memcmp(out, ref, len) == 0),
               "gatherv%s %s count %zu root %d: rank %d rc %d", ipname(ip), tname(dt), count,
               root, r->me, rc);
    free(cnt);
    free(mine);
    free(out);
    free(ref);
}

static void t_scatterv(run *r, int dt, size_t count, int root, int salt)
{
    const size_t sz = tsize(dt);
    int *cnt = vcounts(r, count, salt), *dsp = cnt + r->n;
    size_t len = vdispls(r->n, cnt, salt, dsp) * sz, b = (size_t)cnt[r->me] * sz;
    int ip = in_place(salt) && r->me == root, rc;
    char *send = NULL, *mine = xalloc(b + sz), *ref = xalloc(b + sz);

    if (r->me == root) {
        send = xalloc(len);
        memset(send, 0x4D, len);
        for (int q = 0; q < r->n; q++)
            fill(dt, send + (size_t)dsp[q] * sz, (size_t)cnt[q], q, salt);
    }
    memset(mine, 0x5A, b + sz);
    memset(ref, 0x5A, b + sz);
    fill(dt, ref, (size_t)cnt[r->me], r->me, salt);
    rc = eco_scatterv(r->ctx, send, r->me == root ? cnt : NULL, r->me == root ? dsp : NULL,
                      ip ? ECO_IN_PLACE : mine, cnt[r->me], dt, root);
    ecot_check(r->rep, rc == 0 && memcmp(ip ? send + (size_t)dsp[root] * sz : mine, ref,
                                         ip ? b : b + sz) == 0,
               "scatterv%s %s count %zu root %d: rank %d rc %d", ipname(ip), tname(dt), count,
               root, r->me, rc);
    free(cnt);
    free(send);
    free(mine);
    free(ref);
}

/* Elements from member i to member j: symmetric, so that in place works. */
static int pair_count(size_t count, int i, int j, int salt)
{
    return count == 0 || (i + j + salt) % 4 == 0 ? 0 : (int)count + (i * j) % 3;
}

static void t_alltoallv(run *r, int dt, size_t count, int salt)
{
    const size_t sz = tsize(dt);
    const int n = r->n;
    int *cnt = xalloc(3 * (size_t)n * sizeof *cnt), *sd = cnt + n, *rd = sd + n;
    int ip = in_place(salt), rc;
    size_t slen, rlen;
    char *send, *out, *ref;

    for (int q = 0; q < n; q++)
        cnt[q] = pair_count(count, r->me, q, salt);
    slen = vdispls(n, cnt, salt, sd) * sz;
    rlen = vdispls(n, cnt, salt + 1, rd) * sz;
    send = xalloc(slen);
    out = xalloc(rlen);
    ref = xalloc(rlen);
    memset(ref, 0x2B, rlen);
    memset(out, 0x2B, rlen);
    /* the block from i to j carries fill(rank = i * n + j) */
    for (int q = 0; q < n; q++) {
        fill(dt, send + (size_t)sd[q] * sz, (size_t)cnt[q], r->me * n + q, salt);
        fill(dt, ref + (size_t)rd[q] * sz, (size_t)cnt[q], q * n + r->me, salt);
        if (ip)
            fill(dt, out + (size_t)rd[q] * sz, (size_t)cnt[q], r->me * n + q, salt);
    }
    rc = eco_alltoallv(r->ctx, ip ? ECO_IN_PLACE : send, cnt, sd, out, cnt, rd, dt);
    ecot_check(r->rep, rc == 0 && memcmp(out, ref, rlen) == 0,
               "alltoallv%s %s count %zu: rank %d rc %d", ipname(ip), tname(dt), count, r->me,
               rc);
    free(cnt);
    free(send);
    free(out);
    free(ref);
}

static void t_reduce_scatter(run *r, int dt, size_t count, eco_op op, int salt)
{
    const size_t sz = tsize(dt);
    int *cnt = vcounts(r, count, salt), ip = in_place(salt), rc;
    size_t total = 0, at = 0, b;
    char *in, *out, *ref;

    for (int q = 0; q < r->n; q++) {
        at += q < r->me ? (size_t)cnt[q] : 0;
        total += (size_t)cnt[q];
    }
    b = (size_t)cnt[r->me] * sz;
    in = xalloc(total * sz);
    out = xalloc(total * sz + sz);
    ref = xalloc(total * sz);
    fill_small(dt, in, total, r->me, salt);
    memset(out, 0x77, total * sz + sz);
    if (ip)
        memcpy(out, in, total * sz);
    rc = eco_reduce_scatter(r->ctx, ip ? ECO_IN_PLACE : in, out, cnt, dt, op);
    reduce_ref(r, dt, total, op, salt, ref, r->n - 1);
    /* the block, and (not in place) nothing written past it */
    ecot_check(r->rep, rc == 0 && same(dt, out, ref + at * sz, (size_t)cnt[r->me]) &&
                       (ip || (unsigned char)out[b] == 0x77),
               "reduce_scatter%s %s %s count %zu: rank %d rc %d", ipname(ip), opname(op),
               tname(dt), count, r->me, rc);
    free(cnt);
    free(in);
    free(out);
    free(ref);
}

static void t_ring(run *r)
{
    int *order = xalloc((size_t)r->n * sizeof *order), *seen = calloc((size_t)r->n, sizeof(int));
    int rc = eco_ring(r->ctx, order), ok = rc == 0 && seen;

    for (int i = 0; ok && i < r->n; i++) {
        ok = order[i] >= 0 && order[i] < r->n && !seen[order[i]];
        if (ok)
            seen[order[i]] = 1;
    }
    ecot_check(r->rep, ok, "ring: rank %d rc %d, not a permutation", r->me, rc);
    free(order);
    free(seen);
}

/* ------------------------------------------------------------------ */
/* User ops                                                            */
/* ------------------------------------------------------------------ */

void ecot_xor(int *datatype, void *x, void *y, int *num, int *info)
{
    if (*datatype != PVM_INT) {
        *info = PvmBadParam;
        return;
    }
    for (int i = 0; i < *num; i++)
        ((int *)x)[i] ^= ((int *)y)[i];
    *info = 0;
}

void ecot_matmul(int *datatype, void *x, void *y, int *num, int *info)
{
    int *a = x, *b = y;

    if (*datatype != PVM_INT || *num % 4) {
        *info = PvmBadParam;
        return;
    }
    for (int m = 0; m < *num; m += 4) {
        int r0 = a[m] * b[m] + a[m + 1] * b[m + 2];
        int r1 = a[m] * b[m + 1] + a[m + 1] * b[m + 3];
        int r2 = a[m + 2] * b[m] + a[m + 3] * b[m + 2];
        int r3 = a[m + 2] * b[m + 1] + a[m + 3] * b[m + 3];
        a[m] = r0; a[m + 1] = r1; a[m + 2] = r2; a[m + 3] = r3;
    }
    *info = 0;
}

/* ------------------------------------------------------------------ */
/* The battery                                                         */
/* ------------------------------------------------------------------ */

/* Nonblocking calls: for every root, a broadcast, a reduce to the root, a
 * reduce-to-all, a barrier, a gather to the root, a scatter from it and
 * a gather-to-all started one after the other and completed in the
 * reverse order; then by eco_test alone; then with a blocking call
 * between a start and its wait.  Every member checks its data. */
static void t_nonblocking(run *r, int dt, size_t count, int salt)
{
    size_t b = count * tsize(dt), bn = b * (size_t)r->n;
    char *bc = xalloc(b), *bref = xalloc(b), *mine = xalloc(b), *red = xalloc(b);
    char *all = xalloc(b), *rref = xalloc(b), *mid = xalloc(b);
    char *gat = xalloc(bn), *gall = xalloc(bn), *gref = xalloc(bn), *sc = xalloc(b);
    char *a2s = xalloc(bn), *a2r = xalloc(bn), *a2ref = xalloc(bn), *pre = xalloc(b);
    eco_request *q[9];
    int rc[9], done = 0, polls = 0, rcb;

    for (int root = 0; root < r->n; root++) {
        int k = salt + root;
        fill(dt, bref, count, root, k);
        if (r->me == root)
            memcpy(bc, bref, b);
        else
            memset(bc, 0xA5, b);
        fill_small(dt, mine, count, r->me, k);
        memset(red, 0x77, b);
        memset(all, 0x66, b);
        rc[0] = eco_ibcast(r->ctx, bc, (int)count, dt, root, &q[0]);
        rc[1] = eco_ireduce(r->ctx, mine, r->me == root ? red : NULL, (int)count, dt, ECO_SUM,
                            root, &q[1]);
        rc[2] = eco_ireduce(r->ctx, mine, all, (int)count, dt, ECO_MAX, ECO_ALL, &q[2]);
        rc[3] = eco_ibarrier(r->ctx, &q[3]);
        for (int p = 0; p < r->n; p++)      /* gather's and scatter's blocks */
            fill(dt, gref + (size_t)p * b, count, p, k);
        memset(gat, 0x3C, bn);
        memset(gall, 0x3D, bn);
        memset(sc, 0x5A, b);
        rc[4] = eco_igather(r->ctx, gref + (size_t)r->me * b, r->me == root ? gat : NULL,
                            (int)count, dt, root, &q[4]);
        rc[5] = eco_iscatter(r->ctx, r->me == root ? gref : NULL, sc, (int)count, dt, root,
                             &q[5]);
        rc[6] = eco_igather(r->ctx, gref + (size_t)r->me * b, gall, (int)count, dt, ECO_ALL,
                            &q[6]);
        for (int p = 0; p < r->n; p++) {    /* block j of member i: fill(i * n + j) */
            fill(dt, a2s + (size_t)p * b, count, r->me * r->n + p, k);
            fill(dt, a2ref + (size_t)p * b, count, p * r->n + r->me, k);
        }
        memset(a2r, 0x2B, bn);
        memset(pre, 0x1F, b);
        rc[7] = eco_ialltoall(r->ctx, a2s, a2r, (int)count, dt, &q[7]);
        rc[8] = eco_iscan(r->ctx, mine, pre, (int)count, dt, ECO_SUM, &q[8]);
        for (int i = 8; i >= 0; i--)
            if (rc[i] == 0)
                rc[i] = eco_wait(&q[i]);
        ecot_check(r->rep, rc[0] == 0 && q[0] == NULL && memcmp(bc, bref, b) == 0,
                   "ibcast %s count %zu root %d: rank %d rc %d", tname(dt), count, root,
                   r->me, rc[0]);
        reduce_ref(r, dt, count, ECO_SUM, k, rref, r->n - 1);
        ecot_check(r->rep, rc[1] == 0 && q[1] == NULL &&
                   (r->me != root || same(dt, red, rref, count)),
                   "ireduce SUM %s count %zu root %d: rank %d rc %d", tname(dt), count, root,
                   r->me, rc[1]);
        reduce_ref(r, dt, count, ECO_MAX, k, rref, r->n - 1);
        ecot_check(r->rep, rc[2] == 0 && q[2] == NULL && same(dt, all, rref, count),
                   "ireduce-to-all MAX %s count %zu (root %d's round): rank %d rc %d",
                   tname(dt), count, root, r->me, rc[2]);
        ecot_check(r->rep, rc[3] == 0 && q[3] == NULL, "ibarrier: rank %d rc %d", r->me,
                   rc[3]);
        ecot_check(r->rep, rc[4] == 0 && q[4] == NULL &&
                   (r->me != root || memcmp(gat, gref, bn) == 0),
                   "igather %s count %zu root %d: rank %d rc %d", tname(dt), count, root,
                   r->me, rc[4]);
        ecot_check(r->rep, rc[5] == 0 && q[5] == NULL &&
                   memcmp(sc, gref + (size_t)r->me * b, b) == 0,
                   "iscatter %s count %zu root %d: rank %d rc %d", tname(dt), count, root,
                   r->me, rc[5]);
        ecot_check(r->rep, rc[6] == 0 && q[6] == NULL && memcmp(gall, gref, bn) == 0,
                   "igather to all %s count %zu (root %d's round): rank %d rc %d", tname(dt),
                   count, root, r->me, rc[6]);
        ecot_check(r->rep, rc[7] == 0 && q[7] == NULL && memcmp(a2r, a2ref, bn) == 0,
                   "ialltoall %s count %zu (root %d's round): rank %d rc %d", tname(dt),
                   count, root, r->me, rc[7]);
        reduce_ref(r, dt, count, ECO_SUM, k, rref, r->me);
        ecot_check(r->rep, rc[8] == 0 && q[8] == NULL && same(dt, pre, rref, count),
                   "iscan SUM %s count %zu (root %d's round): rank %d rc %d", tname(dt),
                   count, root, r->me, rc[8]);
    }
    /* eco_test alone, then eco_wait on a finished request */
    fill_small(dt, mine, count, r->me, salt);
    rc[0] = eco_ireduce(r->ctx, mine, all, (int)count, dt, ECO_SUM, ECO_ALL, &q[0]);
    rc[1] = eco_ibarrier(r->ctx, &q[1]);
    while (rc[0] == 0 && !done && polls++ < 100000000) {
        rc[0] = eco_test(&q[0], &done);
        sched_yield();      /* the program's own work */
    }
    rc[1] = rc[1] == 0 ? eco_waitall(1, &q[1]) : rc[1];
    reduce_ref(r, dt, count, ECO_SUM, salt, rref, r->n - 1);
    ecot_check(r->rep, done && rc[0] == 0 && rc[1] == 0 && q[0] == NULL && q[1] == NULL &&
               same(dt, all, rref, count),
               "eco_test on ireduce-to-all %s count %zu: rank %d rc %d/%d done %d",
               tname(dt), count, r->me, rc[0], rc[1], done);
    /* a blocking call while a request is under way runs after it */
    fill(dt, bref, count, r->n - 1, salt);
    if (r->me == r->n - 1)
        memcpy(bc, bref, b);
    else
        memset(bc, 0xA5, b);
    rc[0] = eco_ibcast(r->ctx, bc, (int)count, dt, r->n - 1, &q[0]);
    rcb = eco_reduce(r->ctx, mine, mid, (int)count, dt, ECO_SUM, ECO_ALL);
    rc[0] = rc[0] == 0 ? eco_waitall(1, q) : rc[0];
    ecot_check(r->rep, rc[0] == 0 && rcb == 0 && memcmp(bc, bref, b) == 0 &&
               same(dt, mid, rref, count),
               "ibcast %s count %zu around a blocking reduce-to-all: rank %d rc %d/%d",
               tname(dt), count, r->me, rc[0], rcb);
    free(bc);
    free(bref);
    free(mine);
    free(red);
    free(all);
    free(rref);
    free(mid);
    free(gat);
    free(gall);
    free(gref);
    free(sc);
    free(a2s);
    free(a2r);
    free(a2ref);
    free(pre);
}

static int is_complex(int dt)
{
    return dt == PVM_CPLX || dt == PVM_DCPLX;
}

/* Every operation for one datatype and count, every root. */
static void one_size(run *r, int dt, size_t count, int salt)
{
    eco_op ops[] = { ECO_SUM, ECO_PROD, ECO_MAX, ECO_MIN };
    int nops = is_complex(dt) ? 2 : 4;

    for (int root = 0; root < r->n; root++) {
        t_bcast(r, dt, count, root, salt + root);
        t_scatter(r, dt, count, root, salt + root);
        t_gather(r, dt, count, root, salt + root);
        t_reduce(r, dt, count, ops[root % nops], root, salt + root);
    }
    t_gather(r, dt, count, ECO_ALL, salt);
    for (int o = 0; o < nops; o++)
        t_reduce(r, dt, count, ops[o], ECO_ALL, salt + o);
    t_scan(r, dt, count, ECO_SUM, salt);
    t_alltoall(r, dt, count, salt);
    for (int root = 0; root < r->n; root++) {
        t_gatherv(r, dt, count, root, salt + root);
        t_scatterv(r, dt, count, root, salt + root);
    }
    t_gatherv(r, dt, count, ECO_ALL, salt);
    t_gatherv(r, dt, count, ECO_ALL, salt + 1);
    t_alltoallv(r, dt, count, salt);
    t_alltoallv(r, dt, count, salt + 1);
    t_reduce_scatter(r, dt, count, ops[salt % nops], salt);
    t_reduce_scatter(r, dt, count, ops[(salt + 1) % nops], salt + 1);
    t_exscan(r, dt, count, ECO_SUM, salt);
    t_exscan(r, dt, count, ops[(salt + 1) % nops], salt + 1);
}

int ecot_battery(eco_ctx *ctx, int depth, ecot_report *rep)
{
    static const size_t counts[] = { 0, 1, 7, 1000 };
    run r = { ctx, eco_size(ctx), eco_rank(ctx), rep };
    int salt = 1;

    for (int t = 0; t < NTYPES; t++) {
        int dt = all_types[t];
        int main_type = dt == PVM_BYTE || dt == PVM_INT || dt == PVM_DOUBLE;
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
            if (depth == ECOT_FULL || main_type || counts[c] == 7)
                one_size(&r, dt, counts[c], salt++);
    }
    if (depth == ECOT_FULL) {
        one_size(&r, PVM_BYTE, 1 << 20, salt++);
        one_size(&r, PVM_DOUBLE, (1 << 20) / sizeof(double), salt++);
    }
    for (int root = 0; root < r.n; root++)
        t_reduce(&r, PVM_INT, 9, ecot_xor, root, salt++);
    t_reduce(&r, PVM_INT, 9, ecot_xor, ECO_ALL, salt++);
    t_allreduce_agree(&r, 7, ECO_SUM, salt++);
    t_allreduce_agree(&r, 7, ECO_MIN, salt++);
    t_allreduce_agree(&r, 1000, ECO_SUM, salt++);
    t_scan_grouping(&r, 7, salt++);
    t_scan(&r, PVM_INT, 4, ecot_matmul, salt++);
    t_scan(&r, PVM_INT, 28, ecot_matmul, salt++);
    t_exscan(&r, PVM_INT, 4, ecot_matmul, salt++);
    t_exscan(&r, PVM_INT, 28, ecot_matmul, salt++);
    t_reduce_scatter(&r, PVM_INT, 9, ecot_xor, salt++);
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
        t_nonblocking(&r, c % 2 ? PVM_DOUBLE : PVM_INT, counts[c], salt++);
    if (depth == ECOT_FULL)
        t_nonblocking(&r, PVM_DOUBLE, (1 << 20) / sizeof(double), salt++);
    ecot_check(rep, eco_barrier(ctx) == 0, "barrier: rank %d", r.me);
    t_ring(&r);
    return rep->failures;
}

/* ------------------------------------------------------------------ */
/* Members that disagree                                               */
/* ------------------------------------------------------------------ */

enum { OP_BCAST, OP_REDUCE, OP_ALLREDUCE, OP_GATHER, OP_ALLGATHER, OP_SCATTER,
       OP_ALLTOALL, OP_SCAN, OP_GATHERV, OP_ALLGATHERV, OP_SCATTERV, OP_ALLTOALLV,
       OP_REDUCE_SCATTER, OP_EXSCAN, NOPS };
enum { D_COUNT_FIRST, D_COUNT_LAST, D_COUNT_ZERO, D_TYPE, D_ROOT, D_OP, D_KIND,
       D_PAIR_MORE, D_PAIR_NONE, D_PAIR_EXPECT_NONE, NDIFFS };
static const char *const op_names[NOPS] = {
    "bcast", "reduce", "reduce-to-all", "gather", "gather-to-all", "scatter",
    "alltoall", "scan", "gatherv", "gather-to-all with counts", "scatterv", "alltoallv",
    "reduce_scatter", "exscan"
};
static const char *const diff_names[NDIFFS] = {
    "count+1 at rank 0", "count+1 at the last rank", "count 0 at rank 2",
    "float for int at rank 1", "another root at rank 1", "max for sum at rank 1",
    "a barrier at rank 1", "rank 1 sends rank 2 one more", "rank 1 sends rank 2 none",
    "rank 2 expects none from rank 1"
};
static const int mm_counts[] = { 5, 3000 };
#define NCOUNTS ((int)(sizeof mm_counts / sizeof mm_counts[0]))

/* Does the difference apply to the operation (of mm_counts[c])?  The
 * vector forms with the short count only; the differences of one pair's
 * count to alltoallv only (no other member can see them: only the pair's
 * receiver can tell). */
static int applies(int op, int d, int c)
{
    int rooted = op == OP_BCAST || op == OP_REDUCE || op == OP_GATHER || op == OP_SCATTER ||
                 op == OP_GATHERV || op == OP_SCATTERV;
    int has_op = op == OP_REDUCE || op == OP_ALLREDUCE || op == OP_SCAN ||
                 op == OP_REDUCE_SCATTER || op == OP_EXSCAN;

    int pair = d == D_PAIR_MORE || d == D_PAIR_NONE || d == D_PAIR_EXPECT_NONE;

    return (d != D_ROOT || rooted) && (d != D_OP || has_op) && (op < OP_GATHERV || c == 0) &&
           (!pair || op == OP_ALLTOALLV);
}

int ecot_mismatch_cases(void)
{
    return NOPS * NDIFFS * NCOUNTS;
}

int ecot_mismatch_name(int k, char *buf, size_t len)
{
    int op = k / (NDIFFS * NCOUNTS), d = k / NCOUNTS % NDIFFS, c = k % NCOUNTS;

    snprintf(buf, len, "%s of %d ints, %s", op_names[op], mm_counts[c], diff_names[d]);
    return applies(op, d, c);
}

int ecot_mismatch_run(eco_ctx *ctx, int k, int *first, int *second)
{
    const int n = eco_size(ctx), me = eco_rank(ctx);
    int op = k / (NDIFFS * NCOUNTS), d = k / NCOUNTS % NDIFFS;
    int count = mm_counts[k % NCOUNTS], dt = PVM_INT, root = n > 1 ? 1 : 0;
    eco_op f = ECO_SUM;
    int *a, *b, *cnt, *dsp, *scnt;

    *first = *second = ECO_OK;
    if (!applies(op, d, k % NCOUNTS) || n < 3)
        return 0;
    if ((d == D_COUNT_FIRST && me == 0) || (d == D_COUNT_LAST && me == n - 1))
        count++;
    if (d == D_COUNT_ZERO && me == 2)
        count = 0;
    if (d == D_TYPE && me == 1)
        dt = PVM_FLOAT;
    if (d == D_ROOT && me == 1)
        root = 2;
    if (d == D_OP && me == 1)
        f = ECO_MAX;
    a = xalloc((size_t)n * (size_t)(count + 1) * sizeof(int));
    b = xalloc((size_t)n * (size_t)(count + 1) * sizeof(int));
    for (size_t i = 0; i < (size_t)n * (size_t)(count + 1); i++)
        a[i] = (int)i + me;
    /* the vector forms: count for every member, blocks count + 1 apart */
    cnt = xalloc(3 * (size_t)n * sizeof *cnt);
    dsp = cnt + n;
    scnt = dsp + n;           /* alltoallv's send counts */
    for (int q = 0; q < n; q++) {
        cnt[q] = scnt[q] = count;
        dsp[q] = q * (count + 1);
    }
    if (d == D_PAIR_MORE && me == 1)
        scnt[2] = count + 1;
    if (d == D_PAIR_NONE && me == 1)
        scnt[2] = 0;
    if (d == D_PAIR_EXPECT_NONE && me == 2)
        cnt[1] = 0;
    if (d == D_KIND && me == 1)
        *first = eco_barrier(ctx);
    else
        switch (op) {
        case OP_BCAST: *first = eco_bcast(ctx, a, count, dt, root); break;
        case OP_REDUCE: *first = eco_reduce(ctx, a, b, count, dt, f, root); break;
        case OP_ALLREDUCE: *first = eco_reduce(ctx, a, b, count, dt, f, ECO_ALL); break;
        case OP_GATHER: *first = eco_gather(ctx, a, b, count, dt, root); break;
        case OP_ALLGATHER: *first = eco_gather(ctx, a, b, count, dt, ECO_ALL); break;
        case OP_SCATTER: *first = eco_scatter(ctx, a, b, count, dt, root); break;
        case OP_ALLTOALL: *first = eco_alltoall(ctx, a, b, count, dt); break;
        case OP_GATHERV: *first = eco_gatherv(ctx, a, count, b, cnt, dsp, dt, root); break;
        case OP_ALLGATHERV:
            *first = eco_gatherv(ctx, a, count, b, cnt, dsp, dt, ECO_ALL);
            break;
        case OP_SCATTERV: *first = eco_scatterv(ctx, a, cnt, dsp, b, count, dt, root); break;
        case OP_ALLTOALLV:
            *first = eco_alltoallv(ctx, a, scnt, dsp, b, cnt, dsp, dt);
            break;
        case OP_REDUCE_SCATTER: *first = eco_reduce_scatter(ctx, a, b, cnt, dt, f); break;
        case OP_EXSCAN: *first = eco_exscan(ctx, a, b, count, dt, f); break;
        default: *first = eco_scan(ctx, a, b, count, dt, f); break;
        }
    /* The next call: a member that heard nothing back learns it here. */
    *second = eco_barrier(ctx);
    free(a);
    free(b);
    free(cnt);
    return 1;
}
