/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_coll_local.c -- every collective over trees of many subnets and
 * hosts, members as threads over the in-process transport.  The PVM runs
 * (pvm_coll_test.c) prove the real transport; these prove the tree walks
 * on shapes one host cannot give: 1 to 20 subnets, uneven sizes, several
 * tasks per host, degrees 1 to 4.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pvm3.h>
#include "cunit_common.h"
#include "coll_battery.h"
#include "eco_coll.h"
#include "eco_sim.h"

typedef struct config {
    int n, nh, nsub;
    int host_subnet[64];
    int degree[64];
    int member_host[64];
} config;

/* Hosts h000.. with the given subnets; costs 100 us inside a subnet,
 * 1 ms and more between subnets. */
static eco_map *make_map(const config *c)
{
    eco_map *m = eco_map_new();
    char a[16], b[16];

    CU_ASSERT_FATAL(m != NULL);
    for (int h = 0; h < c->nh; h++) {
        snprintf(a, sizeof a, "h%03d", h);
        CU_ASSERT_FATAL(eco_map_add_host(m, a) == h);
    }
    for (int h = 0; h < c->nh; h++)
        for (int g = h + 1; g < c->nh; g++) {
            int s = c->host_subnet[h], t = c->host_subnet[g];
            double cost = s == t ? 1e-4 * (1 + s % 3) : 1e-3 * (1 + abs(s - t));
            snprintf(a, sizeof a, "h%03d", h);
            snprintf(b, sizeof b, "h%03d", g);
            CU_ASSERT_FATAL(eco_map_add_cost(m, a, b, cost) == ECO_OK);
        }
    free(m->degree);
    m->degree = malloc((size_t)c->nsub * sizeof *m->degree);
    CU_ASSERT_FATAL(m->degree != NULL);
    memcpy(m->degree, c->degree, (size_t)c->nsub * sizeof *m->degree);
    memcpy(m->subnet, c->host_subnet, (size_t)c->nh * sizeof *m->subnet);
    m->nsubnets = c->nsub;
    return m;
}

typedef struct member {
    const config *cfg;
    ecoi_local_world *w;
    int rank, depth, rc;
    int (*body)(eco_ctx *, struct member *);
    const char *pattern;   /* NULL: ECO's trees */
    ecot_report rep;
} member;

static void *member_main(void *arg)
{
    member *me = arg;
    eco_ctx *ctx = NULL;
    eco_map *map = make_map(me->cfg);
    ecoi_transport *tp = ecoi_local_transport(me->w, me->rank);

    me->rc = ecoi_ctx_create(me->cfg->n, me->rank, map, me->cfg->member_host, tp, &ctx);
    if (me->rc == ECO_OK)
        me->rc = me->body(ctx, me);
    eco_finalize(ctx);
    return NULL;
}

static const char *current_pattern;

static int battery_body(eco_ctx *ctx, member *me)
{
    if (current_pattern && eco_set_pattern(ctx, current_pattern) != ECO_OK)
        return ECO_ERR_ARG;
    ecot_battery(ctx, me->depth, &me->rep);
    return ECO_OK;
}

/* How long a receive may wait before it fails with ECO_ERR_TIMEOUT. */
static double world_timeout = 60.0;

/* Run body in n threads over one world; returns the members. */
static member *run_members(const config *c, int depth, int (*body)(eco_ctx *, member *),
                           ecoi_local_world **wout)
{
    pthread_t th[64];
    member *ms = calloc((size_t)c->n, sizeof *ms);
    ecoi_local_world *w = ecoi_local_world_new(c->n, world_timeout);

    CU_ASSERT_FATAL(ms && w);
    for (int r = 0; r < c->n; r++) {
        ms[r] = (member){ .cfg = c, .w = w, .rank = r, .depth = depth, .body = body };
        CU_ASSERT_FATAL(pthread_create(&th[r], NULL, member_main, &ms[r]) == 0);
    }
    for (int r = 0; r < c->n; r++)
        pthread_join(th[r], NULL);
    if (wout)
        *wout = w;
    else
        ecoi_local_world_free(w);
    return ms;
}

static void run_battery(const config *c, int depth)
{
    member *ms = run_members(c, depth, battery_body, NULL);

    for (int r = 0; r < c->n; r++) {
        CU_ASSERT_EQUAL(ms[r].rc, ECO_OK);
        CU_ASSERT(ms[r].rep.checks > 0);
        CU_ASSERT_EQUAL(ms[r].rep.failures, 0);
        if (ms[r].rep.failures)
            fprintf(stderr, "\n  n=%d nsub=%d rank %d: %d of %d checks failed, first: %s\n",
                    c->n, c->nsub, r, ms[r].rep.failures, ms[r].rep.checks, ms[r].rep.first);
    }
    free(ms);
}

static unsigned rng_state = 12345;
static unsigned rnd(unsigned mod)
{
    rng_state = rng_state * 1103515245u + 12345u;
    return (rng_state >> 16) % mod;
}

/* A random configuration: nsub subnets, nh hosts, n members. */
static void random_config(config *c, int n, int nsub, int nh)
{
    memset(c, 0, sizeof *c);
    c->n = n;
    c->nsub = nsub;
    c->nh = nh;
    for (int h = 0; h < nh; h++)     /* every subnet gets a host; canonical */
        c->host_subnet[h] = h < nsub ? h : (int)rnd((unsigned)nsub);
    for (int s = 0; s < nsub; s++)
        c->degree[s] = 1 + (int)rnd(4);
    for (int m = 0; m < n; m++)
        c->member_host[m] = m < nh ? (int)rnd((unsigned)nh) : (int)rnd((unsigned)nh);
}

static void test_paper_figure1(void)
{
    /* Six hosts, three subnets of two, one task per host. */
    config c = { .n = 6, .nh = 6, .nsub = 3,
                 .host_subnet = { 0, 0, 1, 1, 2, 2 }, .degree = { 2, 2, 2 },
                 .member_host = { 0, 1, 2, 3, 4, 5 } };
    run_battery(&c, ECOT_QUICK);
}

static void test_one_member(void)
{
    config c = { .n = 1, .nh = 1, .nsub = 1, .degree = { 2 } };
    run_battery(&c, ECOT_QUICK);
}

static void test_tasks_share_hosts(void)
{
    /* 13 members on 4 hosts in 2 subnets, several tasks per host. */
    config c = { .n = 13, .nh = 4, .nsub = 2, .host_subnet = { 0, 0, 1, 1 },
                 .degree = { 3, 1 },
                 .member_host = { 2, 0, 0, 1, 3, 3, 3, 0, 2, 1, 2, 3, 0 } };
    run_battery(&c, ECOT_QUICK);
}

static void test_random_shapes(void)
{
    static const int sizes[] = { 2, 3, 5, 8, 13, 20 };
    config c;

    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        for (int k = 0; k < 3; k++) {
            int n = sizes[i], nsub = 1 + (int)rnd((unsigned)(n < 20 ? n : 20));
            int nh = nsub + (int)rnd((unsigned)n);
            random_config(&c, n, nsub, nh > 63 ? 63 : nh);
            run_battery(&c, ECOT_QUICK);
        }
}

static void test_one_subnet(void)
{
    /* One subnet, 2 to 17 members on up to four hosts. */
    for (int n = 2; n <= 17; n++) {
        config c = { .n = n, .nh = n < 4 ? n : 4, .nsub = 1, .degree = { 1 + n % 4 } };
        for (int m = 0; m < n; m++)          /* no rnd(): other tests' draws stay */
            c.member_host[m] = (m * 7 + n) % c.nh;
        run_battery(&c, ECOT_QUICK);
    }
}

static void test_twenty_subnets(void)
{
    config c;
    random_config(&c, 20, 20, 20);
    for (int m = 0; m < 20; m++)
        c.member_host[m] = 19 - m;
    run_battery(&c, ECOT_QUICK);
}

static void test_full_depth(void)
{
    /* Every datatype and the 1 MiB messages, three subnets of mixed sizes. */
    config c = { .n = 7, .nh = 5, .nsub = 3, .host_subnet = { 0, 0, 1, 2, 2 },
                 .degree = { 2, 2, 3 }, .member_host = { 4, 0, 1, 1, 2, 3, 0 } };
    run_battery(&c, ECOT_FULL);
}

/* The topology-unaware shapes: heap order from the root, exact depths. */
static void test_kary_shapes(void)
{
    for (int n = 1; n <= 20; n++)
        for (int k = 1; k <= n; k++)
            for (int root = 0; root < n; root++) {
                eco_tree *t = NULL;
                int depth = 0, reach = 1, seen = 1;
                CU_ASSERT_FATAL(ecoi_tree_kary(n, root, k, &t) == ECO_OK);
                while (reach < n) {          /* levels of a k-ary heap */
                    seen *= k;
                    reach += seen;
                    depth++;
                }
                CU_ASSERT_EQUAL(eco_tree_depth(t), depth);
                CU_ASSERT_EQUAL(eco_tree_parent(t, root), -1);
                for (int m = 0; m < n; m++) {
                    int v = (m - root + n) % n;
                    if (v)
                        CU_ASSERT_EQUAL(eco_tree_parent(t, m), ((v - 1) / k + root) % n);
                    CU_ASSERT_EQUAL(t->order[t->pos[m]], m);
                }
                CU_ASSERT_EQUAL(t->subtree[root], n);
                eco_tree_free(&t);
            }
}

static void test_patterns(void)
{
    static const char *names[] = { "star", "binary", "kary3", "chain", "eco" };
    config c;

    random_config(&c, 9, 3, 6);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        current_pattern = names[i];
        run_battery(&c, ECOT_QUICK);
    }
    current_pattern = NULL;
}

/* The tree select.c picks for coll (a tree algorithm) on c's map. */
static int chosen_tree(const eco_map *m, const config *c, int coll, int root, size_t bytes,
                       eco_tree **t)
{
    ecoi_prediction pr[16];
    int k = ecoi_predict(m, NULL, c->n, c->member_host, NULL, coll, root, bytes, -1, pr, 16);
    int best = 0;

    if (k < 1)
        return ECO_ERR_ARG;
    for (int i = 1; i < k; i++)
        if (pr[i].seconds < pr[best].seconds)
            best = i;
    return ecoi_tree_build_shape(m, c->n, c->member_host, root,
                                 ecoi_algorithm_at(pr[best].algorithm)->shape, t);
}

/* Long messages chain the subnets: each subnet passes the message on to
 * at most one other subnet, and every subnet is still entered once. */
static void test_chain_trees(void)
{
    config c;

    random_config(&c, 20, 7, 16);
    for (int root = 0; root < c.n; root++) {
        eco_map *m = make_map(&c);
        eco_tree *t = NULL;
        int entered = 0;
        CU_ASSERT_FATAL(ecoi_tree_build_shape(m, c.n, c.member_host, root,
                                              (ecoi_shape){ ECOI_AMONG_CHAIN, 0, 0 }, &t) == ECO_OK);
        for (int x = 0; x < c.n; x++) {
            int out = 0;
            for (int i = t->child_off[x]; i < t->child_off[x + 1]; i++)
                out += t->kind[t->child[i]] == ECO_EDGE_SUBNETS;
            CU_ASSERT(out <= 1);
            entered += t->kind[x] == ECO_EDGE_SUBNETS;
        }
        CU_ASSERT_EQUAL(entered, c.nsub - 1);
        eco_tree_free(&t);
        /* Flat: inside a subnet nobody relays for another host. */
        CU_ASSERT_FATAL(ecoi_tree_build_shape(m, c.n, c.member_host, root,
                                              (ecoi_shape){ ECOI_AMONG_TREE, ECOI_K_STAR,
                                                            ECOI_K_STAR }, &t) == ECO_OK);
        for (int x = 0; x < c.n; x++)
            if (t->kind[x] == ECO_EDGE_HOSTS)
                CU_ASSERT(t->kind[t->parent[x]] != ECO_EDGE_HOSTS);
        eco_tree_free(&t);
        eco_map_free(m);
    }
}

/* ------------------------------------------------------------------ */
/* Selection on planted models                                         */
/* ------------------------------------------------------------------ */

/* The name select.c predicts fastest for coll on map m (the map's model,
 * or the defaults); *segment its segment. */
static const char *winner_at(const eco_map *m, const config *c, int coll, int root,
                             size_t bytes, size_t *segment)
{
    ecoi_prediction pr[16];
    int k = ecoi_predict(m, m->model, c->n, c->member_host, NULL, coll, root, bytes, -1, pr,
                         16);
    int best;

    CU_ASSERT_FATAL(k > 0);
    best = ecoi_choose(pr, k, 0);
    CU_ASSERT_FATAL(best >= 0);
    if (getenv("ECO_TEST_DEBUG"))
        for (int i = 0; i < k; i++)
            fprintf(stderr, "%d %zu %s %zu %.3f%s\n", coll, bytes,
                    ecoi_algorithm_at(pr[i].algorithm)->name, pr[i].segment, pr[i].seconds * 1e3,
                    pr[i].over == ECOI_OVER_QUEUE ? " over" : pr[i].over ? " flood" : "");
    if (segment)
        *segment = pr[best].segment;
    return ecoi_algorithm_at(pr[best].algorithm)->name;
}

/* What select.c predicts for the algorithm called name (root 0). */
/* The same in segments of seg bytes (-1: the best segment). */
/* select.c's prediction for the algorithm called name (root 0), with
 * segment seg (-1: the one it picks); seconds -1 when there is none. */
static ecoi_prediction prediction_of(const eco_map *m, const config *c, int coll,
                                     size_t bytes, const char *name, long seg)
{
    ecoi_prediction pr[16], none = { .seconds = -1.0, .over = -1 };
    int k = ecoi_predict(m, m->model, c->n, c->member_host, NULL, coll, 0, bytes, seg, pr, 16);

    for (int i = 0; i < k; i++)
        if (strcmp(ecoi_algorithm_at(pr[i].algorithm)->name, name) == 0)
            return pr[i];
    CU_FAIL("no such candidate");
    return none;
}

static double predicted_seg(const eco_map *m, const config *c, int coll, size_t bytes,
                            const char *name, long seg)
{
    return prediction_of(m, c, coll, bytes, name, seg).seconds;
}

/* The segment select.c picks for the algorithm called name (root 0). */
static size_t segment_of(const eco_map *m, const config *c, int coll, size_t bytes,
                         const char *name)
{
    return prediction_of(m, c, coll, bytes, name, -1).segment;
}

static double predicted(const eco_map *m, const config *c, int coll, size_t bytes,
                        const char *name)
{
    return predicted_seg(m, c, coll, bytes, name, -1);
}

static const char *winner(const eco_map *m, const config *c, int coll, size_t bytes,
                          size_t *segment)
{
    return winner_at(m, c, coll, 0, bytes, segment);
}

static const char *winner_root(const eco_map *m, const config *c, int coll, int root,
                               size_t bytes)
{
    return winner_at(m, c, coll, root, bytes, NULL);
}

/* A planted model: inside subnets alpha_in/beta_in, between them
 * alpha_out/beta_out, each subnet's hosts sharing an uplink of beta up. */
static ecoi_model *plant(int S, double alpha_in, double beta_in, double alpha_out,
                         double beta_out, double up)
{
    ecoi_model *md = ecoi_model_new(S);

    CU_ASSERT_FATAL(md != NULL);
    md->task = (ecoi_cost){ 20e-6, 0.5e-9 };
    for (int s = 0; s < S; s++) {
        md->uplink[s] = up;
        for (int t = 0; t < S; t++)
            md->link[s * S + t] = s == t ? (ecoi_cost){ alpha_in, beta_in }
                                         : (ecoi_cost){ alpha_out, beta_out };
    }
    return md;
}

/* Each subnet s of c behind its own link of up[s] seconds a byte: the
 * model's uplinks, its costs between subnets and the map's (a 16 KiB
 * probe through both ends' links). */
static void plant_uplinks(eco_map *m, const config *c, const double *up)
{
    const int S = m->model->nsubnets;

    for (int s = 0; s < S; s++) {
        m->model->uplink[s] = up[s];
        for (int t = 0; t < S; t++)
            if (s != t)
                m->model->link[s * S + t].beta = fmax(up[s], up[t]);
    }
    for (int a = 0; a < c->nh; a++)
        for (int b = 0; b < c->nh; b++)
            if (c->host_subnet[a] != c->host_subnet[b])
                ecoi_map_set_cost(m, a, b, 1e-3 + 16384 * (up[c->host_subnet[a]] +
                                                          up[c->host_subnet[b]]));
}

/* uneven.topo's shape: subnets of 3, 2 and 2 hosts behind 10, 20 and
 * 5 Mbit/s (seconds per byte of their uplinks). */
static const config uneven7 = { .n = 7, .nh = 7, .nsub = 3, .degree = { 1, 1, 1 },
                                .host_subnet = { 0, 0, 0, 1, 1, 2, 2 },
                                .member_host = { 0, 1, 2, 3, 4, 5, 6 } };
static const double uneven_up[3] = { 8e-7, 4e-7, 1.6e-6 };

/* A map of uneven7 with a model like uneven.topo's measured one (20 us
 * and 4.4 ns a byte inside, 50 us a message busy: 53 measured inside
 * its subnets, 300 when eco-characterize measured busy across its
 * links) and its uplinks. */
static eco_map *plant_uneven(void)
{
    eco_map *m = make_map(&uneven7);

    m->model = plant(3, 20e-6, 4.4e-9, 25e-6, 8e-7, 0);
    m->model->busy = 50e-6;
    plant_uplinks(m, &uneven7, uneven_up);
    return m;
}

/* plant_uneven with the costs between subnets measured there: ECO's
 * tree joins both other subnets to the root's. */
static eco_map *plant_uneven_costs(void)
{
    eco_map *m = plant_uneven();

    for (int a = 0; a < uneven7.nh; a++)
        for (int b = 0; b < uneven7.nh; b++) {
            const int sa = uneven7.host_subnet[a], sb = uneven7.host_subnet[b];
            if (sa != sb)
                ecoi_map_set_cost(m, a, b, sa + sb == 1 ? 11.52e-3 : sa + sb == 2 ? 22.99e-3
                                                                                  : 23.0e-3);
        }
    return m;
}

