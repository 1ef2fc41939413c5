/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_partition.c -- the network map (lib/map.c) and the partitioning
 * into subnets (lib/partition.c, Figure 2 of the ECO paper).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cunit_common.h"
#include "eco.h"
#include "eco_compat_iface.h"

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

/* A map from lines "A B SECONDS" or "A B hops=N" separated by ';' or '\n'. */
static eco_map *map_of(const char *spec)
{
    eco_map *m = eco_map_new();
    char *copy = strdup(spec), *save = NULL;

    CU_ASSERT_FATAL(m != NULL && copy != NULL);
    for (char *l = strtok_r(copy, ";\n", &save); l; l = strtok_r(NULL, ";\n", &save)) {
        char a[64], b[64];
        double s;
        int hops;
        if (sscanf(l, "%63s %63s hops=%d", a, b, &hops) == 3) {
            CU_ASSERT_EQUAL(eco_map_add_hops(m, a, b, hops), ECO_OK);
        } else if (sscanf(l, "%63s %63s %lf", a, b, &s) == 3) {
            CU_ASSERT_EQUAL(eco_map_add_cost(m, a, b, s), ECO_OK);
        }
    }
    free(copy);
    return m;
}

/* The subnets as text: "a b|c d|e f" (canonical order). */
static const char *subnets_str(const eco_map *m)
{
    static char buf[65536];
    size_t len = 0;

    buf[0] = '\0';
    for (int s = 0; s < eco_map_nsubnets(m); s++)
        for (int i = 0; i < eco_map_subnet_size(m, s); i++)
            len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s",
                                    i ? " " : s ? "|" : "",
                                    eco_map_host(m, eco_map_subnet_host(m, s, i)));
    return buf;
}

static void check_partition(const char *spec, double t, const char *expect)
{
    eco_map *m = map_of(spec);

    CU_ASSERT_EQUAL(eco_map_partition(m, t), ECO_OK);
    CU_ASSERT_STRING_EQUAL(subnets_str(m), expect);
    eco_map_free(m);
}

/* A small deterministic generator (LCG), so every run sees the same data. */
static uint64_t rng_state;

static double urand(void)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rng_state >> 11) / 9007199254740992.0; /* [0, 1) */
}

/* ------------------------------------------------------------------ */
/* The map                                                             */
/* ------------------------------------------------------------------ */

static void test_map_fresh(void)
{
    eco_map *m = eco_map_new();

    CU_ASSERT_FATAL(m != NULL);
    CU_ASSERT_EQUAL(eco_map_nhosts(m), 0);
    CU_ASSERT_EQUAL(eco_map_nsubnets(m), 0);
    CU_ASSERT_DOUBLE_EQUAL(eco_map_threshold(m), ECO_DEFAULT_THRESHOLD, 0.0);
    CU_ASSERT_EQUAL(eco_map_find_host(m, "a"), ECO_ERR_NOTFOUND);
    eco_map_free(m);
    eco_map_free(NULL);
}

static void test_map_hosts_sorted(void)
{
    eco_map *m = eco_map_new();
    char name[300];

    CU_ASSERT_EQUAL(eco_map_add_host(m, "m"), 0);
    CU_ASSERT_EQUAL(eco_map_add_host(m, "c"), 0);
    CU_ASSERT_EQUAL(eco_map_add_host(m, "x"), 2);
    CU_ASSERT_EQUAL(eco_map_add_host(m, "a"), 0);
    CU_ASSERT_EQUAL(eco_map_add_host(m, "m"), 2); /* present: no-op */
    CU_ASSERT_EQUAL(eco_map_nhosts(m), 4);
    CU_ASSERT_STRING_EQUAL(eco_map_host(m, 0), "a");
    CU_ASSERT_STRING_EQUAL(eco_map_host(m, 1), "c");
    CU_ASSERT_STRING_EQUAL(eco_map_host(m, 2), "m");
    CU_ASSERT_STRING_EQUAL(eco_map_host(m, 3), "x");
    CU_ASSERT_EQUAL(eco_map_find_host(m, "x"), 3);
    CU_ASSERT_EQUAL(eco_map_find_host(m, "b"), ECO_ERR_NOTFOUND);
    /* names: 1..ECO_MAX_HOSTNAME characters, no whitespace, no '#' */
    CU_ASSERT_EQUAL(eco_map_add_host(m, ""), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_map_add_host(m, NULL), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_map_add_host(m, "two words"), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_map_add_host(m, "tab\there"), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_map_add_host(m, "no#hash"), ECO_ERR_ARG);
    memset(name, 'z', sizeof name);
    name[ECO_MAX_HOSTNAME + 1] = '\0';
    CU_ASSERT_EQUAL(eco_map_add_host(m, name), ECO_ERR_ARG);
    name[ECO_MAX_HOSTNAME] = '\0';
    CU_ASSERT_EQUAL(eco_map_add_host(m, name), 4);
    CU_ASSERT_EQUAL(eco_map_add_host(NULL, "a"), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_map_nhosts(m), 5);
    eco_map_free(m);
}

