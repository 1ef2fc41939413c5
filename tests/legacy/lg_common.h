/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lg_common.h -- helpers for the legacy-style PVM programs of
 * tests/legacy.test.  They are plain PVM 3 programs: they know nothing of
 * libeco.  Each is run as it is, with LD_PRELOAD of libecopvm.so, and
 * relinked against libecopvm-wrap.a; the three outputs must be identical.
 *
 * The master (started by the test) spawns NTASK copies of itself as
 * workers.  Everybody reports result lines to the master, which prints
 * them sorted, a phase at a time, so the output does not depend on timing.
 */
#ifndef LG_COMMON_H
#define LG_COMMON_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pvm3.h>

#define LG_TAG_LINE 7001   /* worker -> master: a result line */
#define LG_TAG_GO 7002     /* master -> worker: the task list / go on */
#define LG_MAXLINES 4096
#define LG_DONE "\001done"

static int lg_is_master;
static int lg_ntask;             /* workers */
static int lg_tids[64];          /* workers' tids (master: all; worker: from GO) */
static int lg_phase;             /* phases flushed so far */
static int lg_route;             /* PvmRoute as the program set it */
/* Master: lines by phase (workers may run a phase ahead), done notices. */
static char *lg_lines[LG_MAXLINES];
static int lg_line_phase[LG_MAXLINES];
static int lg_nlines;
static int lg_done[1024];

static inline int lg_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static inline void lg_keep(int phase, const char *text)
{
    if (strcmp(text, LG_DONE) == 0) {
        if (phase >= 0 && phase < 1024)
            lg_done[phase]++;
    } else if (lg_nlines < LG_MAXLINES) {
        lg_line_phase[lg_nlines] = phase;
        lg_lines[lg_nlines++] = strdup(text);
    }
}

/* A result line: printed by the master when its phase ends. */
static inline void lg_line(const char *fmt, ...)
{
    char buf[2048];
    int phase = lg_phase;
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (lg_is_master) {
        lg_keep(phase, buf);
        return;
    }
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&phase, 1, 1);
    pvm_pkstr(buf);
    pvm_send(pvm_parent(), LG_TAG_LINE);
}

/* The end of a phase.  Workers: say so.  Master: wait until every worker
 * has, then print the phase's lines sorted. */
static inline void lg_flush(const char *name)
{
    char buf[2048], *mine[LG_MAXLINES];
    int phase, n = 0, k = 0;

    if (!lg_is_master) {
        lg_line("%s", LG_DONE);
        lg_phase++;
        return;
    }
    while (lg_done[lg_phase] < lg_ntask && pvm_recv(-1, LG_TAG_LINE) > 0) {
        pvm_upkint(&phase, 1, 1);
        pvm_upkstr(buf);
        lg_keep(phase, buf);
    }
    for (int i = 0; i < lg_nlines; i++) {
        if (lg_line_phase[i] == lg_phase)
            mine[n++] = lg_lines[i];
        else {
            lg_line_phase[k] = lg_line_phase[i];
            lg_lines[k++] = lg_lines[i];
        }
    }
    lg_nlines = k;
    qsort(mine, (size_t)n, sizeof *mine, lg_cmp);
    printf("== %s\n", name);
    for (int i = 0; i < n; i++) {
        printf("%s\n", mine[i]);
        free(mine[i]);
    }
    fflush(stdout);
    lg_phase++;
}

/* Start: the master spawns the workers and sends them the task list. */
static inline void lg_start(int argc, char **argv)
{
    char self[4096];
    ssize_t len;
    char *wargs[] = { "worker", NULL };
    const char *e = getenv("LG_NTASK");

    setvbuf(stdout, NULL, _IOLBF, 0);
    lg_is_master = !(argc > 1 && strcmp(argv[1], "worker") == 0);
    if (pvm_mytid() < 0)
        exit(2);
    /* LG_ROUTE=direct: a program that asks for direct task-to-task links
     * itself, as many PVM programs do. */
    if ((e = getenv("LG_ROUTE")) && strcmp(e, "direct") == 0)
        pvm_setopt(PvmRoute, PvmRouteDirect);
    lg_route = pvm_getopt(PvmRoute);
    e = getenv("LG_NTASK");
    if (!lg_is_master) {
        pvm_recv(pvm_parent(), LG_TAG_GO);
        pvm_upkint(&lg_ntask, 1, 1);
        pvm_upkint(lg_tids, lg_ntask, 1);
        return;
    }
    lg_ntask = e && atoi(e) > 0 && atoi(e) <= 60 ? atoi(e) : 6;
    len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0)
        exit(2);
    self[len] = '\0';
    /* Workers' output (and the layer's verbose lines) come to stderr. */
    pvm_catchout(stderr);
    if (pvm_spawn(self, wargs, PvmTaskDefault, "", lg_ntask, lg_tids) != lg_ntask) {
        fprintf(stderr, "spawn failed\n");
        pvm_exit();
        exit(2);
    }
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&lg_ntask, 1, 1);
    pvm_pkint(lg_tids, lg_ntask, 1);
    pvm_mcast(lg_tids, lg_ntask, LG_TAG_GO);
}

/* Index of a worker tid in lg_tids, -1 when not a worker. */
static inline int lg_worker_index(int tid)
{
    for (int i = 0; i < lg_ntask; i++)
        if (lg_tids[i] == tid)
            return i;
    return -1;
}

/* Wait until the group has n members. */
static inline void lg_wait_size(const char *group, int n)
{
    while (pvm_gsize((char *)group) < n)
        usleep(5000);
}

/* Every task joins group; once all lg_ntask + 1 are in, a barrier.
 * Returns this task's instance number; *n is the group's size. */
static inline int lg_join_all(const char *group, int *n)
{
    int inst = pvm_joingroup((char *)group);

    *n = lg_ntask + 1;
    lg_wait_size(group, *n);
    pvm_barrier((char *)group, *n);
    return inst;
}

static inline int lg_end(void)
{
    pvm_exit();
    return 0;
}

/* The k-th number of a buffer of a PVM datatype (complex: both parts in
 * turn), as a double, for printing results. */
static inline double lg_num(const void *buf, int dt, long k)
{
    switch (dt) {
    case PVM_BYTE: return ((const unsigned char *)buf)[k];
    case PVM_SHORT: return ((const short *)buf)[k];
    case PVM_INT: case PVM_UINT: return ((const int *)buf)[k];
    case PVM_LONG: return (double)((const long *)buf)[k];
    case PVM_FLOAT: case PVM_CPLX: return ((const float *)buf)[k];
    default: return ((const double *)buf)[k];
    }
}

/* Into text: " checksum S" over the first nums numbers of buf (checksum
 * set), or those numbers themselves, as many as fit. */
static inline void lg_describe(char *text, size_t len, const void *buf, int dt,
                               long nums, int checksum)
{
    size_t at = 0;

    text[0] = '\0';
    if (checksum) {
        double s = 0;
        for (long k = 0; k < nums; k++)
            s += lg_num(buf, dt, k) * (double)(k % 11 + 1);
        snprintf(text, len, " checksum %.17g", s);
        return;
    }
    for (long k = 0; k < nums && at < len - 32; k++)
        at += snprintf(text + at, len - at, " %g", lg_num(buf, dt, k));
}

#endif
