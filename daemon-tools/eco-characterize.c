/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * eco-characterize -- measure the network of a running PVM virtual
 * machine and write the subnet file (eco-characterize(1)).
 *
 *   eco-characterize [--hosts A,B,...] [-o SUBNETFILE] [--matrix FILE]
 *                    [--size B] [--trials N] [--rounds N] [--mode M]
 *                    [--degree K|auto] [--rate R] [-q]
 *
 * Exit status: 0 written, 1 a measurement failed, 2 usage, 3 cannot
 * start (no virtual machine, unknown host, no probe), 4 cannot write,
 * 128+N stopped by signal N (the old files are then untouched).
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pvm3.h>

#include "characterize.h"

#define PROG "eco-characterize"

typedef struct cli {
    ecoc_options o;
    const char *output;
    const char *matrix;
    int quiet;
} cli;

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: " PROG " [OPTION]...\n"
            "Measure the network of the running PVM virtual machine the way ECO does\n"
            "(one pair of hosts at a time, the minimum of several samples), partition\n"
            "the hosts into subnets, choose each subnet's tree degree k by timed\n"
            "broadcasts, and write the subnet file atomically.\n"
            "\n"
            "  -o, --output=FILE   the subnet file (default $HOME/.eco/subnets, the first\n"
            "                      file eco_init reads; its directory is created)\n"
            "  -m, --matrix=FILE   also write the measured cost matrix (HOST_A HOST_B\n"
            "                      SECONDS, with median and spread as comments)\n"
            "  -q, --quiet         no progress line and no summary\n"
            "  -h, --help          show this help and exit\n"
            "  -V, --version       show the version and exit\n"
            "\n");
    ecoc_options_help(out);
    fprintf(out,
            "\n"
            "Progress (pairs done, pairs left, time left) goes to standard error when it\n"
            "is a terminal; the summary of the subnets to standard output.  A run that\n"
            "fails or is interrupted leaves the old files untouched.\n"
            "Exit status: 0 written, 1 a measurement failed, 2 usage, 3 cannot start,\n"
            "4 cannot write, 128+N stopped by signal N.  See eco-characterize(1).\n");
}

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, PROG ": ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry '" PROG " --help' for more information.\n");
    return ECOC_USAGE;
}

/* -1 to go on, else an exit status. */
static int parse_args(int argc, char **argv, cli *c)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},
        {"matrix", required_argument, NULL, 'm'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        ECOC_LONG_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    char why[512];
    int ch;

    opterr = 0;
    while ((ch = getopt_long(argc, argv, ":o:m:qhV", longopts, NULL)) != -1) {
        switch (ch) {
        case 'o':
            c->output = optarg;
            break;
        case 'm':
            c->matrix = optarg;
            break;
        case 'q':
            c->quiet = 1;
            break;
        case 'h':
            usage(stdout);
            return 0;
        case 'V':
            printf(PROG " (libeco) %s\n", PACKAGE_VERSION);
            return 0;
        case ':':
            return usage_error("option '%s' needs an argument", argv[optind - 1]);
        case '?':
            return usage_error("unrecognized option '%s'", argv[optind - 1]);
        default:
            if (ecoc_option(&c->o, ch, optarg, why, sizeof why) != 0)
                return usage_error("%s", why);
        }
    }
    if (optind < argc)
        return usage_error("unexpected argument '%s'", argv[optind]);
    if (!c->output && !(c->output = ecoc_default_subnet_file()))
        return usage_error("%s", "HOME is not set: give the subnet file with -o FILE");
    if (c->matrix && strcmp(c->matrix, c->output) == 0)
        return usage_error("%s", "--matrix and --output name the same file");
    return -1;
}

static void on_signal(int sig)
{
    if (!ecoc_stop)
        ecoc_stop = sig;
}

static void catch_signals(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

/* What stays as it was, for the failure message. */
static void untouched(const cli *c, char *buf, size_t len)
{
    int had = access(c->output, F_OK) == 0 || (c->matrix && access(c->matrix, F_OK) == 0);

    if (!had)
        snprintf(buf, len, "nothing written");
    else if (c->matrix)
        snprintf(buf, len, "%s and %s left unchanged", c->output, c->matrix);
    else
        snprintf(buf, len, "%s left unchanged", c->output);
}

static int characterize(const cli *c)
{
    ecoc_result r;
    char err[2048], keep[8400];
    int rc;

    rc = ecoc_characterize(&c->o, &r, err, sizeof err);
    untouched(c, keep, sizeof keep);
    if (rc != ECOC_OK) {
        fprintf(stderr, PROG ": %s; %s\n", err, keep);
        return rc == ECOC_INTERRUPTED ? 128 + (int)ecoc_stop : rc;
    }
    ecoc_print_warnings(&r, PROG, stderr);
    rc = ecoc_commit(&r, c->output, c->matrix, err, sizeof err);
    if (rc != ECOC_OK) {
        fprintf(stderr, PROG ": cannot write: %s\n", err);
        ecoc_result_free(&r);
        return rc;
    }
    if (!c->quiet) {
        ecoc_print_summary(&r, stdout);
        printf("\nwrote %s\n", c->output);
        if (c->matrix)
            printf("wrote %s\n", c->matrix);
    }
    ecoc_result_free(&r);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, PROG ": standard output: %s\n", strerror(errno));
        return ECOC_NOWRITE;
    }
    return ECOC_OK;
}

int main(int argc, char **argv)
{
    cli c;
    char why[1024];
    int rc;

    memset(&c, 0, sizeof c);
    ecoc_options_init(&c.o);
    if ((rc = parse_args(argc, argv, &c)) >= 0)
        return rc;
    c.o.progress = !c.quiet && isatty(STDERR_FILENO);
    catch_signals();
    if ((rc = ecoc_enroll(why, sizeof why)) != ECOC_OK) {
        fprintf(stderr, PROG ": %s\n", why);
        return rc;
    }
    rc = characterize(&c);
    pvm_exit();
    return rc;
}