/* Hosts inserted in random order, each with a cost to a few earlier ones:
 * rows and columns follow their host through every insertion and every
 * growth of the matrix. */
static void test_map_costs_follow_hosts(void)
{
    enum { N = 300 };
    static double expect[N][N];
    int order[N];
    eco_map *m = eco_map_new();
    char a[16], b[16];

    rng_state = 42;
    for (int i = 0; i < N; i++)
        order[i] = i;
    for (int i = N - 1; i > 0; i--) {
        int j = (int)(urand() * (i + 1)), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            expect[i][j] = i == j ? 0.0 : -1.0;
    for (int i = 0; i < N; i++) {
        int x = order[i];
        snprintf(a, sizeof a, "h%04d", x);
        CU_ASSERT(eco_map_add_host(m, a) >= 0);
        for (int back = 1; back <= 3 && back <= i; back += 2) {
            int y = order[i - back];
            double c = (double)(x * N + y + 1) * 1e-6;
            snprintf(b, sizeof b, "h%04d", y);
            CU_ASSERT_EQUAL(eco_map_add_cost(m, a, b, c), ECO_OK);
            expect[x][y] = expect[y][x] = c;
        }
    }
    CU_ASSERT_EQUAL_FATAL(eco_map_nhosts(m), N);
    for (int i = 0; i < N; i++) {
        snprintf(a, sizeof a, "h%04d", i);
        CU_ASSERT_EQUAL(eco_map_find_host(m, a), i);
        for (int j = 0; j < N; j++)
            if (eco_map_cost(m, i, j) != expect[i][j])
                CU_FAIL("cost moved away from its pair");
    }
    eco_map_free(m);
}

static void test_map_cost_is_minimum(void)
{
    eco_map *m = eco_map_new();

    CU_ASSERT_EQUAL(eco_map_add_cost(m, "a", "b", 3.0), ECO_OK);
    CU_ASSERT_EQUAL(eco_map_add_cost(m, "b", "a", 2.0), ECO_OK);
    CU_ASSERT_EQUAL(eco_map_add_cost(m, "a", "b", 5.0), ECO_OK);
    CU_ASSERT_EQUAL(eco_map_cost(m, 0, 1), 2.0);
    CU_ASSERT_EQUAL(eco_map_cost(m, 1, 0), 2.0);
    CU_ASSERT_EQUAL(eco_map_add_cost(m, "a", "a", 1.0), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_map_add_cost(m, "a", "c", 0.0), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_map_add_cost(m, "a", "c", -1.0), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_map_add_cost(m, "a", "c", NAN), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_map_add_cost(m, "a", "c", INFINITY), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_map_add_cost(m, "a", "bad name", 1.0), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_map_add_cost(NULL, "a", "c", 1.0), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_map_nhosts(m), 2); /* rejected calls add nothing */
    eco_map_free(m);
}

static void test_map_accessors_check_arguments(void)
{
    eco_map *m = map_of("a b 1; b c 1");

    CU_ASSERT_EQUAL(eco_map_nhosts(NULL), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_map_nsubnets(NULL), ECO_ERR_ARG);
    CU_ASSERT(eco_map_threshold(NULL) < 0.0);
    CU_ASSERT_PTR_NULL(eco_map_host(NULL, 0));
    CU_ASSERT_PTR_NULL(eco_map_host(m, -1));
    CU_ASSERT_PTR_NULL(eco_map_host(m, 3));
    CU_ASSERT_EQUAL(eco_map_find_host(NULL, "a"), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_map_find_host(m, NULL), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_map_cost(NULL, 0, 1), -1.0);
    CU_ASSERT_EQUAL(eco_map_cost(m, 0, 3), -1.0);
    CU_ASSERT_EQUAL(eco_map_cost(m, -1, 0), -1.0);
    CU_ASSERT_EQUAL(eco_map_cost(m, 0, 2), -1.0); /* not measured */
    /* before partitioning: no subnets */
    CU_ASSERT(eco_map_subnet_of(m, 0) < 0);
    CU_ASSERT_EQUAL(eco_map_subnet_size(m, 0), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_map_degree(m, 0), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_map_partition(m, 0.2), ECO_OK);
    CU_ASSERT_EQUAL(eco_map_subnet_of(m, 3), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_map_subnet_of(NULL, 0), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_map_subnet_size(m, 1), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_map_subnet_size(NULL, 0), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_map_subnet_host(m, 0, 3), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_map_subnet_host(m, 0, -1), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_map_subnet_host(m, 1, 0), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_map_degree(m, 0), ECO_DEFAULT_DEGREE);
    CU_ASSERT_EQUAL(eco_map_degree(m, -1), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_map_set_degree(m, 0, 0), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_map_set_degree(m, 0, ECO_MAX_DEGREE + 1), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_map_set_degree(m, 1, 2), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_map_set_degree(NULL, 0, 2), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_map_set_degree(m, 0, ECO_MAX_DEGREE), ECO_OK);
    CU_ASSERT_EQUAL(eco_map_degree(m, 0), ECO_MAX_DEGREE);
    eco_map_free(m);
}

/* ------------------------------------------------------------------ */
/* Partitioning                                                        */
/* ------------------------------------------------------------------ */

/* Figure 1 of the paper: six hosts, two on each of three subnets. */
static const char figure1[] =
    "a b 1; c d 1; e f 1;"
    "a c 5; a d 5.2; b c 5.1; b d 5.3;"
    "c e 6; c f 6.2; d e 6.1; d f 6.3;"
    "a e 9; a f 9.1; b e 9.2; b f 8.9";

static void test_figure1(void)
{
    check_partition(figure1, 0.2, "a b|c d|e f");
}

static void test_figure1_example_file(void)
{
    char path[1024], err[256];
    eco_map *m = NULL;

    snprintf(path, sizeof path, "%s/figure1.matrix", eco_test_examples_dir());
    CU_ASSERT_EQUAL_FATAL(eco_map_read_costs(path, &m, err, sizeof err), ECO_OK);
    CU_ASSERT_EQUAL(eco_map_partition(m, ECO_DEFAULT_THRESHOLD), ECO_OK);
    CU_ASSERT_STRING_EQUAL(subnets_str(m), "a b|c d|e f");
    CU_ASSERT_EQUAL(eco_map_nsubnets(m), 3);
    eco_map_free(m);
}

static void test_campus_example_file(void)
{
    char path[1024], err[256];
    eco_map *m = NULL;

    snprintf(path, sizeof path, "%s/campus.matrix", eco_test_examples_dir());
    CU_ASSERT_EQUAL_FATAL(eco_map_read_costs(path, &m, err, sizeof err), ECO_OK);
    CU_ASSERT_EQUAL(eco_map_nhosts(m), 12);
    CU_ASSERT_EQUAL(eco_map_partition(m, ECO_DEFAULT_THRESHOLD), ECO_OK);
    CU_ASSERT_STRING_EQUAL(subnets_str(m),
                           "cs-alpha1 cs-alpha2 cs-alpha3|ece-sun1 ece-sun2 ece-sun3|"
                           "lab-pc1 lab-pc2 lab-pc3|lib-hp1 lib-hp2 lib-hp3");
    eco_map_free(m);
}

/* A subnet of four (w x y z, ~1) beside one of two (p q, ~1); 10 between. */
static const char four_and_two[] =
    "w x 1.0; w y 1.05; w z 1.1; x y 1.02; x z 1.08; y z 1.04; p q 1.01;"
    "w p 10; w q 10; x p 10; x q 10; y p 10; y q 10; z p 10; z q 10";

static void test_one_wrong_measurement(void)
{
    check_partition(four_and_two, 0.2, "p q|w x y z");
    /* w-z measured at 3.0 instead of ~1.1 */
    check_partition("w x 1.0; w y 1.05; w z 3.0; x y 1.02; x z 1.08; y z 1.04; p q 1.01;"
                    "w p 10; w q 10; x p 10; x q 10; y p 10; y q 10; z p 10; z q 10",
                    0.2, "p q|w x y z");
    /* the only edge of a two-host subnet measured too high */
    check_partition("w x 1.0; w y 1.05; w z 1.1; x y 1.02; x z 1.08; y z 1.04; p q 3.0;"
                    "w p 10; w q 10; x p 10; x q 10; y p 10; y q 10; z p 10; z q 10",
                    0.2, "p q|w x y z");
}

static void test_two_wrong_measurements(void)
{
    /* w-x and y-z measured far too high: still one subnet, since every host
     * keeps a good edge into it and joining checks only that edge. */
    check_partition("w x 3.5; w y 1.05; w z 1.1; x y 1.02; x z 1.08; y z 2.9; p q 1.01;"
                    "w p 10; w q 10; x p 10; x q 10; y p 10; y q 10; z p 10; z q 10",
                    0.2, "p q|w x y z");
    /* one wrong edge inside each of two three-host subnets */
    check_partition("a b 2.0; a c 1.0; b c 1.1; d e 1.0; d f 1.05; e f 2.2;"
                    "c d 2.5; a d 9; a e 9; b e 9; b d 9; c f 9",
                    0.2, "a b c|d e f");
}

static void test_all_equal(void)
{
    eco_map *m = eco_map_new();
    char a[16], b[16];

    for (int i = 0; i < 12; i++)
        for (int j = i + 1; j < 12; j++) {
            snprintf(a, sizeof a, "n%02d", i);
            snprintf(b, sizeof b, "n%02d", j);
            CU_ASSERT_EQUAL(eco_map_add_cost(m, a, b, 0.0005), ECO_OK);
        }
    CU_ASSERT_EQUAL(eco_map_partition(m, 0.2), ECO_OK);
    CU_ASSERT_EQUAL(eco_map_nsubnets(m), 1);
    CU_ASSERT_EQUAL(eco_map_subnet_size(m, 0), 12);
    CU_ASSERT_EQUAL(eco_map_partition(m, 0.0), ECO_OK); /* equal is within 0% */
    CU_ASSERT_EQUAL(eco_map_nsubnets(m), 1);
    eco_map_free(m);
}

static void test_one_host_and_none(void)
{
    eco_map *m = eco_map_new();

    CU_ASSERT_EQUAL(eco_map_partition(m, 0.2), ECO_OK);
    CU_ASSERT_EQUAL(eco_map_nsubnets(m), 0);
    CU_ASSERT_EQUAL(eco_map_add_host(m, "solo"), 0);
    CU_ASSERT_EQUAL(eco_map_partition(m, 0.2), ECO_OK);
    CU_ASSERT_EQUAL(eco_map_nsubnets(m), 1);
    CU_ASSERT_EQUAL(eco_map_subnet_size(m, 0), 1);
    CU_ASSERT_EQUAL(eco_map_subnet_host(m, 0, 0), 0);
    CU_ASSERT_EQUAL(eco_map_subnet_of(m, 0), 0);
    eco_map_free(m);
}

static void test_unmeasured_hosts_are_singletons(void)
{
    eco_map *m = map_of("p q 1; q s 1.1");

    CU_ASSERT_EQUAL(eco_map_add_host(m, "r"), 2);
    CU_ASSERT_EQUAL(eco_map_add_host(m, "a"), 0);
    CU_ASSERT_EQUAL(eco_map_partition(m, 0.2), ECO_OK);
    CU_ASSERT_STRING_EQUAL(subnets_str(m), "a|p q s|r");
    eco_map_free(m);
    /* nothing measured at all */
    m = eco_map_new();
    eco_map_add_host(m, "x");
    eco_map_add_host(m, "y");
    eco_map_add_host(m, "z");
    CU_ASSERT_EQUAL(eco_map_partition(m, 0.2), ECO_OK);
    CU_ASSERT_STRING_EQUAL(subnets_str(m), "x|y|z");
    eco_map_free(m);
}

/* The subnet's own cheapest edge bounds who may join: c is within 20% of
 * its own and of a's cheapest edge, but not of the subnet {x y a}'s. */
static void test_subnet_min_edge_rule(void)
{
    static const char spec[] = "x y 1.0; y a 1.15; a c 1.3; x a 5; x c 5; y c 5";

    check_partition(spec, 0.2, "a x y|c");
    check_partition(spec, 0.35, "a c x y");
}

static void test_threshold_configurable(void)
{
    static const char spec[] = "a b 1.0; b c 1.3; a c 1.4";
    eco_map *m = map_of(spec);

    CU_ASSERT_EQUAL(eco_map_partition(m, 0.2), ECO_OK);
    CU_ASSERT_STRING_EQUAL(subnets_str(m), "a b|c");
    CU_ASSERT_DOUBLE_EQUAL(eco_map_threshold(m), 0.2, 0.0);
    CU_ASSERT_EQUAL(eco_map_partition(m, 0.5), ECO_OK);
    CU_ASSERT_STRING_EQUAL(subnets_str(m), "a b c");
    CU_ASSERT_DOUBLE_EQUAL(eco_map_threshold(m), 0.5, 0.0);
    eco_map_free(m);
}

static void test_bad_threshold(void)
{
    eco_map *m = map_of("a b 1; c d 1; a c 5");

    CU_ASSERT_EQUAL(eco_map_partition(m, 0.2), ECO_OK);
    CU_ASSERT_EQUAL(eco_map_partition(m, -0.01), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_map_partition(m, NAN), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_map_partition(m, INFINITY), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_map_partition(NULL, 0.2), ECO_ERR_ARG);
    /* a rejected call leaves the map as it was */
    CU_ASSERT_STRING_EQUAL(subnets_str(m), "a b|c d");
    CU_ASSERT_DOUBLE_EQUAL(eco_map_threshold(m), 0.2, 0.0);
    eco_map_free(m);
}

/* 200 hosts in 12 planted clusters of uneven size, each with its own base
 * cost; inter-cluster costs at least 3x; a few pairs not measured. */
enum { PLANT_N = 200, PLANT_K = 12 };
static const int plant_size[PLANT_K] = {40, 30, 25, 20, 18, 15, 14, 12, 10, 8, 5, 3};

static eco_map *planted(int *cluster)
{
    double base[PLANT_K];
    int perm[PLANT_N], h = 0;
    eco_map *m = eco_map_new();
    char a[16], b[16];

    rng_state = 2024;
    for (int c = 0; c < PLANT_K; c++) {
        base[c] = 2e-5 * pow(1.7, c) * (1.0 + 0.2 * urand());
        for (int i = 0; i < plant_size[c]; i++)
            perm[h++] = c;
    }
    for (int i = PLANT_N - 1; i > 0; i--) { /* scatter the clusters over the names */
        int j = (int)(urand() * (i + 1)), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (int i = 0; i < PLANT_N; i++) {
        cluster[i] = perm[i];
        for (int j = i + 1; j < PLANT_N; j++) {
            int ci = perm[i], cj = perm[j];
            double hi = base[ci] > base[cj] ? base[ci] : base[cj];
            double c = ci == cj ? base[ci] * (1.0 + 0.1 * urand()) : 3.0 * hi * (1.0 + urand());
            if ((i * 7 + j) % 53 == 0 && (ci != cj || plant_size[ci] >= 10))
                continue; /* not measured */
            snprintf(a, sizeof a, "node%03d", i);
            snprintf(b, sizeof b, "node%03d", j);
            CU_ASSERT_EQUAL(eco_map_add_cost(m, b, a, c), ECO_OK);
        }
    }
    return m;
}

static void test_planted_clusters(void)
{
    int cluster[PLANT_N];
    eco_map *m = planted(cluster);
    int wrong = 0;

    CU_ASSERT_EQUAL_FATAL(eco_map_nhosts(m), PLANT_N);
    CU_ASSERT_EQUAL(eco_map_partition(m, 0.2), ECO_OK);
    CU_ASSERT_EQUAL(eco_map_nsubnets(m), PLANT_K);
    for (int i = 0; i < PLANT_N; i++)
        for (int j = 0; j < PLANT_N; j++)
            wrong += (cluster[i] == cluster[j]) !=
                     (eco_map_subnet_of(m, i) == eco_map_subnet_of(m, j));
    CU_ASSERT_EQUAL(wrong, 0);
    /* canonical numbering: subnet s's lowest host is below subnet s+1's */
    for (int s = 1; s < eco_map_nsubnets(m); s++)
        CU_ASSERT(eco_map_subnet_host(m, s - 1, 0) < eco_map_subnet_host(m, s, 0));
    eco_map_free(m);
}

/* Many ties (costs 1, 1.1 and 2 only); the result must not depend on the
 * order in which the measurements were recorded. */
static void test_ties_deterministic(void)
{
    enum { N = 30, NE = N * (N - 1) / 2 };
    typedef struct { int a, b; double c; } meas;
    meas e[NE];
    char first[4096] = "", a[16], b[16];
    int n = 0;

    rng_state = 7;
    for (int i = 0; i < N; i++)
        for (int j = i + 1; j < N; j++) {
            double u = urand();
            e[n].a = i;
            e[n].b = j;
            e[n++].c = (i / 6 == j / 6) ? (u < 0.5 ? 1.0 : 1.1) : (u < 0.3 ? 1.1 : 2.0);
        }
    for (int round = 0; round < 6; round++) {
        eco_map *m = eco_map_new();
        for (int i = n - 1; round > 0 && i > 0; i--) { /* a new shuffle each round */
            int j = (int)(urand() * (i + 1));
            meas t = e[i];
            e[i] = e[j];
            e[j] = t;
        }
        for (int i = 0; i < n; i++) {
            snprintf(a, sizeof a, "t%02d", e[i].a);
            snprintf(b, sizeof b, "t%02d", e[i].b);
            /* odd rounds record each pair the other way round */
            int rc = round % 2 ? eco_map_add_cost(m, b, a, e[i].c)
                               : eco_map_add_cost(m, a, b, e[i].c);
            CU_ASSERT_EQUAL(rc, ECO_OK);
        }
        CU_ASSERT_EQUAL(eco_map_partition(m, 0.2), ECO_OK);
        if (round == 0)
            snprintf(first, sizeof first, "%s", subnets_str(m));
        else
            CU_ASSERT_STRING_EQUAL(subnets_str(m), first);
        eco_map_free(m);
    }
}

static void test_degree_kept_for_same_hosts(void)
{
    eco_map *m = map_of(figure1);

    CU_ASSERT_EQUAL(eco_map_partition(m, 0.2), ECO_OK);
    CU_ASSERT_EQUAL(eco_map_set_degree(m, 0, 5), ECO_OK);
    CU_ASSERT_EQUAL(eco_map_set_degree(m, 2, 7), ECO_OK);
    CU_ASSERT_EQUAL(eco_map_partition(m, 0.2), ECO_OK);
    CU_ASSERT_EQUAL(eco_map_degree(m, 0), 5);
    CU_ASSERT_EQUAL(eco_map_degree(m, 1), ECO_DEFAULT_DEGREE);
    CU_ASSERT_EQUAL(eco_map_degree(m, 2), 7);
    /* a new host "g" joins {e f}: that subnet changes and gets the default;
     * {a b} keeps its degree */
    CU_ASSERT_EQUAL(eco_map_add_cost(m, "f", "g", 1.05), ECO_OK);
    CU_ASSERT_EQUAL(eco_map_add_cost(m, "e", "g", 1.02), ECO_OK);
    CU_ASSERT_EQUAL(eco_map_partition(m, 0.2), ECO_OK);
    CU_ASSERT_STRING_EQUAL(subnets_str(m), "a b|c d|e f g");
    CU_ASSERT_EQUAL(eco_map_degree(m, 0), 5);
    CU_ASSERT_EQUAL(eco_map_degree(m, 2), ECO_DEFAULT_DEGREE);
    eco_map_free(m);
}

/* A subnet split in two, or two merged into one, is not the same hosts:
 * the default degree for every part. */
static void test_degree_not_kept_for_parts(void)
{
    eco_map *m = map_of("a b 1.0; c d 1.0; b c 1.1");

    CU_ASSERT_EQUAL(eco_map_partition(m, 0.2), ECO_OK);
    CU_ASSERT_STRING_EQUAL(subnets_str(m), "a b c d");
    CU_ASSERT_EQUAL(eco_map_set_degree(m, 0, 5), ECO_OK);
    CU_ASSERT_EQUAL(eco_map_partition(m, 0.05), ECO_OK);
    CU_ASSERT_STRING_EQUAL(subnets_str(m), "a b|c d");
    CU_ASSERT_EQUAL(eco_map_degree(m, 0), ECO_DEFAULT_DEGREE);
    CU_ASSERT_EQUAL(eco_map_degree(m, 1), ECO_DEFAULT_DEGREE);
    CU_ASSERT_EQUAL(eco_map_set_degree(m, 0, 6), ECO_OK);
    CU_ASSERT_EQUAL(eco_map_set_degree(m, 1, 7), ECO_OK);
    CU_ASSERT_EQUAL(eco_map_partition(m, 0.05), ECO_OK); /* the same hosts: kept */
    CU_ASSERT_EQUAL(eco_map_degree(m, 0), 6);
    CU_ASSERT_EQUAL(eco_map_degree(m, 1), 7);
    CU_ASSERT_EQUAL(eco_map_partition(m, 0.2), ECO_OK);
    CU_ASSERT_STRING_EQUAL(subnets_str(m), "a b c d");
    CU_ASSERT_EQUAL(eco_map_degree(m, 0), ECO_DEFAULT_DEGREE);
    eco_map_free(m);
}

static void test_add_host_after_partition(void)
{
    eco_map *m = map_of(figure1);

    CU_ASSERT_EQUAL(eco_map_partition(m, 0.2), ECO_OK);
    CU_ASSERT_EQUAL(eco_map_add_host(m, "bb"), 2);
    CU_ASSERT_EQUAL(eco_map_nsubnets(m), 3);
    CU_ASSERT(eco_map_subnet_of(m, 2) < 0); /* in no subnet until partitioned */
    CU_ASSERT_EQUAL(eco_map_subnet_of(m, 0), 0);
    CU_ASSERT_EQUAL(eco_map_subnet_of(m, 1), 0);
    CU_ASSERT_EQUAL(eco_map_subnet_of(m, 3), 1);
    CU_ASSERT_EQUAL(eco_map_subnet_of(m, 6), 2);
    CU_ASSERT_EQUAL(eco_map_subnet_size(m, 0), 2);
    CU_ASSERT_STRING_EQUAL(subnets_str(m), "a b|c d|e f");
    CU_ASSERT_EQUAL(eco_map_partition(m, 0.2), ECO_OK);
    CU_ASSERT_STRING_EQUAL(subnets_str(m), "a b|bb|c d|e f");
    eco_map_free(m);
}

/* ------------------------------------------------------------------ */
/* Hosts that costs cannot place, placed by hops                       */
/* ------------------------------------------------------------------ */

/*
 * The slowhosts network of tests/netbed as measured: f1..f4 on a fast
 * switch, f3 and f4 behind slow interfaces of their own (every pair with
 * one of them costs ~11.5 ms, whatever the other end), o1 o2 behind a
 * slow link and a router.
 */
#define SLOW_COSTS \
    "f1 f2 0.40; o1 o2 0.41;" \
    "f1 o1 1.70; f1 o2 1.71; f2 o1 1.72; f2 o2 1.70;" \
    "f1 f3 11.5; f1 f4 11.6; f2 f3 11.55; f2 f4 11.52; f3 f4 11.45;" \
    "f3 o1 11.6; f3 o2 11.58; f4 o1 11.62; f4 o2 11.57;"
#define SLOW_HOPS(fo) \
    "f1 f2 hops=0; f1 f3 hops=0; f1 f4 hops=0; f2 f3 hops=0; f2 f4 hops=0;" \
    "f3 f4 hops=0; o1 o2 hops=0;" \
    "f1 o1 hops=" fo "; f1 o2 hops=" fo "; f2 o1 hops=" fo "; f2 o2 hops=" fo ";" \
    "f3 o1 hops=" fo "; f3 o2 hops=" fo "; f4 o1 hops=" fo "; f4 o2 hops=" fo ";"

static void test_slow_hosts_placed_by_hops(void)
{
    /* costs alone: the slow hosts are a subnet of their own */
    check_partition(SLOW_COSTS, 0.2, "f1 f2|f3 f4|o1 o2");
    /* with hops */
    check_partition(SLOW_COSTS SLOW_HOPS("1"), 0.2, "f1 f2 f3 f4|o1 o2");
    /* two routers to the other segment: the same */
    check_partition(SLOW_COSTS SLOW_HOPS("2"), 0.2, "f1 f2 f3 f4|o1 o2");
}

static void test_one_slow_host_alone(void)
{
    /* f3 alone is a subnet of one by cost; its network is f1 f2's */
    check_partition("f1 f2 0.40; f1 f4 0.41; f2 f4 0.42; o1 o2 0.41;"
                    "f1 o1 1.7; f1 o2 1.7; f2 o1 1.7; f2 o2 1.7; f4 o1 1.7; f4 o2 1.7;"
                    "f3 f1 11.5; f3 f2 11.5; f3 f4 11.5; f3 o1 11.6; f3 o2 11.6;"
                    "f1 f3 hops=0; f2 f3 hops=0; f4 f3 hops=0;"
                    "f3 o1 hops=1; f3 o2 hops=1; f1 o1 hops=1",
                    0.2, "f1 f2 f3 f4|o1 o2");
}

static void test_hops_ambiguous_or_missing(void)
{
    /* both fast subnets share f3's network: the hops cannot say which */
    check_partition("a b 0.4; c d 0.4; a c 1.7; a d 1.7; b c 1.7; b d 1.7;"
                    "f3 a 11.5; f3 b 11.5; f3 c 11.5; f3 d 11.5;"
                    "f3 a hops=0; f3 b hops=0; f3 c hops=0; f3 d hops=0",
                    0.2, "a b|c d|f3");
    /* one pair between f3 and a b unmeasured: not shown to share */
    check_partition("a b 0.4; c d 0.4; a c 1.7; a d 1.7; b c 1.7; b d 1.7;"
                    "f3 a 11.5; f3 b 11.5; f3 c 11.5; f3 d 11.5;"
                    "f3 a hops=0; f3 c hops=1; f3 d hops=1",
                    0.2, "a b|c d|f3");
    /* no hops at all: Figure 2 alone */
    check_partition(SLOW_COSTS, 0.2, "f1 f2|f3 f4|o1 o2");
}

static void test_hops_never_move_placed_subnets(void)
{
    /* Figure 1 on one network (every pair 0 hops): costs place every
     * subnet, so the hops change nothing */
    char spec[1024];

    snprintf(spec, sizeof spec, "%s;%s", figure1,
             "a b hops=0; a c hops=0; a d hops=0; a e hops=0;"
             "a f hops=0; b c hops=0; b d hops=0; b e hops=0; b f hops=0;"
             "c d hops=0; c e hops=0; c f hops=0; d e hops=0; d f hops=0;"
             "e f hops=0");
    check_partition(spec, 0.2, "a b|c d|e f");
    /* a host with a good edge into its subnet stays, even at 0 hops from
     * another subnet only */
    check_partition("a b 1; c d 1; a c 5; a d 5; b c 5; b d 5;"
                    "a c hops=0; a d hops=0; b c hops=0; b d hops=0; a b hops=1",
                    0.2, "a b|c d");
}

static void test_map_hops(void)
{
    eco_map *m = eco_map_new();

    CU_ASSERT_EQUAL(eco_map_add_hops(m, "b", "c", 2), ECO_OK);
    CU_ASSERT_EQUAL(eco_map_add_hops(m, "c", "b", 1), ECO_OK); /* the larger stays */
    CU_ASSERT_EQUAL(eco_map_add_hops(m, "b", "d", 0), ECO_OK);
    CU_ASSERT_EQUAL(eco_map_add_host(m, "a"), 0); /* moves b, c, d */
    CU_ASSERT_EQUAL(eco_map_hops(m, 1, 2), 2);
    CU_ASSERT_EQUAL(eco_map_hops(m, 2, 1), 2);
    CU_ASSERT_EQUAL(eco_map_hops(m, 1, 3), 0);
    CU_ASSERT_EQUAL(eco_map_hops(m, 2, 2), 0);
    CU_ASSERT_EQUAL(eco_map_hops(m, 0, 1), ECO_ERR_NOTFOUND);
    CU_ASSERT_EQUAL(eco_map_hops(m, 2, 3), ECO_ERR_NOTFOUND);
    CU_ASSERT_EQUAL(eco_map_cost(m, 1, 2), -1.0); /* hops are not costs */
    CU_ASSERT_EQUAL(eco_map_hops(m, 0, 4), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_map_hops(NULL, 0, 1), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_map_add_hops(m, "a", "b", -1), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_map_add_hops(m, "a", "b", ECO_MAX_HOPS + 1), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_map_add_hops(m, "a", "a", 0), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_map_add_hops(NULL, "a", "b", 0), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_map_add_hops(m, "a b", "c", 0), ECO_ERR_ARG);
    for (int i = 0; i < 40; i++) { /* growth keeps them */
        char name[16];
        snprintf(name, sizeof name, "0h%02d", i);
        CU_ASSERT(eco_map_add_host(m, name) >= 0);
    }
    CU_ASSERT_EQUAL(eco_map_hops(m, eco_map_find_host(m, "b"), eco_map_find_host(m, "c")), 2);
    CU_ASSERT_EQUAL(eco_map_hops(m, eco_map_find_host(m, "d"), eco_map_find_host(m, "b")), 0);
    eco_map_free(m);
}

/* Subnets given whole (eco_compat_iface.h): renumbered in the order of
 * their lowest host, degrees following; bad numberings refused. */
static void test_set_subnets(void)
{
    eco_map *m = eco_map_new();

    CU_ASSERT_FATAL(m != NULL);
    CU_ASSERT_FATAL(eco_map_add_host(m, "a") >= 0 && eco_map_add_host(m, "b") >= 0 &&
                    eco_map_add_host(m, "c") >= 0);
    CU_ASSERT_EQUAL(ecoi_map_set_subnets(m, 2, (const int[]){ 1, 0, 1 },
                                         (const int[]){ 5, 3 }), ECO_OK);
    CU_ASSERT_EQUAL(eco_map_nsubnets(m), 2);
    CU_ASSERT_EQUAL(eco_map_subnet_of(m, 0), 0);
    CU_ASSERT_EQUAL(eco_map_subnet_of(m, 1), 1);
    CU_ASSERT_EQUAL(eco_map_subnet_of(m, 2), 0);
    CU_ASSERT_EQUAL(eco_map_degree(m, 0), 3);
    CU_ASSERT_EQUAL(eco_map_degree(m, 1), 5);
    CU_ASSERT_EQUAL(ecoi_map_set_subnets(m, 2, (const int[]){ 0, 2, 0 },
                                         (const int[]){ 2, 2 }), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(ecoi_map_set_subnets(m, 2, (const int[]){ 0, 0, 0 },
                                         (const int[]){ 2, 2 }), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(ecoi_map_set_subnets(m, 1, NULL, (const int[]){ 2 }), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(ecoi_map_set_subnets(NULL, 1, (const int[]){ 0 }, (const int[]){ 2 }),
                    ECO_ERR_ARG);
    eco_map_free(m);
}

static const eco_unit_test tests[] = {
    {"map: fresh", test_map_fresh},
    {"map: hosts sorted, names checked", test_map_hosts_sorted},
    {"map: costs follow their hosts", test_map_costs_follow_hosts},
    {"map: pair cost is the minimum", test_map_cost_is_minimum},
    {"map: accessors check arguments", test_map_accessors_check_arguments},
    {"figure 1 of the paper", test_figure1},
    {"figure 1 example file", test_figure1_example_file},
    {"campus example file", test_campus_example_file},
    {"one wrong measurement", test_one_wrong_measurement},
    {"two wrong measurements", test_two_wrong_measurements},
    {"all costs equal", test_all_equal},
    {"one host, no host", test_one_host_and_none},
    {"unmeasured hosts are singletons", test_unmeasured_hosts_are_singletons},
    {"subnet min edge rule", test_subnet_min_edge_rule},
    {"threshold configurable", test_threshold_configurable},
    {"bad threshold", test_bad_threshold},
    {"200 hosts in 12 planted clusters", test_planted_clusters},
    {"ties deterministic", test_ties_deterministic},
    {"degree kept for the same hosts", test_degree_kept_for_same_hosts},
    {"degree not kept for a split or a merge", test_degree_not_kept_for_parts},
    {"host added after partitioning", test_add_host_after_partition},
    {"map: hops", test_map_hops},
    {"map: subnets given whole", test_set_subnets},
    {"slow hosts placed by hops", test_slow_hosts_placed_by_hops},
    {"one slow host alone placed by hops", test_one_slow_host_alone},
    {"hops ambiguous or missing place nothing", test_hops_ambiguous_or_missing},
    {"hops never move subnets costs place", test_hops_never_move_placed_subnets},
    {NULL, NULL},
};

const eco_suite eco_suite_partition = {"partition", NULL, NULL, tests};