static void unplant(eco_map *m)
{
    ecoi_model_free(m->model);
    m->model = NULL;
}

/* The over mark of coll's algorithm called name at bytes on m (root 0). */
static int over_of(const eco_map *m, const config *c, int coll, size_t bytes, const char *name)
{
    return prediction_of(m, c, coll, bytes, name, -1).over;
}

/* A reduce whose tree has two subnets stream into the root's subnet's
 * link at once (uneven.topo: the 20 and 5 Mbit/s subnets' streams into
 * the 10 Mbit/s one; the tree measured 270 ms at 131,072 bytes, the chain
 * of subnets 240) floods it: the chain runs, predicted within 5% of the
 * tree.  Not the broadcast (its streams leave one host in turn), not a
 * message the link's queue holds whole (16,000 bytes here, or 131,072 on
 * 1 Gbit/s links), and never the chain (one stream into each link). */
static void test_select_converge(void)
{
    const config u = uneven7;
    static const double fast[3] = { 8e-9, 8e-9, 8e-9 };
    eco_map *m = plant_uneven_costs();

    CU_ASSERT_EQUAL(over_of(m, &u, ECOI_C_REDUCE, 131072, "tree"), ECOI_OVER_FLOOD);
    CU_ASSERT_EQUAL(over_of(m, &u, ECOI_C_REDUCE, 131072, "star"), ECOI_OVER_FLOOD);
    CU_ASSERT_EQUAL(over_of(m, &u, ECOI_C_REDUCE, 131072, "chain"), ECOI_OVER_NONE);
    CU_ASSERT(predicted(m, &u, ECOI_C_REDUCE, 131072, "chain") <
              1.05 * predicted(m, &u, ECOI_C_REDUCE, 131072, "tree"));
    CU_ASSERT_STRING_EQUAL(winner(m, &u, ECOI_C_REDUCE, 131072, NULL), "chain");
    CU_ASSERT_EQUAL(over_of(m, &u, ECOI_C_BCAST, 131072, "tree"), ECOI_OVER_NONE);
    CU_ASSERT_EQUAL(over_of(m, &u, ECOI_C_REDUCE, 16000, "tree"), ECOI_OVER_NONE);
    plant_uplinks(m, &u, fast);
    CU_ASSERT_EQUAL(over_of(m, &u, ECOI_C_REDUCE, 131072, "tree"), ECOI_OVER_NONE);
    unplant(m);
    eco_map_free(m);
}

/* A gather whose subnets' runs meet whole on the root's subnet's slower
 * link (uneven.topo's 20 and 5 Mbit/s subnets' into its 10 Mbit/s one)
 * floods it: by the star 515-530 ms at 131,072 bytes a member, paced 455
 * (bound 419).  The paced gather is chosen there, its segments cut so
 * that a turn's (two segments a child) fit the link's queue; not at
 * 16,000 bytes, whose runs the queue holds whole. */
static void test_select_paced(void)
{
    const config u = uneven7;
    eco_map *m = plant_uneven_costs();
    size_t seg = 0;

    CU_ASSERT_EQUAL(over_of(m, &u, ECOI_C_GATHER, 131072, "star"), ECOI_OVER_FLOOD);
    CU_ASSERT_EQUAL(over_of(m, &u, ECOI_C_GATHER, 131072, "flat"), ECOI_OVER_FLOOD);
    CU_ASSERT_EQUAL(over_of(m, &u, ECOI_C_GATHER, 131072, "paced"), ECOI_OVER_NONE);
    CU_ASSERT_STRING_EQUAL(winner(m, &u, ECOI_C_GATHER, 131072, &seg), "paced");
    /* a turn's segment a child from both other subnets within
     * LINK_QUEUE (30 ms) at the root's 10 Mbit/s: 16 KB (measured there:
     * 449-451 ms in 16 KB segments, 485-487 in 32 KB) */
    CU_ASSERT_EQUAL(seg, 16384);
    CU_ASSERT(predicted(m, &u, ECOI_C_GATHER, 131072, "paced") <
              1.05 * predicted(m, &u, ECOI_C_GATHER, 131072, "star"));
    /* a paced gather is no faster than the bound: the root's link takes
     * the 4 other subnets' members' 131,072 bytes at 8e-7 s a byte */
    CU_ASSERT(predicted(m, &u, ECOI_C_GATHER, 131072, "paced") >= 4 * 131072 * 8e-7);
    CU_ASSERT_EQUAL(over_of(m, &u, ECOI_C_GATHER, 16000, "star"), ECOI_OVER_NONE);
    CU_ASSERT_STRING_NOT_EQUAL(winner(m, &u, ECOI_C_GATHER, 16000, NULL), "paced");
    /* asks make no gather faster than the same tree's */
    for (size_t b = 1000; b <= 131072; b *= 2)
        CU_ASSERT(predicted(m, &u, ECOI_C_GATHER, b, "paced") >=
                  predicted(m, &u, ECOI_C_GATHER, b, "star"));
    unplant(m);
    eco_map_free(m);
}

/* The hops of planted_file's hosts: subnets 0 and 1 one router apart,
 * 2 three routers from both (multilevel.topo's sites), 3 two from all. */
static int planted_hops(void *arg, int a, int b)
{
    const int *sub = arg, s = sub[a], t = sub[b];

    return s == t ? 0 : s == 3 || t == 3 ? 2 : s + t == 1 ? 1 : 3;
}

/* eco_init's members' map carries the file's hops among the members'
 * hosts (ecoi_hops_part_of at rank 0, ecoi_map_put_hops in every
 * member; the boot message between), so the members predict what
 * eco-show does on the file: no burst across three routers (burst_left).
 * The file has 8 hosts, the first two (subnet 3) not members, so the
 * members' classes are renumbered, and one exception between members
 * and one with a host that is not. */
static void test_select_burst_far(void)
{
    static const char *const names[] = { "tree", "chain", "star" };
    const int colls[] = { ECOI_C_BCAST, ECOI_C_REDUCE, ECOI_C_ALLREDUCE };
    const size_t sizes[] = { 1000, 4096, 16000 };
    const config f = { .n = 6, .nh = 8, .nsub = 4, .degree = { 1, 1, 1, 1 },
                       .host_subnet = { 3, 3, 0, 0, 1, 1, 2, 2 },
                       .member_host = { 2, 3, 4, 5, 6, 7 } };
    const config c = { .n = 6, .nh = 6, .nsub = 3, .degree = { 1, 1, 1 },
                       .host_subnet = { 0, 0, 1, 1, 2, 2 }, .member_host = { 0, 1, 2, 3, 4, 5 } };
    const int fh[6] = { 2, 3, 4, 5, 6, 7 }, old_of[3] = { 0, 1, 2 };
    eco_map *file = make_map(&f), *mem = make_map(&c);
    ecoi_hops_part part;
    int differs = 0, *mine;

    CU_ASSERT_EQUAL_FATAL(ecoi_map_build_hops(file, planted_hops, (void *)f.host_subnet),
                          ECO_OK);
    CU_ASSERT_EQUAL_FATAL(file->hops.ncls, 4);
    CU_ASSERT_EQUAL_FATAL(ecoi_map_set_hops(file, 3, 5, 2), ECO_OK);
    CU_ASSERT_EQUAL_FATAL(ecoi_map_set_hops(file, 0, 6, 4), ECO_OK);
    file->model = plant(4, 50e-6, 8e-9, 300e-6, 8e-7, 8e-7);
    file->model->busy = 50e-6;
    for (int s = 0; s < 4; s++)
        for (int t = 0; t < 4; t++)
            file->model->burst[s * 4 + t] = s == t ? 0.0 : 2800.0;
    mem->model = ecoi_model_restrict(file->model, old_of, 3);
    CU_ASSERT_FATAL(mem->model != NULL);
    /* with the file's bursts but no hops: off somewhere */
    for (int i = 0; i < 3; i++)
        for (int z = 0; z < 3; z++)
            for (int a = 0; a < 3; a++)
                differs += predicted(mem, &c, colls[i], sizes[z], names[a]) !=
                           predicted(file, &f, colls[i], sizes[z], names[a]);
    CU_ASSERT(differs > 0);
    mine = ecoi_file_members(file, fh, 6);
    CU_ASSERT_FATAL(mine != NULL);
    CU_ASSERT_EQUAL_FATAL(ecoi_hops_part_of(file, fh, mine, 6, &part), ECO_OK);
    free(mine);
    CU_ASSERT_EQUAL(part.ncls, 3);
    CU_ASSERT_EQUAL(part.nexc, 1);
    CU_ASSERT(ecoi_hops_part_valid(&part));
    CU_ASSERT_EQUAL_FATAL(ecoi_map_put_hops(mem, &part), ECO_OK);
    CU_ASSERT_EQUAL(ecoi_map_put_hops(mem, &part), ECO_ERR_ARG);  /* has classes */
    for (int a = 0; a < 6; a++)
        for (int b = a + 1; b < 6; b++)
            CU_ASSERT_EQUAL(ecoi_map_hops_ij(mem, a, b), ecoi_map_hops_ij(file, fh[a], fh[b]));
    CU_ASSERT_EQUAL(ecoi_map_hops_ij(mem, 1, 3), 2);
    for (int i = 0; i < 3; i++)
        for (int z = 0; z < 3; z++)
            for (int a = 0; a < 3; a++)
                CU_ASSERT_EQUAL(predicted(mem, &c, colls[i], sizes[z], names[a]),
                                predicted(file, &f, colls[i], sizes[z], names[a]));
    /* what a forged message could say is refused */
    part.cls[2] = 3;
    CU_ASSERT(!ecoi_hops_part_valid(&part));
    part.cls[2] = 1;
    part.exc[0] = part.exc[1];
    CU_ASSERT(!ecoi_hops_part_valid(&part));
    ecoi_hops_part_free(&part);
    unplant(file);
    unplant(mem);
    eco_map_free(file);
    eco_map_free(mem);
}

/* A link's burst (ecoi_model_burst): the ECO paper's network, 3 subnets
 * of 2 hosts behind 10 Mbit/s, each path between subnets passing 2,800
 * bytes at once when idle.  The chain's first segment of 2,048 bytes
 * crosses both links between subnets at once, and the second passes what
 * the bucket kept (2,800 - 2,048) and refilled while the link waited on
 * the first (busy 150 us at 8e-7 s/byte: 187.5 bytes); the prediction
 * drops by those bytes' time at the link's rate, whatever the length of
 * the message.  Bursts inside subnets count for nothing. */
