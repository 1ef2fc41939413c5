/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_scale.c -- the library at the scale of issue 13: a subnet file of
 * 100,000 hosts, trees and a context of 10,000 members.  The tests guard
 * sizes (memory, the number of trees a context keeps), never times: the
 * times are printed, for the record, on a machine that may be shared.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <string.h>
#include <time.h>
#include <CUnit/CUnit.h>

#include "cunit_common.h"
#include "eco.h"
#include "eco_map_impl.h"
#include "eco_coll.h"
#include "proc_status.h"

/* AddressSanitizer's shadow and quarantine make memory 2-3 times what
 * the library asks for: the memory bounds are checked without it. */
#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Start a new peak: VmHWM back to the current RSS (Linux 4.0 and later).
 * 0 when the kernel does not let us (then the RSS at the end is used). */
static int reset_peak(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    int ok = f && fputs("5", f) >= 0;

    if (f && fclose(f) != 0)
        ok = 0;
    return ok;
}

/* The growth in KB of the peak RSS since `before` (VmRSS then). */
static long peak_growth_kb(long before, int reset)
{
    long peak = proc_status_kb(reset ? "VmHWM" : "VmRSS");

    return before >= 0 && peak >= 0 ? peak - before : -1;
}

/* The bytes malloc has handed out and not had back, -1 when unknown
 * (mallinfo2: glibc 2.33 and later; AddressSanitizer's malloc does not
 * keep the count).  Exact where the RSS is not: freed memory that the
 * process keeps is reused. */
static long long heap_bytes(void)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33)
    struct mallinfo2 mi;

    if (UNDER_ASAN)
        return -1;
    mi = mallinfo2();
    return (long long)(mi.uordblks + mi.hblkhd);
#else
    return -1;
#endif
}

/* ------------------------------------------------------------------ */
/* A subnet file of 100,000 hosts                                      */
/* ------------------------------------------------------------------ */

#define BIG_HOSTS 100000
#define BIG_SUBNETS 1000
#define BIG_PER (BIG_HOSTS / BIG_SUBNETS)

/*
 * What eco-characterize's sparse mode measures: each host to its next two
 * in its subnet (a ring: 2 pairs per host), and one pair between the
 * first hosts of adjacent subnets, with the routers between them; host
 * h is "n" followed by 6 digits, in subnet h / BIG_PER.
 */
static int write_big(const char *path)
{
    FILE *f = fopen(path, "w");

    if (!f)
        return -1;
    fprintf(f, "eco-subnets 2\nthreshold 0.2\n");
    for (int h = 0; h < BIG_HOSTS; h++)
        fprintf(f, "host n%06d\n", h);
    for (int s = 0; s < BIG_SUBNETS; s++)
        for (int i = 0; i < BIG_PER; i++)
            for (int d = 1; d <= 2; d++)
                fprintf(f, "cost n%06d n%06d %g\n", s * BIG_PER + i,
                        s * BIG_PER + (i + d) % BIG_PER, 1e-4 * (1.0 + 0.01 * d));
    for (int s = 0; s + 1 < BIG_SUBNETS; s++) {
        fprintf(f, "cost n%06d n%06d 0.001\n", s * BIG_PER, (s + 1) * BIG_PER);
        fprintf(f, "hops n%06d n%06d 1\n", s * BIG_PER, (s + 1) * BIG_PER);
    }
    for (int s = 0; s < BIG_SUBNETS; s++) {
        fprintf(f, "subnet %d k=2", s);
        for (int i = 0; i < BIG_PER; i++)
            fprintf(f, " n%06d", s * BIG_PER + i);
        fputc('\n', f);
    }
    return fclose(f) == 0 ? 0 : -1;
}

