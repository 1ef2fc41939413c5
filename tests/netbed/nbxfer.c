/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nbxfer.c -- a tiny TCP probe for the netbed testbed: reachability,
 * round-trip time and shaped throughput between emulated hosts, with no
 * ping, nc or iperf installed.
 *
 *   nbxfer serve [-p PORT] [-t SECONDS]
 *       Accept connections (one child process each) until killed, or for
 *       SECONDS when -t is given.  A connection starts with one command
 *       byte: 'P' echoes every byte it receives until the peer closes;
 *       'S' reads an 8-byte big-endian count, swallows that many bytes
 *       and answers 'K'.
 *   nbxfer ping HOST [-p PORT] [-c COUNT]
 *       COUNT (default 10) one-byte round trips over one connection.
 *       Prints "HOST: min MIN_US us, median MED_US us"; exit 1 when the
 *       host cannot be reached within 3 seconds.
 *   nbxfer send HOST BYTES [-p PORT]
 *       Sends BYTES bytes and waits for the server's acknowledgement.
 *       Prints "BYTES bytes in SECONDS s: MBITS Mbit/s" (payload rate).
 *
 * The default port is 7907.  Written for tests/netbed.test; no
 * dependency beyond POSIX sockets.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_PORT "7907"
#define CHUNK 65536

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int usage(void)
{
    fputs("usage: nbxfer serve [-p PORT] [-t SECONDS]\n"
          "       nbxfer ping HOST [-p PORT] [-c COUNT]\n"
          "       nbxfer send HOST BYTES [-p PORT]\n", stderr);
    return 2;
}

