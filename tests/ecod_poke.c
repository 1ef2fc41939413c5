/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ecod_poke.c -- for tests/ecod.test: send one PVM message of integers,
 * as pvmd's notices look, so that ecod's reaction to hosts joining and
 * leaving can be tested on a single-host virtual machine.
 *
 *   ecod_poke TID TAG INT...     (TID and TAG in hex, e.g. t40003 or 40003)
 */
#include <stdio.h>
#include <stdlib.h>
#include <pvm3.h>

int main(int argc, char **argv)
{
    int tid, tag, n = argc - 3, *v;

    if (argc < 3) {
        fprintf(stderr, "usage: ecod_poke TID TAG INT...\n");
        return 2;
    }
    tid = (int)strtol(argv[1] + (argv[1][0] == 't'), NULL, 16);
    tag = (int)strtol(argv[2], NULL, 16);
    if (!(v = malloc(((size_t)n + 1) * sizeof *v)))
        return 1;
    for (int i = 0; i < n; i++)
        v[i] = (int)strtol(argv[3 + i] + (argv[3 + i][0] == 't'), NULL, 16);
    if (pvm_mytid() < 0) {
        free(v);
        return 1;
    }
    pvm_initsend(PvmDataDefault);
    pvm_pkint(v, n, 1);
    n = pvm_send(tid, tag);
    pvm_exit();
    free(v);
    return n < 0;
}
