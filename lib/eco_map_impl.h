/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * eco_map_impl.h -- private: the layout of the network map and of trees.
 * Not installed.  Layers: subnet file and partition know eco_map; the tree
 * builder knows eco_map and eco_tree; nothing here knows PVM.
 */
#ifndef ECO_MAP_IMPL_H
#define ECO_MAP_IMPL_H

#include "eco.h"

/* The subnet file's magic word and the version this library writes. */
#define ECO_FILE_MAGIC "eco-subnets"
#define ECO_FILE_VERSION 9 /* written as 8 when a map has no shared cores
                            * (a model with cores 0, or none), as 7 when it
                            * has no lock-step byte cost either (stepbyte
                            * 0, or none), as 6 when it has no forward cost either
                            * (forward 0, or none), as 5 when
                            * it has no burst either (a model whose bursts
                            * are all 0, or none), as 4 when it has no step
                            * either (a model with step 0, or none), as 3
                            * when it has no hop classes either, as 2 when
                            * it has no model either, as 1 when it has no
                            * hops either */

/*
 * The cost model (subnet file version 3, measured by eco-characterize):
 * a message of b bytes costs alpha + beta * b seconds one way (alpha: the
 * per-message cost, PVM's software included; beta: seconds per byte).
 * Subnets are the map's subnet indices.  The model follows its map when
 * subnets are renumbered (canonicalize) or restricted to members (init).
 */
typedef struct ecoi_cost {
    double alpha;  /* seconds per message, >= 0 */
    double beta;   /* seconds per byte, >= 0 */
} ecoi_cost;

typedef struct ecoi_model {
    int nsubnets;
    ecoi_cost task;   /* between two tasks on one host */
    ecoi_cost *link;  /* [nsubnets * nsubnets]: link[s * nsubnets + s]
                       * between two hosts of subnet s (its own alpha and
                       * beta when s has one host: the file's defaults);
                       * link[s * nsubnets + t] == link[t * nsubnets + s]
                       * between a host of s and a host of t */
    double *uplink;   /* [nsubnets] seconds per byte of the link that every
                       * message into (and, separately, out of) subnet s
                       * shares; 0 when its hosts do not share one */
    double busy;      /* seconds per message when every host sends and
                       * receives at once (the least a message costs under
                       * load: packing, system calls, the CPUs shared with
                       * the daemons); 0 when not measured (one host, an
                       * older file): lib/select.c's default then */
    double step;      /* seconds a lock-step step takes when every host
                       * sends a short message to the next and waits for
                       * its own before the next (a ring's, recursive
                       * doubling's rounds: a latency under load, where
                       * busy is a throughput); 0 when not measured:
                       * busy then.  Subnet file version 5 */
    double *burst;    /* [nsubnets * nsubnets], symmetric like link: the
                       * bytes of a message between a host of s and one of
                       * t (s == t: two hosts of s) that pass at once when
                       * the path has been idle (a shaper's token bucket,
                       * full: netbed's tbf on a 10 Mbit/s link holds
                       * 3,028 bytes), the rest at beta; 0 when not
                       * measured.  Subnet file version 6 */
    double forward;   /* seconds a member that passes a message on (a
                       * tree's middle member: it receives, then sends)
                       * adds to a hop beyond the message's one-way time
                       * (its link's alpha and beta): the receive's wake
                       * up, the unpacking and the send's start, which a
                       * sibling's send does not pay; 0 when not
                       * measured: nothing added.  Subnet file version 7 */
    double stepbyte;  /* seconds each byte of a lock-step step's message
                       * adds beyond its links' beta when every host sends
                       * a long one at once (the copies and system calls
                       * of every member at the same moment: on
                       * switched8.topo's 8 emulated hosts on 2 cores a
                       * round of 16,000 bytes both ways took ~2 ms, the
                       * link 1.3); 0 when not measured: nothing added.
                       * Subnet file version 8 */
    double cores;     /* the cores the hosts share, as lib/select.c's
                       * ecoi_busy_at counts them for all the file's hosts
                       * at once: hosts x cores / hosts of the machine
                       * with the most hosts a core (eco-characterize:
                       * every emulated host of netbed on one machine of 2
                       * cores: 2); 0 when each host has its own CPUs or
                       * when not known.  Subnet file version 9 */
} ecoi_model;

