/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * eco.h -- libeco: efficient collective operations on heterogeneous
 * networks of workstations, over PVM 3 (after Lowekamp & Beguelin, 1996).
 *
 * This is the only installed header.  Every public symbol starts with eco_.
 *
 * Three parts:
 *   1. Status codes.
 *   2. The network map: hosts, measured costs, subnets (the subnet file,
 *      see eco-subnets(5)), partitioning (the 20% rule) and per-root trees.
 *      Pure functions: no PVM involved.
 *   3. The collectives over PVM (eco_init, eco_bcast, ...), see eco(3).
 */
#ifndef ECO_H
#define ECO_H

#include <stddef.h>
#include <stdio.h>
#include "eco_version.h"  /* ECO_VERSION, ECO_VERSION_MAJOR, _MINOR, _PATCH */

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* 1. Status codes: 0 is success, negative values are errors.          */
/* ------------------------------------------------------------------ */
/*
 * The errors lie from -1001 down, apart from PVM's (-2 to -36 in PVM
 * 3.4), so that an eco_status is never mistaken for a PVM code.  The PVM
 * status behind an ECO_ERR_PVM is kept: eco_last_pvm_error().
 */
#define ECO_ERR_BASE (-1000)
typedef enum eco_status {
    ECO_OK = 0,
    ECO_ERR_ARG = ECO_ERR_BASE - 1,       /* a bad argument (NULL, negative, out of range) */
    ECO_ERR_NOMEM = ECO_ERR_BASE - 2,     /* out of memory */
    ECO_ERR_IO = ECO_ERR_BASE - 3,        /* a file could not be read or written */
    ECO_ERR_FORMAT = ECO_ERR_BASE - 4,    /* a malformed subnet file or cost matrix */
    ECO_ERR_DATATYPE = ECO_ERR_BASE - 5,  /* an unknown PVM datatype, or one the op refuses */
    ECO_ERR_PVM = ECO_ERR_BASE - 6,       /* a PVM call failed: eco_last_pvm_error() */
    ECO_ERR_PEER = ECO_ERR_BASE - 7,      /* a member task exited or gave up */
    ECO_ERR_MISMATCH = ECO_ERR_BASE - 8,  /* members disagree (task list, size, protocol) */
    ECO_ERR_NOTMEMBER = ECO_ERR_BASE - 9, /* the calling task is not in the task list */
    ECO_ERR_NOTFOUND = ECO_ERR_BASE - 10, /* a host or name is not in the map */
    ECO_ERR_TIMEOUT = ECO_ERR_BASE - 11   /* a peer did not answer in time */
} eco_status;
/* The lowest status: every eco_status lies in [ECO_ERR_LAST, ECO_OK]. */
#define ECO_ERR_LAST ECO_ERR_TIMEOUT

/* A one-line English explanation of a status code (never NULL). */
const char *eco_strerror(int status);

/* The library's version at run time ("0.1.0"); ECO_VERSION is the header's. */
const char *eco_version(void);

/*
 * Messages.  Everything the library prints goes to a hook, by default
 * eco_log_stderr ("libeco: warning: MSG" on stderr).  msg has no newline
 * and lives for the call only.  fn NULL: silent.  Messages above the
 * threshold never reach the hook: eco_set_log_level, else $ECO_LOG_LEVEL
 * (none, error, warn, info, trace or 0-3), else ECO_LOG_WARN.  The hook
 * may be called from any thread that calls the library.
 */
enum {
    ECO_LOG_NONE = -1,  /* (a threshold only) nothing */
    ECO_LOG_ERROR = 0,
    ECO_LOG_WARN = 1,   /* e.g. a member's host missing from the subnet file */
    ECO_LOG_INFO = 2,
    ECO_LOG_TRACE = 3   /* e.g. the algorithm each collective chose */
};
typedef void (*eco_log_fn)(int level, const char *msg, void *arg);
void eco_set_log(eco_log_fn fn, void *arg);
void eco_log_stderr(int level, const char *msg, void *arg);
/* Returns the previous threshold, or ECO_ERR_ARG. */
int eco_set_log_level(int level);

