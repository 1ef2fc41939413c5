/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * subnet_file.c -- read, print and atomically write the subnet file
 * (eco-subnets(5)):
 *
 *   # comments anywhere
 *   eco-subnets 1                  first non-comment line: magic, version
 *   threshold 0.2
 *   host NAME                      one per host
 *   cost A B SECONDS               one per measured pair
 *   hops A B N                     routers between a pair (version 2;
 *                                  version 4: N or -, where the classes
 *                                  say otherwise)
 *   hopclass C HOST...             hop class C, 0..C-1 in order (version 4)
 *   hoprow C H...                  hops from class C to C, C+1, ...: N, -
 *                                  or NxR (R times N) (version 4)
 *   subnet ID k=K HOST...          ID 0..S-1 in order, every host once
 *   model task ALPHA BETA          the cost model (version 3, all of it):
 *   model link S T ALPHA BETA      one way, ALPHA + BETA * bytes seconds,
 *   model uplink S BETA            for every S <= T and every S
 *   model busy SECONDS             per message, every host busy (optional)
 *   model step SECONDS             per lock-step step of a ring, every host
 *                                  sending (optional; version 5)
 *   model burst S T BYTES          bytes that pass at once on an idle path,
 *                                  for every S <= T or none (version 6)
 *   model forward SECONDS          what a member that passes a message on
 *                                  adds to a hop (optional; version 7)
 *   model stepbyte SECONDS         per byte of a lock-step step's message
 *                                  beyond its links' beta, every host
 *                                  sending a long one (optional; version 8)
 *   model cores CORES              the cores the hosts share, counted for
 *                                  all of them (optional; version 9)
 *
 * The writer is canonical (fixed order, shortest exact numbers), so
 * reading and writing again gives the same bytes.  The reader checks
 * everything and keeps nothing of a bad file: "FILE:LINE: reason".
 */
#include "config.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "eco_atomic.h"
#include "eco_map_impl.h"

/* ------------------------------------------------------------------ */
/* Writer                                                              */
/* ------------------------------------------------------------------ */

/* Why map cannot be written as a subnet file, or NULL when it can. */
static const char *unwritable(const eco_map *m)
{
    if (m->nhosts > 0 && m->nsubnets <= 0)
        return "the map has not been partitioned (call eco_map_partition)";
    for (int h = 0; h < m->nhosts; h++)
        if (m->subnet[h] < 0 || m->subnet[h] >= m->nsubnets)
            return "a host is in no subnet (partition the map again)";
    for (int s = 0; s < m->nsubnets; s++)
        if (!m->degree || m->degree[s] < 1 || m->degree[s] > ECO_MAX_DEGREE)
            return "a subnet has a degree out of range";
    if (m->model && (m->model->nsubnets != m->nsubnets || !ecoi_model_valid(m->model)))
        return "the cost model does not fit the subnets (negative, not finite or "
               "not symmetric)";
    return NULL;
}

/* The pairs in order (a < b, each host's list ascending): all costs. */
static void print_costs(const eco_map *m, FILE *out)
{
    char num[40];

    for (int a = 0; a < m->nhosts; a++)
        for (int i = 0; i < m->adj[a].n; i++) {
            const ecoi_link *l = &m->adj[a].link[i];
            if (l->to < a || l->cost <= 0.0)
                continue;
            ecoi_format_double(l->cost, num, sizeof num);
            fprintf(out, "cost %s %s %s\n", m->host[a], m->host[l->to], num);
        }
}

/* One entry of a hoprow: N, -, NxR. */
static void print_run(int hops, int reps, FILE *out)
{
    if (hops >= 0)
        fprintf(out, " %d", hops);
    else
        fputs(" -", out);
    if (reps > 1)
        fprintf(out, "x%d", reps);
}

/* The hop classes (version 4): each class's hosts, then its row of the
 * table from itself on, equal neighbours run together. */
static int print_hop_classes(const eco_map *m, FILE *out)
{
    const ecoi_hops *h = &m->hops;
    int *first = malloc(((size_t)h->ncls + 1) * sizeof *first);
    int *next = malloc(((size_t)m->nhosts + 1) * sizeof *next);

    if (!first || !next) {
        free(first);
        free(next);
        return ECO_ERR_NOMEM;
    }
    ecoi_hops_members(m, first, next);
    for (int c = 0; c < h->ncls; c++) {
        fprintf(out, "hopclass %d", c);
        for (int x = first[c]; x >= 0; x = next[x])
            fprintf(out, " %s", m->host[x]);
        fputc('\n', out);
    }
    for (int c = 0; c < h->ncls; c++) {
        fprintf(out, "hoprow %d", c);
        for (int d = c, reps; d < h->ncls; d += reps) {
            int v = h->table[ecoi_hops_tri(h->ncls, c, d)];
            for (reps = 1; d + reps < h->ncls &&
                           h->table[ecoi_hops_tri(h->ncls, c, d + reps)] == v; reps++)
                ;
            print_run(v, reps, out);
        }
        fputc('\n', out);
    }
    free(first);
    free(next);
    return ECO_OK;
}

/* The hops: the classes when the map has them, then the pairs that are
 * exceptions (all pairs with hops when there are no classes), a < b. */
static int print_hops(const eco_map *m, FILE *out)
{
    const ecoi_hops *h = &m->hops;
    int rc = h->ncls > 0 ? print_hop_classes(m, out) : ECO_OK;

    for (int a = 0; a < m->nhosts && rc == ECO_OK; a++)
        for (int i = 0; i < h->exc[a].n; i++) {
            const ecoi_hop *x = &h->exc[a].row[i];
            if (x->to < a)
                continue;
            if (x->hops >= 0)
                fprintf(out, "hops %s %s %d\n", m->host[a], m->host[x->to], x->hops);
            else
                fprintf(out, "hops %s %s -\n", m->host[a], m->host[x->to]);
        }
    return rc;
}

