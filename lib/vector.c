/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vector.c -- gather and scatter with a count per member (eco_gatherv,
 * eco_scatterv), and the pieces the other vector forms share.
 *
 * The trees are those of eco_gather and eco_scatter: every subtree is a
 * contiguous run of members in the tree's preorder, and every member
 * sends its parent (or receives from it) its subtree's blocks in one
 * message.  With a count per member, the run of a subtree is the sum of
 * its members' counts, so a member must know them all to size its
 * messages and place its children's runs.  Where every member passes the
 * counts (gather-to-all, reduce-scatter) it computes them itself; in a
 * rooted gather or scatter only the root has them, and a first pass over
 * the same tree carries them (one int per member):
 *
 *     gatherv:  counts up the tree, then the data up the tree;
 *               the root checks the counts against its recvcounts
 *     scatterv: counts down the tree, then the data down the tree;
 *               each member checks its count against its recvcount
 *
 * Members that pass different counts for the same block fail with
 * ECO_ERR_MISMATCH there (and ecoi_end spreads it), as members that
 * disagree on a count do in the other collectives.  The call's signature
 * carries what every member agrees on: for gather-to-all a hash of
 * recvcounts (ecoi_counts_sig); for the rooted forms, where only the root
 * has the counts, 0.
 */
#include <stdlib.h>
#include <string.h>
#include <pvm3.h>
#include "eco_coll.h"

/* The start of member at position i's block in the run of me's subtree. */
#define RUN_AT(run, off, t, me, i, size) \
    ((char *)(run) + ((off)[i] - (off)[(t)->pos[me]]) * (size))

int ecoi_tree_gatherv(eco_ctx *c, const eco_tree *t, int tag, const void *mine,
                      void *run, const size_t *off, int datatype)
{
    const int me = c->rank, pos = t->pos[me], parent = t->parent[me];
    const size_t size = ecoi_type_size(datatype), own = off[pos + 1] - off[pos];
    int rc = ECO_OK;

    if (own && run != mine)          /* else in place */
        memcpy(run, mine, own * size);
    for (int i = t->child_off[me]; i < t->child_off[me + 1] && rc == ECO_OK; i++) {
        int kid = t->child[i], at = t->pos[kid];
        size_t len = off[at + t->subtree[kid]] - off[at];
        if (len)
            rc = c->tp->recv(c->tp, kid, tag, RUN_AT(run, off, t, me, at, size), len,
                             datatype, NULL, 0);
    }
    if (rc == ECO_OK && parent >= 0 && off[pos + t->subtree[me]] > off[pos])
        rc = c->tp->send(c->tp, parent, tag, run, off[pos + t->subtree[me]] - off[pos],
                         datatype);
    return rc;
}

int ecoi_tree_scatterv(eco_ctx *c, const eco_tree *t, int tag, void *run,
                       const size_t *off, int datatype)
{
    const int me = c->rank, pos = t->pos[me], parent = t->parent[me];
    const size_t size = ecoi_type_size(datatype);
    int rc = ECO_OK;

    if (parent >= 0 && off[pos + t->subtree[me]] > off[pos])
        rc = c->tp->recv(c->tp, parent, tag, run, off[pos + t->subtree[me]] - off[pos],
                         datatype, NULL, 0);
    for (int i = t->child_off[me]; i < t->child_off[me + 1] && rc == ECO_OK; i++) {
        int kid = t->child[i], at = t->pos[kid];
        size_t len = off[at + t->subtree[kid]] - off[at];
        if (len)
            rc = c->tp->send(c->tp, kid, tag, RUN_AT(run, off, t, me, at, size), len,
                             datatype);
    }
    return rc;
}

void ecoi_preorder_offsets(const eco_tree *t, const int *counts, size_t *off)
{
    off[0] = 0;
    for (int i = 0; i < t->n; i++)
        off[i + 1] = off[i] + (counts ? (size_t)counts[t->order[i]] : 1);
}

__thread int ecoi_fail_block_alloc;

/* A byte range [start, end). */
typedef struct span {
    uintptr_t start, end;
} span;

