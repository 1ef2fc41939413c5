/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * characterize.c -- the PVM master of eco-characterize(1) and ecod(8):
 * section 3 of the ECO paper, plus the degree k of each subnet's tree
 * chosen by measurement (the paper's future work).
 *
 *   1. The hosts: --hosts, else every host of pvm_config.
 *   2. One probe per host (eco-probe, by absolute path); each says hello
 *      and which machine it runs on (the kernel's boot id) with how many
 *      CPUs: the model's cores (5a).
 *   3. The pairs, one at a time: the master tells probe A to time
 *      samples of `rounds` round trips of `size` bytes with probe B over a
 *      direct route, and waits for them before the next pair.  One-way
 *      time = sample / (2 * rounds); the pair's cost is the minimum of
 *      its `trials` samples; median and dearest are kept for diagnosis.
 *      All pairs: a pass that connects every pair's direct route, then
 *      `trials` passes over every pair, one sample each time, as the paper
 *      does.  The cheap mode (lib/sparse.c): the pairs it asks
 *      for, all samples of a pair at once (it needs the cost to go on).
 *   4. Hops (unless --no-hops): every probe opens a UDP socket, then
 *      sends datagrams with TTL 64 to every other probe's socket and
 *      reports the TTL those from each arrive with: the routers between
 *      the hosts.  A pair that no datagram crossed stays unknown.
 *   5. ECO's partition of the costs and hops (eco_map_partition).
 *   5a. The cost model (unless --no-model; eco_map_impl.h, ecoi_model),
 *      one measurement at a time like the pairs:
 *      - per link (each subnet of 2+ hosts: its first two hosts; each
 *        pair of subnets: their first hosts), the minimum one-way time
 *        at ECOC_MODEL_SMALL bytes (4x the rounds) and at the probe size
 *        (the pair's cost when it was measured at that size), and
 *        streams (ECOC_CMD_STREAM) from the first host to the second of
 *        1 and of 1 + ECOC_MODEL_SUSTAIN / probe size (at least 3)
 *        probe-size messages, each the minimum of ECOC_MODEL_REPEATS:
 *        beta is the sustained per-byte cost, the streams' difference
 *        over their extra bytes (a shaped link's burst, the start and
 *        the end mark's round trip cancel), unless the probes' slope is
 *        larger; alpha the small probe's time less its bytes at beta
 *        (ecoc_fit_sustained).  The probes' slope alone let a tbf burst
 *        carry most of a 16 KB probe: 42 ns/byte on a 100 Mbit/s port
 *        (80 true), 12% low on 5 and 10 Mbit/s links.  That burst is
 *        the link's: the probe-size probe's bytes past the small one's
 *        less those its extra time pays at beta, 0 to the probe size
 *        (ecoc_fit_burst);
 *      - the task cost: a second probe on the first host, the same two
 *        sizes; when it cannot start, a copy of the cheapest cost inside
 *        a subnet;
 *      - shared links: for each subnet s of 2+ hosts, two hosts of s
 *        send streams (ECOC_CMD_STREAM) to two hosts outside s (in the
 *        two nearest other subnets when there are), first each alone, then both at
 *        once (alone: the minimum of 3; both: the median of 3); and the
 *        same into s.  When both take ECOC_MODEL_SHARED times the slower
 *        alone or more (two streams start on the master's word, once
 *        both routes are connected), and the per-byte
 *        cost that implies (time / both streams' bytes) is at least
 *        twice the inside of s (else it is the hosts' CPUs), the
 *        subnet's hosts share a link: uplink[s] is that cost (the
 *        smaller of the directions found shared: load only slows);
 *      - every host busy (2+ hosts): every probe streams
 *        ECOC_MODEL_BUSY small messages to the next host's of its
 *        subnet at once (a ring in each subnet, all at once: each sends
 *        and receives; hosts alone in their subnet sit out, and where
 *        no two hosts share one, one ring of all), ECOC_MODEL_REPEATS
 *        rounds; busy
 *        is the median round's slowest stream per message: what a
 *        message costs at the least while every member of a collective
 *        sends (lib/select.c's floor; its default when not measured);
 *      - a lock-step ring (2+ hosts): every probe at once sends one
 *        ECOC_MODEL_SMALL-byte message to the next host's and waits for
 *        the previous host's before the next, ECOC_MODEL_STEPS steps
 *        (ECOC_CMD_STEPS), ECOC_MODEL_REPEATS rounds; step is the median
 *        round's slowest probe's time per step: what a step of the ring
 *        and recursive-doubling algorithms costs, a latency under load
 *        (busy is a throughput); not measured (0), lib/select.c takes
 *        busy; then the same with messages of the large probe's size,
 *        ECOC_MODEL_STEPS_LONG steps: stepbyte, what each byte of a
 *        long message adds to a step when every host sends one;
 *      - a relay (3+ hosts; measure_forward): one probe's small
 *        messages through a second, which passes them on, to a third,
 *        which echoes them (ECOC_CMD_RELAY), against the pings of the
 *        first and the second with the third: forward, what a tree's
 *        middle member adds to a hop;
 *      - the cores (not measured: the probes' hellos): hosts on one
 *        machine share its CPUs; with more hosts than CPUs on one, the
 *        count lib/select.c charges the busy cost on
 *        (ecoc_shared_cores, charutil.c), else 0: each its own.
 *   6. For each subnet of >= 3 hosts, k = 1 .. min(4, hosts - 1): the
 *      subnet's probes run eco_init with a subnet file holding only their
 *      hosts as one subnet of degree k, then `degree_trials` broadcasts of
 *      `size` bytes from the subnet's first host, each timed from its
 *      start to the last acknowledgement; the k with the lowest median
 *      wins (ties: the smaller k).
 *   7. The probes are told to quit.
 *
 * Failures (a probe exits, a host leaves, no answer within --timeout, a
 * signal in ecoc_stop) stop everything: the probes are killed and the
 * caller gets the reason.  Nothing is written here.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>
#include <pvm3.h>

#include "characterize.h"
#include "eco_map_impl.h" /* the cost model (ecoi_model) on the result's map */

volatile sig_atomic_t ecoc_stop = 0;

typedef struct master {
    const ecoc_options *o;
    ecoc_result *r;
    int *tid;              /* [n] probe of each host, 0 before spawning */
    int *dtid;             /* [n] pvmd of each host */
    int nd, *dtids;        /* distinct pvmds, notified on deletion */
    char *err;
    size_t errlen;
    double start;          /* wall time of the start */
    double measure_start;  /* of the first pair */
    double last_start;     /* of the last pair, for --rate */
    long done, left;       /* measurements made, expected still */
    const char *unit;      /* what done/left count: "pairs" or "pair samples" */
    double shown;          /* when the progress line was last drawn */
    int pass;              /* all pairs: the pass (1..trials), else 0 */
    int progress_shown;
    int extra;             /* the second probe on host 0 (the task cost), 0: none */
    int home;              /* the map subnet of this program's host, -1: none */
    double *samp;          /* all pairs: pair i's samples at samp[i * cap], */
    int *nsamp, cap;       /* nsamp[i] of them (NULL in the cheap mode) */
} master;

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int fail(master *m, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(master *m, int code, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(m->err, m->errlen, fmt, ap);
    va_end(ap);
    return code;
}

static const char *pvm_reason(int code)
{
    switch (code) {
    case PvmNoFile: return "no such file on that host";
    case PvmNoHost: return "no such host";
    case PvmSysErr: return "cannot contact the PVM daemon";
    case PvmDenied: return "permission denied";
    case PvmOutOfRes: return "out of resources";
    case PvmNoMem: return "out of memory";
    case PvmHostFail: return "host failed";
    case PvmBadParam: return "bad parameter";
    default: return "PVM error";
    }
}

static const char *signame(int sig)
{
    switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: return "a signal";
    }
}

/* The host of one of our probes, or NULL. */
static const char *host_of_tid(const master *m, int tid)
{
    for (int i = 0; m->tid && i < m->r->n; i++)
        if (m->tid[i] == tid)
            return m->r->host[i].name;
    if (m->extra > 0 && tid == m->extra && m->r->n > 0)
        return m->r->host[0].name;
    return NULL;
}

/* The name of our host with pvmd dtid when it has really left the
 * virtual machine (a cancelled notice of an earlier run is not), or NULL. */
static const char *host_gone(const master *m, int dtid)
{
    struct pvmhostinfo *hi;
    int nhost, narch;

    if (pvm_config(&nhost, &narch, &hi) >= 0)
        for (int h = 0; h < nhost; h++)
            if (hi[h].hi_tid == dtid)
                return NULL;
    for (int i = 0; m->dtid && i < m->r->n; i++)
        if (m->dtid[i] == dtid)
            return m->r->host[i].pvmhost;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Progress (stderr, terminals only)                                   */
/* ------------------------------------------------------------------ */

static void progress(master *m, const char *what)
{
    char el[32], lf[32];
    double spent = now() - m->measure_start;
    long total = m->done + m->left;

    if (!m->o->progress || now() - m->shown < 0.1) /* ten lines a second at most */
        return;
    m->shown = now();
    ecoc_fmt_clock(now() - m->start, el, sizeof el);
    if (m->done > 0 && m->left > 0)
        ecoc_fmt_clock(spent / (double)m->done * (double)m->left, lf, sizeof lf);
    else
        snprintf(lf, sizeof lf, "?");
    fprintf(stderr, "\r\033[Keco-characterize: %ld/%ld %s done, %ld left, %s elapsed, "
                    "~%s left  %.40s", m->done, total, m->unit, m->left, el,
            m->left ? lf : "0:00", what);
    fflush(stderr);
    m->progress_shown = 1;
}

static void progress_end(master *m)
{
    if (m->progress_shown) {
        fprintf(stderr, "\r\033[K");
        fflush(stderr);
    }
    m->progress_shown = 0;
}

/* --rate: wait until share/rate seconds after the last start (share: the
 * fraction of a pair's measurement about to be made). */
static int pace(master *m, double share)
{
    double gap = m->o->rate > 0 ? share / m->o->rate : 0.0;

    while (now() < m->last_start + gap) {
        double left = m->last_start + gap - now();
        struct timespec ts = { 0, (long)((left < 0.1 ? left : 0.1) * 1e9) };
        if (ecoc_stop)
            return fail(m, ECOC_INTERRUPTED, "interrupted by %s", signame(ecoc_stop));
        nanosleep(&ts, NULL);
    }
    m->last_start = now();
    return ECOC_OK;
}

/* ------------------------------------------------------------------ */
/* Waiting                                                             */
/* ------------------------------------------------------------------ */

/* A message with tag from src, watching exits, hosts, signals and the
 * clock: its buffer id (> 0), or minus an ecoc code with err set. */
static int wait_for(master *m, int src, int tag, const char *what)
{
    double deadline = m->o->timeout > 0 ? now() + m->o->timeout : 0.0;
    int bid, who = 0;

    for (;;) {
        struct timeval tv = { 0, 100000 };
        bid = pvm_trecv(src, tag, &tv);
        if (ecoc_stop) { /* first: a signal may also fail the receive */
            if (bid > 0)
                pvm_freebuf(bid);
            return -fail(m, ECOC_INTERRUPTED, "interrupted by %s", signame(ecoc_stop));
        }
        if (bid > 0)
            return bid;
        if (bid < 0)
            return -fail(m, ECOC_FAILED, "lost the PVM daemon (%s) while waiting for %s",
                         pvm_reason(bid), what);
        if (pvm_nrecv(-1, ECOC_TAG_EXIT) > 0 && pvm_upkint(&who, 1, 1) >= 0 &&
            host_of_tid(m, who)) /* not a late notice of an earlier run */
            return -fail(m, ECOC_FAILED, "the probe on host %s (task t%x) exited",
                         host_of_tid(m, who), who);
        if (pvm_nrecv(-1, ECOC_TAG_HOSTDEL) > 0 && pvm_upkint(&who, 1, 1) >= 0 &&
            host_gone(m, who))
            return -fail(m, ECOC_FAILED, "host %s left the virtual machine", host_gone(m, who));
        if (deadline > 0.0 && now() > deadline)
            return -fail(m, ECOC_FAILED, "no answer within %g s while waiting for %s "
                         "(see --timeout)", m->o->timeout, what);
    }
}

/* ------------------------------------------------------------------ */
/* Hosts and probes                                                    */
/* ------------------------------------------------------------------ */

/* The hosts to probe, with their pvmd tids. */
static int resolve_hosts(master *m)
{
    struct pvmhostinfo *hi;
    int nhost, narch, n = 0;
    ecoc_result *r = m->r;
    char why[512];

    if (pvm_config(&nhost, &narch, &hi) < 0)
        return fail(m, ECOC_NOSTART, "pvm_config failed: cannot list the virtual machine");
    if (m->o->hosts) {
        if (ecoc_parse_hosts(m->o->hosts, &r->host, &n, why, sizeof why) != 0)
            return fail(m, ECOC_USAGE, "%s", why);
    } else {
        if (!(r->host = calloc((size_t)nhost, sizeof *r->host)))
            return fail(m, ECOC_FAILED, "%s", eco_strerror(ECO_ERR_NOMEM));
        for (n = 0; n < nhost; n++)
            if (!(r->host[n].name = strdup(hi[n].hi_name)) ||
                !(r->host[n].pvmhost = strdup(hi[n].hi_name))) {
                r->n = n + 1;
                return fail(m, ECOC_FAILED, "%s", eco_strerror(ECO_ERR_NOMEM));
            }
    }
    r->n = n;
    m->tid = calloc((size_t)n + 1, sizeof *m->tid);
    m->dtid = calloc((size_t)n + 1, sizeof *m->dtid);
    m->dtids = calloc((size_t)n + 1, sizeof *m->dtids);
    if (!m->tid || !m->dtid || !m->dtids)
        return fail(m, ECOC_FAILED, "%s", eco_strerror(ECO_ERR_NOMEM));
    for (int i = 0; i < n; i++) {
        for (int h = 0; h < nhost && !m->dtid[i]; h++)
            if (strcmp(hi[h].hi_name, r->host[i].pvmhost) == 0)
                m->dtid[i] = hi[h].hi_tid;
        if (!m->dtid[i])
            return fail(m, ECOC_NOSTART, "host %s is not in the virtual machine "
                        "(pvm_config names %d host%s, the first %s)", r->host[i].pvmhost,
                        nhost, nhost == 1 ? "" : "s", nhost > 0 ? hi[0].hi_name : "-");
        int seen = 0;
        for (int d = 0; d < m->nd; d++)
            seen |= m->dtids[d] == m->dtid[i];
        if (!seen)
            m->dtids[m->nd++] = m->dtid[i];
    }
    return ECOC_OK;
}

int ecoc_enroll(char *why, size_t len)
{
    const char *tmp = getenv("PVM_TMP");
    char said[512] = "";
    FILE *cap;
    int saved, tid;

    if (geteuid() == 0 && !getenv("PVM_ALLOW_ROOT")) {
        snprintf(why, len, "PVM refuses to run as root unless PVM_ALLOW_ROOT is set "
                 "(export PVM_ALLOW_ROOT=1)");
        return ECOC_NOSTART;
    }
    pvm_setopt(PvmAutoErr, 0);
    /* libpvm reports a missing daemon on stderr, several times: keep it. */
    fflush(stderr);
    saved = dup(STDERR_FILENO);
    cap = tmpfile();
    if (saved >= 0 && cap)
        dup2(fileno(cap), STDERR_FILENO);
    tid = pvm_mytid();
    if (saved >= 0 && cap) {
        fflush(stderr);
        dup2(saved, STDERR_FILENO);
        rewind(cap);
        if (!fgets(said, sizeof said, cap))
            said[0] = '\0';
        said[strcspn(said, "\n")] = '\0';
    }
    if (saved >= 0)
        close(saved);
    if (cap)
        fclose(cap);
    if (tid < 0) {
        snprintf(why, len, "cannot contact the PVM daemon: is the virtual machine running? "
                 "(start it with pvm(1), or pvmd HOSTFILE; PVM_TMP is %s)%s%s",
                 tmp ? tmp : "not set: /tmp", said[0] ? "; libpvm said: " : "", said);
        return ECOC_NOSTART;
    }
    return ECOC_OK;
}

int ecoc_find_probe(const char *given, char *path, size_t len, char *why, size_t wlen)
{
    char self[4096];
    ssize_t got;

    if (given) {
        if (given[0] != '/' && getcwd(self, sizeof self))
            snprintf(path, len, "%s/%s", self, given);
        else
            snprintf(path, len, "%s", given);
        if (access(path, X_OK) != 0) {
            snprintf(why, wlen, "probe %s: %s", path, strerror(errno));
            return -1;
        }
        return 0;
    }
    got = readlink("/proc/self/exe", self, sizeof self - 1);
    if (got > 0) {
        char *slash;
        self[got] = '\0';
        if ((slash = strrchr(self, '/'))) {
            snprintf(path, len, "%.*s/eco-probe", (int)(slash - self), self);
            if (access(path, X_OK) == 0)
                return 0;
        }
    }
    snprintf(path, len, "%s/eco-probe", ECO_PKGLIBEXECDIR);
    if (access(path, X_OK) != 0) {
        snprintf(why, wlen, "cannot find the probe program eco-probe (not next to this "
                 "program, and %s: %s); give --probe PATH", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* The machine in a probe's hello (characterize.h), its host name read
 * already: a probe of an older build sends the name alone, and an id
 * too long is none either: not known ("", 0). */
static void read_machine(ecoc_machine *mach)
{
    if (ecoc_upkstr(mach->id, sizeof mach->id) != 0 || pvm_upkint(&mach->cpus, 1, 1) < 0 ||
        mach->cpus < 0) {
        mach->id[0] = '\0';
        mach->cpus = 0;
    }
}

/* One probe per host, each confirmed by its hello, which says its
 * machine (r->machine). */
static int spawn_probes(master *m)
{
    char path[4200], why[4400], name[1024];
    int rc, bid;

    if (ecoc_find_probe(m->o->probe, path, sizeof path, why, sizeof why) != 0)
        return fail(m, ECOC_NOSTART, "%s", why);
    if (!(m->r->machine = calloc((size_t)m->r->n + 1, sizeof *m->r->machine)))
        return fail(m, ECOC_FAILED, "%s", eco_strerror(ECO_ERR_NOMEM));
    if (pvm_notify(PvmHostDelete, ECOC_TAG_HOSTDEL, m->nd, m->dtids) < 0)
        return fail(m, ECOC_FAILED, "pvm_notify failed");
    for (int i = 0; i < m->r->n; i++) {
        char *argv[] = { NULL };
        int tid = 0;
        rc = pvm_spawn(path, argv, PvmTaskHost, m->r->host[i].pvmhost, 1, &tid);
        if (rc < 1)
            return fail(m, ECOC_NOSTART, "cannot start %s on host %s: %s", path,
                        m->r->host[i].pvmhost, pvm_reason(rc < 0 ? rc : tid));
        m->tid[i] = tid;
        if (pvm_notify(PvmTaskExit, ECOC_TAG_EXIT, 1, &m->tid[i]) < 0)
            return fail(m, ECOC_FAILED, "pvm_notify failed");
    }
    for (int i = 0; i < m->r->n; i++) {
        char what[400];
        snprintf(what, sizeof what, "the probe on %s to start", m->r->host[i].name);
        if ((bid = wait_for(m, m->tid[i], ECOC_TAG_HELLO, what)) < 0)
            return -bid;
        if (ecoc_upkstr(name, sizeof name) == 0)
            read_machine(&m->r->machine[i]);
        pvm_freebuf(bid);
    }
    return ECOC_OK;
}

/* Drop queued notices with this tag. */
static void drain(int tag)
{
    int bid;

    while ((bid = pvm_nrecv(-1, tag)) > 0)
        pvm_freebuf(bid);
}

/* Stop the probes (quit, or kill on failure) and cancel the notices. */
static void stop_probes(master *m, int kill)
{
    int cmd = ECOC_CMD_QUIT;

    for (int i = 0; m->tid && i < m->r->n; i++) {
        if (m->tid[i] <= 0)
            continue;
        pvm_notify(PvmTaskExit | PvmNotifyCancel, ECOC_TAG_EXIT, 1, &m->tid[i]);
        if (kill)
            pvm_kill(m->tid[i]);
        else {
            pvm_initsend(PvmDataDefault);
            pvm_pkint(&cmd, 1, 1);
            pvm_send(m->tid[i], ECOC_TAG_CMD);
        }
    }
    if (m->extra > 0) {
        pvm_notify(PvmTaskExit | PvmNotifyCancel, ECOC_TAG_EXIT, 1, &m->extra);
        if (kill)
            pvm_kill(m->extra);
        else {
            pvm_initsend(PvmDataDefault);
            pvm_pkint(&cmd, 1, 1);
            pvm_send(m->extra, ECOC_TAG_CMD);
        }
        m->extra = 0;
    }
    if (m->nd > 0)
        pvm_notify(PvmHostDelete | PvmNotifyCancel, ECOC_TAG_HOSTDEL, m->nd, m->dtids);
    drain(ECOC_TAG_EXIT);
    drain(ECOC_TAG_HOSTDEL);
    drain(ECOC_TAG_RESULT);
    drain(ECOC_TAG_HELLO);
}

/* ------------------------------------------------------------------ */
/* Pairs                                                               */
/* ------------------------------------------------------------------ */

/* Probe ta (on host `from`) times `trials` samples of `rounds` round
 * trips of `size` bytes with probe tb: the one-way times in t[trials]. */
static int ping_tids(master *m, int ta, int tb, int size, int rounds, int trials,
                     double *t, const char *from, const char *what)
{
    int cmd = ECOC_CMD_PING, status = -1, bid;

    pvm_initsend(PvmDataDefault);
    pvm_pkint(&cmd, 1, 1);
    pvm_pkint(&tb, 1, 1);
    pvm_pkint(&size, 1, 1);
    pvm_pkint(&rounds, 1, 1);
    pvm_pkint(&trials, 1, 1);
    if (pvm_send(ta, ECOC_TAG_CMD) < 0)
        return fail(m, ECOC_FAILED, "cannot reach the probe on %s", from);
    if ((bid = wait_for(m, ta, ECOC_TAG_RESULT, what)) < 0)
        return -bid;
    if (pvm_upkint(&status, 1, 1) < 0 || status != 0 || pvm_upkdouble(t, trials, 1) < 0) {
        pvm_freebuf(bid);
        return fail(m, ECOC_FAILED, "the probe on %s could not measure %s", from, what);
    }
    pvm_freebuf(bid);
    for (int i = 0; i < trials; i++)
        if (t[i] <= 0.0) /* a clock that did not move: the cheapest possible */
            t[i] = 1e-9;
    return ECOC_OK;
}

/* Probe a times `trials` samples of `rounds` round trips with probe b:
 * the one-way times in t[trials]. */
static int ping(master *m, int a, int b, int trials, double *t)
{
    char what[600];

    snprintf(what, sizeof what, "%s-%s", m->r->host[a].name, m->r->host[b].name);
    return ping_tids(m, m->tid[a], m->tid[b], m->o->size, m->o->rounds, trials, t,
                     m->r->host[a].name, what);
}

/* Summarize the samples of pair a-b into the result. */
static int restat(master *m, int a, int b, double *t, int n)
{
    ecoc_stat st;

    ecoc_stat_of(t, n, &st);
    if (ecoc_set_pair(m->r, a, b, &st) != ECO_OK)
        return fail(m, ECOC_FAILED, "%s", eco_strerror(ECO_ERR_NOMEM));
    return ECOC_OK;
}

/* Record the samples of pair a-b: one more pair measured. */
static int record(master *m, int a, int b, double *t, int n)
{
    int rc = restat(m, a, b, t, n);

    m->r->measured += rc == ECOC_OK;
    return rc;
}

/* Measure `trials` samples of a pair now (paced as one pair); count `units`. */
static int measure(master *m, int a, int b, int trials, double *t, const char *label)
{
    int rc;

    progress(m, label);
    if ((rc = pace(m, (double)trials / m->o->trials)) != ECOC_OK ||
        (rc = ping(m, a, b, trials, t)) != ECOC_OK)
        return rc;
    m->done++;
    m->left = m->left > 0 ? m->left - 1 : 0;
    progress(m, label);
    return ECOC_OK;
}

/*
 * All pairs, as the paper does: `trials` passes over every pair, one
 * sample of `rounds` round trips per pair and pass, so that the samples
 * of a pair are spread over the whole run and its minimum comes from the
 * quietest moment (a busy spell hits one sample of many pairs, not every
 * sample of a few).
 */
static int all_pairs(master *m)
{
    int n = m->r->n, trials = m->o->trials, rc = ECOC_OK;
    size_t np = (size_t)n * (n - 1) / 2, k;
    char label[600];

    /* room for the samples of the rechecks too (recheck_splits) */
    m->cap = trials * (1 + ECOC_RECHECK_ROUNDS);
    m->samp = malloc((np * (size_t)m->cap + 1) * sizeof *m->samp);
    m->nsamp = calloc(np + 1, sizeof *m->nsamp);
    if (!m->samp || !m->nsamp)
        return fail(m, ECOC_FAILED, "%s", eco_strerror(ECO_ERR_NOMEM));
    m->unit = "pair samples";
    m->left = (long)np * (trials + 1);
    /* Pass 0, not kept: connect every pair's direct route first.  A probe's
     * cost per message grows with its open routes, so without this the
     * early pairs of pass 1 would look cheaper than the rest. */
    for (int a = 0; a < n && rc == ECOC_OK; a++)
        for (int b = a + 1; b < n && rc == ECOC_OK; b++) {
            double junk;
            snprintf(label, sizeof label, "connecting %s-%s", m->r->host[a].name,
                     m->r->host[b].name);
            rc = measure(m, a, b, 1, &junk, label);
        }
    for (int pass = 0; pass < trials && rc == ECOC_OK; pass++) {
        m->pass = pass + 1;
        k = 0;
        for (int a = 0; a < n && rc == ECOC_OK; a++)
            for (int b = a + 1; b < n && rc == ECOC_OK; b++, k++) {
                snprintf(label, sizeof label, "pass %d/%d %s-%s", pass + 1, trials,
                         m->r->host[a].name, m->r->host[b].name);
                rc = measure(m, a, b, 1, &m->samp[k * (size_t)m->cap + (size_t)m->nsamp[k]++],
                             label);
            }
    }
    for (int a = 0, i = 0; a < n && rc == ECOC_OK; a++)
        for (int b = a + 1; b < n && rc == ECOC_OK; b++, i++)
            rc = record(m, a, b, &m->samp[(size_t)i * (size_t)m->cap], m->nsamp[i]);
    return rc;
}

/* The index of pair a < b among all pairs, in all_pairs' order. */
static size_t pair_index(int n, int a, int b)
{
    return (size_t)a * (size_t)(2 * n - a - 1) / 2 + (size_t)(b - a - 1);
}

/* `trials` more samples of every pair of marked hosts, in passes as
 * all_pairs takes them, added to the pairs' samples: the count of
 * pairs. */
static int measure_again(master *m, const unsigned char *mark, long *pairs)
{
    int n = m->r->n, trials = m->o->trials, rc = ECOC_OK;
    char label[600];

    *pairs = 0;
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            *pairs += mark[a] && mark[b];
    m->left += *pairs * trials;
    for (int pass = 0; pass < trials && rc == ECOC_OK; pass++)
        for (int a = 0; a < n && rc == ECOC_OK; a++)
            for (int b = a + 1; b < n && rc == ECOC_OK; b++) {
                size_t i = pair_index(n, a, b);
                if (!mark[a] || !mark[b])
                    continue;
                snprintf(label, sizeof label, "again %d/%d %s-%s", pass + 1, trials,
                         m->r->host[a].name, m->r->host[b].name);
                rc = measure(m, a, b, 1, &m->samp[i * (size_t)m->cap + (size_t)m->nsamp[i]++],
                             label);
            }
    for (int a = 0; a < n && rc == ECOC_OK; a++)
        for (int b = a + 1; b < n && rc == ECOC_OK; b++)
            if (mark[a] && mark[b])
                rc = restat(m, a, b, &m->samp[pair_index(n, a, b) * (size_t)m->cap],
                            m->nsamp[pair_index(n, a, b)]);
    return rc;
}

/* The cheap mode keeps a pair's statistics, not its samples: `trials`
 * more samples of every measured pair of marked hosts, all at once as
 * the cheap mode takes them; the pair keeps the least and the greatest
 * of all its samples and the median of the new ones.  The count of
 * pairs. */
static int measure_again_sparse(master *m, const unsigned char *mark, long *pairs)
{
    ecoc_result *r = m->r;
    int trials = m->o->trials, rc = ECOC_OK;
    double *t = malloc((size_t)trials * sizeof *t);
    char label[600];

    *pairs = 0;
    if (!t)
        return fail(m, ECOC_FAILED, "%s", eco_strerror(ECO_ERR_NOMEM));
    for (int a = 0; a < r->n; a++)
        for (int b = ecoc_next(r, a, a); mark[a] && b < r->n; b = ecoc_next(r, a, b))
            *pairs += mark[b] && ecoc_pair(r, a, b) && ecoc_pair(r, a, b)->n > 0;
    m->left += *pairs;
    for (int a = 0; a < r->n && rc == ECOC_OK; a++)
        for (int b = ecoc_next(r, a, a); mark[a] && b < r->n && rc == ECOC_OK;
             b = ecoc_next(r, a, b)) {
            const ecoc_stat *old = ecoc_pair(r, a, b);
            ecoc_stat st;
            if (!mark[b] || !old || old->n == 0)
                continue;
            snprintf(label, sizeof label, "again %s-%s", r->host[a].name, r->host[b].name);
            if ((rc = measure(m, a, b, trials, t, label)) != ECOC_OK)
                break;
            ecoc_stat_of(t, trials, &st);
            st.min = fmin(st.min, old->min);
            st.max = fmax(st.max, old->max);
            st.n += old->n;
            if (ecoc_set_pair(r, a, b, &st) != ECO_OK)
                rc = fail(m, ECOC_FAILED, "%s", eco_strerror(ECO_ERR_NOMEM));
        }
    free(t);
    return rc;
}

/* The first host of map subnet s, by name. */
static const char *first_host(const ecoc_result *r, int s)
{
    return eco_map_host(r->map, eco_map_subnet_host(r->map, s, 0));
}

/*
 * Splits that noise can explain (ecoc_doubtful_splits, lib/doubtful.c)
 * are not taken on the word of the samples that made them: the pairs of
 * their subnets are measured again, `trials` more samples each, and the
 * hosts partitioned again on all the samples, up to ECOC_RECHECK_ROUNDS
 * times.  A split still doubtful after that is kept, with a warning.  A
 * quiet machine's splits are between real segments, many times their
 * floors: nothing is measured again.  The cheap mode measures again the
 * pairs it measured (measure_again_sparse), no others.
 */
static int recheck_splits(master *m)
{
    ecoc_result *r = m->r;
    unsigned char *mark = malloc((size_t)r->n + 1);
    int rc = ECOC_OK, k = 0;
    ecoc_doubt d;

    if (!mark)
        return fail(m, ECOC_FAILED, "%s", eco_strerror(ECO_ERR_NOMEM));
    for (int round = 0; rc == ECOC_OK; round++) {
        long pairs = 0;
        if ((k = ecoc_doubtful_splits(r, mark, &d, NULL)) < 0)
            rc = fail(m, ECOC_FAILED, "%s", eco_strerror(k));
        if (rc != ECOC_OK || k == 0 || round == ECOC_RECHECK_ROUNDS)
            break;
        if (round == 0)
            r->recheck_before = eco_map_nsubnets(r->map);
        rc = r->sparse ? measure_again_sparse(m, mark, &pairs) : measure_again(m, mark, &pairs);
        if (rc == ECOC_OK)
            rc = ecoc_result_partition(r, m->err, m->errlen);
        r->rechecked += pairs;
        r->recheck_rounds = round + 1;
    }
    if (rc == ECOC_OK && k > 0 &&
        ecoc_warn(r, "%d split%s within the noise, kept after %d round%s of %d more samples "
                  "per pair: the subnets of %s and %s, %.3g s between them against %.3g s "
                  "inside, samples %.0f%% above their minima; characterize again on a quieter "
                  "machine", k, k == 1 ? "" : "s", r->recheck_rounds,
                  r->recheck_rounds == 1 ? "" : "s", m->o->trials, first_host(r, d.s),
                  first_host(r, d.t), d.cost, d.floor, 100.0 * d.noise) != ECO_OK)
        rc = fail(m, ECOC_FAILED, "%s", eco_strerror(ECO_ERR_NOMEM));
    free(mark);
    return rc;
}

/* The cheap mode asks for a pair's cost at once: all its samples now. */
static int sparse_measure(void *arg, int a, int b, double *seconds)
{
    master *m = arg;
    double *t = malloc((size_t)m->o->trials * sizeof *t);
    char label[600];
    int rc;

    if (!t)
        return fail(m, ECOC_FAILED, "%s", eco_strerror(ECO_ERR_NOMEM));
    snprintf(label, sizeof label, "%s-%s", m->r->host[a].name, m->r->host[b].name);
    rc = measure(m, a, b, m->o->trials, t, label);
    if (rc == ECOC_OK && (rc = record(m, a, b, t, m->o->trials)) == ECOC_OK)
        *seconds = ecoc_pair(m->r, a, b)->min;
    free(t);
    return rc;
}

static void sparse_estimate(void *arg, long more)
{
    ((master *)arg)->left = more;
}

static int sparse_pairs(master *m)
{
    ecoc_sparse_ops ops = { sparse_measure, sparse_estimate, m };
    long measured = 0;
    int rc;

    m->r->sparse = 1;
    m->unit = "pairs";
    rc = ecoc_sparse(m->r->n, m->o->threshold, &ops, &measured);
    if (rc < 0) /* a libeco status from the planning, not a measurement */
        return fail(m, ECOC_FAILED, "choosing pairs: %s", eco_strerror(rc));
    return rc;
}

/* ------------------------------------------------------------------ */
/* Hops                                                                */
/* ------------------------------------------------------------------ */

/* Send every probe cmd, with what pack (may be NULL) packs for probe i,
 * then hand each reply's `count` ints to fold as it arrives (in row[],
 * all -1 when the probe answers a status other than 0): no n x n table. */
static int ask_all(master *m, int cmd, void (*pack)(master *, int, const void *),
                   const void *arg, void (*fold)(master *, int, const int *, void *),
                   void *farg, int count, const char *what)
{
    int *row = malloc((size_t)count * sizeof *row + 1);

    if (!row)
        return fail(m, ECOC_FAILED, "%s", eco_strerror(ECO_ERR_NOMEM));
    for (int i = 0; i < m->r->n; i++) {
        pvm_initsend(PvmDataDefault);
        pvm_pkint(&cmd, 1, 1);
        if (pack)
            pack(m, i, arg);
        if (pvm_send(m->tid[i], ECOC_TAG_CMD) < 0) {
            free(row);
            return fail(m, ECOC_FAILED, "cannot reach the probe on %s", m->r->host[i].name);
        }
    }
    for (int i = 0; i < m->r->n; i++) {
        int bid = wait_for(m, m->tid[i], ECOC_TAG_RESULT, what), status = -1;
        if (bid < 0) {
            free(row);
            return -bid;
        }
        if (pvm_upkint(&status, 1, 1) < 0 || status != 0 || pvm_upkint(row, count, 1) < 0)
            for (int j = 0; j < count; j++)
                row[j] = -1;
        pvm_freebuf(bid);
        fold(m, i, row, farg);
    }
    free(row);
    return ECOC_OK;
}

/* A HOPS round: the probes' ports and the round's secret key, from
 * which every pair's nonce is derived (ecoc_hops_nonce). */
typedef struct hops_round {
    int *port;
    unsigned char key[16];
    int nomem;       /* a fold found no memory */
} hops_round;

/* A fresh unpredictable key (getrandom): 0 or -1. */
static int draw_key(unsigned char *key, size_t len)
{
    size_t got = 0;

    while (got < len) {
        ssize_t r = getrandom(key + got, len - got, 0);
        if (r < 0 && errno != EINTR)
            return -1;
        got += r > 0 ? (size_t)r : 0;
    }
    return 0;
}

/* HOPS for probe i: n, i, then every host with its port and the nonce of
 * the pair (i, j), high word first. */
static void pack_hops(master *m, int i, const void *arg)
{
    const hops_round *h = arg;
    int n = m->r->n;

    pvm_pkint(&n, 1, 1);
    pvm_pkint(&i, 1, 1);
    for (int j = 0; j < n; j++) {
        uint64_t v = ecoc_hops_nonce(h->key, i, j);
        unsigned int w[2] = { (unsigned int)(v >> 32), (unsigned int)v };
        ecoc_pkstr(m->r->host[j].pvmhost);
        pvm_pkint(&h->port[j], 1, 1);
        pvm_pkuint(w, 2, 1);
    }
}

static void fold_port(master *m, int i, const int *row, void *arg)
{
    (void)m;
    ((hops_round *)arg)->port[i] = row[0];
}

/* Probe b's reply: row[a] is what b saw of a's datagrams.  A pair counts
 * the longer of its two directions, like eco_map_add_hops (unknown while
 * neither is known); a count the probe cannot have made is none. */
static void fold_hops(master *m, int b, const int *row, void *arg)
{
    ecoc_result *r = m->r;

    for (int a = 0; a < r->n; a++)
        if (a != b && row[a] >= 0 && row[a] <= ECOC_HOPS_TTL && row[a] > ecoc_hops(r, a, b) &&
            ecoc_set_hops(r, a, b, row[a]) != ECO_OK)
            ((hops_round *)arg)->nomem = 1;
}

static int count_hops(master *m)
{
    ecoc_result *r = m->r;
    hops_round h = { malloc((size_t)r->n * sizeof *h.port + 1), { 0 }, 0 };
    int rc;

    if (!h.port)
        return fail(m, ECOC_FAILED, "%s", eco_strerror(ECO_ERR_NOMEM));
    progress(m, "counting routers");
    rc = ask_all(m, ECOC_CMD_HOPS_OPEN, NULL, NULL, fold_port, &h, 1,
                 "the probes' UDP sockets");
    if (rc == ECOC_OK && draw_key(h.key, sizeof h.key) != 0)
        rc = fail(m, ECOC_FAILED, "no random numbers for the hops nonces: %s",
                  strerror(errno));
    r->hops_counted = rc == ECOC_OK; /* ecoc_hops reads what is folded so far */
    if (rc == ECOC_OK)
        rc = ask_all(m, ECOC_CMD_HOPS, pack_hops, &h, fold_hops, &h, r->n,
                     "the routers between hosts");
    if (rc == ECOC_OK && h.nomem)
        rc = fail(m, ECOC_FAILED, "%s", eco_strerror(ECO_ERR_NOMEM));
    r->hops_counted = rc == ECOC_OK;
    memset(h.key, 0, sizeof h.key);
    free(h.port);
    return rc;
}

/* ------------------------------------------------------------------ */
/* The cost model                                                      */
/* ------------------------------------------------------------------ */

/* One step of the model's measurement: progress, --rate, signals. */
static int model_step(master *m, const char *label)
{
    progress(m, label);
    return pace(m, 1.0);
}

static void model_done(master *m)
{
    m->done++;
    m->left = m->left > 0 ? m->left - 1 : 0;
}

/* The minimum one-way time between probes ta and tb at size bytes. */
static int min_time(master *m, int ta, int tb, int size, int rounds, const char *from,
                    const char *what, double *out)
{
    int trials = m->o->trials, rc;
    double *t = malloc((size_t)trials * sizeof *t);
    ecoc_stat st;

    if (!t)
        return fail(m, ECOC_FAILED, "%s", eco_strerror(ECO_ERR_NOMEM));
    rc = ping_tids(m, ta, tb, size, rounds, trials, t, from, what);
    if (rc == ECOC_OK) {
        ecoc_stat_of(t, trials, &st);
        *out = st.min;
    }
    free(t);
    return rc;
}

static int streams(master *m, const int *from, const int *to, int k, int size, int count,
                   double *t);

/* The sustained per-byte cost from a to b: streams of 1 and of
 * r->model.stream messages of r->model.big bytes, each the minimum of
 * ECOC_MODEL_REPEATS; their difference carries *extra bytes. */
static int stream_pair(master *m, int a, int b, double *t_short, double *t_long,
                       double *extra)
{
    const ecoc_result *r = m->r;
    int big = r->model.big, count = r->model.stream, rc = ECOC_OK;
    double t;

    *t_short = *t_long = 1e300;
    for (int rep = 0; rep < ECOC_MODEL_REPEATS && rc == ECOC_OK; rep++) {
        if ((rc = streams(m, &a, &b, 1, big, 1, &t)) == ECOC_OK && t < *t_short)
            *t_short = t;
        if (rc == ECOC_OK && (rc = streams(m, &a, &b, 1, big, count, &t)) == ECOC_OK &&
            t < *t_long)
            *t_long = t;
    }
    *extra = (double)(count - 1) * big;
    return rc;
}

/* alpha and beta between hosts a and b (indexes into r->host): alpha
 * from the small probe, beta the sustained one (ecoc_fit_sustained);
 * *burst the bytes the large probe passed at once, its time short of
 * its bytes at that beta (ecoc_fit_burst). */
static int fit_pair(master *m, int a, int b, ecoi_cost *c, double *burst)
{
    const ecoc_result *r = m->r;
    const ecoc_stat *known = ecoc_pair(r, a, b);
    int big = r->model.big, rc = ECOC_OK;
    double t_small, t_big, t_short, t_long, extra;
    char what[600];

    snprintf(what, sizeof what, "model: %s-%s", r->host[a].name, r->host[b].name);
    if ((rc = model_step(m, what)) != ECOC_OK)
        return rc;
    if (big == m->o->size && known)
        t_big = known->min; /* measured at this size already */
    else
        rc = min_time(m, m->tid[a], m->tid[b], big, m->o->rounds, r->host[a].name, what,
                      &t_big);
    if (rc == ECOC_OK)
        rc = min_time(m, m->tid[a], m->tid[b], ECOC_MODEL_SMALL, 4 * m->o->rounds,
                      r->host[a].name, what, &t_small);
    if (rc == ECOC_OK)
        rc = stream_pair(m, a, b, &t_short, &t_long, &extra);
    if (rc == ECOC_OK) {
        ecoc_fit_sustained(t_small, ECOC_MODEL_SMALL, t_big, big, t_short, t_long, extra,
                           &c->alpha, &c->beta);
        *burst = ecoc_fit_burst(t_small, ECOC_MODEL_SMALL, t_big, big, c->beta);
        model_done(m);
    }
    return rc;
}

/* The cheaper of two costs at the large probe size. */
static int cheaper(const ecoi_cost *x, const ecoi_cost *y, int big)
{
    return x->alpha + x->beta * big < y->alpha + y->beta * big;
}

/* The task cost: a second probe on the first host, pinged by the first
 * probe.  0 when it cannot start (task_how stays 0: the caller copies). */
static int measure_task(master *m, ecoi_model *mo)
{
    ecoc_result *r = m->r;
    char path[4200], why[4400], what[600];
    char *argv[] = { NULL };
    int tid = 0, bid, rc;
    double t_small, t_big;

    snprintf(what, sizeof what, "model: two tasks on %s", r->host[0].name);
    if ((rc = model_step(m, what)) != ECOC_OK)
        return rc;
    if (ecoc_find_probe(m->o->probe, path, sizeof path, why, sizeof why) != 0 ||
        pvm_spawn(path, argv, PvmTaskHost, r->host[0].pvmhost, 1, &tid) < 1 || tid <= 0) {
        model_done(m);
        return ECOC_OK; /* the default */
    }
    m->extra = tid;
    if (pvm_notify(PvmTaskExit, ECOC_TAG_EXIT, 1, &m->extra) < 0)
        return fail(m, ECOC_FAILED, "pvm_notify failed");
    if ((bid = wait_for(m, tid, ECOC_TAG_HELLO, "the second probe on the first host")) < 0)
        return -bid;
    pvm_freebuf(bid);
    rc = min_time(m, m->tid[0], tid, r->model.big, m->o->rounds, r->host[0].name, what,
                  &t_big);
    if (rc == ECOC_OK)
        rc = min_time(m, m->tid[0], tid, ECOC_MODEL_SMALL, 4 * m->o->rounds,
                      r->host[0].name, what, &t_small);
    if (rc != ECOC_OK)
        return rc;
    ecoc_fit(t_small, ECOC_MODEL_SMALL, t_big, r->model.big, &mo->task.alpha,
             &mo->task.beta);
    r->model.task_how = 1;
    /* done with it: no notice of its exit (a cancelled notify's own notice
     * names a tid host_of_tid no longer knows) */
    pvm_notify(PvmTaskExit | PvmNotifyCancel, ECOC_TAG_EXIT, 1, &m->extra);
    m->extra = 0;
    {
        int cmd = ECOC_CMD_QUIT;
        pvm_initsend(PvmDataDefault);
        pvm_pkint(&cmd, 1, 1);
        pvm_send(tid, ECOC_TAG_CMD);
    }
    model_done(m);
    return ECOC_OK;
}

/* The subnet of host i (r->host's index) in r's map, -1 if none. */
static int host_subnet(const ecoc_result *r, int i)
{
    return eco_map_subnet_of(r->map, eco_map_find_host(r->map, r->host[i].name));
}

/* k timed runs, started together: the probe of host from[i] runs cmd
 * (ECOC_CMD_STREAM or ECOC_CMD_STEPS) with the probe of host to[i] (and,
 * with prev, that of host prev[i] as its ring's previous), size and
 * count; each one's seconds in t[i].  `what` names a run in messages. */
typedef struct together {
    int cmd;
    const char *what;          /* "a stream", "a lock-step ring" */
    const int *from, *to, *prev;
    int k, size, count;
} together;

static int run_together(master *m, const together *g, double *t)
{
    const ecoc_result *r = m->r;
    const int *from = g->from, *to = g->to;
    char what[600];

    for (int i = 0; i < g->k; i++) {
        pvm_initsend(PvmDataDefault);
        pvm_pkint((int *)&g->cmd, 1, 1);
        pvm_pkint(&m->tid[to[i]], 1, 1);
        if (g->prev)
            pvm_pkint(&m->tid[g->prev[i]], 1, 1);
        pvm_pkint((int *)&g->size, 1, 1);
        pvm_pkint((int *)&g->count, 1, 1);
        if (pvm_send(m->tid[from[i]], ECOC_TAG_CMD) < 0)
            return fail(m, ECOC_FAILED, "cannot reach the probe on %s", r->host[from[i]].name);
    }
    for (int i = 0; i < g->k; i++) { /* "ready": the routes are connected */
        int bid, status = -1;
        snprintf(what, sizeof what, "%s %s-%s to connect", g->what, r->host[from[i]].name,
                 r->host[to[i]].name);
        if ((bid = wait_for(m, m->tid[from[i]], ECOC_TAG_RESULT, what)) < 0)
            return -bid;
        if (pvm_upkint(&status, 1, 1) < 0 || status != 0) {
            pvm_freebuf(bid);
            return fail(m, ECOC_FAILED, "the probe on %s could not connect %s",
                        r->host[from[i]].name, what);
        }
        pvm_freebuf(bid);
    }
    /* Go, together: first the senders outside this program's subnet,
     * whose GO would otherwise wait behind the other stream's data on
     * the way out of it. */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < g->k; i++) {
            int s = host_subnet(r, from[i]);
            if ((s == m->home && m->home >= 0) != pass)
                continue;
            pvm_initsend(PvmDataDefault);
            if (pvm_send(m->tid[from[i]], ECOC_TAG_GO) < 0)
                return fail(m, ECOC_FAILED, "cannot reach the probe on %s",
                            r->host[from[i]].name);
        }
    for (int i = 0; i < g->k; i++) {
        int bid, status = -1;
        snprintf(what, sizeof what, "%s %s-%s", g->what, r->host[from[i]].name,
                 r->host[to[i]].name);
        if ((bid = wait_for(m, m->tid[from[i]], ECOC_TAG_RESULT, what)) < 0)
            return -bid;
        if (pvm_upkint(&status, 1, 1) < 0 || status != 0 || pvm_upkdouble(&t[i], 1, 1) < 0) {
            pvm_freebuf(bid);
            return fail(m, ECOC_FAILED, "the probe on %s could not time %s",
                        r->host[from[i]].name, what);
        }
        pvm_freebuf(bid);
    }
    return ECOC_OK;
}

/* Streams of count messages of size bytes from the probe of host
 * from[i] to that of host to[i], i < k, started together: each one's
 * seconds in t[i]. */
static int streams(master *m, const int *from, const int *to, int k, int size, int count,
                   double *t)
{
    together g = { ECOC_CMD_STREAM, "a stream", from, to, NULL, k, size, count };

    return run_together(m, &g, t);
}

/* One direction of subnet s's link: each stream alone (the minimum of
 * ECOC_MODEL_REPEATS), then both (the median: a start delayed by the
 * other stream's queue makes both look faster, ambient load slower).
 * Ratio and implied beta in u[dir]. */
static int one_direction(master *m, int s, const int *from, const int *to, int dir,
                         ecoc_uplink *u)
{
    double alone[2] = { 1e300, 1e300 }, both, all[ECOC_MODEL_REPEATS], t[2];
    ecoc_stat st;
    double bytes = (double)m->r->model.big * ECOC_MODEL_STREAM;
    char what[120];
    int rc = ECOC_OK;

    snprintf(what, sizeof what, "model: subnet %d's link %s", s, dir ? "in" : "out");
    if ((rc = model_step(m, what)) != ECOC_OK)
        return rc;
    for (int rep = 0; rep < ECOC_MODEL_REPEATS && rc == ECOC_OK; rep++) {
        for (int i = 0; i < 2 && rc == ECOC_OK; i++)
            if ((rc = streams(m, &from[i], &to[i], 1, m->r->model.big, ECOC_MODEL_STREAM,
                              t)) == ECOC_OK && t[0] < alone[i])
                alone[i] = t[0];
        if (rc == ECOC_OK &&
            (rc = streams(m, from, to, 2, m->r->model.big, ECOC_MODEL_STREAM, t)) == ECOC_OK)
            all[rep] = t[0] > t[1] ? t[0] : t[1];
    }
    if (rc == ECOC_OK) {
        ecoc_stat_of(all, ECOC_MODEL_REPEATS, &st);
        both = st.median;
        u->alone[dir] = alone[0] > alone[1] ? alone[0] : alone[1];
        u->both[dir] = both;
        u->ratio[dir] = both / u->alone[dir];
        u->beta[dir] = both / (2.0 * bytes);
        model_done(m);
    }
    return rc;
}

/* The other subnet nearest to s (the least cost at the big size; ties:
 * the lower index), not `skip`; -1 if none. */
static int nearest_subnet(const master *m, const ecoi_model *mo, int s, int skip)
{
    int ns = mo->nsubnets, best = -1;
    double big = (double)m->r->model.big, bc = 0.0;

    for (int t = 0; t < ns; t++) {
        ecoi_cost c = mo->link[(size_t)s * ns + t];
        double x = c.alpha + c.beta * big;
        if (t == s || t == skip)
            continue;
        if (best < 0 || x < bc) {
            best = t;
            bc = x;
        }
    }
    return best;
}

/* Does subnet s share a link out (or in)?  uplink[s], and the notes.  The
 * streams go to the nearest subnets: on a network of sites they stay in
 * s's site where they can, so that a slow link between sites, which
 * all of a site's subnets cross, is not taken for s's own (on
 * multilevel.topo the far site's subnets were given the 5 Mbit/s
 * wide-area link as their uplink, and every message between them paid
 * it in the predictions). */
static int measure_uplink(master *m, int s, int **mem, const int *cnt, ecoi_model *mo)
{
    int ns = mo->nsubnets, u1, u2, b1, b2 = -1, rc;
    ecoc_uplink *u = &m->r->model.up[s];
    double inside = mo->link[(size_t)s * ns + s].beta;

    u1 = nearest_subnet(m, mo, s, -1);
    if (cnt[s] < 2 || u1 < 0)
        return ECOC_OK;
    b1 = mem[u1][0];
    if ((u2 = nearest_subnet(m, mo, s, u1)) >= 0)
        b2 = mem[u2][0]; /* another subnet: its own link is not the one */
    if (b2 < 0 && cnt[u1] >= 2)
        b2 = mem[u1][1];
    if (b2 < 0)
        return ECOC_OK;
    {
        int a[2] = { mem[s][0], mem[s][1] }, b[2] = { b1, b2 };
        if ((rc = one_direction(m, s, a, b, 0, u)) != ECOC_OK ||
            (rc = one_direction(m, s, b, a, 1, u)) != ECOC_OK)
            return rc;
    }
    u->how = 1;
    mo->uplink[s] = 0.0; /* the smaller of the directions found shared:
                          * ambient load only makes streams slower */
    for (int dir = 0; dir < 2; dir++)
        if (u->ratio[dir] >= ECOC_MODEL_SHARED && u->beta[dir] >= 2.0 * inside &&
            (mo->uplink[s] == 0.0 || u->beta[dir] < mo->uplink[s]))
            mo->uplink[s] = u->beta[dir];
    return ECOC_OK;
}

/* The rings of `inside` (ring_rounds): each host's next is the next host
 * of its own subnet (the first after the last); a host alone in its
 * subnet sits out.  from[k], to[k]: the k-th stream, by from; returns
 * how many, or -1 out of memory.  One pass: n hosts, not n^2. */
static int subnet_rings(const ecoc_result *r, int *from, int *to)
{
    const int n = r->n, S = eco_map_nsubnets(r->map);
    int *next = malloc(((size_t)n + 2 * (size_t)S + 1) * sizeof *next), *first, *last, k = 0;

    if (!next)
        return -1;
    first = next + n;
    last = first + S;
    for (int s = 0; s < S; s++)
        first[s] = last[s] = -1;
    for (int i = 0; i < n; i++) {
        int s = host_subnet(r, i);
        next[i] = -1;
        if (s < 0 || s >= S)
            continue;
        if (last[s] >= 0)
            next[last[s]] = i;
        else
            first[s] = i;
        last[s] = i;
    }
    for (int s = 0; s < S; s++)
        if (last[s] != first[s])
            next[last[s]] = first[s];
    for (int i = 0; i < n; i++)
        if (next[i] >= 0) {
            from[k] = i;
            to[k++] = next[i];
        }
    free(next);
    return k;
}

/* Every host at once, in a ring (host i's probe with host i + 1's, the
 * last with the first's; prev: its ring's previous, i - 1), cmd with
 * count messages of size bytes, ECOC_MODEL_REPEATS rounds: a
 * round's cost per message is its slowest probe's time over count, *st
 * the rounds' (the median: one delayed start does not decide).  inside:
 * a ring inside each subnet instead, all at once (subnet_rings; the one
 * ring when fewer than 2 hosts share a subnet), so that no stream
 * crosses a link between subnets.  Fewer than 2 hosts: nothing to
 * measure, st->n stays 0. */
static int ring_rounds(master *m, int cmd, int size, int count, int inside, const char *label,
                       ecoc_stat *st)
{
    int n = m->r->n, rc = ECOC_OK, *ring, k = 0;
    double *t, all[ECOC_MODEL_REPEATS];
    together g = { cmd, cmd == ECOC_CMD_STEPS ? "a lock-step ring" : "a stream", NULL, NULL, NULL,
                   n, size, count };

    memset(st, 0, sizeof *st);
    if (n < 2)
        return ECOC_OK;
    ring = malloc(3 * (size_t)n * sizeof *ring); /* from, to, prev */
    t = malloc((size_t)n * sizeof *t);
    if (!ring || !t)
        rc = fail(m, ECOC_FAILED, "%s", eco_strerror(ECO_ERR_NOMEM));
    if (rc == ECOC_OK && inside && (k = subnet_rings(m->r, ring, ring + n)) < 0)
        rc = fail(m, ECOC_FAILED, "%s", eco_strerror(ECO_ERR_NOMEM));
    if (rc == ECOC_OK && inside && k >= 2)
        g.k = k;
    else
        for (int i = 0; rc == ECOC_OK && i < n; i++) { /* the one ring */
            ring[i] = i;
            ring[n + i] = (i + 1) % n;
            ring[2 * n + i] = (i + n - 1) % n;
        }
    g.from = ring;
    g.to = ring + n;
    g.prev = cmd == ECOC_CMD_STEPS ? ring + 2 * n : NULL;
    if (rc == ECOC_OK)
        rc = model_step(m, label);
    for (int rep = 0; rep < ECOC_MODEL_REPEATS && rc == ECOC_OK; rep++) {
        double slowest = 0.0;
        if ((rc = run_together(m, &g, t)) != ECOC_OK)
            break;
        for (int i = 0; i < g.k; i++)
            slowest = t[i] > slowest ? t[i] : slowest;
        all[rep] = slowest / count;
    }
    if (rc == ECOC_OK) {
        ecoc_stat_of(all, ECOC_MODEL_REPEATS, st);
        model_done(m);
    }
    free(ring);
    free(t);
    return rc;
}

/* Every probe busy: each host's probe streams ECOC_MODEL_BUSY messages
 * of ECOC_MODEL_SMALL bytes to the next host's of its own subnet (the
 * last to the first), all at once, so that every probe sends and
 * receives, as every member does in a collective (ring_rounds, inside).
 * Inside the subnets, because busy is what the hosts' CPUs and PVM cost
 * a message: across a slow link a stream of small messages is bound by
 * their headers' wire time, which lib/select.c charges the link
 * (ECOI_WIRE_HEADER): eco-paper.topo's ring across its three 10 Mbit/s
 * links measured 161 us a message of 64 bytes, 190 bytes' time there,
 * and multilevel.topo's across 5 Mbit/s 310 us, 194 bytes'.  A round's
 * cost per message is its slowest stream's time over its messages (the
 * end mark's round trip included: a little high, which only costs
 * pipelining); mo->busy is the median round's.  Fewer than 2 hosts:
 * busy stays 0 (the default). */
static int measure_busy(master *m, ecoi_model *mo)
{
    ecoc_stat *st = &m->r->model.busy;
    int rc = ring_rounds(m, ECOC_CMD_STREAM, ECOC_MODEL_SMALL, ECOC_MODEL_BUSY, 1,
                         "model: every host busy", st);

    if (rc == ECOC_OK && st->n > 0)
        mo->busy = st->median;
    return rc;
}

/* What a step of the lock-step ring (host i to host i + 1) lasts in
 * steady state by the model, for messages of `bytes`: the mean of its
 * links' one-way times (each link's alpha and beta; a member sends its
 * next only after the previous one's message came, so a slow link
 * between sites counts in every pair's step), or the longest time a
 * link is busy with one message (its beta's part), whichever is more: a
 * link carries one message a step.  On eco-paper.topo (three links at 10
 * Mbit/s in a ring of six) the mean gave 7 ms for 16 KiB and the ring
 * took 14.4, the slow links' 13.6. */
static double ring_links(const master *m, const ecoi_model *mo, double bytes)
{
    const ecoc_result *r = m->r;
    double links = 0.0, busiest = 0.0;

    for (int i = 0; i < r->n; i++) {
        int a = host_subnet(r, i), b = host_subnet(r, (i + 1) % r->n);
        ecoi_cost c = a >= 0 && b >= 0 ? mo->link[(size_t)a * mo->nsubnets + b] : mo->task;
        links += c.alpha + c.beta * bytes;
        busiest = c.beta * bytes > busiest ? c.beta * bytes : busiest;
    }
    links /= r->n;
    return links > busiest ? links : busiest;
}

/* A lock-step step: each host's probe sends one message of
 * ECOC_MODEL_SMALL bytes to the next host's, then waits for the previous
 * host's before its next step (ECOC_CMD_STEPS), ECOC_MODEL_STEPS steps,
 * all at once (ring_rounds): what a step of a ring or of recursive
 * doubling costs, a message's latency while every host sends, where busy
 * is their throughput.  mo->step is what the median round's step takes
 * beyond the ring's links' (ring_links), the cost of every member being
 * busy at once; 0 when it takes no longer, or fewer than 2 hosts
 * (nothing to add).  Then the same ring with messages of `big` bytes,
 * ECOC_MODEL_STEPS_LONG steps: mo->stepbyte is how much more its excess
 * over its links is, per byte more (every member copying a long message
 * at once: on switched8.topo's 8 emulated hosts on 2 cores a round of
 * 16,000 bytes both ways took ~2 ms where the links say 1.3); 0 when no
 * more. */
static int measure_step(master *m, ecoi_model *mo)
{
    ecoc_result *r = m->r;
    ecoc_stat *st = &r->model.step, *sl = &r->model.step_long;
    int big = r->model.big;
    int rc = ring_rounds(m, ECOC_CMD_STEPS, ECOC_MODEL_SMALL, ECOC_MODEL_STEPS, 0,
                         "model: every host in lock-step", st);
    double excess, slope;

    if (rc != ECOC_OK || st->n == 0)
        return rc;
    r->model.step_links = ring_links(m, mo, ECOC_MODEL_SMALL);
    excess = st->median - r->model.step_links;
    mo->step = excess > 0.0 ? excess : 0.0;
    if (big <= ECOC_MODEL_SMALL ||
        (rc = ring_rounds(m, ECOC_CMD_STEPS, big, ECOC_MODEL_STEPS_LONG, 0,
                          "model: every host in lock-step, long messages", sl)) != ECOC_OK ||
        sl->n == 0)
        return rc;
    r->model.step_long_links = ring_links(m, mo, big);
    slope = (sl->median - r->model.step_long_links - excess) / (big - ECOC_MODEL_SMALL);
    mo->stepbyte = slope > 0.0 ? slope : 0.0;
    return rc;
}

/* Probe a's `trials` samples of `rounds` round trips of `size` bytes
 * through probe b to probe c and back (ECOC_CMD_RELAY): the least
 * seconds per round trip in *out.  A relay that fails but answers (an
 * echo late or lost, a status or times that are no measurement) is no
 * failure of the run: ECOC_OK with why set, *out untouched; probe a has
 * answered, so it is back at the master's word, and any echo still on
 * its way carries a sequence number no later relay takes (eco-probe.c). */
static int relay_min(master *m, int a, int b, int c, int size, int rounds, const char *what,
                     double *out, char *why, size_t wlen)
{
    int cmd = ECOC_CMD_RELAY, trials = m->o->trials, status = -1, bid, rc = ECOC_OK;
    int wait = ECOC_RELAY_WAIT_MS; /* per echo; within the master's own */
    double *t = malloc((size_t)trials * sizeof *t);
    ecoc_stat st;

    if (!t)
        return fail(m, ECOC_FAILED, "%s", eco_strerror(ECO_ERR_NOMEM));
    if (m->o->timeout > 0 && m->o->timeout * 250.0 < wait)
        wait = (int)(m->o->timeout * 250.0) > 0 ? (int)(m->o->timeout * 250.0) : 1;
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&cmd, 1, 1);
    pvm_pkint(&m->tid[b], 1, 1);
    pvm_pkint(&m->tid[c], 1, 1);
    pvm_pkint(&size, 1, 1);
    pvm_pkint(&rounds, 1, 1);
    pvm_pkint(&trials, 1, 1);
    pvm_pkint(&wait, 1, 1);
    if (pvm_send(m->tid[a], ECOC_TAG_CMD) < 0)
        rc = fail(m, ECOC_FAILED, "cannot reach the probe on %s", m->r->host[a].name);
    else if ((bid = wait_for(m, m->tid[a], ECOC_TAG_RESULT, what)) < 0)
        rc = -bid;
    else {
        if (pvm_upkint(&status, 1, 1) >= 0 && status == ECOC_RELAY_LATE)
            snprintf(why, wlen, "an echo did not come back within %d ms", wait);
        else if (status != 0)
            snprintf(why, wlen, "the probe on %s could not measure it (status %d)",
                     m->r->host[a].name, status);
        else if (pvm_upkdouble(t, trials, 1) < 0)
            snprintf(why, wlen, "the probe on %s answered fewer than %d times",
                     m->r->host[a].name, trials);
        for (int i = 0; i < trials && !why[0]; i++)
            if (!(t[i] > 0.0 && t[i] < 1e6)) /* NaN fails both */
                snprintf(why, wlen, "the probe on %s answered a time that is none (%g)",
                         m->r->host[a].name, t[i]);
        pvm_freebuf(bid);
    }
    if (rc == ECOC_OK && !why[0]) {
        ecoc_stat_of(t, trials, &st);
        *out = st.min;
    }
    free(t);
    return rc;
}

/* The three hosts of the relay: the first three of the first subnet of
 * 3 or more.  0, or -1: no subnet has 3 (the forward's formula takes
 * a->b for a->c, true only inside a subnet: not measured then). */
static int relay_hosts(int **mem, const int *cnt, int ns, int *h)
{
    for (int s = 0; s < ns; s++)
        if (cnt[s] >= 3) {
            memcpy(h, mem[s], 3 * sizeof *h);
            return 0;
        }
    return -1;
}

/* The forward cost: what a member that passes a message on (a tree's
 * middle member: it receives, unpacks, packs and sends) adds to a hop.
 * Host a's probe sends ECOC_MODEL_SMALL bytes through b to c, which
 * echoes them to a (ECOC_CMD_RELAY), against a's round trip with c and
 * b's with c, each the least of the trials of 4x the rounds (as a
 * link's small probe).  The relay's round trip is a->b, b's forward,
 * b->c, c's echo, c->a; a-c's round trip the same but for a->b and the
 * forward: so the forward is the relay less a-c's round trip less b-c's
 * one-way time, the model's cost of that hop (half a round trip, half
 * its echo included: a hop and the forward together are what the extra
 * leg took).  Three hosts of one subnet (relay_hosts); no subnet of 3
 * hosts: not measured (0).  A relay that fails (relay_min: a probe of
 * an older build, one that drops or mangles relays) is not measured
 * either, with a warning: the forward is optional, the run goes on. */
static int measure_forward(master *m, int **mem, const int *cnt, int ns, ecoi_model *mo)
{
    ecoc_result *r = m->r;
    ecoc_model_info *mi = &r->model;
    int *h = mi->relay, rounds = 4 * m->o->rounds, rc;
    char what[800];

    if (relay_hosts(mem, cnt, ns, h) != 0)
        return ECOC_OK;
    snprintf(what, sizeof what, "model: %s via %s to %s", r->host[h[0]].name,
             r->host[h[1]].name, r->host[h[2]].name);
    mi->relay_failed[0] = '\0';
    if ((rc = model_step(m, what)) != ECOC_OK ||
        (rc = relay_min(m, h[0], h[1], h[2], ECOC_MODEL_SMALL, rounds, what, &mi->relay_trip,
                        mi->relay_failed, sizeof mi->relay_failed)) != ECOC_OK)
        return rc;
    if (mi->relay_failed[0]) {
        model_done(m);
        return ecoc_warn(r, "the relay %s via %s to %s failed (%s): the forward cost is not "
                         "measured (0)", r->host[h[0]].name, r->host[h[1]].name,
                         r->host[h[2]].name, mi->relay_failed) == ECO_OK
            ? ECOC_OK : fail(m, ECOC_FAILED, "%s", eco_strerror(ECO_ERR_NOMEM));
    }
    if ((rc = min_time(m, m->tid[h[0]], m->tid[h[2]], ECOC_MODEL_SMALL, rounds,
                       r->host[h[0]].name, what, &mi->relay_direct)) != ECOC_OK ||
        (rc = min_time(m, m->tid[h[1]], m->tid[h[2]], ECOC_MODEL_SMALL, rounds,
                       r->host[h[1]].name, what, &mi->relay_leg)) != ECOC_OK)
        return rc;
    mi->relay_measured = 1;
    mo->forward = fmax(0.0, mi->relay_trip - 2.0 * mi->relay_direct - mi->relay_leg);
    model_done(m);
    return ECOC_OK;
}

/* Subnet s's members as indexes into r->host: mem[s][0 .. cnt[s]-1]. */
static int *subnet_members(const master *m, int s, int *n);

static int measure_model(master *m)
{
    ecoc_result *r = m->r;
    int ns = eco_map_nsubnets(r->map), rc = ECOC_OK, *cnt, **mem;
    ecoi_model *mo = ecoi_model_new(ns);
    double start = now();
    long steps = 1;
    const ecoi_cost *best_in = NULL, *best = NULL;

    cnt = calloc((size_t)ns + 1, sizeof *cnt);
    mem = calloc((size_t)ns + 1, sizeof *mem);
    r->model.up = calloc((size_t)ns + 1, sizeof *r->model.up);
    if (!mo || !cnt || !mem || !r->model.up) {
        rc = fail(m, ECOC_FAILED, "%s", eco_strerror(ECO_ERR_NOMEM));
        goto out;
    }
    for (int s = 0; s < ns; s++)
        if (!(mem[s] = subnet_members(m, s, &cnt[s]))) {
            rc = fail(m, ECOC_FAILED, "%s", eco_strerror(ECO_ERR_NOMEM));
            goto out;
        }
    r->model.big = m->o->size > 4 * ECOC_MODEL_SMALL ? m->o->size : 16384;
    r->model.stream = 1 + (ECOC_MODEL_SUSTAIN + r->model.big - 1) / r->model.big;
    if (r->model.stream < 3)
        r->model.stream = 3; /* 2 messages past the short stream, at least */
    for (int s = 0; s < ns; s++)
        steps += ns - s - (cnt[s] < 2) + (cnt[s] >= 2 && ns > 1) * 2;
    /* every host busy, the ring's steps short and long, the relay */
    steps += 3 * (r->n >= 2) + (r->n >= 3);
    m->home = -1; /* this program's subnet: the host of its pvmd */
    for (int i = 0; i < r->n; i++)
        if (m->dtid[i] == pvm_tidtohost(pvm_mytid()))
            m->home = host_subnet(r, i);
    m->unit = "model measurements";
    m->done = 0;
    m->left = steps;
    m->pass = 0;
    for (int s = 0; s < ns && rc == ECOC_OK; s++)
        for (int t = s; t < ns && rc == ECOC_OK; t++) {
            ecoi_cost c = { 0.0, 0.0 };
            double burst = 0.0;
            if (s == t && cnt[s] < 2)
                continue; /* one host: filled in below */
            rc = fit_pair(m, mem[s][0], s == t ? mem[s][1] : mem[t][0], &c, &burst);
            mo->link[(size_t)s * ns + t] = mo->link[(size_t)t * ns + s] = c;
            mo->burst[(size_t)s * ns + t] = mo->burst[(size_t)t * ns + s] = burst;
            if (s == t && (!best_in || cheaper(&c, best_in, r->model.big)))
                best_in = &mo->link[(size_t)s * ns + s];
            if (!best || cheaper(&c, best, r->model.big))
                best = &mo->link[(size_t)s * ns + t];
        }
    /* a subnet of one host has no pair inside: a copy of the cheapest,
     * its burst with it */
    for (int s = 0; s < ns && rc == ECOC_OK; s++)
        if (cnt[s] < 2 && (best_in || best)) {
            const ecoi_cost *from = best_in ? best_in : best;
            mo->link[(size_t)s * ns + s] = *from;
            mo->burst[(size_t)s * ns + s] = mo->burst[from - mo->link];
        }
    if (rc == ECOC_OK)
        rc = measure_task(m, mo);
    if (rc == ECOC_OK && !r->model.task_how && (best_in || best))
        mo->task = best_in ? *best_in : *best;
    for (int s = 0; s < ns && rc == ECOC_OK; s++)
        rc = measure_uplink(m, s, mem, cnt, mo);
    if (rc == ECOC_OK)
        rc = measure_busy(m, mo);
    if (rc == ECOC_OK)
        rc = measure_step(m, mo);
    if (rc == ECOC_OK)
        rc = measure_forward(m, mem, cnt, ns, mo);
    /* not measured: what the probes said of their machines */
    mo->cores = ecoc_shared_cores(r->n, r->machine, &r->model.crowd_hosts,
                                  &r->model.crowd_cpus);
    if (rc == ECOC_OK && !ecoi_model_valid(mo))
        rc = fail(m, ECOC_FAILED, "the measured cost model is not valid");
    if (rc == ECOC_OK) {
        r->map->model = mo; /* over the map's subnets, written with it */
        mo = NULL;
        r->model.measured = 1;
    }
    r->model.seconds = now() - start;
out:
    for (int s = 0; mem && s < ns; s++)
        free(mem[s]);
    free(mem);
    free(cnt);
    ecoi_model_free(mo);
    return rc;
}

/* ------------------------------------------------------------------ */
/* The degree k of each subnet                                         */
/* ------------------------------------------------------------------ */

/* The subnet file the probes of subnet s use with degree k: their
 * distinct PVM hosts as one subnet.  Malloc'd text, or NULL. */
static char *degree_file(const master *m, const int *member, int n, int k)
{
    eco_map *map = eco_map_new();
    char *text = NULL;
    size_t len = 0;
    FILE *mem;
    int rc = map ? ECO_OK : ECO_ERR_NOMEM;

    for (int i = 0; i < n && rc >= 0; i++)
        rc = eco_map_add_host(map, m->r->host[member[i]].pvmhost);
    for (int a = 0; a < n && rc >= 0; a++)   /* equal costs: one subnet */
        for (int b = 0; b < n && rc >= 0; b++) {
            const char *ha = m->r->host[member[a]].pvmhost, *hb = m->r->host[member[b]].pvmhost;
            if (strcmp(ha, hb) < 0)
                rc = eco_map_add_cost(map, ha, hb, 1e-3);
        }
    if (rc >= 0)
        rc = eco_map_partition(map, m->o->threshold);
    if (rc >= 0)
        rc = eco_map_set_degree(map, 0, k);
    if (rc >= 0 && (mem = open_memstream(&text, &len))) {
        rc = eco_map_fprint(map, mem);
        if (fclose(mem) != 0)
            rc = ECO_ERR_IO;
    }
    eco_map_free(map);
    if (rc < 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* Time degree_trials broadcasts with degree k over the members' probes:
 * the median in *median. */
static int time_degree(master *m, const int *member, int n, int k, double *median)
{
    const ecoc_options *o = m->o;
    int cmd = ECOC_CMD_BCAST, warm = 2, *tids = malloc((size_t)n * sizeof *tids), rc = ECOC_OK;
    double *t = malloc((size_t)o->degree_trials * sizeof *t);
    char *text = degree_file(m, member, n, k), what[300];
    ecoc_stat st;

    if (!tids || !t || !text) {
        rc = fail(m, ECOC_FAILED, "%s", eco_strerror(ECO_ERR_NOMEM));
        goto out;
    }
    for (int i = 0; i < n; i++)
        tids[i] = m->tid[member[i]];
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&cmd, 1, 1);
    pvm_pkint(&n, 1, 1);
    pvm_pkint(tids, n, 1);
    pvm_pkint((int *)&o->size, 1, 1);
    pvm_pkint((int *)&o->degree_trials, 1, 1);
    pvm_pkint(&warm, 1, 1);
    if (ecoc_pkstr(text) < 0 || pvm_mcast(tids, n, ECOC_TAG_CMD) < 0) {
        rc = fail(m, ECOC_FAILED, "cannot reach the probes of a subnet");
        goto out;
    }
    snprintf(what, sizeof what, "broadcasts with k=%d", k);
    for (int i = 0; i < n && rc == ECOC_OK; i++) {
        int bid = wait_for(m, tids[i], ECOC_TAG_RESULT, what), status = -1;
        if (bid < 0) {
            rc = -bid;
            break;
        }
        if (pvm_upkint(&status, 1, 1) < 0 || status != 0 ||
            (i == 0 && pvm_upkdouble(t, o->degree_trials, 1) < 0))
            rc = fail(m, ECOC_FAILED, "timed broadcasts with k=%d failed on %s: %s (give "
                      "--degree K to skip choosing k)", k, m->r->host[member[i]].name,
                      eco_strerror(status));
        pvm_freebuf(bid);
    }
    if (rc == ECOC_OK) {
        ecoc_stat_of(t, o->degree_trials, &st);
        *median = st.median;
    }
out:
    free(tids);
    free(t);
    free(text);
    return rc;
}

/* Members of map subnet s as indexes into r->host. */
static int *subnet_members(const master *m, int s, int *n)
{
    const ecoc_result *r = m->r;
    int *member;

    *n = eco_map_subnet_size(r->map, s);
    if (!(member = malloc((size_t)*n * sizeof *member + 1)))
        return NULL;
    for (int i = 0; i < *n; i++) {
        const char *name = eco_map_host(r->map, eco_map_subnet_host(r->map, s, i));
        for (int h = 0; h < r->n; h++)
            if (strcmp(r->host[h].name, name) == 0)
                member[i] = h;
    }
    return member;
}

static int choose_degree(master *m, int s)
{
    ecoc_degree *d = &m->r->degree[s];
    int n, rc = ECOC_OK, *member = subnet_members(m, s, &n);
    char what[120];

    if (!member)
        return fail(m, ECOC_FAILED, "%s", eco_strerror(ECO_ERR_NOMEM));
    d->tried = n - 1 < ECOC_MAX_TRY_DEGREE ? n - 1 : ECOC_MAX_TRY_DEGREE;
    d->how = 1;
    for (int k = 1; k <= d->tried && rc == ECOC_OK; k++) {
        snprintf(what, sizeof what, "subnet %d: k=%d", s, k);
        progress(m, what);
        if ((rc = pace(m, 1.0)) == ECOC_OK)
            rc = time_degree(m, member, n, k, &d->median[k]);
        if (rc == ECOC_OK && (k == 1 || d->median[k] < d->median[d->k]))
            d->k = k;
    }
    free(member);
    return rc;
}

static int choose_degrees(master *m)
{
    ecoc_result *r = m->r;
    int rc = ECOC_OK;

    for (int s = 0; s < eco_map_nsubnets(r->map) && rc == ECOC_OK; s++) {
        ecoc_degree *d = &r->degree[s];
        if (m->o->degree > 0) {
            d->k = m->o->degree;
            d->how = 2;
        } else if (eco_map_subnet_size(r->map, s) < 3) {
            d->k = ECO_DEFAULT_DEGREE;
            d->how = 0;
        } else
            rc = choose_degree(m, s);
        if (rc == ECOC_OK && eco_map_set_degree(r->map, s, d->k) != ECO_OK)
            rc = fail(m, ECOC_FAILED, "cannot set the degree of subnet %d", s);
    }
    return rc;
}

/* ------------------------------------------------------------------ */

static int run(master *m)
{
    ecoc_result *r = m->r;
    int rc;

    if ((rc = resolve_hosts(m)) != ECOC_OK)
        return rc;
    if (r->n < 1)
        return fail(m, ECOC_NOSTART, "no hosts to probe");
    if ((rc = spawn_probes(m)) != ECOC_OK)
        return rc;
    m->measure_start = now();
    if (m->o->mode == ECOC_MODE_SPARSE ||
        (m->o->mode == ECOC_MODE_AUTO && r->n > ECOC_AUTO_SPARSE_ABOVE))
        rc = sparse_pairs(m);
    else
        rc = all_pairs(m);
    if (rc == ECOC_OK && m->o->hops)
        rc = count_hops(m);
    if (rc == ECOC_OK)
        rc = ecoc_result_partition(r, m->err, m->errlen);
    if (rc == ECOC_OK)
        rc = recheck_splits(m);
    if (rc == ECOC_OK && m->o->model)
        rc = measure_model(m);
    if (rc == ECOC_OK)
        rc = choose_degrees(m);
    return rc;
}

int ecoc_characterize(const ecoc_options *o, ecoc_result *r, char *err, size_t errlen)
{
    master m;
    int rc;

    memset(r, 0, sizeof *r);
    memset(&m, 0, sizeof m);
    r->opt = *o;
    m.o = &r->opt;
    m.r = r;
    m.err = err;
    m.errlen = errlen;
    m.start = m.measure_start = now();
    m.last_start = m.start - 1e9;
    err[0] = '\0';
    drain(ECOC_TAG_EXIT);
    drain(ECOC_TAG_HOSTDEL);
    rc = run(&m);
    progress_end(&m);
    if (rc != ECOC_OK && r->n > 1 && m.done + m.left > 0 && m.unit) {
        size_t len = strlen(err);
        snprintf(err + len, errlen - len, " after %ld of %s%ld %s", m.done,
                 r->sparse ? "about " : "", m.done + m.left, m.unit);
        len = strlen(err);
        if (m.pass > 0 && m.left > 0)
            snprintf(err + len, errlen - len, " (pass %d of %d)", m.pass, r->opt.trials);
        else if (m.left > 0 && !r->sparse && strcmp(m.unit, "pair samples") == 0)
            snprintf(err + len, errlen - len, " (connecting every pair, before pass 1 of %d)",
                     r->opt.trials);
    }
    stop_probes(&m, rc != ECOC_OK);
    r->seconds = now() - m.start;
    free(m.tid);
    free(m.dtid);
    free(m.dtids);
    free(m.samp);
    free(m.nsamp);
    if (rc != ECOC_OK)
        ecoc_result_free(r);
    return rc;
}