/* One line per subnet; hosts bucketed by subnet in one pass. */
static int print_subnets(const eco_map *m, FILE *out)
{
    int *next = malloc(((size_t)m->nhosts + 1) * sizeof *next);
    int *head = malloc(((size_t)m->nsubnets + 1) * sizeof *head);

    if (!next || !head) {
        free(next);
        free(head);
        return ECO_ERR_NOMEM;
    }
    ecoi_group_lists(m->nhosts, m->subnet, m->nsubnets, head, next);
    for (int s = 0; s < m->nsubnets; s++) {
        fprintf(out, "subnet %d k=%d", s, m->degree[s]);
        for (int h = head[s]; h >= 0; h = next[h])
            fprintf(out, " %s", m->host[h]);
        fputc('\n', out);
    }
    free(next);
    free(head);
    return ECO_OK;
}

/* Has any link of mo a burst (version 6)? */
static int has_burst(const ecoi_model *mo)
{
    size_t n = (size_t)mo->nsubnets;

    for (size_t i = 0; i < n * n; i++)
        if (mo->burst[i] > 0.0)
            return 1;
    return 0;
}

/* The model (version 3): the task line, a link line for every s <= t,
 * an uplink line for every s, the busy line, the step line (version 5),
 * the forward line (version 7), the stepbyte line (version 8) and the
 * cores line (version 9) when they were measured (0, not
 * measured, is the absence of the line: what older files say), and a
 * burst line for every s <= t (version 6) when any link has a burst;
 * eco-subnets(5). */
static void print_model(const ecoi_model *mo, FILE *out)
{
    char a[40], b[40];
    int n = mo->nsubnets;

    ecoi_format_double(mo->task.alpha, a, sizeof a);
    ecoi_format_double(mo->task.beta, b, sizeof b);
    fprintf(out, "model task %s %s\n", a, b);
    for (int s = 0; s < n; s++)
        for (int t = s; t < n; t++) {
            const ecoi_cost *c = &mo->link[(size_t)s * n + t];
            ecoi_format_double(c->alpha, a, sizeof a);
            ecoi_format_double(c->beta, b, sizeof b);
            fprintf(out, "model link %d %d %s %s\n", s, t, a, b);
        }
    for (int s = 0; s < n; s++) {
        ecoi_format_double(mo->uplink[s], b, sizeof b);
        fprintf(out, "model uplink %d %s\n", s, b);
    }
    if (mo->busy > 0.0) {
        ecoi_format_double(mo->busy, b, sizeof b);
        fprintf(out, "model busy %s\n", b);
    }
    if (mo->step > 0.0) {
        ecoi_format_double(mo->step, b, sizeof b);
        fprintf(out, "model step %s\n", b);
    }
    if (mo->forward > 0.0) {
        ecoi_format_double(mo->forward, b, sizeof b);
        fprintf(out, "model forward %s\n", b);
    }
    if (mo->stepbyte > 0.0) {
        ecoi_format_double(mo->stepbyte, b, sizeof b);
        fprintf(out, "model stepbyte %s\n", b);
    }
    if (mo->cores > 0.0) {
        ecoi_format_double(mo->cores, b, sizeof b);
        fprintf(out, "model cores %s\n", b);
    }
    if (has_burst(mo))
        for (int s = 0; s < n; s++)
            for (int t = s; t < n; t++) {
                ecoi_format_double(mo->burst[(size_t)s * n + t], b, sizeof b);
                fprintf(out, "model burst %d %d %s\n", s, t, b);
            }
}

int eco_map_fprint(const eco_map *map, FILE *out)
{
    char num[40];
    int rc, version = !map ? 1 : map->model && map->model->cores > 0.0 ? 9
                    : map->model && map->model->stepbyte > 0.0 ? 8
                    : map->model && map->model->forward > 0.0 ? 7
                    : map->model && has_burst(map->model) ? 6
                    : map->model && map->model->step > 0.0 ? 5
                    : map->hops.ncls > 0 ? 4 : map->model ? 3
                    : ecoi_map_has_hops(map) ? 2 : 1;

    if (!map || !out || unwritable(map))
        return ECO_ERR_ARG;
    fprintf(out, "# eco-subnets(5) network map, written by libeco %s\n", PACKAGE_VERSION);
    fprintf(out, "# %d hosts, %zu measured pairs, %d subnets\n", map->nhosts,
            ecoi_map_measured_pairs(map), map->nsubnets);
    /* the lowest version whose readers take everything the map has */
    fprintf(out, "%s %d\n", ECO_FILE_MAGIC, version);
    ecoi_format_double(map->threshold, num, sizeof num);
    fprintf(out, "threshold %s\n", num);
    for (int h = 0; h < map->nhosts; h++)
        fprintf(out, "host %s\n", map->host[h]);
    print_costs(map, out);
    rc = print_hops(map, out);
    if (rc == ECO_OK)
        rc = print_subnets(map, out);
    if (rc == ECO_OK && map->model) {
        fprintf(out, "# cost model: one way, ALPHA + BETA * bytes seconds\n");
        print_model(map->model, out);
    }
    if (rc == ECO_OK && ferror(out))
        rc = ECO_ERR_IO;
    return rc;
}

static int print_map(FILE *out, const void *map)
{
    return eco_map_fprint(map, out);
}

int eco_map_write(const eco_map *map, const char *path, char *err, size_t errlen)
{
    if (!map || !path || !*path) {
        ecoi_set_err(err, errlen, "eco_map_write: %s", eco_strerror(ECO_ERR_ARG));
        return ECO_ERR_ARG;
    }
    if (unwritable(map)) {
        ecoi_set_err(err, errlen, "%s: not written: %s", path, unwritable(map));
        return ECO_ERR_ARG;
    }
    /* DIR/.BASE.XXXXXX; an existing file keeps its mode */
    return ecoi_atomic_write(path, ECOI_ATOMIC_HIDDEN | ECOI_ATOMIC_KEEP_MODE, 0644, print_map,
                             map, err, errlen);
}

/* ------------------------------------------------------------------ */
/* Reader                                                              */
/* ------------------------------------------------------------------ */

/* A non-blank line: its number and its fields tok[first .. first+nf-1]. */
typedef struct rec {
    int line;
    int nf;
    size_t first;
} rec;

