/*
 * eco-probe -- the probe task of eco-characterize(1) and ecod(8).
 *
 * Spawned by the master through PVM, one per host; never run by hand.
 * It answers commands from its parent (characterize.h, "protocol"):
 *
 *   PING peer size rounds trials   time `trials` samples of `rounds` round
 *                                  trips of `size` bytes with the peer
 *                                  probe; reply the one-way times
 *   BCAST n tids size reps warm F  eco_init over the n probes (rank 0
 *                                  reads subnet file text F) and time
 *                                  `reps` broadcasts of `size` bytes:
 *                                  root start to the last acknowledgement
 *   QUIT                           leave PVM and exit
 *
 * and echoes ECHO messages of other probes back to their sender, unread.
 * Direct task-to-task routing.  It exits when its parent does.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pvm3.h>

#include "characterize.h"

#define PROG "eco-probe"

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Send back an ECHO, unchanged: the received buffer becomes the send
 * buffer; the previous send buffer is freed. */
static void echo(int src)
{
    int old = pvm_setsbuf(pvm_getrbuf());

    if (old > 0)
        pvm_freebuf(old);
    pvm_send(src, ECOC_TAG_ECHO_BACK);
}

static void reply(int master, int status, const double *v, int nv)
{
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&status, 1, 1);
    if (status == 0 && nv > 0)
        pvm_pkdouble((double *)v, nv, 1);
    pvm_send(master, ECOC_TAG_RESULT);
}

/* One round trip with the peer; 0 or -1. */
static int round_trip(int peer)
{
    int bid;

    if (pvm_send(peer, ECOC_TAG_ECHO) < 0)
        return -1;
    if ((bid = pvm_recv(peer, ECOC_TAG_ECHO_BACK)) < 0)
        return -1;
    pvm_freebuf(bid);
    return 0;
}

static void do_ping(int master)
{
    int peer = 0, size = 0, rounds = 0, trials = 0, status = 0, sb, old;
    double *t = NULL;
    char *data = NULL;

    pvm_upkint(&peer, 1, 1);
    pvm_upkint(&size, 1, 1);
    pvm_upkint(&rounds, 1, 1);
    pvm_upkint(&trials, 1, 1);
    t = malloc(((size_t)trials + 1) * sizeof *t);
    data = calloc((size_t)size + 1, 1);
    sb = pvm_mkbuf(PvmDataRaw);
    if (!t || !data || sb < 0 || peer <= 0 || size < 1 || rounds < 1 || trials < 1) {
        reply(master, -1, NULL, 0);
        free(t);
        free(data);
        return;
    }
    old = pvm_setsbuf(sb);
    if (old > 0)
        pvm_freebuf(old);
    pvm_pkbyte(data, size, 1);
    status = round_trip(peer); /* warm up: connect the direct route */
    for (int i = 0; i < trials && status == 0; i++) {
        double t0 = now();
        for (int r = 0; r < rounds && status == 0; r++)
            status = round_trip(peer);
        t[i] = (now() - t0) / (2.0 * rounds);
    }
    reply(master, status, t, trials);
    free(t);
    free(data);
}

/* Write the subnet file text to a private temporary file: its path. */
static int temp_subnet_file(const char *text, char *path, size_t len)
{
    const char *dir = getenv("TMPDIR");
    FILE *f;
    int fd;

    snprintf(path, len, "%s/eco-probe-XXXXXX", dir && *dir ? dir : "/tmp");
    if ((fd = mkstemp(path)) < 0)
        return -1;
    if (!(f = fdopen(fd, "w"))) {
        close(fd);
        unlink(path);
        return -1;
    }
    fputs(text, f);
    if (fclose(f) != 0) {
        unlink(path);
        return -1;
    }
    return 0;
}

/* Broadcasts over ctx; at the root, reps times in t[]. */
static int time_bcasts(eco_ctx *ctx, const int *tids, int n, int size, int reps, int warm,
                       double *t)
{
    char *buf = calloc((size_t)size + 1, 1);
    int rc = buf ? ECO_OK : ECO_ERR_NOMEM, root = eco_rank(ctx) == 0;

    for (int i = 0; i < warm + reps && rc == ECO_OK; i++) {
        double t0 = now();
        rc = eco_bcast(ctx, buf, size, PVM_BYTE, 0);
        if (rc == ECO_OK && root) {
            for (int a = 1; a < n && rc == ECO_OK; a++) {
                int bid = pvm_recv(-1, ECOC_TAG_ACK);
                rc = bid > 0 ? ECO_OK : ECO_ERR_PVM;
                if (bid > 0)
                    pvm_freebuf(bid);
            }
            if (i >= warm)
                t[i - warm] = now() - t0;
        } else if (rc == ECO_OK) {
            pvm_initsend(PvmDataDefault);
            rc = pvm_send(tids[0], ECOC_TAG_ACK) < 0 ? ECO_ERR_PVM : ECO_OK;
        }
    }
    free(buf);
    return rc;
}