/* ------------------------------------------------------------------ */
/* 2. The network map                                                  */
/* ------------------------------------------------------------------ */

/* Defaults of the partitioning and of the trees. */
#define ECO_DEFAULT_THRESHOLD 0.20 /* join within 20% of the cheapest edge */
#define ECO_DEFAULT_DEGREE 2       /* k of the k-ary tree inside a subnet */
#define ECO_MAX_DEGREE 64
#define ECO_MAX_HOSTNAME 255
#define ECO_MAX_HOPS 255           /* routers between two hosts */

/* Hosts (sorted by name), symmetric pair costs in seconds, subnets. */
typedef struct eco_map eco_map;

/* An empty map, or NULL when out of memory. */
eco_map *eco_map_new(void);
void eco_map_free(eco_map *map);

/*
 * Read a cost matrix (lines "HOST_A HOST_B SECONDS", '#' comments) or a
 * subnet file (eco-subnets(5)).  All or nothing: on error *map is NULL and,
 * when err is not NULL, err holds "FILE:LINE: reason".
 */
int eco_map_read_costs(const char *path, eco_map **map, char *err, size_t errlen);
int eco_map_read(const char *path, eco_map **map, char *err, size_t errlen);

/* Write a subnet file atomically (a temporary file renamed over path):
 * readers see the old or the new file, never a partial one. */
int eco_map_write(const eco_map *map, const char *path, char *err, size_t errlen);
/* Write the subnet-file text to a stream. */
int eco_map_fprint(const eco_map *map, FILE *out);

/* Add a host (no-op when present); returns its index or a negative status.
 * Indexes are stable until the next eco_map_add_host of a new name. */
int eco_map_add_host(eco_map *map, const char *name);
/* Record a measured cost; the cost of a pair is the minimum recorded. */
int eco_map_add_cost(eco_map *map, const char *a, const char *b, double seconds);

/* Record the number of routers between two hosts (0: the same network;
 * from the TTL of a datagram); the larger of two records is kept. */
int eco_map_add_hops(eco_map *map, const char *a, const char *b, int hops);

/* Partition hosts into subnets by ECO's rule (Figure 2 of the paper) with
 * the given threshold (0.20 means 20%); then a subnet whose costs cannot
 * place it (every member is as near some outside host as its own subnet)
 * joins the one subnet it shares a network with (0 hops to every member),
 * when the map has hops.  Deterministic; keeps the degree of a subnet
 * only when it keeps the same hosts. */
int eco_map_partition(eco_map *map, double threshold);

int eco_map_nhosts(const eco_map *map);
const char *eco_map_host(const eco_map *map, int host);
/* Index of a host name, or ECO_ERR_NOTFOUND. */
int eco_map_find_host(const eco_map *map, const char *name);
/* Cost of a pair in seconds; negative when not measured; 0 for a == b. */
double eco_map_cost(const eco_map *map, int a, int b);
/* Routers between a pair; ECO_ERR_NOTFOUND when not measured; 0 for a == b. */
int eco_map_hops(const eco_map *map, int a, int b);
double eco_map_threshold(const eco_map *map);

int eco_map_nsubnets(const eco_map *map);
/* Subnet of a host, or a negative status. */
int eco_map_subnet_of(const eco_map *map, int host);
/* Number of hosts of a subnet and its i-th host (ascending host index). */
int eco_map_subnet_size(const eco_map *map, int subnet);
int eco_map_subnet_host(const eco_map *map, int subnet, int i);
int eco_map_degree(const eco_map *map, int subnet);
int eco_map_set_degree(eco_map *map, int subnet, int k);

