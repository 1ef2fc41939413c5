/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_subnet_file.c -- the subnet file (lib/subnet_file.c), the cost
 * matrix reader (lib/costs.c) and eco_strerror (lib/status.c).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cunit_common.h"
#include "eco.h"
#include "eco_map_impl.h" /* the cost model (version 3) */

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

/* A path in the scratch directory (a few rotating buffers). */
static const char *scratch(const char *name)
{
    static char buf[4][1024];
    static int next;
    char *p = buf[next++ % 4];

    snprintf(p, sizeof buf[0], "%s/%s", eco_test_tmpdir(), name);
    return p;
}

static const char *put_file(const char *name, const char *text)
{
    const char *path = scratch(name);
    FILE *fp = fopen(path, "w");

    CU_ASSERT_FATAL(fp != NULL);
    fputs(text, fp);
    fclose(fp);
    return path;
}

/* The whole file, malloc'd (NULL when it cannot be read). */
static char *slurp(const char *path)
{
    FILE *fp = fopen(path, "rb");
    char *buf;
    long len;

    if (!fp)
        return NULL;
    fseek(fp, 0, SEEK_END);
    len = ftell(fp);
    rewind(fp);
    buf = malloc((size_t)len + 1);
    if (buf && fread(buf, 1, (size_t)len, fp) != (size_t)len) {
        free(buf);
        buf = NULL;
    }
    if (buf)
        buf[len] = '\0';
    fclose(fp);
    return buf;
}

/* The subnet-file text of a map (eco_map_fprint), malloc'd. */
static char *text_of(const eco_map *m)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);

    CU_ASSERT_FATAL(fp != NULL);
    CU_ASSERT_EQUAL(eco_map_fprint(m, fp), ECO_OK);
    fclose(fp);
    return buf;
}

/* m's model with *x negative, NaN or infinite is not valid nor written;
 * with *x 0 (left so) it is valid. */
static void check_bad_seconds(eco_map *m, double *x)
{
    static const double bad[] = { -1e-6, NAN, INFINITY };
    char err[512] = "";

    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        *x = bad[i];
        CU_ASSERT_FALSE(ecoi_model_valid(m->model));
        CU_ASSERT_EQUAL(eco_map_write(m, scratch("badmodel.subnets"), err, sizeof err),
                        ECO_ERR_ARG);
    }
    *x = 0.0;
    CU_ASSERT(ecoi_model_valid(m->model));
}

static int models_equal(const ecoi_model *a, const ecoi_model *b)
{
    size_t n;

    if (!a || !b)
        return a == b;
    n = (size_t)a->nsubnets;
    if (a->nsubnets != b->nsubnets || a->task.alpha != b->task.alpha ||
        a->task.beta != b->task.beta || a->busy != b->busy || a->step != b->step ||
        a->forward != b->forward || a->stepbyte != b->stepbyte || a->cores != b->cores)
        return 0;
    for (size_t i = 0; i < n * n; i++)
        if (a->link[i].alpha != b->link[i].alpha || a->link[i].beta != b->link[i].beta)
            return 0;
    for (size_t i = 0; i < n; i++)
        if (a->uplink[i] != b->uplink[i])
            return 0;
    for (size_t i = 0; i < n * n; i++)
        if (a->burst[i] != b->burst[i])
            return 0;
    return 1;
}

static int maps_equal(const eco_map *a, const eco_map *b)
{
    int n = eco_map_nhosts(a), s = eco_map_nsubnets(a);

    if (!models_equal(a->model, b->model))
        return 0;
    if (n != eco_map_nhosts(b) || s != eco_map_nsubnets(b) ||
        eco_map_threshold(a) != eco_map_threshold(b))
        return 0;
    for (int i = 0; i < n; i++) {
        if (strcmp(eco_map_host(a, i), eco_map_host(b, i)) != 0 ||
            eco_map_subnet_of(a, i) != eco_map_subnet_of(b, i))
            return 0;
        for (int j = 0; j < n; j++)
            if (eco_map_cost(a, i, j) != eco_map_cost(b, i, j) ||
                eco_map_hops(a, i, j) != eco_map_hops(b, i, j))
                return 0;
    }
    for (int k = 0; k < s; k++)
        if (eco_map_degree(a, k) != eco_map_degree(b, k))
            return 0;
    return 1;
}

/* write -> read -> write: the same bytes and the same map. */
static void check_round_trip(const eco_map *m, const char *name)
{
    const char *path = scratch(name);
    char err[512] = "", *first, *second, *printed;
    eco_map *back = NULL;

    CU_ASSERT_EQUAL_FATAL(eco_map_write(m, path, err, sizeof err), ECO_OK);
    first = slurp(path);
    printed = text_of(m);
    CU_ASSERT_STRING_EQUAL(first, printed); /* the file is what fprint prints */
    CU_ASSERT_EQUAL_FATAL(eco_map_read(path, &back, err, sizeof err), ECO_OK);
    CU_ASSERT(maps_equal(m, back));
    CU_ASSERT_EQUAL(eco_map_write(back, path, err, sizeof err), ECO_OK);
    second = slurp(path);
    CU_ASSERT_FATAL(first && second);
    CU_ASSERT_STRING_EQUAL(first, second);
    free(first);
    free(second);
    free(printed);
    eco_map_free(back);
}

static eco_map *read_example(const char *file)
{
    char path[1024], err[512];
    eco_map *m = NULL;

    snprintf(path, sizeof path, "%s/%s", eco_test_examples_dir(), file);
    CU_ASSERT_EQUAL(eco_map_read_costs(path, &m, err, sizeof err), ECO_OK);
    CU_ASSERT_FATAL(m != NULL);
    return m;
}

static uint64_t rng_state;

static double urand(void)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rng_state >> 11) / 9007199254740992.0; /* [0, 1) */
}

/* n hosts in about n/15 clusters, random costs, some pairs unmeasured. */
static eco_map *random_map(int n, uint64_t seed)
{
    eco_map *m = eco_map_new();
    char a[32], b[32];

    rng_state = seed;
    for (int i = 0; i < n; i++) {
        snprintf(a, sizeof a, "host-%03d.example.org", i);
        eco_map_add_host(m, a);
        for (int j = 0; j < i; j++) {
            double base = (i % 15 == j % 15) ? 1e-4 * (1 + i % 15) : 5e-3;
            if (urand() < 0.03)
                continue;
            snprintf(b, sizeof b, "host-%03d.example.org", j);
            CU_ASSERT_EQUAL(eco_map_add_cost(m, a, b, base * (1.0 + 0.1 * urand())), ECO_OK);
        }
    }
    CU_ASSERT_EQUAL(eco_map_partition(m, 0.2), ECO_OK);
    return m;
}

/* Names of the files in the scratch directory that start with a dot
 * (eco_map_write's temporaries): none may be left behind. */
static int temp_files_left(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int count = 0;

    if (!d)
        return 0;
    while ((e = readdir(d)) != NULL)
        count += e->d_name[0] == '.' && strcmp(e->d_name, ".") != 0 &&
                 strcmp(e->d_name, "..") != 0;
    closedir(d);
    return count;
}

/* ------------------------------------------------------------------ */
/* eco_strerror                                                        */
/* ------------------------------------------------------------------ */

static void test_strerror(void)
{
    for (int s = ECO_ERR_LAST; s <= ECO_OK; s++) {
        const char *text = eco_strerror(s);
        if (s >= ECO_ERR_BASE && s < ECO_OK) {  /* never a status (eco.h) */
            CU_ASSERT_STRING_EQUAL(text, "unknown libeco status");
            continue;
        }
        CU_ASSERT_PTR_NOT_NULL_FATAL(text);
        CU_ASSERT(text[0] != '\0' && strchr(text, '\n') == NULL);
        CU_ASSERT_STRING_NOT_EQUAL(text, "unknown libeco status");
        for (int t = ECO_ERR_LAST; t < s && t < ECO_ERR_BASE; t++)
            CU_ASSERT_STRING_NOT_EQUAL(text, eco_strerror(t));
    }
    CU_ASSERT_STRING_EQUAL(eco_strerror(1), "unknown libeco status");
    CU_ASSERT_STRING_EQUAL(eco_strerror(-999), "unknown libeco status");
}

/* ------------------------------------------------------------------ */
/* Round trips                                                         */
/* ------------------------------------------------------------------ */

static void test_round_trip_examples(void)
{
    eco_map *m = read_example("figure1.matrix");

    CU_ASSERT_EQUAL(eco_map_partition(m, 0.2), ECO_OK);
    check_round_trip(m, "figure1.subnets");
    eco_map_free(m);
    m = read_example("campus.matrix");
    CU_ASSERT_EQUAL(eco_map_partition(m, 0.25), ECO_OK);
    CU_ASSERT_EQUAL(eco_map_set_degree(m, 1, 3), ECO_OK);
    CU_ASSERT_EQUAL(eco_map_set_degree(m, 3, 64), ECO_OK);
    check_round_trip(m, "campus.subnets");
    eco_map_free(m);
}

static void test_round_trip_200_hosts(void)
{
    eco_map *m = random_map(200, 99);

    CU_ASSERT(eco_map_nsubnets(m) >= 15);
    for (int s = 0; s < eco_map_nsubnets(m); s++)
        eco_map_set_degree(m, s, 1 + s % ECO_MAX_DEGREE);
    check_round_trip(m, "random200.subnets");
    eco_map_free(m);
}

/* Hops: read from a matrix, written as version 2, read back the same;
 * a map without hops is written as version 1. */
