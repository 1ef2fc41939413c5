/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_api.c -- the version macros, the status codes (apart from PVM's),
 * the PVM transport's grace (time and looks), and the log hook: what it
 * receives, its threshold, and NULL silencing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <CUnit/CUnit.h>
#include <pvm3.h>
#include "cunit_common.h"
#include "eco.h"
#include "eco_pvm.h"

static const int all_status[] = {
    ECO_OK, ECO_ERR_ARG, ECO_ERR_NOMEM, ECO_ERR_IO, ECO_ERR_FORMAT, ECO_ERR_DATATYPE,
    ECO_ERR_PVM, ECO_ERR_PEER, ECO_ERR_MISMATCH, ECO_ERR_NOTMEMBER, ECO_ERR_NOTFOUND,
    ECO_ERR_TIMEOUT
};
#define NSTATUS (int)(sizeof all_status / sizeof all_status[0])

static void test_version(void)
{
    char want[64];

    snprintf(want, sizeof want, "%d.%d.%d", ECO_VERSION_MAJOR, ECO_VERSION_MINOR,
             ECO_VERSION_PATCH);
    CU_ASSERT_STRING_EQUAL(ECO_VERSION, want);
    CU_ASSERT_STRING_EQUAL(eco_version(), ECO_VERSION);
    CU_ASSERT_EQUAL(ECO_VERSION_NUMBER,
                    ECO_VERSION_MAJOR * 10000 + ECO_VERSION_MINOR * 100 + ECO_VERSION_PATCH);
}

/* Every error lies below PVM's codes (PvmBadParam -2 .. PvmIPLoopback -36
 * in PVM 3.4), in [ECO_ERR_LAST, ECO_OK], and has a text of its own. */
static void test_status_codes(void)
{
    for (int i = 0; i < NSTATUS; i++) {
        int s = all_status[i];
        CU_ASSERT(s >= ECO_ERR_LAST && s <= ECO_OK);
        if (s != ECO_OK)
            CU_ASSERT(s < ECO_ERR_BASE && s < -100);
        CU_ASSERT_STRING_NOT_EQUAL(eco_strerror(s), "unknown libeco status");
        for (int j = 0; j < i; j++)
            CU_ASSERT_STRING_NOT_EQUAL(eco_strerror(s), eco_strerror(all_status[j]));
    }
    CU_ASSERT(ECO_ERR_NOMEM != PvmMismatch && ECO_ERR_ARG != PvmBadParam);
    CU_ASSERT_STRING_EQUAL(eco_strerror(PvmMismatch), "unknown libeco status");
    CU_ASSERT_STRING_EQUAL(eco_strerror(-1), "unknown libeco status");
    CU_ASSERT_STRING_EQUAL(eco_strerror(ECO_ERR_LAST - 1), "unknown libeco status");
}

/* The PVM status behind an ECO_ERR_PVM is kept per thread. */
static void test_last_pvm_error(void)
{
    CU_ASSERT_EQUAL(ecoi_pvm_error(PvmNoMem), ECO_ERR_PVM);
    CU_ASSERT_EQUAL(eco_last_pvm_error(NULL), PvmNoMem);
    CU_ASSERT_EQUAL(ecoi_pvm_error(PvmSysErr), ECO_ERR_PVM);
    CU_ASSERT_EQUAL(eco_last_pvm_error(NULL), PvmSysErr);
    CU_ASSERT_EQUAL(eco_tid(NULL, 0), ECO_ERR_ARG);
}

/* The first look of g, from time t0 on every step seconds, at which the
 * grace (10 s and 100 looks) runs out: its time since t0, or -1 (none in
 * n looks). */
static double grace_out(ecoi_grace *g, double t0, double step, int n)
{
    for (int i = 0; i < n; i++)
        if (ecoi_grace_look(g, t0 + i * step, 10.0, 100))
            return i * step;
    return -1.0;
}

/* A grace runs out when both its time and its looks have passed: a
 * blocking wait (a look every 50 ms) by the clock, as when the clock
 * alone counted; a busy poll by the clock too; a program that looks
 * every 15 s only at its 101st look, not its second. */
static void test_grace(void)
{
    ecoi_grace g = { 0 };
    double out;

    out = grace_out(&g, 100.0, 0.05, 1000);
    CU_ASSERT(out > 10.0 && out < 10.0 + 0.05 + 1e-9);
    ecoi_grace_reset(&g);
    out = grace_out(&g, 100.0, 0.001, 20000);
    CU_ASSERT(out > 10.0 && out < 10.0 + 0.001 + 1e-9);
    ecoi_grace_reset(&g);
    out = grace_out(&g, 100.0, 15.0, 1000);
    CU_ASSERT(out > 100 * 15.0 - 1e-9 && out < 100 * 15.0 + 1e-9);
    /* reset: the next look starts it again (at time 0 too) */
    ecoi_grace_reset(&g);
    CU_ASSERT_FALSE(ecoi_grace_look(&g, 0.0, 10.0, 100));
    for (int i = 0; i < 200; i++)
        ecoi_grace_look(&g, 0.0, 10.0, 100);
    CU_ASSERT_TRUE(ecoi_grace_look(&g, 10.5, 10.0, 100));
    ecoi_grace_reset(&g);
    CU_ASSERT_FALSE(ecoi_grace_look(&g, 1e6, 10.0, 0));
    CU_ASSERT_TRUE(ecoi_grace_look(&g, 1e6 + 11.0, 10.0, 0));
}

typedef struct heard {
    int calls, level;
    char msg[1024];
} heard;

static void hook(int level, const char *msg, void *arg)
{
    heard *h = arg;

    h->calls++;
    h->level = level;
    snprintf(h->msg, sizeof h->msg, "%s", msg);
}

static void test_log_hook(void)
{
    char path[512];
    heard h = { 0 };
    eco_map *m = NULL;
    FILE *f;

    snprintf(path, sizeof path, "%s/broken-subnets", eco_test_tmpdir());
    f = fopen(path, "w");
    CU_ASSERT_FATAL(f != NULL);
    fputs("eco-subnets 1\nthreshold 0.2\nhost a\nfrobnicate\n", f);
    fclose(f);
    CU_ASSERT_EQUAL(eco_set_log_level(ECO_LOG_WARN) >= ECO_LOG_NONE, 1);

    /* A malformed file: one error, "FILE:LINE: reason", no newline. */
    eco_set_log(hook, &h);
    CU_ASSERT_EQUAL(ecoi_load_subnet_file(path, &m), ECO_ERR_FORMAT);
    CU_ASSERT_PTR_NULL(m);
    CU_ASSERT_EQUAL(h.calls, 1);
    CU_ASSERT_EQUAL(h.level, ECO_LOG_ERROR);
    CU_ASSERT(strstr(h.msg, path) != NULL && strstr(h.msg, ":4:") != NULL);
    CU_ASSERT(strchr(h.msg, '\n') == NULL);

    /* Above the threshold: nothing. */
    CU_ASSERT_EQUAL(eco_set_log_level(ECO_LOG_NONE), ECO_LOG_WARN);
    CU_ASSERT_EQUAL(ecoi_load_subnet_file(path, &m), ECO_ERR_FORMAT);
    CU_ASSERT_EQUAL(h.calls, 1);
    CU_ASSERT_EQUAL(eco_set_log_level(ECO_LOG_WARN), ECO_LOG_NONE);
    CU_ASSERT_EQUAL(eco_set_log_level(7), ECO_ERR_ARG);

    /* NULL: silent. */
    eco_set_log(NULL, NULL);
    CU_ASSERT_EQUAL(ecoi_load_subnet_file(path, &m), ECO_ERR_FORMAT);
    CU_ASSERT_EQUAL(h.calls, 1);

    /* No subnet file anywhere: one warning (once per process). */
    if (access(ECO_SYSTEM_SUBNET_FILE, F_OK) != 0) {
        char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
        char *file = getenv("ECO_SUBNET_FILE") ? strdup(getenv("ECO_SUBNET_FILE")) : NULL;
        setenv("HOME", eco_test_tmpdir(), 1);
        unsetenv("ECO_SUBNET_FILE");
        eco_set_log(hook, &h);
        CU_ASSERT_EQUAL(ecoi_load_subnet_file(NULL, &m), ECO_OK);
        CU_ASSERT_PTR_NULL(m);
        CU_ASSERT_EQUAL(h.calls, 2);
        CU_ASSERT_EQUAL(h.level, ECO_LOG_WARN);
        CU_ASSERT(strstr(h.msg, "no subnet file") != NULL);
        if (home)
            setenv("HOME", home, 1);
        if (file)
            setenv("ECO_SUBNET_FILE", file, 1);
        free(home);
        free(file);
    }
    eco_set_log(eco_log_stderr, NULL);
}

static const eco_unit_test api_tests[] = {
    { "version macros", test_version },
    { "status codes apart from PVM's", test_status_codes },
    { "last PVM status", test_last_pvm_error },
    { "a grace runs out by time and looks", test_grace },
    { "log hook, threshold, silence", test_log_hook },
    { NULL, NULL }
};

const eco_suite eco_suite_api = { "api", NULL, NULL, api_tests };
