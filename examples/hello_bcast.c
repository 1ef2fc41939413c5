/*
 * hello_bcast.c -- the smallest libeco program: task 0 broadcasts a
 * greeting over ECO's tree and every task prints what it received.
 *
 *   pvmd &                      (or any running virtual machine)
 *   ./hello_bcast 6             (6 tasks: this one and 5 spawned copies)
 */
#include <string.h>
#include "eco.h"
#include "example_common.h"

int main(int argc, char **argv)
{
    char msg[64] = "", host[256] = "?";
    eco_ctx *ctx;
    int n, rc, *tids = example_start(argc, argv, &n);

    if (!tids)
        return 1;
    rc = eco_init(NULL, n, tids, &ctx);     /* subnet file: the usual lookup */
    if (rc != 0) {
        fprintf(stderr, "eco_init: %s\n", eco_strerror(rc));
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
    char want[64];
    int got, all = 0;
    snprintf(want, sizeof want, "hello from task %x", tids[0]);
    got = rc == 0 && strcmp(msg, want) == 0;
    if (rc == 0)
        rc = eco_reduce(ctx, &got, &all, 1, PVM_INT, ECO_SUM, 0);
    if (eco_rank(ctx) == 0)
        printf("hello_bcast: %d of %d tasks got the greeting (%s)\n", all, n, eco_strerror(rc));
    eco_finalize(ctx);
    example_finish(tids, n);
    return rc == 0 ? 0 : 1;
}