static void test_round_trip_hops(void)
{
    const char *path = put_file("hops.matrix",
                                "a b 0.001 hops=0\nc d 0.001 hops=0\n"
                                "a c 0.01 hops=1\nc a 0.02 hops=2\nb d 0.01\n");
    char err[512] = "", *text;
    eco_map *m = NULL;

    CU_ASSERT_EQUAL_FATAL(eco_map_read_costs(path, &m, err, sizeof err), ECO_OK);
    CU_ASSERT_EQUAL(eco_map_hops(m, 0, 2), 2); /* the larger of two */
    CU_ASSERT_EQUAL(eco_map_cost(m, 0, 2), 0.01); /* the smaller */
    CU_ASSERT_EQUAL(eco_map_hops(m, 1, 3), ECO_ERR_NOTFOUND);
    CU_ASSERT_EQUAL(eco_map_partition(m, 0.2), ECO_OK);
    text = text_of(m);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\neco-subnets 2\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\nhops a b 0\nhops a c 2\nhops c d 0\nsubnet 0"));
    free(text);
    check_round_trip(m, "hops.subnets");
    eco_map_free(m);
    m = read_example("figure1.matrix");
    CU_ASSERT_EQUAL(eco_map_partition(m, 0.2), ECO_OK);
    text = text_of(m);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\neco-subnets 1\n"));
    CU_ASSERT_PTR_NULL(strstr(text, "hops"));
    free(text);
    eco_map_free(m);
}

/* A planted network's hops (version 4): segments of 7 hosts (host h on
 * segment h / 7), 0 hops inside, 1 between segments of a site (3
 * segments), 4 across sites; host 20 alone behind a router (2 hops to
 * everybody); exceptions: a lost pair (3-12), odd routes (5-6: 9 hops,
 * 0-30: 0 hops), pairs of 40 not counted. */
static int planted_hops(void *arg, int a, int b)
{
    (void)arg;
    if (a > b) {
        int t = a;
        a = b;
        b = t;
    }
    if ((a == 3 && b == 12) || b == 40)
        return -1;
    if (a == 5 && b == 6)
        return 9;
    if (a == 0 && b == 30)
        return 0;
    if (a == 20 || b == 20)
        return 2;
    if (a / 7 == b / 7)
        return 0;
    return a / 21 == b / 21 ? 1 : 4;
}

/* Hops in classes: written as version 4 (classes, rows, exceptions),
 * read back with every pair's hops the same, written again the same;
 * a host added after them has none until given. */
static void test_round_trip_hop_classes(void)
{
    eco_map *m = eco_map_new(), *back = NULL;
    char name[16], err[512] = "", *text;
    const char *path = scratch("classes.subnets");
    int n = 41, wrong = 0;

    for (int h = 0; h < n; h++) {
        snprintf(name, sizeof name, "h%02d", h);
        CU_ASSERT(eco_map_add_host(m, name) == h);
    }
    for (int h = 0; h + 1 < n; h++)
        CU_ASSERT_EQUAL(eco_map_add_cost(m, eco_map_host(m, h), eco_map_host(m, h + 1),
                                         h / 7 == (h + 1) / 7 ? 1e-4 : 1e-3), ECO_OK);
    CU_ASSERT_EQUAL_FATAL(ecoi_map_build_hops(m, planted_hops, NULL), ECO_OK);
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++)
            wrong += eco_map_hops(m, a, b) !=
                     (a == b ? 0 : planted_hops(NULL, a, b) < 0 ? ECO_ERR_NOTFOUND
                                                               : planted_hops(NULL, a, b));
    CU_ASSERT_EQUAL(wrong, 0);
    CU_ASSERT_EQUAL(eco_map_partition(m, 0.2), ECO_OK);
    text = text_of(m);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\neco-subnets 4\n"));
    /* h30 at 0 hops from h00 but not from h01: in its own segment's class */
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\nhopclass 0 h00 h01 h02 h03 h04 h05 h06\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\nhopclass 3 h20\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\nhopclass 5 h28 h29 h30 h31 h32 h33 h34\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\nhoprow 0 0 1x2 2 4x3 -\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\nhoprow 3 - 2x3 -\n")); /* one host: - inside */
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\nhoprow 7 -\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\nhops h00 h30 0\nhops h03 h12 -\nhops h05 h06 9\n"
                                        "subnet 0"));
    free(text);
    check_round_trip(m, "classes.subnets");
    CU_ASSERT_EQUAL_FATAL(eco_map_write(m, path, err, sizeof err), ECO_OK);
    CU_ASSERT_EQUAL_FATAL(eco_map_read(path, &back, err, sizeof err), ECO_OK);
    wrong = 0;
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++)
            wrong += eco_map_hops(back, a, b) != eco_map_hops(m, a, b);
    CU_ASSERT_EQUAL(wrong, 0);
    /* a new host (between h00 and h01): in no class, its pairs unknown,
     * the others' unchanged; then given pair by pair */
    CU_ASSERT_EQUAL(eco_map_add_host(back, "h00a"), 1);
    CU_ASSERT_EQUAL(eco_map_hops(back, 1, 2), ECO_ERR_NOTFOUND);
    CU_ASSERT_EQUAL(eco_map_hops(back, 0, 2), 0);
    CU_ASSERT_EQUAL(eco_map_hops(back, 6, 7), 9); /* h05-h06 moved up one */
    CU_ASSERT_EQUAL(eco_map_add_hops(back, "h00a", "h40", 3), ECO_OK);
    CU_ASSERT_EQUAL(eco_map_hops(back, 1, 41), 3);
    CU_ASSERT_EQUAL(eco_map_partition(back, 0.2), ECO_OK);
    check_round_trip(back, "classes2.subnets");
    eco_map_free(back);
    eco_map_free(m);
}

/* Doubles that need all 17 digits, tiny, huge and subnormal ones. */
static void test_round_trip_numbers(void)
{
    static const double costs[] = {
        0.1 + 0.2, 1.0 / 3.0, 2.0 / 3.0, 1e-300, 4.9406564584124654e-324,
        DBL_MAX, 123456789.123456789, 0.000123, 1.2e-4, 1.0, 7e22, 3.141592653589793,
    };
    eco_map *m = eco_map_new();
    char a[16], b[16];
    int n = (int)(sizeof costs / sizeof costs[0]);

    for (int i = 0; i < n; i++) {
        snprintf(a, sizeof a, "x%02d", i);
        snprintf(b, sizeof b, "y%02d", i);
        CU_ASSERT_EQUAL(eco_map_add_cost(m, a, b, costs[i]), ECO_OK);
    }
    CU_ASSERT_EQUAL(eco_map_partition(m, 1.0 / 7.0), ECO_OK);
    check_round_trip(m, "numbers.subnets");
    CU_ASSERT_EQUAL(eco_map_partition(m, 0.0), ECO_OK);
    check_round_trip(m, "numbers0.subnets");
    eco_map_free(m);
}

static void test_round_trip_small_maps(void)
{
    eco_map *m = eco_map_new();

    CU_ASSERT_EQUAL(eco_map_partition(m, 0.2), ECO_OK); /* no hosts at all */
    check_round_trip(m, "empty.subnets");
    CU_ASSERT_EQUAL(eco_map_add_host(m, "lonely"), 0);
    CU_ASSERT_EQUAL(eco_map_partition(m, 0.2), ECO_OK);
    check_round_trip(m, "one.subnets");
    CU_ASSERT_EQUAL(eco_map_add_host(m, "other"), 1); /* unmeasured pair */
    CU_ASSERT_EQUAL(eco_map_partition(m, 0.3), ECO_OK);
    check_round_trip(m, "two.subnets");
    eco_map_free(m);
}

/* A model with a distinct value everywhere, numbers that need 17 digits. */
static ecoi_model *planted_model(int ns)
{
    ecoi_model *mo = ecoi_model_new(ns);

    CU_ASSERT_FATAL(mo != NULL);
    mo->task.alpha = 1.0 / 3.0 * 1e-5;
    mo->task.beta = 0.0;
    for (int s = 0; s < ns; s++) {
        for (int t = s; t < ns; t++) {
            ecoi_cost c = { 1e-4 * (1 + s) + 1e-6 * t + 1e-21, s == t ? 1e-9 * (s + 1)
                                                                       : 8e-7 + 1e-9 * t };
            mo->link[s * ns + t] = mo->link[t * ns + s] = c;
        }
        mo->uplink[s] = s % 2 ? 0.0 : 8e-7 / (s + 1);
    }
    mo->busy = 2.0 / 3.0 * 1e-4;
    return mo;
}

