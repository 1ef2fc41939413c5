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

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* 1. Status codes: 0 is success, negative values are errors.          */
/* ------------------------------------------------------------------ */
typedef enum eco_status {
    ECO_OK = 0,
    /* -1 is never a status: tree accessors use it for "none" (the root's
     * parent), so it cannot be mistaken for an error. */
    ECO_ERR_ARG = -2,        /* a bad argument (NULL, negative, out of range) */
    ECO_ERR_NOMEM = -3,      /* out of memory */
    ECO_ERR_IO = -4,         /* a file could not be read or written */
    ECO_ERR_FORMAT = -5,     /* a malformed subnet file or cost matrix */
    ECO_ERR_DATATYPE = -6,   /* an unknown PVM datatype, or one the op refuses */
    ECO_ERR_PVM = -7,        /* a PVM call failed */
    ECO_ERR_PEER = -8,       /* a member task exited or gave up */
    ECO_ERR_MISMATCH = -9,   /* members disagree (task list, size, protocol) */
    ECO_ERR_NOTMEMBER = -10, /* the calling task is not in the task list */
    ECO_ERR_NOTFOUND = -11,  /* a host or name is not in the map */
    ECO_ERR_TIMEOUT = -12    /* a peer did not answer in time */
} eco_status;

/* A one-line English explanation of a status code (never NULL). */
const char *eco_strerror(int status);

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

extern const eco_op ECO_SUM, ECO_PROD, ECO_MIN, ECO_MAX;

int eco_init(const char *subnet_file, int ntasks, const int *tids, eco_ctx **ctx);
int eco_finalize(eco_ctx *ctx);
int eco_rank(const eco_ctx *ctx);
int eco_size(const eco_ctx *ctx);
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
int eco_ring(const eco_ctx *ctx, int *order);

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
