/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cunit_common.h -- the shared CUnit runner: every test file defines one
 * suite table; tests/cunit_main.c registers them all and runs them.
 */
#ifndef ECO_CUNIT_COMMON_H
#define ECO_CUNIT_COMMON_H

#include <CUnit/CUnit.h>

typedef struct eco_test {
    const char *name;
    void (*fn)(void);
} eco_test;

typedef struct eco_suite {
    const char *name;
    int (*init)(void);       /* may be NULL */
    int (*cleanup)(void);    /* may be NULL */
    const eco_test *tests;   /* terminated by { NULL, NULL } */
} eco_suite;

/* The suites, one per test file. */
extern const eco_suite eco_suite_partition;
extern const eco_suite eco_suite_subnet_file;
extern const eco_suite eco_suite_tree;
extern const eco_suite eco_suite_coll_local;
extern const eco_suite eco_suite_api;

/* Directory of the shipped example files ($top_srcdir/examples). */
const char *eco_test_examples_dir(void);
/* A scratch directory for the run, made once and removed at exit. */
const char *eco_test_tmpdir(void);

#endif