/* Version 3: the model, byte for byte; copies, restriction, partition. */
static void test_round_trip_model(void)
{
    eco_map *m = read_example("campus.matrix"), *back = NULL;
    char err[512] = "", *text;
    int ns, old_of[2];
    ecoi_model *r;

    CU_ASSERT_EQUAL(eco_map_partition(m, 0.25), ECO_OK);
    ns = eco_map_nsubnets(m);
    CU_ASSERT_FATAL(ns >= 3);
    m->model = planted_model(ns);
    CU_ASSERT(ecoi_model_valid(m->model));
    text = text_of(m);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\neco-subnets 3\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\nmodel task 3.3333333333333333e-06 0\n"
                                        "model link 0 0 0.0001 1e-09\n"
                                        "model link 0 1 0.000101 8.009999999999999e-07\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\nmodel uplink 0 8e-07\n"
                                        "model uplink 1 0\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\nmodel busy 6.666666666666667e-05\n"));
    free(text);
    check_round_trip(m, "model.subnets");
    /* busy not measured (0): no line, and read back as 0 */
    m->model->busy = 0.0;
    text = text_of(m);
    CU_ASSERT_PTR_NULL(strstr(text, "busy"));
    free(text);
    check_round_trip(m, "model-nobusy.subnets");
    m->model->busy = 2.0 / 3.0 * 1e-4;
    /* the step (version 5, the lowest that has it), after busy */
    m->model->step = 4.4e-4 / 3.0;
    text = text_of(m);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\neco-subnets 5\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\nmodel busy 6.666666666666667e-05\n"
                                        "model step 0.00014666666666666666\n"));
    free(text);
    check_round_trip(m, "model-step.subnets");
    /* bursts: a distinct one on every link, symmetric */
    for (int s = 0; s < ns; s++)
        for (int t = s; t < ns; t++)
            m->model->burst[s * ns + t] = m->model->burst[t * ns + s] =
                s == t ? 0.0 : 3028.0 + 100.0 * s + t + 1.0 / 3.0;
    CU_ASSERT(ecoi_model_valid(m->model));
    CU_ASSERT_EQUAL(ecoi_model_burst(m->model, 0, 1), 3029.0 + 1.0 / 3.0);
    CU_ASSERT_EQUAL(ecoi_model_burst(m->model, 1, 0), 3029.0 + 1.0 / 3.0);
    CU_ASSERT_EQUAL(ecoi_model_burst(m->model, 1, 1), 0.0);  /* not measured */
    CU_ASSERT_EQUAL(ecoi_model_burst(m->model, 0, ns), 0.0); /* out of range */
    CU_ASSERT_EQUAL(ecoi_model_burst(m->model, -1, 0), 0.0);
    CU_ASSERT_EQUAL(ecoi_model_burst(NULL, 0, 1), 0.0);
    /* written (version 6, the lowest that has them) after the step, one
     * line for every s <= t, 0s too */
    text = text_of(m);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\neco-subnets 6\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\nmodel step 0.00014666666666666666\n"
                                        "model burst 0 0 0\n"
                                        "model burst 0 1 3029.3333333333335\n"));
    free(text);
    check_round_trip(m, "model-burst.subnets");
    /* the forward cost (version 7, the lowest that has it), after the
     * step, before the bursts */
    m->model->forward = 2.2e-5 / 3.0;
    text = text_of(m);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\neco-subnets 7\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\nmodel step 0.00014666666666666666\n"
                                        "model forward 7.333333333333333e-06\n"
                                        "model burst 0 0 0\n"));
    free(text);
    check_round_trip(m, "model-forward.subnets");
    /* a copy, and a restriction to subnets 2 and 0, in that order */
    r = ecoi_model_copy(m->model);
    CU_ASSERT(models_equal(r, m->model));
    ecoi_model_free(r);
    old_of[0] = 2;
    old_of[1] = 0;
    r = ecoi_model_restrict(m->model, old_of, 2);
    CU_ASSERT_FATAL(r != NULL);
    CU_ASSERT_EQUAL(r->nsubnets, 2);
    CU_ASSERT_EQUAL(r->link[0].alpha, m->model->link[2 * ns + 2].alpha);
    CU_ASSERT_EQUAL(r->link[1].beta, m->model->link[2 * ns + 0].beta);
    CU_ASSERT_EQUAL(r->link[2].beta, m->model->link[0 * ns + 2].beta);
    CU_ASSERT_EQUAL(r->uplink[0], m->model->uplink[2]);
    CU_ASSERT_EQUAL(r->busy, m->model->busy); /* every host's: kept */
    CU_ASSERT_EQUAL(r->step, m->model->step);
    CU_ASSERT_EQUAL(r->forward, m->model->forward);
    CU_ASSERT_EQUAL(r->forward, 2.2e-5 / 3.0);
    CU_ASSERT_EQUAL(r->burst[1], m->model->burst[2 * ns + 0]); /* the link's */
    CU_ASSERT_EQUAL(r->burst[2], m->model->burst[0 * ns + 2]);
    CU_ASSERT_EQUAL(r->burst[1], 3030.0 + 1.0 / 3.0);
    CU_ASSERT_EQUAL(r->burst[0], 0.0);
    CU_ASSERT(ecoi_model_valid(r));
    ecoi_model_free(r);
    old_of[1] = -1; /* a subnet the model does not know */
    CU_ASSERT_PTR_NULL(ecoi_model_restrict(m->model, old_of, 2));
    old_of[1] = ns;
    CU_ASSERT_PTR_NULL(ecoi_model_restrict(m->model, old_of, 2));
    /* a bad model is not written */
    m->model->uplink[1] = -1.0;
    CU_ASSERT_EQUAL(eco_map_write(m, scratch("badmodel.subnets"), err, sizeof err),
                    ECO_ERR_ARG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "cost model"));
    m->model->uplink[1] = 0.0;
    check_bad_seconds(m, &m->model->busy);
    check_bad_seconds(m, &m->model->step);
    check_bad_seconds(m, &m->model->forward);
    m->model->burst[1] = m->model->burst[ns] = -1.0;
    CU_ASSERT_FALSE(ecoi_model_valid(m->model));
    m->model->burst[1] = m->model->burst[ns] = NAN;
    CU_ASSERT_FALSE(ecoi_model_valid(m->model));
    m->model->burst[1] = m->model->burst[ns] = INFINITY;
    CU_ASSERT_FALSE(ecoi_model_valid(m->model));
    CU_ASSERT_EQUAL(eco_map_write(m, scratch("badmodel.subnets"), err, sizeof err),
                    ECO_ERR_ARG);
    m->model->burst[1] = 3028.0; /* not symmetric */
    m->model->burst[ns] = 3027.0;
    CU_ASSERT_FALSE(ecoi_model_valid(m->model));
    m->model->burst[ns] = 3028.0;
    CU_ASSERT(ecoi_model_valid(m->model));
    m->model->link[1].alpha += 1.0; /* not symmetric */
    CU_ASSERT_FALSE(ecoi_model_valid(m->model));
    m->model->link[1].alpha -= 1.0;
    /* a new partition drops it; written as version 1 again */
    CU_ASSERT_EQUAL(eco_map_partition(m, 0.25), ECO_OK);
    CU_ASSERT_PTR_NULL(m->model);
    text = text_of(m);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\neco-subnets 1\n"));
    CU_ASSERT_PTR_NULL(strstr(text, "model"));
    free(text);
    /* versions 1 and 2 read without a model */
    CU_ASSERT_EQUAL(eco_map_read(put_file("v1.subnets", "eco-subnets 1\nthreshold 0.2\n"
                                          "host a\nsubnet 0 k=2 a\n"), &back, err,
                                 sizeof err), ECO_OK);
    CU_ASSERT_PTR_NULL(back->model);
    eco_map_free(back);
    CU_ASSERT_EQUAL(eco_map_read(put_file("v2.subnets", "eco-subnets 2\nthreshold 0.2\n"
                                          "host a\nhost b\nhops a b 1\nsubnet 0 k=2 a\n"
                                          "subnet 1 k=2 b\n"), &back, err, sizeof err),
                    ECO_OK);
    CU_ASSERT_PTR_NULL(back->model);
    eco_map_free(back);
    eco_map_free(m);
}

/* m as written: the header of `version`, no `absent` (when not NULL),
 * and the end `tail` (when not NULL). */
static void check_written(const eco_map *m, int version, const char *absent, const char *tail)
{
    char head[40], *text = text_of(m);
    size_t len = strlen(text);

    snprintf(head, sizeof head, "\neco-subnets %d\n", version);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, head));
    if (absent)
        CU_ASSERT_PTR_NULL(strstr(text, absent));
    if (tail)
        CU_ASSERT(len > strlen(tail) && strcmp(text + len - strlen(tail), tail) == 0);
    free(text);
}

/* A file of `version` with the model's whole part only (task, link,
 * uplink): busy, step, forward, stepbyte, cores and bursts read as 0,
 * written as version 3. */
static void check_bare_model(int version)
{
    char in[300], err[512] = "";
    eco_map *m = NULL;

    snprintf(in, sizeof in, "eco-subnets %d\nthreshold 0.2\nhost a\nhost b\n"
             "subnet 0 k=2 a b\nmodel task 1e-05 0\nmodel link 0 0 4e-05 1e-09\n"
             "model uplink 0 0\n", version);
    CU_ASSERT_EQUAL_FATAL(eco_map_read(put_file("bare.subnets", in), &m, err, sizeof err),
                          ECO_OK);
    CU_ASSERT_FATAL(m->model != NULL);
    CU_ASSERT_EQUAL(m->model->busy, 0.0);
    CU_ASSERT_EQUAL(m->model->step, 0.0);
    CU_ASSERT_EQUAL(m->model->forward, 0.0);
    CU_ASSERT_EQUAL(m->model->stepbyte, 0.0);
    CU_ASSERT_EQUAL(m->model->cores, 0.0);
    CU_ASSERT_EQUAL(ecoi_model_burst(m->model, 0, 0), 0.0);
    check_written(m, 3, NULL, NULL);
    eco_map_free(m);
}

/* After a header: subnets that the reader renumbers (the file's 0
 * becomes 1, its 1 becomes 0) and a model over them, its lines in any
 * order; and how the writer ends it, up to busy. */
#define RENUM_IN \
    "threshold 0.2\n" \
    "host a\nhost b\nhost c\n" \
    "subnet 0 k=1 c\n"                       /* becomes subnet 1 */ \
    "subnet 1 k=2 b a\n"                     /* becomes subnet 0 */ \
    "model busy 2.5e-05\n"                   /* no subnet: stays */ \
    "model uplink 1 8e-07\n" \
    "model uplink 0 0\n" \
    "model link 1 0 0.001 8e-07   # either order\n" \
    "model link 0 0 3e-05 2e-09\n" \
    "model link 1 1 4e-05 1e-09\n" \
    "model task 1e-05 5e-10\n"
#define RENUM_OUT \
    "subnet 0 k=2 a b\n" \
    "subnet 1 k=1 c\n" \
    "# cost model: one way, ALPHA + BETA * bytes seconds\n" \
    "model task 1e-05 5e-10\n" \
    "model link 0 0 4e-05 1e-09\n" \
    "model link 0 1 0.001 8e-07\n" \
    "model link 1 1 3e-05 2e-09\n" \
    "model uplink 0 8e-07\n" \
    "model uplink 1 0\n" \
    "model busy 2.5e-05\n"

/* A header, RENUM_IN and more, read: the model follows the subnets. */
static eco_map *read_renumbered(const char *text)
{
    char err[512] = "";
    eco_map *m = NULL;

    CU_ASSERT_EQUAL_FATAL(eco_map_read(put_file("renum.subnets", text), &m, err, sizeof err),
                          ECO_OK);
    CU_ASSERT_FATAL(m->model != NULL);
    CU_ASSERT_EQUAL(m->model->nsubnets, 2);
    CU_ASSERT_EQUAL(m->model->uplink[0], 8e-7);
    CU_ASSERT_EQUAL(m->model->link[3].alpha, 3e-5);
    CU_ASSERT_EQUAL(m->model->busy, 2.5e-5);
    return m;
}