static void do_bcast(int master)
{
    int n = 0, size = 0, reps = 0, warm = 0, rc = ECO_ERR_ARG, *tids = NULL;
    char *text = NULL, path[4200] = "";
    double *t = NULL;
    eco_ctx *ctx = NULL;
    int bytes = 0, tag, src;

    pvm_bufinfo(pvm_getrbuf(), &bytes, &tag, &src);
    pvm_upkint(&n, 1, 1);
    if (n >= 1 && n <= 1 << 20 && (tids = malloc((size_t)n * sizeof *tids)))
        pvm_upkint(tids, n, 1);
    pvm_upkint(&size, 1, 1);
    pvm_upkint(&reps, 1, 1);
    pvm_upkint(&warm, 1, 1);
    if (bytes > 0 && (text = malloc((size_t)bytes + 1)))
        pvm_upkstr(text);
    if (tids && text && size >= 1 && reps >= 1 && warm >= 0 &&
        (t = calloc((size_t)reps, sizeof *t))) {
        rc = ECO_OK;
        if (tids[0] == pvm_mytid() && temp_subnet_file(text, path, sizeof path) != 0)
            rc = ECO_ERR_IO;
        if (rc == ECO_OK)
            rc = eco_init(path[0] ? path : NULL, n, tids, &ctx);
        if (path[0])
            unlink(path);
        if (rc == ECO_OK)
            rc = time_bcasts(ctx, tids, n, size, reps, warm, t);
        if (ctx)
            eco_finalize(ctx);
    }
    reply(master, rc, t, tids && tids[0] == pvm_mytid() ? reps : 0);
    free(tids);
    free(text);
    free(t);
}

static int serve(int master)
{
    for (;;) {
        int bid = pvm_recv(-1, -1), bytes, tag, src, cmd = 0;

        if (bid < 0)
            return 1; /* the daemon is gone */
        pvm_bufinfo(bid, &bytes, &tag, &src);
        if (tag == ECOC_TAG_ECHO) {
            echo(src);
            continue;
        }
        if (tag == ECOC_TAG_PARENT_GONE)
            return 0;
        if (tag != ECOC_TAG_CMD || src != master || pvm_upkint(&cmd, 1, 1) < 0)
            continue; /* not for us */
        if (cmd == ECOC_CMD_QUIT)
            return 0;
        if (cmd == ECOC_CMD_PING)
            do_ping(master);
        else if (cmd == ECOC_CMD_BCAST)
            do_bcast(master);
        else
            reply(master, -1, NULL, 0);
    }
}

int main(int argc, char **argv)
{
    char host[256] = "";
    int master, rc;

    if (argc > 1 && strcmp(argv[1], "--version") == 0) {
        printf(PROG " (libeco) %s\n", PACKAGE_VERSION);
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "--help") == 0) {
        printf("Usage: " PROG "\n"
               "The probe task of eco-characterize(1) and ecod(8), which spawn it\n"
               "through PVM on every host they measure.  It is not run by hand.\n");
        return 0;
    }
    if (argc > 1) {
        fprintf(stderr, PROG ": unexpected argument '%s'\n"
                        "Try '" PROG " --help' for more information.\n", argv[1]);
        return 2;
    }
    pvm_setopt(PvmAutoErr, 0);
    if (pvm_mytid() < 0 || (master = pvm_parent()) <= 0) {
        fprintf(stderr, PROG ": not started through PVM by eco-characterize or ecod; "
                        "it is not run by hand\n");
        if (pvm_mytid() >= 0)
            pvm_exit();
        return 2;
    }
    pvm_setopt(PvmRoute, PvmRouteDirect);
    pvm_notify(PvmTaskExit, ECOC_TAG_PARENT_GONE, 1, &master);
    gethostname(host, sizeof host - 1);
    pvm_initsend(PvmDataDefault);
    pvm_pkstr(host);
    pvm_send(master, ECOC_TAG_HELLO);
    rc = serve(master);
    pvm_exit();
    return rc;
}
