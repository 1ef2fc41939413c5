/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * characterize.h -- private: the network characterization shared by
 * eco-characterize(1) and ecod(8).  Not installed; not libeco API.
 *
 *   charutil.c     pure helpers: options, host lists, statistics, the
 *                  matrix file, atomic writes, the summary     (no PVM)
 *   sparse.c       the cheap mode: which pairs to measure       (no PVM)
 *   characterize.c the PVM master: probes, pairs, the degree k
 *   protocol.c     bounded strings in messages, hops datagrams
 *   eco-probe.c    the probe task the master spawns on every host
 *
 * Everything the tools read or write goes through eco.h.
 */
#ifndef ECO_CHARACTERIZE_H
#define ECO_CHARACTERIZE_H

#include <netinet/in.h>
#include <signal.h>
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

/* Set by the tools' signal handlers: the number of the signal that asks
 * the measurement to stop, 0 while none has.  Checked at least every
 * 100 ms while measuring. */
extern volatile sig_atomic_t ecoc_stop;

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
typedef struct ecoc_uplink {
    int how;            /* 0 not measured (one host, or no two hosts outside),
                         * 1 measured */
    double ratio[2];    /* [0] out of the subnet, [1] into it: two concurrent
                         * streams' time over one stream's */
    double beta[2];     /* seconds per byte that two streams imply */
    double alone[2];    /* seconds of the slower stream alone (minimum) */
    double both[2];     /* seconds of both at once (the slower; minimum) */
} ecoc_uplink;

typedef struct ecoc_model_info {
    int measured;       /* 1: r->map has the model */
    int task_how;       /* 1 two probes on one host, 0 the default */
    int big;            /* bytes of the large probe */
    double seconds;     /* wall time of the model's measurement */
    ecoc_uplink *up;    /* [nsubnets] */
} ecoc_model_info;

typedef struct ecoc_result {
    int n;                   /* hosts */
    ecoc_host *host;         /* [n], in the order measured */
    ecoc_stat *pair;         /* [n*n], pair[a*n+b] == pair[b*n+a] */
    int *hops;               /* [n*n] routers between a and b, -1 unknown; NULL: not counted */
    long measured;           /* pairs measured */
    int sparse;              /* 1: the cheap mode chose the pairs */
    eco_map *map;            /* partitioned, degrees set */
    ecoc_degree *degree;     /* [eco_map_nsubnets(map)] */
    double seconds;          /* wall time of the run */
    ecoc_options opt;        /* what it was measured with */
    ecoc_model_info model;   /* the cost model's measurement (--no-model: 0s) */
} ecoc_result;

/* Two-point fit of one-way times t_small at `small` bytes and t_big at
 * `big` (> small) bytes: beta the slope (>= 0), alpha the intercept, or
 * t_small when the intercept is below 0 (a shaped link's burst let the
 * small probe through at line rate). */
void ecoc_fit(double t_small, int small, double t_big, int big, double *alpha, double *beta);

void ecoc_result_free(ecoc_result *r);

/* Build r->map from r->pair (minimum per pair) and partition it. */
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

/* "1.2 us", "3.40 ms", "1.250 s". */
const char *ecoc_fmt_time(double s, char *buf, size_t len);
/* "1:05", "1:02:03" */
const char *ecoc_fmt_clock(double s, char *buf, size_t len);

/* ------------------------------------------------------------------ */
/* The cheap mode (sparse.c): choose pairs without PVM                 */
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
 * for the method).  cost[a*n+b] (n*n, filled with -1 by the caller, kept
 * symmetric) receives every measurement; *measured counts them.
 * Returns 0, or the first non-zero value of measure(), or ECO_ERR_NOMEM.
 */
int ecoc_sparse(int n, double threshold, const ecoc_sparse_ops *ops,
                double *cost, long *measured);

/* ------------------------------------------------------------------ */
/* The PVM master (characterize.c)                                     */
/* ------------------------------------------------------------------ */

/* Log hook: the tools print progress and notes their own way. */
typedef void (*ecoc_note_fn)(void *arg, const char *fmt, ...);

/*
 * Characterize the virtual machine the caller is enrolled in (pvm_mytid
 * done): resolve the hosts, spawn one probe per host, measure, partition,
 * choose k, stop the probes.  On success *r holds the result (free with
 * ecoc_result_free).  On failure err says what happened and, for
 * ECOC_INTERRUPTED, ecoc_stop holds the signal.  Nothing is written.
 */
int ecoc_characterize(const ecoc_options *o, ecoc_result *r, char *err, size_t errlen);

/* Enroll in PVM (pvm_mytid) without libpvm's noise when there is no
 * daemon: 0, or ECOC_NOSTART with a message in why. */
int ecoc_enroll(char *why, size_t len);

/* Where the probe program is: o->probe, else the sibling of the running
 * program, else ECO_PKGLIBEXECDIR/eco-probe.  0, or -1 with why. */