/* The reader renumbers the model with the subnets (canonical order). */
static void test_read_model_renumbered(void)
{
    eco_map *m = read_renumbered("eco-subnets 3\n" RENUM_IN);

    check_written(m, 3, NULL, RENUM_OUT);
    eco_map_free(m);
}

/* Version 5: the step with everything of version 4; a version 5 file
 * without a step, or without a model, is written at the lowest version
 * that holds what it has. */
static void test_read_version5(void)
{
    static const char in[] =
        "eco-subnets 5\n"
        "threshold 0.2\n"
        "host a\nhost b\nhost c\n"
        "hopclass 0 a b\nhopclass 1 c\n"
        "hoprow 0 0 1\nhoprow 1 -\n"
        "hops a c -\n"
        "subnet 0 k=2 a b\nsubnet 1 k=1 c\n"
        "model step 0.00044   # a ring's step\n"
        "model task 1e-05 5e-10\n"
        "model link 0 0 4e-05 1e-09\nmodel link 0 1 0.001 8e-07\nmodel link 1 1 3e-05 2e-09\n"
        "model uplink 0 8e-07\nmodel uplink 1 0\n"
        "model busy 7e-05\n";
    static const char out_tail[] =
        "model uplink 1 0\n"
        "model busy 7e-05\n"
        "model step 0.00044\n";
    char err[512] = "", *text;
    eco_map *m = NULL;

    CU_ASSERT_EQUAL_FATAL(eco_map_read(put_file("v5.subnets", in), &m, err, sizeof err),
                          ECO_OK);
    CU_ASSERT_FATAL(m->model != NULL);
    CU_ASSERT_EQUAL(m->model->step, 4.4e-4);
    CU_ASSERT_EQUAL(m->model->busy, 7e-5);
    for (int s = 0; s < 2; s++) /* no burst lines before version 6: 0 */
        for (int t = 0; t < 2; t++)
            CU_ASSERT_EQUAL(ecoi_model_burst(m->model, s, t), 0.0);
    CU_ASSERT_EQUAL(eco_map_hops(m, 0, 1), 0);
    CU_ASSERT_EQUAL(eco_map_hops(m, 0, 2), ECO_ERR_NOTFOUND); /* "-": not counted */
    CU_ASSERT_EQUAL(eco_map_hops(m, 1, 2), 1);
    text = text_of(m);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\nhopclass 0 a b\n"));
    free(text);
    check_written(m, 5, NULL, out_tail);
    check_round_trip(m, "v5-again.subnets");
    /* no step: version 4 with the classes, 3 without them */
    m->model->step = 0.0;
    check_written(m, 4, "step", NULL);
    eco_map_free(m);
    check_bare_model(5);
    /* no model at all (optional from version 4 on): version 1 */
    CU_ASSERT_EQUAL_FATAL(eco_map_read(put_file("v5-nomodel.subnets",
                                                "eco-subnets 5\nthreshold 0.2\nhost a\n"
                                                "subnet 0 k=2 a\n"), &m, err, sizeof err),
                          ECO_OK);
    CU_ASSERT_PTR_NULL(m->model);
    text = text_of(m);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\neco-subnets 1\n"));
    free(text);
    eco_map_free(m);
}

/* Version 6: the bursts, in either order, follow the subnets the reader
 * renumbers; a model without one is written at the lowest version that
 * holds the rest. */
static void test_read_version6(void)
{
    eco_map *m = read_renumbered("eco-subnets 6\n" RENUM_IN
                                 "model burst 1 0 3028   # either order\n"
                                 "model burst 0 0 0\n"  /* becomes 1 1 */
                                 "model burst 1 1 1514\n"
                                 "model step 0.00044\n");

    CU_ASSERT_EQUAL(ecoi_model_burst(m->model, 0, 0), 1514.0);
    CU_ASSERT_EQUAL(ecoi_model_burst(m->model, 0, 1), 3028.0);
    CU_ASSERT_EQUAL(ecoi_model_burst(m->model, 1, 0), 3028.0);
    CU_ASSERT_EQUAL(ecoi_model_burst(m->model, 1, 1), 0.0);
    CU_ASSERT(ecoi_model_valid(m->model));
    check_written(m, 6, NULL, RENUM_OUT "model step 0.00044\n"
                                        "model burst 0 0 1514\n"
                                        "model burst 0 1 3028\n"
                                        "model burst 1 1 0\n");
    check_round_trip(m, "v6-again.subnets");
    /* every burst 0: version 5 (the step), no burst line */
    memset(m->model->burst, 0, 4 * sizeof *m->model->burst);
    check_written(m, 5, "burst", NULL);
    eco_map_free(m);
    /* a version 6 file without bursts: 0, written as version 3 */
    check_bare_model(6);
}

/* Version 7: the forward cost with everything of version 6, the model's
 * lines in any order; a model without it is written at the lowest
 * version that holds the rest, and a file of version 6 (no forward line)
 * reads it as 0. */
static void test_read_version7(void)
{
    eco_map *m = read_renumbered("eco-subnets 7\n"
                                 "model forward 3.1e-05   # a relay's middle member\n"
                                 RENUM_IN
                                 "model burst 1 0 3028\n"
                                 "model burst 0 0 0\n"
                                 "model burst 1 1 1514\n"
                                 "model step 0.00044\n");

    CU_ASSERT_EQUAL(m->model->forward, 3.1e-5);
    CU_ASSERT_EQUAL(m->model->step, 4.4e-4);
    CU_ASSERT_EQUAL(ecoi_model_burst(m->model, 0, 1), 3028.0);
    CU_ASSERT(ecoi_model_valid(m->model));
    check_written(m, 7, NULL, RENUM_OUT "model step 0.00044\n"
                                        "model forward 3.1e-05\n"
                                        "model burst 0 0 1514\n"
                                        "model burst 0 1 3028\n"
                                        "model burst 1 1 0\n");
    check_round_trip(m, "v7-again.subnets");
    /* no forward: version 6 (the bursts), no forward line */
    m->model->forward = 0.0;
    check_written(m, 6, "forward", NULL);
    eco_map_free(m);
    /* a version 6 file: no forward cost, 0 */
    m = read_renumbered("eco-subnets 6\n" RENUM_IN "model step 0.00044\n");
    CU_ASSERT_EQUAL(m->model->forward, 0.0);
    check_written(m, 5, "forward", NULL);
    eco_map_free(m);
    /* a version 7 file without one: 0, written as version 3 */
    check_bare_model(7);
}

/* Version 8: the lock-step byte cost with everything of version 7, in
 * any order, written after the forward; a model without it is written
 * at the lowest version that holds the rest; a version 7 file reads it
 * as 0; bad values are not valid nor written. */
static void test_read_version8(void)
{
    eco_map *m = read_renumbered("eco-subnets 8\n"
                                 "model stepbyte 3.1e-08\n"
                                 RENUM_IN
                                 "model forward 3.1e-05\n"
                                 "model step 0.00044\n");

    CU_ASSERT_EQUAL(m->model->stepbyte, 3.1e-8);
    CU_ASSERT_EQUAL(m->model->forward, 3.1e-5);
    CU_ASSERT(ecoi_model_valid(m->model));
    check_written(m, 8, NULL, RENUM_OUT "model step 0.00044\n"
                                        "model forward 3.1e-05\n"
                                        "model stepbyte 3.1e-08\n");
    check_round_trip(m, "v8-again.subnets");
    check_bad_seconds(m, &m->model->stepbyte);
    /* none: version 7 (the forward), no stepbyte line */
    check_written(m, 7, "stepbyte", NULL);
    eco_map_free(m);
    m = read_renumbered("eco-subnets 7\n" RENUM_IN "model forward 3.1e-05\n");
    CU_ASSERT_EQUAL(m->model->stepbyte, 0.0);
    eco_map_free(m);
    check_bare_model(8);
}

/* Version 9: the shared cores with everything of version 8, in any
 * order, written after the stepbyte; without them a model is written at
 * the lowest version that holds the rest; a version 8 file reads them
 * as 0 (each host its own CPUs); bad values are not valid nor written. */
static void test_read_version9(void)
{
    eco_map *m = read_renumbered("eco-subnets 9\n"
                                 "model cores 2.5\n"
                                 RENUM_IN
                                 "model stepbyte 3.1e-08\n"
                                 "model step 0.00044\n");

    CU_ASSERT_EQUAL(m->model->cores, 2.5);
    CU_ASSERT_EQUAL(m->model->stepbyte, 3.1e-8);
    CU_ASSERT(ecoi_model_valid(m->model));
    check_written(m, 9, NULL, RENUM_OUT "model step 0.00044\n"
                                        "model stepbyte 3.1e-08\n"
                                        "model cores 2.5\n");
    check_round_trip(m, "v9-again.subnets");
    check_bad_seconds(m, &m->model->cores);
    /* none: version 8 (the stepbyte), no cores line */
    check_written(m, 8, "cores", NULL);
    eco_map_free(m);
    m = read_renumbered("eco-subnets 8\n" RENUM_IN "model stepbyte 3.1e-08\n");
    CU_ASSERT_EQUAL(m->model->cores, 0.0);
    check_written(m, 8, "cores", NULL);
    eco_map_free(m);
    check_bare_model(9);
}

