/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * topology.c -- netbed's topology files (eco_topo.h): the reader, with
 * eco-sim's `segments` generator, and the link limit that eco-bench and
 * eco-sim print beside their times.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "eco_coll.h"
#include "eco_topo.h"

/* netbed's names: a lower-case letter, then lower-case letters and
 * digits, at most 20 characters. */
static int name_ok(const char *s)
{
    size_t n = strlen(s);

    if (n < 1 || n > 20 || !islower((unsigned char)s[0]))
        return 0;
    for (size_t i = 1; i < n; i++)
        if (!islower((unsigned char)s[i]) && !isdigit((unsigned char)s[i]))
            return 0;
    return 1;
}

/* tc's notation: NUMBER kbit|mbit|gbit, or none (0); -1 when bad. */
static double parse_rate(const char *r)
{
    char *end;
    double v;

    if (strcmp(r, "none") == 0)
        return 0;
    v = strtod(r, &end);
    if (end == r || !(v > 0))
        return -1;
    if (strcmp(end, "kbit") == 0) return v * 1e3;
    if (strcmp(end, "mbit") == 0) return v * 1e6;
    if (strcmp(end, "gbit") == 0) return v * 1e9;
    return -1;
}

static unsigned hash(const char *s)
{
    unsigned h = 2166136261u;

    while (*s)
        h = (h ^ (unsigned char)*s++) * 16777619u;
    return h;
}

int ecoi_topo_find(const ecoi_topo *t, const char *name)
{
    if (!t->nbuckets)
        return -1;
    for (unsigned b = hash(name) % (unsigned)t->nbuckets; t->bucket[b] >= 0;
         b = (b + 1) % (unsigned)t->nbuckets)
        if (strcmp(t->node[t->bucket[b]].name, name) == 0)
            return t->bucket[b];
    return -1;
}

/* Rehash into twice the buckets when more than half are used. */
static int grow_hash(ecoi_topo *t)
{
    int nb = t->nbuckets ? 2 * t->nbuckets : 1024, *b;

    if (t->nbuckets && 2 * t->nnodes < t->nbuckets)
        return ECO_OK;
    if (!(b = malloc((size_t)nb * sizeof *b)))
        return ECO_ERR_NOMEM;
    free(t->bucket);
    t->bucket = b;
    t->nbuckets = nb;
    for (int i = 0; i < nb; i++)
        b[i] = -1;
    for (int i = 0; i < t->nnodes; i++) {
        unsigned k = hash(t->node[i].name) % (unsigned)nb;
        while (b[k] >= 0)
            k = (k + 1) % (unsigned)nb;
        b[k] = i;
    }
    return ECO_OK;
}

typedef struct reader {
    ecoi_topo *t;
    int cap, hcap, scap;
    const char *path;
    int lineno;
    char *err;
    size_t errlen;
} reader;

static int fail(reader *r, const char *fmt, const char *arg)
{
    char what[160];

    snprintf(what, sizeof what, fmt, arg);
    ecoi_set_err(r->err, r->errlen, "%s:%d: %s", r->path, r->lineno, what);
    return ECO_ERR_FORMAT;
}

static int push_int(int **a, int *n, int *cap, int v)
{
    if (*n == *cap) {
        int nc = *cap ? 2 * *cap : 64, *na = realloc(*a, (size_t)nc * sizeof *na);
        if (!na)
            return ECO_ERR_NOMEM;
        *a = na;
        *cap = nc;
    }
    (*a)[(*n)++] = v;
    return ECO_OK;
}

/* A new node named name under parent; its index, or an error. */
static int add_node(reader *r, const char *name, int kind, int parent, double rate)
{
    ecoi_topo *t = r->t;
    ecoi_topo_node *x;
    int rc;

    if (!name_ok(name))
        return fail(r, "bad name '%s' (a lower-case letter, then letters and digits, "
                       "at most 20)", name);
    if (ecoi_topo_find(t, name) >= 0)
        return fail(r, "'%s' defined twice", name);
    if (t->nnodes == r->cap) {
        int nc = r->cap ? 2 * r->cap : 256;
        ecoi_topo_node *nn = realloc(t->node, (size_t)nc * sizeof *nn);
        if (!nn)
            return ECO_ERR_NOMEM;
        t->node = nn;
        r->cap = nc;
    }
    x = &t->node[t->nnodes];
    memset(x, 0, sizeof *x);
    snprintf(x->name, sizeof x->name, "%s", name);
    x->kind = kind;
    x->parent = parent;
    x->depth = parent < 0 ? 1 : t->node[parent].depth + 1;
    x->rate = rate;
    x->hosts = kind == ECOI_TOPO_HOST;
    t->nnodes++;
    if ((rc = grow_hash(t)) != ECO_OK)
        return rc;
    {
        unsigned k = hash(name) % (unsigned)t->nbuckets;
        while (t->bucket[k] >= 0)
            k = (k + 1) % (unsigned)t->nbuckets;
        t->bucket[k] = t->nnodes - 1;
    }
    if (kind == ECOI_TOPO_HOST)
        rc = push_int(&t->host, &t->nhosts, &r->hcap, t->nnodes - 1);
    else if (kind == ECOI_TOPO_SEGMENT)
        rc = push_int(&t->segment, &t->nsegments, &r->scap, t->nnodes - 1);
    return rc == ECO_OK ? t->nnodes - 1 : rc;
}

