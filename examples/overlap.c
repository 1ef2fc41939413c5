/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * overlap.c -- a computation overlapped with a nonblocking reduce-to-all,
 * and how much of the reduce it hides.
 *
 *   ./overlap NTASKS [BYTES] [ITERS] [spin|sleep]
 *
 * Every task measures, ITERS times each (medians):
 *   comm      eco_reduce to all of BYTES bytes of doubles, alone;
 *   compute   a computation as long as comm's median, alone, in slices
 *             of 500 us with an eco_test after each (the progress rule);
 *   both      eco_ireduce, the same computation, eco_wait.
 * The overlap is the share of the reduce hidden behind the computation
 * (OSU's definition): 1 - (both - compute) / comm, from 0 to 1.  Each
 * reduce's result is checked.
 *
 * The computation spins on the CPU (spin, the default) or sleeps in its
 * slices (sleep): on an emulated network, where every host shares the
 * machine's few processors, sleep stands for a host busy on its own CPU.
 * Task 0 prints one line with the medians and the overlap.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pvm3.h>
#include <eco.h>

#define SLICE 500e-6

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Work for `seconds`, calling eco_test on *req (if any) every slice. */
static int compute(double seconds, int sleeping, eco_request **req)
{
    const double end = now() + seconds;
    volatile double x = 1.0;
    int done = 1, rc = ECO_OK;

    if (req && *req)
        done = 0;
    for (double t = now(); t < end; t = now()) {
        double stop = t + SLICE < end ? t + SLICE : end;
        if (sleeping) {
            double left = stop - t;
            struct timespec ts = { 0, (long)(left * 1e9) };
            nanosleep(&ts, NULL);
        } else {
            while (now() < stop)
                for (int i = 0; i < 1000; i++)
                    x = x * 1.0000001 + 1e-9;
        }
        if (!done && rc == ECO_OK)
            rc = eco_test(req, &done);
    }
    return rc;
}

/* Every task's vector: rank r holds r + i + 1 at i; their sum is known. */
static void fill(double *v, int count, int rank)
{
    for (int i = 0; i < count; i++)
        v[i] = rank + i + 1;
}

static int check(const double *sum, int count, int n)
{
    for (int i = 0; i < count; i++)
        if (sum[i] != (double)n * (n - 1) / 2 + (double)n * (i + 1))
            return 0;
    return 1;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4;
    int bytes = argc > 2 ? atoi(argv[2]) : 131072, iters = argc > 3 ? atoi(argv[3]) : 11;
    int sleeping = argc > 4 && strcmp(argv[4], "sleep") == 0, rc, ok = 1, me, count;
    double *mine, *sum, *tc, *tp, *tb, comm, comp, both, overlap;
    eco_ctx *ctx;

    if (bytes < 8 || iters < 1 || (argc > 4 && !sleeping && strcmp(argv[4], "spin") != 0)) {
        fprintf(stderr, "usage: overlap NTASKS [BYTES >= 8] [ITERS >= 1] [spin|sleep]\n");
        return 2;
    }
    if ((rc = eco_init_spawn(NULL, argv + 1, n, NULL, &ctx)) != ECO_OK) {
        fprintf(stderr, "overlap: %s\n", eco_strerror(rc));
        return 1;
    }
    n = eco_size(ctx);
    me = eco_rank(ctx);
    count = bytes / (int)sizeof(double);
    mine = malloc((size_t)count * sizeof *mine);
    sum = malloc((size_t)count * sizeof *sum);
    tc = malloc((size_t)iters * sizeof *tc);
    tp = malloc((size_t)iters * sizeof *tp);
    tb = malloc((size_t)iters * sizeof *tb);
    if (!mine || !sum || !tc || !tp || !tb)
        return 1;
    fill(mine, count, me);
    /* the reduce alone (one untimed first) */
    for (int i = -1; i < iters && rc == ECO_OK; i++) {
        double t0;
        eco_barrier(ctx);
        t0 = now();
        rc = eco_reduce(ctx, mine, sum, count, PVM_DOUBLE, ECO_SUM, ECO_ALL);
        if (i >= 0)
            tc[i] = now() - t0;
        ok &= check(sum, count, n);
    }
    /* every task computes as long as rank 0's median reduce */
    comm = rc == ECO_OK ? median(tc, iters) : 0;
    if (rc == ECO_OK)
        rc = eco_bcast(ctx, &comm, 1, PVM_DOUBLE, 0);
    for (int i = 0; i < iters && rc == ECO_OK; i++) {
        double t0;
        eco_barrier(ctx);
        t0 = now();
        rc = compute(comm, sleeping, NULL);
        tp[i] = now() - t0;
    }
    for (int i = 0; i < iters && rc == ECO_OK; i++) {
        eco_request *req = NULL;
        double t0;
        eco_barrier(ctx);
        memset(sum, 0, (size_t)count * sizeof *sum);
        t0 = now();
        rc = eco_ireduce(ctx, mine, sum, count, PVM_DOUBLE, ECO_SUM, ECO_ALL, &req);
        if (rc == ECO_OK)
            rc = compute(comm, sleeping, &req);
        if (rc == ECO_OK)
            rc = eco_wait(&req);
        tb[i] = now() - t0;
        ok &= check(sum, count, n);
    }
    if (rc == ECO_OK && me == 0) {
        comp = median(tp, iters);
        both = median(tb, iters);
        overlap = 1.0 - (both - comp) / comm;
        overlap = overlap < 0 ? 0 : overlap > 1 ? 1 : overlap;
        printf("overlap: %d tasks, %d bytes, %s: reduce-to-all %.3f ms, compute %.3f ms, "
               "both %.3f ms: %.0f%% of the reduce hidden; results %s\n",
               n, count * (int)sizeof(double), sleeping ? "sleep" : "spin", comm * 1e3,
               comp * 1e3, both * 1e3, overlap * 100, ok ? "right" : "WRONG");
    }
    if (rc != ECO_OK)
        fprintf(stderr, "overlap: rank %d: %s\n", me, eco_strerror(rc));
    eco_finalize(ctx);
    pvm_exit();
    free(mine);
    free(sum);
    free(tc);
    free(tp);
    free(tb);
    return rc == ECO_OK && ok ? 0 : 1;
}
