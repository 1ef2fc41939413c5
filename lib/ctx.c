/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ctx.c -- the context every collective runs in: members, the agreed map,
 * per-root trees built on first use, the transport, and the error state.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "eco_coll.h"

static long env_bytes(const char *name, long dflt)
{
    const char *s = getenv(name);
    char *end;
    long v;

    if (!s || !*s)
        return dflt;
    v = strtol(s, &end, 10);
    if (*end || v < 0)
        return dflt;
    return v > (1L << 30) ? 1L << 30 : v;
}

long ecoi_segment_from_env(void)
{
    return env_bytes("ECO_SEGMENT_SIZE", -1);
}

/*
 * The trees built, most recently used first, at most ECOI_TREES of them
 * besides those handed out during the current call.  A tree is O(n): a
 * cache of every root's tree would be O(n^2) per member (10,000 members:
 * 3 GB each) once many roots are used, where programs mostly use one or
 * two.  A collective holds the trees it was given (a gather to all: the
 * gather's, then the broadcast's; select.c's predictions: one per
 * candidate) until it returns, so a tree handed out since the call began
 * (ecoi_begin counts calls) is never evicted: the cache then holds more
 * for a while, and the next call trims it.
 */
#define ECOI_TREES 8

struct ecoi_shape_cache {
    ecoi_shape shape;
    int root;
    int pattern_k;      /* the pattern it was built for (0: ECO's) */
    unsigned call;      /* c->calls when last handed out */
    eco_tree *tree;
    struct ecoi_shape_cache *next;
};

static void shapes_free(eco_ctx *c)
{
    while (c->shapes) {
        struct ecoi_shape_cache *s = c->shapes;
        c->shapes = s->next;
        eco_tree_free(&s->tree);
        free(s);
    }
}

/* Evict the least recently used trees beyond ECOI_TREES that were not
 * handed out during this call.  A context that others share (eco-sim's)
 * makes no calls itself, so every tree of it counts as handed out in the
 * current call and stays: its members interleave inside their calls. */
static void shapes_trim(eco_ctx *c)
{
    struct ecoi_shape_cache **p = &c->shapes;
    int kept = 0;

    while (*p) {
        struct ecoi_shape_cache *s = *p;
        if (kept < ECOI_TREES || s->call == c->calls) {
            kept++;
            p = &s->next;
            continue;
        }
        *p = s->next;
        eco_tree_free(&s->tree);
        free(s);
    }
}

int ecoi_ctx_trees(const eco_ctx *c)
{
    int count = 0;

    for (const struct ecoi_shape_cache *s = c->shapes; s; s = s->next)
        count++;
    return count;
}

static void plans_free(ecoi_plan **table)
{
    for (int k = 0; k < ECOI_NCOLL; k++) {
        free(table[k]);
        table[k] = NULL;
    }
}

/* Forget every choice made (a forced algorithm changed). */
static void plans_reset(eco_ctx *c)
{
    plans_free(c->plans);
    plans_free(c->pattern_plans);
}

/* A collective's table is 40 plans (1.9 KB): made when the collective is
 * first called, so that a context pays for the collectives it uses, and a
 * shared context (eco-sim's members: 10,000 of them) for none. */
ecoi_plan *ecoi_ctx_plan_slot(eco_ctx *c, int coll, int z)
{
    ecoi_plan **table;

    if (c->share || coll < 0 || coll >= ECOI_NCOLL || z < 0 || z >= ECOI_SIZE_CLASSES)
        return NULL;
    table = c->pattern_k ? c->pattern_plans : c->plans;
    if (!table[coll]) {
        ecoi_plan *t = malloc(ECOI_SIZE_CLASSES * sizeof *t);
        if (!t)
            return NULL;
        for (int i = 0; i < ECOI_SIZE_CLASSES; i++)
            t[i].algorithm = -1;
        table[coll] = t;
    }
    return &table[coll][z];
}