/* The reader takes any order; the writer's order is fixed. */
static void test_read_lenient_write_canonical(void)
{
    static const char in[] =
        "# hand-edited\r\n"
        "\n"
        "   eco-subnets\t1   # header\n"
        "host zeta\n"
        "subnet 0 k=3 zeta   beta\n"
        "cost zeta beta 0.5\n"
        "host beta\n"
        "threshold 0.20\r\n"
        "   # indented comment\n"
        "subnet 1 k=1 alpha\n"
        "host alpha\n"
        "cost beta alpha 4";
    static const char out[] =
        "# eco-subnets(5) network map, written by libeco " PACKAGE_VERSION "\n"
        "# 3 hosts, 2 measured pairs, 2 subnets\n"
        "eco-subnets 1\n"
        "threshold 0.2\n"
        "host alpha\n"
        "host beta\n"
        "host zeta\n"
        "cost alpha beta 4\n"
        "cost beta zeta 0.5\n"
        "subnet 0 k=1 alpha\n"
        "subnet 1 k=3 beta zeta\n";
    char err[512] = "", *text;
    eco_map *m = NULL;

    CU_ASSERT_EQUAL_FATAL(eco_map_read(put_file("lenient", in), &m, err, sizeof err), ECO_OK);
    text = text_of(m);
    CU_ASSERT_STRING_EQUAL(text, out);
    CU_ASSERT_EQUAL(eco_map_degree(m, eco_map_subnet_of(m, eco_map_find_host(m, "zeta"))), 3);
    free(text);
    eco_map_free(m);
}

/* ------------------------------------------------------------------ */
/* Malformed subnet files                                              */
/* ------------------------------------------------------------------ */

typedef struct bad_case {
    const char *text;
    int line;          /* the line the error must name */
    const char *why;   /* a part of the reason */
} bad_case;

#define HEAD "eco-subnets 1\nthreshold 0.2\n"
#define HEAD2 "eco-subnets 2\nthreshold 0.2\n"
#define HOSTS "host a\nhost b\nhost c\n" /* lines 3..5 after HEAD */
/* version 3: two subnets on lines 6..7, then the model (lines 8..) */
#define HEAD3 "eco-subnets 3\nthreshold 0.2\n" HOSTS "subnet 0 k=2 a b\nsubnet 1 k=1 c\n"
#define M_TASK "model task 1e-05 1e-09\n"
#define M_LINKS "model link 0 0 5e-05 1e-08\nmodel link 0 1 0.0001 8e-07\n" \
                "model link 1 1 5e-05 1e-08\n"
#define M_UPS "model uplink 0 8e-07\nmodel uplink 1 0\n"
/* version 4: hosts on lines 3..5, hop classes on 6..7, rows on 8..9 */
#define HEAD4 "eco-subnets 4\nthreshold 0.2\n" HOSTS
#define CLASSES "hopclass 0 a b\nhopclass 1 c\n"
#define ROWS "hoprow 0 0 1\nhoprow 1 -\n"
#define SUB4 "subnet 0 k=2 a b c\n"
/* version 5: as HEAD3, the model from line 8 on */
#define HEAD5 "eco-subnets 5\nthreshold 0.2\n" HOSTS "subnet 0 k=2 a b\nsubnet 1 k=1 c\n"
/* version 6: as HEAD5 */
#define HEAD6 "eco-subnets 6\nthreshold 0.2\n" HOSTS "subnet 0 k=2 a b\nsubnet 1 k=1 c\n"
#define M_BURSTS "model burst 0 0 0\nmodel burst 0 1 3028\nmodel burst 1 1 0\n"
/* version 7: as HEAD5 */
#define HEAD7 "eco-subnets 7\nthreshold 0.2\n" HOSTS "subnet 0 k=2 a b\nsubnet 1 k=1 c\n"
/* version 8: as HEAD5 */
#define HEAD8 "eco-subnets 8\nthreshold 0.2\n" HOSTS "subnet 0 k=2 a b\nsubnet 1 k=1 c\n"
/* version 9: as HEAD5 */
#define HEAD9 "eco-subnets 9\nthreshold 0.2\n" HOSTS "subnet 0 k=2 a b\nsubnet 1 k=1 c\n"

