/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unit_tests.c -- tests/unit_tests: the suites of the pure layers, one
 * per test file, run by the CUnit runner (tests/cunit_main.c).
 * Usage: unit_tests [SUITE-OR-TEST...]   (no argument: all suites)
 */
#include <stddef.h>
#include "cunit_common.h"

extern const eco_suite eco_suite_partition;
extern const eco_suite eco_suite_subnet_file;
extern const eco_suite eco_suite_tree;
extern const eco_suite eco_suite_coll_local;
extern const eco_suite eco_suite_api;
extern const eco_suite eco_suite_scale;

static const eco_suite *const suites[] = {
    &eco_suite_partition,
    &eco_suite_subnet_file,
    &eco_suite_tree,
    &eco_suite_coll_local,
    &eco_suite_api,
    &eco_suite_scale,
    NULL
};

const eco_program eco_test_program = { "unit", suites, NULL, NULL };
