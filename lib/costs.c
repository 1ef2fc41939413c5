/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * costs.c -- read a cost matrix: lines "HOST_A HOST_B SECONDS [hops=N]"
 * (SECONDS "-" with hops: only the hops are known), '#' comments, blank
 * lines ignored.  Missing pairs stay unmeasured; a
 * pair given more than once (in either direction) costs the minimum of
 * its values, because the minimum is the least disturbed sample, and has
 * the most hops given (the longer of two routes).
 *
 * Also the text helpers shared with subnet_file.c: load a file, iterate
 * lines and fields, parse and print doubles independently of the locale;
 * and the writer of the matrix that eco-characterize measures
 * (ecoc_fprint_matrix, eco_char.h), beside this reader.
 */
#include "config.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "eco_char.h"
#include "eco_map_impl.h"

/* ------------------------------------------------------------------ */
/* Text helpers                                                        */
/* ------------------------------------------------------------------ */

void ecoi_set_err(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    if (!err || errlen == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* Read all of fp into a NUL-terminated buffer. */
static int slurp(FILE *fp, char **buf, size_t *len)
{
    size_t cap = 65536, n = 0, got;
    char *b = malloc(cap), *nb;

    while (b && (got = fread(b + n, 1, cap - n - 1, fp)) > 0) {
        n += got;
        if (cap - n - 1 == 0) {
            nb = cap <= SIZE_MAX / 2 ? realloc(b, cap * 2) : NULL;
            if (!nb) {
                free(b);
                return ECO_ERR_NOMEM;
            }
            b = nb;
            cap *= 2;
        }
    }
    if (!b)
        return ECO_ERR_NOMEM;
    if (ferror(fp)) {
        free(b);
        return ECO_ERR_IO;
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return ECO_OK;
}

int ecoi_text_load(ecoi_text *t, const char *path, char *err, size_t errlen)
{
    FILE *fp;
    size_t len = 0;
    int rc;

    memset(t, 0, sizeof *t);
    fp = fopen(path, "r");
    if (!fp) {
        ecoi_set_err(err, errlen, "%s: %s", path, strerror(errno));
        return ECO_ERR_IO;
    }
    rc = slurp(fp, &t->buf, &len);
    if (rc == ECO_ERR_IO)
        ecoi_set_err(err, errlen, "%s: %s", path, strerror(errno));
    else if (rc != ECO_OK)
        ecoi_set_err(err, errlen, "%s: %s", path, eco_strerror(rc));
    fclose(fp);
    if (rc != ECO_OK)
        return rc;
    t->pos = t->buf;
    t->end = t->buf + len;
    /* a NUL byte would silently cut a line short: not a text file */
    if (memchr(t->buf, '\0', len)) {
        int line = 1;
        for (char *p = t->buf; *p; p++)
            line += *p == '\n';
        ecoi_set_err(err, errlen, "%s:%d: NUL byte (not a text file)", path, line);
        ecoi_text_free(t);
        return ECO_ERR_FORMAT;
    }
    return ECO_OK;
}

void ecoi_text_free(ecoi_text *t)
{
    free(t->buf);
    memset(t, 0, sizeof *t);
}

char *ecoi_text_line(ecoi_text *t)
{
    char *line = t->pos, *nl, *hash;

    if (!line || line >= t->end)
        return NULL;
    nl = memchr(line, '\n', (size_t)(t->end - line));
    if (nl) {
        *nl = '\0';
        t->pos = nl + 1;
    } else {
        t->pos = t->end;
    }
    hash = strchr(line, '#');
    if (hash)
        *hash = '\0';
    t->lineno++;
    return line;
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

char *ecoi_text_field(char **cursor)
{
    char *p = *cursor, *start;

    while (is_space(*p))
        p++;
    if (!*p) {
        *cursor = p;
        return NULL;
    }
    start = p;
    while (*p && !is_space(*p))
        p++;
    if (*p)
        *p++ = '\0';
    *cursor = p;
    return start;
}

/* Numbers are read and written in the "C" locale, whatever the program
 * set with setlocale(): the files must mean the same everywhere. */
static locale_t c_locale = (locale_t)0;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;

static void make_c_locale(void)
{
    c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

static locale_t enter_c_locale(void)
{
    pthread_once(&c_locale_once, make_c_locale);
    return c_locale ? uselocale(c_locale) : (locale_t)0;
}

static void leave_c_locale(locale_t old)
{
    if (old)
        uselocale(old);
}

/* A decimal integer lo..hi (digits only), 0; or -1. */
int ecoi_parse_int(const char *s, int lo, int hi, int *out)
{
    long v = 0;

    if (!*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 9)
        return -1;
    for (; *s; s++)
        v = v * 10 + (*s - '0');
    if (v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

int ecoi_parse_double(const char *s, double *out)
{
    char *end;
    double v;
    locale_t old;

    /* decimal only: no "inf", "nan" or hexadecimal floats */
    if (!s || !*s || strspn(s, "0123456789.eE+-") != strlen(s) ||
        strpbrk(s, "0123456789") == NULL)
        return -1;
    old = enter_c_locale();
    errno = 0;
    v = strtod(s, &end);
    leave_c_locale(old);
    if (*end || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

void ecoi_format_double(double x, char *buf, size_t len)
{
    locale_t old = enter_c_locale();

    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, x);
        if (strtod(buf, NULL) == x)
            break;
    }
    leave_c_locale(old);
}

/* ------------------------------------------------------------------ */
/* Name interning: each distinct host name gets an id in first-seen    */
/* order (open addressing, FNV-1a), so that a matrix of p^2 lines      */
/* costs O(p^2) name lookups without sorting them all.                 */
/* ------------------------------------------------------------------ */

typedef struct intern {
    const char **name; /* [n] id -> name (pointers into the text) */
    int n, ncap;
    int *slot;         /* [size] id + 1, 0 when empty */
    size_t size;       /* a power of two */
} intern;

static size_t hash_name(const char *s)
{
    size_t h = (size_t)2166136261u;

    while (*s)
        h = (h ^ (unsigned char)*s++) * (size_t)16777619u;
    return h;
}

static int intern_grow(intern *t)
{
    size_t size = t->size ? t->size * 2 : 1024;
    int *slot = calloc(size, sizeof *slot);

    if (!slot)
        return ECO_ERR_NOMEM;
    for (int id = 0; id < t->n; id++) {
        size_t i = hash_name(t->name[id]) & (size - 1);
        while (slot[i])
            i = (i + 1) & (size - 1);
        slot[i] = id + 1;
    }
    free(t->slot);
    t->slot = slot;
    t->size = size;
    return ECO_OK;
}

/* The id of name, added when new; a negative status on failure. */
static int intern_id(intern *t, const char *name)
{
    size_t i;

    if ((size_t)t->n * 2 >= t->size && intern_grow(t) != ECO_OK)
        return ECO_ERR_NOMEM;
    i = hash_name(name) & (t->size - 1);
    for (; t->slot[i]; i = (i + 1) & (t->size - 1))
        if (strcmp(t->name[t->slot[i] - 1], name) == 0)
            return t->slot[i] - 1;
    if (t->n == t->ncap) {
        int ncap = t->ncap ? t->ncap * 2 : 256;
        const char **nn = realloc(t->name, (size_t)ncap * sizeof *nn);
        if (!nn)
            return ECO_ERR_NOMEM;
        t->name = nn;
        t->ncap = ncap;
    }
    t->name[t->n] = name;
    t->slot[i] = ++t->n;
    return t->n - 1;
}

static void intern_free(intern *t)
{
    free(t->name);
    free(t->slot);
}

/* ------------------------------------------------------------------ */
/* The cost-matrix reader                                              */
/* ------------------------------------------------------------------ */

typedef struct entry {
    int a, b;      /* intern ids */
    double s;
    int hops;      /* -1: not given */
} entry;

typedef struct matrix {
    intern names;
    entry *e;
    size_t n, cap;
} matrix;

/* Append an entry to the matrix. */
static int add_entry(matrix *m, const char *a, const char *b, double s, int hops)
{
    entry *e;

    if (m->n == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 1024;
        if (!(e = realloc(m->e, cap * sizeof *e)))
            return ECO_ERR_NOMEM;
        m->e = e;
        m->cap = cap;
    }
    e = &m->e[m->n];
    e->a = intern_id(&m->names, a);
    e->b = intern_id(&m->names, b);
    if (e->a < 0 || e->b < 0)
        return ECO_ERR_NOMEM;
    e->s = s;
    e->hops = hops;
    m->n++;
    return ECO_OK;
}

/* Parse one non-blank line into m; on a format error, the reason in why. */
static int parse_line(matrix *m, char *line, char *why, size_t whylen)
{
    char *f[5];
    double s;
    int n = 0, hops = -1;

    while (n < 5 && (f[n] = ecoi_text_field(&line)) != NULL)
        n++;
    if (n > 0 && strcmp(f[0], ECO_FILE_MAGIC) == 0)
        ecoi_set_err(why, whylen, "expected HOST_A HOST_B SECONDS (this is a subnet file)");
    else if (n != 3 && n != 4)
        ecoi_set_err(why, whylen, "expected HOST_A HOST_B SECONDS [hops=N]");
    else if (n == 4 && (strncmp(f[3], "hops=", 5) != 0 ||
                        ecoi_parse_int(f[3] + 5, 0, ECO_MAX_HOPS, &hops) != 0))
        ecoi_set_err(why, whylen, "bad '%.64s' (expected hops=N, N from 0 to %d)", f[3],
                     ECO_MAX_HOPS);
    else if (strlen(f[0]) > ECO_MAX_HOSTNAME || strlen(f[1]) > ECO_MAX_HOSTNAME)
        ecoi_set_err(why, whylen, "host name too long");
    else if (strcmp(f[0], f[1]) == 0)
        ecoi_set_err(why, whylen, "cost from host '%.64s' to itself", f[0]);
    else if (n == 4 && strcmp(f[2], "-") == 0) /* hops of a pair whose cost is unknown */
        return add_entry(m, f[0], f[1], -1.0, hops);
    else if (ecoi_parse_double(f[2], &s) != 0)
        ecoi_set_err(why, whylen, "bad cost '%.64s'", f[2]);
    else if (s <= 0.0)
        ecoi_set_err(why, whylen, "cost must be positive");
    else
        return add_entry(m, f[0], f[1], s, hops);
    return ECO_ERR_FORMAT;
}

/* The map of the parsed matrix: hosts sorted once, then every entry. */
static int build_map(const matrix *m, eco_map **out)
{
    int n = m->names.n;
    int *rank = malloc(((size_t)n + 1) * sizeof *rank);
    eco_map *map = rank ? ecoi_map_new_named((const char *const *)m->names.name, n, rank) : NULL;

    /* every entry at once; a pair given twice keeps the cheaper cost
     * and the larger hops */
    if (map && m->n > 0) {
        ecoi_pair *p = malloc(m->n * sizeof *p);
        for (size_t i = 0; p && i < m->n; i++)
            p[i] = (ecoi_pair){ rank[m->e[i].a], rank[m->e[i].b], m->e[i].hops, m->e[i].s };
        if (!p || ecoi_map_add_pairs(map, p, m->n) != ECO_OK) {
            eco_map_free(map);
            map = NULL;
        }
        free(p);
    }
    free(rank);
    *out = map;
    return map ? ECO_OK : ECO_ERR_NOMEM;
}

int eco_map_read_costs(const char *path, eco_map **map, char *err, size_t errlen)
{
    ecoi_text text;
    matrix m;
    char *line, why[128] = "";
    int rc;

    if (map)
        *map = NULL;
    if (!path || !map) {
        ecoi_set_err(err, errlen, "eco_map_read_costs: %s", eco_strerror(ECO_ERR_ARG));
        return ECO_ERR_ARG;
    }
    rc = ecoi_text_load(&text, path, err, errlen);
    if (rc != ECO_OK)
        return rc;
    memset(&m, 0, sizeof m);
    while (rc == ECO_OK && (line = ecoi_text_line(&text)) != NULL) {
        if (line[strspn(line, " \t\r\v\f")] == '\0')
            continue; /* blank or comment only */
        rc = parse_line(&m, line, why, sizeof why);
    }
    if (rc == ECO_OK)
        rc = build_map(&m, map);
    if (rc == ECO_ERR_FORMAT)
        ecoi_set_err(err, errlen, "%s:%d: %s", path, text.lineno, why);
    else if (rc != ECO_OK)
        ecoi_set_err(err, errlen, "%s: %s", path, eco_strerror(rc));
    intern_free(&m.names);
    free(m.e);
    ecoi_text_free(&text);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Writer: a characterization's matrix (eco_char.h)                    */
/* ------------------------------------------------------------------ */

static void fprint_degrees(const ecoc_result *r, FILE *out)
{
    char num[40];

    for (int s = 0; r->map && s < eco_map_nsubnets(r->map); s++) {
        const ecoc_degree *d = &r->degree[s];
        fprintf(out, "# subnet %d: k=%d", s, d->k);
        if (d->how == 1) {
            fprintf(out, " measured, median broadcast:");
            for (int k = 1; k <= d->tried; k++) {
                snprintf(num, sizeof num, "%.3g", d->median[k]);
                fprintf(out, " k=%d %s", k, num);
            }
        } else
            fprintf(out, d->how == 2 ? " (--degree)" : " (default: fewer than 3 hosts)");
        fprintf(out, "\n");
    }
}

int ecoc_fprint_matrix(const ecoc_result *r, FILE *out)
{
    long pairs = (long)r->n * (r->n - 1) / 2;
    time_t now = time(NULL);
    char date[64];

    strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S %z", localtime(&now));
    fprintf(out, "# cost matrix written by eco-characterize (libeco %s), %s\n",
            PACKAGE_VERSION, date);
    fprintf(out, "# HOST_A HOST_B SECONDS: one-way time, the minimum over %d samples of\n"
                 "# %d round trips of %d bytes each; after '#' the median and dearest\n"
                 "# sample and spread = (median - minimum) / minimum\n",
            r->opt.trials, r->opt.rounds, r->opt.size);
    fprintf(out, "# %d hosts, %ld of %ld pairs measured (%s)\n", r->n, r->measured, pairs,
            r->sparse ? "sparse mode" : "all pairs");
    if (r->rechecked > 0)
        fprintf(out, "# %ld pairs measured again, %d more samples in each of %d round%s: "
                "a split within the noise, %d subnets before, %d after\n", r->rechecked,
                r->opt.trials, r->recheck_rounds, r->recheck_rounds == 1 ? "" : "s",
                r->recheck_before, eco_map_nsubnets(r->map));
    for (int i = 0; i < r->n; i++)
        if (strcmp(r->host[i].name, r->host[i].pvmhost) != 0)
            fprintf(out, "# host %s on %s\n", r->host[i].name, r->host[i].pvmhost);
        else
            fprintf(out, "# host %s\n", r->host[i].name);
    if (r->hops_counted)
        fprintf(out, "# hops=N: routers between the two hosts (TTL of UDP datagrams);\n"
                     "# SECONDS '-': the pair's cost was not measured (sparse mode)\n");
    for (int a = 0; a < r->n; a++)
        for (int b = ecoc_next(r, a, a); b < r->n; b = ecoc_next(r, a, b)) {
            const ecoc_stat *st = ecoc_pair(r, a, b);
            int hops = ecoc_hops(r, a, b);
            char h[32] = "";
            if (hops >= 0)
                snprintf(h, sizeof h, " hops=%d", hops);
            if (st)
                fprintf(out, "%s %s %.6g%s # median %.6g max %.6g spread %.0f%%\n",
                        r->host[a].name, r->host[b].name, st->min, h, st->median, st->max,
                        100.0 * (st->median - st->min) / st->min);
            else if (hops >= 0)
                fprintf(out, "%s %s -%s\n", r->host[a].name, r->host[b].name, h);
        }
    fprint_degrees(r, out);
    return ferror(out) ? -1 : 0;
}
