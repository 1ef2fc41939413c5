/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * spawn.c -- eco_init_spawn: the start-up of a program that runs as
 * ntasks copies of itself, in one call (what mpirun and MPI_Init do).
 *
 * The copy started by hand is rank 0: it spawns the others with
 * pvm_spawn, exporting ECO_SPAWN_PARENT=<its tid> to them (PVM_EXPORT),
 * and sends them the task list in eco_init's boot context.  A task is a
 * spawned copy when that variable names its PVM parent: a program that
 * some other PVM task spawned (the console, a master) is a rank 0 too.
 * Later calls reuse the same tasks, for further contexts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pvm3.h>
#include "eco_coll.h"
#include "eco_pvm.h"
#include "eco_log.h"

#define SPAWN_ENV "ECO_SPAWN_PARENT"
#define SPAWN_MAX 65536

static int *spawn_tids;   /* the tasks of the first call, in rank order */
static int spawn_n;

/* 1 when an eco_init_spawn spawned this task. */
static int spawned_copy(void)
{
    const char *e = getenv(SPAWN_ENV);
    int parent = pvm_parent();
    char *end;
    long v;

    if (parent <= 0 || !e || !*e)
        return 0;
    v = strtol(e, &end, 16);
    return *end == '\0' && v == parent;
}

/* Spawn n - 1 copies with the variable exported; tids[0] is this task. */
static int spawn_copies(const char *program, char **argv, int n, int *tids)
{
    char self[4096], val[32], *saved = NULL, *old_export = NULL;
    const char *e = getenv(SPAWN_ENV), *x = getenv("PVM_EXPORT");
    int got, rc = ECO_OK;

    if (n == 1)
        return ECO_OK;
    if (!program) {
        ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
        if (len <= 0)
            return ECO_ERR_IO;
        self[len] = '\0';
        program = self;
    }
    if ((e && !(saved = strdup(e))) || (x && !(old_export = strdup(x)))) {
        free(saved);
        return ECO_ERR_NOMEM;
    }
    /* Started by hand, this task's output goes to the terminal and the
     * copies' would go to the pvmd's log: bring it here instead. */
    if (pvm_parent() <= 0)
        pvm_catchout(stdout);
    snprintf(val, sizeof val, "%x", (unsigned)tids[0]);
    if (setenv(SPAWN_ENV, val, 1) != 0 || pvm_export((char *)SPAWN_ENV) < 0)
        rc = ECO_ERR_NOMEM;
    if (rc == ECO_OK) {
        got = pvm_spawn((char *)program, argv, PvmTaskDefault, "", n - 1, tids + 1);
        if (got < n - 1) {
            int code = got < 0 ? got : PvmSysErr;
            for (int i = 1; i < n && got >= 0; i++)
                if (tids[i] < 0 && code == PvmSysErr)
                    code = tids[i];
            for (int i = 1; i < n && got > 0; i++)
                if (tids[i] > 0)
                    pvm_kill(tids[i]);
            ecoi_log(ECO_LOG_ERROR, "could not spawn %d copies of %s: %d started (PVM status %d)",
                     n - 1, program, got > 0 ? got : 0, code);
            rc = ecoi_pvm_error(code);
        }
    }
    /* The caller's environment as it was. */
    if (old_export)
        setenv("PVM_EXPORT", old_export, 1);
    else
        unsetenv("PVM_EXPORT");
    if (saved)
        setenv(SPAWN_ENV, saved, 1);
    else
        unsetenv(SPAWN_ENV);
    free(saved);
    free(old_export);
    return rc;
}

static int send_list(int n, const int *tids)
{
    int bid = pvm_mkbuf(PvmDataDefault), rc;

    if (bid < 0)
        return ecoi_pvm_error(bid);
    pvm_setsbuf(bid);
    if ((rc = pvm_pkint(&n, 1, 1)) >= 0 && (rc = pvm_pkint((int *)tids, n, 1)) >= 0)
        rc = pvm_mcast((int *)tids + 1, n - 1, ECOI_TAG_SPAWN);
    pvm_setsbuf(0);
    pvm_freebuf(bid);
    return rc < 0 ? ecoi_pvm_error(rc) : ECO_OK;
}

/* The list from the parent; ECO_ERR_PEER if it exits first. */
static int recv_list(int parent, int *n, int **tids)
{
    int rc, bid;

    if ((rc = ecoi_pvm_recv_from(parent, ECOI_TAG_SPAWN, &bid)) != ECO_OK)
        return rc;
    rc = ECO_ERR_MISMATCH;
    if (pvm_upkint(n, 1, 1) >= 0 && *n >= 2 && *n <= SPAWN_MAX) {
        rc = (*tids = malloc((size_t)*n * sizeof **tids)) ? ECO_OK : ECO_ERR_NOMEM;
        if (rc == ECO_OK && pvm_upkint(*tids, *n, 1) < 0)
            rc = ECO_ERR_MISMATCH;
        if (rc == ECO_OK && (*tids)[0] != parent)
            rc = ECO_ERR_MISMATCH;
    }
    pvm_freebuf(bid);
    if (rc != ECO_OK) {
        free(*tids);
        *tids = NULL;
    }
    return rc;
}

/* The tasks: spawned (rank 0) or received (the copies).  The spawn is
 * made in the caller's message context, which the copies start in (PVM
 * gives a spawned task its parent's); the list travels in eco_init's. */
static int start_tasks(const char *program, char **argv, int ntasks, int me)
{
    int oldctx, olds, oldr, rc = ECO_OK, n = ntasks, *tids = NULL, copy = spawned_copy();

    if (!copy) {
        if (ntasks < 1 || ntasks > SPAWN_MAX)
            return ECO_ERR_ARG;
        if (!(tids = malloc((size_t)ntasks * sizeof *tids)))
            return ECO_ERR_NOMEM;
        tids[0] = me;
        if ((rc = spawn_copies(program, argv, ntasks, tids)) != ECO_OK) {
            free(tids);
            return rc;
        }
    }
    oldctx = pvm_setcontext(ECOI_BOOT_CONTEXT);
    olds = pvm_setsbuf(0);
    oldr = pvm_setrbuf(0);
    if (copy)
        rc = recv_list(pvm_parent(), &n, &tids);
    else if (ntasks > 1 && (rc = send_list(ntasks, tids)) != ECO_OK)
        for (int i = 1; i < ntasks; i++)
            pvm_kill(tids[i]);
    pvm_setsbuf(olds > 0 ? olds : 0);
    pvm_setrbuf(oldr > 0 ? oldr : 0);
    pvm_setcontext(oldctx);
    if (rc != ECO_OK) {
        free(tids);
        return rc;
    }
    spawn_tids = tids;
    spawn_n = n;
    return ECO_OK;
}

int eco_init_spawn(const char *program, char **argv, int ntasks,
                   const char *subnet_file, eco_ctx **ctx)
{
    int me, rc;

    if (!ctx)
        return ECO_ERR_ARG;
    *ctx = NULL;
    if ((me = pvm_mytid()) < 0) {
        ecoi_log(ECO_LOG_ERROR, "no PVM virtual machine (start pvmd first): PVM status %d", me);
        return ecoi_pvm_error(me);
    }
    if (!spawn_tids && (rc = start_tasks(program, argv, ntasks, me)) != ECO_OK)
        return rc;
    if (spawn_tids[0] == me && ntasks != spawn_n)
        return ECO_ERR_ARG;   /* rank 0's later calls: the same tasks */
    return eco_init(subnet_file, spawn_n, spawn_tids, ctx);
}
