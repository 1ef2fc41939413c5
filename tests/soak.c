/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * soak.c -- a long-running application's view of libeco: many contexts,
 * long loops of rooted reduces, thousands of mixed collectives, with the
 * memory, descriptors and time per operation of every member measured at
 * the start and at the end.  Run by scripts/soak.sh inside a private PVM.
 *
 *   soak [TASKS [CONTEXTS [REDUCES [MIXED]]]]   (default 8 1000 3000 10000)
 *
 * Without "worker" this is the master: it spawns TASKS copies of itself,
 * sends them the task list, and prints one line per member and a verdict
 * against the targets of issue 10:
 *   - resident memory grows by less than 1 MB over CONTEXTS contexts;
 *   - the time per context of the last tenth is within 20% of the first's
 *     (each measured as a median);
 *   - REDUCES rooted reduces of 64 KB keep every member under 32 MB peak;
 *   - MIXED mixed collectives: every one returns 0, descriptors unchanged.
 * Exit status 0 when every target holds, 1 otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <time.h>
#include <unistd.h>
#include <pvm3.h>
#include "eco.h"
#include "proc_status.h"

#define TAG_LIST 201
#define TAG_REPORT 202
#define NV 12

enum { R_RSS0, R_RSS1, R_CTX_FIRST_US, R_CTX_LAST_US, R_HWM_REDUCE, R_REDUCE_US,
       R_MIXED_US_FIRST, R_MIXED_US_LAST, R_FD0, R_FD1, R_ERRORS, R_HWM0 };

static long fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    long n = 0;

    while (d && readdir(d))
        n++;
    if (d)
        closedir(d);
    return n;
}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n ? v[n / 2] : 0;
}

static void worker(int ncontexts, int nreduces, int nmixed)
{
    int n, tids[64], errors = 0, tenth = ncontexts / 10 > 0 ? ncontexts / 10 : 1;
    long r[NV] = { 0 };
    double *t = malloc((size_t)(ncontexts + nmixed + 1) * sizeof *t);
    eco_ctx *ctx = NULL;

    pvm_recv(pvm_parent(), TAG_LIST);
    pvm_upkint(&n, 1, 1);
    pvm_upkint(tids, n, 1);
    /* Warm up: the first context makes PVM's own buffers, and an
     * all-to-all opens PVM's direct connections between every pair. */
    if (eco_init(NULL, n, tids, &ctx) == ECO_OK) {
        int a[64], b[64];
        memset(a, 0, sizeof a);
        errors += eco_alltoall(ctx, a, b, 1, PVM_INT) != ECO_OK;
        errors += eco_barrier(ctx) != ECO_OK;
        eco_finalize(ctx);
    }
    r[R_RSS0] = proc_status_kb("VmRSS");
    r[R_FD0] = fds();
    r[R_HWM0] = proc_status_kb("VmHWM");
    /* Contexts: made, used once, dropped. */
    for (int i = 0; i < ncontexts; i++) {
        double t0 = now_us();
        if (eco_init(NULL, n, tids, &ctx) != ECO_OK) {
            errors++;
            continue;
        }
        errors += eco_barrier(ctx) != ECO_OK;
        eco_finalize(ctx);
        t[i] = now_us() - t0;
    }
    r[R_RSS1] = proc_status_kb("VmRSS");
    r[R_CTX_FIRST_US] = (long)median(t, tenth);
    r[R_CTX_LAST_US] = (long)median(t + ncontexts - tenth, tenth);
    /* Rooted reduces of 64 KB in a loop: the leaves must not run ahead. */
    if (eco_init(NULL, n, tids, &ctx) == ECO_OK) {
        int *x = calloc(16384, sizeof *x), *y = calloc(16384, sizeof *y);
        double t0 = now_us();
        for (int i = 0; i < nreduces; i++)
            errors += eco_reduce(ctx, x, y, 16384, PVM_INT, ECO_SUM, 0) != ECO_OK;
        errors += eco_barrier(ctx) != ECO_OK;
        r[R_REDUCE_US] = (long)((now_us() - t0) / (nreduces ? nreduces : 1));
        r[R_HWM_REDUCE] = proc_status_kb("VmHWM");
        /* Mixed collectives, every root in turn. */
        for (int i = 0; i < nmixed; i++) {
            int root = i % n, cnt = 1 + i % 300;
            double t1 = now_us();
            switch (i % 8) {
            case 0: errors += eco_bcast(ctx, x, cnt, PVM_INT, root) != ECO_OK; break;
            case 1: errors += eco_reduce(ctx, x, y, cnt, PVM_INT, ECO_SUM, root) != ECO_OK; break;
            case 2: errors += eco_reduce(ctx, x, y, cnt, PVM_INT, ECO_MAX, ECO_ALL) != ECO_OK; break;
            case 3: errors += eco_gather(ctx, x, y, cnt / n + 1, PVM_INT, root) != ECO_OK; break;
            case 4: errors += eco_scatter(ctx, x, y, cnt / n + 1, PVM_INT, root) != ECO_OK; break;
            case 5: errors += eco_alltoall(ctx, x, y, cnt / n + 1, PVM_INT) != ECO_OK; break;
            case 6: errors += eco_scan(ctx, x, y, cnt, PVM_INT, ECO_SUM) != ECO_OK; break;
            default: errors += eco_barrier(ctx) != ECO_OK; break;
            }
            t[i] = now_us() - t1;
        }
        int part = nmixed / 10 > 0 ? nmixed / 10 : 1;
        r[R_MIXED_US_FIRST] = (long)median(t, nmixed ? part : 0);
        r[R_MIXED_US_LAST] = (long)median(t + nmixed - part, nmixed ? part : 0);
        eco_finalize(ctx);
        free(x);
        free(y);
    } else {
        errors++;
    }
    r[R_FD1] = fds();
    r[R_ERRORS] = errors;
    pvm_initsend(PvmDataDefault);
    pvm_pklong(r, NV, 1);
    pvm_send(pvm_parent(), TAG_REPORT);
    free(t);
}