typedef struct reader {
    const char *path;
    char *err;
    size_t errlen;
    ecoi_text text;
    char **tok;
    size_t ntok, tokcap;
    rec *rec;
    size_t nrec, reccap;
    int header_line;    /* line of the "eco-subnets 1" header */
    int version;
    int threshold_line; /* 0 until seen */
    double threshold;
    eco_map *map;
    int *host_line;     /* [nhosts] line of each host's "host" line */
} reader;

/* Record a format error at line and return ECO_ERR_FORMAT. */
static int bad(reader *r, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int bad(reader *r, int line, const char *fmt, ...)
{
    char why[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    ecoi_set_err(r->err, r->errlen, "%s:%d: %s", r->path, line, why);
    return ECO_ERR_FORMAT;
}

static int push_tok(reader *r, char *t)
{
    if (r->ntok == r->tokcap) {
        size_t cap = r->tokcap ? r->tokcap * 2 : 4096;
        char **nt = realloc(r->tok, cap * sizeof *nt);
        if (!nt)
            return ECO_ERR_NOMEM;
        r->tok = nt;
        r->tokcap = cap;
    }
    r->tok[r->ntok++] = t;
    return ECO_OK;
}

/* Split every non-blank line into fields. */
static int tokenize(reader *r)
{
    char *line, *f;

    while ((line = ecoi_text_line(&r->text)) != NULL) {
        size_t first = r->ntok;
        while ((f = ecoi_text_field(&line)) != NULL)
            if (push_tok(r, f) != ECO_OK)
                return ECO_ERR_NOMEM;
        if (r->ntok == first)
            continue;
        if (r->nrec == r->reccap) {
            size_t cap = r->reccap ? r->reccap * 2 : 1024;
            rec *nr = realloc(r->rec, cap * sizeof *nr);
            if (!nr)
                return ECO_ERR_NOMEM;
            r->rec = nr;
            r->reccap = cap;
        }
        r->rec[r->nrec].line = r->text.lineno;
        r->rec[r->nrec].nf = (int)(r->ntok - first);
        r->rec[r->nrec].first = first;
        r->nrec++;
    }
    return ECO_OK;
}

static int check_header(reader *r)
{
    const rec *h = &r->rec[0];
    char **f = &r->tok[h->first];
    int version;

    r->header_line = h->line;
    if (strcmp(f[0], ECO_FILE_MAGIC) != 0)
        return bad(r, h->line, "expected the header '%s %d' (a cost matrix? see eco-partition(1))",
                   ECO_FILE_MAGIC, ECO_FILE_VERSION);
    if (h->nf != 2)
        return bad(r, h->line, "expected '%s VERSION'", ECO_FILE_MAGIC);
    if (ecoi_parse_int(f[1], 0, 999999999, &version) != 0)
        return bad(r, h->line, "bad version '%.32s'", f[1]);
    if (version < 1 || version > ECO_FILE_VERSION)
        return bad(r, h->line, "unsupported %s version %d (this libeco reads versions 1 "
                   "to %d)", ECO_FILE_MAGIC, version, ECO_FILE_VERSION);
    r->version = version;
    return ECO_OK;
}

static int check_threshold(reader *r, const rec *x, char **f)
{
    if (x->nf != 2)
        return bad(r, x->line, "expected 'threshold NUMBER'");
    if (ecoi_parse_double(f[1], &r->threshold) != 0 || r->threshold < 0.0)
        return bad(r, x->line, "bad threshold '%.64s' (a number >= 0)", f[1]);
    if (r->threshold_line)
        return bad(r, x->line, "second threshold line (first on line %d)", r->threshold_line);
    r->threshold_line = x->line;
    return ECO_OK;
}

static int check_subnet(reader *r, const rec *x, char **f)
{
    int id, k;

    if (x->nf < 4)
        return bad(r, x->line, "expected 'subnet ID k=K HOST...'");
    if (ecoi_parse_int(f[1], 0, 999999999, &id) != 0)
        return bad(r, x->line, "bad subnet ID '%.32s'", f[1]);
    if (strncmp(f[2], "k=", 2) != 0)
        return bad(r, x->line, "expected k=K after the subnet ID, not '%.64s'", f[2]);
    if (ecoi_parse_int(f[2] + 2, 1, ECO_MAX_DEGREE, &k) != 0)
        return bad(r, x->line, "bad degree '%.32s' (k must be 1..%d)", f[2], ECO_MAX_DEGREE);
    return ECO_OK;
}

/* A model number (seconds or seconds per byte): finite, >= 0. */
static int model_number(reader *r, const rec *x, const char *s, const char *what, double *v)
{
    if (ecoi_parse_double(s, v) != 0 || *v < 0.0)
        return bad(r, x->line, "bad %s '%.64s' (a number >= 0)", what, s);
    return ECO_OK;
}

/* A subnet ID of a model line (its range is checked once the subnets are
 * known, in load_model). */
static int model_id(reader *r, const rec *x, const char *s, int *id)
{
    if (ecoi_parse_int(s, 0, 999999999, id) != 0)
        return bad(r, x->line, "bad subnet ID '%.32s'", s);
    return ECO_OK;
}

/* The model lines that came after version 3, and the version each needs. */
static const struct {
    const char *word;
    int version;
} model_since[] = {
    { "step", 5 }, { "burst", 6 }, { "forward", 7 }, { "stepbyte", 8 }, { "cores", 9 },
};

/* The model lines of one number: the word, the number as the usage names
 * it, and as model_number's errors do. */
static const struct {
    const char *word, *usage, *what;
} model_one[] = {
    { "busy", "SECONDS", "seconds" },     { "step", "SECONDS", "seconds" },
    { "forward", "SECONDS", "seconds" },  { "stepbyte", "SECONDS", "seconds" },
    { "cores", "CORES", "cores" },
};

static int check_model(reader *r, const rec *x, char **f)
{
    double v;
    int id, rc;

    if (r->version < 3)
        return bad(r, x->line, "'model' lines need version 3 (the header says %d)",
                   r->version);
    if (x->nf >= 2 && strcmp(f[1], "task") == 0) {
        if (x->nf != 4)
            return bad(r, x->line, "expected 'model task ALPHA BETA'");
        if ((rc = model_number(r, x, f[2], "alpha", &v)) != ECO_OK)
            return rc;
        return model_number(r, x, f[3], "beta", &v);
    }
    if (x->nf >= 2 && strcmp(f[1], "link") == 0) {
        if (x->nf != 6)
            return bad(r, x->line, "expected 'model link SUBNET_A SUBNET_B ALPHA BETA'");
        if ((rc = model_id(r, x, f[2], &id)) != ECO_OK ||
            (rc = model_id(r, x, f[3], &id)) != ECO_OK ||
            (rc = model_number(r, x, f[4], "alpha", &v)) != ECO_OK)
            return rc;
        return model_number(r, x, f[5], "beta", &v);
    }
    if (x->nf >= 2 && strcmp(f[1], "uplink") == 0) {
        if (x->nf != 4)
            return bad(r, x->line, "expected 'model uplink SUBNET BETA'");
        if ((rc = model_id(r, x, f[2], &id)) != ECO_OK)
            return rc;
        return model_number(r, x, f[3], "beta", &v);
    }
    for (size_t i = 0; x->nf >= 2 && i < sizeof model_since / sizeof *model_since; i++)
        if (strcmp(f[1], model_since[i].word) == 0 && r->version < model_since[i].version)
            return bad(r, x->line, "'model %s' lines need version %d (the header says %d)",
                       model_since[i].word, model_since[i].version, r->version);
    if (x->nf >= 2 && strcmp(f[1], "burst") == 0) {
        if (x->nf != 5)
            return bad(r, x->line, "expected 'model burst SUBNET_A SUBNET_B BYTES'");
        if ((rc = model_id(r, x, f[2], &id)) != ECO_OK ||
            (rc = model_id(r, x, f[3], &id)) != ECO_OK)
            return rc;
        return model_number(r, x, f[4], "bytes", &v);
    }
    for (size_t i = 0; x->nf >= 2 && i < sizeof model_one / sizeof *model_one; i++)
        if (strcmp(f[1], model_one[i].word) == 0) {
            if (x->nf != 3)
                return bad(r, x->line, "expected 'model %s %s'", f[1], model_one[i].usage);
            return model_number(r, x, f[2], model_one[i].what, &v);
        }
    return bad(r, x->line, "expected 'model task', 'model link', 'model uplink', "
               "'model busy', 'model step', 'model burst', 'model forward', "
               "'model stepbyte' or 'model cores', not "
               "'model %.64s'",
               x->nf >= 2 ? f[1] : "");
}

/* An entry of a hoprow: N (0..ECO_MAX_HOPS) or - (not counted), then
 * optionally xR, R times (1..999999999).  0, or -1. */
static int hop_entry(const char *s, int *hops, int *reps)
{
    char value[16];
    const char *x = strchr(s, 'x');
    size_t len = x ? (size_t)(x - s) : strlen(s);

    *reps = 1;
    if (len == 0 || len >= sizeof value || (x && ecoi_parse_int(x + 1, 1, 999999999, reps) != 0))
        return -1;
    memcpy(value, s, len);
    value[len] = '\0';
    if (strcmp(value, "-") == 0) {
        *hops = -1;
        return 0;
    }
    return ecoi_parse_int(value, 0, ECO_MAX_HOPS, hops);
}

/* hopclass C HOST... and hoprow C H... (version 4). */
static int check_hop_line(reader *r, const rec *x, char **f)
{
    int id, hops, reps;

    if (r->version < 4)
        return bad(r, x->line, "'%s' lines need version 4 (the header says %d)", f[0],
                   r->version);
    if (x->nf < 3)
        return bad(r, x->line, "expected '%s'", strcmp(f[0], "hopclass") == 0
                   ? "hopclass CLASS HOST..." : "hoprow CLASS HOPS...");
    if (ecoi_parse_int(f[1], 0, 999999999, &id) != 0)
        return bad(r, x->line, "bad hop class '%.32s'", f[1]);
    for (int i = 2; strcmp(f[0], "hoprow") == 0 && i < x->nf; i++)
        if (hop_entry(f[i], &hops, &reps) != 0)
            return bad(r, x->line, "bad hops '%.64s' (N from 0 to %d or -, then xR to "
                       "repeat it R times)", f[i], ECO_MAX_HOPS);
    return ECO_OK;
}

/* Pass 1, in line order: keywords, field counts, numbers. */
static int check_line(reader *r, const rec *x)
{
    char **f = &r->tok[x->first];
    double v;

    if (strcmp(f[0], "threshold") == 0)
        return check_threshold(r, x, f);
    if (strcmp(f[0], "subnet") == 0)
        return check_subnet(r, x, f);
    if (strcmp(f[0], "host") == 0) {
        if (x->nf != 2)
            return bad(r, x->line, "expected 'host NAME'");
        if (strlen(f[1]) > ECO_MAX_HOSTNAME)
            return bad(r, x->line, "host name too long");
        return ECO_OK;
    }
    if (strcmp(f[0], "cost") == 0) {
        if (x->nf != 4)
            return bad(r, x->line, "expected 'cost HOST_A HOST_B SECONDS'");
        if (ecoi_parse_double(f[3], &v) != 0)
            return bad(r, x->line, "bad cost '%.64s'", f[3]);
        if (v <= 0.0)
            return bad(r, x->line, "cost must be positive");
        return ECO_OK;
    }
    if (strcmp(f[0], "hops") == 0) {
        int hops;
        if (r->version < 2)
            return bad(r, x->line, "'hops' lines need version 2 (the header says %d)",
                       r->version);
        if (x->nf != 4)
            return bad(r, x->line, "expected 'hops HOST_A HOST_B N'");
        if (r->version >= 4 && strcmp(f[3], "-") == 0)
            return ECO_OK; /* not counted, where the classes say a number */
        if (ecoi_parse_int(f[3], 0, ECO_MAX_HOPS, &hops) != 0)
            return bad(r, x->line, "bad hops '%.64s' (0 to %d%s)", f[3], ECO_MAX_HOPS,
                       r->version >= 4 ? ", or - when not counted" : "");
        return ECO_OK;
    }
    if (strcmp(f[0], "hopclass") == 0 || strcmp(f[0], "hoprow") == 0)
        return check_hop_line(r, x, f);
    if (strcmp(f[0], "model") == 0)
        return check_model(r, x, f);
    if (strcmp(f[0], ECO_FILE_MAGIC) == 0)
        return bad(r, x->line, "second '%s' header (first on line %d)", ECO_FILE_MAGIC,
                   r->header_line);
    return bad(r, x->line, "unknown keyword '%.64s'", f[0]);
}

static int check_lines(reader *r)
{
    int rc = ECO_OK;

    for (size_t i = 1; i < r->nrec && rc == ECO_OK; i++)
        rc = check_line(r, &r->rec[i]);
    if (rc == ECO_OK && !r->threshold_line)
        rc = bad(r, r->header_line, "no 'threshold' line");
    return rc;
}

/* Is record x a line with keyword kw? */
static int is(const reader *r, const rec *x, const char *kw)
{
    return strcmp(r->tok[x->first], kw) == 0;
}

typedef struct hostref {
    const char *name;
    int line;
} hostref;

static int cmp_hostref(const void *x, const void *y)
{
    const hostref *p = x, *q = y;
    int c = strcmp(p->name, q->name);

    return c ? c : (p->line > q->line) - (p->line < q->line);
}

/* Pass 2: the host lines, sorted; the map is made from them at once. */
static int load_hosts(reader *r, hostref *h, const char **names)
{
    int n = 0, dup = -1;

    for (size_t i = 1; i < r->nrec; i++)
        if (is(r, &r->rec[i], "host")) {
            h[n].name = r->tok[r->rec[i].first + 1];
            h[n++].line = r->rec[i].line;
        }
    qsort(h, (size_t)n, sizeof *h, cmp_hostref);
    for (int i = 1; i < n; i++) /* report the earliest repeated line */
        if (strcmp(h[i - 1].name, h[i].name) == 0 && (dup < 0 || h[i].line < h[dup].line))
            dup = i;
    if (dup >= 0)
        return bad(r, h[dup].line, "duplicate host '%s' (first on line %d)", h[dup].name,
                   h[dup - 1].line);
    for (int i = 0; i < n; i++)
        names[i] = h[i].name;
    r->map = ecoi_map_new_hosts(names, n);
    r->host_line = malloc(((size_t)n + 1) * sizeof *r->host_line);
    if (!r->map || !r->host_line)
        return ECO_ERR_NOMEM;
    for (int i = 0; i < n; i++)
        r->host_line[i] = h[i].line;
    return ECO_OK;
}

static int make_hosts(reader *r)
{
    hostref *h = malloc((r->nrec + 1) * sizeof *h);
    const char **names = malloc((r->nrec + 1) * sizeof *names);
    int rc = h && names ? load_hosts(r, h, names) : ECO_ERR_NOMEM;

    free(h);
    free(names);
    return rc;
}

/* The index of a host named on line `line`, or a format error. */
static int host_at(reader *r, const char *name, int line, int *h)
{
    *h = eco_map_find_host(r->map, name);
    return *h >= 0 ? ECO_OK : bad(r, line, "unknown host '%.*s'", ECO_MAX_HOSTNAME, name);
}

/* A pair line read, for finding a pair given twice. */
typedef struct pairline {
    ecoi_pair p;   /* a < b */
    int line;
} pairline;

static int cmp_pairline(const void *x, const void *y)
{
    const pairline *u = x, *v = y;

    if (u->p.a != v->p.a)
        return u->p.a < v->p.a ? -1 : 1;
    if (u->p.b != v->p.b)
        return u->p.b < v->p.b ? -1 : 1;
    return (u->line > v->line) - (u->line < v->line);
}

/* The kw lines into pl[] (n of them), up to the first line naming an
 * unknown host or a host twice: its error in *why (ECO_OK: none). */
static size_t read_pairs(reader *r, const char *kw, pairline *pl, int *why)
{
    size_t n = 0;
    int a, b, hops;

    *why = ECO_OK;
    for (size_t i = 1; i < r->nrec; i++) {
        const rec *x = &r->rec[i];
        char **f = &r->tok[x->first];
        if (!is(r, x, kw))
            continue;
        if ((*why = host_at(r, f[1], x->line, &a)) != ECO_OK ||
            (*why = host_at(r, f[2], x->line, &b)) != ECO_OK)
            break;
        if (a == b) {
            *why = bad(r, x->line, "%s from host '%s' to itself", kw, f[1]);
            break;
        }
        pl[n].p = (ecoi_pair){ a < b ? a : b, a < b ? b : a, -1, -1.0 };
        if (strcmp(kw, "hops") == 0) {
            hops = -1; /* "-" (version 4) */
            (void)ecoi_parse_int(f[3], 0, ECO_MAX_HOPS, &hops);
            pl[n].p.hops = hops;
        } else
            (void)ecoi_parse_double(f[3], &pl[n].p.cost);
        pl[n++].line = x->line;
    }
    return n;
}

/*
 * Pass 3: the cost lines, then the hops lines, into the map's pairs, in
 * one bulk load each (a file of 100,000 hosts has as many pairs or more).
 * The errors are those of a reading line by line: the first line that
 * names an unknown host, or gives a pair a second time, whichever comes
 * first.  Sorting the pairs with their lines finds the second lines: an
 * error from read_pairs comes after every line it read.
 */
static int load_pairs(reader *r, const char *kw)
{
    pairline *pl = malloc((r->nrec + 1) * sizeof *pl);
    size_t n, dup = 0;
    ecoi_pair *p = NULL;
    int rc;

    if (!pl)
        return ECO_ERR_NOMEM;
    n = read_pairs(r, kw, pl, &rc);
    qsort(pl, n, sizeof *pl, cmp_pairline);
    for (size_t i = 1; i < n; i++)
        if (pl[i].p.a == pl[i - 1].p.a && pl[i].p.b == pl[i - 1].p.b &&
            (!dup || pl[i].line < pl[dup].line))
            dup = i;
    if (dup) {
        size_t first = dup;
        while (first > 0 && pl[first - 1].p.a == pl[dup].p.a && pl[first - 1].p.b == pl[dup].p.b)
            first--;
        rc = bad(r, pl[dup].line, "second %s for the pair %s %s (first on line %d)", kw,
                 r->map->host[pl[dup].p.a], r->map->host[pl[dup].p.b], pl[first].line);
    }
    if (rc == ECO_OK && r->version >= 4 && strcmp(kw, "hops") == 0) {
        /* exactly these hops, over the classes' (sorted: appended) */
        for (size_t i = 0; i < n && rc == ECO_OK; i++)
            rc = ecoi_map_set_hops(r->map, pl[i].p.a, pl[i].p.b, pl[i].p.hops);
        free(pl);
        return rc;
    }
    if (rc == ECO_OK && !(p = malloc((n + 1) * sizeof *p)))
        rc = ECO_ERR_NOMEM;
    if (rc == ECO_OK) {
        for (size_t i = 0; i < n; i++)
            p[i] = pl[i].p;
        rc = ecoi_map_add_pairs(r->map, p, n);
        free(p);
    }
    free(pl);
    return rc;
}

/* The number of kw lines. */
static int count_lines(const reader *r, const char *kw)
{
    int count = 0;

    for (size_t i = 1; i < r->nrec; i++)
        count += is(r, &r->rec[i], kw);
    return count;
}

/* The kw lines (subnet, hopclass) in file order, their IDs (what) 0, 1,
 * 2, ... in order, each given to load with its ID and line_of[], where
 * it records its line. */
static int load_numbered(reader *r, const char *kw, const char *what,
                         int (*load)(reader *, const rec *, int, int *), int *line_of)
{
    int count = 0, id, rc = ECO_OK;

    for (size_t i = 1; i < r->nrec && rc == ECO_OK; i++) {
        const rec *x = &r->rec[i];
        if (!is(r, x, kw))
            continue;
        (void)ecoi_parse_int(r->tok[x->first + 1], 0, 999999999, &id);
        if (id != count)
            rc = bad(r, x->line, "%s %d out of order (expected %d)", what, id, count);
        else
            rc = load(r, x, count++, line_of);
    }
    return rc;
}

/* One hopclass line: its hosts join class id; line_of[] says where. */
static int load_hop_class(reader *r, const rec *x, int id, int *line_of)
{
    char **f = &r->tok[x->first];
    int *cls = r->map->hops.cls, h, rc;

    line_of[id] = x->line;
    for (int i = 2; i < x->nf; i++) {
        if ((rc = host_at(r, f[i], x->line, &h)) != ECO_OK)
            return rc;
        if (cls[h] >= 0)
            return bad(r, x->line, "host '%s' already in hop class %d (line %d)", f[i],
                       cls[h], line_of[cls[h]]);
        cls[h] = id;
    }
    return ECO_OK;
}

/* Pass 3a (version 4): the hopclass lines, 0, 1, 2, ... in order, and
 * the table they need. */
static int load_hop_classes(reader *r)
{
    ecoi_hops *h = &r->map->hops;
    int count = count_lines(r, "hopclass"), rc, *line_of, most = r->map->nhosts;
    size_t cells = (size_t)count * (size_t)(count + 1) / 2;

    /* every class has a host of its own: no more classes than hosts,
     * and a table of bounded size, before it is allocated */
    most = most < ECOI_HOPS_MAX_CLASSES ? most : ECOI_HOPS_MAX_CLASSES;
    if (count > most)
        for (size_t i = 1, seen = 0; i < r->nrec; i++)
            if (is(r, &r->rec[i], "hopclass") && ++seen > (size_t)most)
                return bad(r, r->rec[i].line, "more hop classes than %s (%d)",
                           most == r->map->nhosts ? "hosts" : "the most a file may have",
                           most);
    h->table = malloc((cells + 1) * sizeof *h->table);
    if (!(line_of = malloc(((size_t)count + 1) * sizeof *line_of)) || !h->table) {
        free(line_of);
        return ECO_ERR_NOMEM;
    }
    for (size_t t = 0; t < cells; t++)
        h->table[t] = -1;
    h->ncls = count;
    rc = load_numbered(r, "hopclass", "hop class", load_hop_class, line_of);
    free(line_of);
    return rc;
}

/* One hoprow line into the table: exactly the classes from its own on. */
static int load_hop_row(reader *r, const rec *x, int *line_of)
{
    char **f = &r->tok[x->first];
    ecoi_hops *h = &r->map->hops;
    long long given = 0, want;
    int c, hops, reps;

    (void)ecoi_parse_int(f[1], 0, 999999999, &c);
    if (c >= h->ncls)
        return bad(r, x->line, "no hop class %d (the file has %d)", c, h->ncls);
    if (line_of[c])
        return bad(r, x->line, "second 'hoprow %d' (first on line %d)", c, line_of[c]);
    line_of[c] = x->line;
    want = h->ncls - c;
    for (int i = 2; i < x->nf && given <= want; i++) {
        (void)hop_entry(f[i], &hops, &reps);
        for (long long k = given; k < given + reps && k < want; k++)
            h->table[ecoi_hops_tri(h->ncls, c, c + (int)k)] = (short)hops;
        given += reps;
    }
    if (given != want)
        return bad(r, x->line, "'hoprow %d' gives %s hops than the %lld classes from %d on",
                   c, given < want ? "fewer" : "more", want, c);
    return ECO_OK;
}

/* Pass 3b (version 4): a hoprow line for every class; a class of one
 * host has no pair inside (its cell is -1 whatever the file says). */
static int load_hop_rows(reader *r)
{
    ecoi_hops *h = &r->map->hops;
    int rc = ECO_OK, *line_of = calloc((size_t)h->ncls + 1, sizeof *line_of);
    int *size = calloc((size_t)h->ncls + 1, sizeof *size);

    if (!line_of || !size)
        rc = ECO_ERR_NOMEM;
    for (size_t i = 1; i < r->nrec && rc == ECO_OK; i++)
        if (is(r, &r->rec[i], "hoprow"))
            rc = load_hop_row(r, &r->rec[i], line_of);
    for (int c = 0; c < h->ncls && rc == ECO_OK; c++)
        if (!line_of[c])
            rc = bad(r, r->header_line, "no 'hoprow %d' line (every hop class has its row)",
                     c);
    for (int a = 0; a < r->map->nhosts && rc == ECO_OK; a++)
        if (h->cls[a] >= 0)
            size[h->cls[a]]++;
    for (int c = 0; c < h->ncls && rc == ECO_OK; c++)
        if (size[c] == 1)
            h->table[ecoi_hops_tri(h->ncls, c, c)] = -1;
    free(line_of);
    free(size);
    return rc;
}

/* One subnet line: its hosts join subnet id; line_of[] says where. */
static int load_subnet(reader *r, const rec *x, int id, int *line_of)
{
    char **f = &r->tok[x->first];
    int h, rc;

    (void)ecoi_parse_int(f[2] + 2, 1, ECO_MAX_DEGREE, &r->map->degree[id]);
    line_of[id] = x->line;
    for (int i = 3; i < x->nf; i++) {
        if ((rc = host_at(r, f[i], x->line, &h)) != ECO_OK)
            return rc;
        if (r->map->subnet[h] >= 0)
            return bad(r, x->line, "host '%s' already in subnet %d (line %d)", f[i],
                       r->map->subnet[h], line_of[r->map->subnet[h]]);
        r->map->subnet[h] = id;
    }
    return ECO_OK;
}

/* Pass 4: the subnet lines, IDs 0, 1, 2, ... in order. */
static int load_subnets(reader *r)
{
    int count = count_lines(r, "subnet"), rc, *line_of;

    r->map->degree = malloc(((size_t)count + 1) * sizeof *r->map->degree);
    line_of = malloc(((size_t)count + 1) * sizeof *line_of);
    if (!r->map->degree || !line_of) {
        free(line_of);
        return ECO_ERR_NOMEM;
    }
    rc = load_numbered(r, "subnet", "subnet ID", load_subnet, line_of);
    r->map->nsubnets = count;
    free(line_of);
    return rc;
}

/* The subnet ID at field i of record x: in range, or a format error. */
static int model_subnet(reader *r, const rec *x, int i, int *id)
{
    const char *s = r->tok[x->first + (size_t)i];

    (void)ecoi_parse_int(s, 0, 999999999, id);
    if (*id >= r->map->nsubnets)
        return bad(r, x->line, "no subnet %d (the file has %d)", *id, r->map->nsubnets);
    return ECO_OK;
}

/* The subnet IDs at fields 2 and 3 of record x, s <= t (a link's, or a
 * burst's, in either order; written lower first). */
static int model_pair(reader *r, const rec *x, int *s, int *t)
{
    int rc;

    if ((rc = model_subnet(r, x, 2, s)) != ECO_OK || (rc = model_subnet(r, x, 3, t)) != ECO_OK)
        return rc;
    if (*s > *t) {
        int u = *s;
        *s = *t;
        *t = u;
    }
    return ECO_OK;
}

/* Where line[] keeps the line of burst s-t: after the cores'. */
#define BURST_AT(n, s, t) (6 + (n) * (n) + (n) + (size_t)(s) * (n) + (size_t)(t))

/* One model line into mo; line[] says where each entry was given:
 * [0] task, [1 + s * n + t] link s-t, [1 + n * n + s] uplink s,
 * [1 + n * n + n] busy, [2 + n * n + n] step, [3 + n * n + n] forward,
 * [4 + n * n + n] stepbyte, [5 + n * n + n] cores, BURST_AT(n, s, t) burst
 * s-t. */
static int load_model_line(reader *r, const rec *x, ecoi_model *mo, int *line)
{
    char **f = &r->tok[x->first];
    size_t n = (size_t)mo->nsubnets;
    int s, t, rc, *at;

    if (strcmp(f[1], "task") == 0) {
        at = &line[0];
        if (!*at) {
            (void)ecoi_parse_double(f[2], &mo->task.alpha);
            (void)ecoi_parse_double(f[3], &mo->task.beta);
        }
    } else if (strcmp(f[1], "burst") == 0) {
        if ((rc = model_pair(r, x, &s, &t)) != ECO_OK)
            return rc;
        at = &line[BURST_AT(n, s, t)];
        if (!*at) {
            double u;
            (void)ecoi_parse_double(f[4], &u);
            mo->burst[(size_t)s * n + (size_t)t] = mo->burst[(size_t)t * n + (size_t)s] = u;
        }
    } else if (strcmp(f[1], "link") == 0) {
        if ((rc = model_pair(r, x, &s, &t)) != ECO_OK)
            return rc;
        at = &line[1 + (size_t)s * n + (size_t)t];
        if (!*at) {
            ecoi_cost c;
            (void)ecoi_parse_double(f[4], &c.alpha);
            (void)ecoi_parse_double(f[5], &c.beta);
            mo->link[(size_t)s * n + (size_t)t] = mo->link[(size_t)t * n + (size_t)s] = c;
        }
    } else if (strcmp(f[1], "uplink") == 0) {
        if ((rc = model_subnet(r, x, 2, &s)) != ECO_OK)
            return rc;
        at = &line[1 + n * n + (size_t)s];
        if (!*at)
            (void)ecoi_parse_double(f[3], &mo->uplink[s]);
    } else { /* busy, step, forward or stepbyte: seconds; cores */
        int k = strcmp(f[1], "step") == 0 ? 1 : strcmp(f[1], "forward") == 0 ? 2
              : strcmp(f[1], "stepbyte") == 0 ? 3 : strcmp(f[1], "cores") == 0 ? 4 : 0;
        double *to[5] = { &mo->busy, &mo->step, &mo->forward, &mo->stepbyte, &mo->cores };
        at = &line[1 + n * n + n + (size_t)k];
        if (!*at)
            (void)ecoi_parse_double(f[2], to[k]);
    }
    if (*at) {
        char what[64] = "task";
        if (strcmp(f[1], "link") == 0 || strcmp(f[1], "burst") == 0)
            snprintf(what, sizeof what, "%s %d %d", f[1], s, t);
        else if (strcmp(f[1], "uplink") == 0)
            snprintf(what, sizeof what, "uplink %d", s);
        else if (strcmp(f[1], "task") != 0)
            snprintf(what, sizeof what, "%s", f[1]);
        return bad(r, x->line, "second 'model %s' (first on line %d)", what, *at);
    }
    *at = x->line;
    return ECO_OK;
}

/* The first entry of the model no line gave, reported at the header
 * (busy, step, forward, stepbyte and cores may be missing: files from before they were
 * measured, and one host, say 0, not measured; the bursts too, but all
 * of them or none: a missing one is reported at the first burst line). */
static int model_missing(reader *r, const ecoi_model *mo, const int *line)
{
    int n = mo->nsubnets, first = 0;

    if (!line[0])
        return bad(r, r->header_line, "no 'model task' line (a version 3 file holds the "
                   "whole cost model)");
    for (int s = 0; s < n; s++)
        for (int t = s; t < n; t++)
            if (!line[1 + (size_t)s * n + (size_t)t])
                return bad(r, r->header_line, "no 'model link %d %d' line (a version 3 "
                           "file holds the whole cost model)", s, t);
    for (int s = 0; s < n; s++)
        if (!line[1 + (size_t)n * n + (size_t)s])
            return bad(r, r->header_line, "no 'model uplink %d' line (a version 3 file "
                       "holds the whole cost model)", s);
    for (int s = 0; s < n; s++)
        for (int t = s; t < n; t++) {
            int at = line[BURST_AT((size_t)n, s, t)];
            first = at && (!first || at < first) ? at : first;
        }
    for (int s = 0; s < n && first; s++)
        for (int t = s; t < n; t++)
            if (!line[BURST_AT((size_t)n, s, t)])
                return bad(r, first, "no 'model burst %d %d' line (a file with bursts holds "
                           "one for every link)", s, t);
    return ECO_OK;
}

/* Pass 5 (version 3): the model lines, over the file's subnet IDs. */
static int load_model(reader *r)
{
    size_t n = (size_t)r->map->nsubnets;
    ecoi_model *mo;
    int rc = ECO_OK, *line;

    if (r->version < 3)
        return ECO_OK;
    if (r->version >= 4) { /* the model is optional from version 4 on */
        size_t i = 1;
        while (i < r->nrec && !is(r, &r->rec[i], "model"))
            i++;
        if (i == r->nrec)
            return ECO_OK;
    }
    mo = ecoi_model_new(r->map->nsubnets);
    line = calloc(BURST_AT(n, n, 0), sizeof *line); /* busy ... cores, bursts */
    if (!mo || !line) {
        ecoi_model_free(mo);
        free(line);
        return ECO_ERR_NOMEM;
    }
    for (size_t i = 1; i < r->nrec && rc == ECO_OK; i++)
        if (is(r, &r->rec[i], "model"))
            rc = load_model_line(r, &r->rec[i], mo, line);
    if (rc == ECO_OK)
        rc = model_missing(r, mo, line);
    free(line);
    if (rc == ECO_OK)
        r->map->model = mo; /* renumbered with the subnets by finish() */
    else
        ecoi_model_free(mo);
    return rc;
}

/* Every host in a subnet; then the canonical numbering. */
static int finish(reader *r)
{
    int worst = -1;

    for (int h = 0; h < r->map->nhosts; h++)
        if (r->map->subnet[h] < 0 && (worst < 0 || r->host_line[h] < r->host_line[worst]))
            worst = h;
    if (worst >= 0)
        return bad(r, r->host_line[worst], "host '%s' in no subnet", r->map->host[worst]);
    r->map->threshold = r->threshold;
    return ecoi_map_canonicalize_subnets(r->map);
}

int eco_map_read(const char *path, eco_map **map, char *err, size_t errlen)
{
    reader r;
    int rc;

    if (map)
        *map = NULL;
    if (!path || !map) {
        ecoi_set_err(err, errlen, "eco_map_read: %s", eco_strerror(ECO_ERR_ARG));
        return ECO_ERR_ARG;
    }
    memset(&r, 0, sizeof r);
    r.path = path;
    r.err = err;
    r.errlen = errlen;
    rc = ecoi_text_load(&r.text, path, err, errlen);
    if (rc != ECO_OK)
        return rc;
    rc = tokenize(&r);
    if (rc == ECO_OK && r.nrec == 0)
        rc = bad(&r, r.text.lineno > 0 ? r.text.lineno : 1,
                 "no header: expected '%s %d'", ECO_FILE_MAGIC, ECO_FILE_VERSION);
    if (rc == ECO_OK)
        rc = check_header(&r);
    if (rc == ECO_OK)
        rc = check_lines(&r);
    if (rc == ECO_OK)
        rc = make_hosts(&r);
    if (rc == ECO_OK)
        rc = load_pairs(&r, "cost");
    if (rc == ECO_OK && r.version >= 4)
        rc = load_hop_classes(&r);
    if (rc == ECO_OK && r.version >= 4)
        rc = load_hop_rows(&r);
    if (rc == ECO_OK)
        rc = load_pairs(&r, "hops");
    if (rc == ECO_OK)
        rc = load_subnets(&r);
    if (rc == ECO_OK)
        rc = load_model(&r);
    if (rc == ECO_OK)
        rc = finish(&r);
    if (rc == ECO_OK)
        *map = r.map;
    else if (rc != ECO_ERR_FORMAT && rc != ECO_ERR_IO)
        ecoi_set_err(err, errlen, "%s: %s", path, eco_strerror(rc));
    if (rc != ECO_OK)
        eco_map_free(r.map);
    free(r.host_line);
    free(r.tok);
    free(r.rec);
    ecoi_text_free(&r.text);
    return rc;
}
