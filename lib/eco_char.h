/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * eco_char.h -- private: the pure half of the network characterization
 * that eco-characterize(1) and ecod(8) run (no PVM): its options, host
 * lists, statistics and result, and the formats and algorithms beside
 * their peers in lib/.  Not installed; not libeco API (ecoc_*, hidden by
 * libeco's export list like ecoi_*).
 *
 *   charutil.c     options, host lists, statistics, the result's
 *                  partition, the commit of both files, the summary
 *   costs.c        the matrix file: its writer beside its reader
 *   result_pairs.c the result's pairs: what was measured or counted
 *   sparse.c       the cheap mode: which pairs to measure (beside
 *                  partition.c, whose rule it serves)
 *   keyed_hash.c   SipHash-2-4, the hops datagrams' nonces
 *   atomic_file.c  the atomic writes (eco_atomic.h)
 *
 * The PVM half (the master, the probe's protocol) is in daemon-tools/,
 * characterize.h.
 */
#ifndef ECO_CHAR_H
#define ECO_CHAR_H

#include <stdint.h>
#include <stdio.h>

#include "eco.h"

/* ------------------------------------------------------------------ */
/* Outcomes: eco-characterize exits with these, ecod logs them.        */
/* ------------------------------------------------------------------ */
enum ecoc_code {
    ECOC_OK = 0,
    ECOC_FAILED = 1,      /* a measurement failed: probe, host or timeout */
    ECOC_USAGE = 2,       /* a bad option */
    ECOC_NOSTART = 3,     /* no virtual machine, unknown host, no probe */
    ECOC_NOWRITE = 4,     /* the result could not be written */
    ECOC_INTERRUPTED = 5  /* a signal (the tools exit 128 + signal) */
};

/* ------------------------------------------------------------------ */
/* Options                                                             */
/* ------------------------------------------------------------------ */
enum ecoc_mode { ECOC_MODE_AUTO, ECOC_MODE_ALL, ECOC_MODE_SPARSE };

#define ECOC_DEFAULT_SIZE 16384      /* bytes per probe message */
#define ECOC_DEFAULT_TRIALS 8        /* samples per pair */
#define ECOC_DEFAULT_ROUNDS 4        /* round trips per sample */
#define ECOC_DEFAULT_DEGREE_TRIALS 15 /* timed broadcasts per k */
#define ECOC_DEFAULT_TIMEOUT 60.0    /* seconds per pair or per k */
#define ECOC_AUTO_SPARSE_ABOVE 32    /* auto: all pairs up to 32 hosts */
#define ECOC_MAX_TRY_DEGREE 4        /* k = 1..4 are tried */
#define ECOC_RECHECK_ROUNDS 2        /* doubtful splits: rounds of `trials`
                                      * more samples of their pairs */

typedef struct ecoc_options {
    int size, trials, rounds;
    enum ecoc_mode mode;
    int degree;              /* 0: choose k by measurement; else fixed */
    int degree_trials;
    double threshold;
    double rate;             /* pairs per second; 0: no limit */
    double timeout;          /* seconds; 0: none */
    const char *probe;       /* the probe program; NULL: found */
    const char *hosts;       /* --hosts LIST; NULL: pvm_config */
    int progress;            /* progress line on stderr */
    int hops;                /* count the routers between hosts (1) or not */
    int model;               /* measure the cost model (1) or not */
} ecoc_options;

void ecoc_options_init(ecoc_options *o);

/* The long options both tools take, for getopt_long; codes >= 0x100. */
enum {
    ECOC_OPT_HOSTS = 0x100, ECOC_OPT_SIZE, ECOC_OPT_TRIALS, ECOC_OPT_ROUNDS,
    ECOC_OPT_MODE, ECOC_OPT_DEGREE, ECOC_OPT_DEGREE_TRIALS, ECOC_OPT_THRESHOLD,
    ECOC_OPT_RATE, ECOC_OPT_TIMEOUT, ECOC_OPT_PROBE, ECOC_OPT_NO_HOPS, ECOC_OPT_NO_MODEL
};
#define ECOC_LONG_OPTIONS                                                  \
    {"hosts", required_argument, NULL, ECOC_OPT_HOSTS},                    \
    {"size", required_argument, NULL, ECOC_OPT_SIZE},                      \
    {"trials", required_argument, NULL, ECOC_OPT_TRIALS},                  \
    {"rounds", required_argument, NULL, ECOC_OPT_ROUNDS},                  \
    {"mode", required_argument, NULL, ECOC_OPT_MODE},                      \
    {"degree", required_argument, NULL, ECOC_OPT_DEGREE},                  \
    {"degree-trials", required_argument, NULL, ECOC_OPT_DEGREE_TRIALS},    \
    {"threshold", required_argument, NULL, ECOC_OPT_THRESHOLD},            \
    {"rate", required_argument, NULL, ECOC_OPT_RATE},                      \
    {"timeout", required_argument, NULL, ECOC_OPT_TIMEOUT},                \
    {"probe", required_argument, NULL, ECOC_OPT_PROBE},                    \
    {"no-hops", no_argument, NULL, ECOC_OPT_NO_HOPS},                    \
    {"no-model", no_argument, NULL, ECOC_OPT_NO_MODEL}

/* Apply one of those options: 0, or -1 with a message in why. */
int ecoc_option(ecoc_options *o, int code, const char *arg, char *why, size_t len);
/* The help text of those options (two-space indent, 78 columns). */
void ecoc_options_help(FILE *out);

/* ------------------------------------------------------------------ */
/* Option values (eco-bench, eco-sim)                                  */
/* ------------------------------------------------------------------ */
/* A whole decimal number in [lo, hi], or -1. */
long ecoc_number(const char *arg, long lo, long hi);
/* A comma-separated list into out[0 .. max-1]: with names, each item's
 * index in names[0 .. nnames-1]; with names NULL, sizes 0 .. 2^28.  The
 * count, or -1 (an unknown name, a bad size, too many, or none). */
int ecoc_parse_list(const char *arg, const char *const *names, int nnames, int *out, int max);

/* ------------------------------------------------------------------ */
/* Hosts                                                               */
/* ------------------------------------------------------------------ */
typedef struct ecoc_host {
    char *name;      /* the name written to the files */
    char *pvmhost;   /* the pvm_config name the probe runs on */
} ecoc_host;

/* Parse "A,B,LABEL@HOST,...": NAME alone means NAME@NAME.  Names must be
 * valid subnet-file names and distinct.  0, or -1 with why. */
int ecoc_parse_hosts(const char *list, ecoc_host **hosts, int *n, char *why, size_t len);
void ecoc_hosts_free(ecoc_host *hosts, int n);

/* ------------------------------------------------------------------ */
/* Statistics                                                          */
/* ------------------------------------------------------------------ */
typedef struct ecoc_stat {
    int n;                    /* samples; 0 when not measured */
    double min, median, max;  /* seconds */
} ecoc_stat;

/* Summarize n samples (sorted in place). */
void ecoc_stat_of(double *samples, int n, ecoc_stat *st);

/* ------------------------------------------------------------------ */
/* A characterization's result                                         */
/* ------------------------------------------------------------------ */
typedef struct ecoc_degree {
    int k;                        /* chosen */
    int how;                      /* 0 default (< 3 hosts), 1 measured, 2 fixed */
    int tried;                    /* k = 1..tried were measured */
    double median[ECOC_MAX_TRY_DEGREE + 1]; /* [k] seconds per broadcast */
} ecoc_degree;

/* The cost model (characterize.c, after the partition): how each part
 * was found, for the summary.  The model itself is r->map's. */
#define ECOC_MODEL_SMALL 64          /* bytes of the small probe */
#define ECOC_MODEL_STREAM 4          /* messages per stream of the uplink test */
#define ECOC_MODEL_REPEATS 3         /* streams: min of this many alone, median of both */
#define ECOC_MODEL_SHARED 1.5        /* two streams this much slower: shared */
#define ECOC_MODEL_BUSY 32           /* messages per stream of the busy round:
                                      * enough that the end mark's round trip
                                      * is a small part of the time */
#define ECOC_MODEL_STEPS 32          /* steps of a round of the lock-step
                                      * ring: enough that the start, GO
                                      * after GO, is a small part of it */
#define ECOC_MODEL_STEPS_LONG ECOC_MODEL_STEPS /* steps of a round of the
                                      * lock-step ring of `big` bytes: as
                                      * many as the short ring's, so that
                                      * the start's skew (GO after GO) is
                                      * the same per step in both and
                                      * cancels in the stepbyte */
#define ECOC_MODEL_SUSTAIN 131072    /* bytes the long stream of a link's
                                      * per-byte cost carries past the short
                                      * one's: well past a shaped link's burst */
typedef struct ecoc_uplink {
    int how;            /* 0 not measured (one host, or no two hosts outside),
                         * 1 measured */
    double ratio[2];    /* [0] out of the subnet, [1] into it: two concurrent
                         * streams' time over one stream's */
    double beta[2];     /* seconds per byte that two streams imply */
    double alone[2];    /* seconds of the slower stream alone (minimum) */
    double both[2];     /* seconds of both at once (the slower; minimum) */
} ecoc_uplink;

/* The machine a host's probe runs on, as its hello says (characterize.h):
 * the running kernel's boot id ("": not known, a probe of an older build)
 * and the CPUs the probe may use (0: not known). */
#define ECOC_MACHINE_ID_MAX 64
typedef struct ecoc_machine {
    char id[ECOC_MACHINE_ID_MAX + 1];
    int cpus;
} ecoc_machine;

/* The model's cores (ecoi_model.cores) of n hosts on the machines mach[n]
 * say (charutil.c states the rule); *hosts and *cpus (may be NULL): the
 * most crowded machine's hosts and CPUs, 0 and 0 when no machine is
 * known.  0: no machine has more hosts than CPUs, or none is known. */
double ecoc_shared_cores(int n, const ecoc_machine *mach, int *hosts, int *cpus);

typedef struct ecoc_model_info {
    int measured;       /* 1: r->map has the model */
    int task_how;       /* 1 two probes on one host, 0 the default */
    int big;            /* bytes of the large probe */
    int stream;         /* messages of `big` bytes in a link's long stream
                         * (the short one: 1) */
    double seconds;     /* wall time of the model's measurement */
    ecoc_uplink *up;    /* [nsubnets] */
    ecoc_stat busy;     /* seconds per message of the rounds with every
                         * host busy (n 0: not measured, one host); the
                         * median is the model's busy */
    ecoc_stat step;     /* seconds per step of the lock-step ring's rounds
                         * (n 0: not measured, one host); the median less
                         * step_links is the model's step */
    double step_links;  /* what a step of the ring lasts by the model's
                         * links for a short message (characterize.c
                         * ring_links: their mean one-way time, or the
                         * slowest's bytes, whichever is more) */
    ecoc_stat step_long;/* the same ring's rounds with messages of `big`
                         * bytes (n 0: not measured); its excess over
                         * step_long_links less the short one's, per byte
                         * more, is the model's stepbyte */
    double step_long_links; /* step_links for `big` bytes */
    int relay_measured; /* 1: the relay below was measured (3+ hosts) */
    int relay[3];       /* its hosts (indexes into host[]): from, via, to */
    double relay_trip;  /* seconds of its round trip (the least) */
    double relay_direct;/* from-to's one-way time (half the least round trip) */
    double relay_leg;   /* via-to's one-way time; the model's forward is
                         * relay_trip - 2 relay_direct - relay_leg, at
                         * least 0 */
    char relay_failed[256]; /* why the relay failed ("": it did not, or
                             * was not tried); the forward is then 0 */
    int crowd_hosts;    /* the most crowded machine's hosts (the model's
                         * cores: ecoc_shared_cores), 0: none known */
    int crowd_cpus;     /* and its CPUs */
} ecoc_model_info;

typedef struct ecoc_result {
    int n;                   /* hosts */
    ecoc_host *host;         /* [n], in the order measured */
    ecoc_machine *machine;   /* [n] each host's machine (NULL: none said) */
    struct ecoc_pairs *pairs;/* (NULL: none yet) what was measured or
                              * counted of each pair (result_pairs.c):
                              * ecoc_pair, ecoc_hops, ecoc_next, setters */
    int hops_counted;        /* 1: the routers between hosts were counted;
                              * 0: not (--no-hops), ecoc_hops says -1 */
    long measured;           /* pairs measured */
    int sparse;              /* 1: the cheap mode chose the pairs */
    eco_map *map;            /* partitioned, degrees set */
    ecoc_degree *degree;     /* [eco_map_nsubnets(map)] */
    double seconds;          /* wall time of the run */
    ecoc_options opt;        /* what it was measured with */
    ecoc_model_info model;   /* the cost model's measurement (--no-model: 0s) */
    long rechecked;          /* pairs measured again for splits within the
                              * noise (ecoc_doubtful_splits), over */
    int recheck_rounds;      /* this many rounds */
    int recheck_before;      /* subnets before the first (after: the map's) */
    char *warnings;          /* what the run could not measure but went on
                              * without, one a line ("...\n"); NULL: none */
} ecoc_result;

/* A split of two subnets that noise can explain (lib/doubtful.c): map
 * subnets s and t, the cheapest pair between them, the floor (the
 * cheaper of their cheapest pairs inside) and the noise (the median,
 * over the pairs inside either, of the pair's median / floor - 1);
 * doubtful when cost <= (1 + threshold) * (1 + noise) * floor. */
typedef struct ecoc_doubt {
    int s, t;
    double cost, floor, noise;
} ecoc_doubt;

/* What ecoc_doubtful_splits did, the bound of its size (characterize_unit):
 * the steps of its walks of the measured pairs, the pairs of subnets
 * it judged, the bytes it allocated. */
typedef struct ecoc_doubt_work {
    long visits, judged;
    size_t bytes;
} ecoc_doubt_work;

/* The doubtful splits of r's partition, judged on its measured pairs
 * (all, or the cheap mode's): their number, or ECO_ERR_NOMEM.  mark (may be NULL),
 * [r->n]: 1 for the hosts of the subnets of a doubtful split, else 0;
 * worst (may be NULL): the doubtful split whose cost is the least
 * multiple of its floor, the first of them in the order of s, then t;
 * work (may be NULL): what it took. */
int ecoc_doubtful_splits(const ecoc_result *r, unsigned char *mark, ecoc_doubt *worst,
                         ecoc_doubt_work *work);

/* Add a warning line to r->warnings: ECO_OK or ECO_ERR_NOMEM. */
int ecoc_warn(ecoc_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Print each warning line as "PROG: warning: LINE" (eco-characterize). */
void ecoc_print_warnings(const ecoc_result *r, const char *prog, FILE *out);

/* Two-point fit of one-way times t_small at `small` bytes and t_big at
 * `big` (> small) bytes: beta the slope (>= 0), alpha the intercept, or
 * t_small when the intercept is below 0 (a shaped link's burst let the
 * small probe through at line rate). */
void ecoc_fit(double t_small, int small, double t_big, int big, double *alpha, double *beta);

/* The model's fit of a link: ecoc_fit of the two probes, then the
 * sustained per-byte cost of two streams, t_long seconds for `extra`
 * bytes more than t_short's ((t_long - t_short) / extra: a burst, the
 * start and the end mark's round trip cancel), when that is the larger
 * slope; alpha is then the small probe's time less its bytes at that
 * slope (t_small when below 0, as in ecoc_fit).  extra <= 0: ecoc_fit. */
void ecoc_fit_sustained(double t_small, int small, double t_big, int big, double t_short,
                        double t_long, double extra, double *alpha, double *beta);

/* A link's burst, the bytes of a message that pass at once when it was
 * idle (a shaper's full bucket): the large probe's bytes past the small
 * one's less those its extra time pays at the sustained beta,
 * (big - small) - (t_big - t_small) / beta, to the nearest byte, within
 * 0 .. big - small; 0 when the probes' slope is not 10% below beta at
 * least (noise), beta <= 0, big <= small or a time is not finite. */
double ecoc_fit_burst(double t_small, int small, double t_big, int big, double beta);

void ecoc_result_free(ecoc_result *r);

/*
 * The result's pairs (result_pairs.c): the samples (40 bytes) of each
 * measured pair once, in the sorted list of its lower host
 * (eco_map_impl.h), a lookup a binary search; the hops of every pair,
 * counted all at once, in a triangle of bytes.  10,000 hosts with 3
 * measured pairs a host take 1.9 MB, and 52 MB with the hops of every
 * pair (597 MB in sorted lists of 8 bytes a pair before; the n x n
 * arrays before those took 3.6 GB).
 */
/* The samples of pair a-b (either order), NULL when not measured. */
const ecoc_stat *ecoc_pair(const ecoc_result *r, int a, int b);
/* The routers between a and b: -1 unknown (or not counted), 0 when a == b. */
int ecoc_hops(const ecoc_result *r, int a, int b);
/* The least host c > b with samples or (counted) hops of pair a-c, r->n
 * when none:
 * for (b = ecoc_next(r, a, a); b < r->n; b = ecoc_next(r, a, b)) visits
 * a's known pairs with the hosts after it, in order. */
int ecoc_next(const ecoc_result *r, int a, int b);
/* The same among the pairs with samples alone: the walk of the measured
 * pairs, not of every pair whose hops were counted (all of them by
 * default, 5 x 10^7 at 10,000 hosts). */
int ecoc_next_measured(const ecoc_result *r, int a, int b);
/* Keep the samples (st->n > 0) or the hops (0 to 254: the probes count
 * at most 64) of pair a != b, in place of what was kept.  ECO_OK,
 * ECO_ERR_ARG or ECO_ERR_NOMEM. */
int ecoc_set_pair(ecoc_result *r, int a, int b, const ecoc_stat *st);
int ecoc_set_hops(ecoc_result *r, int a, int b, int hops);
/* The bytes the pairs take (the lists' capacity, the n list heads, the
 * hops' triangle once a pair's hops were kept). */
size_t ecoc_pair_bytes(const ecoc_result *r);
/* Free the pairs (r->pairs NULL); ecoc_result_free does. */
void ecoc_pairs_free(ecoc_result *r);

/* Build r->map from r's pairs (minimum per pair) and partition it. */
int ecoc_result_partition(ecoc_result *r, char *err, size_t errlen);

/* The matrix file: "HOST_A HOST_B SECONDS [hops=N] # median M max X
 * spread S%", with "-" for SECONDS when only the hops are known. */
int ecoc_fprint_matrix(const ecoc_result *r, FILE *out);

/*
 * Write the matrix (when matrix_path is not NULL) and the subnet file,
 * each atomically, the matrix only once the subnet file is in place: on
 * failure both old files are untouched (but for the last rename) and err
 * says which.  Creates the subnet file's directory when it is missing.
 * Signals are blocked meanwhile.  ECOC_OK or ECOC_NOWRITE.
 */
int ecoc_commit(const ecoc_result *r, const char *subnet_path,
                const char *matrix_path, char *err, size_t errlen);

/* Write text to path atomically (temporary file PATH.tmp.XXXXXX, fsync,
 * rename; ecoi_atomic_write), after removing stale temporary files of
 * path (ecoi_remove_stale_temps).  0, or -1 with err. */
int ecoc_write_atomic(const char *path, const char *text, size_t len,
                      char *err, size_t errlen);

/* The default subnet file: $HOME/.eco/subnets (NULL without HOME). */
const char *ecoc_default_subnet_file(void);

/* The summary of the subnets found, for people. */
void ecoc_print_summary(const ecoc_result *r, FILE *out);

/* "1.2 us", "3.40 ms", "1.250 s"; "-" below 0 (not measured). */
const char *ecoc_fmt_time(double s, char *buf, size_t len);
/* "1:05", "1:02:03" */
const char *ecoc_fmt_clock(double s, char *buf, size_t len);

/* ------------------------------------------------------------------ */
/* The cheap mode (sparse.c): choose pairs                            */
/* ------------------------------------------------------------------ */
typedef struct ecoc_sparse_ops {
    /* Measure hosts a and b (indexes 0..n-1): 0 with *seconds > 0, or
     * any other value, which stops the plan and is returned. */
    int (*measure)(void *arg, int a, int b, double *seconds);
    /* Optional: about how many more pairs the plan expects to measure. */
    void (*estimate)(void *arg, long more);
    void *arg;
} ecoc_sparse_ops;

/*
 * Measure some pairs of n hosts so that ECO's partition of the measured
 * pairs finds the subnets that measuring all pairs would (see sparse.c
 * for the method).  Every pair is measured at most once, through
 * ops->measure (the caller keeps what it needs of each measurement; the
 * planner keeps the costs in O(n + pairs) memory, no n x n matrix);
 * *measured counts them.  Returns 0, or the first non-zero value of
 * measure(), or ECO_ERR_NOMEM.
 */
int ecoc_sparse(int n, double threshold, const ecoc_sparse_ops *ops, long *measured);

/* ------------------------------------------------------------------ */
/* The hops datagrams' nonces (keyed_hash.c)                          */
/* ------------------------------------------------------------------ */
/* SipHash-2-4 of len bytes under a 128-bit key (the paper's byte order:
 * the key and the message as little-endian words). */
uint64_t ecoc_siphash24(const unsigned char key[16], const void *msg, size_t len);
/* The nonce of the pair of probes a and b in a HOPS round whose secret
 * key is key: SipHash-2-4 of the lower index then the higher, each 4
 * bytes little-endian.  nonce(a, b) == nonce(b, a); unpredictable
 * without the key, which the master draws afresh for every round. */
uint64_t ecoc_hops_nonce(const unsigned char key[16], int a, int b);

#endif /* ECO_CHAR_H */