static void test_big_file(void)
{
    char path[4096], err[512] = "";
    eco_map *m = NULL;
    long before, grew;
    double t0, t1;
    int reset;

    snprintf(path, sizeof path, "%s/big.subnets", eco_test_tmpdir());
    CU_ASSERT_FATAL(write_big(path) == 0);
    before = proc_status_kb("VmRSS");
    reset = reset_peak();
    t0 = now();
    CU_ASSERT_EQUAL_FATAL(eco_map_read(path, &m, err, sizeof err), ECO_OK);
    t1 = now();
    grew = peak_growth_kb(before, reset);
    printf("\n    [scale] %d hosts, %zu pairs: read in %.2f s, peak RSS +%ld MB%s\n",
           eco_map_nhosts(m), ecoi_map_measured_pairs(m), t1 - t0, grew / 1024,
           reset ? "" : " (RSS after: no peak reset)");
    CU_ASSERT_EQUAL(eco_map_nhosts(m), BIG_HOSTS);
    CU_ASSERT_EQUAL(eco_map_nsubnets(m), BIG_SUBNETS);
    CU_ASSERT_EQUAL(ecoi_map_measured_pairs(m), (size_t)BIG_HOSTS * 2 + BIG_SUBNETS - 1);
    CU_ASSERT(ecoi_map_has_hops(m));
    CU_ASSERT_EQUAL(eco_map_cost(m, 5 * BIG_PER + 3, 5 * BIG_PER + 4), 1.01e-4);
    CU_ASSERT_EQUAL(eco_map_cost(m, 5 * BIG_PER + 5, 5 * BIG_PER + 3), 1.02e-4);
    CU_ASSERT_EQUAL(eco_map_cost(m, 5 * BIG_PER + 3, 5 * BIG_PER + 9), -1.0);
    CU_ASSERT_EQUAL(eco_map_cost(m, 7 * BIG_PER, 8 * BIG_PER), 1e-3);
    CU_ASSERT_EQUAL(eco_map_hops(m, 8 * BIG_PER, 7 * BIG_PER), 1);
    CU_ASSERT_EQUAL(eco_map_hops(m, 7 * BIG_PER, 7 * BIG_PER + 1), ECO_ERR_NOTFOUND);
    CU_ASSERT_EQUAL(eco_map_cost(m, 42, 42), 0.0);
    /* the dense matrices took 2 x 8 x 131072^2 bytes (275 GB) here; the
     * file is 8 MB and the map about as much again */
    if (!UNDER_ASAN)
        CU_ASSERT(grew >= 0 && grew < 256 * 1024);
    /* Figure 2 of the paper over the measured pairs finds the subnets */
    t0 = now();
    CU_ASSERT_EQUAL(eco_map_partition(m, 0.2), ECO_OK);
    printf("    [scale] partitioned in %.2f s\n", now() - t0);
    CU_ASSERT_EQUAL(eco_map_nsubnets(m), BIG_SUBNETS);
    CU_ASSERT_EQUAL(eco_map_subnet_of(m, 5 * BIG_PER + 7), 5);
    eco_map_free(m);
    remove(path);
}

/* ------------------------------------------------------------------ */
/* 10,000 members                                                      */
/* ------------------------------------------------------------------ */

#define N_MEMBERS 10000
#define N_SUBNETS 100

/* A map of N_MEMBERS hosts in N_SUBNETS subnets, measured as above, and
 * one member per host. */
static eco_map *members_map(int *mh)
{
    const int per = N_MEMBERS / N_SUBNETS;
    char **names = malloc(N_MEMBERS * sizeof *names);
    ecoi_pair *p = malloc((2 * N_MEMBERS + N_SUBNETS) * sizeof *p);
    eco_map *m = NULL;
    size_t np = 0;

    CU_ASSERT_FATAL(names && p);
    for (int h = 0; h < N_MEMBERS; h++) {
        names[h] = malloc(16);
        CU_ASSERT_FATAL(names[h] != NULL);
        snprintf(names[h], 16, "m%05d", h);
        mh[h] = h;
    }
    m = ecoi_map_new_hosts((const char *const *)names, N_MEMBERS);
    CU_ASSERT_FATAL(m != NULL);
    for (int s = 0; s < N_SUBNETS; s++)
        for (int i = 0; i < per; i++)
            for (int d = 1; d <= 2; d++)
                p[np++] = (ecoi_pair){ s * per + i, s * per + (i + d) % per, -1,
                                       1e-4 * (1.0 + 0.01 * d) };
    for (int s = 0; s + 1 < N_SUBNETS; s++) /* subnets further apart further up */
        p[np++] = (ecoi_pair){ s * per, (s + 1) * per, -1, 1e-3 * (1 + s % 7) };
    CU_ASSERT_FATAL(ecoi_map_add_pairs(m, p, np) == ECO_OK);
    CU_ASSERT_FATAL(eco_map_partition(m, 0.2) == ECO_OK);
    CU_ASSERT_EQUAL(eco_map_nsubnets(m), N_SUBNETS);
    for (int h = 0; h < N_MEMBERS; h++)
        free(names[h]);
    free(names);
    free(p);
    return m;
}

/* Every member reached once from the root, through its parent. */
static int tree_ok(const eco_tree *t, int n, int root)
{
    if (eco_tree_size(t) != n || eco_tree_root(t) != root || eco_tree_parent(t, root) != -1)
        return 0;
    for (int i = 0; i < n; i++) {
        int m = t->order[i];
        if (t->pos[m] != i || (m != root && t->pos[t->parent[m]] >= i))
            return 0;
    }
    return 1;
}