int ecoc_find_probe(const char *given, char *path, size_t len, char *why, size_t wlen);

/* ------------------------------------------------------------------ */
/* The master-probe protocol (characterize.c and eco-probe.c)          */
/* ------------------------------------------------------------------ */
#define ECOC_TAG_BASE 0x45430000
enum {
    ECOC_TAG_HELLO = ECOC_TAG_BASE + 1, /* probe -> master: started */
    ECOC_TAG_CMD,                       /* master -> probe: a command */
    ECOC_TAG_RESULT,                    /* probe -> master: its outcome */
    ECOC_TAG_ECHO,                      /* probe -> probe: please echo */
    ECOC_TAG_ECHO_BACK,                 /* probe -> probe: the echo */
    ECOC_TAG_ACK,                       /* probe -> root probe: got it */
    ECOC_TAG_PARENT_GONE,               /* at a probe: the master exited */
    ECOC_TAG_EXIT,                      /* at the master: a probe exited */
    ECOC_TAG_HOSTDEL,                   /* at the master: a host left */
    ECOC_TAG_SINK,                      /* probe -> probe: stream data, dropped */
    ECOC_TAG_SINK_END,                  /* probe -> probe: stream ends, ack it */
    ECOC_TAG_SINK_ACK,                  /* probe -> probe: all of it arrived */
    ECOC_TAG_GO                         /* master -> probe: start the stream */
};
enum {
    ECOC_CMD_QUIT = 1,   /* (nothing) */
    ECOC_CMD_PING = 2,   /* peer tid, size, rounds, trials -> status, trials doubles */
    ECOC_CMD_BCAST = 3,  /* n, tids[n], size, reps, warm, file text -> status, reps doubles at rank 0 */
    ECOC_CMD_HOPS_OPEN = 4, /* (nothing) -> status, the UDP port it listens on */
    ECOC_CMD_HOPS = 5,   /* n, self, n x (host name, port, nonce high, nonce low)
                            -> status, n hops (-1: none) */
    ECOC_CMD_STREAM = 6  /* peer tid, size, count -> status (0: the route to
                            the peer is connected, ready), then on the
                            master's ECOC_TAG_GO -> status, 1 double: seconds
                            from the first of count messages of size bytes
                            to the peer (ECOC_TAG_SINK, then ECOC_TAG_SINK_END)
                            until its ECOC_TAG_SINK_ACK.  Two streams start
                            together: neither one's connecting waits behind
                            the other's data */
};

/* Strings travel as an int length, then that many bytes (pvm_pkbyte), no
 * terminator: pvm_upkstr writes whatever length the sender packed, these
 * check it first.  At most ECOC_MAX_STRING bytes. */
#define ECOC_MAX_STRING (1 << 24)
/* Pack s: 0, or a PVM error (PvmBadParam when longer than the maximum). */
int ecoc_pkstr(const char *s);
/* Unpack a string into buf of cap bytes, terminated: 0, or -1 when it is
 * longer than cap - 1 (or the message ends). */
int ecoc_upkstr(char *buf, size_t cap);
/* Unpack a string into new storage (free it), or NULL: too long for the
 * message that carries it, or no memory. */
char *ecoc_upkstr_new(void);

/* Hops: every probe sends ECOC_HOPS_COPIES datagrams with TTL
 * ECOC_HOPS_TTL to every other and reads the TTL they arrive with, for at
 * most ECOC_HOPS_WAIT seconds; hops = ECOC_HOPS_TTL - TTL on arrival. */
#define ECOC_HOPS_TTL 64
#define ECOC_HOPS_COPIES 3
#define ECOC_HOPS_WAIT 2.0

/* A hops datagram: ECOC_HOPS_WORDS 32-bit words in network order, the
 * magic, the nonce of the pair (high word, low word), the sender's index.
 * The master draws a fresh unpredictable 64-bit nonce for every pair of
 * probes in every HOPS round and gives each probe those of its pairs. */
#define ECOC_HOPS_MAGIC 0x45434f48u /* "ECOH" */
#define ECOC_HOPS_WORDS 4
void ecoc_hops_datagram(uint32_t msg[ECOC_HOPS_WORDS], uint64_t nonce, int self);

/* What a probe knows of probe j in a HOPS round. */
typedef struct ecoc_hops_peer {
    struct sockaddr_in addr; /* its socket, as this host resolves its name */
    uint64_t nonce;          /* of the pair (this probe, j) */
    int ok;                  /* j is another probe with a known address */
} ecoc_hops_peer;

/* The index of the probe that sent this datagram of len bytes from src,
 * or -1 when it is not one of this round: the wrong size or magic, not a
 * peer, not the pair's nonce, or not from that peer's address and port
 * (peer[n], this probe is self). */
int ecoc_hops_sender(const void *msg, size_t len, const struct sockaddr_in *src,
                     const ecoc_hops_peer *peer, int n, int self);

#endif /* ECO_CHARACTERIZE_H */
