/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * eco-show -- look at a subnet file (eco-show(1), eco-subnets(5)).
 *
 *   eco-show [--dot] SUBNETFILE               summary (or clusters in dot)
 *   eco-show [--dot] --subnets SUBNETFILE     one line per subnet
 *   eco-show [--dot] --tree HOST SUBNETFILE   the ECO tree rooted at HOST
 *   eco-show --svg FILE [...] SUBNETFILE      the Graphviz picture as SVG
 *
 * Exit status: 0 success, 1 a bad file, an unknown host, a failed write
 * or no Graphviz for --svg, 2 usage.  Uses only the public API.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "eco.h"
#include "eco_atomic.h" /* --svg's temporary file */
#include "eco_char.h"   /* costs with their unit: ecoc_fmt_time */
#include "eco_coll.h"   /* the predictions (lib/select.c) */

#define PROG "eco-show"

enum view { VIEW_SUMMARY, VIEW_SUBNETS, VIEW_TREE, VIEW_PREDICT };

typedef struct options {
    enum view view;
    int dot;
    const char *svg;    /* --svg FILE */
    const char *root;   /* --tree HOST */
    const char *proot;  /* --root HOST (--predict) */
    const char *file;
    const char *op;     /* --op OP (--predict), NULL: every one */
    const char *bytes;  /* --bytes LIST (--predict) */
    int tasks;          /* --tasks N (--predict) */
    long segment;       /* --segment BYTES (--predict), -1: the model's */
} options;

/* The hosts of each subnet, bucketed once (ascending host index). */
typedef struct layout {
    const eco_map *map;
    const char *file;
    int nhosts, nsubnets;
    int *start;         /* [nsubnets+1] */
    int *host;          /* [nhosts] host indexes, subnet by subnet */
} layout;

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: " PROG " [OPTION]... SUBNETFILE\n"
            "Show a subnet file (eco-subnets(5)): a summary of its subnets and costs,\n"
            "the subnets alone, or the tree ECO builds from a root host.\n"
            "\n"
            "  -s, --subnets      one line per subnet: its hosts, separated by single\n"
            "                     spaces and sorted; the lines sorted too\n"
            "  -t, --tree=HOST    the tree rooted at HOST over every host of the file,\n"
            "                     one line \"HOST PARENT\" per host in preorder ('-' for\n"
            "                     the root's parent)\n"
            "  -d, --dot          write Graphviz (dot) instead: one cluster per subnet,\n"
            "                     plus the tree's edges with --tree (those between\n"
            "                     subnets bold, red and labelled with their cost)\n"
            "      --svg=FILE     run Graphviz's dot on that graph and write the\n"
            "                     picture to FILE as SVG (needs dot(1) in PATH)\n"
            "  -p, --predict      every candidate algorithm's predicted time from the\n"
            "                     file's cost model (or the defaults), and the choice\n"
            "      --op=OP        with --predict: bcast, reduce, allreduce, gather,\n"
            "                     allgather, scatter, alltoall, scan or barrier\n"
            "                     (default: every one)\n"
            "      --bytes=LIST   with --predict: bytes per member, comma-separated\n"
            "                     (default 1000,16000,131072)\n"
            "      --root=HOST    with --predict: the root's host (default: the first)\n"
            "      --tasks=N      with --predict: tasks per host (default 1)\n"
            "      --segment=BYTES  with --predict: every pipelined algorithm cuts its\n"
            "                     messages into segments of BYTES (0: whole), as\n"
            "                     ECO_SEGMENT_SIZE makes the library do (default:\n"
            "                     each algorithm's best)\n"
            "  -h, --help         show this help and exit\n"
            "  -V, --version      show the version and exit\n"
            "\n"
            "Without --subnets or --tree: a summary (hosts, subnets, threshold; per\n"
            "subnet its hosts, k and inside costs; the costs between subnets: the\n"
            "cheapest in a table, then cheapest, median and dearest per pair).\n"
            "Example: " PROG " --tree a --svg tree.svg figure1.subnets\n"
            "See eco-show(1).\n");
}

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, PROG ": ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry '" PROG " --help' for more information.\n");
    return 2;
}

