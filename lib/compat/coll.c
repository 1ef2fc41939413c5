/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * coll.c -- pvm_barrier, pvm_reduce, pvm_gather and pvm_scatter over the
 * group's eco context.
 *
 * Every member calls these, so every member can take part in a tree.  The
 * choice between ECO's tree and PVM's own implementation must be the same
 * in all members, so it depends only on what all of them see alike: the
 * group's member list (asked of the group server at every call), the
 * count, datatype, root and function.  Calls PVM would refuse (bad count
 * or datatype, a root or caller not in the group, a PVM gather or scatter
 * over a group with holes in its instance numbers) go to PVM's own
 * implementation, which returns its own error.
 *
 * Results are those of PVM: gather and scatter in instance order, reduce
 * at the root only (the other members' data is left as it was, which PVM
 * allows: "not defined").  The tree combines partial results in its own
 * order, so the function must be associative and commutative, as PVM's
 * own implementation (which combines per host, in arrival order) needs.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ecopvm.h"

#define TREE "eco tree"
#define FALLBACK "pvm fallback"

/* What a call knows about its group. */
typedef struct view {
    int n;
    int *tids;   /* members, instance order (holes squeezed out) */
    int me;      /* the caller's index, -1 when not a member */
    int root;    /* the root's index, -1 when not a member */
} view;

static int index_of(int n, const int *tids, int tid)
{
    for (int i = 0; i < n; i++)
        if (tids[i] == tid)
            return i;
    return -1;
}

/*
 * The member list.  contiguous: instance numbers must be 0..n-1 (PVM's
 * gather and scatter need that); else holes are allowed and the root's
 * instance is looked up.  root < 0: no root.
 */
static int get_view(const char *group, int root, int contiguous, view *v)
{
    int rc = ecopvm_tidlist(group, 1, &v->n, &v->tids);

    if (rc == PvmNoInst && !contiguous) {
        rc = ecopvm_tidlist(group, 0, &v->n, &v->tids);
        if (rc == PvmOk && root >= 0) {
            int rtid = pvm_gettid((char *)group, root);
            v->root = rtid > 0 ? index_of(v->n, v->tids, rtid) : -1;
        }
    } else if (rc == PvmOk) {
        v->root = root >= 0 && root < v->n ? root : -1;
    }
    if (rc != PvmOk)
        return rc;
    v->me = index_of(v->n, v->tids, pvm_mytid());
    return PvmOk;
}

/* PVM's datatypes that its reduce, gather and scatter carry, less
 * PVM_STR (strings), which the layer leaves to PVM. */
static int pvm_datatype(int datatype)
{
    switch (datatype) {
    case PVM_BYTE: case PVM_SHORT: case PVM_INT: case PVM_FLOAT:
    case PVM_CPLX: case PVM_DOUBLE: case PVM_DCPLX: case PVM_LONG:
        return 1;
    default:
        return 0;
    }
}

/* The PVM error code of an eco status (by name: the eco codes lie apart
 * from PVM's); for ECO_ERR_PVM, the failed PVM call's own. */
static int pvm_code(int status)
{
    switch (status) {
    case ECO_OK:           return PvmOk;
    case ECO_ERR_DATATYPE: return PvmBadParam;
    case ECO_ERR_ARG:      return PvmBadParam;
    case ECO_ERR_NOMEM:    return PvmNoMem;
    case ECO_ERR_PVM:      return eco_last_pvm_error(NULL) < 0 ? eco_last_pvm_error(NULL)
                                                               : PvmSysErr;
    default:               return PvmSysErr;
    }
}

/* The context of the view; NULL (and a reason) when eco_init failed. */
static eco_ctx *view_ctx(const char *group, const view *v, const char **why)
{
    eco_ctx *ctx = NULL;
    int rc = ecopvm_group_ctx(group, v->n, v->tids, &ctx);

    if (rc != ECO_OK)
        *why = eco_strerror(rc);
    return rc == ECO_OK ? ctx : NULL;
}

/* After an eco collective: a failed context is rebuilt on the next call. */
static int finish(const char *group, int status)
{
    if (status != ECO_OK)
        ecopvm_group_drop(group);
    return pvm_code(status);
}

/* ------------------------------------------------------------------ */
/* pvm_barrier                                                         */
/* ------------------------------------------------------------------ */

