/*
 * ctx.c -- the context every collective runs in: members, the agreed map,
 * per-root trees built on first use, the transport, and the error state.
 */
#include <stdlib.h>
#include <string.h>
#include "eco_coll.h"

/* Segments between these bounds, about an eighth of the message: enough
 * segments to pipeline across a few subnet hops, few enough that PVM's
 * per-message cost stays small. */
#define ECOI_SEGMENT_MIN 4096
#define ECOI_SEGMENT_MAX 65536
#define ECOI_DEFAULT_LARGE 512

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

long ecoi_large_from_env(void)
{
    return env_bytes("ECO_CHAIN_BYTES", ECOI_DEFAULT_LARGE);
}

size_t ecoi_segment_for(const eco_ctx *c, size_t bytes)
{
    size_t seg = bytes / 8;

    if (!c->segment_auto)
        return c->segment;
    return seg < ECOI_SEGMENT_MIN ? ECOI_SEGMENT_MIN
         : seg > ECOI_SEGMENT_MAX ? ECOI_SEGMENT_MAX : seg;
}

size_t ecoi_segment_elems(const eco_ctx *c, size_t count, size_t size)
{
    size_t seg = ecoi_segment_for(c, count * size), e;

    if (seg == 0 || count == 0)
        return count ? count : 1;
    e = seg / size;
    return e == 0 ? 1 : e > count ? count : e;
}

int ecoi_ctx_create(int n, int rank, eco_map *map, const int *member_host,
                    ecoi_transport *tp, eco_ctx **out)
{
    eco_ctx *c;

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
    c->large = (size_t)ecoi_large_from_env();
    c->member_host = malloc((size_t)n * sizeof *c->member_host);
    for (int v = 0; v < 6; v++)
        c->shapes[v] = calloc((size_t)n, sizeof *c->shapes[v]);
    for (int v = 0; v < 6; v++)
        if (!c->shapes[v] || !c->member_host) {
            for (int w = 0; w < 6; w++)
                free(c->shapes[w]);
            free(c->member_host);
            free(c);
            return ECO_ERR_NOMEM;
        }
    memcpy(c->member_host, member_host, (size_t)n * sizeof *member_host);
    *out = c;
    return ECO_OK;
}

void ecoi_ctx_destroy(eco_ctx *c)
{
    if (!c)
        return;
    for (int v = 0; v < 6; v++) {
        for (int r = 0; r < c->n; r++)
            eco_tree_free(&c->shapes[v][r]);
        free(c->shapes[v]);
    }
    free(c->member_host);
    free(c->ring);
    eco_map_free(c->map);
    if (c->tp)
        c->tp->destroy(c->tp);
    free(c);
}

int ecoi_ctx_shape(eco_ctx *c, int root, int chain, int kmode, const eco_tree **tree)
{
    int v = c->pattern_k ? 0 : chain * 3 + kmode;
    eco_tree **slot = &c->shapes[v][root];

    if (!*slot) {
        int rc = c->pattern_k
            ? ecoi_tree_kary(c->n, root, c->pattern_k, slot)
            : ecoi_tree_build_shape(c->map, c->n, c->member_host, root, chain, kmode, slot);
        if (rc != ECO_OK)
            return rc;
    }
    *tree = *slot;
    return ECO_OK;
}

int ecoi_ctx_tree(eco_ctx *c, int root, const eco_tree **tree)
{
    return ecoi_ctx_shape(c, root, 0, ECOI_K_FILE, tree);
}

int ecoi_ctx_tree_for(eco_ctx *c, int root, size_t bytes, const eco_tree **tree)
{
    int chain = c->large && bytes >= c->large && c->map && c->map->nsubnets >= 3;

    return ecoi_ctx_shape(c, root, chain,
                          bytes < ECOI_SMALL_BYTES ? ECOI_K_ATLEAST2 : ECOI_K_FILE, tree);
}

int ecoi_ctx_tree_flat(eco_ctx *c, int root, const eco_tree **tree)
{
    return ecoi_ctx_shape(c, root, 0, ECOI_K_FLAT, tree);
}

int ecoi_ctx_ring(eco_ctx *c, const int **ring)
{
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

    if (c->broken)
        return c->broken;
    c->seq = c->calls++ * ECOI_CALL_TAGS;
    c->tp->sig = sig;
    c->tp->call_tag = ECOI_TAG_BASE | (int)(c->seq & ECOI_TAG_MASK);
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

int ecoi_end(eco_ctx *c, int status)
{
    /* Arguments are checked before ecoi_begin: an error here happened
     * mid-collective, and peers may be waiting on this member.  Every
     * later call returns the same error. */
    if (status != ECO_OK && !c->broken) {
        c->broken = status;
        abort_all(c, status);
    }
    c->tp->leave(c->tp);
    return status;
}

int eco_set_pattern(eco_ctx *ctx, const char *name)
{
    static const struct { const char *name; int k; } patterns[] = {
        { "eco", 0 }, { "star", -1 }, { "binary", 2 }, { "kary3", 3 }, { "chain", 1 },
    };
    int k = -2;

    if (!ctx || !name)
        return ECO_ERR_ARG;
    for (size_t i = 0; i < sizeof patterns / sizeof patterns[0]; i++)
        if (strcmp(name, patterns[i].name) == 0)
            k = patterns[i].k;
    if (k == -2)
        return ECO_ERR_ARG;
    if (k == -1)                      /* star: the root sends to everybody */
        k = ctx->n > 1 ? ctx->n - 1 : 1;
    if (k != ctx->pattern_k)
        for (int v = 0; v < 6; v++)
            for (int r = 0; r < ctx->n; r++)
                eco_tree_free(&ctx->shapes[v][r]);
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
    ecoi_ctx_destroy(ctx);
    return ECO_OK;
}
