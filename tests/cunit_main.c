/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cunit_main.c -- one runner for every CUnit suite of the pure layers.
 * Usage: unit_tests [SUITE...]   (no argument: all suites)
 * Exits non-zero when any assertion fails.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <CUnit/Basic.h>
#include "cunit_common.h"

static const eco_suite *const all_suites[] = {
    &eco_suite_partition,
    &eco_suite_subnet_file,
    &eco_suite_tree,
    &eco_suite_coll_local,
    &eco_suite_api,
};

static char tmpdir[256];

const char *eco_test_examples_dir(void)
{
    static char dir[1024];
    const char *top = getenv("top_srcdir");
    snprintf(dir, sizeof dir, "%s/examples", top ? top : "..");
    return dir;
}

const char *eco_test_tmpdir(void)
{
    if (!tmpdir[0]) {
        snprintf(tmpdir, sizeof tmpdir, "/tmp/eco-unit-XXXXXX");
        if (!mkdtemp(tmpdir)) {
            perror("mkdtemp");
            exit(2);
        }
    }
    return tmpdir;
}

static void remove_tmpdir(void)
{
    char cmd[300];
    if (tmpdir[0]) {
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
        if (system(cmd) != 0)
            fprintf(stderr, "warning: could not remove %s\n", tmpdir);
    }
}

static int wanted(const char *name, int argc, char **argv)
{
    if (argc < 2)
        return 1;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], name) == 0)
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    unsigned failures;

    atexit(remove_tmpdir);
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    for (size_t s = 0; s < sizeof all_suites / sizeof all_suites[0]; s++) {
        const eco_suite *es = all_suites[s];
        if (!wanted(es->name, argc, argv))
            continue;
        CU_pSuite suite = CU_add_suite(es->name, es->init, es->cleanup);
        if (!suite)
            return 2;
        for (const eco_test *t = es->tests; t->name; t++)
            if (!CU_add_test(suite, t->name, t->fn))
                return 2;
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    failures = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return failures ? 1 : 0;
}