static void test_tree_10000(void)
{
    int *mh = malloc(N_MEMBERS * sizeof *mh);
    eco_map *m;
    eco_tree *t = NULL;
    double t0;

    CU_ASSERT_FATAL(mh != NULL);
    m = members_map(mh);
    t0 = now();
    CU_ASSERT_EQUAL_FATAL(eco_tree_build(m, N_MEMBERS, mh, 4321, &t), ECO_OK);
    printf("\n    [scale] eco_tree_build, %d members on %d hosts, %d subnets: %.3f s, "
           "depth %d\n", N_MEMBERS, eco_map_nhosts(m), N_SUBNETS, now() - t0,
           eco_tree_depth(t));
    CU_ASSERT(tree_ok(t, N_MEMBERS, 4321));
    eco_tree_free(&t);
    eco_map_free(m);
    free(mh);
}

static void nothing(ecoi_transport *tp)
{
    (void)tp;
}

static void destroy(ecoi_transport *tp)
{
    free(tp);
}

/*
 * A context of 10,000 members whose collectives use many roots: the
 * trees it keeps stay a handful (ctx.c), where a cache of every root's
 * trees grew to n trees of n members.  The transport carries nothing:
 * the collectives are played by counting calls and asking for trees as
 * they do.
 */
static void test_context_10000(void)
{
    static const ecoi_shape shapes[] = { { ECOI_AMONG_TREE, 0, 0 },
                                         { ECOI_AMONG_STAR, ECOI_K_STAR, ECOI_K_STAR } };
    ecoi_transport *tp = calloc(1, sizeof *tp);
    int *mh = malloc(N_MEMBERS * sizeof *mh), most = 0;
    const eco_tree *t = NULL, *t2 = NULL, *again = NULL;
    eco_ctx *c = NULL;
    long long before, with_map, with_trees;
    double t0;

    CU_ASSERT_FATAL(tp && mh);
    tp->enter = tp->leave = nothing;
    tp->destroy = destroy;
    before = heap_bytes();
    CU_ASSERT_FATAL(ecoi_ctx_create(N_MEMBERS, 0, members_map(mh), mh, tp, &c) == ECO_OK);
    with_map = heap_bytes();
    t0 = now();
    for (int call = 0; call < 60; call++) {
        int root = (call * 1009) % N_MEMBERS;
        c->calls++; /* what ecoi_begin does */
        for (int s = 0; s < 2; s++) {
            CU_ASSERT_EQUAL_FATAL(ecoi_ctx_shape(c, root, shapes[s], &t), ECO_OK);
            CU_ASSERT_EQUAL(eco_tree_root(t), root);
        }
        if (ecoi_ctx_trees(c) > most)
            most = ecoi_ctx_trees(c);
    }
    with_trees = heap_bytes();
    printf("\n    [scale] context of %d members: 120 trees for 60 roots in %.2f s, "
           "at most %d kept\n", N_MEMBERS, now() - t0, most);
    if (before >= 0)
        printf("    [scale] per member: %lld bytes (the map and context %lld, the trees "
               "kept %lld)\n", (with_trees - before) / N_MEMBERS,
               (with_map - before) / N_MEMBERS, (with_trees - with_map) / N_MEMBERS);
    CU_ASSERT(most <= 8);
    /* O(n): a tree is 7 ints per member; caching the 120 trees took
     * 3.4 KB per member, and every root's n^2 */
    if (before >= 0)
        CU_ASSERT((with_trees - before) / N_MEMBERS < 2048);
    /* In one call, every tree handed out stays: more than the cache's
     * share when need be (a gather to all holds two; select.c's
     * predictions one per candidate). */
    c->calls++;
    CU_ASSERT_EQUAL(ecoi_ctx_shape(c, 1, shapes[0], &t), ECO_OK);
    for (int root = 2; root < 12; root++)
        CU_ASSERT_EQUAL(ecoi_ctx_shape(c, root, shapes[1], &t2), ECO_OK);
    CU_ASSERT_EQUAL(ecoi_ctx_trees(c), 11);
    CU_ASSERT_EQUAL(ecoi_ctx_shape(c, 1, shapes[0], &again), ECO_OK);
    CU_ASSERT_PTR_EQUAL(again, t);   /* not built again: still there */
    CU_ASSERT(tree_ok(t, N_MEMBERS, 1));
    /* the next call trims back to the cache's size */
    c->calls++;
    CU_ASSERT_EQUAL(ecoi_ctx_shape(c, 3, shapes[1], &t), ECO_OK);
    CU_ASSERT_EQUAL(ecoi_ctx_trees(c), 8);
    /* a pattern's tree is its own, and ECO's stays through its turn */
    CU_ASSERT_EQUAL(eco_set_pattern(c, "binary"), ECO_OK);
    c->calls++;
    CU_ASSERT_EQUAL(ecoi_ctx_shape(c, 3, shapes[1], &t2), ECO_OK);
    CU_ASSERT(t2 != t);
    CU_ASSERT(tree_ok(t2, N_MEMBERS, 3));
    CU_ASSERT_EQUAL(t2->child_off[4] - t2->child_off[3], 2);   /* the root's two */
    CU_ASSERT_EQUAL(eco_set_pattern(c, "eco"), ECO_OK);
    c->calls++;
    CU_ASSERT_EQUAL(ecoi_ctx_shape(c, 3, shapes[1], &again), ECO_OK);
    CU_ASSERT_PTR_EQUAL(again, t);
    ecoi_ctx_destroy(c);
    free(mh);
}

