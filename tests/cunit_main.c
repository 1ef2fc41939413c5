/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cunit_main.c -- the one CUnit runner: main for every CUnit program,
 * which provides only its eco_test_program (tests/cunit_common.h).
 * Usage: PROGRAM [SUITE-OR-TEST...]   (no argument: all suites)
 * Exits non-zero when any assertion fails.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <CUnit/Basic.h>
#include "cunit_common.h"

static char tmpdir[256];

const char *eco_test_examples_dir(void)
{
    static char dir[1024];
    const char *top = getenv("top_srcdir");
    snprintf(dir, sizeof dir, "%s/examples", top ? top : "..");
    return dir;
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

const char *eco_test_tmpdir(void)
{
    if (!tmpdir[0]) {
        snprintf(tmpdir, sizeof tmpdir, "/tmp/eco-%s-XXXXXX", eco_test_program.name);
        if (!mkdtemp(tmpdir)) {
            perror("mkdtemp");
            tmpdir[0] = '\0';
            exit(2);
        }
        atexit(remove_tmpdir);
    }
    return tmpdir;
}

/* Whether the command line asks for this test: no argument, or one
 * naming its suite or the test itself.  Marks the arguments used. */
static int wanted(const eco_suite *es, const eco_unit_test *t, int argc, char **argv,
                  char *used)
{
    int want = argc < 2;

    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], es->name) == 0 || strcmp(argv[i], t->name) == 0)
            want = used[i] = 1;
    return want;
}

/* Registers the tests the command line asks for; 0, or the exit status. */
static int register_wanted(int argc, char **argv)
{
    const eco_suite *const *suites = eco_test_program.suites;
    char *used = calloc((size_t)argc, 1);
    int rc = 0;

    if (!used)
        return 2;
    for (size_t s = 0; suites[s] && !rc; s++) {
        const eco_suite *es = suites[s];
        CU_pSuite suite = NULL;

        for (const eco_unit_test *t = es->tests; t->name && !rc; t++) {
            if (!wanted(es, t, argc, argv, used))
                continue;
            if (!suite && !(suite = CU_add_suite(es->name, es->init, es->cleanup)))
                rc = 2;
            else if (!CU_add_test(suite, t->name, t->fn))
                rc = 2;
        }
    }
    for (int i = 1; i < argc && !rc; i++)
        if (!used[i]) {
            fprintf(stderr, "%s: no suite or test named \"%s\"; the suites:",
                    argv[0], argv[i]);
            for (size_t s = 0; suites[s]; s++)
                fprintf(stderr, " %s", suites[s]->name);
            fputc('\n', stderr);
            rc = 2;
        }
    free(used);
    return rc;
}

/* Registers and runs; the exit status. */
static int run(int argc, char **argv)
{
    unsigned failures;
    int rc;

    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    if ((rc = register_wanted(argc, argv)) != 0) {
        CU_cleanup_registry();
        return rc;
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    failures = CU_get_number_of_failures() + CU_get_number_of_tests_failed() +
               CU_get_number_of_suites_failed();
    CU_cleanup_registry();
    return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    int rc;

    if (eco_test_program.setup &&
        (rc = eco_test_program.setup(argc, argv)) != ECO_TEST_RUN)
        return rc;
    rc = run(argc, argv);
    if (eco_test_program.teardown)
        eco_test_program.teardown();
    return rc;
}