static int whole(const char *s, int lo, int hi)
{
    int v;
    return s && ecoi_parse_int(s, lo, hi, &v) == 0 ? v : -1;
}

/* One line, its keyword already taken. */
static int read_line(reader *r, const char *kw, char *cur)
{
    char *name = ecoi_text_field(&cur), *f = NULL, *rate;
    int parent = -1, count = 1, k = 0, rc;
    double v;

    if (strcmp(kw, "segments") == 0 && name)
        count = whole(ecoi_text_field(&cur), 1, 1 << 20);
    rate = ecoi_text_field(&cur);
    if (!name || !rate || count < 0)
        return fail(r, "'%s': expected NAME RATE (see tests/netbed/README.md)", kw);
    if ((v = parse_rate(rate)) < 0)
        return fail(r, "bad rate '%s' (kbit, mbit, gbit or none)", rate);
    f = ecoi_text_field(&cur);
    if (strcmp(kw, "host") == 0) {
        int h = ecoi_topo_find(r->t, name);
        if (h < 0 || r->t->node[h].kind != ECOI_TOPO_HOST)
            return fail(r, "host '%s' is in no segment above", name);
        if (f)
            return fail(r, "unexpected '%s'", f);
        r->t->node[h].rate = v;
        return ECO_OK;
    }
    if (f && strcmp(f, "in") == 0) {
        char *g = ecoi_text_field(&cur);
        if (!g || (parent = ecoi_topo_find(r->t, g)) < 0 ||
            r->t->node[parent].kind != ECOI_TOPO_GROUP)
            return fail(r, "no group '%s' defined above", g ? g : "");
        f = ecoi_text_field(&cur);
    }
    if (strcmp(kw, "group") == 0) {
        if (f)
            return fail(r, "unexpected '%s'", f);
        rc = add_node(r, name, ECOI_TOPO_GROUP, parent, v);
        return rc < 0 ? rc : ECO_OK;
    }
    if (strcmp(kw, "segments") == 0) {
        char *kk = ecoi_text_field(&cur);
        if (!f || strcmp(f, "hosts") != 0 || (k = whole(kk, 1, 1 << 20)) < 0 ||
            (f = ecoi_text_field(&cur)))
            return fail(r, "%s", "segments: expected PREFIX COUNT RATE [in GROUP] hosts K");
    }
    for (int s = 1; s <= count; s++) {
        char sname[64], hname[80];
        int seg;
        if (strcmp(kw, "segments") == 0)
            snprintf(sname, sizeof sname, "%s%d", name, s);
        else
            snprintf(sname, sizeof sname, "%s", name);
        if ((seg = add_node(r, sname, ECOI_TOPO_SEGMENT, parent, v)) < 0)
            return seg;
        for (int h = 1; strcmp(kw, "segments") == 0 && h <= k; h++) {
            snprintf(hname, sizeof hname, "%sh%d", sname, h);
            if ((rc = add_node(r, hname, ECOI_TOPO_HOST, seg, 0)) < 0)
                return rc;
        }
        for (; strcmp(kw, "segment") == 0 && f; f = ecoi_text_field(&cur))
            if ((rc = add_node(r, f, ECOI_TOPO_HOST, seg, 0)) < 0)
                return rc;
    }
    return ECO_OK;
}

