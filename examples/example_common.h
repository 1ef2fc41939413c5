/*
 * example_common.h -- the start-up every example shares: the first task
 * (started by hand) spawns the others as copies of itself and tells every
 * task the full task list, which is what eco_init needs.
 */
#ifndef ECO_EXAMPLE_COMMON_H
#define ECO_EXAMPLE_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <pvm3.h>

#define EXAMPLE_TAG_LIST 1

/* Returns the task list (ntasks entries) in every task, or NULL. */
static inline int *example_start(int argc, char **argv, int *ntasks)
{
    static char self[4096];
    int *tids, n = argc > 1 ? atoi(argv[1]) : 4;
    ssize_t len;

    if (pvm_mytid() < 0) {
        fprintf(stderr, "%s: no PVM virtual machine (start pvmd first)\n", argv[0]);
        return NULL;
    }
    if (pvm_parent() == PvmNoParent) {
        if (n < 1 || n > 1024 || (len = readlink("/proc/self/exe", self, sizeof self - 1)) <= 0)
            return NULL;
        self[len] = '\0';
        tids = malloc((size_t)n * sizeof *tids);
        tids[0] = pvm_mytid();
        pvm_catchout(stdout);                 /* the others' output comes here */
        if (n > 1 && pvm_spawn(self, argv + 1, PvmTaskDefault, "", n - 1, tids + 1) != n - 1) {
            fprintf(stderr, "%s: could not spawn %d tasks\n", argv[0], n - 1);
            return NULL;
        }
        pvm_initsend(PvmDataDefault);
        pvm_pkint(&n, 1, 1);
        pvm_pkint(tids, n, 1);
        if (n > 1)
            pvm_mcast(tids + 1, n - 1, EXAMPLE_TAG_LIST);
    } else {
        pvm_recv(pvm_parent(), EXAMPLE_TAG_LIST);
        pvm_upkint(&n, 1, 1);
        tids = malloc((size_t)n * sizeof *tids);
        pvm_upkint(tids, n, 1);
    }
    *ntasks = n;
    return tids;
}

/* The first task waits for the others' output before leaving PVM. */
static inline void example_finish(int *tids, int n)
{
    if (pvm_parent() == PvmNoParent)
        for (int i = 1; i < n; i++) {
            int b = pvm_recv(-1, 2);  /* each spawned task says goodbye */
            pvm_freebuf(b);
        }
    else {
        pvm_initsend(PvmDataDefault);
        pvm_send(pvm_parent(), 2);
    }
    free(tids);
    pvm_exit();
}

#endif
