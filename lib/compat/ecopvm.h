/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ecopvm.h -- private: the PVM compatibility layer (libecopvm).
 *
 * Legacy PVM programs keep calling pvm_barrier, pvm_reduce, pvm_gather,
 * pvm_scatter and pvm_bcast; this layer runs them over ECO's trees.  One
 * set of sources is built twice:
 *
 *   ECOPVM_PRELOAD  libecopvm.so for LD_PRELOAD: the layer defines
 *                   pvm_bcast, pvm_recv, ... itself and finds PVM's own
 *                   functions with dlsym(RTLD_NEXT).
 *   ECOPVM_WRAP     libecopvm-wrap.a for relinking with ld --wrap: the
 *                   layer defines __wrap_pvm_bcast, ... and reaches PVM's
 *                   own functions as __real_pvm_bcast, ...
 *
 * ECOPVM_API(pvm_x) names the interposed definition, REAL(pvm_x) PVM's.
 *
 * Files: real.c (resolution, switches, the guard, hosts and subnet map),
 * group.c (group views and one eco context per group), coll.c (barrier,
 * reduce, gather, scatter), bsend.c (pvm_bcast and the send side),
 * brecv.c (the receive side of broadcasts: forwarding and delivery).
 */
#ifndef ECOPVM_H
#define ECOPVM_H

#include <stddef.h>
#include <sys/time.h>
#include <pvm3.h>
/* Of the library's insides, only what eco_compat_iface.h gives: no
 * structure of a context, map or tree (and eco_log.h, its messages). */
#include "eco_compat_iface.h"

typedef int (*ecopvm_match_fn)(int mid, int tid, int tag);
typedef void (*ecopvm_op_fn)(int *, void *, void *, int *, int *);
/* pvm3.h declares pvm_recvf as returning a pointer to a function that
 * takes a matcher; the interposed definition keeps that exact type. */
typedef int (*ecopvm_recvf_ret)(int (*)(int, int, int));

/* ------------------------------------------------------------------ */
/* PVM's own functions                                                 */
/* ------------------------------------------------------------------ */
#define ECOPVM_FUNCS(X)                                                       \
    X(int, pvm_bcast, (char *, int))                                          \
    X(int, pvm_barrier, (char *, int))                                        \
    X(int, pvm_reduce, (ecopvm_op_fn, void *, int, int, int, char *, int))    \
    X(int, pvm_gather, (void *, void *, int, int, int, char *, int))          \
    X(int, pvm_scatter, (void *, void *, int, int, int, char *, int))         \
    X(int, pvm_lvgroup, (char *))                                             \
    X(int, pvm_freezegroup, (char *, int))                                    \
    X(int, pvm_recv, (int, int))                                              \
    X(int, pvm_trecv, (int, int, struct timeval *))                           \
    X(int, pvm_nrecv, (int, int))                                             \
    X(int, pvm_probe, (int, int))                                             \
    X(int, pvm_precv, (int, int, void *, int, int, int *, int *, int *))      \
    X(int, pvm_send, (int, int))                                              \
    X(int, pvm_psend, (int, int, void *, int, int))                           \
    X(int, pvm_mcast, (int *, int, int))                                      \
    X(ecopvm_recvf_ret, pvm_recvf, (int (*)(int, int, int)))                  \
    X(int, pvm_exit, (void))

#ifdef ECOPVM_WRAP
#define ECOPVM_API(name) __wrap_##name
#define REAL(name) __real_##name
#define ECOPVM_DECLARE_REAL(ret, name, args) ret __real_##name args;
ECOPVM_FUNCS(ECOPVM_DECLARE_REAL)
#define ECOPVM_DECLARE_WRAP(ret, name, args) ret __wrap_##name args;
ECOPVM_FUNCS(ECOPVM_DECLARE_WRAP)
#else
#define ECOPVM_API(name) name
#define ECOPVM_DECLARE_PTR(ret, name, args) ret (*name) args;
struct ecopvm_real_fns {
    ECOPVM_FUNCS(ECOPVM_DECLARE_PTR)
};
extern struct ecopvm_real_fns ecopvm_real;
#define REAL(name) (ecopvm_real.name)
#endif
/* Install a matcher with PVM's own pvm_recvf; returns the previous one. */
#define REAL_RECVF(f) ((ecopvm_match_fn)(void (*)(void))REAL(pvm_recvf)(f))