static void test_select_burst(void)
{
    config c = { .n = 6, .nh = 6, .nsub = 3, .degree = { 1, 1, 1 },
                 .host_subnet = { 0, 0, 1, 1, 2, 2 }, .member_host = { 0, 1, 2, 3, 4, 5 } };
    eco_map *m = make_map(&c);
    const double beta = 8e-7, busy = 150e-6, burst = 2800.0, seg = 2048.0;
    const double drop = beta * (2 * seg + (burst - (seg - busy / beta)));
    const int colls[] = { ECOI_C_BCAST, ECOI_C_REDUCE, ECOI_C_ALLREDUCE, ECOI_C_SCAN };
    double plain[4][2], t16, t128;

    for (int a = 0; a < 6; a++)
        for (int b = 0; b < 6; b++)
            if (a / 2 != b / 2)
                ecoi_map_set_cost(m, a, b, 11.5e-3);
    m->model = plant(3, 50e-6, 8e-9, 300e-6, beta, beta);
    m->model->busy = busy;
    t16 = predicted_seg(m, &c, ECOI_C_BCAST, 16000, "chain", (long)seg);
    t128 = predicted_seg(m, &c, ECOI_C_BCAST, 131072, "chain", (long)seg);
    for (int i = 0; i < 4; i++)
        for (int z = 0; z < 2; z++)
            plain[i][z] = predicted(m, &c, colls[i], z ? 131072 : 16000, "tree");
    /* inside the subnets: nothing changes */
    for (int s = 0; s < 3; s++)
        m->model->burst[s * 3 + s] = burst;
    CU_ASSERT_EQUAL(predicted_seg(m, &c, ECOI_C_BCAST, 16000, "chain", (long)seg), t16);
    for (int i = 0; i < 4; i++)
        for (int z = 0; z < 2; z++)
            CU_ASSERT_EQUAL(predicted(m, &c, colls[i], z ? 131072 : 16000, "tree"), plain[i][z]);
    for (int s = 0; s < 3; s++)
        for (int t = 0; t < 3; t++)
            m->model->burst[s * 3 + t] = s == t ? 0.0 : burst;
    CU_ASSERT(ecoi_model_valid(m->model));
    /* 16,000 bytes: 8 segments, the fill nearly all of the links' time
     * lost; 131,072: 64, the same drop, 3% of it */
    CU_ASSERT_DOUBLE_EQUAL(t16 - predicted_seg(m, &c, ECOI_C_BCAST, 16000, "chain", (long)seg),
                           drop, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(t128 - predicted_seg(m, &c, ECOI_C_BCAST, 131072, "chain", (long)seg),
                           drop, 1e-9);
    CU_ASSERT(drop / t16 > 0.2);
    CU_ASSERT(drop / t128 < 0.04);
    /* no burst, the predictions of before */
    memset(m->model->burst, 0, 9 * sizeof *m->model->burst);
    CU_ASSERT_EQUAL(predicted_seg(m, &c, ECOI_C_BCAST, 16000, "chain", (long)seg), t16);
    CU_ASSERT_EQUAL(predicted_seg(m, &c, ECOI_C_BCAST, 131072, "chain", (long)seg), t128);
    unplant(m);
    eco_map_free(m);
}

static void test_select_planted(void)
{
    /* The ECO paper's network: 3 subnets of 2 hosts behind 10 Mbit/s
     * links, 50 us and 1 Gbit/s inside. */
    config c = { .n = 6, .nh = 6, .nsub = 3, .degree = { 1, 1, 1 },
                 .host_subnet = { 0, 0, 1, 1, 2, 2 }, .member_host = { 0, 1, 2, 3, 4, 5 } };
    eco_map *m = make_map(&c);
    size_t seg = 0;

    /* every subnet as far from every other: ECO's tree among subnets is
     * a star, the chain differs from it */
    for (int a = 0; a < 6; a++)
        for (int b = 0; b < 6; b++)
            if (a / 2 != b / 2)
                ecoi_map_set_cost(m, a, b, 11.5e-3);
    m->model = plant(3, 50e-6, 8e-9, 300e-6, 8e-7, 8e-7);
    /* long vectors: subnets chained, pipelined; reduce-to-all and
     * gather-to-all among the subnets' leaders */
    CU_ASSERT_STRING_EQUAL(winner(m, &c, ECOI_C_BCAST, 131072, &seg), "chain");
    CU_ASSERT(seg > 0 && seg < 131072);
    CU_ASSERT_STRING_EQUAL(winner(m, &c, ECOI_C_REDUCE, 131072, NULL), "chain");
    CU_ASSERT_STRING_EQUAL(winner(m, &c, ECOI_C_ALLREDUCE, 16000, NULL), "rsag");
    CU_ASSERT_STRING_EQUAL(winner(m, &c, ECOI_C_ALLGATHER, 16000, NULL), "hier");
    CU_ASSERT_STRING_EQUAL(winner(m, &c, ECOI_C_SCAN, 131072, NULL), "chain");
    /* whole vectors in every round of recursive doubling: the subnets'
     * links carry several at once in the last rounds */
    CU_ASSERT_STRING_NOT_EQUAL(winner(m, &c, ECOI_C_ALLREDUCE, 131072, NULL), "rdouble");
    CU_ASSERT_STRING_NOT_EQUAL(winner(m, &c, ECOI_C_SCAN, 131072, NULL), "rdouble");
    /* 8 bytes: one hop per subnet, no segments */
    CU_ASSERT_STRING_EQUAL(winner(m, &c, ECOI_C_BCAST, 8, &seg), "tree");
    CU_ASSERT_EQUAL(seg, 0);
    /* subnet 2 a little further from 0 than from 1: ECO's tree among
     * subnets chains them (0, 1, 2), and a gather would relay subnet 2's
     * blocks through subnet 1's link; the star among subnets does not */
    for (int a = 0; a < 6; a++)
        for (int b = 0; b < 6; b++)
            if ((a / 2 == 0 && b / 2 == 2) || (a / 2 == 2 && b / 2 == 0))
                ecoi_map_set_cost(m, a, b, 12.5e-3);
    m->model->link[0 * 3 + 2] = m->model->link[2 * 3 + 0] = (ecoi_cost){ 400e-6, 8e-7 };
    CU_ASSERT_STRING_EQUAL(winner(m, &c, ECOI_C_GATHER, 131072, NULL), "flat");
    /* (the subnets' links equal, so cheapest or dearest first hardly
     * matters to a scatter: not relayed is what counts) */
    CU_ASSERT_STRING_NOT_EQUAL(winner(m, &c, ECOI_C_SCATTER, 131072, NULL), "star");
    /* messages that cost 50 ms each are not cut below what the slow
     * links carry in 50 ms (62,500 bytes at 8e-7 s/byte) */
    unplant(m);
    m->model = plant(3, 50e-3, 8e-9, 50e-3, 8e-7, 8e-7);
    winner(m, &c, ECOI_C_BCAST, 131072, &seg);
    CU_ASSERT(seg == 0 || seg >= 62500);
    unplant(m);
    eco_map_free(m);

    /* Two subnets of 4 hosts, 5 Mbit/s between them (multilevel.topo's
     * sites): reduce-to-all in rounds that wait for each other puts a
     * segment a round on the link each way (half reduce-scatter, half
     * gather-to-all); a round that takes more than 30 ms there overflows
     * a router's queue (select.c LINK_QUEUE), so 128 KB to 1 MB go in
     * segments of at most 18,750 bytes (on multilevel, 128 KB in 32 KB
     * segments measured 279-405 ms, in 16 KB 235; without the queue the
     * model cuts 256 KB and more into 32 and 64 KB) */
    {
        config t = { .n = 8, .nh = 8, .nsub = 2, .degree = { 2, 2 },
                     .host_subnet = { 0, 0, 0, 0, 1, 1, 1, 1 },
                     .member_host = { 0, 1, 2, 3, 4, 5, 6, 7 } };
        m = make_map(&t);
        for (int a = 0; a < 8; a++)
            for (int b = 0; b < 8; b++)
                if (a / 4 != b / 4)
                    ecoi_map_set_cost(m, a, b, 26e-3);
        m->model = plant(2, 50e-6, 8e-8, 300e-6, 1.6e-6, 1.6e-6);
        for (size_t bytes = 131072; bytes <= 1048576; bytes *= 2) {
            /* with two subnets rsag and the tree carry the same bytes
             * each way: the tree may win, its segments fit too */
            const char *w = winner(m, &t, ECOI_C_ALLREDUCE, bytes, &seg);
            CU_ASSERT(strcmp(w, "rsag") == 0 || strcmp(w, "tree") == 0);
            CU_ASSERT(seg > 0 && (double)seg * 1.6e-6 <= 0.03);
            seg = segment_of(m, &t, ECOI_C_ALLREDUCE, bytes, "rsag");
            CU_ASSERT(seg > 0 && (double)seg * 1.6e-6 <= 0.03);
        }
        unplant(m);
        /* unless rounds that fit cost more than 5% (QUEUE_SLACK): at 20 ms
         * a message, 16 KB rounds pay it 64 times for 1 MB */
        m->model = plant(2, 50e-6, 8e-8, 20e-3, 1.6e-6, 1.6e-6);
        CU_ASSERT_STRING_EQUAL(winner(m, &t, ECOI_C_ALLREDUCE, 1048576, &seg), "rsag");
        CU_ASSERT((double)seg * 1.6e-6 > 0.03);
        unplant(m);
        eco_map_free(m);
    }

    /* Subnets of 3, 2 and 2 hosts behind 10, 20 and 5 Mbit/s
     * (uneven.topo), the slowest the dearest to reach: a scatter from
     * subnet 0 that starts on the slowest link first ends when that link
     * has carried its blocks (the bound), not after the others' too. */
    {
        const config u = uneven7;
        ecoi_prediction pr[16];
        double flat = 0, far = 0;
        m = make_map(&u);
        m->model = plant(3, 50e-6, 8e-9, 300e-6, 8e-7, 0);
        plant_uplinks(m, &u, uneven_up);
        for (int root = 0; root < 5; root++) {
            CU_ASSERT_STRING_EQUAL(winner_root(m, &u, ECOI_C_SCATTER, root, 16000), "flat-far");
            CU_ASSERT_STRING_EQUAL(winner_root(m, &u, ECOI_C_SCATTER, root, 131072),
                                   "flat-far");
        }
        /* from subnet 0: 2 x 16000 bytes into subnet 2 at 1.6 us a byte
         * is the bound (51.2 ms); cheapest first, in whole runs, it waits
         * for subnet 1's 25.6 ms on subnet 0's link; in turns (the runs
         * in segments, each child's in turn) the order hardly matters */
        for (int whole = 0; whole < 2; whole++) {
            int k = ecoi_predict(m, m->model, u.n, u.member_host, NULL, ECOI_C_SCATTER, 0,
                                 16000, whole ? 0 : -1, pr, 16);
            for (int i = 0; i < k; i++) {
                if (strcmp(ecoi_algorithm_at(pr[i].algorithm)->name, "flat") == 0)
                    flat = pr[i].seconds;
                if (strcmp(ecoi_algorithm_at(pr[i].algorithm)->name, "flat-far") == 0)
                    far = pr[i].seconds;
            }
            CU_ASSERT(far > 51.2e-3 && far < 53e-3);
            CU_ASSERT(whole ? flat > 76.8e-3 && flat < 79e-3 : flat > 51.2e-3 && flat < 56e-3);
            if (!(far > 51.2e-3 && far < 53e-3) ||
                !(whole ? flat > 76.8e-3 && flat < 79e-3 : flat > 51.2e-3 && flat < 56e-3))
                fprintf(stderr, "\n  uneven scatter%s: flat %.3f ms, flat-far %.3f ms\n",
                        whole ? " (whole runs)" : "", flat * 1e3, far * 1e3);
        }
        /* a gather's messages all leave at once: subnet 0's link takes
         * the 4 blocks of the others in 51.2 ms, subnet 2's its 2 */
        int k = ecoi_predict(m, m->model, u.n, u.member_host, NULL, ECOI_C_GATHER, 0, 16000, -1,
                         pr, 16);
        for (int i = 0; i < k; i++)
            if (strcmp(ecoi_algorithm_at(pr[i].algorithm)->name, "flat") == 0) {
                CU_ASSERT(pr[i].seconds > 51.2e-3 && pr[i].seconds < 53e-3);
                if (!(pr[i].seconds > 51.2e-3 && pr[i].seconds < 53e-3))
                    fprintf(stderr, "\n  uneven gather: flat %.3f ms\n", pr[i].seconds * 1e3);
            }
        unplant(m);
        eco_map_free(m);
    }

    /* One switch, every host on its own port (switched8.topo, slowhosts
     * .topo): a host's link is its own, at its own rate. */
    {
        config sw = { .n = 6, .nh = 6, .nsub = 1, .degree = { 5 },
                      .host_subnet = { 0, 0, 0, 0, 0, 0 },
                      .member_host = { 0, 1, 2, 3, 4, 5 } };
        double t;
        m = make_map(&sw);
        m->model = plant(1, 50e-6, 8e-8, 50e-6, 8e-8, 0);   /* 100 Mbit/s */
        for (int a = 0; a < 6; a++)
            for (int b = a + 1; b < 6; b++)
                ecoi_map_set_cost(m, a, b, 50e-6 + 16384 * 8e-8);
        /* a star gather: the root's link takes the 5 blocks one after
         * the other, 5 x 16000 x 80 ns = 6.4 ms, not one block's time */
        t = predicted(m, &sw, ECOI_C_GATHER, 16000, "star");
        CU_ASSERT(t > 6.4e-3 && t < 7.5e-3);
        /* hosts 4 and 5 at 10 Mbit/s (their measured pairs 10 times
         * dearer), the subnet's link measured between two fast hosts: a
         * gather ends when a slow host's block is in (16000 x 800 ns =
         * 12.8 ms; the two slow links carry theirs at once) */
        unplant(m);
        m->model = plant(1, 50e-6, 8e-9, 50e-6, 8e-9, 0);
        for (int a = 0; a < 6; a++)
            for (int b = a + 1; b < 6; b++)
                ecoi_map_set_cost(m, a, b, 50e-6 + 16384 * (b >= 4 ? 8e-7 : 8e-9));
        t = predicted(m, &sw, ECOI_C_GATHER, 16000, "star");
        CU_ASSERT(t > 12.8e-3 && t < 14e-3);
        if (!(t > 12.8e-3 && t < 14e-3))
            fprintf(stderr, "\n  slow hosts gather: star %.3f ms\n", t * 1e3);
        unplant(m);
        eco_map_free(m);
    }

    /* Two sites of two subnets of two hosts (multilevel.topo): the
     * exchanges go between the sites' leaders, once across the slow
     * link, not among all four subnets. */
    config two = { .n = 8, .nh = 8, .nsub = 4, .degree = { 1, 1, 1, 1 },
                   .host_subnet = { 0, 0, 1, 1, 2, 2, 3, 3 },
                   .member_host = { 0, 1, 2, 3, 4, 5, 6, 7 } };
    int grp[8];
    m = make_map(&two);
    m->model = plant(4, 50e-6, 8e-9, 200e-6, 8e-8, 8e-8);
    for (int s = 0; s < 4; s++)
        for (int t = 0; t < 4; t++)
            if (s / 2 != t / 2)
                m->model->link[s * 4 + t] = (ecoi_cost){ 300e-6, 1.6e-6 };
    CU_ASSERT_EQUAL(ecoi_groups(m, m->model, 8, two.member_host, ECOI_LEVEL_SITES, grp), 2);
    CU_ASSERT(grp[0] == grp[3] && grp[4] == grp[7] && grp[0] != grp[4]);
    CU_ASSERT_EQUAL(ecoi_groups(m, m->model, 8, two.member_host, ECOI_LEVEL_SUBNETS, grp), 4);
    CU_ASSERT_STRING_EQUAL(winner(m, &two, ECOI_C_ALLREDUCE, 131072, NULL), "rsag-sites");
    CU_ASSERT_STRING_EQUAL(winner(m, &two, ECOI_C_ALLGATHER, 131072, NULL), "hier-sites");
    unplant(m);
    eco_map_free(m);

    /* One switch of 8 hosts (one subnet, nothing shared): no leaders to
     * exchange among, so reduce-to-all is reduce then broadcast; a
     * single subnet's k = 1 (a chain of hosts) pipelines long vectors. */
    config one = { .n = 8, .nh = 8, .nsub = 1, .degree = { 1 },
                   .host_subnet = { 0 }, .member_host = { 0, 1, 2, 3, 4, 5, 6, 7 } };
    m = make_map(&one);
    m->model = plant(1, 60e-6, 8e-8, 0, 0, 0);
    CU_ASSERT_STRING_NOT_EQUAL(winner(m, &one, ECOI_C_ALLREDUCE, 131072, NULL), "rsag");
    CU_ASSERT_STRING_NOT_EQUAL(winner(m, &one, ECOI_C_ALLGATHER, 131072, NULL), "hier");
    /* long vectors: the ring moves 2 (n - 1) / n of the vector through a
     * member's link, the tree's inner members twice the vector */
    CU_ASSERT_STRING_EQUAL(winner(m, &one, ECOI_C_ALLREDUCE, 131072, NULL), "ring");
    winner(m, &one, ECOI_C_BCAST, 131072, &seg);
    CU_ASSERT(seg > 0);
    /* 8 bytes: the cost per message is all; 3 rounds of recursive
     * doubling against a reduce and a broadcast, or a gather and a
     * scatter, or 7 steps down the chain */
    CU_ASSERT_STRING_EQUAL(winner(m, &one, ECOI_C_ALLREDUCE, 8, NULL), "rdouble");
    CU_ASSERT_STRING_EQUAL(winner(m, &one, ECOI_C_SCAN, 8, NULL), "rdouble");
    unplant(m);
    /* no model: the defaults from the file's costs give the same kinds */
    CU_ASSERT_STRING_NOT_EQUAL(winner(m, &one, ECOI_C_ALLREDUCE, 131072, NULL), "rsag");
    eco_map_free(m);
}

/* The busy per-message cost (ecoi_model.busy, eco-characterize's round
 * with every probe sending at once) floors every message's: predictions
 * grow with it, 0 (not measured) is the default, and a dear one makes
 * fewer, larger messages win. */
static void test_select_busy(void)
{
    config c = { .n = 6, .nh = 6, .nsub = 3, .degree = { 1, 1, 1 },
                 .host_subnet = { 0, 0, 1, 1, 2, 2 }, .member_host = { 0, 1, 2, 3, 4, 5 } };
    eco_map *m = make_map(&c);
    static const double busy[] = { 5e-6, 150e-6, 1e-3 };
    static const size_t sizes[] = { 8, 1000, 131072 };
    ecoi_prediction pr[3][16], dflt[16];
    size_t seg_cheap = 0, seg_dear = 0;

    for (int a = 0; a < 6; a++)
        for (int b = 0; b < 6; b++)
            if (a / 2 != b / 2)
                ecoi_map_set_cost(m, a, b, 11.5e-3);
    CU_ASSERT_EQUAL(ecoi_model_busy(NULL), busy[1]); /* eco-subnets(5) */
    /* quiet alphas below every busy cost tried: the floor is what moves */
    m->model = plant(3, 4e-6, 8e-9, 4e-6, 8e-7, 8e-7);
    for (int coll = 0; coll < ECOI_NCOLL; coll++)
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
            int k = 0;
            for (int i = 0; i < 3; i++) {
                m->model->busy = busy[i];
                k = ecoi_predict(m, m->model, c.n, c.member_host, NULL, coll, 0, sizes[z],
                                 -1, pr[i], 16);
                CU_ASSERT_FATAL(k > 0);
            }
            m->model->busy = 0.0; /* not measured: the default, 150 us */
            CU_ASSERT_EQUAL(ecoi_predict(m, m->model, c.n, c.member_host, NULL, coll, 0,
                                         sizes[z], -1, dflt, 16), k);
            for (int a = 0; a < k; a++) {
                if (isinf(pr[0][a].seconds)) /* not for these members (sites) */
                    continue;
                for (int i = 0; i < 2; i++) {
                    ecoi_prediction same[16];
                    if (pr[i][a].segment == pr[i + 1][a].segment) {
                        CU_ASSERT(pr[i][a].seconds < pr[i + 1][a].seconds);
                        continue;
                    }
                    /* another segment at the dearer cost (a whole message
                     * over the links' queues taken once the segments that
                     * fit cost QUEUE_SLACK more): the same one costs more */
                    m->model->busy = busy[i + 1];
                    CU_ASSERT_FATAL(ecoi_predict(m, m->model, c.n, c.member_host, NULL, coll, 0,
                                                 sizes[z], (long)pr[i][a].segment, same,
                                                 16) == k);
                    CU_ASSERT(pr[i][a].seconds < same[a].seconds);
                }
                CU_ASSERT_EQUAL(dflt[a].seconds, pr[1][a].seconds);
            }
        }
    /* a long broadcast down the chained subnets: longer segments when
     * each costs more */
    m->model->busy = busy[0];
    CU_ASSERT_STRING_EQUAL(winner(m, &c, ECOI_C_BCAST, 131072, &seg_cheap), "chain");
    m->model->busy = busy[2];
    CU_ASSERT_STRING_EQUAL(winner(m, &c, ECOI_C_BCAST, 131072, &seg_dear), "chain");
    CU_ASSERT(seg_cheap > 0 && seg_cheap < seg_dear);
    /* all-to-all of 1000 bytes: aggregated between subnets' leaders (a
     * sixth of the messages over the slow links, each with its headers,
     * ECOI_WIRE_HEADER) whether messages are cheap or dear; the leaders
     * in rounds, predicted 8% faster than at once, when they are dear;
     * and each block straight to its member only when the links between
     * subnets are fast */
    m->model->busy = busy[0];
    CU_ASSERT_STRING_NOT_EQUAL(winner(m, &c, ECOI_C_ALLTOALL, 1000, NULL), "direct");
    m->model->busy = busy[2];
    CU_ASSERT_STRING_EQUAL(winner(m, &c, ECOI_C_ALLTOALL, 1000, NULL), "hier-rounds");
    m->model->busy = busy[0];
    for (int s = 0; s < 3; s++) {
        m->model->uplink[s] = 8e-9;
        for (int t = 0; t < 3; t++)
            if (s != t)
                m->model->link[s * 3 + t] = (ecoi_cost){ 4e-6, 8e-9 };
    }
    CU_ASSERT_STRING_EQUAL(winner(m, &c, ECOI_C_ALLTOALL, 1000, NULL), "direct");
    unplant(m);
    eco_map_free(m);
}

/* The busy cost at fewer members running (ecoi_busy_at): the measured
 * busy cost (switched8's 87 us a message, its 8 hosts on netbed's 2
 * cores) is each message's CPU time shared: 4 running pay half of it, 2
 * or 1 a quarter (a core each), never less than the quiet cost, twice it
 * at 16; on cores of their own (0, or a core each) the busy cost. */
