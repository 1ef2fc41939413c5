/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ecod -- keep the subnet file of a PVM virtual machine current
 * (ecod(8)).
 *
 *   ecod [--once | --interval SECONDS] [-o SUBNETFILE] [--matrix FILE]
 *        [--rate PAIRS_PER_SECOND] [--settle SECONDS] [--pidfile FILE]
 *        [--log FILE] [--detach] [measurement options]
 *
 * A PVM task like eco-characterize: it characterizes at start, again
 * when hosts join or leave (pvm_notify PvmHostAdd / PvmHostDelete, after
 * --settle seconds of quiet), on --interval, and on SIGHUP; it measures
 * one pair at a time, at most --rate pairs per second.  One ecod per
 * subnet file: an exclusive flock on FILE.lock.  SIGTERM or SIGINT: stop
 * (a measurement in progress is abandoned, the file stays as it was),
 * remove the pid file, exit 0.
 *
 * Exit status: 0 stopped by SIGTERM/SIGINT or --once written, 1 --once
 * failed or the virtual machine was lost, 2 usage, 3 cannot start (no
 * virtual machine, the lock is held, no probe, bad log or pid file),
 * 4 --once could not write.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <pvm3.h>

#include "characterize.h"
#include "eco_atomic.h"  /* ecoi_make_parent */

#define PROG "ecod"
#define ECOD_DEFAULT_RATE 2.0     /* pairs per second */
#define ECOD_DEFAULT_SETTLE 5.0   /* seconds of quiet after a host change */
#define ECOD_RETRY 60.0           /* seconds before retrying a failed run */
#define TAG_HOSTADD (ECOC_TAG_BASE + 0x100)
#define TAG_HOSTDEL (ECOC_TAG_BASE + 0x101)

enum { OPT_ONCE = 0x200, OPT_INTERVAL, OPT_SETTLE, OPT_PIDFILE, OPT_LOG, OPT_DETACH };

typedef struct daemon_opts {
    ecoc_options o;
    const char *output, *matrix, *pidfile, *logfile;
    int once, detach;
    double interval, settle;
} daemon_opts;

static volatile sig_atomic_t got_hup;
static FILE *log_out;

/* ------------------------------------------------------------------ */
/* Options                                                             */
/* ------------------------------------------------------------------ */

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: " PROG " [OPTION]...\n"
            "Keep the subnet file of the running PVM virtual machine current: measure\n"
            "it now, again whenever hosts join or leave, and every --interval seconds.\n"
            "\n"
            "  -o, --output=FILE      the subnet file (default $HOME/.eco/subnets)\n"
            "  -m, --matrix=FILE      also keep the measured cost matrix\n"
            "      --once             characterize once and exit (no daemon)\n"
            "      --interval=SECONDS also re-characterize this often (default 0: only\n"
            "                         when hosts join or leave, or on SIGHUP)\n"
            "      --settle=SECONDS   wait this long after the last host change before\n"
            "                         measuring (default %g)\n"
            "      --pidfile=FILE     write the daemon's pid to FILE, removed at exit\n"
            "      --log=FILE         append the log to FILE (default standard error)\n"
            "      --detach           run in the background (needs --log)\n"
            "  -h, --help             show this help and exit\n"
            "  -V, --version          show the version and exit\n"
            "\n", ECOD_DEFAULT_SETTLE);
    ecoc_options_help(out);
    fprintf(out,
            "\n"
            "ecod measures at --rate %g pairs per second unless told otherwise.  Only\n"
            "one ecod runs per subnet file (a lock on FILE.lock).  SIGTERM or SIGINT\n"
            "stops it cleanly; SIGHUP reopens the log and re-characterizes now.\n"
            "Exit status: 0 stopped or --once written, 1 failed or the virtual machine\n"
            "was lost, 2 usage, 3 cannot start, 4 --once could not write.  See ecod(8).\n",
            ECOD_DEFAULT_RATE);
}

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, PROG ": ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry '" PROG " --help' for more information.\n");
    return ECOC_USAGE;
}

static int parse_seconds(const char *s, double *out)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= 0.0) || v > 1e9)
        return -1;
    *out = v;
    return 0;
}