int ecoi_topo_read(const char *path, ecoi_topo **out, char *err, size_t errlen)
{
    ecoi_text text;
    reader r = { NULL, 0, 0, 0, path, 0, err, errlen };
    char *line, *kw;
    int rc;

    *out = NULL;
    if ((rc = ecoi_text_load(&text, path, err, errlen)) != ECO_OK)
        return rc;
    if (!(r.t = calloc(1, sizeof *r.t))) {
        ecoi_text_free(&text);
        return ECO_ERR_NOMEM;
    }
    rc = ECO_OK;
    while (rc == ECO_OK && (line = ecoi_text_line(&text))) {
        r.lineno = text.lineno;
        if (!(kw = ecoi_text_field(&line)))
            continue;
        if (strcmp(kw, "group") && strcmp(kw, "segment") && strcmp(kw, "host") &&
            strcmp(kw, "segments"))
            rc = fail(&r, "unknown keyword '%s'", kw);
        else
            rc = read_line(&r, kw, line);
    }
    ecoi_text_free(&text);
    if (rc == ECO_OK && r.t->nhosts == 0) {
        r.lineno = text.lineno;
        rc = fail(&r, "%s", "no hosts");
    }
    if (rc != ECO_OK) {
        ecoi_topo_free(r.t);
        return rc;
    }
    /* Hosts below every node (parents come before their children). */
    for (int i = r.t->nnodes - 1; i >= 0; i--)
        if (r.t->node[i].parent >= 0)
            r.t->node[r.t->node[i].parent].hosts += r.t->node[i].hosts;
    *out = r.t;
    return ECO_OK;
}

void ecoi_topo_free(ecoi_topo *t)
{
    if (!t)
        return;
    free(t->node);
    free(t->host);
    free(t->segment);
    free(t->bucket);
    free(t);
}

/*
 * With one member per host, a link with b hosts beyond it (on the far
 * side from the root) must carry at least: one copy of the message
 * (bcast, reduce, scan), b blocks (gather, scatter), max(b, n-b) blocks
 * in one direction (allgather), b(n-b) blocks (alltoall).  Allreduce:
 * one copy each way, and 2(S-1)/S copies with S the links beside it
 * under the same parent when those all have its rate (reduce-scatter
 * and gather-to-all with them as the nodes: one of them must carry
 * that much).  When they differ, a slower link can be a leaf of a
 * pipeline that carries one copy each way through it and more through
 * the faster ones (slowhosts.topo: 124.6 ms measured where 2(S-1)/S
 * gave 157), so only the one copy is a bound.
 */
double ecoi_topo_link_limit(const ecoi_topo *t, int coll, int root, double bytes)
{
    int n = t->nhosts, *sib = calloc((size_t)t->nnodes + 1, sizeof *sib);
    char *has_root = calloc((size_t)t->nnodes, 1);
    double *same = malloc(((size_t)t->nnodes + 1) * sizeof *same);
    double bits = 8.0 * bytes, worst = 0;

    if (!sib || !has_root || !same || n < 2 || coll == ECOI_C_BARRIER) {
        free(sib);
        free(has_root);
        free(same);
        return -1;
    }
    for (int x = root; x >= 0 && x < t->nnodes; x = t->node[x].parent)
        has_root[x] = 1;
    /* links beside each (sib[parent + 1]: those under the same parent),
     * and their rate when they all have the same (same[parent + 1]; -1
     * when not, -2 before the first) */
    for (int k = 0; k <= t->nnodes; k++)
        same[k] = -2;
    for (int k = 0; k < t->nnodes; k++) {
        int p = t->node[k].parent + 1;
        if (t->node[k].hosts <= 0)
            continue;
        sib[p]++;
        if (same[p] == -2)
            same[p] = t->node[k].rate;
        else if (same[p] != t->node[k].rate)
            same[p] = -1;
    }
    for (int k = 0; k < t->nnodes; k++) {
        const ecoi_topo_node *x = &t->node[k];
        int b = has_root[k] ? n - x->hosts : x->hosts, s = sib[x->parent + 1];
        double blocks;
        if (x->rate <= 0 || b == 0)
            continue;
        switch (coll) {
        case ECOI_C_ALLREDUCE:
            blocks = s > 1 && same[x->parent + 1] >= 0 ? 2.0 * (s - 1) / s : 1;
            break;
        case ECOI_C_GATHER: case ECOI_C_SCATTER: blocks = b; break;
        case ECOI_C_ALLGATHER: blocks = b > n - b ? b : n - b; break;
        case ECOI_C_ALLTOALL: blocks = (double)b * (n - b); break;
        default: blocks = 1; break;
        }
        if (blocks * bits / x->rate > worst)
            worst = blocks * bits / x->rate;
    }
    free(sib);
    free(has_root);
    free(same);
    return worst;
}