static const bad_case bad_files[] = {
    {"", 1, "no header"},
    {"# only\n# comments\n", 2, "no header"},
    {"threshold 0.2\n", 1, "expected the header"},
    {"a b 0.001\nb c 0.002\n", 1, "cost matrix?"},
    {"# c\n\neco-subnets 10\nthreshold 0.2\n", 3, "unsupported eco-subnets version 10"},
    {"eco-subnets 0\nthreshold 0.2\n", 1, "unsupported eco-subnets version 0"},
    {"eco-subnets one\n", 1, "bad version"},
    {"eco-subnets 1 x\n", 1, "expected 'eco-subnets VERSION'"},
    {"eco-subnets\n", 1, "expected 'eco-subnets VERSION'"},
    {HEAD HOSTS "subnet 0 k=2 a b c\neco-subnets 1\n", 7, "second 'eco-subnets' header"},
    {HEAD HOSTS "hosts d\nsubnet 0 k=2 a b c\n", 6, "unknown keyword 'hosts'"},
    {HEAD "host a b\n", 3, "expected 'host NAME'"},
    {HEAD "host\n", 3, "expected 'host NAME'"},
    {HEAD HOSTS "cost a b\n", 6, "expected 'cost HOST_A HOST_B SECONDS'"},
    {HEAD HOSTS "cost a b 1 2\n", 6, "expected 'cost HOST_A HOST_B SECONDS'"},
    {HEAD HOSTS "subnet 0 k=2\n", 6, "expected 'subnet ID k=K HOST...'"},
    {HEAD HOSTS "host b\nsubnet 0 k=2 a b c\n", 6, "duplicate host 'b' (first on line 4)"},
    {HEAD HOSTS "cost a d 0.1\nsubnet 0 k=2 a b c\n", 6, "unknown host 'd'"},
    {HEAD HOSTS "cost a a 0.1\nsubnet 0 k=2 a b c\n", 6, "to itself"},
    {HEAD HOSTS "cost a b 0.1\ncost c a 0.1\ncost b a 0.2\nsubnet 0 k=2 a b c\n", 8,
     "second cost for the pair a b (first on line 6)"},
    {HEAD HOSTS "subnet 0 k=2 a b c d\n", 6, "unknown host 'd'"},
    {HEAD HOSTS "subnet 0 k=2 a b\nsubnet 1 k=2 c b\n", 7, "host 'b' already in subnet 0 (line 6)"},
    {HEAD HOSTS "subnet 0 k=2 a a\nsubnet 1 k=2 b c\n", 6, "host 'a' already in subnet 0"},
    {HEAD HOSTS "subnet 0 k=2 a c\n", 4, "host 'b' in no subnet"},
    {HEAD "host z\n" HOSTS "subnet 0 k=2 a b c\n", 3, "host 'z' in no subnet"},
    {HEAD HOSTS, 3, "host 'a' in no subnet"},
    {HEAD HOSTS "subnet 1 k=2 a b c\n", 6, "subnet ID 1 out of order (expected 0)"},
    {HEAD HOSTS "subnet 0 k=2 a\nsubnet 2 k=2 b c\n", 7, "subnet ID 2 out of order (expected 1)"},
    {HEAD HOSTS "subnet 0 k=2 a\nsubnet 0 k=2 b c\n", 7, "subnet ID 0 out of order (expected 1)"},
    {HEAD HOSTS "subnet -1 k=2 a b c\n", 6, "bad subnet ID '-1'"},
    {HEAD HOSTS "subnet x k=2 a b c\n", 6, "bad subnet ID 'x'"},
    {HEAD HOSTS "subnet 0 k=0 a b c\n", 6, "bad degree 'k=0'"},
    {HEAD HOSTS "subnet 0 k=65 a b c\n", 6, "bad degree 'k=65'"},
    {HEAD HOSTS "subnet 0 k=two a b c\n", 6, "bad degree"},
    {HEAD HOSTS "subnet 0 k= a b c\n", 6, "bad degree"},
    {HEAD HOSTS "subnet 0 a b c\n", 6, "expected k=K after the subnet ID"},
    {HEAD HOSTS "subnet 0 x=2 a b c\n", 6, "expected k=K after the subnet ID"},
    {"eco-subnets 1\nthreshold abc\n", 2, "bad threshold 'abc'"},
    {"eco-subnets 1\nthreshold -0.1\n", 2, "bad threshold '-0.1'"},
    {"eco-subnets 1\nthreshold nan\n", 2, "bad threshold 'nan'"},
    {"eco-subnets 1\nthreshold inf\n", 2, "bad threshold 'inf'"},
    {"eco-subnets 1\nthreshold 1e999\n", 2, "bad threshold"},
    {"eco-subnets 1\nthreshold\n", 2, "expected 'threshold NUMBER'"},
    {"eco-subnets 1\nthreshold 0.2\nthreshold 0.3\n", 3, "second threshold line (first on line 2)"},
    {"eco-subnets 1\nhost a\nsubnet 0 k=2 a\n", 1, "no 'threshold' line"},
    {HEAD HOSTS "cost a b abc\n", 6, "bad cost 'abc'"},
    {HEAD HOSTS "cost a b 0\n", 6, "cost must be positive"},
    {HEAD HOSTS "cost a b -0.5\n", 6, "cost must be positive"},
    {HEAD HOSTS "cost a b 1e999\n", 6, "bad cost '1e999'"},
    {HEAD HOSTS "cost a b 0x1p-3\n", 6, "bad cost '0x1p-3'"},
    {HEAD HOSTS "cost a b 1..2\n", 6, "bad cost '1..2'"},
    {HEAD HOSTS "hops a b 0\nsubnet 0 k=2 a b c\n", 6, "'hops' lines need version 2"},
    {HEAD2 HOSTS "hops a b\n", 6, "expected 'hops HOST_A HOST_B N'"},
    {HEAD2 HOSTS "hops a b 1 2\n", 6, "expected 'hops HOST_A HOST_B N'"},
    {HEAD2 HOSTS "hops a b 256\n", 6, "bad hops '256' (0 to 255)"},
    {HEAD2 HOSTS "hops a b -1\n", 6, "bad hops '-1'"},
    {HEAD2 HOSTS "hops a b 1.5\n", 6, "bad hops '1.5'"},
    {HEAD2 HOSTS "hops a b x\n", 6, "bad hops 'x'"},
    {HEAD2 HOSTS "hops a d 1\nsubnet 0 k=2 a b c\n", 6, "unknown host 'd'"},
    {HEAD2 HOSTS "hops b b 1\nsubnet 0 k=2 a b c\n", 6, "hops from host 'b' to itself"},
    {HEAD2 HOSTS "cost a b 0.1\nhops a b 0\nhops b a 0\nsubnet 0 k=2 a b c\n", 8,
     "second hops for the pair a b (first on line 7)"},
    /* the cost model (version 3) */
    {HEAD HOSTS "subnet 0 k=2 a b c\n" M_TASK, 7, "'model' lines need version 3 (the header says 1)"},
    {HEAD2 HOSTS "subnet 0 k=2 a b c\n" M_TASK, 7, "'model' lines need version 3 (the header says 2)"},
    {HEAD3, 1, "no 'model task' line (a version 3 file holds the whole cost model)"},
    {HEAD3 M_LINKS M_UPS, 1, "no 'model task' line"},
    {HEAD3 M_TASK "model link 0 0 5e-05 1e-08\nmodel link 1 1 5e-05 1e-08\n" M_UPS, 1,
     "no 'model link 0 1' line"},
    {HEAD3 M_TASK M_LINKS "model uplink 0 8e-07\n", 1, "no 'model uplink 1' line"},
    {HEAD3 "model task 1e-05\n", 8, "expected 'model task ALPHA BETA'"},
    {HEAD3 "model task 1e-05 1 2\n", 8, "expected 'model task ALPHA BETA'"},
    {HEAD3 "model link 0 1 1e-4\n", 8, "expected 'model link SUBNET_A SUBNET_B ALPHA BETA'"},
    {HEAD3 "model uplink 0\n", 8, "expected 'model uplink SUBNET BETA'"},
    {HEAD3 "model\n", 8,
     "expected 'model task', 'model link', 'model uplink', 'model busy', 'model step', "
     "'model burst', 'model forward', 'model stepbyte' or 'model cores', not 'model '"},
    {HEAD3 "model links 0 1 1 1\n", 8, "not 'model links'"},
    {HEAD3 "model task -1e-05 0\n", 8, "bad alpha '-1e-05' (a number >= 0)"},
    {HEAD3 "model task 0 nan\n", 8, "bad beta 'nan'"},
    {HEAD3 "model link 0 1 1e999 0\n", 8, "bad alpha '1e999'"},
    {HEAD3 "model link 0 1 0 -0.5\n", 8, "bad beta '-0.5'"},
    {HEAD3 "model uplink 0 x\n", 8, "bad beta 'x'"},
    {HEAD3 "model link x 0 1 1\n", 8, "bad subnet ID 'x'"},
    {HEAD3 "model link 0 -1 1 1\n", 8, "bad subnet ID '-1'"},
    {HEAD3 "model uplink 1.5 0\n", 8, "bad subnet ID '1.5'"},
    {HEAD3 M_TASK "model link 0 2 1 1\n", 9, "no subnet 2 (the file has 2)"},
    {HEAD3 M_TASK M_LINKS "model uplink 7 0\n", 12, "no subnet 7 (the file has 2)"},
    {HEAD3 M_TASK M_LINKS "model link 1 0 1 1\n" M_UPS, 12,
     "second 'model link 0 1' (first on line 10)"},
    {HEAD3 M_TASK M_LINKS M_UPS "model task 0 0\n", 14, "second 'model task' (first on line 8)"},
    {HEAD3 M_TASK M_LINKS M_UPS "model uplink 1 0\n", 14,
     "second 'model uplink 1' (first on line 13)"},
    {HEAD3 M_TASK M_LINKS M_UPS "host d\n", 14, "host 'd' in no subnet"},
    /* busy: optional, but checked like the rest */
    {HEAD2 HOSTS "subnet 0 k=2 a b c\nmodel busy 1e-05\n", 7,
     "'model' lines need version 3 (the header says 2)"},
    {HEAD3 "model busy\n", 8, "expected 'model busy SECONDS'"},
    {HEAD3 "model busy 1e-05 0\n", 8, "expected 'model busy SECONDS'"},
    {HEAD3 "model busy 1e-05 # the comment is fine\nmodel busy 1e-05 x\n", 9,
     "expected 'model busy SECONDS'"},
    {HEAD3 "model busy -1e-05\n", 8, "bad seconds '-1e-05' (a number >= 0)"},
    {HEAD3 "model busy nan\n", 8, "bad seconds 'nan'"},
    {HEAD3 "model busy inf\n", 8, "bad seconds 'inf'"},
    {HEAD3 "model busy 1e999\n", 8, "bad seconds '1e999'"},
    {HEAD3 "model busy 30us\n", 8, "bad seconds '30us'"},
    {HEAD3 M_TASK M_LINKS M_UPS "model busy 1e-05\nmodel busy 2e-05\n", 15,
     "second 'model busy' (first on line 14)"},
    {HEAD3 M_TASK M_LINKS "model busy 1e-05\nmodel uplink 0 8e-07\n", 1,
     "no 'model uplink 1' line"},
    /* step: optional, version 5, checked like busy */
    {HEAD3 "model step 0.0001\n", 8, "'model step' lines need version 5 (the header says 3)"},
    {HEAD4 CLASSES ROWS SUB4 "model step 0.0001\n", 11,
     "'model step' lines need version 5 (the header says 4)"},
    {HEAD2 HOSTS "subnet 0 k=2 a b c\nmodel step 1e-05\n", 7,
     "'model' lines need version 3 (the header says 2)"},
    {HEAD5 "model step\n", 8, "expected 'model step SECONDS'"},
    {HEAD5 "model step 1e-05 0\n", 8, "expected 'model step SECONDS'"},
    {HEAD5 "model step -1e-05\n", 8, "bad seconds '-1e-05' (a number >= 0)"},
    {HEAD5 "model step nan\n", 8, "bad seconds 'nan'"},
    {HEAD5 "model step inf\n", 8, "bad seconds 'inf'"},
    {HEAD5 "model step 1e999\n", 8, "bad seconds '1e999'"},
    {HEAD5 "model step 440us\n", 8, "bad seconds '440us'"},
    {HEAD5 "model steps 1e-05\n", 8, "not 'model steps'"},
    {HEAD5 M_TASK M_LINKS M_UPS "model step 1e-05\nmodel step 2e-05\n", 15,
     "second 'model step' (first on line 14)"},
    {HEAD5 M_TASK M_LINKS M_UPS "model busy 1e-05\nmodel step 2e-05\nmodel busy 1e-05\n", 16,
     "second 'model busy' (first on line 14)"},
    {HEAD5 "model step 0.0001\n", 1, "no 'model task' line"},
    /* bursts: version 6, every link's or none */
    {HEAD5 "model burst 0 1 3028\n", 8,
     "'model burst' lines need version 6 (the header says 5)"},
    {HEAD3 M_TASK M_LINKS M_UPS "model burst 0 1 3028\n", 14,
     "'model burst' lines need version 6 (the header says 3)"},
    {HEAD6 "model burst 0 1\n", 8, "expected 'model burst SUBNET_A SUBNET_B BYTES'"},
    {HEAD6 "model burst 0 1 3028 0\n", 8, "expected 'model burst SUBNET_A SUBNET_B BYTES'"},
    {HEAD6 "model burst 0 1 -3028\n", 8, "bad bytes '-3028' (a number >= 0)"},
    {HEAD6 "model burst 0 1 nan\n", 8, "bad bytes 'nan'"},
    {HEAD6 "model burst 0 1 inf\n", 8, "bad bytes 'inf'"},
    {HEAD6 "model burst 0 1 3KB\n", 8, "bad bytes '3KB'"},
    {HEAD6 "model burst x 1 3028\n", 8, "bad subnet ID 'x'"},
    {HEAD6 "model bursts 0 1 3028\n", 8, "not 'model bursts'"},
    {HEAD6 M_TASK M_LINKS M_UPS "model burst 0 2 3028\n", 14, "no subnet 2 (the file has 2)"},
    {HEAD6 M_TASK M_LINKS M_UPS "model burst 1 1 0\nmodel burst 0 0 0\n", 14,
     "no 'model burst 0 1' line (a file with bursts holds one for every link)"},
    {HEAD6 M_TASK M_LINKS M_UPS M_BURSTS "model burst 1 0 3028\n", 17,
     "second 'model burst 0 1' (first on line 15)"},
    {HEAD6 "model burst 0 1 3028\n", 1, "no 'model task' line"},
    /* forward: optional, version 7, checked like busy and step */
    {HEAD6 "model forward 3e-05\n", 8,
     "'model forward' lines need version 7 (the header says 6)"},
    {HEAD3 M_TASK M_LINKS M_UPS "model forward 3e-05\n", 14,
     "'model forward' lines need version 7 (the header says 3)"},
    {HEAD7 "model forward\n", 8, "expected 'model forward SECONDS'"},
    {HEAD7 "model forward 3e-05 0\n", 8, "expected 'model forward SECONDS'"},
    {HEAD7 "model forward -3e-05\n", 8, "bad seconds '-3e-05' (a number >= 0)"},
    {HEAD7 "model forward nan\n", 8, "bad seconds 'nan'"},
    {HEAD7 "model forward inf\n", 8, "bad seconds 'inf'"},
    {HEAD7 "model forward 30us\n", 8, "bad seconds '30us'"},
    {HEAD7 "model forwards 3e-05\n", 8, "not 'model forwards'"},
    {HEAD7 M_TASK M_LINKS M_UPS "model forward 3e-05\nmodel step 2e-05\nmodel forward 3e-05\n",
     16, "second 'model forward' (first on line 14)"},
    {HEAD7 "model forward 3e-05\n", 1, "no 'model task' line"},
    /* stepbyte: optional, version 8, checked like forward */
    {HEAD7 "model stepbyte 3e-08\n", 8,
     "'model stepbyte' lines need version 8 (the header says 7)"},
    {HEAD8 "model stepbyte\n", 8, "expected 'model stepbyte SECONDS'"},
    {HEAD8 "model stepbyte -3e-08\n", 8, "bad seconds '-3e-08' (a number >= 0)"},
    {HEAD8 "model stepbyte nan\n", 8, "bad seconds 'nan'"},
    {HEAD8 M_TASK M_LINKS M_UPS "model stepbyte 3e-08\nmodel stepbyte 3e-08\n", 15,
     "second 'model stepbyte' (first on line 14)"},
    /* cores: optional, version 9, a number >= 0 */
    {HEAD8 "model cores 2\n", 8, "'model cores' lines need version 9 (the header says 8)"},
    {HEAD9 "model cores\n", 8, "expected 'model cores CORES'"},
    {HEAD9 "model cores 2 4\n", 8, "expected 'model cores CORES'"},
    {HEAD9 "model cores -2\n", 8, "bad cores '-2' (a number >= 0)"},
    {HEAD9 "model cores two\n", 8, "bad cores 'two'"},
    {HEAD9 "model cores inf\n", 8, "bad cores 'inf'"},
    {HEAD9 M_TASK M_LINKS M_UPS "model cores 2\nmodel cores 2\n", 15,
     "second 'model cores' (first on line 14)"},
    /* hop classes (version 4) */
    {HEAD3 CLASSES, 8, "'hopclass' lines need version 4 (the header says 3)"},
    {HEAD2 HOSTS "hoprow 0 1\n", 6, "'hoprow' lines need version 4 (the header says 2)"},
    {HEAD2 HOSTS "hops a b -\n", 6, "bad hops '-' (0 to 255)"},
    {HEAD4 "hopclass 0\n", 6, "expected 'hopclass CLASS HOST...'"},
    {HEAD4 "hoprow 0\n", 6, "expected 'hoprow CLASS HOPS...'"},
    {HEAD4 "hopclass x a\n", 6, "bad hop class 'x'"},
    {HEAD4 "hoprow 0 1x\n", 6, "bad hops '1x' (N from 0 to 255 or -, then xR"},
    {HEAD4 "hoprow 0 1x0\n", 6, "bad hops '1x0'"},
    {HEAD4 "hoprow 0 256\n", 6, "bad hops '256'"},
    {HEAD4 "hoprow 0 -1\n", 6, "bad hops '-1'"},
    {HEAD4 "hops a b 1.5\n", 6, "bad hops '1.5' (0 to 255, or - when not counted)"},
    {HEAD4 "hopclass 1 a\n" SUB4, 6, "hop class 1 out of order (expected 0)"},
    {HEAD4 "hopclass 0 a d\n" SUB4, 6, "unknown host 'd'"},
    {HEAD4 "hopclass 0 a b\nhopclass 1 c b\n" SUB4, 7,
     "host 'b' already in hop class 0 (line 6)"},
    {HEAD4 CLASSES "hoprow 0 0 1\n" SUB4, 1, "no 'hoprow 1' line"},
    {HEAD4 CLASSES ROWS "hoprow 2 0\n" SUB4, 10, "no hop class 2 (the file has 2)"},
    {HEAD4 CLASSES ROWS "hoprow 0 0 1\n" SUB4, 10, "second 'hoprow 0' (first on line 8)"},
    {HEAD4 CLASSES "hoprow 0 0\nhoprow 1 -\n" SUB4, 8,
     "'hoprow 0' gives fewer hops than the 2 classes from 0 on"},
    {HEAD4 CLASSES "hoprow 0 0 1\nhoprow 1 -x2\n" SUB4, 9,
     "'hoprow 1' gives more hops than the 1 classes from 1 on"},
    {HEAD4 CLASSES "hoprow 0 0x999999999 1\nhoprow 1 -\n" SUB4, 8,
     "'hoprow 0' gives more hops"},
    {HEAD4 CLASSES ROWS "hops a b 1\nhops b a -\n" SUB4, 11,
     "second hops for the pair a b (first on line 10)"},
    /* refused before the table is made: a host in every class, each
     * class a host of its own, would need more hosts */
    {HEAD4 "hopclass 0 a\nhopclass 1 a\nhopclass 2 a\nhopclass 3 a\n" SUB4, 9,
     "more hop classes than hosts (3)"},
};

