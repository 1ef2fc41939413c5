/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * eco-partition -- partition a measured cost matrix into subnets and
 * write the subnet file (eco-partition(1), eco-subnets(5)).
 *
 *   eco-partition [--threshold T] [--degree K] MATRIX -o SUBNETFILE
 *
 * Exit status: 0 success, 1 a bad input or a failed write, 2 usage.
 * Uses only the public API.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eco.h"

#define PROG "eco-partition"

typedef struct options {
    double threshold;
    int degree;
    const char *matrix;
    const char *output;
} options;

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: " PROG " [OPTION]... MATRIX -o SUBNETFILE\n"
            "Partition the hosts of a measured cost matrix into subnets (ECO's rule)\n"
            "and write the subnet file atomically.\n"
            "\n"
            "  -t, --threshold=T   join hosts whose edge is within (1+T) of the cheapest\n"
            "                      edges involved (default %g, i.e. 20%%)\n"
            "  -k, --degree=K      degree of the tree inside every subnet, 1..%d\n"
            "                      (default %d)\n"
            "  -o, --output=FILE   the subnet file to write; '-' for standard output\n"
            "  -h, --help          show this help and exit\n"
            "  -V, --version       show the version and exit\n"
            "\n"
            "MATRIX has one line \"HOST_A HOST_B SECONDS [hops=N]\" per measured pair\n"
            "(hops: the routers between the two, as eco-characterize counts them);\n"
            "'#' starts a comment.  See eco-partition(1) and eco-subnets(5).\n",
            ECO_DEFAULT_THRESHOLD, ECO_MAX_DEGREE, ECO_DEFAULT_DEGREE);
}

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, PROG ": ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry '" PROG " --help' for more information.\n");
    return 2;
}

static int parse_threshold(const char *s, double *out)
{
    char *end;

    errno = 0;
    *out = strtod(s, &end);
    return *s && !*end && errno == 0 && isfinite(*out) && *out >= 0.0 ? 0 : -1;
}

static int parse_degree(const char *s, int *out)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (!*s || *end || errno || v < 1 || v > ECO_MAX_DEGREE)
        return -1;
    *out = (int)v;
    return 0;
}

/* Parse argv into o; returns -1 to go on, else an exit status. */
static int parse_args(int argc, char **argv, options *o)
{
    static const struct option longopts[] = {
        {"threshold", required_argument, NULL, 't'},
        {"degree", required_argument, NULL, 'k'},
        {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    int c;

    opterr = 0;
    while ((c = getopt_long(argc, argv, "t:k:o:hV", longopts, NULL)) != -1) {
        switch (c) {
        case 't':
            if (parse_threshold(optarg, &o->threshold) != 0)
                return usage_error("bad threshold '%s' (a number >= 0, e.g. 0.2)", optarg);
            break;
        case 'k':
            if (parse_degree(optarg, &o->degree) != 0)
                return usage_error("bad degree '%s' (an integer 1..64)", optarg);
            break;
        case 'o':
            o->output = optarg;
            break;
        case 'h':
            usage(stdout);
            return 0;
        case 'V':
            printf(PROG " (libeco) %s\n", PACKAGE_VERSION);
            return 0;
        default: /* getopt_long's own message is off: say it with our name */
            return usage_error("unknown option or missing value: '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return usage_error("%s", "missing MATRIX");
    if (optind + 1 < argc)
        return usage_error("unexpected argument '%s'", argv[optind + 1]);
    if (!o->output)
        return usage_error("%s", "missing -o SUBNETFILE");
    o->matrix = argv[optind];
    return -1;
}

/* Write the map to path (atomically) with signals blocked, so that
 * SIGTERM or Ctrl-C cannot leave its temporary file behind. */
static int write_blocked(const eco_map *map, const char *path)
{
    sigset_t all, old;
    char err[1024];
    int rc;

    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &old);
    rc = eco_map_write(map, path, err, sizeof err);
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (rc != ECO_OK)
        fprintf(stderr, PROG ": %s\n", err);
    return rc;
}

/* Write the map to o->output, or to standard output for "-". */
static int emit(const eco_map *map, const options *o)
{
    int rc;

    if (strcmp(o->output, "-") != 0)
        return write_blocked(map, o->output);
    rc = eco_map_fprint(map, stdout);
    if (rc == ECO_OK && fflush(stdout) != 0)
        rc = ECO_ERR_IO;
    if (rc != ECO_OK)
        fprintf(stderr, PROG ": standard output: %s\n", eco_strerror(rc));
    return rc;
}

/* The lines of a file, at least 1 (where to say that it ended). */
static int last_line(const char *path)
{
    FILE *f = fopen(path, "r");
    int c, lines = 0, partial = 0;

    if (!f)
        return 1;
    while ((c = getc(f)) != EOF) {
        lines += c == '\n';
        partial = c != '\n';
    }
    fclose(f);
    lines += partial;
    return lines > 0 ? lines : 1;
}

int main(int argc, char **argv)
{
    options o = {ECO_DEFAULT_THRESHOLD, ECO_DEFAULT_DEGREE, NULL, NULL};
    eco_map *map = NULL;
    char err[1024];
    int rc;

    rc = parse_args(argc, argv, &o);
    if (rc >= 0)
        return rc;
    rc = eco_map_read_costs(o.matrix, &map, err, sizeof err);
    if (rc != ECO_OK) {
        fprintf(stderr, PROG ": %s\n", err);
        return 1;
    }
    if (eco_map_nhosts(map) == 0) { /* nothing to partition: keep the old file */
        fprintf(stderr, PROG ": %s:%d: no host pairs: the matrix is empty or has only "
                        "comments and blank lines\n", o.matrix, last_line(o.matrix));
        eco_map_free(map);
        return 1;
    }
    rc = eco_map_partition(map, o.threshold);
    for (int s = 0; rc == ECO_OK && s < eco_map_nsubnets(map); s++)
        rc = eco_map_set_degree(map, s, o.degree);
    if (rc != ECO_OK)
        fprintf(stderr, PROG ": %s: %s\n", o.matrix, eco_strerror(rc));
    else
        rc = emit(map, &o);
    if (rc == ECO_OK)
        fprintf(stderr, PROG ": %d hosts, %d subnets -> %s\n", eco_map_nhosts(map),
                eco_map_nsubnets(map),
                strcmp(o.output, "-") == 0 ? "standard output" : o.output);
    eco_map_free(map);
    return rc == ECO_OK ? 0 : 1;
}
