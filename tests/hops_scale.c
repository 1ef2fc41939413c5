/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hops_scale.c -- eco-characterize's default at scale (doc/scale.md): a
 * result with the hops of every pair of a planted network of N hosts in
 * S segments (0 hops inside a segment, 1 between segments of a site of
 * 10, 3 across; one pair in 7 not counted), the sparse mode's few costs
 * a host; then the partition, the summary, the subnet file written and
 * read back, every pair's hops compared.  Prints each step's time, the
 * peak RSS after it and the file's size.  Not a test (seconds at 10,000
 * hosts; the sizes are bounded in tests/test_characterize.c):
 *   make tests/hops_scale && tests/hops_scale [N [S]]   (10000 100)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#include "eco_char.h"
#include "proc_status.h"

static int per;   /* hosts a segment */

static int hops_of(int a, int b)
{
    if (a % 7 == 0 && b == a + 1)
        return -1;
    if (a / per == b / per)
        return 0;
    return a / (10 * per) == b / (10 * per) ? 1 : 3;
}

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void step(const char *what, double *t0)
{
    double t = now();

    printf("%-34s %7.2f s   peak RSS %6ld MB\n", what, t - *t0, proc_status_kb("VmHWM") / 1024);
    fflush(stdout);
    *t0 = t;
}

/* The result: the hosts h000000.., every pair's hops, each host's cost
 * with the next two. */
static int fill(ecoc_result *r, int n)
{
    char *list = malloc((size_t)n * 9 + 1), why[256];
    size_t len = 0;
    int bad = 0;

    for (int h = 0; list && h < n; h++)
        len += (size_t)sprintf(list + len, "%sh%06d", h ? "," : "", h);
    ecoc_options_init(&r->opt);
    if (!list || ecoc_parse_hosts(list, &r->host, &r->n, why, sizeof why) != 0)
        return -1;
    free(list);
    r->hops_counted = r->sparse = 1;
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
            if (hops_of(a, b) >= 0)
                bad |= ecoc_set_hops(r, a, b, hops_of(a, b));
            if (b <= a + 2) {
                double c = a / per == b / per ? 40e-6 + 1e-9 * (b - a) : 1e-3;
                ecoc_stat st = { 8, c, c, c };
                bad |= ecoc_set_pair(r, a, b, &st);
                r->measured++;
            }
        }
    return bad ? -1 : 0;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 10000, s = argc > 2 ? atoi(argv[2]) : 100;
    char path[] = "/tmp/hops_scale.subnets", err[512];
    ecoc_result r;
    eco_map *m = NULL;
    struct stat st;
    long wrong = 0;
    double t0 = now();
    FILE *null = fopen("/dev/null", "w");

    if (n < 2 || s < 1 || n % s || !null) {
        fprintf(stderr, "usage: hops_scale [N [S]] (S divides N)\n");
        return 2;
    }
    per = n / s;
    memset(&r, 0, sizeof r);
    printf("%d hosts, %d segments of %d: every pair's hops\n", n, s, per);
    if (fill(&r, n) != 0)
        return 1;
    step("result (every pair's hops)", &t0);
    if (ecoc_result_partition(&r, err, sizeof err) != ECOC_OK) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    printf("  %d subnets\n", eco_map_nsubnets(r.map));
    step("partition (the map, its subnets)", &t0);
    ecoc_print_summary(&r, null);
    step("summary", &t0);
    if (ecoc_commit(&r, path, NULL, err, sizeof err) != ECOC_OK || stat(path, &st) != 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    step("subnet file written", &t0);
    printf("  %s: %.2f MB\n", path, (double)st.st_size / 1e6);
    ecoc_result_free(&r);
    if (eco_map_read(path, &m, err, sizeof err) != ECO_OK) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    step("subnet file read (eco_map_read)", &t0);
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            wrong += eco_map_hops(m, a, b) != (hops_of(a, b) < 0 ? ECO_ERR_NOTFOUND : hops_of(a, b));
    step("every pair's hops compared", &t0);
    printf("  %ld pairs differ\n", wrong);
    eco_map_free(m);
    fclose(null);
    remove(path);
    return wrong ? 1 : 0;
}