static void test_read_malformed(void)
{
    char err[1024], prefix[1200], long_name[400];
    size_t n = sizeof bad_files / sizeof bad_files[0];

    for (size_t i = 0; i < n; i++) {
        const char *path = put_file("bad.subnets", bad_files[i].text);
        eco_map *m = (eco_map *)&err; /* must be reset to NULL */
        int rc = eco_map_read(path, &m, err, sizeof err);
        snprintf(prefix, sizeof prefix, "%s:%d: ", path, bad_files[i].line);
        CU_ASSERT_EQUAL(rc, ECO_ERR_FORMAT);
        CU_ASSERT_PTR_NULL(m);
        CU_ASSERT_NSTRING_EQUAL(err, prefix, strlen(prefix));
        CU_ASSERT_PTR_NOT_NULL(strstr(err, bad_files[i].why));
        if (rc != ECO_ERR_FORMAT || strncmp(err, prefix, strlen(prefix)) != 0 ||
            !strstr(err, bad_files[i].why))
            fprintf(stderr, "\ncase %zu: got rc %d, '%s'\n", i, rc, err);
    }
    /* a host name longer than ECO_MAX_HOSTNAME */
    memset(long_name, 'n', sizeof long_name);
    long_name[ECO_MAX_HOSTNAME + 1] = '\0';
    {
        char text[1024];
        const char *path;
        eco_map *m = NULL;
        snprintf(text, sizeof text, HEAD "host %s\n", long_name);
        path = put_file("long.subnets", text);
        CU_ASSERT_EQUAL(eco_map_read(path, &m, err, sizeof err), ECO_ERR_FORMAT);
        snprintf(prefix, sizeof prefix, "%s:3: host name too long", path);
        CU_ASSERT_STRING_EQUAL(err, prefix);
    }
}

static void test_read_errors(void)
{
    char err[1024], expect[1200];
    eco_map *m = NULL;
    const char *path = scratch("no-such-file");
    FILE *fp;

    CU_ASSERT_EQUAL(eco_map_read(path, &m, err, sizeof err), ECO_ERR_IO);
    CU_ASSERT_PTR_NULL(m);
    snprintf(expect, sizeof expect, "%s: %s", path, strerror(ENOENT));
    CU_ASSERT_STRING_EQUAL(err, expect);
    CU_ASSERT_EQUAL(eco_map_read_costs(path, &m, err, sizeof err), ECO_ERR_IO);
    CU_ASSERT_STRING_EQUAL(err, expect);
    CU_ASSERT_EQUAL(eco_map_read(NULL, &m, err, sizeof err), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_map_read(path, NULL, err, sizeof err), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_map_read_costs(NULL, &m, NULL, 0), ECO_ERR_ARG);
    /* a NUL byte: not a text file */
    path = scratch("nul.subnets");
    fp = fopen(path, "wb");
    CU_ASSERT_FATAL(fp != NULL);
    fwrite("eco-subnets 1\nthreshold 0.2\nhost a\0b\n", 1, 37, fp);
    fclose(fp);
    CU_ASSERT_EQUAL(eco_map_read(path, &m, err, sizeof err), ECO_ERR_FORMAT);
    snprintf(expect, sizeof expect, "%s:3: ", path);
    CU_ASSERT_NSTRING_EQUAL(err, expect, strlen(expect));
    /* no err buffer: still all or nothing */
    CU_ASSERT_EQUAL(eco_map_read(put_file("x.subnets", "junk\n"), &m, NULL, 0), ECO_ERR_FORMAT);
    CU_ASSERT_PTR_NULL(m);
}

/* ------------------------------------------------------------------ */
/* The cost matrix                                                     */
/* ------------------------------------------------------------------ */

static void test_costs_pairs(void)
{
    static const char text[] =
        "# asymmetric, duplicate and missing pairs\n"
        "a b 0.003\n"
        "b a 0.002      # the other direction: the minimum counts\n"
        "\n"
        "a c 1.2e-4\n"
        "a c 0.000123   # a duplicate, higher\n"
        "\t c  d   5e-3 \r\n"
        "d e 7";
    eco_map *m = NULL;
    char err[512];
    int a, b, c, d, e;

    CU_ASSERT_EQUAL_FATAL(eco_map_read_costs(put_file("pairs.matrix", text), &m, err, sizeof err),
                          ECO_OK);
    CU_ASSERT_EQUAL(eco_map_nhosts(m), 5);
    CU_ASSERT_EQUAL(eco_map_nsubnets(m), 0);
    a = eco_map_find_host(m, "a");
    b = eco_map_find_host(m, "b");
    c = eco_map_find_host(m, "c");
    d = eco_map_find_host(m, "d");
    e = eco_map_find_host(m, "e");
    CU_ASSERT(a == 0 && b == 1 && c == 2 && d == 3 && e == 4);
    CU_ASSERT_EQUAL(eco_map_cost(m, a, b), 0.002);
    CU_ASSERT_EQUAL(eco_map_cost(m, b, a), 0.002);
    CU_ASSERT_EQUAL(eco_map_cost(m, a, c), 1.2e-4);
    CU_ASSERT_EQUAL(eco_map_cost(m, d, c), 5e-3);
    CU_ASSERT_EQUAL(eco_map_cost(m, d, e), 7.0);
    CU_ASSERT(eco_map_cost(m, a, d) < 0.0); /* missing */
    CU_ASSERT(eco_map_cost(m, b, e) < 0.0);
    CU_ASSERT_EQUAL(eco_map_cost(m, c, c), 0.0);
    for (int h = 0; h < 5; h++)
        CU_ASSERT(eco_map_subnet_of(m, h) < 0);
    eco_map_free(m);
    /* an empty matrix is an empty map */
    CU_ASSERT_EQUAL(eco_map_read_costs(put_file("empty.matrix", "# nothing\n"), &m, err, sizeof err),
                    ECO_OK);
    CU_ASSERT_EQUAL(eco_map_nhosts(m), 0);
    eco_map_free(m);
}