int ecoi_ctx_create(int n, int rank, eco_map *map, const int *member_host,
                    ecoi_transport *tp, eco_ctx **out)
{
    eco_ctx *c;
    const char *spec = getenv("ECO_ALGORITHM");

    if (n < 1 || rank < 0 || rank >= n || !member_host || !tp || !out)
        return ECO_ERR_ARG;
    c = calloc(1, sizeof *c);
    if (!c)
        return ECO_ERR_NOMEM;
    c->n = n;
    c->rank = rank;
    c->map = map;
    c->tp = tp;
    c->segment_auto = ecoi_segment_from_env() < 0;
    c->segment = c->segment_auto ? 0 : (size_t)ecoi_segment_from_env();
    /* A bad $ECO_ALGORITHM is eco_init's error (init.c); here it forces
     * nothing. */
    if (ecoi_parse_forced(spec, c->forced, NULL, 0) != ECO_OK)
        ecoi_parse_forced(NULL, c->forced, NULL, 0);
    c->member_host = malloc((size_t)n * sizeof *c->member_host);
    if (!c->member_host) {
        free(c);
        return ECO_ERR_NOMEM;
    }
    memcpy(c->member_host, member_host, (size_t)n * sizeof *member_host);
    *out = c;
    return ECO_OK;
}

int ecoi_ctx_create_shared(eco_ctx *share, int rank, ecoi_transport *tp, eco_ctx **out)
{
    int rc;

    if (!share || share->share || rank < 0 || rank >= share->n)
        return ECO_ERR_ARG;
    /* made with a member list of one, then given share's */
    if ((rc = ecoi_ctx_create(1, 0, share->map, &rank, tp, out)) != ECO_OK)
        return rc;
    free((*out)->member_host);
    (*out)->n = share->n;
    (*out)->rank = rank;
    (*out)->member_host = share->member_host;
    (*out)->share = share;
    return ECO_OK;
}

void ecoi_ctx_destroy(eco_ctx *c)
{
    if (!c)
        return;
    if (c->share) {          /* borrowed */
        c->map = NULL;
        c->member_host = NULL;
    }
    shapes_free(c);
    plans_reset(c);
    free(c->member_host);
    for (int l = 0; l < ECOI_LEVELS; l++)
        free(c->groups[l]);
    ecoi_model_free(c->dflt_model);
    free(c->ring);
    eco_map_free(c->map);
    if (c->tp)
        c->tp->destroy(c->tp);
    free(c);
}

int ecoi_ctx_shape(eco_ctx *c, int root, ecoi_shape shape, const eco_tree **tree)
{
    struct ecoi_shape_cache **p, *s;

    if (c->share)
        return ecoi_ctx_shape(c->share, root, shape, tree);
    if (c->pattern_k)   /* one k-ary tree whatever the shape */
        shape = (ecoi_shape){ 0, 0, 0 };
    for (p = &c->shapes; *p; p = &(*p)->next)
        if ((*p)->root == root && (*p)->pattern_k == c->pattern_k &&
            ecoi_shape_equal((*p)->shape, shape))
            break;
    if ((s = *p) != NULL) {
        *p = s->next;   /* to the front: the most recently used */
    } else {
        int rc;
        if (!(s = calloc(1, sizeof *s)))
            return ECO_ERR_NOMEM;
        rc = c->pattern_k
            ? ecoi_tree_kary(c->n, root, c->pattern_k, &s->tree)
            : ecoi_tree_build_shape(c->map, c->n, c->member_host, root, shape, &s->tree);
        if (rc != ECO_OK) {
            free(s);
            return rc;
        }
        s->shape = shape;
        s->root = root;
        s->pattern_k = c->pattern_k;
    }
    s->call = c->calls;
    s->next = c->shapes;
    c->shapes = s;
    shapes_trim(c);
    *tree = s->tree;
    return ECO_OK;
}

int ecoi_ctx_ring(eco_ctx *c, const int **ring)
{
    if (c->share)
        return ecoi_ctx_ring(c->share, ring);
    if (!c->ring) {
        int rc, *r = malloc((size_t)c->n * sizeof *r);
        if (!r)
            return ECO_ERR_NOMEM;
        if ((rc = eco_ring(c, r)) != ECO_OK) {
            free(r);
            return rc;
        }
        c->ring = r;
    }
    *ring = c->ring;
    return ECO_OK;
}

/*
 * A member that gave up makes everyone fail at once.  An exit alone fails
 * nothing here: the member that exited may have made every collective it
 * had to, however far this member lags behind (a leaf that sent its part
 * of a reduce and left).  A member that still needs it fails in the
 * transport, waiting on it or sending to it, and its abort notice then
 * reaches the others.
 */
