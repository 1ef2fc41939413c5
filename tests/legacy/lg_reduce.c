/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lg_reduce.c -- a legacy PVM program: pvm_reduce with PVM's four
 * functions and with user functions, on every datatype PVM reduces, to
 * every root, on a short and on a long vector; then a datatype PVM
 * refuses.  The master and the workers are all members of "red".
 */
#include "lg_common.h"

#define COUNT 5
#define LONGCOUNT 20000   /* 160 KB of doubles: the tree cuts it in segments */

/* Bitwise or: associative and commutative. */
static void orfun(int *dt, void *x, void *y, int *num, int *info)
{
    if (*dt != PVM_INT) {
        *info = PvmBadParam;
        return;
    }
    for (int i = 0; i < *num; i++)
        ((int *)x)[i] |= ((int *)y)[i];
    *info = PvmOk;
}

/* Sum modulo 1000. */
static void summod(int *dt, void *x, void *y, int *num, int *info)
{
    if (*dt != PVM_INT) {
        *info = PvmBadParam;
        return;
    }
    for (int i = 0; i < *num; i++)
        ((int *)x)[i] = (((int *)x)[i] + ((int *)y)[i]) % 1000;
    *info = PvmOk;
}

/* (value, index) pairs of doubles: the larger value, ties to the lower index. */
static void maxloc(int *dt, void *x, void *y, int *num, int *info)
{
    double *a = x, *b = y;

    if (*dt != PVM_DOUBLE || *num % 2) {
        *info = PvmBadParam;
        return;
    }
    for (int i = 0; i < *num; i += 2)
        if (b[i] > a[i] || (b[i] == a[i] && b[i + 1] < a[i + 1])) {
            a[i] = b[i];
            a[i + 1] = b[i + 1];
        }
    *info = PvmOk;
}

typedef void (*redfn)(int *, void *, void *, int *, int *);

typedef struct combo {
    const char *fname;
    redfn f;
    int dt;
    const char *dtname;
    int kind;   /* 0 sum-like values, 1 product values, 2 spread values, 3 pairs */
} combo;

static const combo combos[] = {
    { "PvmSum", PvmSum, PVM_INT, "INT", 0 },
    { "PvmSum", PvmSum, PVM_SHORT, "SHORT", 0 },
    { "PvmSum", PvmSum, PVM_LONG, "LONG", 0 },
    { "PvmSum", PvmSum, PVM_FLOAT, "FLOAT", 0 },
    { "PvmSum", PvmSum, PVM_DOUBLE, "DOUBLE", 0 },
    { "PvmSum", PvmSum, PVM_CPLX, "CPLX", 0 },
    { "PvmSum", PvmSum, PVM_DCPLX, "DCPLX", 0 },
    { "PvmProduct", PvmProduct, PVM_INT, "INT", 1 },
    { "PvmProduct", PvmProduct, PVM_DOUBLE, "DOUBLE", 1 },
    { "PvmProduct", PvmProduct, PVM_DCPLX, "DCPLX", 1 },
    { "PvmMax", PvmMax, PVM_INT, "INT", 2 },
    { "PvmMax", PvmMax, PVM_BYTE, "BYTE", 2 },
    { "PvmMax", PvmMax, PVM_DOUBLE, "DOUBLE", 2 },
    { "PvmMax", PvmMax, PVM_CPLX, "CPLX", 2 },
    { "PvmMin", PvmMin, PVM_INT, "INT", 2 },
    { "PvmMin", PvmMin, PVM_SHORT, "SHORT", 2 },
    { "PvmMin", PvmMin, PVM_DOUBLE, "DOUBLE", 2 },
    { "orfun", orfun, PVM_INT, "INT", 2 },
    { "summod", summod, PVM_INT, "INT", 0 },
    { "maxloc", maxloc, PVM_DOUBLE, "DOUBLE", 3 },
    { "PvmSum", PvmSum, PVM_UINT, "UINT", 0 },   /* PVM refuses UINT */
};

static double value(int kind, int inst, int j)
{
    switch (kind) {
    case 0: return inst * 7 + j * 3 + 1;
    case 1: return 1 + (inst + j) % 2;
    case 3: return j % 2 ? inst : (double)((inst * 5 + j) % 4);
    default: return (inst * 37 + j * 11) % 200;
    }
}

