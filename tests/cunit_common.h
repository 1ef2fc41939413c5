/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cunit_common.h -- the one CUnit runner (tests/cunit_main.c) that every
 * CUnit program links: tests/unit_tests, tests/pvm_tests and
 * tests/characterize_unit.  A program provides only its eco_test_program
 * (its suites, and, where it needs them, a set-up and a tear-down); the
 * runner owns main: the command line, the registry, the run, the output
 * and the exit status.
 *
 * Usage of every such program: PROGRAM [SUITE-OR-TEST...]
 *   No argument: every suite.  Each argument names a suite (all its
 *   tests) or a test (that test alone, in its suite).  A name that is
 *   neither is an error (exit 2).
 * Exit: 0 when every test passed, 1 when an assertion, a test or a
 * suite's set-up failed, 2 when the runner itself could not run (or the
 * program's set-up says so), as the automake test harness reads it.
 */
#ifndef ECO_CUNIT_COMMON_H
#define ECO_CUNIT_COMMON_H

#include <CUnit/CUnit.h>

typedef struct eco_unit_test {
    const char *name;
    void (*fn)(void);
} eco_unit_test;

typedef struct eco_suite {
    const char *name;
    int (*init)(void);       /* may be NULL */
    int (*cleanup)(void);    /* may be NULL */
    const eco_unit_test *tests;   /* terminated by { NULL, NULL } */
} eco_suite;

/* eco_test_program.setup's answer to run the suites. */
#define ECO_TEST_RUN (-1)

typedef struct eco_program {
    /* Names the scratch directory: /tmp/eco-NAME-XXXXXX. */
    const char *name;
    /* The suites, in the order they run; terminated by NULL. */
    const eco_suite *const *suites;
    /* May be NULL.  Called first, with the whole command line: returns
     * ECO_TEST_RUN to run the suites, else the program's exit status
     * (e.g. a spawned worker's, or 2 when the test cannot run). */
    int (*setup)(int argc, char **argv);
    /* May be NULL.  Called after the run, before the exit. */
    void (*teardown)(void);
} eco_program;

/* Defined once by every CUnit program. */
extern const eco_program eco_test_program;

/* Directory of the shipped example files ($top_srcdir/examples). */
const char *eco_test_examples_dir(void);
/* A scratch directory for the run, made on the first call (exit 2 when it
 * cannot be) and removed at exit. */
const char *eco_test_tmpdir(void);

#endif
