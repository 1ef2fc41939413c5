/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * eco_topo.h -- private: netbed's topology files (tests/netbed/README.md
 * "Topology files") as a tree of links, for eco-bench's link limit and
 * eco-sim's network.  Not installed.
 *
 *   group    NAME RATE [in GROUP]
 *   segment  NAME RATE [in GROUP] HOST...
 *   host     NAME RATE
 *   segments PREFIX COUNT RATE [in GROUP] hosts K     (eco-sim only)
 *
 * `segments` stands for COUNT segment lines: segments PREFIX1 ..
 * PREFIXCOUNT, each with K hosts PREFIXiH1 .. PREFIXiHK (so that 10,000
 * hosts need not be listed); netbed itself does not read it.
 */
#ifndef ECO_TOPO_H
#define ECO_TOPO_H

#include <stddef.h>

enum { ECOI_TOPO_GROUP, ECOI_TOPO_SEGMENT, ECOI_TOPO_HOST };

typedef struct ecoi_topo_node {
    char name[24];
    int kind;       /* ECOI_TOPO_* */
    int parent;     /* the node it hangs from (a group, a segment for a host); -1: top */
    int depth;      /* links from the top router: 1 for a top-level node */
    double rate;    /* bits per second of its link to its parent, both ways; 0: unshaped */
    int hosts;      /* hosts below it (1 for a host) */
} ecoi_topo_node;

typedef struct ecoi_topo {
    int nnodes;
    ecoi_topo_node *node;   /* parents before their children */
    int nhosts;
    int *host;              /* [nhosts] the host nodes, in file order */
    int nsegments;
    int *segment;           /* [nsegments] the segment nodes, in file order */
    int nbuckets;           /* names, hashed: node indices, -1 empty */
    int *bucket;
} ecoi_topo;

/* Read a topology file; on error err = "FILE:LINE: reason". */
int ecoi_topo_read(const char *path, ecoi_topo **out, char *err, size_t errlen);
void ecoi_topo_free(ecoi_topo *t);
/* The node named name, or -1. */
int ecoi_topo_find(const ecoi_topo *t, const char *name);

/* The link limit of collective coll (ECOI_C_*, eco_coll.h) of `bytes`
 * per member, one member per host, rooted at host node root (-1: no
 * host is the root's): the busiest link's least load over its rate, in
 * seconds.  No pattern can finish sooner.  Returns -1 when there is no
 * bound (a barrier, fewer than two hosts). */
double ecoi_topo_link_limit(const ecoi_topo *t, int coll, int root, double bytes);

#endif /* ECO_TOPO_H */