/*
 * PVM's count lets members join while others already wait.  The layer
 * waits, like PVM, until the group has count members, then runs the
 * barrier over exactly those; every member sees the same list then.  A
 * group larger than count is usually one whose leaving member the group
 * server has not struck off yet: the layer waits for that too, up to
 * ECO_PVM_BARRIER_WAIT seconds (default 2), and then leaves the barrier to
 * PVM ("the first count callers pass").
 */
static int barrier_view(const char *group, int count, view *v)
{
    const char *env = getenv("ECO_PVM_BARRIER_WAIT");
    double bound = env && *env ? atof(env) : 2.0, waited = 0;
    useconds_t nap = 1000;
    int rc;

    for (;;) {
        rc = get_view(group, -1, 0, v);
        if (rc != PvmOk || v->me < 0 || count < 0 || v->n == count ||
            (v->n > count && waited >= bound))
            return rc;
        free(v->tids);
        v->tids = NULL;
        ecopvm_pump();
        usleep(nap);
        if (v->n > count)
            waited += nap / 1e6;
        if (nap < 64000)
            nap *= 2;
    }
}

int ECOPVM_API(pvm_barrier)(char *group, int count)
{
    view v = { 0, NULL, -1, -1 };
    const char *why = NULL;
    eco_ctx *ctx = NULL;
    int rc;

    if (!ecopvm_on() || ecopvm.depth)
        return REAL(pvm_barrier)(group, count);
    ecopvm_pump();
    ecopvm.depth++;
    rc = count == -1 || count >= 1 ? barrier_view(group, count, &v) : PvmBadParam;
    if (rc != PvmOk)
        why = "no member list";
    else if (v.me < 0)
        why = "caller not in the group";
    else if (count != -1 && count != v.n)
        why = "count is not the group's size";
    else
        ctx = view_ctx(group, &v, &why);
    if (ctx) {
        ecopvm_log("pvm_barrier", group, "count=%d", count, TREE, NULL);
        rc = finish(group, eco_barrier(ctx));
    } else {
        ecopvm_log("pvm_barrier", group, "count=%d", count, FALLBACK, why);
        rc = REAL(pvm_barrier)(group, count);
    }
    ecopvm.depth--;
    free(v.tids);
    return rc;
}

/* ------------------------------------------------------------------ */
/* pvm_reduce                                                          */
/* ------------------------------------------------------------------ */

/* Why PVM's reduce must run instead (NULL: the tree can). */
static const char *reduce_refusal(ecopvm_op_fn func, int datatype)
{
    if (!func)
        return "no function";
    if (!pvm_datatype(datatype))
        return "datatype";
    /* PVM's own sum and product refuse bytes; let PVM say so. */
    if (datatype == PVM_BYTE && (func == ecopvm_pvm_sum() || func == ecopvm_pvm_product()))
        return "datatype";
    return NULL;
}

static int reduce_tree(eco_ctx *ctx, const view *v, ecopvm_op_fn func, void *data,
                       int count, int datatype)
{
    /* The root's data is both input and result: in place.  PVM hands a
     * user function whole vectors: no segments then (every member decides
     * alike, the function being PVM's or not). */
    return ecoi_reduce(ctx, v->me == v->root ? ECO_IN_PLACE : data,
                       v->me == v->root ? data : NULL, count, datatype, (eco_op)func,
                       v->root, ecopvm_pvm_builtin(func) ? 0 : ECOI_CALL_WHOLE);
}

int ECOPVM_API(pvm_reduce)(ecopvm_op_fn func, void *data, int count, int datatype,
                           int msgtag, char *group, int root)
{
    view v = { 0, NULL, -1, -1 };
    const char *why = NULL;
    eco_ctx *ctx = NULL;
    int rc = PvmOk;

    if (!ecopvm_on() || ecopvm.depth)
        return REAL(pvm_reduce)(func, data, count, datatype, msgtag, group, root);
    ecopvm_pump();
    ecopvm.depth++;
    if (!data || count <= 0)
        why = "bad argument";
    else if (!(why = reduce_refusal(func, datatype)) &&
             (rc = get_view(group, root, 0, &v)) != PvmOk)
        why = "no member list";
    else if (!why && (v.me < 0 || v.root < 0))
        why = "caller or root not in the group";
    if (!why)
        ctx = view_ctx(group, &v, &why);
    if (ctx) {
        ecopvm_log("pvm_reduce", group, "root=%d", root, TREE, NULL);
        rc = finish(group, reduce_tree(ctx, &v, func, data, count, datatype));
    } else {
        ecopvm_log("pvm_reduce", group, "root=%d", root, FALLBACK, why);
        rc = REAL(pvm_reduce)(func, data, count, datatype, msgtag, group, root);
    }
    ecopvm.depth--;
    free(v.tids);
    return rc;
}

