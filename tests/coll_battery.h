/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * coll_battery.h -- the correctness battery every member runs: every
 * collective, every root, many sizes and datatypes; each member checks
 * the exact data it ends with against a reference computed locally.
 * Shared by the in-process tests (threads) and the PVM tests (tasks).
 */
#ifndef ECO_COLL_BATTERY_H
#define ECO_COLL_BATTERY_H

#include <stddef.h>
#include "eco.h"

typedef struct ecot_report {
    int checks;        /* comparisons made */
    int failures;      /* comparisons that failed */
    char first[512];   /* the first failure, in words */
} ecot_report;

/* Battery depth: QUICK keeps sizes small (many configurations), FULL adds
 * every datatype and the 1 MiB messages. */
enum { ECOT_QUICK = 0, ECOT_FULL = 1 };

/* Run the whole battery in this member; all members must call it with
 * the same depth.  Returns the number of failures (also in *rep). */
int ecot_battery(eco_ctx *ctx, int depth, ecot_report *rep);

/* Record one check. */
void ecot_check(ecot_report *rep, int ok, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A user-defined op: bitwise XOR of PVM_INT (associative, commutative). */
void ecot_xor(int *datatype, void *x, void *y, int *num, int *info);
/* 2x2 integer matrix product, 4 PVM_INTs per matrix: associative but not
 * commutative, so it checks that scan combines in rank order. */
void ecot_matmul(int *datatype, void *x, void *y, int *num, int *info);

/* Members that disagree: case k (0 <= k < ecot_mismatch_cases()) makes
 * some members call a collective with another count, datatype, root, op
 * or operation, then every member calls eco_barrier.  *first and *second
 * get the two results; every member must see an error in one of them.
 * Returns 0 (and does nothing) when case k does not apply or the context
 * has fewer than 3 members.  ecot_mismatch_name describes case k. */
int ecot_mismatch_cases(void);
int ecot_mismatch_name(int k, char *buf, size_t len);
int ecot_mismatch_run(eco_ctx *ctx, int k, int *first, int *second);

#endif