static int read_full(int fd, void *buf, size_t n)
{
    char *p = buf;
    while (n > 0) {
        ssize_t r = read(fd, p, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

static int write_full(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static void serve_one(int fd)
{
    static char buf[CHUNK];
    unsigned char cmd, hdr[8];
    uint64_t left = 0;

    if (read_full(fd, &cmd, 1) < 0)
        return;
    if (cmd == 'P') {
        for (;;) {
            ssize_t r = read(fd, buf, sizeof buf);
            if (r <= 0 || write_full(fd, buf, (size_t)r) < 0)
                return;
        }
    }
    if (cmd != 'S' || read_full(fd, hdr, 8) < 0)
        return;
    for (int i = 0; i < 8; i++)
        left = left << 8 | hdr[i];
    while (left > 0) {
        ssize_t r = read(fd, buf, left < sizeof buf ? (size_t)left : sizeof buf);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return;
        left -= (uint64_t)r;
    }
    write_full(fd, "K", 1);
}

static int do_serve(const char *port, int seconds)
{
    struct addrinfo hints = { 0 }, *ai;
    int one = 1, ls, rc;

    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE;
    if ((rc = getaddrinfo(NULL, port, &hints, &ai)) != 0) {
        fprintf(stderr, "nbxfer: port %s: %s\n", port, gai_strerror(rc));
        return 1;
    }
    ls = socket(AF_INET, SOCK_STREAM, 0);
    setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (ls < 0 || bind(ls, ai->ai_addr, ai->ai_addrlen) < 0 || listen(ls, 64) < 0) {
        perror("nbxfer: serve");
        return 1;
    }
    freeaddrinfo(ai);
    signal(SIGCHLD, SIG_IGN); /* no zombies */
    if (seconds > 0)
        alarm((unsigned)seconds);
    for (;;) {
        int fd = accept(ls, NULL, NULL);
        if (fd < 0) {
            if (errno == EINTR)
                continue;
            perror("nbxfer: accept");
            return 1;
        }
        if (fork() == 0) {
            close(ls);
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            serve_one(fd);
            _exit(0);
        }
        close(fd);
    }
}

static int connect_to(const char *host, const char *port)
{
    struct addrinfo hints = { 0 }, *ai, *p;
    struct timeval tv = { 3, 0 };
    int fd = -1, one = 1, rc;

    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    if ((rc = getaddrinfo(host, port, &hints, &ai)) != 0) {
        fprintf(stderr, "nbxfer: %s: %s\n", host, gai_strerror(rc));
        return -1;
    }
    for (p = ai; p; p = p->ai_next) {
        fd = socket(p->ai_family, p->ai_socktype, p->ai_protocol);
        if (fd < 0)
            continue;
        /* Bound the connect and every read: a dead route fails fast. */
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (connect(fd, p->ai_addr, p->ai_addrlen) == 0)
            break;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(ai);
    if (fd < 0)
        fprintf(stderr, "nbxfer: %s port %s: cannot connect: %s\n", host, port, strerror(errno));
    return fd;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int do_ping(const char *host, const char *port, int count)
{
    double *t = calloc((size_t)count, sizeof *t);
    char c = 'P';
    int fd = connect_to(host, port);

    if (fd < 0 || t == NULL || write_full(fd, &c, 1) < 0)
        goto fail;
    for (int i = 0; i < count; i++) {
        double t0 = now();
        c = (char)i;
        if (write_full(fd, &c, 1) < 0 || read_full(fd, &c, 1) < 0) {
            fprintf(stderr, "nbxfer: %s: no echo\n", host);
            goto fail;
        }
        t[i] = now() - t0;
    }
    close(fd);
    qsort(t, (size_t)count, sizeof *t, cmp_double);
    printf("%s: min %.0f us, median %.0f us\n", host, t[0] * 1e6, t[count / 2] * 1e6);
    free(t);
    return 0;
fail:
    if (fd >= 0)
        close(fd);
    free(t);
    return 1;
}

static int do_send(const char *host, const char *port, uint64_t bytes)
{
    static char buf[CHUNK];
    unsigned char hdr[9];
    uint64_t left = bytes;
    double t0, dt;
    int fd = connect_to(host, port);
    struct timeval tv = { 120, 0 };

    if (fd < 0)
        return 1;
    /* A slow link may take long: allow two minutes per blocked call. */
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    hdr[0] = 'S';
    for (int i = 0; i < 8; i++)
        hdr[1 + i] = (unsigned char)(bytes >> (56 - 8 * i));
    memset(buf, 0x5a, sizeof buf);
    t0 = now();
    if (write_full(fd, hdr, sizeof hdr) < 0)
        goto fail;
    while (left > 0) {
        size_t n = left < sizeof buf ? (size_t)left : sizeof buf;
        if (write_full(fd, buf, n) < 0)
            goto fail;
        left -= n;
    }
    if (read_full(fd, hdr, 1) < 0 || hdr[0] != 'K')
        goto fail;
    dt = now() - t0;
    close(fd);
    printf("%llu bytes in %.3f s: %.2f Mbit/s\n", (unsigned long long)bytes, dt,
           (double)bytes * 8 / dt / 1e6);
    return 0;
fail:
    fprintf(stderr, "nbxfer: %s: transfer failed: %s\n", host, strerror(errno));
    close(fd);
    return 1;
}

int main(int argc, char **argv)
{
    const char *port = DEFAULT_PORT, *host = NULL;
    int count = 10, seconds = 0, pos = 0;
    uint64_t bytes = 0;
    char *end;

    if (argc < 2)
        return usage();
    /* Options may follow the positional arguments. */
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "-p") == 0 && i + 1 < argc)
            port = argv[++i];
        else if (strcmp(argv[i], "-c") == 0 && i + 1 < argc)
            count = atoi(argv[++i]);
        else if (strcmp(argv[i], "-t") == 0 && i + 1 < argc)
            seconds = atoi(argv[++i]);
        else if (argv[i][0] == '-')
            return usage();
        else if (pos == 0) {
            host = argv[i];
            pos++;
        } else if (pos == 1) {
            bytes = strtoull(argv[i], &end, 10);
            if (*end != '\0' || bytes == 0)
                return usage();
            pos++;
        } else
            return usage();
    }
    if (strcmp(argv[1], "serve") == 0 && pos == 0)
        return do_serve(port, seconds);
    if (strcmp(argv[1], "ping") == 0 && pos == 1 && count > 0)
        return do_ping(host, port, count);
    if (strcmp(argv[1], "send") == 0 && pos == 2)
        return do_send(host, port, bytes);
    return usage();
}
