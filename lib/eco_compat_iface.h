/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * eco_compat_iface.h -- private: everything of the library's insides that
 * the PVM compatibility layer (lib/compat/) uses.  Not installed.
 *
 * The layer sees contexts, maps and trees through eco.h and this header
 * only, never their structures: it includes neither eco_coll.h nor
 * eco_map_impl.h.  The functions are ecoi_*: libeco.so does not export
 * them; libecopvm.so and libecopvm-wrap.a take them from libecocore.
 */
#ifndef ECO_COMPAT_IFACE_H
#define ECO_COMPAT_IFACE_H

#include <stddef.h>
#include "eco.h"

/* The message context of the layer's broadcast traffic: below the range
 * pvm_newcontext hands out, beside the library's own (eco_pvm.h). */
#define ECOI_COMPAT_CONTEXT 0x3ec1
/* The context of the library's control messages, for every context of the
 * process (exit notices, aborts, acknowledgements, flushes), from the same
 * range.  One fixed context, read by every transport: a notice for a
 * context that is gone is read and dropped there, instead of staying
 * forever in a freed context's queue.  The layer's receives return for
 * them (lib/compat/brecv.c), so that a member blocked in a receive of the
 * program's still answers (e.g. a FLUSH from a member that leaves). */
#define ECOI_CTRL_CONTEXT 0x3ec2

/* Read every control message that has arrived (exit notices, aborts,
 * acknowledgements, flushes) and hand each to its transport; keeps the
 * caller's context and receive buffer (lib/pvm_transport.c). */
void ecoi_pvm_pump(void);

/* Size in bytes of one element of a PVM datatype, 0 when unsupported. */
size_t ecoi_type_size(int datatype);

/* ------------------------------------------------------------------ */
/* Per-call arguments of the collectives                               */
/* ------------------------------------------------------------------ */

/* The op takes whole vectors (a legacy PVM function): the call cuts its
 * vector neither into pipelining segments nor into pieces per subnet.
 * Every member must pass the same flags. */
#define ECOI_CALL_WHOLE 1u

/* eco_reduce with flags (ECOI_CALL_*; 0: eco_reduce itself). */
int ecoi_reduce(eco_ctx *ctx, const void *sendbuf, void *recvbuf, int count,
                int datatype, eco_op op, int root, unsigned flags);

/* ------------------------------------------------------------------ */
/* Trees: a member's subtree in preorder                               */
/* ------------------------------------------------------------------ */

/* The members of a subtree, the subtree's root first, each subtree
 * contiguous (the order scatter and gather ship blocks in).  Fields are
 * the walk's own: read none. */
typedef struct ecoi_subtree_walk {
    const eco_tree *tree;
    int next, end;
} ecoi_subtree_walk;

/* Start a walk of member m's subtree of tree; returns the number of its
 * members (m included), or ECO_ERR_ARG. */
int ecoi_subtree_begin(ecoi_subtree_walk *w, const eco_tree *tree, int m);
/* The next member and the size of its own subtree: 1, or 0 at the end. */
int ecoi_subtree_next(ecoi_subtree_walk *w, int *member, int *size);

/* ------------------------------------------------------------------ */
/* Maps and the subnet file                                            */
/* ------------------------------------------------------------------ */

/* Put every host h of map into subnet[h] (0..nsubnets-1, none empty),
 * with degree[s] the k of subnet s; the subnets are then renumbered in
 * the order of their lowest host (degrees follow).  ECO_ERR_ARG for a bad
 * numbering, ECO_ERR_NOMEM; the map's subnets are undefined then. */
int ecoi_map_set_subnets(eco_map *map, int nsubnets, const int *subnet, const int *degree);

/* Index of a host in a subnet file's map: the exact name, else the same
 * name up to the first '.' on both sides; -1 when absent (or map NULL). */
int ecoi_file_host(const eco_map *map, const char *name);

/* eco_init's lookup of the subnet file (file, $ECO_SUBNET_FILE,
 * ~/.eco/subnets, the system file); *map stays NULL when there is none. */
int ecoi_load_subnet_file(const char *file, eco_map **map);

#endif /* ECO_COMPAT_IFACE_H */
