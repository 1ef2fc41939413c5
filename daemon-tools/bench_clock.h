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
#include <sys/prctl.h>
#include <time.h>

/* Seconds on this process's monotonic clock. */
static inline double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* How long before its time a member stops sleeping and spins: a sleep
 * wakes late by the timer's slack (50 us by default; set to 1 ns below)
 * and by the scheduler on a loaded machine (an agreed start that slept to
 * its time measured Open MPI's gather of 1,000 bytes on one host, 4
 * ranks, at 363 us; sleeping to 500 us before and spinning, 124). */
#define BENCH_SPIN 500e-6

/* Until now() reads `at` (at once when it is past): asleep until
 * BENCH_SPIN before, then spinning. */
static inline void sleep_until(double at)
{
    static int slack_set;
    double wake = at - BENCH_SPIN;
    struct timespec ts;

    if (!slack_set) {
        (void)prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
        slack_set = 1;
    }
    if (wake > now()) {
        ts.tv_sec = (time_t)floor(wake);
        ts.tv_nsec = (long)((wake - floor(wake)) * 1e9);
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
            continue;
    }
    while (now() < at)
        continue;
}

/* Round trips per member of the clock comparison before each size. */
#define CLOCK_PINGS 8
/* The agreed start's lead over the root's time when it sends it: at
 * least this, and each member's shortest round trip besides. */
#define START_LEAD 2e-3

/* Cristian's way of reading a member's clock against the root's: of the
 * round trips t1..t2 (the root's clock) during which the member read its
 * clock t, the shortest gives offset = t - (t1 + t2) / 2. */
typedef struct {
    double best;   /* the shortest round trip so far (INFINITY: none) */
    double offset; /* the member's clock less the root's, by it */
} clock_ping;

static inline void clock_ping_begin(clock_ping *p)
{
    p->best = INFINITY;
    p->offset = 0.0;
}

static inline void clock_ping_note(clock_ping *p, double t1, double t, double t2)
{
    if (t2 - t1 < p->best) {
        p->best = t2 - t1;
        p->offset = t - (t1 + t2) / 2.0;
    }
}

/* A member's wait for the agreed start `at` (its own clock): 1 when it
 * came late (it begins at once), else 0 after sleeping until then. */
static inline int start_at(double at)
{
    if (now() > at)
        return 1;
    sleep_until(at);
    return 0;
}

#endif