static size_t dsize(int dt)
{
    switch (dt) {
    case PVM_BYTE: return 1;
    case PVM_SHORT: return sizeof(short);
    case PVM_INT: case PVM_UINT: return sizeof(int);
    case PVM_LONG: return sizeof(long);
    case PVM_FLOAT: return sizeof(float);
    case PVM_CPLX: return 2 * sizeof(float);
    case PVM_DOUBLE: return sizeof(double);
    default: return 2 * sizeof(double);
    }
}

/* Element j (a real or a complex pair) from value(). */
static void put(void *buf, int dt, int j, double v, double w)
{
    switch (dt) {
    case PVM_BYTE: ((unsigned char *)buf)[j] = (unsigned char)v; break;
    case PVM_SHORT: ((short *)buf)[j] = (short)v; break;
    case PVM_INT: case PVM_UINT: ((int *)buf)[j] = (int)v; break;
    case PVM_LONG: ((long *)buf)[j] = (long)v; break;
    case PVM_FLOAT: ((float *)buf)[j] = (float)v; break;
    case PVM_DOUBLE: ((double *)buf)[j] = v; break;
    case PVM_CPLX: ((float *)buf)[2 * j] = (float)v; ((float *)buf)[2 * j + 1] = (float)w; break;
    default: ((double *)buf)[2 * j] = v; ((double *)buf)[2 * j + 1] = w; break;
    }
}

static void show(char *out, size_t len, const void *buf, int dt, int count)
{
    size_t at = 0;

    out[0] = '\0';
    for (int j = 0; j < count && at < len - 64; j++) {
        switch (dt) {
        case PVM_BYTE: at += snprintf(out + at, len - at, " %u", ((unsigned char *)buf)[j]); break;
        case PVM_SHORT: at += snprintf(out + at, len - at, " %d", ((short *)buf)[j]); break;
        case PVM_INT: case PVM_UINT: at += snprintf(out + at, len - at, " %d", ((int *)buf)[j]); break;
        case PVM_LONG: at += snprintf(out + at, len - at, " %ld", ((long *)buf)[j]); break;
        case PVM_FLOAT: at += snprintf(out + at, len - at, " %g", ((float *)buf)[j]); break;
        case PVM_DOUBLE: at += snprintf(out + at, len - at, " %.17g", ((double *)buf)[j]); break;
        case PVM_CPLX: at += snprintf(out + at, len - at, " (%g,%g)", ((float *)buf)[2 * j],
                                      ((float *)buf)[2 * j + 1]); break;
        default: at += snprintf(out + at, len - at, " (%.17g,%.17g)", ((double *)buf)[2 * j],
                                ((double *)buf)[2 * j + 1]); break;
        }
    }
}

static int tag_seq = 100;

static void one(const combo *c, int inst, int n, int count, int root)
{
    char *data = malloc((size_t)count * dsize(c->dt)), text[1024];
    int tag = tag_seq++, rc;

    for (int j = 0; j < count; j++)
        put(data, c->dt, j, value(c->kind, inst, j), value(c->kind, inst + 1, j + 1));
    rc = pvm_reduce(c->f, data, count, c->dt, tag, "red", root);
    if (inst == root) {
        if (count > COUNT) {
            double s = 0;
            for (int j = 0; j < count; j++)
                s += ((double *)data)[j] * (j % 7 + 1);
            snprintf(text, sizeof text, " checksum %.17g", s);
        } else {
            show(text, sizeof text, data, c->dt, count);
        }
        lg_line("%s %s n=%d count=%d root=%d: rc=%d%s", c->fname, c->dtname, n, count,
                root, rc, rc >= 0 ? text : "");
    } else if (rc < 0) {
        lg_line("%s %s n=%d count=%d root=%d: member %d rc=%d", c->fname, c->dtname, n,
                count, root, inst, rc);
    }
    free(data);
}

int main(int argc, char **argv)
{
    int inst, n;

    lg_start(argc, argv);
    inst = lg_join_all("red", &n);
    for (size_t k = 0; k < sizeof combos / sizeof combos[0]; k++) {
        char phase[64];
        for (int root = 0; root < n; root++)
            one(&combos[k], inst, n, combos[k].kind == 3 ? 2 * COUNT : COUNT, root);
        snprintf(phase, sizeof phase, "%s %s", combos[k].fname, combos[k].dtname);
        lg_flush(phase);
        pvm_barrier("red", n);
    }
    /* A long vector, every root. */
    for (int root = 0; root < n; root++)
        one(&combos[4], inst, n, LONGCOUNT, root);
    lg_flush("PvmSum DOUBLE long");
    pvm_barrier("red", n);
    pvm_lvgroup("red");
    return lg_end();
}
