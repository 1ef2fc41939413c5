/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lg_gather.c -- a legacy PVM program: pvm_gather of every datatype PVM
 * gathers, to every root, short and long; a root without a result array;
 * a datatype PVM refuses.  The master and the workers are members of "gat".
 */
#include "lg_common.h"

#define COUNT 3
#define LONGCOUNT 50000   /* 200 KB per member */

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

/* Element j of instance i, as a number every type holds exactly. */
static int elem(int i, int j)
{
    return (i * 13 + j * 5 + 3) % 120;
}

static void fill(void *buf, int dt, int n, int inst)
{
    for (int j = 0; j < n; j++) {
        int v = elem(inst, j);
        switch (dt) {
        case PVM_BYTE: ((unsigned char *)buf)[j] = (unsigned char)v; break;
        case PVM_SHORT: ((short *)buf)[j] = (short)v; break;
        case PVM_INT: case PVM_UINT: ((int *)buf)[j] = v; break;
        case PVM_LONG: ((long *)buf)[j] = v; break;
        case PVM_FLOAT: ((float *)buf)[j] = (float)v; break;
        case PVM_DOUBLE: ((double *)buf)[j] = v; break;
        case PVM_CPLX: ((float *)buf)[2 * j] = (float)v; ((float *)buf)[2 * j + 1] = (float)-v; break;
        default: ((double *)buf)[2 * j] = v; ((double *)buf)[2 * j + 1] = -v; break;
        }
    }
}


static int tag_seq = 200;

static void one(const dtype *t, int inst, int n, int count, int root, int noresult)
{
    int per = (t->dt == PVM_CPLX || t->dt == PVM_DCPLX) ? 2 : 1;
    char *data = malloc((size_t)count * t->size), *result = NULL, text[4096];
    int rc;

    fill(data, t->dt, count, inst);
    if (inst == root && !noresult)
        result = calloc((size_t)n * (size_t)count, t->size);
    rc = pvm_gather(result, data, count, t->dt, tag_seq++, "gat", root);
    text[0] = '\0';
    if (inst == root && rc >= 0 && result)
        lg_describe(text, sizeof text, result, t->dt, (long)n * count * per, count > COUNT);
    if (inst == root)
        lg_line("gather %s count=%d root=%d%s: rc=%d%s", t->name, count, root,
                noresult ? " (no result array)" : "", rc, text);
    else if (rc < 0)
        lg_line("gather %s count=%d root=%d: member %d rc=%d", t->name, count, root, inst, rc);
    free(data);
    free(result);
}

int main(int argc, char **argv)
{
    static const dtype uint_type = { PVM_UINT, "UINT", sizeof(int) };
    int inst, n;

    lg_start(argc, argv);
    inst = lg_join_all("gat", &n);
    for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) {
        for (int root = 0; root < n; root++)
            one(&types[k], inst, n, COUNT, root, 0);
        lg_flush(types[k].name);
        pvm_barrier("gat", n);
    }
    for (int root = 0; root < n; root++)
        one(&types[5], inst, n, LONGCOUNT, root, 0);
    lg_flush("DOUBLE long");
    pvm_barrier("gat", n);
    one(&types[2], inst, n, COUNT, n - 1, 1);
    lg_flush("no result array at the root");
    pvm_barrier("gat", n);
    /* PVM refuses UINT at every member. */
    one(&uint_type, inst, n, COUNT, 1, 0);
    lg_flush("UINT");
    pvm_barrier("gat", n);
    pvm_lvgroup("gat");
    return lg_end();
}