/* Parse argv into o; returns -1 to go on, else an exit status. */
static int parse_args(int argc, char **argv, options *o)
{
    static const struct option longopts[] = {
        {"subnets", no_argument, NULL, 's'},
        {"tree", required_argument, NULL, 't'},
        {"dot", no_argument, NULL, 'd'},
        {"svg", required_argument, NULL, 'S'},
        {"predict", no_argument, NULL, 'p'},
        {"op", required_argument, NULL, 'O'},
        {"bytes", required_argument, NULL, 'B'},
        {"root", required_argument, NULL, 'R'},
        {"tasks", required_argument, NULL, 'T'},
        {"segment", required_argument, NULL, 'G'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    int c, views = 0;

    opterr = 0;   /* our own messages, without the libtool wrapper's path */
    while ((c = getopt_long(argc, argv, ":st:dphV", longopts, NULL)) != -1) {
        switch (c) {
        case 's':
            o->view = VIEW_SUBNETS;
            views++;
            break;
        case 't':
            o->view = VIEW_TREE;
            o->root = optarg;
            views++;
            break;
        case 'd':
            o->dot = 1;
            break;
        case 'S':
            o->svg = optarg;
            break;
        case 'p':
            o->view = VIEW_PREDICT;
            views++;
            break;
        case 'O':
            if (ecoi_coll_from_name(optarg) < 0)
                return usage_error("unknown operation '%s'", optarg);
            o->op = optarg;
            break;
        case 'B':
            o->bytes = optarg;
            break;
        case 'R':
            o->proot = optarg;
            break;
        case 'T': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*optarg == '\0' || *end || v < 1 || v > 1024)
                return usage_error("bad --tasks '%s' (1 to 1024)", optarg);
            o->tasks = (int)v;
            break;
        }
        case 'G': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*optarg == '\0' || *end || v < 0 || v > (1L << 30))
                return usage_error("bad --segment '%s' (0 to 1073741824 bytes)", optarg);
            o->segment = v;
            break;
        }
        case 'h':
            usage(stdout);
            return 0;
        case 'V':
            printf(PROG " (libeco) %s\n", PACKAGE_VERSION);
            return 0;
        case ':':
            return usage_error("option '%s' needs an argument", argv[optind - 1]);
        default:
            return usage_error("unrecognized option '%s'", argv[optind - 1]);
        }
    }
    if (views > 1)
        return usage_error("%s", "give at most one of --subnets, --tree and --predict");
    if ((o->op || o->bytes || o->tasks || o->proot || o->segment >= 0) &&
        o->view != VIEW_PREDICT)
        return usage_error("%s", "--op, --bytes, --root, --tasks and --segment go with "
                                 "--predict");
    if (optind >= argc)
        return usage_error("%s", "missing SUBNETFILE");
    if (optind + 1 < argc)
        return usage_error("unexpected argument '%s'", argv[optind + 1]);
    o->file = argv[optind];
    return -1;
}

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

static void *xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p) {
        fprintf(stderr, PROG ": %s\n", eco_strerror(ECO_ERR_NOMEM));
        exit(1);
    }
    return p;
}

static int layout_init(layout *l, const eco_map *map, const char *file)
{
    int *fill;

    l->map = map;
    l->file = file;
    l->nhosts = eco_map_nhosts(map);
    l->nsubnets = eco_map_nsubnets(map);
    l->start = xmalloc(((size_t)l->nsubnets + 1) * sizeof *l->start);
    l->host = xmalloc((size_t)l->nhosts * sizeof *l->host);
    fill = xmalloc(((size_t)l->nsubnets + 1) * sizeof *fill);
    memset(l->start, 0, ((size_t)l->nsubnets + 1) * sizeof *l->start);
    for (int h = 0; h < l->nhosts; h++) {
        int s = eco_map_subnet_of(map, h);
        if (s < 0 || s >= l->nsubnets) {
            fprintf(stderr, PROG ": %s: host %s is in no subnet\n", file,
                    eco_map_host(map, h));
            free(fill);
            return 1;
        }
        l->start[s + 1]++;
    }
    for (int s = 0; s < l->nsubnets; s++)
        l->start[s + 1] += l->start[s];
    memcpy(fill, l->start, ((size_t)l->nsubnets + 1) * sizeof *fill);
    for (int h = 0; h < l->nhosts; h++)
        l->host[fill[eco_map_subnet_of(map, h)]++] = h;
    free(fill);
    return 0;
}

