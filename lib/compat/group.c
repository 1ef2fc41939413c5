/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * group.c -- one eco context per PVM group, over its current members.
 *
 * PVM's group server stays the authority on membership: every collective
 * call asks it for the member list (one query, or none for a frozen group,
 * whose list libgpvm3 caches).  The context built over a list is kept
 * while the list is the same, and rebuilt (eco_init, collective over the
 * new members) when it changes: members that joined late, left, or exited.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include "ecopvm.h"

typedef struct grp {
    char *name;
    int n;
    int *tids;        /* the members the context was built over */
    eco_ctx *ctx;
    struct grp *next;
} grp;

static grp *groups;

static grp *find(const char *name, int create)
{
    grp *g;

    for (g = groups; g; g = g->next)
        if (strcmp(g->name, name) == 0)
            return g;
    if (!create || !(g = calloc(1, sizeof *g)))
        return NULL;
    if (!(g->name = strdup(name))) {
        free(g);
        return NULL;
    }
    g->next = groups;
    groups = g;
    return g;
}

static void forget(grp *g)
{
    /* the context's last words (eco_finalize's FLUSH) are libeco's own:
     * sent and read inside the layer, whoever drops the group */
    ecopvm.depth++;
    if (g->ctx)
        eco_finalize(g->ctx);
    ecopvm.depth--;
    g->ctx = NULL;
    free(g->tids);
    g->tids = NULL;
    g->n = 0;
}

/*
 * eco_init over the members, keeping the program's PVM routing.
 *
 * eco_init asks PVM for direct task-to-task links (PvmRouteDirect) unless
 * ECO_ROUTE=default.  A legacy program that did not ask for them must not
 * get them behind its back: PVM 3.4 keeps the messages from S to R in
 * order only while their route stays the same.  When R turns direct
 * routing on and sends to S, S grants the link (TC_CONREQ, TC_CONACK
 * through the daemons) while its messages to R still go through them;
 * once S has accepted the connection, its next messages take the link and
 * can reach R before the earlier ones still on their way through the
 * daemons (libpvm's mxfer routes each message by the state of the link at
 * that moment).  Every order the layer keeps (bsend.c) rests on PVM's, so
 * a program gets direct links only as it would without the layer: when it
 * set PvmRouteDirect itself, or when ECO_ROUTE says so.
 */
static int init_keeping_route(int n, const int *tids, eco_ctx **ctx)
{
    int keep = !getenv("ECO_ROUTE") && pvm_getopt(PvmRoute) != PvmRouteDirect;
    int rc;

    if (keep && setenv("ECO_ROUTE", "default", 1) != 0)
        return ECO_ERR_NOMEM;
    rc = eco_init(NULL, n, tids, ctx);
    if (keep)
        unsetenv("ECO_ROUTE");
    return rc;
}

int ecopvm_group_ctx(const char *group, int n, const int *tids, eco_ctx **ctx)
{
    grp *g = find(group, 1);
    int rc;

    *ctx = NULL;
    if (!g)
        return ECO_ERR_NOMEM;
    if (g->ctx && g->n == n && memcmp(g->tids, tids, (size_t)n * sizeof *tids) == 0) {
        *ctx = g->ctx;
        return ECO_OK;
    }
    forget(g);
    g->tids = malloc((size_t)n * sizeof *g->tids);
    if (!g->tids)
        return ECO_ERR_NOMEM;
    memcpy(g->tids, tids, (size_t)n * sizeof *tids);
    rc = init_keeping_route(n, tids, &g->ctx);
    if (rc != ECO_OK) {
        g->ctx = NULL;
        forget(g);
        return rc;
    }
    g->n = n;
    *ctx = g->ctx;
    return ECO_OK;
}

void ecopvm_group_drop(const char *group)
{
    grp *g = group ? find(group, 0) : NULL;

    if (g)
        forget(g);
}