int main(int argc, char **argv)
{
    char self[4096];
    int n = 8, nctx = 1000, nred = 3000, nmix = 10000, tids[64], bad = 0;
    ssize_t len;

    if (argc >= 2 && strcmp(argv[1], "worker") == 0) {
        worker(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));
        pvm_exit();
        return 0;
    }
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("Usage: soak [TASKS [CONTEXTS [REDUCES [MIXED]]]]\n");
        return 0;
    }
    if (argc >= 2) n = atoi(argv[1]);
    if (argc >= 3) nctx = atoi(argv[2]);
    if (argc >= 4) nred = atoi(argv[3]);
    if (argc >= 5) nmix = atoi(argv[4]);
    if (n < 1 || n > 64 || nctx < 1 || nred < 0 || nmix < 0) {
        fprintf(stderr, "soak: bad arguments (try --help)\n");
        return 2;
    }
    len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0 || pvm_mytid() < 0) {
        fprintf(stderr, "soak: no PVM virtual machine (run scripts/soak.sh)\n");
        return 2;
    }
    self[len] = '\0';
    {
        char a1[16], a2[16], a3[16];
        char *args[] = { "worker", a1, a2, a3, NULL };
        snprintf(a1, sizeof a1, "%d", nctx);
        snprintf(a2, sizeof a2, "%d", nred);
        snprintf(a3, sizeof a3, "%d", nmix);
        if (pvm_spawn(self, args, PvmTaskDefault, "", n, tids) != n) {
            fprintf(stderr, "soak: could not spawn %d workers\n", n);
            return 2;
        }
    }
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&n, 1, 1);
    pvm_pkint(tids, n, 1);
    pvm_mcast(tids, n, TAG_LIST);
    printf("soak: %d tasks, %d contexts, %d reduces of 64 KB, %d mixed collectives\n",
           n, nctx, nred, nmix);
    printf("rank  rss0_kb rss1_kb growth_kb  ctx_us_first ctx_us_last  reduce_us peak_kb"
           "  mixed_us_first mixed_us_last  fds0 fds1 errors\n");
    for (int i = 0; i < n; i++) {
        long r[NV];
        int b = pvm_recv(-1, TAG_REPORT), bytes, tag, src, rank = -1;
        pvm_bufinfo(b, &bytes, &tag, &src);
        pvm_upklong(r, NV, 1);
        for (int k = 0; k < n; k++)
            if (tids[k] == src)
                rank = k;
        printf("%4d %8ld %7ld %9ld %13ld %11ld %10ld %7ld %15ld %13ld %5ld %4ld %6ld\n", rank,
               r[R_RSS0], r[R_RSS1], r[R_RSS1] - r[R_RSS0], r[R_CTX_FIRST_US],
               r[R_CTX_LAST_US], r[R_REDUCE_US], r[R_HWM_REDUCE], r[R_MIXED_US_FIRST],
               r[R_MIXED_US_LAST], r[R_FD0], r[R_FD1], r[R_ERRORS]);
        bad |= r[R_RSS1] - r[R_RSS0] >= 1024;
        bad |= r[R_CTX_LAST_US] > r[R_CTX_FIRST_US] * 1.2 + 50;
        bad |= r[R_HWM_REDUCE] >= 32 * 1024;
        bad |= r[R_FD1] != r[R_FD0];
        bad |= r[R_ERRORS] != 0;
    }
    printf("targets: RSS growth < 1024 KB, last/first context time <= 1.2 (+50 us), "
           "peak < 32768 KB, descriptors unchanged, no error: %s\n", bad ? "MISSED" : "met");
    pvm_exit();
    return bad;
}
