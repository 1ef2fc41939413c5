/*
 * eco_pvm.h -- private: the PVM side of the library (transport, init).
 */
#ifndef ECO_PVM_H
#define ECO_PVM_H

#include "eco_coll.h"

/* Tags of the library's control messages (outside the collectives'
 * ECOI_TAG_BASE | seq range). */
#define ECOI_TAG_EXIT 0x46000001   /* PVM's exit notice of a member */
#define ECOI_TAG_ABORT 0x46000002  /* a member gave up on a collective */
#define ECOI_TAG_BOOT 0x47000000   /* rank 0's boot message */

/* The context in which eco_init's first message travels: below the range
 * pvm_newcontext hands out (host number << 18), so never one of those. */
#define ECOI_BOOT_CONTEXT 0x3ec0
/* The context of the PVM compatibility layer's broadcast traffic
 * (lib/compat/), from the same range. */
#define ECOI_COMPAT_CONTEXT 0x3ec1

/* A transport over PVM for member rank of tids[0..n-1]. */
ecoi_transport *ecoi_pvm_transport(int n, int rank, const int *tids,
                                   int pvmctx, int owner, int encoding);
/* Ask PVM for exit notices of the other members. */
int ecoi_pvm_watch(ecoi_transport *t);

/* Index of a host in a subnet file's map: the exact name, else the same
 * name up to the first '.' on both sides; -1 when absent (or map NULL). */
int ecoi_file_host(const eco_map *map, const char *name);

/* eco_init's lookup of the subnet file (file, $ECO_SUBNET_FILE,
 * ~/.eco/subnets, the system file); *map stays NULL when there is none. */
int ecoi_load_subnet_file(const char *file, eco_map **map);

#endif