static int parse_args(int argc, char **argv, daemon_opts *d)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},
        {"matrix", required_argument, NULL, 'm'},
        {"once", no_argument, NULL, OPT_ONCE},
        {"interval", required_argument, NULL, OPT_INTERVAL},
        {"settle", required_argument, NULL, OPT_SETTLE},
        {"pidfile", required_argument, NULL, OPT_PIDFILE},
        {"log", required_argument, NULL, OPT_LOG},
        {"detach", no_argument, NULL, OPT_DETACH},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        ECOC_LONG_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    char why[512];
    int ch;

    opterr = 0;
    while ((ch = getopt_long(argc, argv, ":o:m:hV", longopts, NULL)) != -1) {
        switch (ch) {
        case 'o': d->output = optarg; break;
        case 'm': d->matrix = optarg; break;
        case OPT_ONCE: d->once = 1; break;
        case OPT_PIDFILE: d->pidfile = optarg; break;
        case OPT_LOG: d->logfile = optarg; break;
        case OPT_DETACH: d->detach = 1; break;
        case OPT_INTERVAL:
            if (parse_seconds(optarg, &d->interval))
                return usage_error("invalid --interval '%s' (seconds, 0 for none)", optarg);
            break;
        case OPT_SETTLE:
            if (parse_seconds(optarg, &d->settle))
                return usage_error("invalid --settle '%s' (seconds)", optarg);
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
            if (ecoc_option(&d->o, ch, optarg, why, sizeof why) != 0)
                return usage_error("%s", why);
        }
    }
    if (optind < argc)
        return usage_error("unexpected argument '%s'", argv[optind]);
    if (!d->output && !(d->output = ecoc_default_subnet_file()))
        return usage_error("%s", "HOME is not set: give the subnet file with -o FILE");
    if (d->once && (d->interval > 0 || d->detach))
        return usage_error("%s", "--once goes with neither --interval nor --detach");
    if (d->detach && !d->logfile)
        return usage_error("%s", "--detach needs --log FILE");
    return -1;
}

/* ------------------------------------------------------------------ */
/* Log                                                                 */
/* ------------------------------------------------------------------ */

static void logmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void logmsg(const char *fmt, ...)
{
    char stamp[64];
    time_t t = time(NULL);
    va_list ap;
    FILE *out = log_out ? log_out : stderr;

    strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S %z", localtime(&t));
    fprintf(out, "%s " PROG "[%ld]: ", stamp, (long)getpid());
    va_start(ap, fmt);
    vfprintf(out, fmt, ap);
    va_end(ap);
    fputc('\n', out);
    fflush(out);
}

/* Open path to append, created 0644 (less the umask) when missing; a
 * symbolic link is not followed (ELOOP).  The fd, or -1 with errno. */
static int open_append(const char *path)
{
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    struct stat st;

    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
        close(fd);
        errno = EINVAL; /* a device or a fifo: not a log */
        return -1;
    }
    return fd;
}

/* What went wrong opening a file, for people. */
static const char *open_error(int err)
{
    if (err == ELOOP)
        return "is a symbolic link (not followed)";
    if (err == EINVAL)
        return "not a regular file";
    return strerror(err);
}

static int open_log(const char *path)
{
    FILE *f;
    int fd;

    if (!path)
        return 0;
    if ((fd = open_append(path)) < 0)
        return -1;
    if (!(f = fdopen(fd, "a"))) {
        close(fd);
        return -1;
    }
    setvbuf(f, NULL, _IOLBF, 0);
    if (log_out)
        fclose(log_out);
    log_out = f;
    return 0;
}

/* ------------------------------------------------------------------ */
/* Lock and pid file                                                   */
/* ------------------------------------------------------------------ */

/* Open FILE.lock, creating its directories ($HOME/.eco on a first run)
 * and itself; never through a symbolic link, never anything but a
 * regular file.  The fd, or -1 with why. */
