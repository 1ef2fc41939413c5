/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lg_scatter.c -- a legacy PVM program: pvm_scatter of every datatype PVM
 * scatters, from every root, short and long; a member without a result
 * array; a datatype PVM refuses.  The master and the workers are members
 * of "sca".
 */
#include "lg_common.h"

#define COUNT 3
#define LONGCOUNT 40000   /* 320 KB of doubles per member */

typedef struct dtype {
    int dt;
    const char *name;
    size_t size;
} dtype;

static const dtype types[] = {
    { PVM_BYTE, "BYTE", 1 }, { PVM_SHORT, "SHORT", sizeof(short) },
    { PVM_INT, "INT", sizeof(int) }, { PVM_LONG, "LONG", sizeof(long) },
    { PVM_FLOAT, "FLOAT", sizeof(float) }, { PVM_DOUBLE, "DOUBLE", sizeof(double) },
    { PVM_CPLX, "CPLX", 2 * sizeof(float) }, { PVM_DCPLX, "DCPLX", 2 * sizeof(double) },
};

static void set(void *buf, int dt, long k, int v)
{
    switch (dt) {
    case PVM_BYTE: ((unsigned char *)buf)[k] = (unsigned char)v; break;
    case PVM_SHORT: ((short *)buf)[k] = (short)v; break;
    case PVM_INT: case PVM_UINT: ((int *)buf)[k] = v; break;
    case PVM_LONG: ((long *)buf)[k] = v; break;
    case PVM_FLOAT: case PVM_CPLX: ((float *)buf)[k] = (float)v; break;
    default: ((double *)buf)[k] = v; break;
    }
}


static int tag_seq = 300;

static void one(const dtype *t, int inst, int n, int count, int root, int noresult_inst)
{
    int per = (t->dt == PVM_CPLX || t->dt == PVM_DCPLX) ? 2 : 1;
    char *data = NULL, *result = NULL, text[2048];
    int rc;

    if (inst == root) {
        data = malloc((size_t)n * (size_t)count * t->size);
        for (long k = 0; k < (long)n * count * per; k++)
            set(data, t->dt, k, (int)((k * 7 + root * 3) % 125));
    }
    if (inst != noresult_inst)
        result = calloc((size_t)count, t->size);
    rc = pvm_scatter(result, data, count, t->dt, tag_seq++, "sca", root);
    text[0] = '\0';
    if (rc >= 0 && result)
        lg_describe(text, sizeof text, result, t->dt, (long)count * per, count > COUNT);
    lg_line("scatter %s count=%d root=%d member %d: rc=%d%s", t->name, count, root, inst,
            rc, text);
    free(data);
    free(result);
}

int main(int argc, char **argv)
{
    static const dtype uint_type = { PVM_UINT, "UINT", sizeof(int) };
    int inst, n;

    lg_start(argc, argv);
    inst = lg_join_all("sca", &n);
    for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) {
        for (int root = 0; root < n; root++)
            one(&types[k], inst, n, COUNT, root, -1);
        lg_flush(types[k].name);
        pvm_barrier("sca", n);
    }
    for (int root = 0; root < n; root++)
        one(&types[5], inst, n, LONGCOUNT, root, -1);
    lg_flush("DOUBLE long");
    pvm_barrier("sca", n);
    one(&types[2], inst, n, COUNT, 0, 2);
    lg_flush("member 2 without a result array");
    pvm_barrier("sca", n);
    one(&uint_type, inst, n, COUNT, 1, -1);
    lg_flush("UINT");
    pvm_barrier("sca", n);
    pvm_lvgroup("sca");
    return lg_end();
}