/*
 * Per-root trees.  Members are numbered 0..n-1; member m runs on host
 * member_host[m] (an index into the map, or -1 for a host not in the map,
 * which then forms a subnet of its own).  map may be NULL: every host is
 * then its own subnet.  See eco-subnets(5) for the shape and its bounds.
 */
typedef struct eco_tree eco_tree;

int eco_tree_build(const eco_map *map, int n, const int *member_host,
                   int root, eco_tree **tree);
/* Frees the tree and clears the caller's pointer. */
void eco_tree_free(eco_tree **tree);
int eco_tree_size(const eco_tree *tree);
int eco_tree_root(const eco_tree *tree);
/* Parent of member m, -1 for the root. */
int eco_tree_parent(const eco_tree *tree, int m);
int eco_tree_nchildren(const eco_tree *tree, int m);
/* The children of m, in the order m sends to them. */
const int *eco_tree_children(const eco_tree *tree, int m);
/* The number of edges on the longest root-to-leaf path. */
int eco_tree_depth(const eco_tree *tree);

/* ------------------------------------------------------------------ */
/* 3. Collectives over PVM                                             */
/* ------------------------------------------------------------------ */
typedef struct eco_ctx eco_ctx; /* opaque */

/* PVM's reduce-function signature (so PvmSum from libgpvm3 works too). */
typedef void (*eco_op)(int *datatype, void *x, void *y, int *num, int *info);

#define ECO_ALL (-1) /* root meaning "to all" */
/*
 * In place of a buffer, where the data already is in the other one (as
 * MPI_IN_PLACE): the sendbuf of eco_reduce, eco_gather and eco_gatherv
 * (at the root, or every member for ECO_ALL), eco_scan, eco_exscan,
 * eco_alltoall, eco_alltoallv and eco_reduce_scatter; the recvbuf of
 * eco_scatter's and eco_scatterv's root.  See eco(3).
 */
#define ECO_IN_PLACE ((void *)1)

extern const eco_op ECO_SUM, ECO_PROD, ECO_MIN, ECO_MAX;

int eco_init(const char *subnet_file, int ntasks, const int *tids, eco_ctx **ctx);
/*
 * Start ntasks copies of a program and a context over them, in one call
 * made by every copy (see eco_init_spawn(3)).  The task started by hand
 * (rank 0) spawns ntasks - 1 copies of program (NULL: itself) with argv
 * (as pvm_spawn's: the arguments after the name, NULL-terminated) and
 * tells them the task list; in the copies the call receives it, and
 * ntasks, program and argv are ignored.  Rank 0 collects the copies'
 * output on its stdout when its own goes nowhere; end with eco_finalize
 * and pvm_exit, which then waits for the copies.
 */
int eco_init_spawn(const char *program, char **argv, int ntasks,
                   const char *subnet_file, eco_ctx **ctx);
int eco_finalize(eco_ctx *ctx);
int eco_rank(const eco_ctx *ctx);
int eco_size(const eco_ctx *ctx);
/* The PVM task id of a member (ECO_ERR_ARG for a bad rank). */
int eco_tid(const eco_ctx *ctx, int rank);
/*
 * The PVM status (PvmNoMem, PvmSysErr, ...) of the last failed PVM call
 * behind an ECO_ERR_PVM, 0 if none: of a call on ctx, or with ctx NULL
 * of any call in the calling thread (eco_init's failures included).
 */
int eco_last_pvm_error(const eco_ctx *ctx);
int eco_bcast(eco_ctx *ctx, void *buf, int count, int datatype, int root);
int eco_barrier(eco_ctx *ctx);
int eco_scatter(eco_ctx *ctx, const void *sendbuf, void *recvbuf, int count,
                int datatype, int root);
int eco_gather(eco_ctx *ctx, const void *sendbuf, void *recvbuf, int count,
               int datatype, int root);
int eco_alltoall(eco_ctx *ctx, const void *sendbuf, void *recvbuf, int count,
                 int datatype);
