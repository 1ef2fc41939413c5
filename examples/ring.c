/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ring.c -- a nearest-neighbour exchange on the ring eco_ring gives:
 * each subnet's tasks sit next to each other, so all but one hop per
 * subnet stay inside a subnet.  A token goes once around the ring with
 * ordinary PVM messages (the application's own, beside ECO's).
 *
 *   ./ring 6
 */
#include <stdio.h>
#include <stdlib.h>
#include <pvm3.h>
#include <eco.h>

#define TAG_TOKEN 7

int main(int argc, char **argv)
{
    int n, *order, at = 0, token = 0;
    eco_ctx *ctx;

    if (eco_init_spawn(NULL, argv + 1, argc > 1 ? atoi(argv[1]) : 4, NULL, &ctx) != ECO_OK)
        return 1;
    n = eco_size(ctx);
    order = malloc((size_t)n * sizeof *order);
    if (!order || eco_ring(ctx, order) != 0)
        return 1;
    int me = eco_rank(ctx);
    while (order[at] != me)
        at++;
    int next = eco_tid(ctx, order[(at + 1) % n]), prev = eco_tid(ctx, order[(at + n - 1) % n]);
    if (at == 0) {
        printf("ring order:");
        for (int i = 0; i < n; i++)
            printf(" %d", order[i]);
        printf("\n");
        token = me;
        if (n > 1) {
            pvm_initsend(PvmDataDefault);
            pvm_pkint(&token, 1, 1);
            pvm_send(next, TAG_TOKEN);
            pvm_recv(prev, TAG_TOKEN);
            pvm_upkint(&token, 1, 1);
        }
        printf("token came back: sum of ranks %d (expected %d)\n", token, n * (n - 1) / 2);
    } else {
        pvm_recv(prev, TAG_TOKEN);
        pvm_upkint(&token, 1, 1);
        token += me;
        pvm_initsend(PvmDataDefault);
        pvm_pkint(&token, 1, 1);
        pvm_send(next, TAG_TOKEN);
    }
    fflush(stdout);
    eco_finalize(ctx);
    free(order);
    pvm_exit();
    return 0;
}