static int open_lock(const char *path, char *why, size_t len)
{
    struct stat st;
    int fd;

    if (ecoi_make_parent(path, why, len) != 0)
        return -1;
    if ((fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644)) < 0) {
        snprintf(why, len, "%s: %s", path, open_error(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(why, len, "%s: %s", path, open_error(EINVAL));
        close(fd);
        return -1;
    }
    return fd;
}

/* Hold FILE.lock for the daemon's life: the fd, or -1 with why. */
static int take_lock(const char *output, char *why, size_t len)
{
    char path[4200], holder[32] = "";
    int fd;
    ssize_t got;

    snprintf(path, sizeof path, "%s.lock", output);
    if ((fd = open_lock(path, why, len)) < 0)
        return -1;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        got = read(fd, holder, sizeof holder - 1);
        holder[got > 0 ? got : 0] = '\0';
        holder[strcspn(holder, "\n")] = '\0';
        snprintf(why, len, "another ecod%s%s keeps %s current (%s is locked)",
                 holder[0] ? " with pid " : "", holder, output, path);
        close(fd);
        return -1;
    }
    snprintf(holder, sizeof holder, "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) == 0 && write(fd, holder, strlen(holder)) < 0)
        logmsg("warning: cannot write %s: %s", path, strerror(errno));
    return fd;
}

static int write_pidfile(const char *path, char *why, size_t len)
{
    char text[32];

    snprintf(text, sizeof text, "%ld\n", (long)getpid());
    return ecoc_write_atomic(path, text, strlen(text), why, len);
}

/* ------------------------------------------------------------------ */
/* Signals                                                             */
/* ------------------------------------------------------------------ */

static void on_stop(int sig)
{
    if (!ecoc_stop)
        ecoc_stop = sig;
}

static void on_hup(int sig)
{
    (void)sig;
    got_hup = 1;
}

static void catch_signals(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_stop;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sa.sa_handler = on_hup;
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

/* ------------------------------------------------------------------ */
/* Characterizing                                                      */
/* ------------------------------------------------------------------ */

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Do the subnets of the new map differ from those of the file? */
static int subnets_changed(const eco_map *map, const char *path)
{
    eco_map *old = NULL;
    int changed = 0;

    if (eco_map_read(path, &old, NULL, 0) != ECO_OK)
        return 1;
    if (eco_map_nhosts(old) != eco_map_nhosts(map) ||
        eco_map_nsubnets(old) != eco_map_nsubnets(map))
        changed = 1;
    for (int h = 0; !changed && h < eco_map_nhosts(map); h++) {
        int o = eco_map_find_host(old, eco_map_host(map, h));
        changed = o < 0 || eco_map_subnet_of(old, o) != eco_map_subnet_of(map, h) ||
                  eco_map_degree(old, eco_map_subnet_of(old, o)) !=
                      eco_map_degree(map, eco_map_subnet_of(map, h));
    }
    eco_map_free(old);
    return changed;
}

static void log_subnets(const ecoc_result *r)
{
    char line[1024];

    for (int s = 0; s < eco_map_nsubnets(r->map); s++) {
        size_t len = (size_t)snprintf(line, sizeof line, "  subnet %d k=%d:", s,
                                      eco_map_degree(r->map, s));
        for (int i = 0; i < eco_map_subnet_size(r->map, s) && len < sizeof line; i++)
            len += (size_t)snprintf(line + len, sizeof line - len, " %s",
                                    eco_map_host(r->map, eco_map_subnet_host(r->map, s, i)));
        logmsg("%s", line);
    }
}

/* One characterization and its commit: an ecoc code. */
static int characterize(const daemon_opts *d, const char *why)
{
    ecoc_result r;
    char err[2048];
    int rc, changed;

    logmsg("characterizing (%s)", why);
    rc = ecoc_characterize(&d->o, &r, err, sizeof err);
    if (rc != ECOC_OK) {
        logmsg("%s; %s left unchanged", err, d->output);
        return rc;
    }
    for (const char *w = r.warnings; w && *w; w += strcspn(w, "\n") + 1)
        logmsg("warning: %.*s", (int)strcspn(w, "\n"), w);
    changed = subnets_changed(r.map, d->output);
    rc = ecoc_commit(&r, d->output, d->matrix, err, sizeof err);
    if (rc != ECOC_OK)
        logmsg("cannot write: %s", err);
    else {
        int ns = eco_map_nsubnets(r.map);
        logmsg("wrote %s: %d host%s, %ld pair%s measured in %.1f s, %d subnet%s%s",
               d->output, r.n, r.n == 1 ? "" : "s", r.measured, r.measured == 1 ? "" : "s",
               r.seconds, ns, ns == 1 ? "" : "s", changed ? " (changed)" : " (unchanged)");
        if (changed)
            log_subnets(&r);
    }
    ecoc_result_free(&r);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Host events                                                         */
/* ------------------------------------------------------------------ */

/* The names of the hosts we watch, to name one that has left. */
static struct known { int dtid; char name[256]; } *known;
static int nknown;

static void remember(int dtid, const char *name)
{
    struct known *k;

    for (int i = 0; i < nknown; i++)
        if (known[i].dtid == dtid) {
            snprintf(known[i].name, sizeof known[i].name, "%s", name);
            return;
        }
    if (!(k = realloc(known, ((size_t)nknown + 1) * sizeof *known)))
        return;
    known = k;
    known[nknown].dtid = dtid;
    snprintf(known[nknown].name, sizeof known[nknown].name, "%s", name);
    nknown++;
}

static const char *host_name(int dtid, char *buf, size_t len)
{
    struct pvmhostinfo *hi;
    int nhost, narch;

    if (pvm_config(&nhost, &narch, &hi) >= 0)
        for (int h = 0; h < nhost; h++)
            remember(hi[h].hi_tid, hi[h].hi_name);
    for (int i = 0; i < nknown; i++)
        if (known[i].dtid == dtid) {
            snprintf(buf, len, "%s", known[i].name);
            return buf;
        }
    snprintf(buf, len, "t%x", dtid);
    return buf;
}

/* Watch these hosts for deletion. */
static void watch_hosts(const int *dtids, int n)
{
    char name[300];

    for (int i = 0; i < n; i++)
        host_name(dtids[i], name, sizeof name);
    if (n > 0 && pvm_notify(PvmHostDelete, TAG_HOSTDEL, n, (int *)dtids) < 0)
        logmsg("warning: pvm_notify(PvmHostDelete) failed");
}

/* Handle one event message: 1 when the hosts changed, -1 when PVM is gone. */
static int host_event(double timeout)
{
    struct timeval tv = { (long)timeout, (long)((timeout - (long)timeout) * 1e6) };
    int bid = pvm_trecv(-1, -1, &tv), bytes, tag, src, count = 0, dtid;
    int dtids[256];
    char name[300];

    if (bid < 0)
        return ecoc_stop || got_hup ? 0 : -1;
    if (bid == 0)
        return 0;
    pvm_bufinfo(bid, &bytes, &tag, &src);
    if (tag == TAG_HOSTADD) {
        pvm_upkint(&count, 1, 1);
        if (count > 256)
            count = 256;
        if (count > 0)
            pvm_upkint(dtids, count, 1);
        for (int i = 0; i < count; i++)
            logmsg("host %s joined the virtual machine", host_name(dtids[i], name, sizeof name));
        watch_hosts(dtids, count);
        pvm_freebuf(bid);
        return 1;
    }
    if (tag == TAG_HOSTDEL) {
        pvm_upkint(&dtid, 1, 1);
        logmsg("host %s left the virtual machine", host_name(dtid, name, sizeof name));
        pvm_freebuf(bid);
        return 1;
    }
    pvm_freebuf(bid); /* a late notice of a finished run */
    return 0;
}

static int watch_vm(void)
{
    struct pvmhostinfo *hi;
    int nhost, narch, *dtids;

    if (pvm_config(&nhost, &narch, &hi) < 0)
        return -1;
    if (!(dtids = malloc((size_t)nhost * sizeof *dtids + 1)))
        return -1;
    for (int h = 0; h < nhost; h++)
        dtids[h] = hi[h].hi_tid;
    watch_hosts(dtids, nhost);
    free(dtids);
    return pvm_notify(PvmHostAdd, TAG_HOSTADD, -1, NULL) < 0 ? -1 : 0;
}

/* ------------------------------------------------------------------ */
/* The daemon                                                          */
/* ------------------------------------------------------------------ */

/* The main loop: an exit status. */
static int serve(const daemon_opts *d)
{
    double due = now(), retry_gap = ECOD_RETRY;
    const char *why = "start";

    if (watch_vm() != 0) {
        logmsg("cannot watch the virtual machine's hosts (pvm_notify failed)");
        return ECOC_FAILED;
    }
    for (;;) {
        int ev;
        if (ecoc_stop)
            break;
        if (got_hup) {
            got_hup = 0;
            if (open_log(d->logfile) != 0)
                logmsg("cannot reopen %s: %s", d->logfile, open_error(errno));
            due = now();
            why = "SIGHUP";
        }
        if (due > 0 && now() >= due) {
            int rc = characterize(d, why);
            if (rc == ECOC_INTERRUPTED)
                break;
            due = rc == ECOC_OK ? (d->interval > 0 ? now() + d->interval : 0.0)
                                : now() + retry_gap;
            why = rc == ECOC_OK ? "interval" : "retry after a failure";
            continue;
        }
        ev = host_event(due > 0 && due - now() < 0.5 ? (due - now() > 0 ? due - now() : 0) : 0.5);
        if (ev < 0) {
            logmsg("lost the PVM daemon: exiting");
            return ECOC_FAILED;
        }
        if (ev > 0) {
            due = now() + d->settle;
            why = "hosts changed";
        }
    }
    logmsg("stopping on %s", ecoc_stop == SIGINT ? "SIGINT" : "SIGTERM");
    return 0;
}

/* path against the working directory, malloc'd (NULL when it cannot be). */
static char *absolute(const char *path)
{
    char cwd[4096], *abs;

    if (path[0] == '/')
        return strdup(path);
    if (!getcwd(cwd, sizeof cwd))
        return NULL;
    if ((abs = malloc(strlen(cwd) + strlen(path) + 2)))
        sprintf(abs, "%s/%s", cwd, path);
    return abs;
}

/* --detach moves to /: make the file names absolute first, so that a
 * relative name still means the file in the directory ecod started in
 * (also when SIGHUP reopens the log).  The copies go to keep[4], for
 * free.  0, or -1 with a message. */
static int absolute_paths(daemon_opts *d, char **keep)
{
    const char **name[] = { &d->output, &d->matrix, &d->pidfile, &d->logfile };

    for (int i = 0; i < 4; i++) {
        if (!*name[i])
            continue;
        if (!(keep[i] = absolute(*name[i]))) {
            fprintf(stderr, PROG ": %s: cannot make the name absolute: %s\n", *name[i],
                    strerror(errno));
            return -1;
        }
        *name[i] = keep[i];
    }
    return 0;
}

/* --detach: fork; the parent exits once the child reports its start. */
static int detach(int *report)
{
    int fds[2];
    pid_t pid;
    char status = 1;

    if (pipe(fds) != 0 || (pid = fork()) < 0) {
        fprintf(stderr, PROG ": cannot detach: %s\n", strerror(errno));
        exit(ECOC_NOSTART);
    }
    if (pid > 0) {
        close(fds[1]);
        if (read(fds[0], &status, 1) != 1)
            status = ECOC_NOSTART;
        exit(status);
    }
    close(fds[0]);
    setsid();
    if (chdir("/") != 0)
        return -1;
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
        dup2(null, STDIN_FILENO);
        dup2(null, STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
        if (null > 2)
            close(null);
    }
    *report = fds[1];
    return 0;
}

static void started(int *report, char status)
{
    if (*report >= 0) {
        if (write(*report, &status, 1) != 1)
            logmsg("warning: cannot report the start to the parent");
        close(*report);
        *report = -1;
    }
}

static int run(const daemon_opts *d, int *report)
{
    char why[4400];
    int lock = -1, rc, enrolled = 1;

    if ((lock = take_lock(d->output, why, sizeof why)) < 0) {
        logmsg("%s", why);
        return ECOC_NOSTART;
    }
    if (d->pidfile && write_pidfile(d->pidfile, why, sizeof why) != 0) {
        logmsg("cannot write the pid file: %s", why);
        close(lock);
        return ECOC_NOSTART;
    }
    if ((rc = ecoc_enroll(why, sizeof why)) != ECOC_OK) {
        logmsg("%s", why);
        enrolled = 0;
    } else if (d->once) {
        started(report, 0);
        rc = characterize(d, "--once");
        rc = rc == ECOC_INTERRUPTED ? 128 + (int)ecoc_stop : rc;
    } else {
        logmsg("started as task t%x: keeping %s current (rate %g pairs/s, interval %g s, "
               "settle %g s)", pvm_mytid(), d->output, d->o.rate, d->interval, d->settle);
        started(report, 0);
        rc = serve(d);
    }
    if (enrolled)
        pvm_exit();
    if (d->pidfile)
        unlink(d->pidfile);
    if (lock >= 0)
        close(lock);
    return rc;
}

int main(int argc, char **argv)
{
    daemon_opts d;
    char *keep[4] = { NULL, NULL, NULL, NULL };
    int rc, report = -1;

    memset(&d, 0, sizeof d);
    ecoc_options_init(&d.o);
    d.o.rate = ECOD_DEFAULT_RATE;
    d.settle = ECOD_DEFAULT_SETTLE;
    if ((rc = parse_args(argc, argv, &d)) >= 0)
        return rc;
    if (d.detach && absolute_paths(&d, keep) != 0)
        rc = ECOC_NOSTART;
    else if (open_log(d.logfile) != 0) {
        fprintf(stderr, PROG ": cannot open the log %s: %s\n", d.logfile, open_error(errno));
        rc = ECOC_NOSTART;
    } else if (d.detach && detach(&report) != 0)
        rc = ECOC_NOSTART;
    else {
        catch_signals();
        rc = run(&d, &report);
        started(&report, (char)(rc ? rc : 0));
    }
    if (log_out)
        fclose(log_out);
    free(known);
    for (int i = 0; i < 4; i++)
        free(keep[i]);
    return rc;
}
