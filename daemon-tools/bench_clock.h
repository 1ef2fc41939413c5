/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_clock.h -- private to eco-bench and eco-bench-mpi: the clock both
 * time with and sleep on for the agreed start (eco-bench(1)), so that an
 * agreed start means the same in PVM's patterns and in Open MPI's.
 * eco-bench-mpi links no libeco: these are header-only.
 */
#ifndef ECO_BENCH_CLOCK_H
#define ECO_BENCH_CLOCK_H

#include <errno.h>
#include <math.h>
#include <time.h>

/* Seconds on this process's monotonic clock. */
static inline double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Sleep until now() reads `at` (at once when it is past). */
static inline void sleep_until(double at)
{
    struct timespec ts;

    ts.tv_sec = (time_t)floor(at);
    ts.tv_nsec = (long)((at - floor(at)) * 1e9);
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        continue;
}

#endif