static const bad_case bad_matrices[] = {
    {"a b 1\nb c\n", 2, "expected HOST_A HOST_B SECONDS"},
    {"a b 1\n\n# x\nb c 1 2\n", 4, "bad '2' (expected hops=N, N from 0 to 255)"},
    {"a b 1\nb c 1 hops=1 x\n", 2, "expected HOST_A HOST_B SECONDS [hops=N]"},
    {"a b 1 hops=256\n", 1, "bad 'hops=256'"},
    {"a b 1 hops=\n", 1, "bad 'hops='"},
    {"a b 1 hops=-1\n", 1, "bad 'hops=-1'"},
    {"a\n", 1, "expected HOST_A HOST_B SECONDS"},
    {"a b abc\n", 1, "bad cost 'abc'"},
    {"a b nan\n", 1, "bad cost 'nan'"},
    {"a b inf\n", 1, "bad cost 'inf'"},
    {"a b 1e999\n", 1, "bad cost '1e999'"},
    {"a b 1,5\n", 1, "bad cost '1,5'"},
    {"a b 0\n", 1, "cost must be positive"},
    {"a b -1e-3\n", 1, "cost must be positive"},
    {"a b 1\nc c 1\n", 2, "to itself"},
    {"eco-subnets 1\n", 1, "expected HOST_A HOST_B SECONDS (this is a subnet file)"},
};

static void test_costs_malformed(void)
{
    char err[1024], prefix[1200], text[1024], name[300];
    size_t n = sizeof bad_matrices / sizeof bad_matrices[0];
    eco_map *m;
    const char *path;

    for (size_t i = 0; i < n; i++) {
        path = put_file("bad.matrix", bad_matrices[i].text);
        m = (eco_map *)&err;
        CU_ASSERT_EQUAL(eco_map_read_costs(path, &m, err, sizeof err), ECO_ERR_FORMAT);
        CU_ASSERT_PTR_NULL(m);
        snprintf(prefix, sizeof prefix, "%s:%d: ", path, bad_matrices[i].line);
        CU_ASSERT_NSTRING_EQUAL(err, prefix, strlen(prefix));
        CU_ASSERT_PTR_NOT_NULL(strstr(err, bad_matrices[i].why));
        if (!strstr(err, bad_matrices[i].why) || strncmp(err, prefix, strlen(prefix)))
            fprintf(stderr, "\nmatrix case %zu: '%s'\n", i, err);
    }
    memset(name, 'q', sizeof name);
    name[ECO_MAX_HOSTNAME + 1] = '\0';
    snprintf(text, sizeof text, "a b 1\n%s b 1\n", name);
    path = put_file("long.matrix", text);
    CU_ASSERT_EQUAL(eco_map_read_costs(path, &m, err, sizeof err), ECO_ERR_FORMAT);
    snprintf(prefix, sizeof prefix, "%s:2: host name too long", path);
    CU_ASSERT_STRING_EQUAL(err, prefix);
    name[ECO_MAX_HOSTNAME] = '\0'; /* exactly the limit is fine */
    snprintf(text, sizeof text, "a b 1\n%s b 1\n", name);
    CU_ASSERT_EQUAL(eco_map_read_costs(put_file("long.matrix", text), &m, err, sizeof err), ECO_OK);
    eco_map_free(m);
}

/* ------------------------------------------------------------------ */
/* Writing                                                             */
/* ------------------------------------------------------------------ */

static void test_write_refuses_unpartitioned(void)
{
    eco_map *m = read_example("figure1.matrix");
    const char *path = put_file("old.subnets", "old contents\n");
    char err[512] = "", *now;
    FILE *devnull = fopen("/dev/null", "w");

    CU_ASSERT_EQUAL(eco_map_write(m, path, err, sizeof err), ECO_ERR_ARG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "not been partitioned"));
    CU_ASSERT_EQUAL(eco_map_fprint(m, devnull), ECO_ERR_ARG);
    /* partitioned, then a host added: that host is in no subnet */
    CU_ASSERT_EQUAL(eco_map_partition(m, 0.2), ECO_OK);
    CU_ASSERT_EQUAL(eco_map_add_host(m, "newcomer"), 6);
    CU_ASSERT_EQUAL(eco_map_write(m, path, err, sizeof err), ECO_ERR_ARG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "in no subnet"));
    CU_ASSERT_EQUAL(eco_map_fprint(m, devnull), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_map_write(NULL, path, err, sizeof err), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_map_write(m, NULL, err, sizeof err), ECO_ERR_ARG);
    CU_ASSERT_EQUAL(eco_map_fprint(NULL, devnull), ECO_ERR_ARG);
    now = slurp(path);
    CU_ASSERT_STRING_EQUAL(now, "old contents\n");
    free(now);
    fclose(devnull);
    eco_map_free(m);
}

static void test_write_fails_atomically(void)
{
    eco_map *small = read_example("figure1.matrix"), *big = random_map(200, 5);
    const char *dir = eco_test_tmpdir(), *path = scratch("atomic.subnets");
    const char *isdir = scratch("a-directory"), *nodir = scratch("no-such-dir/subnets");
    char err[512] = "", *before, *after;
    struct rlimit old, low;
    void (*prev)(int);

    CU_ASSERT_EQUAL(eco_map_partition(small, 0.2), ECO_OK);
    CU_ASSERT_EQUAL_FATAL(eco_map_write(small, path, err, sizeof err), ECO_OK);
    before = slurp(path);
    /* the directory does not exist */
    CU_ASSERT_EQUAL(eco_map_write(small, nodir, err, sizeof err), ECO_ERR_IO);
    CU_ASSERT_NSTRING_EQUAL(err, nodir, strlen(nodir));
    /* the path is a directory: the rename fails, the temporary goes */
    CU_ASSERT_EQUAL_FATAL(mkdir(isdir, 0755), 0);
    CU_ASSERT_EQUAL(eco_map_write(small, isdir, err, sizeof err), ECO_ERR_IO);
    CU_ASSERT_EQUAL(temp_files_left(dir), 0);
    /* the write itself fails half-way (file size limit): old file intact */
    CU_ASSERT_EQUAL_FATAL(getrlimit(RLIMIT_FSIZE, &old), 0);
    low = old;
    low.rlim_cur = 4096;
    prev = signal(SIGXFSZ, SIG_IGN); /* a failed write(), not a signal */
    fflush(NULL);
    CU_ASSERT_EQUAL_FATAL(setrlimit(RLIMIT_FSIZE, &low), 0);
    CU_ASSERT_EQUAL(eco_map_write(big, path, err, sizeof err), ECO_ERR_IO);
    CU_ASSERT_EQUAL_FATAL(setrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, prev);
    CU_ASSERT_NSTRING_EQUAL(err, path, strlen(path));
    after = slurp(path);
    CU_ASSERT_FATAL(before && after);
    CU_ASSERT_STRING_EQUAL(before, after);
    CU_ASSERT_EQUAL(temp_files_left(dir), 0);
    /* and with the limit lifted the same write succeeds */
    CU_ASSERT_EQUAL(eco_map_write(big, path, err, sizeof err), ECO_OK);
    CU_ASSERT_EQUAL(temp_files_left(dir), 0);
    free(before);
    free(after);
    rmdir(isdir);
    eco_map_free(small);
    eco_map_free(big);
}

static void test_write_keeps_mode(void)
{
    eco_map *m = read_example("figure1.matrix");
    const char *path = put_file("mode.subnets", "x\n");
    char err[512];
    struct stat st;

    CU_ASSERT_EQUAL(chmod(path, 0640), 0);
    CU_ASSERT_EQUAL(eco_map_partition(m, 0.2), ECO_OK);
    CU_ASSERT_EQUAL(eco_map_write(m, path, err, sizeof err), ECO_OK);
    CU_ASSERT_EQUAL(stat(path, &st), 0);
    CU_ASSERT_EQUAL(st.st_mode & 07777, 0640);
    path = scratch("fresh.subnets");
    CU_ASSERT_EQUAL(eco_map_write(m, path, err, sizeof err), ECO_OK);
    CU_ASSERT_EQUAL(stat(path, &st), 0);
    CU_ASSERT_EQUAL(st.st_mode & 07777, 0644);
    eco_map_free(m);
}

static const eco_unit_test tests[] = {
    {"eco_strerror", test_strerror},
    {"round trip: example matrices", test_round_trip_examples},
    {"round trip: 200 hosts", test_round_trip_200_hosts},
    {"round trip: hops", test_round_trip_hops},
    {"round trip: hop classes (version 4)", test_round_trip_hop_classes},
    {"round trip: exact numbers", test_round_trip_numbers},
    {"round trip: empty and tiny maps", test_round_trip_small_maps},
    {"round trip: the cost model (version 3)", test_round_trip_model},
    {"read: the model follows the subnets", test_read_model_renumbered},
    {"read version 5: the step", test_read_version5},
    {"read version 6: the bursts", test_read_version6},
    {"read version 7: the forward cost", test_read_version7},
    {"read version 8: the lock-step byte cost", test_read_version8},
    {"read version 9: the shared cores", test_read_version9},
    {"read lenient, write canonical", test_read_lenient_write_canonical},
    {"malformed subnet files", test_read_malformed},
    {"unreadable and binary files", test_read_errors},
    {"cost matrix: asymmetric, duplicate, missing", test_costs_pairs},
    {"cost matrix: malformed", test_costs_malformed},
    {"write refuses an unpartitioned map", test_write_refuses_unpartitioned},
    {"write fails atomically", test_write_fails_atomically},
    {"write keeps the file mode", test_write_keeps_mode},
    {NULL, NULL},
};

const eco_suite eco_suite_subnet_file = {"subnet_file", NULL, NULL, tests};