/*
 * Every collective's predictions for 10,000 members, under ECO's trees
 * and under the star pattern, whose root has 9,999 children in 100
 * subnets: select.c walked a member's children once for each child and
 * each child before it (cubic in its children, 10^11 steps for this
 * star: it never ended).  Sizes, not times: the predictions are made,
 * every one a positive time, and the times printed for the record.
 * All-to-all's are left out: they count its n^2 messages (6 s here).
 */
static void test_predict_10000(void)
{
    static const char *const pattern[] = { "star", "eco" };
    ecoi_transport *tp = calloc(1, sizeof *tp);
    int *mh = malloc(N_MEMBERS * sizeof *mh);
    ecoi_prediction pr[64];
    eco_ctx *c = NULL;

    CU_ASSERT_FATAL(tp && mh);
    tp->enter = tp->leave = nothing;
    tp->destroy = destroy;
    CU_ASSERT_FATAL(ecoi_ctx_create(N_MEMBERS, 0, members_map(mh), mh, tp, &c) == ECO_OK);
    for (int p = 0; p < 2; p++) {
        double t0 = now();
        CU_ASSERT_EQUAL_FATAL(eco_set_pattern(c, pattern[p]), ECO_OK);
        for (int coll = 0; coll < ECOI_NCOLL; coll++) {
            int k;
            if (coll == ECOI_C_ALLTOALL || coll == ECOI_C_ALLTOALLV)
                continue;
            c->calls++;
            k = ecoi_predict(c->map, c->map->model, N_MEMBERS, c->member_host, c, coll,
                             coll == ECOI_C_BARRIER ? ECO_ALL : 4321, 16384, -1, pr, 64);
            CU_ASSERT(k > 0);
            for (int i = 0; i < k; i++)
                CU_ASSERT(pr[i].seconds > 0.0);
        }
        printf("\n    [scale] every collective's predictions but all-to-all's for %d members, "
               "pattern %s: %.2f s\n", N_MEMBERS, pattern[p], now() - t0);
    }
    ecoi_ctx_destroy(c);
    free(mh);
}

/*
 * eco-sim's members: 10,000 contexts that share one (its map, member
 * list, trees, groups, ring and choices).  Each member holds its own
 * context only; the plan table (15 collectives x 40 size classes, 29 KB)
 * was in every context: 288 MB of eco-sim's 394 MB at 10,000 hosts.
 * Now a collective's table is made on its first call, and never in a
 * shared context.
 */
