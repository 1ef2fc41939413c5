/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * probe_master.h -- for the helpers of tests/probe.test that play the
 * master of one eco-probe (step_order.c, relay_order.c): its tid, the
 * checks ("ok - ..." or "not ok - ..." per line) and its start.
 */
#ifndef ECO_TEST_PROBE_MASTER_H
#define ECO_TEST_PROBE_MASTER_H

#include <stdio.h>
#include <pvm3.h>

#include "characterize.h"

static int probe;
static int failures;

static void check(int cond, const char *what)
{
    printf("%s - %s\n", cond ? "ok" : "not ok", what);
    failures += !cond;
}

/* A message with tag from the probe within 10 s: its buffer, or <= 0. */
static int from_probe(int tag)
{
    struct timeval tv = { 10, 0 };

    return pvm_trecv(probe, tag, &tv);
}

/* Enroll and start the probe `path` (argv[1] of program `prog`, its only
 * argument) as our child, confirmed by its hello: 0; else the exit
 * status (2 usage, 99 no virtual machine or no probe). */
static int start_probe(const char *prog, int argc, char **argv)
{
    struct timeval tv = { 10, 0 };

    if (argc != 2) {
        fprintf(stderr, "usage: %s PROBE\n", prog);
        return 2;
    }
    pvm_setopt(PvmAutoErr, 0);
    if (pvm_mytid() < 0)
        return 99;
    if (pvm_spawn(argv[1], NULL, PvmTaskDefault, "", 1, &probe) != 1 ||
        pvm_trecv(probe, ECOC_TAG_HELLO, &tv) <= 0) {
        fprintf(stderr, "%s: cannot start %s\n", prog, argv[1]);
        pvm_exit();
        return 99;
    }
    return 0;
}

#endif /* ECO_TEST_PROBE_MASTER_H */