static void test_busy_at(void)
{
    const double busy = 87e-6;

    CU_ASSERT_DOUBLE_EQUAL(ecoi_busy_at(busy, 0.0, 8, 8, 2), busy, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ecoi_busy_at(busy, 0.0, 4, 8, 2), busy / 2, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ecoi_busy_at(busy, 0.0, 2, 8, 2), busy / 4, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ecoi_busy_at(busy, 0.0, 1, 8, 2), busy / 4, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ecoi_busy_at(busy, 12e-6, 1, 8, 2), busy / 4, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ecoi_busy_at(busy, 30e-6, 1, 8, 2), 30e-6, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ecoi_busy_at(busy, 0.0, 16, 8, 2), 2 * busy, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(ecoi_busy_at(busy, 0.0, 1, 8, 1), busy / 8, 1e-12);
    CU_ASSERT_EQUAL(ecoi_busy_at(busy, 0.0, 1, 8, 0), busy);
    CU_ASSERT_EQUAL(ecoi_busy_at(busy, 0.0, 1, 8, 8), busy);
    CU_ASSERT_EQUAL(ecoi_busy_at(busy, 0.0, 3, 8, 16), busy);
    CU_ASSERT_EQUAL(ecoi_busy_at(busy, 0.0, 1, 0, 2), busy);
}

/* The model's cores (ecoi_model.cores, the hosts on one machine's): a
 * barrier's message costs the busy cost at the members running
 * (ecoi_busy_at) on them, on one core when the model has none (0).  8
 * hosts of one switch, 160 us busy, 12 us quiet: the flat barrier's 7
 * leaves send to the root at once (7 of 8 running: 7/8 of busy on 1, 2
 * or 4 cores), then the root alone sends 7 releases: busy / 8 each on
 * one core (0: not known), 2/8 on 2 and 4/8 on 4. */
static void test_select_cores(void)
{
    config one = { .n = 8, .nh = 8, .nsub = 1, .degree = { 1 },
                   .host_subnet = { 0 }, .member_host = { 0, 1, 2, 3, 4, 5, 6, 7 } };
    eco_map *m = make_map(&one);
    const double busy = 160e-6;
    double flat[3];
    static const double cores[3] = { 0.0, 2.0, 4.0 };

    m->model = plant(1, 12e-6, 9e-8, 0, 0, 0);
    m->model->busy = busy;
    for (int i = 0; i < 3; i++) {
        m->model->cores = cores[i];
        flat[i] = predicted(m, &one, ECOI_C_BARRIER, 0, "flat");
    }
    CU_ASSERT_DOUBLE_EQUAL(flat[0], 7 * busy * 7 / 8 + 7 * busy / 8, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(flat[1], 7 * busy * 7 / 8 + 7 * busy * 2 / 8, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(flat[2], 7 * busy * 7 / 8 + 7 * busy * 4 / 8, 1e-9);
    /* as many cores as members: every message the busy cost */
    m->model->cores = 8.0;
    CU_ASSERT_DOUBLE_EQUAL(predicted(m, &one, ECOI_C_BARRIER, 0, "flat"), 14 * busy, 1e-9);
    unplant(m);
    eco_map_free(m);
}

/* The lock-step step (ecoi_model.step, what eco-characterize's ring,
 * where every probe sends one short message and waits for its own, takes
 * beyond its links' time): the ring's steps and recursive doubling's
 * rounds pay their message's quiet time plus the step, or the busy cost,
 * whichever is more; the trees do not.  One switch of 8 hosts with
 * switched8.topo's measured model (12 us and 11 MB/s quiet, 70 us a
 * message busy): with no step the lock-step algorithms win at 1,000
 * bytes; with 330 us (a ring step of eco's with the in-place transport,
 * doc/benchmarks.md run 9) recursive doubling loses, and the ring's
 * prediction grows by that much a step; the 94 us measured there with
 * one fragment a message adds 36 us a step over busy. */
static void test_select_step(void)
{
    config one = { .n = 8, .nh = 8, .nsub = 1, .degree = { 1 },
                   .host_subnet = { 0 }, .member_host = { 0, 1, 2, 3, 4, 5, 6, 7 } };
    eco_map *m = make_map(&one);
    double ring0, tree0;

    m->model = plant(1, 12e-6, 9e-8, 0, 0, 0);
    m->model->busy = 70e-6;
    CU_ASSERT_EQUAL(ecoi_model_step(m->model), 0.0); /* not measured: nothing */
    CU_ASSERT_EQUAL(ecoi_model_step(NULL), 0.0);
    CU_ASSERT_STRING_EQUAL(winner(m, &one, ECOI_C_ALLREDUCE, 1000, NULL), "rdouble");
    CU_ASSERT_STRING_EQUAL(winner(m, &one, ECOI_C_ALLGATHER, 1000, NULL), "ring");
    CU_ASSERT_STRING_EQUAL(winner(m, &one, ECOI_C_SCAN, 1000, NULL), "rdouble");
    ring0 = predicted(m, &one, ECOI_C_ALLGATHER, 1000, "ring");
    tree0 = predicted(m, &one, ECOI_C_BCAST, 1000, "tree-k2");
    m->model->step = 330e-6;
    CU_ASSERT_EQUAL(ecoi_model_step(m->model), 330e-6);
    CU_ASSERT_STRING_NOT_EQUAL(winner(m, &one, ECOI_C_ALLREDUCE, 1000, NULL), "rdouble");
    CU_ASSERT_STRING_NOT_EQUAL(winner(m, &one, ECOI_C_SCAN, 1000, NULL), "rdouble");
    /* the ring's 7 steps each pay 12 + 330 us instead of busy's 70; the
     * trees nothing */
    CU_ASSERT_DOUBLE_EQUAL(predicted(m, &one, ECOI_C_ALLGATHER, 1000, "ring") - ring0,
                           7 * (12e-6 + 330e-6 - 70e-6), 1e-9);
    CU_ASSERT_EQUAL(predicted(m, &one, ECOI_C_BCAST, 1000, "tree-k2"), tree0);
    m->model->step = 94e-6;
    CU_ASSERT_DOUBLE_EQUAL(predicted(m, &one, ECOI_C_ALLGATHER, 1000, "ring") - ring0,
                           7 * (12e-6 + 94e-6 - 70e-6), 1e-9);
    /* a step below busy's less the quiet alpha adds nothing */
    m->model->step = 40e-6;
    CU_ASSERT_DOUBLE_EQUAL(predicted(m, &one, ECOI_C_ALLGATHER, 1000, "ring"), ring0, 1e-12);
    unplant(m);
    eco_map_free(m);
}

/* The forward cost (ecoi_model.forward: what a member that passes a
 * message on adds to the hop).  One switch of 8 hosts (and of 16),
 * switched8.topo's model: a hop costs busy 70 us and 1,000 bytes at
 * 9e-8 s/byte (160 us), a sibling's send before it 90 us.  Without a
 * forward cost the deepest paths of k = 2, 3 and 4 cost alike (two hops
 * and two earlier siblings, 500 us; k = 2's three hops 480) and the
 * first, tree-k2, wins; with 30 us a middle member k = 3's one middle
 * member beats k = 2's two (530 against 540 us), for broadcast, reduce
 * and reduce-to-all (with a step that keeps recursive doubling out).
 * Each path pays it once per middle member: the star nothing, the
 * chain (degree 1) and the scan's chain of ranks six times; and with 16 hosts k = 4 (one middle
 * member, 680 + 30 us) beats k = 3 (660 + 60). */
static void test_select_forward(void)
{
    config one = { .n = 8, .nh = 8, .nsub = 1, .degree = { 1 },
                   .host_subnet = { 0 }, .member_host = { 0, 1, 2, 3, 4, 5, 6, 7 } };
    static const int colls[] = { ECOI_C_BCAST, ECOI_C_REDUCE, ECOI_C_ALLREDUCE };
    eco_map *m = make_map(&one);
    double k3, star, chain, scan_chain;

    m->model = plant(1, 12e-6, 9e-8, 0, 0, 0);
    m->model->busy = 70e-6;
    m->model->step = 330e-6;
    for (size_t i = 0; i < sizeof colls / sizeof colls[0]; i++)
        CU_ASSERT_STRING_EQUAL(winner(m, &one, colls[i], 1000, NULL), "tree-k2");
    CU_ASSERT_DOUBLE_EQUAL(predicted(m, &one, ECOI_C_BCAST, 1000, "tree-k3"),
                           predicted(m, &one, ECOI_C_BCAST, 1000, "tree-k2"), 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(predicted(m, &one, ECOI_C_BCAST, 1000, "tree-k3"), 500e-6, 1e-9);
    k3 = predicted(m, &one, ECOI_C_BCAST, 1000, "tree-k3");
    star = predicted(m, &one, ECOI_C_BCAST, 1000, "star");
    chain = predicted(m, &one, ECOI_C_BCAST, 1000, "chain");
    scan_chain = predicted(m, &one, ECOI_C_SCAN, 1000, "chain");
    /* a low forward cost keeps k = 2 (and the chain when its degree is 2) */
    m->model->forward = 5e-6;
    CU_ASSERT_STRING_EQUAL(winner(m, &one, ECOI_C_BCAST, 1000, NULL), "tree-k2");
    m->degree[0] = 2;
    CU_ASSERT_STRING_EQUAL(winner(m, &one, ECOI_C_BCAST, 1000, NULL), "tree");
    m->degree[0] = 1;
    m->model->forward = 30e-6;
    for (size_t i = 0; i < sizeof colls / sizeof colls[0]; i++)
        CU_ASSERT_STRING_EQUAL(winner(m, &one, colls[i], 1000, NULL), "tree-k3");
    CU_ASSERT_DOUBLE_EQUAL(predicted(m, &one, ECOI_C_BCAST, 1000, "tree-k3") - k3, 30e-6,
                           1e-9);
    CU_ASSERT_DOUBLE_EQUAL(predicted(m, &one, ECOI_C_BCAST, 1000, "tree-k2"), 540e-6, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(predicted(m, &one, ECOI_C_BCAST, 1000, "star"), star, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(predicted(m, &one, ECOI_C_BCAST, 1000, "chain") - chain,
                           6 * 30e-6, 1e-9);
    /* the scan's chain in rank order: ranks 1 to 6 pass it on */
    CU_ASSERT_DOUBLE_EQUAL(predicted(m, &one, ECOI_C_SCAN, 1000, "chain") - scan_chain,
                           6 * 30e-6, 1e-9);
    /* the same degree forced by the file: "tree" is that tree */
    m->degree[0] = 3;
    CU_ASSERT_DOUBLE_EQUAL(predicted(m, &one, ECOI_C_BCAST, 1000, "tree"),
                           predicted(m, &one, ECOI_C_BCAST, 1000, "tree-k3"), 1e-12);
    unplant(m);
    eco_map_free(m);
    one.n = one.nh = 16;
    for (int h = 0; h < 16; h++)
        one.member_host[h] = h;
    m = make_map(&one);
    m->model = plant(1, 12e-6, 9e-8, 0, 0, 0);
    m->model->busy = 70e-6;
    CU_ASSERT_STRING_EQUAL(winner(m, &one, ECOI_C_BCAST, 1000, NULL), "tree-k3");
    m->model->forward = 30e-6;
    CU_ASSERT_STRING_EQUAL(winner(m, &one, ECOI_C_BCAST, 1000, NULL), "tree-k4");
    CU_ASSERT_DOUBLE_EQUAL(predicted(m, &one, ECOI_C_BCAST, 1000, "tree-k4"), 710e-6, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(predicted(m, &one, ECOI_C_BCAST, 1000, "tree-k3"), 720e-6, 1e-9);
    unplant(m);
    eco_map_free(m);
}

/* Routers between hosts of subnets sub[a] and sub[b] (ecoi_map_build_hops):
 * one between any two subnets. */
static int one_router(void *arg, int a, int b)
{
    const int *sub = arg;

    return sub[a] != sub[b];
}

/* All-to-all on subnets of 3, 2 and 2 hosts behind 10, 20 and 5 Mbit/s
 * (uneven.topo), 16,000 bytes a block: direct puts 10 streams on the
 * 5 Mbit/s link at once, whose queue (30 ms, 18.75 KB) leaves each less
 * than the 4 segments a fast retransmit needs, and hier 2; direct,
 * predicted about as fast, lost 200 ms timeouts by the dozen (306-739 ms
 * against hier's 326-331).  On 1 Gbit/s links every stream keeps its
 * window. */
static void test_select_incast(void)
{
    const config u = uneven7;
    static const double fast[3] = { 8e-9, 8e-9, 8e-9 };
    ecoi_prediction pr[16];
    eco_map *m = plant_uneven();
    int k, direct = -1, hier = -1, rounds = -1, turns = -1;

    k = ecoi_predict(m, m->model, u.n, u.member_host, NULL, ECOI_C_ALLTOALL, 0, 16000, -1, pr,
                     16);
    for (int i = 0; i < k; i++) {
        if (strcmp(ecoi_algorithm_at(pr[i].algorithm)->name, "direct") == 0)
            direct = i;
        if (strcmp(ecoi_algorithm_at(pr[i].algorithm)->name, "hier") == 0)
            hier = i;
        if (strcmp(ecoi_algorithm_at(pr[i].algorithm)->name, "hier-rounds") == 0)
            rounds = i;
        if (strcmp(ecoi_algorithm_at(pr[i].algorithm)->name, "hier-turns") == 0)
            turns = i;
    }
    CU_ASSERT_FATAL(direct >= 0 && hier >= 0 && rounds >= 0 && turns >= 0);
    /* direct is over; hier's leaders' streams from the 10 and 20 Mbit/s
     * subnets flood the 5 Mbit/s one's link, as hier-rounds' do in every
     * round (which counts as over); in turns of segments that the links'
     * queues hold, nothing floods, for a turn's lock-step cost each
     * (measured, doc/benchmarks.md run 21: hier 339-359 ms, hier-turns
     * 287) */
    CU_ASSERT(pr[hier].seconds < pr[rounds].seconds);
    CU_ASSERT_EQUAL(pr[direct].over, ECOI_OVER_QUEUE);
    CU_ASSERT_EQUAL(pr[hier].over, ECOI_OVER_FLOOD);
    CU_ASSERT_EQUAL(pr[rounds].over, ECOI_OVER_QUEUE);
    CU_ASSERT_EQUAL(pr[turns].over, ECOI_OVER_NONE);
    CU_ASSERT(pr[turns].segment > 0 && pr[turns].seconds > pr[hier].seconds);
    CU_ASSERT_STRING_EQUAL(winner(m, &u, ECOI_C_ALLTOALL, 16000, NULL), "hier-turns");
    /* gather-to-all: hier's ring of leaders in lock step at the 5 Mbit/s
     * link's pace for the 10 Mbit/s subnet's longer run (hier_pipe); one
     * router between every two subnets, so no sites (hier-sites) */
    CU_ASSERT_EQUAL_FATAL(ecoi_map_build_hops(m, one_router, (void *)u.host_subnet), ECO_OK);
    CU_ASSERT_STRING_EQUAL(winner(m, &u, ECOI_C_ALLGATHER, 131072, NULL), "hier-turns");
    /* 1,000-byte blocks lose one segment at most: 10 of them fit */
    k = ecoi_predict(m, m->model, u.n, u.member_host, NULL, ECOI_C_ALLTOALL, 0, 1000, -1, pr,
                     16);
    CU_ASSERT(k > direct && !pr[direct].over);
    /* on 1 Gbit/s links every stream keeps its window */
    plant_uplinks(m, &u, fast);
    k = ecoi_predict(m, m->model, u.n, u.member_host, NULL, ECOI_C_ALLTOALL, 0, 16000, -1, pr,
                     16);
    CU_ASSERT(k > direct && pr[direct].over == ECOI_OVER_NONE);
    unplant(m);
    eco_map_free(m);
}

/* Sites by costs and routers (ecoi_sites): uneven.topo's subnets, one
 * router apart behind links of 10, 20 and 5 Mbit/s, cost 11.5 ms between
 * the first two and 23 ms to the slow one, so the costs alone make the
 * first two a site; the routers say no site (every subnet as far from
 * every other), and hier-sites then ran no wider groups than the
 * subnets: measured 1,279-1,314 ms for gather-to-all of 128 KB against
 * hier-turns' 1,169-1,188 (doc/benchmarks.md run 21).  multilevel.topo's
 * (one router inside a site, three across) stay two sites; a pair not
 * known in routers goes by its costs. */
static void test_sites_routers(void)
{
    static const double uneven[9] = { 0, 11.5e-3, 23e-3, 11.5e-3, 0, 23e-3, 23e-3, 23e-3, 0 };
    static const int one[9] = { 0, 1, 1, 1, 0, 1, 1, 1, 0 };
    static const int two_levels[9] = { 0, 1, 3, 1, 0, 3, 3, 3, 0 };
    static const int unknown[9] = { 0, -1, 1, -1, 0, 1, 1, 1, 0 };
    static const double ml[16] = { 0, 2.8e-3, 55e-3, 55e-3, 2.8e-3, 0, 55e-3, 55e-3,
                                   55e-3, 55e-3, 0, 2.8e-3, 55e-3, 55e-3, 2.8e-3, 0 };
    static const int ml_hops[16] = { 0, 1, 3, 3, 1, 0, 3, 3, 3, 3, 0, 1, 3, 3, 1, 0 };
    int site[4];

    CU_ASSERT_EQUAL(ecoi_sites(3, uneven, 0.2, NULL, site), 2);
    CU_ASSERT(site[0] == site[1] && site[2] != site[0]);
    CU_ASSERT_EQUAL(ecoi_sites(3, uneven, 0.2, one, site), 3);
    CU_ASSERT_EQUAL(ecoi_sites(3, uneven, 0.2, two_levels, site), 2);
    CU_ASSERT(site[0] == site[1] && site[2] != site[0]);
    CU_ASSERT_EQUAL(ecoi_sites(3, uneven, 0.2, unknown, site), 2);
    CU_ASSERT_EQUAL(ecoi_sites(4, ml, 0.2, ml_hops, site), 2);
    CU_ASSERT(site[0] == site[1] && site[2] == site[3] && site[0] != site[2]);
    CU_ASSERT_EQUAL(ecoi_sites(4, ml, 0.2, NULL, site), 2);
}

/* The leaders' exchange of all-to-all aggregated, at once or in rounds,
 * on the ECO paper's network (3 subnets of 2 behind 10 Mbit/s links,
 * measured 8.452e-7 to 8.473e-7 s/byte): at once, each leader's link
 * takes two senders' streams together at every change of sender (20
 * Mbit/s into 10: it floods); in rounds one at a time.  Predicted alike,
 * measured 138-145 ms at once and 110.7 in rounds at 16,000 bytes a
 * block.  A 1,000-byte block's messages (4,000 bytes) fit the links'
 * queues whole: nothing floods. */
static void test_select_rounds(void)
{
    const config c = { .n = 6, .nh = 6, .nsub = 3, .degree = { 1, 1, 1 },
                       .host_subnet = { 0, 0, 1, 1, 2, 2 },
                       .member_host = { 0, 1, 2, 3, 4, 5 } };
    static const double up[3] = { 8.473e-7, 8.461e-7, 8.452e-7 };
    static const double slow[3] = { 8.473e-7, 8.461e-7, 1.6e-6 };
    eco_map *m = make_map(&c);
    ecoi_prediction pr[16];
    int k, hier = -1, rounds = -1;

    m->model = plant(3, 20e-6, 5e-9, 25e-6, 8.47e-7, 0);
    m->model->busy = 300e-6;
    plant_uplinks(m, &c, up);
    k = ecoi_predict(m, m->model, c.n, c.member_host, NULL, ECOI_C_ALLTOALL, 0, 16000, -1, pr,
                     16);
    for (int i = 0; i < k; i++) {
        if (strcmp(ecoi_algorithm_at(pr[i].algorithm)->name, "hier") == 0)
            hier = i;
        if (strcmp(ecoi_algorithm_at(pr[i].algorithm)->name, "hier-rounds") == 0)
            rounds = i;
    }
    CU_ASSERT_FATAL(hier >= 0 && rounds >= 0);
    CU_ASSERT_EQUAL(pr[hier].over, ECOI_OVER_FLOOD);
    CU_ASSERT_EQUAL(pr[rounds].over, ECOI_OVER_NONE);
    CU_ASSERT_DOUBLE_EQUAL(pr[rounds].seconds, pr[hier].seconds, 0.02 * pr[hier].seconds);
    CU_ASSERT_STRING_EQUAL(winner(m, &c, ECOI_C_ALLTOALL, 16000, NULL), "hier-rounds");
    k = ecoi_predict(m, m->model, c.n, c.member_host, NULL, ECOI_C_ALLTOALL, 0, 1000, -1, pr,
                     16);
    CU_ASSERT_FATAL(k > hier && k > rounds);
    CU_ASSERT_EQUAL(pr[hier].over, ECOI_OVER_NONE);
    CU_ASSERT_EQUAL(pr[rounds].over, ECOI_OVER_NONE);
    /* one subnet at 5 Mbit/s: every round's stream into it floods its
     * link, and the rounds wait for the slowest: at once */
    plant_uplinks(m, &c, slow);
    CU_ASSERT_STRING_EQUAL(winner(m, &c, ECOI_C_ALLTOALL, 16000, NULL), "hier");
    unplant(m);
    eco_map_free(m);
}

/* ecoi_choose on made-up predictions: the least predicted, unless it is
 * over (or floods) and one less so is within QUEUE_SLACK (5%) of it:
 * first one that neither floods nor is over, then one that only floods;
 * a tie goes to the first. */
static void test_choose_over(void)
{
#define P(a, ms, o) { .algorithm = (a), .seconds = (ms) * 1e-3, .over = (o) }
    /* 0/2 only: the old rule */
    const ecoi_prediction q[] = { P(0, 100, ECOI_OVER_QUEUE), P(1, 104, ECOI_OVER_NONE) };
    const ecoi_prediction q_far[] = { P(0, 100, ECOI_OVER_QUEUE), P(1, 106, ECOI_OVER_NONE) };
    /* all three kinds */
    const ecoi_prediction a[] = { P(0, 100, ECOI_OVER_QUEUE), P(1, 103, ECOI_OVER_FLOOD),
                                  P(2, 104, ECOI_OVER_NONE) };
    const ecoi_prediction b[] = { P(0, 100, ECOI_OVER_QUEUE), P(1, 103, ECOI_OVER_FLOOD),
                                  P(2, 106, ECOI_OVER_NONE) };
    const ecoi_prediction c[] = { P(0, 100, ECOI_OVER_QUEUE), P(1, 106, ECOI_OVER_FLOOD),
                                  P(2, 107, ECOI_OVER_NONE) };
    /* a flooding best gives way to one that does neither, not to an over
     * one however fast */
    const ecoi_prediction d[] = { P(0, 100, ECOI_OVER_FLOOD), P(1, 104, ECOI_OVER_NONE) };
    const ecoi_prediction e[] = { P(0, 100, ECOI_OVER_FLOOD), P(1, 106, ECOI_OVER_NONE) };
    const ecoi_prediction f[] = { P(0, 101, ECOI_OVER_FLOOD), P(1, 100, ECOI_OVER_QUEUE),
                                  P(2, 99, ECOI_OVER_QUEUE) };
    /* not over: the least, the first on a tie */
    const ecoi_prediction g[] = { P(0, 100, ECOI_OVER_NONE), P(1, 99, ECOI_OVER_NONE),
                                  P(2, 100, ECOI_OVER_FLOOD) };
    const ecoi_prediction h[] = { P(0, 100, ECOI_OVER_NONE), P(1, 100, ECOI_OVER_NONE) };
#undef P
#define N(x) ((int)(sizeof x / sizeof x[0]))
    CU_ASSERT_EQUAL(ecoi_choose(q, N(q), 0), 1);
    CU_ASSERT_EQUAL(ecoi_choose(q_far, N(q_far), 0), 0);
    CU_ASSERT_EQUAL(ecoi_choose(a, N(a), 0), 2);
    CU_ASSERT_EQUAL(ecoi_choose(b, N(b), 0), 1);
    CU_ASSERT_EQUAL(ecoi_choose(c, N(c), 0), 0);
    CU_ASSERT_EQUAL(ecoi_choose(d, N(d), 0), 1);
    CU_ASSERT_EQUAL(ecoi_choose(e, N(e), 0), 0);
    CU_ASSERT_EQUAL(ecoi_choose(f, N(f), 0), 0);
    CU_ASSERT_EQUAL(ecoi_choose(g, N(g), 0), 1);
    CU_ASSERT_EQUAL(ecoi_choose(h, N(h), 0), 0);
    CU_ASSERT_EQUAL(ecoi_choose(h, 0, 0), -1);
#undef N
}

/* Segments of one PVM fragment (4,000 bytes of data with libeco's
 * header) are among the candidates, between 4,096 and 2,048: on the
 * uneven-like model the broadcasts of 16,000 and 12,000 bytes down the
 * chain take them. */
static void test_select_fragment(void)
{
    const config u = uneven7;
    eco_map *m = plant_uneven();
    size_t seg = 0;

    winner(m, &u, ECOI_C_BCAST, 16000, &seg);
    CU_ASSERT_EQUAL(seg, 4000);
    /* 12,000 bytes: three fragments, against 8,192 + 3,808 or six of
     * 2,048 */
    winner(m, &u, ECOI_C_BCAST, 12000, &seg);
    CU_ASSERT(seg == 4000 || seg == 2048);
    /* 131,072 bytes: a longer segment goes out in place, libeco's header
     * a fragment of its own, and pays the busy cost and the headers on
     * the link twice a segment: 8,192 (16 x 2 messages) and 4,000 (33)
     * are within 1% */
    for (int op = 0; op < 2; op++) {
        const int coll = op ? ECOI_C_REDUCE : ECOI_C_BCAST;
        const double one = predicted_seg(m, &u, coll, 131072, "chain", 4000);
        const double two = predicted_seg(m, &u, coll, 131072, "chain", 4096);
        winner(m, &u, coll, 131072, &seg);
        CU_ASSERT(seg == 4000 || seg == 8192);
        /* 32 segments of 4,096 against 33 of 4,000, beyond the first:
         * 31 x 2 messages against 32, 30 more messages' busy cost and
         * headers on the 5 Mbit/s link, and 1,024 bytes fewer */
        CU_ASSERT(two - one > 30 * (m->model->busy + ECOI_WIRE_HEADER * uneven_up[2]) -
                                  1024 * uneven_up[2]);
    }
    unplant(m);
    eco_map_free(m);
}

/* Forcing by name: what ECO_ALGORITHM and eco_set_pattern accept. */
static void test_select_forced(void)
{
    int f[ECOI_NCOLL];
    char why[200];
    config c = { .n = 4, .nh = 4, .nsub = 2, .degree = { 1, 1 },
                 .host_subnet = { 0, 0, 1, 1 }, .member_host = { 0, 1, 2, 3 } };
    ecoi_local_world *w = ecoi_local_world_new(4, 5.0);
    eco_ctx *ctx = NULL;

    CU_ASSERT_EQUAL(ecoi_parse_forced("allreduce=rsag,bcast=chain-k2", f, why, sizeof why), ECO_OK);
    CU_ASSERT_STRING_EQUAL(ecoi_algorithm_at(f[ECOI_C_ALLREDUCE])->name, "rsag");
    CU_ASSERT_STRING_EQUAL(ecoi_algorithm_at(f[ECOI_C_BCAST])->name, "chain-k2");
    CU_ASSERT_EQUAL(f[ECOI_C_SCAN], -1);
    CU_ASSERT_EQUAL(ecoi_parse_forced(NULL, f, why, sizeof why), ECO_OK);
    for (int k = 0; k < ECOI_NCOLL; k++)
        CU_ASSERT_EQUAL(f[k], -1);
    CU_ASSERT_EQUAL(ecoi_parse_forced("allreduce=nope", f, why, sizeof why), ECO_ERR_ARG);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "no such algorithm for allreduce"));
    CU_ASSERT_EQUAL(ecoi_parse_forced("nope=tree", f, why, sizeof why), ECO_ERR_ARG);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "no such operation"));
    CU_ASSERT_EQUAL(ecoi_parse_forced("bcast", f, why, sizeof why), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(ecoi_parse_forced("bcast=tree,", f, why, sizeof why), ECO_OK);
    CU_ASSERT_EQUAL(ecoi_parse_forced("allgather=rsag", f, why, sizeof why), ECO_ERR_ARG);
    /* through eco_set_pattern, and what a call then runs */
    CU_ASSERT_FATAL(ecoi_ctx_create(4, 0, make_map(&c), c.member_host,
                                    ecoi_local_transport(w, 0), &ctx) == ECO_OK);
    CU_ASSERT_EQUAL(eco_set_pattern(ctx, "allreduce=nope"), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_set_pattern(ctx, "allreduce=chain,allgather=ring"), ECO_OK);
    {
        ecoi_plan plan;
        CU_ASSERT_EQUAL(ecoi_select(ctx, ECOI_C_ALLREDUCE, 0, 100000, &plan), ECO_OK);
        CU_ASSERT_STRING_EQUAL(ecoi_algorithm_at(plan.algorithm)->name, "chain");
        CU_ASSERT_EQUAL(ecoi_select(ctx, ECOI_C_ALLGATHER, 0, 8, &plan), ECO_OK);
        CU_ASSERT_EQUAL(plan.run, ECOI_RUN_RING);
        /* a legacy user function's vector is never split among subnets */
        CU_ASSERT_EQUAL(eco_set_pattern(ctx, "allreduce=rsag"), ECO_OK);
        CU_ASSERT_EQUAL(ecoi_select_flags(ctx, ECOI_C_ALLREDUCE, 0, 100000, ECOI_CALL_WHOLE,
                                          &plan), ECO_OK);
        CU_ASSERT_NOT_EQUAL(plan.run, ECOI_RUN_RSAG);
        CU_ASSERT_EQUAL(plan.segment, 0);
        CU_ASSERT_EQUAL(ecoi_select(ctx, ECOI_C_ALLREDUCE, 0, 100000, &plan), ECO_OK);
        CU_ASSERT_EQUAL(plan.run, ECOI_RUN_RSAG);
    }
    eco_finalize(ctx);
    ecoi_local_world_free(w);
}

/* Every algorithm of select.c's table, forced by name (ECO_ALGORITHM),
 * through the whole battery: with 64-byte segments and with the model's. */
static void test_every_algorithm(void)
{
    static const char *const forced[] = {
        "bcast=chain,reduce=chain,allreduce=chain,allgather=ring,scan=chain,"
        "allgatherv=ring,exscan=chain,reduce_scatter=chain",
        "bcast=tree-k2,reduce=tree-k2,allreduce=rsag,allgather=gather-bcast,scan=tree,"
        "allgatherv=gather-bcast,exscan=tree,reduce_scatter=tree",
        "bcast=chain-k2,reduce=chain-k2,allreduce=rsag-k2,allgather=hier",
        "bcast=tree,reduce=tree,allreduce=tree,gather=star,scatter=star,barrier=star,"
        "gatherv=star,scatterv=star",
        "gather=flat,scatter=flat,barrier=flat,scan=flat,allgather=flat-bcast,"
        "gatherv=flat,scatterv=flat,exscan=flat,allreduce=tree-k3",
        "allreduce=tree-k2,allgather=hier-k2,alltoall=hier,bcast=tree-k3,reduce=tree-k3",
        "allreduce=chain-k2,allgather=hier-chain,alltoall=hier-rounds",
        "allreduce=rsag-sites,allgather=hier-sites,scatter=flat-far",
        "allreduce=rdouble,scan=rdouble,alltoall=direct,exscan=rdouble,alltoallv=direct",
        "bcast=star,reduce=star,allreduce=star",
        "bcast=tree-k4,reduce=tree-k4,allreduce=tree-k4",
        "allreduce=ring,gather=paced,alltoall=hier-turns,allgather=hier-turns",
    };
    char seen[256] = { 0 };
    config c;

    /* the list above names every algorithm of the table */
    for (size_t f = 0; f < sizeof forced / sizeof forced[0]; f++) {
        int idx[ECOI_NCOLL];
        CU_ASSERT_FATAL(ecoi_parse_forced(forced[f], idx, NULL, 0) == ECO_OK);
        for (int k = 0; k < ECOI_NCOLL; k++)
            if (idx[k] >= 0 && idx[k] < (int)sizeof seen)
                seen[idx[k]] = 1;
    }
    for (int i = 0; ecoi_algorithm_at(i); i++) {
        CU_ASSERT(i < (int)sizeof seen && seen[i]);
        if (i >= (int)sizeof seen || !seen[i])
            fprintf(stderr, "\n  %s=%s is never forced\n",
                    ecoi_coll_name(ecoi_algorithm_at(i)->coll), ecoi_algorithm_at(i)->name);
    }
    for (size_t f = 0; f < sizeof forced / sizeof forced[0]; f++) {
        setenv("ECO_ALGORITHM", forced[f], 1);
        setenv("ECO_SEGMENT_SIZE", "64", 1);
        random_config(&c, 11 + (int)f, 5, 8);
        run_battery(&c, ECOT_QUICK);
        unsetenv("ECO_SEGMENT_SIZE");
        random_config(&c, 31 + (int)f, 7, 12);
        run_battery(&c, ECOT_QUICK);
    }
    unsetenv("ECO_ALGORITHM");
}

/* Gather-to-all by hier (forced) with long units: blocks of hier_bytes
 * in units of hier_segment bytes (0: whole blocks), then blocks almost
 * twice as long, in the same size class, whose plan is the first's but
 * whose lags are their own.  Flow control's epochs end at ECOI_FLOW_BYTES
 * here as over PVM: a unit of 64 KB makes an epoch of 8 messages, of
 * 512 KB one (lag 0), and leaders that read the leader behind an epoch
 * and more later than it sent (the first call's xlag with the second's
 * units) stop each other till the world times out. */
static size_t hier_bytes, hier_segment;
static ecoi_plan hier_plans[64][2];   /* [rank][call]: what each ran */

static int hier_check(eco_ctx *ctx, member *me, size_t bytes, ecoi_plan *plan)
{
    const size_t count = bytes / sizeof(int), n = (size_t)ctx->n;
    int *mine = malloc(bytes), *all = malloc(bytes * n), rc = ECO_ERR_NOMEM;

    if (mine && all) {
        for (size_t i = 0; i < count; i++)
            mine[i] = (int)((size_t)me->rank * 1000003u + i * 7u);
        memset(all, 0xff, bytes * n);
        rc = eco_gather(ctx, mine, all, (int)count, PVM_INT, ECO_ALL);
    }
    for (size_t q = 0; rc == ECO_OK && q < n; q++)
        for (size_t i = 0; i < count; i++) {
            me->rep.checks++;
            if (all[q * count + i] != (int)(q * 1000003u + i * 7u) && !me->rep.failures++)
                snprintf(me->rep.first, sizeof me->rep.first,
                         "%zu bytes: block %zu, element %zu: %d", bytes, q, i,
                         all[q * count + i]);
        }
    if (rc == ECO_OK)
        rc = ecoi_select(ctx, ECOI_C_ALLGATHER, 0, bytes, plan);
    free(mine);
    free(all);
    return rc;
}

static int hier_body(eco_ctx *ctx, member *me)
{
    int rc = eco_set_pattern(ctx, "allgather=hier");

    ctx->segment = hier_segment;
    ctx->segment_auto = 0;
    if (rc == ECO_OK)
        rc = hier_check(ctx, me, hier_bytes, &hier_plans[me->rank][0]);
    if (rc == ECO_OK)
        rc = hier_check(ctx, me, 2 * hier_bytes - sizeof(int), &hier_plans[me->rank][1]);
    return rc;
}

/* Flow control's epochs as the planner counts them (ecoi_flow_epoch_msgs,
 * lib/select.c's lags) and as both transports count them
 * (ecoi_flow_count): messages of one size until an epoch closes. */
static void test_flow_epochs(void)
{
    static const size_t sizes[] = { 0, 1, 4000, 32768, 65536, 100000, 174763,
                                    ECOI_FLOW_BYTES - 1, ECOI_FLOW_BYTES, 1 << 20 };
    static const size_t want[] = { 16, 16, 16, 16, 8, 6, 3, 2, 1, 1 };

    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        ecoi_flow f = { 0 };
        size_t msgs = 1;
        while (!ecoi_flow_count(&f, sizes[i]))
            msgs++;
        CU_ASSERT_EQUAL(f.epoch, 1);
        CU_ASSERT_EQUAL(f.msgs, 0);
        CU_ASSERT_EQUAL(f.bytes, 0);
        CU_ASSERT_EQUAL(msgs, want[i]);
        CU_ASSERT_EQUAL(ecoi_flow_epoch_msgs(sizes[i]), msgs);
    }
}

/* No member leaves a barrier before every member has entered: each
 * member counts itself in just before it enters, and on leaving finds
 * the count of every member in; one member (another each round) comes
 * 20 ms late, so that a barrier that let anyone go early would be seen. */
static int barrier_count;

static int barrier_body(eco_ctx *ctx, member *me)
{
    const int n = me->cfg->n;

    for (int round = 1; round <= 3; round++) {
        int rc, in;
        if (me->rank == (round * 5) % n) {
            struct timespec ts = { 0, 20000000L };
            nanosleep(&ts, NULL);
        }
        __atomic_add_fetch(&barrier_count, 1, __ATOMIC_SEQ_CST);
        if ((rc = eco_barrier(ctx)) != ECO_OK)
            return rc;
        in = __atomic_load_n(&barrier_count, __ATOMIC_SEQ_CST);
        ecot_check(&me->rep, in >= round * n, "barrier %d: rank %d left with %d of %d in",
                   round, me->rank, in - (round - 1) * n, n);
    }
    return ECO_OK;
}

static void test_barrier_holds(void)
{
    static const char *const forced[] = { "barrier=star", "barrier=flat", NULL };
    config c;

    for (size_t f = 0; f < sizeof forced / sizeof forced[0]; f++) {
        if (forced[f])
            setenv("ECO_ALGORITHM", forced[f], 1);
        for (int n = 1; n <= 13; n += (n < 5 ? 1 : 4)) {
            member *ms;
            int nh = 1 + n / 2, nsub = 1 + n % 3;
            random_config(&c, n, nsub < nh ? nsub : nh, nh);
            barrier_count = 0;
            ms = run_members(&c, ECOT_QUICK, barrier_body, NULL);
            for (int r = 0; r < n; r++) {
                CU_ASSERT_EQUAL(ms[r].rc, ECO_OK);
                CU_ASSERT_EQUAL(ms[r].rep.checks, 3);
                CU_ASSERT_EQUAL(ms[r].rep.failures, 0);
                if (ms[r].rc != ECO_OK || ms[r].rep.failures)
                    fprintf(stderr, "\n  %s, n=%d rank %d: %s, %s\n",
                            forced[f] ? forced[f] : "chosen", n, r, eco_strerror(ms[r].rc),
                            ms[r].rep.first);
            }
            free(ms);
        }
        unsetenv("ECO_ALGORITHM");
    }
}

static void test_hier_long_units(void)
{
    /* one subnet (as pvm.test's one host), S = 2 and S = 3 subnets,
     * chains (degree 1) and binary trees in them, some hosts with two
     * tasks or three */
    static const config cfgs[] = {
        { .n = 5, .nh = 3, .nsub = 1, .host_subnet = { 0, 0, 0 }, .degree = { 1 },
          .member_host = { 0, 1, 2, 0, 1 } },
        { .n = 5, .nh = 5, .nsub = 2, .host_subnet = { 0, 0, 0, 1, 1 }, .degree = { 1, 2 },
          .member_host = { 0, 1, 2, 3, 4 } },
        { .n = 8, .nh = 6, .nsub = 2, .host_subnet = { 0, 0, 0, 1, 1, 1 }, .degree = { 2, 1 },
          .member_host = { 0, 1, 2, 3, 4, 5, 2, 4 } },
        { .n = 4, .nh = 4, .nsub = 3, .host_subnet = { 0, 0, 1, 2 }, .degree = { 1, 1, 1 },
          .member_host = { 0, 1, 2, 3 } },
        { .n = 7, .nh = 7, .nsub = 3, .host_subnet = { 0, 0, 0, 1, 1, 2, 2 },
          .degree = { 1, 2, 1 }, .member_host = { 0, 1, 2, 3, 4, 5, 6 } },
        { .n = 9, .nh = 6, .nsub = 3, .host_subnet = { 0, 0, 1, 1, 2, 2 },
          .degree = { 2, 1, 2 }, .member_host = { 0, 1, 2, 3, 4, 5, 1, 3, 5 } },
        /* runs of 12 blocks: more than two epochs of 5 */
        { .n = 36, .nh = 12, .nsub = 3, .host_subnet = { 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2 },
          .degree = { 2, 1, 3 },
          .member_host = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
                           10, 11, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 } },
    };
    /* blocks, units, and the lags of the first call's units and of the
     * second's (blocks 4 bytes short of twice as long) with three groups
     * (with two, xlag is lag) */
    static const struct { size_t bytes, segment, lag[2], xlag[2]; } units[] = {
        { 32768, 0, { 1, 1 }, { 15, 8 } },         /* epochs of 16 and 9 units */
        { 65536, 0, { 1, 1 }, { 7, 4 } },          /* of 8 and 5 */
        { 524288, 0, { 0, 0 }, { 0, 0 } },         /* of 1 */
        { 524288, 262144, { 0, 0 }, { 1, 1 } },    /* of 2 */
        { 524288, 65536, { 1, 1 }, { 7, 7 } },     /* of 8 */
    };

    for (size_t u = 0; u < sizeof units / sizeof units[0]; u++)
        for (size_t k = 0; k < sizeof cfgs / sizeof cfgs[0]; k++) {
            const config *c = &cfgs[k];
            member *ms;
            if (c->n > 9 && units[u].bytes > 65536)
                continue;   /* 36 members of 1 MB blocks: 2.6 GB */
            if (c->nsub == 1 && units[u].segment)
                continue;   /* one group: hier's plan has no segment */
            hier_bytes = units[u].bytes;
            hier_segment = units[u].segment;
            memset(hier_plans, 0, sizeof hier_plans);
            ms = run_members(c, ECOT_QUICK, hier_body, NULL);
            for (int r = 0; r < c->n; r++) {
                CU_ASSERT_EQUAL(ms[r].rc, ECO_OK);
                CU_ASSERT(ms[r].rep.checks > 0);
                CU_ASSERT_EQUAL(ms[r].rep.failures, 0);
                if (ms[r].rc != ECO_OK || ms[r].rep.failures)
                    fprintf(stderr, "\n  hier, %zu bytes in %zu: n=%d nsub=%d rank %d: %s, %s\n",
                            units[u].bytes, units[u].segment, c->n, c->nsub, r,
                            eco_strerror(ms[r].rc), ms[r].rep.first);
                /* every member ran the same plan: hier, the lags above */
                for (int i = 0; i < 2; i++) {
                    const ecoi_plan *p = &hier_plans[r][i];
                    CU_ASSERT_EQUAL(p->run, ECOI_RUN_HIER);
                    CU_ASSERT_EQUAL(p->groups, c->nsub);
                    CU_ASSERT_EQUAL(p->segment, units[u].segment);
                    CU_ASSERT_EQUAL(p->lag, units[u].lag[i]);
                    CU_ASSERT_EQUAL(p->xlag, c->nsub > 2 ? units[u].xlag[i] : units[u].lag[i]);
                }
            }
            free(ms);
        }
}

/* The battery with `forced` for every member count from 1 to nmax,
 * members in scattered subnets and hosts, so that eco_ring's order,
 * which pairs them (rdouble) or makes the ring (ring), is not rank
 * order. */
static void forced_sizes(const char *forced, int nmax)
{
    setenv("ECO_ALGORITHM", forced, 1);
    for (int n = 1; n <= nmax; n++) {   /* no rnd(): other tests' draws stay */
        config c = { .n = n, .nsub = 1 + n % 4 };
        c.nh = c.nsub + n / 2;
        for (int h = 0; h < c.nh; h++)
            c.host_subnet[h] = h < c.nsub ? h : (h * 5) % c.nsub;
        for (int s = 0; s < c.nsub; s++)
            c.degree[s] = 1 + s % 3;
        for (int m = 0; m < n; m++)
            c.member_host[m] = (m * 7 + 3) % c.nh;
        run_battery(&c, ECOT_QUICK);
    }
    unsetenv("ECO_ALGORITHM");
}

/* Recursive doubling: powers of two and the folds of the others. */
static void test_rdouble_sizes(void)
{
    forced_sizes("allreduce=rdouble,scan=rdouble", 17);
}

/* Reduce-to-all around the ring: 1 to 18 members, so that the battery's
 * counts 1 and 7 leave blocks empty (count < n), and the 2 (n - 1) steps
 * are made in more than one piece (ring_reduce.c: 32 at a time). */
static void test_ring_sizes(void)
{
    forced_sizes("allreduce=ring", 18);
}

/* ------------------------------------------------------------------ */
/* Bad arguments: an error code, and nothing sent.                     */
/* ------------------------------------------------------------------ */
static void test_bad_arguments(void)
{
    config c = { .n = 3, .nh = 3, .nsub = 1, .degree = { 2 }, .member_host = { 0, 1, 2 } };
    ecoi_local_world *w = ecoi_local_world_new(3, 5.0);
    eco_ctx *ctx = NULL;
    int buf[64] = { 0 }, order[3];

    CU_ASSERT_FATAL(w != NULL);
    CU_ASSERT_FATAL(ecoi_ctx_create(3, 1, make_map(&c), c.member_host,
                                    ecoi_local_transport(w, 1), &ctx) == ECO_OK);
    CU_ASSERT_EQUAL(eco_bcast(NULL, buf, 1, PVM_INT, 0), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_bcast(ctx, NULL, 5, PVM_INT, 0), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_bcast(ctx, buf, -1, PVM_INT, 0), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_bcast(ctx, buf, 1, PVM_INT, 3), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_bcast(ctx, buf, 1, PVM_INT, -2), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_bcast(ctx, buf, 1, PVM_INT, ECO_ALL), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_bcast(ctx, buf, 1, 99, 0), ECO_ERR_DATATYPE);
    CU_ASSERT_EQUAL(eco_bcast(ctx, buf, 1, PVM_STR, 0), ECO_ERR_DATATYPE);
    CU_ASSERT_EQUAL(eco_scatter(ctx, buf, NULL, 1, PVM_INT, 0), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_scatter(ctx, NULL, buf, 1, PVM_INT, 1), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_scatter(ctx, buf, buf, 1, PVM_INT, ECO_ALL), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_gather(ctx, NULL, buf, 1, PVM_INT, 0), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_gather(ctx, buf, NULL, 1, PVM_INT, ECO_ALL), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_gather(ctx, buf, NULL, 1, PVM_INT, 1), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_gather(ctx, buf, buf, 1, PVM_INT, 7), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_reduce(ctx, buf, buf, 1, PVM_INT, NULL, 0), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_reduce(ctx, buf, buf, 1, PVM_CPLX, ECO_MAX, 0), ECO_ERR_DATATYPE);
    CU_ASSERT_EQUAL(eco_reduce(ctx, buf, buf, 1, 42, ECO_SUM, 0), ECO_ERR_DATATYPE);
    CU_ASSERT_EQUAL(eco_reduce(ctx, buf, NULL, 1, PVM_INT, ECO_SUM, ECO_ALL), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_reduce(ctx, NULL, buf, 1, PVM_INT, ECO_SUM, 0), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_reduce(ctx, buf, buf, -3, PVM_INT, ECO_SUM, 0), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_scan(ctx, buf, buf, 1, PVM_INT, NULL), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_scan(ctx, buf, NULL, 1, PVM_INT, ECO_SUM), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_scan(ctx, buf, buf, 1, PVM_DCPLX, ECO_MIN), ECO_ERR_DATATYPE);
    CU_ASSERT_EQUAL(eco_alltoall(ctx, NULL, buf, 1, PVM_INT), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_alltoall(ctx, buf, NULL, 1, PVM_INT), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_alltoall(ctx, buf, buf, 1, 0), ECO_ERR_DATATYPE);
    /* ECO_IN_PLACE where it means nothing, and overlapping buffers (this
     * member is rank 1 of 3). */
    CU_ASSERT_EQUAL(eco_bcast(ctx, ECO_IN_PLACE, 1, PVM_INT, 0), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_reduce(ctx, ECO_IN_PLACE, buf, 1, PVM_INT, ECO_SUM, 0), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_reduce(ctx, buf, ECO_IN_PLACE, 1, PVM_INT, ECO_SUM, 1), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_reduce(ctx, buf, buf + 3, 4, PVM_INT, ECO_SUM, ECO_ALL), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_reduce(ctx, buf + 3, buf, 4, PVM_INT, ECO_SUM, 1), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_gather(ctx, ECO_IN_PLACE, buf, 1, PVM_INT, 0), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_gather(ctx, buf, ECO_IN_PLACE, 1, PVM_INT, ECO_ALL), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_gather(ctx, buf + 2, buf, 1, PVM_INT, 1), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_gather(ctx, buf, buf + 2, 3, PVM_INT, ECO_ALL), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_scatter(ctx, buf, ECO_IN_PLACE, 1, PVM_INT, 0), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_scatter(ctx, ECO_IN_PLACE, buf, 1, PVM_INT, 1), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_scatter(ctx, buf, buf + 2, 1, PVM_INT, 1), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_scan(ctx, buf, buf + 1, 2, PVM_INT, ECO_SUM), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_scan(ctx, buf, ECO_IN_PLACE, 1, PVM_INT, ECO_SUM), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_alltoall(ctx, buf + 5, buf, 2, PVM_INT), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_alltoall(ctx, buf, ECO_IN_PLACE, 1, PVM_INT), ECO_ERR_ARG);
    /* The vector forms: counts, displacements, buffers. */
    {
        int cnt[3] = { 1, 1, 1 }, dsp[3] = { 0, 1, 2 }, ovl[3] = { 0, 1, 1 };
        int neg[3] = { 1, -1, 1 }, cnt2[3] = { 1, 2, 1 }, dsp2[3] = { 0, 1, 3 };
        int *r = buf + 8;
        CU_ASSERT_EQUAL(eco_gatherv(NULL, buf, 1, r, cnt, dsp, PVM_INT, 0), ECO_ERR_ARG);
        CU_ASSERT_EQUAL(eco_gatherv(ctx, buf, -1, r, cnt, dsp, PVM_INT, 0), ECO_ERR_ARG);
        CU_ASSERT_EQUAL(eco_gatherv(ctx, NULL, 1, r, cnt, dsp, PVM_INT, 0), ECO_ERR_ARG);
        CU_ASSERT_EQUAL(eco_gatherv(ctx, buf, 1, r, cnt, dsp, 99, 0), ECO_ERR_DATATYPE);
        CU_ASSERT_EQUAL(eco_gatherv(ctx, buf, 1, r, cnt, dsp, PVM_INT, 3), ECO_ERR_ARG);
        CU_ASSERT_EQUAL(eco_gatherv(ctx, buf, 1, r, NULL, dsp, PVM_INT, 1), ECO_ERR_ARG);
        CU_ASSERT_EQUAL(eco_gatherv(ctx, buf, 1, r, cnt, NULL, PVM_INT, ECO_ALL), ECO_ERR_ARG);
        CU_ASSERT_EQUAL(eco_gatherv(ctx, buf, 1, r, neg, dsp, PVM_INT, 1), ECO_ERR_ARG);
        CU_ASSERT_EQUAL(eco_gatherv(ctx, buf, 1, r, cnt, ovl, PVM_INT, 1), ECO_ERR_ARG);
        CU_ASSERT_EQUAL(eco_gatherv(ctx, buf, 2, r, cnt, dsp, PVM_INT, 1), ECO_ERR_ARG);
        CU_ASSERT_EQUAL(eco_gatherv(ctx, buf + 9, 1, r, cnt, dsp, PVM_INT, 1), ECO_ERR_ARG);
        CU_ASSERT_EQUAL(eco_gatherv(ctx, buf, 1, NULL, cnt, dsp, PVM_INT, ECO_ALL), ECO_ERR_ARG);
        CU_ASSERT_EQUAL(eco_gatherv(ctx, ECO_IN_PLACE, 1, r, cnt, dsp, PVM_INT, 0), ECO_ERR_ARG);
        CU_ASSERT_EQUAL(eco_gatherv(ctx, buf, 1, ECO_IN_PLACE, cnt, dsp, PVM_INT, ECO_ALL),
                        ECO_ERR_ARG);
        CU_ASSERT_EQUAL(eco_scatterv(ctx, buf, cnt, dsp, r, 1, PVM_INT, ECO_ALL), ECO_ERR_ARG);
        CU_ASSERT_EQUAL(eco_scatterv(ctx, buf, cnt, dsp, NULL, 1, PVM_INT, 0), ECO_ERR_ARG);
        CU_ASSERT_EQUAL(eco_scatterv(ctx, buf, cnt, dsp, r, -1, PVM_INT, 0), ECO_ERR_ARG);
        CU_ASSERT_EQUAL(eco_scatterv(ctx, buf, cnt, dsp, r, 1, PVM_STR, 0), ECO_ERR_DATATYPE);
        CU_ASSERT_EQUAL(eco_scatterv(ctx, NULL, cnt, dsp, r, 1, PVM_INT, 1), ECO_ERR_ARG);
        CU_ASSERT_EQUAL(eco_scatterv(ctx, buf, NULL, dsp, r, 1, PVM_INT, 1), ECO_ERR_ARG);
        CU_ASSERT_EQUAL(eco_scatterv(ctx, buf, cnt, ovl, r, 1, PVM_INT, 1), ECO_ERR_ARG);
        CU_ASSERT_EQUAL(eco_scatterv(ctx, buf, cnt, dsp, r, 2, PVM_INT, 1), ECO_ERR_ARG);
        CU_ASSERT_EQUAL(eco_scatterv(ctx, buf, cnt, dsp, buf + 2, 1, PVM_INT, 1), ECO_ERR_ARG);
        CU_ASSERT_EQUAL(eco_scatterv(ctx, buf, cnt, dsp, ECO_IN_PLACE, 1, PVM_INT, 0),
                        ECO_ERR_ARG);
        CU_ASSERT_EQUAL(eco_scatterv(ctx, ECO_IN_PLACE, cnt, dsp, r, 1, PVM_INT, 1),
                        ECO_ERR_ARG);
        CU_ASSERT_EQUAL(eco_alltoallv(NULL, buf, cnt, dsp, r, cnt, dsp, PVM_INT), ECO_ERR_ARG);
        CU_ASSERT_EQUAL(eco_alltoallv(ctx, buf, cnt, dsp, r, cnt, dsp, 0), ECO_ERR_DATATYPE);
        CU_ASSERT_EQUAL(eco_alltoallv(ctx, buf, NULL, dsp, r, cnt, dsp, PVM_INT), ECO_ERR_ARG);
        CU_ASSERT_EQUAL(eco_alltoallv(ctx, buf, cnt, dsp, r, neg, dsp, PVM_INT), ECO_ERR_ARG);
        CU_ASSERT_EQUAL(eco_alltoallv(ctx, buf, cnt, dsp, r, cnt, ovl, PVM_INT), ECO_ERR_ARG);
        CU_ASSERT_EQUAL(eco_alltoallv(ctx, buf, cnt, dsp, buf + 1, cnt, dsp, PVM_INT),
                        ECO_ERR_ARG);
        CU_ASSERT_EQUAL(eco_alltoallv(ctx, buf, cnt, dsp, ECO_IN_PLACE, cnt, dsp, PVM_INT),
                        ECO_ERR_ARG);
        CU_ASSERT_EQUAL(eco_alltoallv(ctx, NULL, cnt, dsp, r, cnt, dsp, PVM_INT), ECO_ERR_ARG);
        CU_ASSERT_EQUAL(eco_alltoallv(ctx, buf, cnt2, dsp2, r, cnt, dsp, PVM_INT), ECO_ERR_ARG);
        CU_ASSERT_EQUAL(eco_reduce_scatter(NULL, buf, r, cnt, PVM_INT, ECO_SUM), ECO_ERR_ARG);
        CU_ASSERT_EQUAL(eco_reduce_scatter(ctx, buf, r, NULL, PVM_INT, ECO_SUM), ECO_ERR_ARG);
        CU_ASSERT_EQUAL(eco_reduce_scatter(ctx, buf, r, cnt, PVM_INT, NULL), ECO_ERR_ARG);
        CU_ASSERT_EQUAL(eco_reduce_scatter(ctx, buf, r, neg, PVM_INT, ECO_SUM), ECO_ERR_ARG);
        CU_ASSERT_EQUAL(eco_reduce_scatter(ctx, buf, r, cnt, PVM_DCPLX, ECO_MAX),
                        ECO_ERR_DATATYPE);
        CU_ASSERT_EQUAL(eco_reduce_scatter(ctx, buf, NULL, cnt, PVM_INT, ECO_SUM), ECO_ERR_ARG);
        CU_ASSERT_EQUAL(eco_reduce_scatter(ctx, NULL, r, cnt, PVM_INT, ECO_SUM), ECO_ERR_ARG);
        CU_ASSERT_EQUAL(eco_reduce_scatter(ctx, buf, buf + 2, cnt, PVM_INT, ECO_SUM),
                        ECO_ERR_ARG);
        CU_ASSERT_EQUAL(eco_reduce_scatter(ctx, buf, ECO_IN_PLACE, cnt, PVM_INT, ECO_SUM),
                        ECO_ERR_ARG);
        CU_ASSERT_EQUAL(eco_exscan(NULL, buf, r, 1, PVM_INT, ECO_SUM), ECO_ERR_ARG);
        CU_ASSERT_EQUAL(eco_exscan(ctx, buf, r, -1, PVM_INT, ECO_SUM), ECO_ERR_ARG);
        CU_ASSERT_EQUAL(eco_exscan(ctx, buf, r, 1, PVM_INT, NULL), ECO_ERR_ARG);
        CU_ASSERT_EQUAL(eco_exscan(ctx, buf, NULL, 1, PVM_INT, ECO_SUM), ECO_ERR_ARG);
        CU_ASSERT_EQUAL(eco_exscan(ctx, NULL, r, 1, PVM_INT, ECO_SUM), ECO_ERR_ARG);
        CU_ASSERT_EQUAL(eco_exscan(ctx, buf, buf + 1, 2, PVM_INT, ECO_SUM), ECO_ERR_ARG);
        CU_ASSERT_EQUAL(eco_exscan(ctx, buf, ECO_IN_PLACE, 1, PVM_INT, ECO_SUM), ECO_ERR_ARG);
        CU_ASSERT_EQUAL(eco_exscan(ctx, buf, r, 1, PVM_DCPLX, ECO_MIN), ECO_ERR_DATATYPE);
    }
    CU_ASSERT_EQUAL(eco_barrier(NULL), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_ring(ctx, NULL), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_ring(NULL, order), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_rank(NULL), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_size(NULL), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_finalize(NULL), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_set_pattern(ctx, "spiral"), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_set_pattern(ctx, NULL), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_set_pattern(NULL, "eco"), ECO_ERR_ARG);
    /* Count 0 is a call like any other (members that disagree about it
     * must meet): see test_disagreement. */
    CU_ASSERT_EQUAL(ecoi_local_world_posted(w), 0);
    eco_finalize(ctx);
    ecoi_local_world_free(w);
}

/* ------------------------------------------------------------------ */
/* A member dies mid-collective: the others fail, they do not hang.    */
/* ------------------------------------------------------------------ */
static int victim_body(eco_ctx *ctx, member *me)
{
    double x = me->rank, y = 0;

    if (me->rank == 3) {
        ecoi_local_kill(me->w, 3);
        return ECO_OK;
    }
    /* Reduce-to-all needs every member: all survivors must fail. */
    me->rep.checks = eco_reduce(ctx, &x, &y, 1, PVM_DOUBLE, ECO_SUM, ECO_ALL);
    /* The context is broken for good: the next call fails too. */
    me->rep.failures = eco_barrier(ctx);
    return ECO_OK;
}

/* Broadcasts from rank 0 after member 3 died, then a barrier.  Whoever
 * must send to member 3 or waits on it fails; a member that only sends to
 * live members (the root) may return 0, since an exit alone is no error
 * (member 3 might have finished all its collectives before leaving); the
 * barrier needs everybody and fails everywhere. */
static pthread_barrier_t died;   /* member 3 is dead before anyone starts */

static int sender_body(eco_ctx *ctx, member *me)
{
    int x = 5;

    if (me->rank == 3)
        ecoi_local_kill(me->w, 3);
    pthread_barrier_wait(&died);
    if (me->rank == 3)
        return ECO_OK;
    me->rep.checks = eco_bcast(ctx, &x, 1, PVM_INT, 0);
    me->rep.failures = eco_barrier(ctx);
    return ECO_OK;
}

/* Nonblocking calls on two contexts at once, waited in opposite orders
 * by even and odd ranks: a member waiting on one context must advance the
 * other, which its peers may be waiting on. */
static ecoi_local_world *second_world;

static int two_contexts_body(eco_ctx *a, member *me)
{
    const int n = me->cfg->n, count = 3000;
    eco_ctx *b = NULL;
    eco_request *ra = NULL, *rb = NULL;
    int *x = malloc(count * sizeof *x), *sum = malloc(count * sizeof *sum);
    int *y = malloc(count * sizeof *y), rc, rc1, rc2, ok = 1;

    rc = ecoi_ctx_create(n, me->rank, make_map(me->cfg), me->cfg->member_host,
                         ecoi_local_transport(second_world, me->rank), &b);
    if (rc != ECO_OK || !x || !sum || !y)
        return rc != ECO_OK ? rc : ECO_ERR_NOMEM;
    for (int round = 0; round < 6 && ok; round++) {
        int root = round % n;
        for (int i = 0; i < count; i++) {
            x[i] = me->rank + i + round;
            y[i] = me->rank == root ? i * 7 + round : -1;
        }
        rc1 = eco_ireduce(a, x, sum, count, PVM_INT, ECO_SUM, ECO_ALL, &ra);
        rc2 = eco_ibcast(b, y, count, PVM_INT, root, &rb);
        if (me->rank % 2) {
            rc2 = rc2 ? rc2 : eco_wait(&rb);
            rc1 = rc1 ? rc1 : eco_wait(&ra);
        } else {
            rc1 = rc1 ? rc1 : eco_wait(&ra);
            rc2 = rc2 ? rc2 : eco_wait(&rb);
        }
        for (int i = 0; i < count && rc1 == ECO_OK && rc2 == ECO_OK; i++)
            ok &= sum[i] == n * (n - 1) / 2 + n * (i + round) && y[i] == i * 7 + round;
        ok &= rc1 == ECO_OK && rc2 == ECO_OK;
    }
    ecot_check(&me->rep, ok, "two contexts: rank %d", me->rank);
    eco_finalize(b);
    free(x);
    free(sum);
    free(y);
    return ECO_OK;
}

static void test_two_contexts(void)
{
    config c = { .n = 6, .nh = 6, .nsub = 3,
                 .host_subnet = { 0, 0, 1, 1, 2, 2 }, .degree = { 2, 2, 2 },
                 .member_host = { 0, 1, 2, 3, 4, 5 } };
    member *ms;

    second_world = ecoi_local_world_new(c.n, world_timeout);
    CU_ASSERT_FATAL(second_world != NULL);
    ms = run_members(&c, ECOT_QUICK, two_contexts_body, NULL);
    for (int r = 0; r < c.n; r++) {
        CU_ASSERT_EQUAL(ms[r].rc, ECO_OK);
        CU_ASSERT_EQUAL(ms[r].rep.failures, 0);
        CU_ASSERT(ms[r].rep.checks > 0);
    }
    free(ms);
    ecoi_local_world_free(second_world);
    second_world = NULL;
}

static void test_member_dies(void)
{
    config c;
    ecoi_local_world *w = NULL;
    member *ms;

    random_config(&c, 8, 3, 5);
    ms = run_members(&c, ECOT_QUICK, victim_body, &w);
    for (int r = 0; r < c.n; r++) {
        if (r == 3)
            continue;
        CU_ASSERT_EQUAL(ms[r].rep.checks, ECO_ERR_PEER);   /* the reduce */
        if (ms[r].rep.checks != ECO_ERR_PEER)
            fprintf(stderr, "\n  rank %d: reduce returned %d\n", r, ms[r].rep.checks);
        CU_ASSERT_EQUAL(ms[r].rep.failures, ECO_ERR_PEER); /* the barrier */
    }
    free(ms);
    ecoi_local_world_free(w);
    w = NULL;
    pthread_barrier_init(&died, NULL, (unsigned)c.n);
    ms = run_members(&c, ECOT_QUICK, sender_body, &w);
    pthread_barrier_destroy(&died);
    /* The broadcast's tree: one int, from rank 0. */
    eco_map *m = make_map(&c);
    eco_tree *t = NULL;
    CU_ASSERT_FATAL(chosen_tree(m, &c, ECOI_C_BCAST, 0, sizeof(int), &t) == ECO_OK);
    for (int r = 0; r < c.n; r++) {
        int below = 0;                /* member 3 is r's ancestor */
        if (r == 3)
            continue;
        for (int a = t->parent[r]; a >= 0; a = t->parent[a])
            below |= a == 3;
        if (below || t->parent[3] == r)
            CU_ASSERT_EQUAL(ms[r].rep.checks, ECO_ERR_PEER);
        CU_ASSERT_EQUAL(ms[r].rep.failures, ECO_ERR_PEER);
    }
    eco_tree_free(&t);
    eco_map_free(m);
    free(ms);
    ecoi_local_world_free(w);
}

/* ------------------------------------------------------------------ */
/* Members that disagree fail, all of them, promptly.                  */
/* ------------------------------------------------------------------ */
static int mismatch_case;

static int mismatch_body(eco_ctx *ctx, member *me)
{
    ecot_mismatch_run(ctx, mismatch_case, &me->rep.checks, &me->rep.failures);
    return ECO_OK;
}

static void test_disagreement(void)
{
    config c;
    char name[200];

    random_config(&c, 7, 3, 5);
    world_timeout = 30.0;   /* a member that waits it out fails the test */
    for (int k = 0; k < ecot_mismatch_cases(); k++) {
        struct timespec t0, t1;
        member *ms;
        if (!ecot_mismatch_name(k, name, sizeof name))
            continue;
        mismatch_case = k;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        ms = run_members(&c, ECOT_QUICK, mismatch_body, NULL);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        for (int r = 0; r < c.n; r++) {
            int first = ms[r].rep.checks, second = ms[r].rep.failures;
            int ok = (first != ECO_OK || second != ECO_OK) &&
                     first != ECO_ERR_TIMEOUT && second != ECO_ERR_TIMEOUT;
            CU_ASSERT(ok);
            if (!ok)
                fprintf(stderr, "\n  %s: rank %d returned %d, then %d\n", name, r,
                        first, second);
        }
        /* no member waited out its timeout (no ECO_ERR_TIMEOUT above):
         * the time itself is the machine's, not asserted */
        double took = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
        if (took >= 5.0)
            fprintf(stderr, "\n  %s: %.1f s (a busy machine?)\n", name, took);
        free(ms);
    }
    world_timeout = 60.0;
}

/* ------------------------------------------------------------------ */
/* The in-process transport's rules on planted orders: one thread plays */
/* every member step by step, so each interleaving is exact.            */
/* ------------------------------------------------------------------ */

static const ecoi_sig sig_sum = { ECOI_KIND_REDUCE, 1, 3000, PVM_INT, 1 };
static const ecoi_sig sig_sum1 = { ECOI_KIND_REDUCE, 1, 3001, PVM_INT, 1 };  /* count+1 */
static const ecoi_sig sig_barrier = { ECOI_KIND_BARRIER, 0, 0, PVM_BYTE, 0 };

static int tag_of_call(int call)
{
    return ECOI_TAG_BASE | ((call * ECOI_CALL_TAGS) & ECOI_TAG_MASK);
}

/* A world of n members whose receives wait 2 s at most. */
static ecoi_local_world *planted_world(int n, ecoi_transport **t)
{
    ecoi_local_world *w = ecoi_local_world_new(n, 2.0);

    CU_ASSERT_FATAL(w != NULL);
    for (int r = 0; r < n; r++)
        CU_ASSERT_FATAL((t[r] = ecoi_local_transport(w, r)) != NULL);
    return w;
}

static void planted_free(ecoi_local_world *w, ecoi_transport **t, int n)
{
    for (int r = 0; r < n; r++)
        t[r]->destroy(t[r]);
    ecoi_local_world_free(w);
}

/* Member t starts its call number `call` (as ecoi_begin and a request's
 * turn do), and ends it having done its part (the status of its end:
 * the transport's finish). */
static int planted_begin(ecoi_transport *t, int call, const ecoi_sig *sig)
{
    t->sig = *sig;
    t->call_tag = tag_of_call(call);
    t->active = 1;
    t->enter(t);
    return t->poll(t);
}

static int planted_end(ecoi_transport *t)
{
    int rc = t->finish ? t->finish(t) : ECO_OK;

    t->active = 0;
    t->leave(t);
    return rc;
}

/* The CI hang of "reduce of 3000 ints, count+1 at the last rank": the
 * member with 3001 ints chose another tree (a whole message to the
 * root, where the others' tree has it send its parent, member 0, three
 * segments), left the reduce, and sent member 0 its barrier message.
 * Member 0 then waited for a message that never comes: the rule looked
 * at the latest tag sent to it, the barrier's, and took it for one at or
 * past the reduce's. */
static void test_planted_left_call(void)
{
    ecoi_transport *t[2];
    ecoi_local_world *w;
    int x = 7;

    /* member 1 leaves the call without sending member 0 anything, then
     * sends it a later call's message */
    w = planted_world(2, t);
    CU_ASSERT_EQUAL(planted_begin(t[0], 0, &sig_sum), ECO_OK);
    CU_ASSERT_EQUAL(planted_begin(t[1], 0, &sig_sum1), ECO_OK);
    planted_end(t[1]);
    CU_ASSERT_EQUAL(planted_begin(t[1], 1, &sig_barrier), ECO_OK);
    CU_ASSERT_EQUAL(t[1]->send(t[1], 0, tag_of_call(1), NULL, 0, PVM_BYTE), ECO_OK);
    CU_ASSERT_EQUAL(t[0]->try_recv(t[0], 1, tag_of_call(0), &x, 1, PVM_INT, NULL, 0),
                    ECO_ERR_MISMATCH);
    CU_ASSERT_EQUAL(t[0]->recv(t[0], 1, tag_of_call(0), &x, 1, PVM_INT, NULL, 0),
                    ECO_ERR_MISMATCH);
    planted_free(w, t, 2);

    /* fewer segments of the tag than the receiver expects, under one
     * signature (what the signature does not carry, a pair's count):
     * the sender out of the call, then past it */
    w = planted_world(2, t);
    CU_ASSERT_EQUAL(planted_begin(t[0], 0, &sig_sum), ECO_OK);
    CU_ASSERT_EQUAL(planted_begin(t[1], 0, &sig_sum), ECO_OK);
    CU_ASSERT_EQUAL(t[1]->send(t[1], 0, tag_of_call(0), &x, 1, PVM_INT), ECO_OK);
    planted_end(t[1]);
    CU_ASSERT_EQUAL(t[0]->recv(t[0], 1, tag_of_call(0), &x, 1, PVM_INT, NULL, 0), ECO_OK);
    CU_ASSERT_EQUAL(t[0]->recv(t[0], 1, tag_of_call(0), &x, 1, PVM_INT, NULL, 0),
                    ECO_ERR_MISMATCH);
    CU_ASSERT_EQUAL(planted_begin(t[1], 1, &sig_barrier), ECO_OK);
    CU_ASSERT_EQUAL(t[1]->send(t[1], 0, tag_of_call(1), NULL, 0, PVM_BYTE), ECO_OK);
    CU_ASSERT_EQUAL(t[0]->recv(t[0], 1, tag_of_call(0), &x, 1, PVM_INT, NULL, 0),
                    ECO_ERR_MISMATCH);
    planted_free(w, t, 2);

    /* in agreement: what the sender sent before it left is read, its
     * later call's message behind it waits; a sender still in the call
     * (or not yet in it) is waited for */
    w = planted_world(2, t);
    CU_ASSERT_EQUAL(planted_begin(t[0], 0, &sig_sum), ECO_OK);
    CU_ASSERT_EQUAL(t[0]->try_recv(t[0], 1, tag_of_call(0), &x, 1, PVM_INT, NULL, 0),
                    ECOI_AGAIN);
    CU_ASSERT_EQUAL(planted_begin(t[1], 0, &sig_sum), ECO_OK);
    CU_ASSERT_EQUAL(t[0]->try_recv(t[0], 1, tag_of_call(0), &x, 1, PVM_INT, NULL, 0),
                    ECOI_AGAIN);
    CU_ASSERT_EQUAL(t[1]->send(t[1], 0, tag_of_call(0), &x, 1, PVM_INT), ECO_OK);
    CU_ASSERT_EQUAL(t[1]->send(t[1], 0, tag_of_call(0) + 1, &x, 1, PVM_INT), ECO_OK);
    CU_ASSERT_EQUAL(planted_end(t[1]), ECO_OK);
    CU_ASSERT_EQUAL(planted_begin(t[1], 1, &sig_barrier), ECO_OK);
    CU_ASSERT_EQUAL(t[1]->send(t[1], 0, tag_of_call(1), NULL, 0, PVM_BYTE), ECO_OK);
    CU_ASSERT_EQUAL(t[0]->recv(t[0], 1, tag_of_call(0) + 1, &x, 1, PVM_INT, NULL, 0),
                    ECO_OK);
    CU_ASSERT_EQUAL(t[0]->recv(t[0], 1, tag_of_call(0), &x, 1, PVM_INT, NULL, 0), ECO_OK);
    CU_ASSERT_EQUAL(planted_end(t[0]), ECO_OK);
    CU_ASSERT_EQUAL(planted_begin(t[0], 1, &sig_barrier), ECO_OK);
    CU_ASSERT_EQUAL(t[0]->recv(t[0], 1, tag_of_call(1), NULL, 0, PVM_BYTE, NULL, 0), ECO_OK);
    CU_ASSERT_EQUAL(planted_end(t[0]), ECO_OK);
    CU_ASSERT_EQUAL(planted_end(t[1]), ECO_OK);
    planted_free(w, t, 2);
}

/* "gather of 3000 ints, another root at rank 1", seen once in 40 loaded
 * runs (seed 2), in three members: member 1 (root 2 in its view) is a
 * leaf that sends member 2 its block; member 2, a leaf in the others'
 * view, has started the barrier before it comes; member 0 sends member 1
 * (the root in its view) its block after member 1 has started the
 * barrier.  Nobody waits on anything of the gather, and the barrier's
 * tags are others: every member returned 0 twice. */
static void test_planted_stale(void)
{
    const ecoi_sig root1 = { ECOI_KIND_GATHER, 1, 3000, PVM_INT, 0 };
    const ecoi_sig root2 = { ECOI_KIND_GATHER, 2, 3000, PVM_INT, 0 };
    ecoi_transport *t[3];
    ecoi_local_world *w;
    int x = 7;

    w = planted_world(3, t);
    CU_ASSERT_EQUAL(planted_begin(t[0], 0, &root1), ECO_OK);
    CU_ASSERT_EQUAL(planted_begin(t[2], 0, &root1), ECO_OK);
    CU_ASSERT_EQUAL(planted_end(t[2]), ECO_OK);
    CU_ASSERT_EQUAL(planted_begin(t[2], 1, &sig_barrier), ECO_OK);
    CU_ASSERT_EQUAL(planted_begin(t[1], 0, &root2), ECO_OK);
    CU_ASSERT_EQUAL(t[1]->send(t[1], 2, tag_of_call(0), &x, 1, PVM_INT), ECO_OK);
    CU_ASSERT_EQUAL(planted_end(t[1]), ECO_OK);
    /* member 2's mailbox holds a message of a call member 2 has left:
     * the next member to start a call sees it, in any mailbox */
    CU_ASSERT_EQUAL(planted_begin(t[1], 1, &sig_barrier), ECO_ERR_MISMATCH);
    CU_ASSERT_EQUAL(t[0]->send(t[0], 1, tag_of_call(0), &x, 1, PVM_INT), ECO_OK);
    CU_ASSERT_EQUAL(planted_end(t[0]), ECO_OK);
    CU_ASSERT_EQUAL(planted_begin(t[0], 1, &sig_barrier), ECO_ERR_MISMATCH);
    /* member 2 sees its own while it waits, and when its call ends */
    CU_ASSERT_EQUAL(t[2]->try_recv(t[2], 0, tag_of_call(1) + 1, NULL, 0, PVM_BYTE, NULL, 0),
                    ECO_ERR_MISMATCH);
    CU_ASSERT_EQUAL(planted_end(t[2]), ECO_ERR_MISMATCH);
    planted_free(w, t, 3);

    /* a message of its own call that a member did not read: at its end */
    w = planted_world(3, t);
    CU_ASSERT_EQUAL(planted_begin(t[0], 0, &root1), ECO_OK);
    CU_ASSERT_EQUAL(planted_begin(t[1], 0, &root2), ECO_OK);
    CU_ASSERT_EQUAL(t[0]->send(t[0], 1, tag_of_call(0), &x, 1, PVM_INT), ECO_OK);
    CU_ASSERT_EQUAL(planted_end(t[1]), ECO_ERR_MISMATCH);
    planted_free(w, t, 3);

    /* in agreement: a later call's message to a member still in the
     * call before (a peer ahead, as nonblocking calls let it be) is no
     * disagreement */
    w = planted_world(3, t);
    CU_ASSERT_EQUAL(planted_begin(t[1], 0, &root1), ECO_OK);
    CU_ASSERT_EQUAL(planted_begin(t[0], 0, &root1), ECO_OK);
    CU_ASSERT_EQUAL(t[0]->send(t[0], 1, tag_of_call(0), &x, 1, PVM_INT), ECO_OK);
    CU_ASSERT_EQUAL(planted_end(t[0]), ECO_OK);
    CU_ASSERT_EQUAL(planted_begin(t[0], 1, &sig_barrier), ECO_OK);
    CU_ASSERT_EQUAL(t[0]->send(t[0], 1, tag_of_call(1), NULL, 0, PVM_BYTE), ECO_OK);
    CU_ASSERT_EQUAL(planted_begin(t[2], 0, &root1), ECO_OK);
    CU_ASSERT_EQUAL(planted_end(t[2]), ECO_OK);
    CU_ASSERT_EQUAL(planted_begin(t[2], 1, &sig_barrier), ECO_OK);
    CU_ASSERT_EQUAL(t[1]->recv(t[1], 0, tag_of_call(0), &x, 1, PVM_INT, NULL, 0), ECO_OK);
    CU_ASSERT_EQUAL(planted_end(t[1]), ECO_OK);
    CU_ASSERT_EQUAL(planted_begin(t[1], 1, &sig_barrier), ECO_OK);
    CU_ASSERT_EQUAL(t[1]->recv(t[1], 0, tag_of_call(1), NULL, 0, PVM_BYTE, NULL, 0), ECO_OK);
    CU_ASSERT_EQUAL(planted_end(t[1]), ECO_OK);
    CU_ASSERT_EQUAL(t[0]->send(t[0], 2, tag_of_call(1), NULL, 0, PVM_BYTE), ECO_OK);
    CU_ASSERT_EQUAL(t[2]->recv(t[2], 0, tag_of_call(1), NULL, 0, PVM_BYTE, NULL, 0), ECO_OK);
    CU_ASSERT_EQUAL(planted_end(t[2]), ECO_OK);
    CU_ASSERT_EQUAL(planted_end(t[0]), ECO_OK);
    planted_free(w, t, 3);
}

/* ------------------------------------------------------------------ */
/* alltoallv's block checks, sorted, against every pair                */
/* ------------------------------------------------------------------ */

/* The O(n^2) reference: 1 when the layouts are fine. */
static int layouts_ok_slow(int n, const int *sc, const int *sd, const char *sb,
                           const int *rc, const int *rd, const char *rb, size_t size)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            if (i != j && ecoi_overlap(sb + sd[i] * size, sc[i] * size, sb + sd[j] * size,
                                       sc[j] * size))
                return 0;
            if (i != j && ecoi_overlap(rb + rd[i] * size, rc[i] * size, rb + rd[j] * size,
                                       rc[j] * size))
                return 0;
            if (ecoi_overlap(sb + sd[i] * size, sc[i] * size, rb + rd[j] * size,
                             rc[j] * size))
                return 0;
        }
    return 1;
}