int eco_reduce(eco_ctx *ctx, const void *sendbuf, void *recvbuf, int count,
               int datatype, eco_op op, int root);
int eco_scan(eco_ctx *ctx, const void *sendbuf, void *recvbuf, int count,
             int datatype, eco_op op);
/*
 * The vector forms: a count per member (in elements, as MPI's).  Block q
 * of a counts/displacements pair is counts[q] elements from element
 * displs[q] of the buffer; the blocks must not overlap.  See eco(3).
 */
int eco_gatherv(eco_ctx *ctx, const void *sendbuf, int sendcount, void *recvbuf,
                const int *recvcounts, const int *displs, int datatype, int root);
int eco_scatterv(eco_ctx *ctx, const void *sendbuf, const int *sendcounts,
                 const int *displs, void *recvbuf, int recvcount, int datatype, int root);
int eco_alltoallv(eco_ctx *ctx, const void *sendbuf, const int *sendcounts,
                  const int *sdispls, void *recvbuf, const int *recvcounts,
                  const int *rdispls, int datatype);
int eco_reduce_scatter(eco_ctx *ctx, const void *sendbuf, void *recvbuf,
                       const int *recvcounts, int datatype, eco_op op);
/* Exclusive scan: rank r gets x_0 op ... op x_(r-1); rank 0's recvbuf is
 * left untouched. */
int eco_exscan(eco_ctx *ctx, const void *sendbuf, void *recvbuf, int count,
               int datatype, eco_op op);
int eco_ring(const eco_ctx *ctx, int *order);

/*
 * Nonblocking collectives: the blocking call's arguments, then a request
 * that the call starts and eco_test, eco_wait or eco_waitall completes
 * (and frees, setting it to NULL).  The buffers belong to the library
 * until then.  A context runs its calls in the order they were started,
 * the same in every member; they advance inside any call of the library
 * on that context (eco_test, eco_wait, a blocking collective).  See
 * eco_ibcast(3).
 */
typedef struct eco_request eco_request; /* opaque */
int eco_ibcast(eco_ctx *ctx, void *buf, int count, int datatype, int root,
               eco_request **req);
int eco_ireduce(eco_ctx *ctx, const void *sendbuf, void *recvbuf, int count,
                int datatype, eco_op op, int root, eco_request **req);
int eco_igather(eco_ctx *ctx, const void *sendbuf, void *recvbuf, int count,
                int datatype, int root, eco_request **req);
int eco_iscatter(eco_ctx *ctx, const void *sendbuf, void *recvbuf, int count,
                 int datatype, int root, eco_request **req);
int eco_ialltoall(eco_ctx *ctx, const void *sendbuf, void *recvbuf, int count,
                  int datatype, eco_request **req);
int eco_iscan(eco_ctx *ctx, const void *sendbuf, void *recvbuf, int count,
              int datatype, eco_op op, eco_request **req);
int eco_ibarrier(eco_ctx *ctx, eco_request **req);
/* *done 1: the call is complete, *req freed and NULL, its status returned;
 * *done 0: ECO_OK, it goes on. */
int eco_test(eco_request **req, int *done);
/* Complete the call: its status; *req freed and NULL. */
int eco_wait(eco_request **req);
/* Complete the n calls (NULL entries skipped): the first error in the
 * array's order, else ECO_OK; every entry freed and NULL. */
int eco_waitall(int n, eco_request **reqs);

/*
 * The communication pattern of later collectives: "eco" (the default:
 * ECO's topology-aware trees), or, for comparison, a topology-unaware tree
 * over the rank order starting at the root: "star", "binary", "kary3",
 * "chain".  Every member must make the same call between the same
 * collectives.  ECO_ERR_ARG for an unknown name.
 */
int eco_set_pattern(eco_ctx *ctx, const char *name);

#ifdef __cplusplus
}
#endif

#endif /* ECO_H */