/* lib/model.c.  A model of n subnets, every cost 0 (NULL: n < 0 or no
 * memory); free (NULL is fine); a copy (NULL: no memory). */
ecoi_model *ecoi_model_new(int nsubnets);
void ecoi_model_free(ecoi_model *m);
ecoi_model *ecoi_model_copy(const ecoi_model *m);
/* 1 when every number (busy, step, forward, stepbyte, cores and the bursts too) is finite and
 * >= 0 and link[] and burst[] are symmetric. */
int ecoi_model_valid(const ecoi_model *m);
/* The bytes a message between a host of s and one of t passes at once
 * on an idle path (ecoi_model.burst): 0 for a NULL model, s or t out of
 * range, or not measured. */
double ecoi_model_burst(const ecoi_model *m, int s, int t);
/* A new model over nnew subnets whose subnet i is m's subnet old_of[i]
 * (its costs and those between such subnets); NULL when an old_of[i] is
 * not one of m's subnets (e.g. -1: a subnet the model does not know) or
 * no memory.  eco_init restricts the file's model to the members'. */
ecoi_model *ecoi_model_restrict(const ecoi_model *m, const int *old_of, int nnew);
/* In place: subnet s becomes new_of[s], a permutation of 0..n-1.
 * ECO_OK, ECO_ERR_ARG (not a permutation), ECO_ERR_NOMEM (m unchanged). */
int ecoi_model_renumber(ecoi_model *m, const int *new_of);

/*
 * The measured pairs, stored sparsely: a subnet file lists only the pairs
 * that were measured (a few per host in the sparse mode of
 * eco-characterize), so a map of n hosts and p pairs takes O(n + p)
 * memory where a matrix took n^2 (8,000 hosts: 1 GB).  Every pair is
 * kept twice, once in the list of each of its hosts, so that a host's
 * measured neighbours are one array.  The hops are apart (ecoi_hops).
 */
typedef struct ecoi_link {
    int to;        /* the other host */
    double cost;   /* seconds, > 0 */
} ecoi_link;

typedef struct ecoi_adj {
    ecoi_link *link; /* [n], ascending by `to`, never the host itself */
    int n, cap;
} ecoi_adj;

/*
 * The hops (routers between hosts; lib/hops.c).  eco-characterize counts
 * them for every pair: 5 x 10^7 pairs at 10,000 hosts, as pairs 1.6 GB.
 * But hops follow the network's segments, so the map keeps hop classes:
 * each host's class (eco-characterize's: the hosts at 0 hops from the
 * class's first host), a table of the hops between classes, and the
 * pairs whose hops are not their classes' (exceptions: a lost datagram,
 * an odd route).  Every pair's hops is its exception's when it has one,
 * else its classes' (-1, unknown, when a host has no class).  100
 * segments of 100 hosts: 100 classes, a table of 5,050 entries.
 *
 *   class:   h0 h1 h2 | h3 h4      table    0   1    exceptions
 *              0      |  1           0   [  0   2 ]   h1-h4: 3
 *                                    1   [      0 ]   h3-h4: -1
 *
 * A map built pair by pair (eco_map_add_hops, older files) has no
 * classes: every pair with hops is an exception.
 */
typedef struct ecoi_hop {
    int to;        /* the other host */
    int hops;      /* the pair's hops, -1 not known */
} ecoi_hop;

typedef struct ecoi_hop_list {
    ecoi_hop *row; /* [n] ascending by `to`; both hosts of a pair list it */
    int n, cap;
} ecoi_hop_list;

