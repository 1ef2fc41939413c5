/*
 * ring.c -- a nearest-neighbour exchange on the ring eco_ring gives:
 * each subnet's tasks sit next to each other, so all but one hop per
 * subnet stay inside a subnet.  A token goes once around the ring with
 * ordinary PVM messages (the application's own, beside ECO's).
 *
 *   ./ring 6
 */
#include "eco.h"
#include "example_common.h"

#define TAG_TOKEN 7

int main(int argc, char **argv)
{
    int n, *tids = example_start(argc, argv, &n), *order, at = 0, token = 0;
    eco_ctx *ctx;

    if (!tids || eco_init(NULL, n, tids, &ctx) != 0)
        return 1;
    order = malloc((size_t)n * sizeof *order);
    if (eco_ring(ctx, order) != 0)
        return 1;
    int me = eco_rank(ctx);
    while (order[at] != me)
        at++;
    int next = tids[order[(at + 1) % n]], prev = tids[order[(at + n - 1) % n]];
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
    example_finish(tids, n);
    return 0;
}