static int by_start(const void *a, const void *b)
{
    const span *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* The non-empty blocks of a layout appended to sp (bytes from buf). */
static size_t add_spans(span *sp, size_t k, int n, const int *counts, const int *displs,
                        const void *buf, size_t size)
{
    for (int q = 0; q < n; q++)
        if (counts[q] > 0) {
            sp[k].start = (uintptr_t)buf + (uintptr_t)displs[q] * size;
            sp[k].end = sp[k].start + (uintptr_t)counts[q] * size;
            k++;
        }
    return k;
}

/* 1 when two of the k spans share a byte: sorted by start, one begins
 * before the spans ahead of it have all ended.  O(k log k). */
static int spans_meet(span *sp, size_t k)
{
    uintptr_t end = 0;

    qsort(sp, k, sizeof *sp, by_start);
    for (size_t i = 0; i < k; i++) {
        if (i > 0 && sp[i].start < end)
            return 1;
        end = sp[i].end > end ? sp[i].end : end;
    }
    return 0;
}

/* Room for the spans of nlay layouts of n blocks; NULL when out of
 * memory (or made to fail, ecoi_fail_block_alloc). */
static span *spans_alloc(int n, int nlay)
{
    if (ecoi_fail_block_alloc) {
        ecoi_fail_block_alloc = 0;
        return NULL;
    }
    return malloc((size_t)nlay * (size_t)n * sizeof(span) + 1);
}

/* The argument checks of one layout, without the overlap. */
static int check_layout(int n, const int *counts, const int *displs, const void *buf,
                        size_t *total)
{
    *total = 0;
    if (!counts || !displs)
        return ECO_ERR_ARG;
    for (int q = 0; q < n; q++) {
        if (counts[q] < 0 || displs[q] < 0)
            return ECO_ERR_ARG;
        *total += (size_t)counts[q];
    }
    return *total && !buf ? ECO_ERR_ARG : ECO_OK;
}

int ecoi_check_blocks(int n, const int *counts, const int *displs, const void *buf,
                      size_t *total)
{
    span *sp;
    int rc = check_layout(n, counts, displs, buf, total);

    if (rc != ECO_OK)
        return rc;
    /* no two non-empty blocks share an element (in elements: from 0,
     * size 1) */
    if (!(sp = spans_alloc(n, 1)))
        return ECO_ERR_NOMEM;
    rc = spans_meet(sp, add_spans(sp, 0, n, counts, displs, NULL, 1)) ? ECO_ERR_ARG : ECO_OK;
    free(sp);
    return rc;
}

int ecoi_check_two_layouts(int n, const int *scounts, const int *sdispls, const void *sbuf,
                           size_t *stotal, const int *rcounts, const int *rdispls,
                           const void *rbuf, size_t *rtotal, size_t size)
{
    span *sp;
    size_t k;
    int rc = check_layout(n, rcounts, rdispls, rbuf, rtotal);

    if (rc == ECO_OK)
        rc = check_layout(n, scounts, sdispls, sbuf, stotal);
    if (rc != ECO_OK)
        return rc;
    /* Each layout's blocks apart, and apart from the other's: in bytes,
     * all of them at once (the blocks of the two are in different
     * buffers, or in one) */
    if (!(sp = spans_alloc(n, 2)))
        return ECO_ERR_NOMEM;
    k = add_spans(sp, 0, n, rcounts, rdispls, rbuf, size);
    k = add_spans(sp, k, n, scounts, sdispls, sbuf, size);
    rc = spans_meet(sp, k) ? ECO_ERR_ARG : ECO_OK;
    free(sp);
    return rc;
}

int ecoi_overlap_blocks(int n, const int *counts, const int *displs, size_t size,
                        const void *buf, const void *p, size_t len)
{
    for (int q = 0; q < n; q++)
        if (ecoi_overlap((const char *)buf + (size_t)displs[q] * size,
                         (size_t)counts[q] * size, p, len))
            return 1;
    return 0;
}

int ecoi_counts_sig(int n, const int *counts)
{
    unsigned h = 2166136261u;       /* FNV-1a over the counts' values */

    for (int q = 0; q < n; q++)
        for (int b = 0; b < 32; b += 8)
            h = (h ^ (((unsigned)counts[q] >> b) & 0xffu)) * 16777619u;
    return (int)(h & 0x7fffffffu);
}

/* ------------------------------------------------------------------ */
/* eco_gatherv                                                         */
/* ------------------------------------------------------------------ */

/*
 * The counts pass of a rooted gatherv (up: each member's count, mine) or
 * scatterv (down: the root's counts by rank) over t: *cnt gets the
 * counts of this member's subtree in preorder (position i's at
 * i - pos), *off the offsets of their blocks (n + 1 entries, significant
 * over the subtree); *cnt and *off to be freed, even on error.
 */
static int counts_pass(eco_ctx *c, const eco_tree *t, int up, int mine, const int *counts,
                       int **cnt, size_t **off)
{
    const int n = c->n, me = c->rank, pos = t->pos[me], sub = t->subtree[me];
    const int tag = ecoi_next_tag(c);
    size_t *uoff = malloc(((size_t)n + 1) * sizeof *uoff);
    int rc = ECO_OK;

    *off = malloc(((size_t)n + 1) * sizeof **off);
    *cnt = malloc((size_t)sub * sizeof **cnt);
    if (!uoff || !*off || !*cnt) {
        free(uoff);
        return ECO_ERR_NOMEM;
    }
    ecoi_preorder_offsets(t, NULL, uoff);     /* an int per member */
    if (up) {
        rc = ecoi_tree_gatherv(c, t, tag, &mine, *cnt, uoff, PVM_INT);
    } else {
        for (int i = 0; i < n && t->parent[me] < 0; i++)
            (*cnt)[i] = counts[t->order[i]];
        rc = ecoi_tree_scatterv(c, t, tag, *cnt, uoff, PVM_INT);
    }
    free(uoff);
    (*off)[pos] = 0;
    for (int i = pos; i < pos + sub && rc == ECO_OK; i++)
        (*off)[i + 1] = (*off)[i] + (size_t)(*cnt)[i - pos];
    return rc;
}

/* Rooted: the counts up t, then the data; the root unpacks by displs. */
static int gatherv_rooted(eco_ctx *c, const eco_tree *t, const void *sendbuf, int sendcount,
                          void *recvbuf, const int *recvcounts, const int *displs,
                          int datatype)
{
    const int n = c->n, me = c->rank, pos = t->pos[me], sub = t->subtree[me];
    const size_t size = ecoi_type_size(datatype);
    size_t *off = NULL;
    int *cnt = NULL, rc = counts_pass(c, t, 1, sendcount, NULL, &cnt, &off);
    const int tag = ecoi_next_tag(c);
    char *run = NULL;

    for (int i = 0; i < n && rc == ECO_OK && t->parent[me] < 0; i++)
        if (cnt[i] != recvcounts[t->order[i]])
            rc = ECO_ERR_MISMATCH;      /* a member sent another count */
    if (rc == ECO_OK && !(run = malloc(off[pos + sub] * size + 1)))
        rc = ECO_ERR_NOMEM;
    if (rc == ECO_OK)
        rc = ecoi_tree_gatherv(c, t, tag, sendbuf, run, off, datatype);
    for (int i = 0; i < n && rc == ECO_OK && t->parent[me] < 0; i++) {
        char *to = (char *)recvbuf + (size_t)displs[t->order[i]] * size;
        if (cnt[i] && (i > 0 || to != sendbuf))  /* the root's own block, in place */
            memcpy(to, run + off[i] * size, (size_t)cnt[i] * size);
    }
    free(off);
    free(cnt);
    free(run);
    return rc;
}

/* To all: gathered at rank 0 in t's preorder, broadcast, unpacked. */
static int gatherv_bcast(eco_ctx *c, const eco_tree *t, const void *sendbuf, void *recvbuf,
                         const int *recvcounts, const int *displs, int datatype)
{
    const int n = c->n;
    const size_t size = ecoi_type_size(datatype);
    size_t *off = malloc(((size_t)n + 1) * sizeof *off);
    char *all = NULL;
    int rc = ECO_OK;

    if (off)
        ecoi_preorder_offsets(t, recvcounts, off);
    if (!off || !(all = malloc(off[n] * size + 1))) {
        free(off);
        return ECO_ERR_NOMEM;
    }
    rc = ecoi_tree_gatherv(c, t, ecoi_next_tag(c), sendbuf, all + off[t->pos[c->rank]] * size,
                           off, datatype);
    if (rc == ECO_OK)
        rc = ecoi_bcast_from0(c, all, off[n], datatype);
    for (int i = 0; i < n && rc == ECO_OK; i++) {
        int q = t->order[i];
        char *to = (char *)recvbuf + (size_t)displs[q] * size;
        if (recvcounts[q] && (q != c->rank || to != sendbuf))   /* in place */
            memcpy(to, all + off[i] * size, (size_t)recvcounts[q] * size);
    }
    free(off);
    free(all);
    return rc;
}

int eco_gatherv(eco_ctx *ctx, const void *sendbuf, int sendcount, void *recvbuf,
                const int *recvcounts, const int *displs, int datatype, int root)
{
    const eco_tree *t = NULL;
    ecoi_plan plan;
    /* in place, sendcount is ignored */
    int rc = ecoi_check_rooted(ctx, sendbuf, sendbuf == ECO_IN_PLACE ? 0 : sendcount,
                               datatype, root, 1), gets;
    size_t size, total = 0;

    if (rc != ECO_OK)
        return rc;
    gets = root == ECO_ALL || root == ctx->rank;
    size = ecoi_type_size(datatype);
    if (recvbuf == ECO_IN_PLACE)
        return ECO_ERR_ARG;
    if (gets && (rc = ecoi_check_blocks(ctx->n, recvcounts, displs, recvbuf, &total)) != ECO_OK)
        return rc == ECO_ERR_NOMEM
               ? ecoi_fail_call(ctx, ECOI_KIND_GATHERV,
                                root == ECO_ALL ? ecoi_counts_sig(ctx->n, recvcounts) : 0,
                                datatype, NULL, root, rc)
               : rc;
    if (sendbuf == ECO_IN_PLACE) {    /* this member's block is in recvbuf */
        if (!gets)
            return ECO_ERR_ARG;
        sendcount = recvcounts[ctx->rank];
        sendbuf = (char *)recvbuf + (size_t)displs[ctx->rank] * size;
    } else if (gets && (sendcount != recvcounts[ctx->rank] ||
                        ecoi_overlap_blocks(ctx->n, recvcounts, displs, size, recvbuf,
                                            sendbuf, (size_t)sendcount * size))) {
        return ECO_ERR_ARG;
    }
    rc = ecoi_begin(ctx, ECOI_KIND_GATHERV,
                    root == ECO_ALL ? ecoi_counts_sig(ctx->n, recvcounts) : 0,
                    datatype, NULL, root);
    if (rc != ECO_OK)
        return rc;
    if (root == ECO_ALL) {
        if (total == 0)
            return ecoi_end(ctx, ecoi_empty(ctx));
        rc = ecoi_select(ctx, ECOI_C_ALLGATHERV, 0, total * size / (size_t)ctx->n, &plan);
        if (rc == ECO_OK && plan.run == ECOI_RUN_RING)
            return ecoi_end(ctx, ecoi_ring_allgather(ctx, sendbuf, recvbuf, recvcounts,
                                                     displs, 0, datatype));
        if (rc == ECO_OK)
            rc = ecoi_ctx_shape(ctx, 0, plan.shape, &t);
        if (rc == ECO_OK)
            rc = gatherv_bcast(ctx, t, sendbuf, recvbuf, recvcounts, displs, datatype);
        return ecoi_end(ctx, rc);
    }
    /* Only the root knows the sizes: the choice is the same for all. */
    rc = ecoi_select(ctx, ECOI_C_GATHERV, root, 0, &plan);
    if (rc == ECO_OK)
        rc = ecoi_ctx_shape(ctx, root, plan.shape, &t);
    if (rc == ECO_OK)
        rc = gatherv_rooted(ctx, t, sendbuf, sendcount, recvbuf, recvcounts, displs,
                            datatype);
    return ecoi_end(ctx, rc);
}

/* ------------------------------------------------------------------ */
/* eco_scatterv                                                        */
/* ------------------------------------------------------------------ */

/* The counts down t, then the data; each member keeps its block.  At the
 * root, sendcounts and displs lay out sendbuf; recvbuf NULL: in place. */
static int scatterv_run(eco_ctx *c, const eco_tree *t, const void *sendbuf,
                        const int *sendcounts, const int *displs, void *recvbuf,
                        int recvcount, int datatype)
{
    const int n = c->n, me = c->rank, pos = t->pos[me], sub = t->subtree[me];
    const size_t size = ecoi_type_size(datatype);
    size_t *off = NULL;
    int *cnt = NULL, rc = counts_pass(c, t, 0, 0, sendcounts, &cnt, &off);
    const int tag = ecoi_next_tag(c);
    char *run = NULL;

    if (rc == ECO_OK && t->parent[me] >= 0 && cnt[0] != recvcount)
        rc = ECO_ERR_MISMATCH;          /* the root sends another count */
    if (rc == ECO_OK && !(run = malloc(off[pos + sub] * size + 1)))
        rc = ECO_ERR_NOMEM;
    for (int i = 0; i < n && rc == ECO_OK && t->parent[me] < 0; i++)
        if (cnt[i])
            memcpy(run + off[i] * size,
                   (const char *)sendbuf + (size_t)displs[t->order[i]] * size,
                   (size_t)cnt[i] * size);
    if (rc == ECO_OK)
        rc = ecoi_tree_scatterv(c, t, tag, run, off, datatype);
    if (rc == ECO_OK && recvbuf && cnt[0])
        memcpy(recvbuf, run, (size_t)cnt[0] * size);
    free(off);
    free(cnt);
    free(run);
    return rc;
}

int eco_scatterv(eco_ctx *ctx, const void *sendbuf, const int *sendcounts,
                 const int *displs, void *recvbuf, int recvcount, int datatype, int root)
{
    const eco_tree *t = NULL;
    ecoi_plan plan;
    int rc = ecoi_check_rooted(ctx, recvbuf, recvcount, datatype, root, 0);
    size_t size, total = 0;

    if (rc != ECO_OK)
        return rc;
    size = ecoi_type_size(datatype);
    if (root != ctx->rank)
        sendbuf = NULL;                   /* not significant there */
    if (sendbuf == ECO_IN_PLACE)
        return ECO_ERR_ARG;
    if (root == ctx->rank && (rc = ecoi_check_blocks(ctx->n, sendcounts, displs, sendbuf,
                                                     &total)) != ECO_OK)
        return rc == ECO_ERR_NOMEM
               ? ecoi_fail_call(ctx, ECOI_KIND_SCATTERV, 0, datatype, NULL, root, rc)
               : rc;
    if (recvbuf == ECO_IN_PLACE) {        /* the root's block stays in sendbuf */
        if (root != ctx->rank)
            return ECO_ERR_ARG;
        recvbuf = NULL;
    } else if (root == ctx->rank &&
               (recvcount != sendcounts[root] ||
                ecoi_overlap_blocks(ctx->n, sendcounts, displs, size, sendbuf, recvbuf,
                                    (size_t)recvcount * size))) {
        return ECO_ERR_ARG;
    }
    if ((rc = ecoi_begin(ctx, ECOI_KIND_SCATTERV, 0, datatype, NULL, root)) != ECO_OK)
        return rc;
    /* Only the root knows the sizes: the choice is the same for all. */
    rc = ecoi_select(ctx, ECOI_C_SCATTERV, root, 0, &plan);
    if (rc == ECO_OK)
        rc = ecoi_ctx_shape(ctx, root, plan.shape, &t);
    if (rc == ECO_OK)
        rc = scatterv_run(ctx, t, sendbuf, sendcounts, displs, recvbuf, recvcount, datatype);
    return ecoi_end(ctx, rc);
}