typedef struct ecoi_hops {
    int ncls;            /* hop classes, 0: none */
    int *cls;            /* [map cap] host -> its class, -1: none */
    short *table;        /* [ncls (ncls + 1) / 2] hops between classes
                          * c <= d (ecoi_hops_tri), -1 unknown */
    ecoi_hop_list *exc;  /* [map cap] each host's exceptions */
    size_t nexc;         /* pairs with an exception */
} ecoi_hops;

/* At most this many hop classes: their table is classes^2 / 2 shorts
 * (268 MB here).  A map whose hosts would need more keeps every known
 * pair as an exception; a file that gives more is rejected. */
#define ECOI_HOPS_MAX_CLASSES 16384

/* The table's index of classes c and d (either order). */
size_t ecoi_hops_tri(int ncls, int c, int d);
/* The hops of pair a != b by the classes alone, -1 unknown. */
int ecoi_hops_by_class(const ecoi_hops *h, int a, int b);
/* Set the hops of pair a != b to exactly hops (-1: unknown): an
 * exception when the classes say otherwise.  ECO_OK or ECO_ERR_NOMEM. */
int ecoi_map_set_hops(eco_map *m, int a, int b, int hops);
/* Replace the map's hops by those get(arg, a, b) gives for every pair
 * a < b (-1 unknown), in hop classes: O(n^2) calls of get, memory
 * O(n + classes^2 + exceptions).  ECO_OK or ECO_ERR_NOMEM (the map
 * unchanged). */
int ecoi_map_build_hops(eco_map *m, int (*get)(void *arg, int a, int b), void *arg);
/* The hosts b != a at 0 hops from a, into out[] (room for every host):
 * how many.  O(members of the classes at 0 hops + a's exceptions). */
int ecoi_map_zero_hops(const eco_map *m, const int *first, const int *next, int a, int *out);
/* The members of each class: first[c] then next[h], ascending, -1 ends
 * (first: room for ncls, next: for nhosts). */
void ecoi_hops_members(const eco_map *m, int *first, int *next);
/* Hosts 0..n-1 listed by group (group[h] in 0..ngroups-1, or < 0: in
 * none): first[g], then next[h], ascending, -1 ends. */
void ecoi_group_lists(int n, const int *group, int ngroups, int *first, int *next);
/*
 * The hops among some of a map's hosts, as eco_init's boot message
 * carries them to the members: host x's class cls[x] (-1: none),
 * renumbered 0..ncls-1 in the order the hosts meet them, the table
 * among those classes (ecoi_hops_tri), and the exceptions between two
 * of the hosts, (a, b, hops) with a < b.  select.c gives no burst on a
 * path through more than one router (burst_left) by the hops of the map
 * it predicts on: without the hops the members predicted multilevel.
 * topo's reduce-to-all of 16,000 bytes by the tree at 26.2 ms, with a
 * burst across its sites, and ran it: 32.8 ms, where eco-show on the
 * same file predicts 34.3 and chooses rsag-sites, 27.0 ms
 * (doc/benchmarks.md, run 19).
 */
typedef struct ecoi_hops_part {
    int nh, ncls, nexc;
    int *cls;    /* [nh] */
    int *table;  /* [ncls (ncls + 1) / 2] */
    int *exc;    /* [3 nexc] */
} ecoi_hops_part;

/* The inverse of fh[0..nh-1] (hosts' indexes in map, distinct, or -1):
 * for each of map's hosts, which of the nh it is, or -1.  NULL without
 * memory; the caller frees it. */
int *ecoi_file_members(const eco_map *map, const int *fh, int nh);
/* The part of map's hops among hosts fh[0..nh-1] (map's indexes,
 * distinct, or -1: not in the map, no class and no exception); mine:
 * ecoi_file_members of fh.  ECO_OK or ECO_ERR_NOMEM (out freed). */
int ecoi_hops_part_of(const eco_map *map, const int *fh, const int *mine, int nh,
                      ecoi_hops_part *out);
/* 1 when every index and hops of p is in range (what a message gave). */
int ecoi_hops_part_valid(const ecoi_hops_part *p);
/* Map m's hosts 0..p->nh-1 get p's hops (m has no classes before).
 * ECO_OK, ECO_ERR_ARG (not m's hosts) or ECO_ERR_NOMEM. */