int ecoi_begin(eco_ctx *c, int kind, int count, int datatype, eco_op op, int root)
{
    int rc;
    const ecoi_sig sig = { kind, root, count, datatype, ecoi_op_id(op) };

    /* after the calls started before it (nonblocking ones) */
    if (c->queue)
        ecoi_ctx_drain(c);
    if (c->broken)
        return c->broken;
    c->seq = c->calls++ * ECOI_CALL_TAGS;
    c->tp->sig = sig;
    c->tp->call_tag = ECOI_TAG_BASE | (int)(c->seq & ECOI_TAG_MASK);
    c->tp->active = 1;
    c->tp->enter(c->tp);
    if ((rc = c->tp->poll(c->tp)) != ECO_OK)
        return ecoi_end(c, rc);
    return ECO_OK;
}

/* Tell every other member that this context is broken here, and why.
 * Whoever waits on this member, now or in a later collective, then fails
 * too. */
static void abort_all(eco_ctx *c, int status)
{
    int *all = malloc((size_t)c->n * sizeof *all), np = 0;

    if (!all)
        return;
    for (int r = 0; r < c->n; r++)
        if (r != c->rank)
            all[np++] = r;
    c->tp->abort(c->tp, all, np, status);
    free(all);
}

void ecoi_ctx_fail(eco_ctx *c, int status)
{
    /* Arguments are checked before a call starts: an error here happened
     * mid-collective, and peers may be waiting on this member.  Every
     * later call returns the same error. */
    if (status != ECO_OK && !c->broken) {
        c->broken = status;
        abort_all(c, status);
    }
}

int ecoi_end(eco_ctx *c, int status)
{
    if (status == ECO_OK && c->tp->active && c->tp->finish)
        status = c->tp->finish(c->tp);
    ecoi_ctx_fail(c, status);
    c->tp->active = 0;
    c->tp->leave(c->tp);
    return status;
}

__thread unsigned ecoi_fail_call_pause;

int ecoi_fail_call(eco_ctx *c, int kind, int count, int datatype, eco_op op, int root,
                   int status)
{
    int rc = ecoi_begin(c, kind, count, datatype, op, root);

    if (ecoi_fail_call_pause && rc == ECO_OK) {
        struct timespec ts = { ecoi_fail_call_pause / 1000000,
                               (long)(ecoi_fail_call_pause % 1000000) * 1000 };
        nanosleep(&ts, NULL);
    }

    return rc != ECO_OK ? rc : ecoi_end(c, status);
}

int eco_set_pattern(eco_ctx *ctx, const char *name)
{
    static const struct { const char *name; int k; } patterns[] = {
        { "eco", 0 }, { "star", -1 }, { "binary", 2 }, { "kary3", 3 }, { "chain", 1 },
    };
    int k = -2;

    if (!ctx || !name)
        return ECO_ERR_ARG;
    /* OP=ALGORITHM[,OP=ALGORITHM...]: force algorithms by name. */
    if (strchr(name, '=')) {
        int forced[ECOI_NCOLL];
        if (ecoi_parse_forced(name, forced, NULL, 0) != ECO_OK)
            return ECO_ERR_ARG;
        for (int op = 0; op < ECOI_NCOLL; op++)
            if (forced[op] >= 0)
                ctx->forced[op] = forced[op];
        plans_reset(ctx);
        return ECO_OK;
    }
    for (size_t i = 0; i < sizeof patterns / sizeof patterns[0]; i++)
        if (strcmp(name, patterns[i].name) == 0)
            k = patterns[i].k;
    if (k == -2)
        return ECO_ERR_ARG;
    if (k == -1)                      /* star: the root sends to everybody */
        k = ctx->n > 1 ? ctx->n - 1 : 1;
    /* ECO's trees and choices stay (the cache keeps the last few trees
     * of either, ecoi_ctx_shape): eco-bench takes turns between patterns
     * iteration by iteration, and eco's turns paid for choosing again,
     * 0.1 ms of a broadcast of 1,000 bytes on switched8.topo.  Another
     * pattern's choices are another tree's. */
    if (k != ctx->pattern_k)
        plans_free(ctx->pattern_plans);
    ctx->pattern_k = k;
    return ECO_OK;
}

int eco_rank(const eco_ctx *ctx)
{
    return ctx ? ctx->rank : ECO_ERR_ARG;
}

int eco_size(const eco_ctx *ctx)
{
    return ctx ? ctx->n : ECO_ERR_ARG;
}

int eco_finalize(eco_ctx *ctx)
{
    if (!ctx)
        return ECO_ERR_ARG;
    ecoi_ctx_drain(ctx);     /* the calls still under way finish first */
    ecoi_ctx_destroy(ctx);
    return ECO_OK;
}