static void test_shared_10000(void)
{
    ecoi_transport *tp = calloc(1, sizeof *tp);
    int *mh = malloc(N_MEMBERS * sizeof *mh);
    eco_ctx *c = NULL, **m = calloc(N_MEMBERS, sizeof *m);
    long long before, after, one;
    ecoi_plan *slot;

    CU_ASSERT_FATAL(tp && mh && m);
    tp->enter = tp->leave = nothing;
    tp->destroy = destroy;
    CU_ASSERT_FATAL(ecoi_ctx_create(N_MEMBERS, 0, members_map(mh), mh, tp, &c) == ECO_OK);
    before = heap_bytes();
    for (int r = 0; r < N_MEMBERS; r++) {
        ecoi_transport *t = calloc(1, sizeof *t);
        CU_ASSERT_FATAL(t != NULL);
        t->enter = t->leave = nothing;
        t->destroy = destroy;
        CU_ASSERT_FATAL(ecoi_ctx_create_shared(c, r, t, &m[r]) == ECO_OK);
    }
    after = heap_bytes();
    if (before >= 0)
        printf("\n    [scale] %d shared contexts: %lld bytes per member (a context "
               "%zu, its transport %zu)\n", N_MEMBERS, (after - before) / N_MEMBERS,
               sizeof(eco_ctx), sizeof(ecoi_transport));
    /* no plan table in a shared context, ever: its choices are c's */
    CU_ASSERT_PTR_NULL(ecoi_ctx_plan_slot(m[17], ECOI_C_BCAST, 14));
    for (int k = 0; k < ECOI_NCOLL; k++)
        CU_ASSERT_PTR_NULL(m[17]->plans[k]);
    CU_ASSERT(sizeof(eco_ctx) < 1024);
    if (before >= 0)
        CU_ASSERT((after - before) / N_MEMBERS < 1024);
    /* in c, one collective's table when it is first used */
    for (int k = 0; k < ECOI_NCOLL; k++)
        CU_ASSERT_PTR_NULL(c->plans[k]);
    one = heap_bytes();
    slot = ecoi_ctx_plan_slot(c, ECOI_C_BCAST, 14);
    CU_ASSERT_PTR_NOT_NULL_FATAL(slot);
    CU_ASSERT_EQUAL(slot->algorithm, -1);
    CU_ASSERT_PTR_EQUAL(ecoi_ctx_plan_slot(c, ECOI_C_BCAST, 3), c->plans[ECOI_C_BCAST] + 3);
    CU_ASSERT_PTR_NULL(c->plans[ECOI_C_REDUCE]);
    if (one >= 0)
        CU_ASSERT(heap_bytes() - one < 2 * ECOI_SIZE_CLASSES * (long long)sizeof(ecoi_plan));
    CU_ASSERT_PTR_NULL(ecoi_ctx_plan_slot(c, ECOI_NCOLL, 0));
    CU_ASSERT_PTR_NULL(ecoi_ctx_plan_slot(c, ECOI_C_BCAST, ECOI_SIZE_CLASSES));
    /* another pattern's choices are kept apart: ECO's outlive its turn
     * (eco-bench takes turns), another pattern's do not */
    slot->algorithm = 3;
    CU_ASSERT_EQUAL(eco_set_pattern(c, "binary"), ECO_OK);
    CU_ASSERT_PTR_EQUAL(c->plans[ECOI_C_BCAST] + 14, slot);
    CU_ASSERT_PTR_NULL(c->pattern_plans[ECOI_C_BCAST]);
    CU_ASSERT_PTR_EQUAL(ecoi_ctx_plan_slot(c, ECOI_C_BCAST, 14),
                        c->pattern_plans[ECOI_C_BCAST] + 14);
    CU_ASSERT_EQUAL(c->pattern_plans[ECOI_C_BCAST][14].algorithm, -1);
    c->pattern_plans[ECOI_C_BCAST][14].algorithm = 0;
    CU_ASSERT_EQUAL(eco_set_pattern(c, "binary"), ECO_OK);   /* the same: kept */
    CU_ASSERT_EQUAL(c->pattern_plans[ECOI_C_BCAST][14].algorithm, 0);
    CU_ASSERT_EQUAL(eco_set_pattern(c, "kary3"), ECO_OK);    /* another: forgotten */
    CU_ASSERT_PTR_NULL(c->pattern_plans[ECOI_C_BCAST]);
    CU_ASSERT_EQUAL(eco_set_pattern(c, "eco"), ECO_OK);
    CU_ASSERT_PTR_EQUAL(ecoi_ctx_plan_slot(c, ECOI_C_BCAST, 14), slot);
    CU_ASSERT_EQUAL(slot->algorithm, 3);
    /* a forced algorithm forgets every choice, and their tables */
    CU_ASSERT_EQUAL(eco_set_pattern(c, "bcast=chain"), ECO_OK);
    CU_ASSERT_PTR_NULL(c->plans[ECOI_C_BCAST]);
    CU_ASSERT_PTR_NULL(c->pattern_plans[ECOI_C_BCAST]);
    for (int r = 0; r < N_MEMBERS; r++)
        ecoi_ctx_destroy(m[r]);
    ecoi_ctx_destroy(c);
    free(m);
    free(mh);
}

static const eco_unit_test scale_tests[] = {
    { "a subnet file of 100,000 hosts", test_big_file },
    { "a tree of 10,000 members", test_tree_10000 },
    { "a context of 10,000 members, many roots", test_context_10000 },
    { "predictions for 10,000 members: ECO's trees and a star", test_predict_10000 },
    { "10,000 contexts that share one: no plan tables", test_shared_10000 },
    { NULL, NULL }
};

const eco_suite eco_suite_scale = { "scale", NULL, NULL, scale_tests };