/* ------------------------------------------------------------------ */
/* Switches and the guard                                              */
/* ------------------------------------------------------------------ */
typedef struct ecopvm_config {
    int ready;        /* resolved */
    int disabled;     /* ECO_PVM_DISABLE=1, or no real functions */
    int verbose;      /* ECO_PVM_VERBOSE=1 */
    int bcast;        /* ECO_PVM_BCAST=0 turns tree broadcasts off */
    long bcast_min;   /* ECO_PVM_BCAST_MIN: smaller messages use PVM's */
    int depth;        /* > 0 inside the layer: nested calls pass through */
} ecopvm_config;

extern ecopvm_config ecopvm;

/* Resolve PVM's functions and read the environment (once). */
void ecopvm_setup(void);
/* 1 when an interposed call should run the layer's code. */
static inline int ecopvm_on(void)
{
    if (!ecopvm.ready)
        ecopvm_setup();
    return !ecopvm.disabled;
}

/* One line to stderr per intercepted group call (ECO_PVM_VERBOSE=1). */
void ecopvm_log(const char *call, const char *group, const char *rootfmt,
                int root, const char *how, const char *why);

/* gs_get_tidlist of libgpvm3 (one query), else pvm_gsize and pvm_gettid. */
int ecopvm_tidlist(const char *group, int no_holes, int *n, int **tids);

/* PvmSum and PvmProduct of libgpvm3 (NULL when not found). */
ecopvm_op_fn ecopvm_pvm_sum(void);
ecopvm_op_fn ecopvm_pvm_product(void);
/* 1 for PvmSum, PvmProduct, PvmMax and PvmMin. */
int ecopvm_pvm_builtin(ecopvm_op_fn f);

/* For a broadcast tree: a map of the tasks' hosts with the subnets,
 * degrees and costs of the subnet file (eco_init's lookup), and every
 * task's host index in it.  ECO_ERR_NOTFOUND when a task's host is not in
 * the virtual machine's configuration, ECO_ERR_FORMAT for a bad file. */
int ecopvm_member_hosts(int n, const int *tids, eco_map **map, int *host);

/* Save and restore the caller's PVM state around the layer's work. */
typedef struct ecopvm_saved {
    int ctx, sbuf, rbuf, autoerr, err;
} ecopvm_saved;
void ecopvm_save(ecopvm_saved *s, int ctx);
void ecopvm_restore(const ecopvm_saved *s);

/* ------------------------------------------------------------------ */
/* Groups (group.c)                                                    */
/* ------------------------------------------------------------------ */
/* The eco context over tids[0..n-1] (instance order) for a group: the
 * cached one when the members are the same, else a new one (eco_init,
 * collective over the members). */
int ecopvm_group_ctx(const char *group, int n, const int *tids, eco_ctx **ctx);
/* Forget the group's context (this task left, or the context broke). */
void ecopvm_group_drop(const char *group);

/* ------------------------------------------------------------------ */
/* Broadcasts (bsend.c, brecv.c)                                       */
/* ------------------------------------------------------------------ */
/* The layer's message context for broadcast traffic and its tags. */
#define ECOPVM_CTX ECOI_COMPAT_CONTEXT
#define ECOPVM_TAG_PAY 1    /* a broadcast's body (the sender's buffer) */
#define ECOPVM_TAG_HDR 2    /* who sent it, with what tag, and to whom next */
#define ECOPVM_TAG_MARK 3   /* a sender's place-holder in its own stream */
#define ECOPVM_TAG_REINJ 4  /* a held message put back in the queue */

/* What the broadcast machinery did (printed at pvm_exit when verbose). */
typedef struct ecopvm_stats {
    long sent, forwarded, held, hidden, put_back, marks_sent, marks_read;
} ecopvm_stats;
extern ecopvm_stats ecopvm_count;

/* Forward and deliver the broadcast traffic that has arrived (never
 * blocks; a no-op when nested). */
void ecopvm_pump(void);
/* Before an application send to tid: keep broadcasts first. */
void ecopvm_fence(int tid);
/* After an application send to tid. */
void ecopvm_sent(int tid);
/* Per-sender sequence numbers of tree broadcasts (bsend.c) and the
 * receive side's bookkeeping of a picked message (brecv.c). */
void ecopvm_picked(int mid);

#endif /* ECOPVM_H */