static void layout_free(layout *l)
{
    free(l->start);
    free(l->host);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The cheapest measured cost between subnets s and t, -1 if none. */
static double between(const layout *l, int s, int t)
{
    double best = -1.0;
    for (int i = l->start[s]; i < l->start[s + 1]; i++)
        for (int j = l->start[t]; j < l->start[t + 1]; j++) {
            double c = eco_map_cost(l->map, l->host[i], l->host[j]);
            if (c >= 0.0 && (best < 0.0 || c < best))
                best = c;
        }
    return best;
}

/* ------------------------------------------------------------------ */
/* The summary                                                         */
/* ------------------------------------------------------------------ */

/* The measured costs between subnets s and t (s == t: inside), sorted;
 * *m measured of *pairs. */
static double *pair_costs(const layout *l, int s, int t, int *m, size_t *pairs)
{
    size_t ns = (size_t)(l->start[s + 1] - l->start[s]);
    size_t nt = (size_t)(l->start[t + 1] - l->start[t]);
    double *c;

    *pairs = s == t ? ns * (ns - 1) / 2 : ns * nt;
    c = xmalloc((*pairs + 1) * sizeof *c);
    *m = 0;
    for (int i = l->start[s]; i < l->start[s + 1]; i++)
        for (int j = s == t ? i + 1 : l->start[t]; j < l->start[t + 1]; j++) {
            double x = eco_map_cost(l->map, l->host[i], l->host[j]);
            if (x >= 0.0)
                c[(*m)++] = x;
        }
    qsort(c, (size_t)*m, sizeof *c, cmp_double);
    return c;
}

/* "LABEL: cheapest X, median Y, dearest Z (P/Q pairs measured)". */
static void print_costs(const char *label, const double *c, int m, size_t pairs)
{
    char b1[32], b2[32], b3[32];
    double med;

    if (m == 0) {
        printf("  %s: none of %zu pairs measured\n", label, pairs);
        return;
    }
    med = m % 2 ? c[m / 2] : (c[m / 2 - 1] + c[m / 2]) / 2.0;
    printf("  %s: cheapest %s, median %s, dearest %s (%d/%zu pairs measured)\n", label,
           ecoc_fmt_time(c[0], b1, sizeof b1), ecoc_fmt_time(med, b2, sizeof b2),
           ecoc_fmt_time(c[m - 1], b3, sizeof b3), m, pairs);
}

/* "inside: cheapest X, median Y, dearest Z (P/Q pairs measured)". */
static void print_inside(const layout *l, int s)
{
    int m;
    size_t pairs;
    double *c = pair_costs(l, s, s, &m, &pairs);

    if (l->start[s + 1] - l->start[s] < 2)
        printf("  inside: one host\n");
    else
        print_costs("inside", c, m, pairs);
    free(c);
}

/* Every pair of subnets: cheapest, median and dearest measured cost. */
static void print_between_pairs(const layout *l)
{
    char label[64];

    printf("\nbetween subnets, per pair:\n");
    for (int s = 0; s < l->nsubnets; s++)
        for (int t = s + 1; t < l->nsubnets; t++) {
            int m;
            size_t pairs;
            double *c = pair_costs(l, s, t, &m, &pairs);
            snprintf(label, sizeof label, "%d and %d", s, t);
            print_costs(label, c, m, pairs);
            free(c);
        }
}

/* The table of the cheapest cost between each pair of subnets. */
static void print_between(const layout *l)
{
    int ns = l->nsubnets, w = 1;
    char buf[32];

    printf("\nbetween subnets (cheapest measured cost):\n");
    for (int s = 0; s < ns; s++)
        for (int t = 0; t < ns; t++) {
            int len = (int)strlen(ecoc_fmt_time(s == t ? -1.0 : between(l, s, t), buf, sizeof buf));
            w = len > w ? len : w;
        }
    snprintf(buf, sizeof buf, "%d", ns - 1);
    int rw = (int)strlen(buf);
    printf("  %*s", rw, "");
    for (int t = 0; t < ns; t++)
        printf("  %*d", w, t);
    printf("\n");
    for (int s = 0; s < ns; s++) {
        printf("  %*d", rw, s);
        for (int t = 0; t < ns; t++)
            printf("  %*s", w, ecoc_fmt_time(s == t ? -1.0 : between(l, s, t), buf, sizeof buf));
        printf("\n");
    }
}

static int show_summary(const layout *l)
{
    double th = eco_map_threshold(l->map);

    printf("file:       %s\n", l->file);
    printf("hosts:      %d\n", l->nhosts);
    printf("subnets:    %d\n", l->nsubnets);
    printf("threshold:  %g (%g%%)\n", th, th * 100.0);
    for (int s = 0; s < l->nsubnets; s++) {
        int n = l->start[s + 1] - l->start[s];
        printf("\nsubnet %d: k=%d, %d host%s:", s, eco_map_degree(l->map, s), n,
               n == 1 ? "" : "s");
        for (int i = l->start[s]; i < l->start[s + 1]; i++)
            printf(" %s", eco_map_host(l->map, l->host[i]));
        printf("\n");
        print_inside(l, s);
    }
    if (l->nsubnets > 1) {
        print_between(l);
        print_between_pairs(l);
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* --subnets                                                           */
/* ------------------------------------------------------------------ */

/* One line per subnet: host names sorted, lines sorted. */
static int show_subnets(const layout *l)
{
    char **line = xmalloc((size_t)l->nsubnets * sizeof *line);

    for (int s = 0; s < l->nsubnets; s++) {
        int n = l->start[s + 1] - l->start[s];
        const char **names = xmalloc((size_t)n * sizeof *names);
        size_t len = 1;
        for (int i = 0; i < n; i++) {
            names[i] = eco_map_host(l->map, l->host[l->start[s] + i]);
            len += strlen(names[i]) + 1;
        }
        qsort(names, (size_t)n, sizeof *names, cmp_str);
        line[s] = xmalloc(len);
        line[s][0] = '\0';
        for (int i = 0; i < n; i++) {
            if (i > 0)
                strcat(line[s], " ");
            strcat(line[s], names[i]);
        }
        free(names);
    }
    qsort(line, (size_t)l->nsubnets, sizeof *line, cmp_str);
    for (int s = 0; s < l->nsubnets; s++) {
        printf("%s\n", line[s]);
        free(line[s]);
    }
    free(line);
    return 0;
}

/* ------------------------------------------------------------------ */
/* --tree                                                              */
/* ------------------------------------------------------------------ */

/* The tree over every host (member m on host m) rooted at the named host. */
static int build_tree(const layout *l, const char *root, eco_tree **tree)
{
    int r = eco_map_find_host(l->map, root), rc;
    int *mh;

    if (r < 0) {
        fprintf(stderr, PROG ": %s: unknown host '%s'\n", l->file, root);
        return 1;
    }
    mh = xmalloc((size_t)l->nhosts * sizeof *mh);
    for (int m = 0; m < l->nhosts; m++)
        mh[m] = m;
    rc = eco_tree_build(l->map, l->nhosts, mh, r, tree);
    free(mh);
    if (rc != ECO_OK) {
        fprintf(stderr, PROG ": %s: %s\n", l->file, eco_strerror(rc));
        return 1;
    }
    return 0;
}

/* The members in preorder (children in sending order), explicit stack. */
static int *preorder(const eco_tree *t)
{
    int n = eco_tree_size(t), top = 0, len = 0;
    int *order = xmalloc((size_t)n * sizeof *order);
    int *stack = xmalloc((size_t)n * sizeof *stack);

    stack[top++] = eco_tree_root(t);
    while (top > 0) {
        int m = stack[--top];
        const int *ch = eco_tree_children(t, m);
        order[len++] = m;
        for (int i = eco_tree_nchildren(t, m) - 1; i >= 0; i--)
            stack[top++] = ch[i];
    }
    free(stack);
    return order;
}

static int show_tree(const layout *l, const char *root)
{
    eco_tree *t = NULL;
    int *order;

    if (build_tree(l, root, &t) != 0)
        return 1;
    order = preorder(t);
    for (int i = 0; i < l->nhosts; i++) {
        int m = order[i], p = eco_tree_parent(t, m);
        printf("%s %s\n", eco_map_host(l->map, m), p < 0 ? "-" : eco_map_host(l->map, p));
    }
    free(order);
    eco_tree_free(&t);
    return 0;
}

/* ------------------------------------------------------------------ */
/* --dot                                                               */
/* ------------------------------------------------------------------ */

/* A double-quoted dot ID. */
static void dot_id(FILE *out, const char *s)
{
    putc('"', out);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            putc('\\', out);
        putc(*s, out);
    }
    putc('"', out);
}

static void dot_clusters(FILE *out, const layout *l, int root)
{
    for (int s = 0; s < l->nsubnets; s++) {
        fprintf(out, "  subgraph cluster_%d {\n", s);
        fprintf(out, "    label=\"subnet %d (k=%d)\";\n", s, eco_map_degree(l->map, s));
        fprintf(out, "    style=rounded;\n");
        for (int i = l->start[s]; i < l->start[s + 1]; i++) {
            fprintf(out, "    ");
            dot_id(out, eco_map_host(l->map, l->host[i]));
            fprintf(out, l->host[i] == root ? " [peripheries=2];\n" : ";\n");
        }
        fprintf(out, "  }\n");
    }
}

/* The tree's edges, parents in preorder and children in sending order
 * (dot keeps that order left to right); edges between subnets bold, red
 * and labelled with their measured cost, as in Figure 3 of the paper. */
static void dot_edges(FILE *out, const layout *l, const eco_tree *t)
{
    int *order = preorder(t);
    char buf[32];

    for (int i = 0; i < l->nhosts; i++) {
        int p = order[i];
        const int *ch = eco_tree_children(t, p);
        for (int j = 0; j < eco_tree_nchildren(t, p); j++) {
            double c = eco_map_cost(l->map, p, ch[j]);
            fprintf(out, "  ");
            dot_id(out, eco_map_host(l->map, p));
            fprintf(out, " -> ");
            dot_id(out, eco_map_host(l->map, ch[j]));
            if (eco_map_subnet_of(l->map, p) != eco_map_subnet_of(l->map, ch[j])) {
                fprintf(out, " [style=bold, color=red, penwidth=2");
                if (c > 0.0)
                    fprintf(out, ", label=\"%s\", fontcolor=red",
                            ecoc_fmt_time(c, buf, sizeof buf));
                fprintf(out, "]");
            }
            fprintf(out, ";\n");
        }
    }
    free(order);
}

static int write_dot(FILE *out, const layout *l, const char *root)
{
    eco_tree *t = NULL;

    if (root && build_tree(l, root, &t) != 0)
        return 1;
    fprintf(out, "%s eco {\n", t ? "digraph" : "graph");
    fprintf(out, "  node [shape=box, fontname=\"Helvetica\"];\n");
    fprintf(out, "  graph [fontname=\"Helvetica\"];\n");
    fprintf(out, "  edge [fontname=\"Helvetica\"];\n");
    if (t) {
        char title[ECO_MAX_HOSTNAME + 64];
        snprintf(title, sizeof title, "ECO broadcast tree from %s",
                 eco_map_host(l->map, eco_tree_root(t)));
        fprintf(out, "  labelloc=t;\n  label=");
        dot_id(out, title);
        fprintf(out, ";\n");
    }
    dot_clusters(out, l, t ? eco_tree_root(t) : -1);
    if (t)
        dot_edges(out, l, t);
    fprintf(out, "}\n");
    eco_tree_free(&t);
    return 0;
}

static int show_dot(const layout *l, const char *root)
{
    return write_dot(stdout, l, root);
}

/* ------------------------------------------------------------------ */
/* --svg                                                               */
/* ------------------------------------------------------------------ */

/* The full path of `dot` in PATH, or NULL. */
static const char *find_dot(char *buf, size_t len)
{
    const char *path = getenv("PATH");

    while (path && *path) {
        size_t n = strcspn(path, ":");
        snprintf(buf, len, "%.*s/dot", (int)n, n ? path : ".");
        if (access(buf, X_OK) == 0)
            return buf;
        path += n + (path[n] == ':');
    }
    return NULL;
}

/* While --svg writes: its temporary file and dot, for on_stop_svg. */
static ecoi_atomic svg_file;
static volatile pid_t svg_dot;

/* SIGTERM, SIGINT or SIGHUP while --svg writes: stop dot, remove the
 * temporary file, then die of the signal as if it had not been caught. */
static void on_stop_svg(int sig)
{
    if (svg_dot > 0)
        kill(svg_dot, SIGTERM);
    if (svg_file.tmp[0])
        unlink(svg_file.tmp);
    signal(sig, SIG_DFL);
    raise(sig); /* delivered when the handler returns */
}

static const int stop_signals[] = { SIGTERM, SIGINT, SIGHUP };

/* Catch the stop signals (those not ignored), or restore the default. */
static void catch_stop(int on)
{
    for (size_t i = 0; i < sizeof stop_signals / sizeof *stop_signals; i++) {
        struct sigaction sa, old;
        memset(&sa, 0, sizeof sa);
        sigemptyset(&sa.sa_mask);
        sa.sa_handler = on ? on_stop_svg : SIG_DFL;
        if (sigaction(stop_signals[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(stop_signals[i], &sa, NULL);
    }
}

/* Block (1) or unblock (0) the stop signals. */
static void block_stop(int on)
{
    sigset_t set;

    sigemptyset(&set);
    for (size_t i = 0; i < sizeof stop_signals / sizeof *stop_signals; i++)
        sigaddset(&set, stop_signals[i]);
    sigprocmask(on ? SIG_BLOCK : SIG_UNBLOCK, &set, NULL);
}

/* Start `dot -Tsvg` reading a pipe and writing fd: the pid, with the
 * pipe's write end in *to, or -1.  Stop signals blocked by the caller. */
static pid_t start_dot(const char *dot, int fd, int *to)
{
    int fds[2];
    pid_t pid;

    if (pipe(fds) != 0)
        return -1;
    if ((pid = fork()) < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        catch_stop(0); /* the handlers are the parent's business */
        block_stop(0);
        dup2(fds[0], STDIN_FILENO);
        dup2(fd, STDOUT_FILENO);
        close(fds[0]);
        close(fds[1]);
        close(fd);
        execl(dot, "dot", "-Tsvg", (char *)NULL);
        _exit(127);
    }
    close(fds[0]);
    *to = fds[1];
    return pid;
}

/* Pipe the graph through `dot -Tsvg` into a temporary file next to svg,
 * SVG.tmp.XXXXXX (ecoi_atomic_open), then rename it over svg: an old
 * picture stays whole on failure, and a signal that stops the write
 * removes the temporary file.  Mode 0666 less the umask, as a plain
 * file. */
static int show_svg(const layout *l, const char *root, const char *svg)
{
    char dot[4200], why[4400];
    mode_t mask = umask(0);
    int pfd = -1, status = 0, rc;
    FILE *to;
    pid_t pid;

    umask(mask);

    if (!find_dot(dot, sizeof dot)) {
        fprintf(stderr, PROG ": --svg needs Graphviz's dot, which is not in PATH "
                        "(install graphviz, or write --dot and convert it elsewhere)\n");
        return 1;
    }
    catch_stop(1);
    block_stop(1);
    if (ecoi_atomic_open(&svg_file, svg, 0, 0666 & ~mask, why, sizeof why) != 0) {
        fprintf(stderr, PROG ": %s\n", why);
        block_stop(0);
        return 1;
    }
    if ((pid = start_dot(dot, svg_file.fd, &pfd)) < 0) {
        fprintf(stderr, PROG ": cannot run %s: %s\n", dot, strerror(errno));
        ecoi_atomic_abort(&svg_file);
        block_stop(0);
        return 1;
    }
    svg_dot = pid;
    block_stop(0);
    signal(SIGPIPE, SIG_IGN);
    to = fdopen(pfd, "w");
    rc = to ? write_dot(to, l, root) : 1;
    if (to)
        fclose(to);
    else
        close(pfd);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (rc == 0 && (!WIFEXITED(status) || WEXITSTATUS(status) != 0)) {
        fprintf(stderr, PROG ": %s -Tsvg failed (exit %d)\n", dot,
                WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
        rc = 1;
    }
    block_stop(1);
    /* fsync what dot wrote, rename */
    if (rc == 0 && ecoi_atomic_commit(&svg_file, why, sizeof why) != 0) {
        fprintf(stderr, PROG ": %s\n", why);
        rc = 1;
    }
    if (rc != 0)
        ecoi_atomic_abort(&svg_file);
    svg_dot = 0;
    block_stop(0);
    return rc;
}

/* ------------------------------------------------------------------ */
/* --predict                                                           */
/* ------------------------------------------------------------------ */

/* Every candidate of one operation at one size, the one a call runs
 * marked (ecoi_choose), and after it those whose streams leave a link's
 * queue too short for a fast retransmit each ("over"), or arrive at a
 * link faster than it drains ("flood"). */
static void predict_one(const layout *l, const int *mh, int n, int root, int coll,
                        size_t bytes, long segment)
{
    ecoi_prediction pr[16];
    int k = ecoi_predict(l->map, l->map->model, n, mh, NULL, coll, root, bytes, segment,
                         pr, 16);
    int best;

    if (k < 0) {
        fprintf(stderr, PROG ": %s: %s\n", l->file, eco_strerror(k));
        return;
    }
    best = ecoi_choose(pr, k, 0);
    for (int i = 0; i < k; i++) {
        char seg[32] = "-";
        if (pr[i].segment)
            snprintf(seg, sizeof seg, "%zu", pr[i].segment);
        char ms[32] = "n/a";   /* e.g. no sites to exchange among */
        if (isfinite(pr[i].seconds))
            snprintf(ms, sizeof ms, "%.3f", pr[i].seconds * 1e3);
        /* gather-to-all hier's (ecoi_plan), room for any lags */
        char lags[sizeof "           " "  lag " " xlag " + 2 * ECOI_DEC_LEN(size_t)] = "";
        if (pr[i].groups > 0)
            snprintf(lags, sizeof lags, "%s  lag %zu xlag %zu",
                     i == best ? "" : "           ", pr[i].lag, pr[i].xlag);
        printf("%-10s %10zu  %-13s %9s %12s%s%s%s\n", ecoi_coll_name(coll), bytes,
               ecoi_algorithm_at(pr[i].algorithm)->name, seg, ms,
               i == best ? "  <- chosen" : pr[i].over ? "           " : "",
               pr[i].over == ECOI_OVER_QUEUE ? "  over" : pr[i].over ? "  flood" : "", lags);
    }
}

static int show_predict(const layout *l, const options *o)
{
    const char *list = o->bytes ? o->bytes : "1000,16000,131072";
    int tasks = o->tasks ? o->tasks : 1, n = l->nhosts * tasks, root = 0;
    int *mh = xmalloc((size_t)n * sizeof *mh);
    size_t sizes[64];
    int nsizes = 0;

    for (const char *p = list; *p;) {
        char *end;
        unsigned long long v = strtoull(p, &end, 10);
        if (end == p || (*end && *end != ',') || nsizes == 64 || v > (1ULL << 30) ||
            *p == '-') {
            free(mh);
            return usage_error("bad --bytes '%s' (sizes 0 to 1073741824, comma-separated)",
                               list);
        }
        sizes[nsizes++] = (size_t)v;
        p = *end ? end + 1 : end;
    }
    if (o->proot) {
        int h = eco_map_find_host(l->map, o->proot);
        if (h < 0) {
            fprintf(stderr, PROG ": %s: unknown host '%s'\n", l->file, o->proot);
            free(mh);
            return 1;
        }
        root = h * tasks;
    }
    /* members host by host: rank r on host r / tasks */
    for (int m = 0; m < n; m++)
        mh[m] = m / tasks;
    printf("# %s: %d hosts, %d subnets, %d task%s per host, root %s; model: %s\n",
           l->file, l->nhosts, l->nsubnets, tasks, tasks == 1 ? "" : "s",
           eco_map_host(l->map, root / tasks),
           l->map->model ? "measured (eco-characterize)" : "defaults from the file's costs");
    {
        const ecoi_model *mo = l->map->model;
        char b1[32];
        double burst = 0.0;
        /* the least a message costs in the predictions: says whether the
         * machine's own figure or the library's guess floors them */
        printf("# every message at least %s (busy: %s)\n",
               ecoc_fmt_time(ecoi_model_busy(mo), b1, sizeof b1),
               mo && mo->busy > 0.0 ? "measured" : "default, not measured");
        /* what a lock-step step with every host sending (rings,
         * recursive doubling) adds to its message: nothing when the file
         * has none */
        printf("# a lock-step step adds %s (step: %s)\n",
               ecoc_fmt_time(ecoi_model_step(mo), b1, sizeof b1),
               mo && mo->step > 0.0 ? "measured" : "not measured");
        /* and each byte of its message, beyond the link's beta, when
         * every host sends a long one: nothing when the file has none */
        printf("# a byte of a lock-step step adds %.3g ns (stepbyte: %s)\n",
               mo && mo->stepbyte > 0.0 ? mo->stepbyte * 1e9 : 0.0,
               mo && mo->stepbyte > 0.0 ? "measured" : "not measured");
        /* the cores the barrier's and the lock-step steps' share of the
         * busy cost is counted on (lib/select.c model_cores): the file's
         * hosts share them (several on one machine), else one, which
         * the model keeps when each host has its own CPUs or the file
         * does not say */
        if (mo && mo->cores > 0.0)
            printf("# the hosts share %.3g cores (cores: measured)\n", mo->cores);
        else
            printf("# each host its own CPUs, or not known: counted as 1 core (cores: none)\n");
        /* what a member that passes a message on (a tree's middle
         * member) adds to the hop: nothing when the file has none */
        printf("# a member that passes a message on adds %s (forward: %s)\n",
               ecoc_fmt_time(mo && mo->forward > 0.0 ? mo->forward : 0.0, b1, sizeof b1),
               mo && mo->forward > 0.0 ? "measured" : "not measured");
        /* the most a message between subnets passes at once when its
         * link was idle (a shaper's bucket; eco-subnets(5): model burst):
         * 0, every byte at beta, when the file has none */
        for (int s = 0; mo && s < mo->nsubnets; s++)
            for (int t = s + 1; t < mo->nsubnets; t++)
                burst = fmax(burst, ecoi_model_burst(mo, s, t));
        printf("# a quiet link passes up to %.0f bytes at once (burst: %s)\n", burst,
               burst > 0.0 ? "measured" : "not measured");
    }
    printf("%-10s %10s  %-13s %9s %12s\n", "op", "bytes", "algorithm", "segment",
           "predicted_ms");
    for (int z = 0; z < nsizes; z++)
        for (int c = 0; c < ECOI_NCOLL; c++)
            if (!o->op || ecoi_coll_from_name(o->op) == c)
                predict_one(l, mh, n, c == ECOI_C_ALLREDUCE || c == ECOI_C_ALLGATHER ||
                            c == ECOI_C_ALLTOALL || c == ECOI_C_SCAN || c == ECOI_C_BARRIER ||
                            c == ECOI_C_ALLGATHERV || c == ECOI_C_ALLTOALLV ||
                            c == ECOI_C_REDUCE_SCATTER || c == ECOI_C_EXSCAN
                            ? 0 : root, c, c == ECOI_C_BARRIER ? 0 : sizes[z], o->segment);
    free(mh);
    return 0;
}

/* ------------------------------------------------------------------ */

static int run(const options *o, const eco_map *map)
{
    layout l;
    int rc;

    if (layout_init(&l, map, o->file) != 0) {
        layout_free(&l);
        return 1;
    }
    if (o->view == VIEW_PREDICT)
        rc = show_predict(&l, o);
    else if (o->svg)
        rc = show_svg(&l, o->view == VIEW_TREE ? o->root : NULL, o->svg);
    else if (o->dot)
        rc = show_dot(&l, o->view == VIEW_TREE ? o->root : NULL);
    else if (o->view == VIEW_SUBNETS)
        rc = show_subnets(&l);
    else if (o->view == VIEW_TREE)
        rc = show_tree(&l, o->root);
    else
        rc = show_summary(&l);
    layout_free(&l);
    return rc;
}

int main(int argc, char **argv)
{
    options o = {VIEW_SUMMARY, 0, NULL, NULL, NULL, NULL, NULL, NULL, 0, -1};
    eco_map *map = NULL;
    char err[1024] = "";
    int rc;

    rc = parse_args(argc, argv, &o);
    if (rc >= 0)
        return rc;
    rc = eco_map_read(o.file, &map, err, sizeof err);
    if (rc != ECO_OK) {
        if (err[0])
            fprintf(stderr, PROG ": %s\n", err);
        else
            fprintf(stderr, PROG ": %s: %s\n", o.file, eco_strerror(rc));
        return 1;
    }
    rc = run(&o, map);
    eco_map_free(map);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, PROG ": standard output: %s\n", eco_strerror(ECO_ERR_IO));
        return 1;
    }
    return rc;
}