/* ------------------------------------------------------------------ */
/* pvm_gather and pvm_scatter                                          */
/* ------------------------------------------------------------------ */

/* Shared checks: NULL when the tree can run. */
static const char *rooted_refusal(const char *group, void *mine, int count,
                                  int datatype, int root, view *v, eco_ctx **ctx)
{
    const char *why = NULL;

    if (!mine || count <= 0)
        return "bad argument";
    if (!pvm_datatype(datatype))
        return "datatype";
    if (get_view(group, root, 1, v) != PvmOk)
        return "no member list (or holes in the instance numbers)";
    if (v->me < 0 || v->root < 0)
        return "caller or root not in the group";
    *ctx = view_ctx(group, v, &why);
    return *ctx ? NULL : why;
}

int ECOPVM_API(pvm_gather)(void *result, void *data, int count, int datatype,
                           int msgtag, char *group, int root)
{
    view v = { 0, NULL, -1, -1 };
    eco_ctx *ctx = NULL;
    const char *why;
    void *scratch = NULL;
    int rc;

    if (!ecopvm_on() || ecopvm.depth)
        return REAL(pvm_gather)(result, data, count, datatype, msgtag, group, root);
    ecopvm_pump();
    ecopvm.depth++;
    why = rooted_refusal(group, data, count, datatype, root, &v, &ctx);
    if (!why) {
        ecopvm_log("pvm_gather", group, "root=%d", root, TREE, NULL);
        /* PVM's root refuses a NULL result after the others have sent:
         * take part, then refuse. */
        if (v.me == v.root && !result)
            result = scratch = malloc((size_t)v.n * (size_t)count * ecoi_type_size(datatype));
        rc = finish(group, eco_gather(ctx, data, result, count, datatype, v.root));
        if (scratch || (v.me == v.root && !result))
            rc = PvmBadParam;
    } else {
        ecopvm_log("pvm_gather", group, "root=%d", root, FALLBACK, why);
        rc = REAL(pvm_gather)(result, data, count, datatype, msgtag, group, root);
    }
    ecopvm.depth--;
    free(scratch);
    free(v.tids);
    return rc;
}

int ECOPVM_API(pvm_scatter)(void *result, void *data, int count, int datatype,
                            int msgtag, char *group, int root)
{
    view v = { 0, NULL, -1, -1 };
    eco_ctx *ctx = NULL;
    const char *why;
    void *scratch = NULL;
    int rc, me_root;

    if (!ecopvm_on() || ecopvm.depth)
        return REAL(pvm_scatter)(result, data, count, datatype, msgtag, group, root);
    ecopvm_pump();
    ecopvm.depth++;
    /* A member with a NULL result gets PvmBadParam from PVM without
     * holding the others up: it takes part with a scratch buffer. */
    if (!result && count > 0)
        result = scratch = malloc((size_t)count * (ecoi_type_size(datatype) + 1));
    why = rooted_refusal(group, result, count, datatype, root, &v, &ctx);
    me_root = !why && v.me == v.root;
    if (me_root && !data)
        why = "bad argument";
    if (!why) {
        ecopvm_log("pvm_scatter", group, "root=%d", root, TREE, NULL);
        rc = finish(group, eco_scatter(ctx, data, result, count, datatype, v.root));
        if (scratch)
            rc = PvmBadParam;
    } else {
        ecopvm_log("pvm_scatter", group, "root=%d", root, FALLBACK, why);
        rc = REAL(pvm_scatter)(scratch ? NULL : result, data, count, datatype, msgtag,
                               group, root);
    }
    ecopvm.depth--;
    free(scratch);
    free(v.tids);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Membership                                                          */
/* ------------------------------------------------------------------ */

int ECOPVM_API(pvm_lvgroup)(char *group)
{
    if (!ecopvm_on() || ecopvm.depth)
        return REAL(pvm_lvgroup)(group);
    ecopvm_pump();
    ecopvm_group_drop(group);
    return REAL(pvm_lvgroup)(group);
}

int ECOPVM_API(pvm_freezegroup)(char *group, int size)
{
    if (!ecopvm_on() || ecopvm.depth)
        return REAL(pvm_freezegroup)(group, size);
    ecopvm_pump();
    return REAL(pvm_freezegroup)(group, size);
}