int ecoi_map_put_hops(eco_map *m, const ecoi_hops_part *p);
void ecoi_hops_part_free(ecoi_hops_part *p);
/* lib/map.c's storage: room for ncap hosts (old rows kept, new ones
 * without class or exception), host p inserted (indexes from p move up),
 * all freed.  ECO_OK or ECO_ERR_NOMEM. */
int ecoi_hops_reserve(ecoi_hops *h, size_t old, size_t ncap);
void ecoi_hops_insert_host(ecoi_hops *h, int nhosts, int p);
void ecoi_hops_free(ecoi_hops *h, int cap);

/*
 * Sorted rows (lib/map.c): an array of n rows of `size` bytes each,
 * ascending by the int every row starts with (its key: the other host,
 * as ecoi_link's `to`), no key twice.  The map's lists are such rows,
 * and so are eco-characterize's result's pairs (result_pairs.c).
 */
/* The key of row i: the int it starts with. */
int ecoi_rows_key(const void *rows, int i, size_t size);
/* The index of key in rows[0..n-1], or -(insertion point) - 1. */
int ecoi_rows_find(const void *rows, int n, size_t size, int key);
/* rows with room for need >= 1 rows: rows itself when *cap is enough,
 * else grown (doubling, from 2) and *cap raised; NULL when no memory
 * (rows and *cap unchanged). */
void *ecoi_rows_reserve(void *rows, int *cap, int need, size_t size);
/* The index of the row keyed like fresh, a copy of fresh inserted there
 * (*n + 1 rows) when there was none; rows must have room for it. */
int ecoi_rows_put(void *rows, int *n, size_t size, const void *fresh);
/* Remove row i (*n - 1 rows). */
void ecoi_rows_remove(void *rows, int *n, int i, size_t size);

struct eco_map {
    int nhosts;        /* number of hosts */
    int cap;           /* allocated rows of host[] / subnet[] / adj[] */
    char **host;       /* names, ascending by strcmp, unique */
    ecoi_adj *adj;     /* [cap] host -> its measured pairs (costs);
                        * symmetric: b in a's list iff a in b's, same values */
    ecoi_hops hops;    /* the routers between hosts (lib/hops.c) */
    int *subnet;       /* host -> subnet index, -1 before partitioning */
    int nsubnets;      /* subnets are numbered by their first (lowest) host */
    int *degree;       /* [nsubnets] k of the k-ary tree inside the subnet */
    double threshold;  /* the threshold the subnets were made with */
    ecoi_model *model; /* the measured cost model, NULL when the file had
                        * none (lib/select.c then uses its defaults);
                        * model->nsubnets == nsubnets.  eco_map_partition
                        * drops it (new subnets: measure them again) */
};

/* Cost of a pair, -1 when unmeasured, 0 when a == b (no bounds checks).
 * O(log degree): a binary search in the shorter of the two lists; loops
 * over "all pairs" walk adj[] instead. */
double ecoi_map_cost_ij(const eco_map *m, int a, int b);

/* Routers between a pair, -1 when unmeasured, 0 when a == b (no bounds
 * checks; lib/hops.c).  O(log exceptions of a host). */
int ecoi_map_hops_ij(const eco_map *m, int a, int b);

/* Set the cost of the pair a != b (indexes, no bounds checks), replacing
 * what was there (seconds > 0), or forget it (seconds < 0): for tests
 * (the readers load in bulk: ecoi_map_add_pairs).  ECO_OK, ECO_ERR_ARG
 * (a == b) or ECO_ERR_NOMEM. */
int ecoi_map_set_cost(eco_map *m, int a, int b, double seconds);

/* One measured pair for ecoi_map_add_pairs: cost < 0 and hops < 0 mean
 * "not given". */
typedef struct ecoi_pair {
    int a, b;      /* host indexes, a != b */
    int hops;
    double cost;
} ecoi_pair;