static void test_two_layouts(void)
{
    enum { N = 9, CELLS = 64 };
    static char buf[CELLS * 8];
    int sc[N], sd[N], rc[N], rd[N], agree = 0, bad = 0;
    size_t st, rt;
    unsigned saved = rng_state;

    rng_state = 777;
    for (int trial = 0; trial < 20000; trial++) {
        size_t size = 1 + rnd(8);
        int n = 1 + (int)rnd(N), shift = (int)rnd(4);
        /* send and receive blocks in one buffer, the receive layout
         * shift elements on: sometimes apart, often not */
        for (int q = 0; q < n; q++) {
            sc[q] = (int)rnd(4);
            sd[q] = (int)rnd(CELLS / 2);
            rc[q] = (int)rnd(4);
            rd[q] = (int)rnd(CELLS / 2);
        }
        int want = layouts_ok_slow(n, sc, sd, buf, rc, rd, buf + shift * size, size);
        int got = ecoi_check_two_layouts(n, sc, sd, buf, &st, rc, rd, buf + shift * size, &rt,
                                         size);
        CU_ASSERT_EQUAL(got, want ? ECO_OK : ECO_ERR_ARG);
        agree += want;
        bad += !want;
    }
    CU_ASSERT(agree > 100 && bad > 100);      /* both outcomes exercised */
    /* 100,000 members: sorted, well under a second */
    {
        const int n = 100000;
        int *c = malloc(4 * (size_t)n * sizeof *c), *d = c + n, *c2 = d + n, *d2 = c2 + n;
        char *big = malloc(2 * (size_t)n);
        struct timespec t0, t1;
        CU_ASSERT_FATAL(c && big);
        for (int q = 0; q < n; q++) {
            c[q] = c2[q] = 1;
            d[q] = 2 * (n - 1 - q);   /* interleaved, in reverse */
            d2[q] = 2 * q + 1;
        }
        clock_gettime(CLOCK_MONOTONIC, &t0);
        CU_ASSERT_EQUAL(ecoi_check_two_layouts(n, c, d, big, &st, c2, d2, big, &rt, 1), ECO_OK);
        d2[n / 2] = 2 * 7;            /* one receive block on a send block */
        CU_ASSERT_EQUAL(ecoi_check_two_layouts(n, c, d, big, &st, c2, d2, big, &rt, 1),
                        ECO_ERR_ARG);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        CU_ASSERT((t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9 < 1.0);
        free(c);
        free(big);
    }
    rng_state = saved;
}

/* ------------------------------------------------------------------ */
/* A member out of memory before the call: the others fail too.        */
/* ------------------------------------------------------------------ */
static int nomem_op;   /* 0 alltoallv, 1 gatherv to all, 2 gatherv, 3 scatterv */

/* Rank 1's check of the blocks finds no memory; every member then makes
 * one more call (a barrier).  checks: the call's status; failures: the
 * barrier's. */
static int nomem_body(eco_ctx *ctx, member *me)
{
    const int n = eco_size(ctx), count = 3;
    int *a = calloc((size_t)(n * count), sizeof *a), *b = calloc((size_t)(n * count), sizeof *b);
    int *cnt = calloc(2 * (size_t)n, sizeof *cnt), *dsp = cnt + n, rc;

    for (int q = 0; q < n; q++) {
        cnt[q] = count;
        dsp[q] = q * count;
    }
    if (me->rank == 1) {
        ecoi_fail_block_alloc = 1;
        /* long enough inside the failed call for the others to look:
         * they must not take it for a disagreement */
        ecoi_fail_call_pause = 200000;
    }
    switch (nomem_op) {
    case 0: rc = eco_alltoallv(ctx, a, cnt, dsp, b, cnt, dsp, PVM_INT); break;
    case 1: rc = eco_gatherv(ctx, a, count, b, cnt, dsp, PVM_INT, ECO_ALL); break;
    case 2: rc = eco_gatherv(ctx, a, count, b, cnt, dsp, PVM_INT, 1); break;
    default: rc = eco_scatterv(ctx, a, cnt, dsp, b, count, PVM_INT, 1); break;
    }
    ecoi_fail_block_alloc = 0;
    ecoi_fail_call_pause = 0;
    me->rep.checks = rc;
    me->rep.failures = eco_barrier(ctx);
    free(a);
    free(b);
    free(cnt);
    return ECO_OK;
}

static void test_nomem_before_begin(void)
{
    static const char *const names[] = { "alltoallv", "gatherv to all", "gatherv",
                                         "scatterv" };
    config c;

    random_config(&c, 6, 2, 4);
    world_timeout = 30.0;   /* a member that waits it out fails the test */
    for (nomem_op = 0; nomem_op < 4; nomem_op++) {
        struct timespec t0, t1;
        member *ms;

        clock_gettime(CLOCK_MONOTONIC, &t0);
        ms = run_members(&c, ECOT_QUICK, nomem_body, NULL);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        for (int r = 0; r < c.n; r++) {
            int first = ms[r].rep.checks, second = ms[r].rep.failures;
            /* rank 1 fails in the call; the others in it or in the barrier,
             * with its error, not by waiting out the timeout */
            int ok = r == 1 ? first == ECO_ERR_NOMEM && second == ECO_ERR_NOMEM
                            : (first == ECO_ERR_NOMEM || second == ECO_ERR_NOMEM);
            CU_ASSERT(ok);
            if (!ok)
                fprintf(stderr, "\n  %s: rank %d returned %d, then %d\n", names[nomem_op],
                        r, first, second);
        }
        /* rank 1's error reached every member (no ECO_ERR_TIMEOUT): the
         * time itself is the machine's, not asserted */
        double took = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
        if (took >= 5.0)
            fprintf(stderr, "\n  %s: %.1f s (a busy machine?)\n", names[nomem_op], took);
        free(ms);
    }
    world_timeout = 60.0;
}

/* ------------------------------------------------------------------ */
/* The simulated transport (eco-sim's): the same battery, exact data     */
/* ------------------------------------------------------------------ */

typedef struct simrun {
    const config *cfg;
    ecoi_sim *sim;
    eco_ctx *share;    /* NULL: every member its own map and trees */
    member *ms;
} simrun;

static void sim_member(int rank, void *arg)
{
    simrun *S = arg;
    member *me = &S->ms[rank];
    ecoi_transport *tp = ecoi_sim_transport(S->sim, rank);
    eco_ctx *ctx = NULL;

    me->rc = S->share ? ecoi_ctx_create_shared(S->share, rank, tp, &ctx)
                      : ecoi_ctx_create(S->cfg->n, rank, make_map(S->cfg),
                                        S->cfg->member_host, tp, &ctx);
    if (me->rc == ECO_OK)
        ecot_battery(ctx, ECOT_QUICK, &me->rep);
    eco_finalize(ctx);
}

/* The battery over a flat simulated network, senders held as PVM's
 * (hold) or not; the members' final clocks into clock[] (deterministic:
 * the same on every run). */
static void sim_battery(const config *c, int shared, int hold, double *clock)
{
    ecoi_sim_costs costs;
    simrun S = { c, NULL, NULL, calloc((size_t)c->n, sizeof(member)) };

    ecoi_sim_costs_default(&costs);
    costs.socket_bytes = hold ? ECOI_SIM_SOCKET_BYTES : 0;
    S.sim = ecoi_sim_new(c->n, NULL, NULL, &costs, 1);
    CU_ASSERT_FATAL(S.ms && S.sim);
    if (shared)
        CU_ASSERT_FATAL(ecoi_ctx_create(c->n, 0, make_map(c), c->member_host,
                                        ecoi_sim_transport(S.sim, 0), &S.share) == ECO_OK);
    CU_ASSERT_FATAL(ecoi_sim_run(S.sim, sim_member, &S, 256 * 1024) == ECO_OK);
    for (int r = 0; r < c->n; r++) {
        CU_ASSERT_EQUAL(S.ms[r].rc, ECO_OK);
        CU_ASSERT(S.ms[r].rep.checks > 0);
        CU_ASSERT_EQUAL(S.ms[r].rep.failures, 0);
        if (S.ms[r].rep.failures)
            fprintf(stderr, "\n  simulated, n=%d rank %d: %d of %d checks failed, first: %s\n",
                    c->n, r, S.ms[r].rep.failures, S.ms[r].rep.checks, S.ms[r].rep.first);
        clock[r] = ecoi_sim_clock(S.sim, r);
        CU_ASSERT(clock[r] > 0);
    }
    CU_ASSERT(ecoi_sim_messages(S.sim) > 0);
    eco_finalize(S.share);
    ecoi_sim_free(S.sim);
    free(S.ms);
}

static void test_simulated(void)
{
    config fig1 = { .n = 6, .nh = 6, .nsub = 3,
                    .host_subnet = { 0, 0, 1, 1, 2, 2 }, .degree = { 2, 2, 2 },
                    .member_host = { 0, 1, 2, 3, 4, 5 } };
    config tasks = { .n = 13, .nh = 4, .nsub = 2, .host_subnet = { 0, 0, 1, 1 },
                     .degree = { 3, 1 },
                     .member_host = { 2, 0, 0, 1, 3, 3, 3, 0, 2, 1, 2, 3, 0 } };
    double a[64], b[64];

    for (int hold = 0; hold <= 1; hold++) {
        sim_battery(&fig1, 0, hold, a);
        sim_battery(&fig1, 1, hold, b);    /* shared contexts: the same run */
        for (int r = 0; r < fig1.n; r++)
            CU_ASSERT_DOUBLE_EQUAL(a[r], b[r], 0.0);
        sim_battery(&tasks, 1, hold, a);
        sim_battery(&tasks, 1, hold, b);
        for (int r = 0; r < tasks.n; r++)
            CU_ASSERT_DOUBLE_EQUAL(a[r], b[r], 0.0);
    }
}

static const eco_unit_test tests[] = {
    { "one member", test_one_member },
    { "paper figure 1, every op and root", test_paper_figure1 },
    { "tasks sharing hosts", test_tasks_share_hosts },
    { "twenty subnets", test_twenty_subnets },
    { "one subnet, 2..17 members", test_one_subnet },
    { "random shapes 2..20 members", test_random_shapes },
    { "every datatype and 1 MiB", test_full_depth },
    { "k-ary shapes over ranks", test_kary_shapes },
    { "chained subnets for long messages", test_chain_trees },
    { "every algorithm, forced by name", test_every_algorithm },
    { "flow control's epochs: the planner's count is the transports'", test_flow_epochs },
    { "gather-to-all by hier in units of 64 and 512 KB", test_hier_long_units },
    { "no member leaves a barrier before every member entered", test_barrier_holds },
    { "recursive doubling, 1 to 17 members", test_rdouble_sizes },
    { "reduce-to-all around the ring, 1 to 18 members", test_ring_sizes },
    { "selection on planted models", test_select_planted },
    { "a link's burst in the pipelines' predictions", test_select_burst },
    { "the busy cost in the predictions", test_select_busy },
    { "the busy cost at fewer members running", test_busy_at },
    { "the model's cores: a barrier's busy share", test_select_cores },
    { "selection with a lock-step step", test_select_step },
    { "selection with a forward cost: the shallower tree", test_select_forward },
    { "all-to-all's streams and the links' queues", test_select_incast },
    { "sites by costs and routers", test_sites_routers },
    { "a reduce's streams that meet on a link", test_select_converge },
    { "a gather's runs that meet on a link: paced", test_select_paced },
    { "the members' map carries the file's hops (no burst across routers)", test_select_burst_far },
    { "all-to-all's leaders at once or in rounds", test_select_rounds },
    { "the least over within 5%", test_choose_over },
    { "segments of one PVM fragment", test_select_fragment },
    { "forcing algorithms by name", test_select_forced },
    { "star, binary, kary3, chain patterns", test_patterns },
    { "bad arguments send nothing", test_bad_arguments },
    { "nonblocking calls on two contexts, waited in opposite orders", test_two_contexts },
    { "a member dies mid-collective", test_member_dies },
    { "members that disagree all fail", test_disagreement },
    { "planted: the member waited on left the call", test_planted_left_call },
    { "planted: a message nobody reads", test_planted_stale },
    { "a member out of memory before the call: all fail", test_nomem_before_begin },
    { "alltoallv's block checks, sorted, against every pair", test_two_layouts },
    { "the simulated transport: exact data, deterministic", test_simulated },
    { NULL, NULL },
};

const eco_suite eco_suite_coll_local = { "collectives_local", NULL, NULL, tests };
