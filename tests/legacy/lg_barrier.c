/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lg_barrier.c -- a legacy PVM program: pvm_barrier with members that
 * join late (the count waits for them), repeated barriers, a barrier of a
 * second group that the master is not in, and count -1.
 *
 * Before each barrier every worker tells the master it is entering; the
 * master enters last, after all have said so, and checks that nobody got
 * through before it entered.
 */
#include "lg_common.h"

#define TAG_ENTER 7100
#define ROUNDS 6

/* Master: collect the workers' enter notices, then check for early birds. */
static void master_round(const char *group, int count, int round)
{
    for (int i = 0; i < lg_ntask; i++)
        pvm_recv(-1, TAG_ENTER + round);
    usleep(100000);
    lg_line("%s round %d: %s", group, round,
            pvm_probe(-1, LG_TAG_LINE) > 0 ? "SOMEONE PASSED EARLY" : "nobody passed early");
    lg_line("%s round %d: master rc=%d", group, round, pvm_barrier((char *)group, count));
}

static void worker_round(const char *group, int count, int round, int w)
{
    int rc;

    usleep((useconds_t)((w * 7919 + round * 104729) % 50) * 1000);
    pvm_initsend(PvmDataDefault);
    pvm_send(pvm_parent(), TAG_ENTER + round);
    rc = pvm_barrier((char *)group, count);
    lg_line("%s round %d: worker %d rc=%d", group, round, w, rc);
}

int main(int argc, char **argv)
{
    int n, w;

    lg_start(argc, argv);
    n = lg_ntask + 1;
    w = lg_worker_index(pvm_mytid());
    /* Late joiners: worker w joins after w * 60 ms; the count waits. */
    if (lg_is_master) {
        pvm_joingroup("bar");
    } else {
        usleep((useconds_t)w * 60000);
        pvm_joingroup("bar");
    }
    for (int r = 1; r <= ROUNDS; r++) {
        if (lg_is_master)
            master_round("bar", n, r);
        else
            worker_round("bar", n, r, w);
        lg_flush("bar");
    }
    /* A group of the even workers only; the master watches. */
    if (!lg_is_master && w % 2 == 0) {
        int half = (lg_ntask + 1) / 2;
        pvm_joingroup("even");
        for (int r = 1; r <= 3; r++)
            lg_line("even round %d: worker %d rc=%d", r, w, pvm_barrier("even", half));
        pvm_lvgroup("even");
    }
    lg_flush("even");
    /* count -1: the group's present size. */
    if (lg_is_master)
        master_round("bar", -1, ROUNDS + 1);
    else
        worker_round("bar", -1, ROUNDS + 1, w);
    lg_flush("bar, count -1");
    pvm_barrier("bar", n);
    pvm_lvgroup("bar");
    return lg_end();
}
