/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * step_order.c -- for tests/probe.test: play the master of one eco-probe
 * and the other member of its lock-step ring (ECOC_CMD_STEPS in a ring
 * of two: we are its next and its previous), and send our first STEP
 * before its GO, as a previous probe whose GO came first does.  The
 * probe must keep that STEP for its first step, not take it while it
 * waits for GO (and drop it: it would then wait for one step more than
 * we send, and never answer), and still echo meanwhile.
 *
 *   step_order PROBE      (inside a virtual machine: tests/private_vm.sh)
 *
 * Prints "ok - ..." or "not ok - ..." per check; exits 0 when all pass.
 */
#include "config.h"

#include <stdlib.h>
#include <unistd.h>
#include <pvm3.h>

#include "probe_master.h"

#define STEPS 3

/* The probe's reply: its status, then up to nv doubles in v; -2 when it
 * does not answer. */
static int result(double *v, int nv)
{
    int status = -1;

    if (from_probe(ECOC_TAG_RESULT) <= 0)
        return -2;
    pvm_upkint(&status, 1, 1);
    if (status == 0 && nv > 0 && pvm_upkdouble(v, nv, 1) < 0)
        return -3;
    return status;
}

static void send_tag(int tag)
{
    char data[64] = { 0 };

    pvm_initsend(PvmDataDefault);
    if (tag == ECOC_TAG_STEP)
        pvm_pkbyte(data, (int)sizeof data, 1);
    pvm_send(probe, tag);
}

static void send_steps(int count)
{
    int cmd = ECOC_CMD_STEPS, me = pvm_mytid(), size = 64;

    pvm_initsend(PvmDataDefault);
    pvm_pkint(&cmd, 1, 1);
    pvm_pkint(&me, 1, 1); /* next */
    pvm_pkint(&me, 1, 1); /* prev */
    pvm_pkint(&size, 1, 1);
    pvm_pkint(&count, 1, 1);
    pvm_send(probe, ECOC_TAG_CMD);
}

static void early_step(void)
{
    double t = 0.0;
    int got = 0;

    send_steps(STEPS);
    /* it connects its route to us: echo it */
    if (from_probe(ECOC_TAG_ECHO) > 0)
        send_tag(ECOC_TAG_ECHO_BACK);
    check(result(NULL, 0) == 0, "STEPS: ready once the route is connected");
    /* our first step, before its GO; an echo is still answered */
    send_tag(ECOC_TAG_STEP);
    send_tag(ECOC_TAG_ECHO);
    check(from_probe(ECOC_TAG_ECHO_BACK) > 0, "STEPS: an ECHO answered while it waits for GO");
    usleep(200000); /* it has seen the STEP, and left it, before GO */
    send_tag(ECOC_TAG_GO);
    /* lock-step: its step k, then our step k + 1 */
    for (int k = 1; k <= STEPS && from_probe(ECOC_TAG_STEP) > 0; k++) {
        got = k;
        if (k < STEPS)
            send_tag(ECOC_TAG_STEP);
    }
    check(got == STEPS, "STEPS: every step sent to its next");
    check(result(&t, 1) == 0 && t > 0.0,
          "STEPS: the STEP that came before GO served its first step: all timed");
}

static void refused(void)
{
    send_steps(0);
    check(result(NULL, 0) == -1, "STEPS of 0 steps: refused");
    send_steps((1 << 20) + 1); /* more than it takes */
    check(result(NULL, 0) == -1, "STEPS of more than 2^20 steps: refused");
}

int main(int argc, char **argv)
{
    int rc = start_probe("step_order", argc, argv);

    if (rc != 0)
        return rc;
    early_step();
    refused();
    pvm_kill(probe);
    pvm_exit();
    return failures ? 1 : 0;
}
