/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hello_bcast.c -- the smallest libeco program: task 0 broadcasts a
 * greeting over ECO's tree and every task prints what it received.
 *
 *   pvmd &                      (or any running virtual machine)
 *   ./hello_bcast 6             (6 tasks: this one and 5 spawned copies)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pvm3.h>
#include <eco.h>

int main(int argc, char **argv)
{
    char msg[64] = "", want[64], host[256] = "?";
    eco_ctx *ctx;
    int got, all = 0;
    /* This task and argv[1] - 1 copies of it (argv + 1: the copies' arguments). */
    int rc = eco_init_spawn(NULL, argv + 1, argc > 1 ? atoi(argv[1]) : 4, NULL, &ctx);

    if (rc != ECO_OK) {
        fprintf(stderr, "hello_bcast: %s\n", eco_strerror(rc));
        return 1;
    }
    if (eco_rank(ctx) == 0)
        snprintf(msg, sizeof msg, "hello from task %x", pvm_mytid());
    rc = eco_bcast(ctx, msg, (int)sizeof msg, PVM_BYTE, 0);
    gethostname(host, sizeof host - 1);
    printf("rank %d of %d on %s: %s (%s)\n", eco_rank(ctx), eco_size(ctx), host, msg,
           eco_strerror(rc));
    fflush(stdout);
    /* Did everybody get it?  Count the tasks holding task 0's greeting. */
    snprintf(want, sizeof want, "hello from task %x", eco_tid(ctx, 0));
    got = rc == 0 && strcmp(msg, want) == 0;
    if (rc == 0)
        rc = eco_reduce(ctx, &got, &all, 1, PVM_INT, ECO_SUM, 0);
    if (eco_rank(ctx) == 0)
        printf("hello_bcast: %d of %d tasks got the greeting (%s)\n", all, eco_size(ctx),
               eco_strerror(rc));
    eco_finalize(ctx);
    pvm_exit();     /* task 0: waits for the copies (and prints their output) */
    return rc == 0 ? 0 : 1;
}