/* Merge n pairs into the map at once (O((n + p) log n), where adding them
 * one by one costs O(degree) each): the cheaper cost and the larger hops
 * win, as in eco_map_add_cost / eco_map_add_hops.  The caller checks the
 * indexes.  ECO_OK, or ECO_ERR_NOMEM with the costs unchanged (and the
 * hops, when the costs found no memory). */
int ecoi_map_add_pairs(eco_map *m, const ecoi_pair *p, size_t n);

/* The number of pairs with a measured cost. */
size_t ecoi_map_measured_pairs(const eco_map *m);

/* Does any pair of the map have hops?  (partition, the subnet writer;
 * lib/hops.c) */
int ecoi_map_has_hops(const eco_map *m);

/* Renumber subnets so that subnet i's lowest host is below subnet i+1's;
 * `degree` and the model follow their subnet.  Used by partition and by
 * the reader. */
int ecoi_map_canonicalize_subnets(eco_map *m);

/* For the readers (bulk load, lib/map.c): a map holding the n hosts
 * names[0..n-1], which must be valid, ascending by strcmp and unique
 * (copied), with no costs and no subnets.  NULL on bad input or no memory. */
eco_map *ecoi_map_new_hosts(const char *const *names, int n);
/* The same from n valid distinct names in any order (sorted here):
 * rank[i] (room for n) is names[i]'s index in the map. */
eco_map *ecoi_map_new_named(const char *const *names, int n, int *rank);

/* Text helpers shared by the two readers and the writer (lib/costs.c). */
typedef struct ecoi_text {
    char *buf;   /* the whole file, NUL-terminated */
    char *pos;   /* start of the next line */
    char *end;   /* buf + length */
    int lineno;  /* number of the line last returned, from 1 */
} ecoi_text;
/* Load a whole text file; on error err = "PATH: reason". */
int ecoi_text_load(ecoi_text *t, const char *path, char *err, size_t errlen);
void ecoi_text_free(ecoi_text *t);
/* The next line with its comment ('#' to end of line) cut off, or NULL. */
char *ecoi_text_line(ecoi_text *t);
/* The next whitespace-separated field at *cursor (NUL-terminated in
 * place), or NULL when the line has no more. */
char *ecoi_text_field(char **cursor);
/* A decimal integer lo..hi, digits only (at most 9): 0, or -1. */
int ecoi_parse_int(const char *s, int lo, int hi, int *out);
/* A finite decimal number, all of s, in the "C" locale: 0, or -1. */
int ecoi_parse_double(const char *s, double *out);
/* The shortest %.Ng (N = 1..17) that reads back exactly, "C" locale. */
void ecoi_format_double(double x, char *buf, size_t len);
/* snprintf into err when err is not NULL. */
void ecoi_set_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * A tree over members 0..n-1.  Children are stored in CSR form.  The
 * preorder (order[]) visits children in the order they appear in child[],
 * so the subtree of m is order[pos[m] .. pos[m] + subtree[m] - 1]: scatter
 * and gather ship one contiguous block per child.
 */
enum eco_edge_kind {
    ECO_EDGE_ROOT = 0,   /* the root: no incoming edge */
    ECO_EDGE_SUBNETS = 1,/* enters a subnet from another subnet */
    ECO_EDGE_HOSTS = 2,  /* between two hosts of one subnet */
    ECO_EDGE_TASKS = 3   /* between two tasks of one host */
};

struct eco_tree {
    int n;
    int root;
    int depth;       /* edges on the longest root-to-leaf path */
    int *parent;     /* [n], -1 for the root */
    int *child_off;  /* [n+1]: children of m are child[child_off[m] .. child_off[m+1]-1] */
    int *child;      /* [n-1 or 1] */
    int *order;      /* [n] preorder; order[0] == root */
    int *pos;        /* [n] member -> index in order[] */
    int *subtree;    /* [n] members in the subtree of m, m included */
    int *kind;       /* [n] enum eco_edge_kind of the edge into m */
};

#endif /* ECO_MAP_IMPL_H */
