/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * eco_pvm.h -- private: the PVM side of the library (transport, init).
 */
#ifndef ECO_PVM_H
#define ECO_PVM_H

#include "eco_coll.h"

/* Tags of the library's control messages (outside the collectives'
 * ECOI_TAG_BASE | seq range).  Exit notices, aborts and acknowledgements
 * travel in ECOI_CTRL_CONTEXT; the boot message in ECOI_BOOT_CONTEXT. */
#define ECOI_TAG_EXIT 0x46000001   /* PVM's exit notice of a watched task */
#define ECOI_TAG_ABORT 0x46000002  /* a member gave up: (instance, status) */
#define ECOI_TAG_ACK 0x46000003    /* flow control: (instance, epoch) */
#define ECOI_TAG_WAIT 0x46000004   /* "I wait for you": (instance, call, tag,
                                    * sig, messages taken from you) */
#define ECOI_TAG_FLUSH 0x46000005  /* "tell me when you read these": (instance,
                                    * epoch, messages of the open epoch) */
#define ECOI_TAG_FLUSHED 0x46000006 /* "read": (instance, 0) */
#define ECOI_TAG_BOOT 0x47000000   /* rank 0's boot message */
#define ECOI_TAG_SPAWN 0x47000001  /* eco_init_spawn's task list (lib/spawn.c) */

/* The boot message's first word (lib/init.c): ECOI_BOOT_MAGIC ("EB") or'ed
 * with its format, a number that changes whenever what the message
 * carries does, so that a member of one libeco build refuses a boot
 * message of another instead of misreading it.  Format 1: the first with
 * this word (the cost model with its forward cost and its lock-step
 * byte cost, eco-characterize's version 8 files); format 2: the model's
 * shared cores too (version 9 files); format 3: the hops among the
 * members' hosts (ecoi_hops_part).  Builds before it packed rank 0's
 * status first (0 or an error), which no format word is; they take this
 * word for a status above 0 and fail with ECO_ERR_MISMATCH too. */
#define ECOI_BOOT_MAGIC 0x45420000
#define ECOI_BOOT_FORMAT 3
#define ECOI_BOOT_WORD (ECOI_BOOT_MAGIC | ECOI_BOOT_FORMAT)

/* The context in which eco_init's first message travels: below the range
 * pvm_newcontext hands out (host number << 18), so never one of those. */
#define ECOI_BOOT_CONTEXT 0x3ec0
/* 0x3ec1 and 0x3ec2, from the same range: ECOI_COMPAT_CONTEXT, the PVM
 * compatibility layer's broadcast traffic, and ECOI_CTRL_CONTEXT, the
 * library's control messages (eco_compat_iface.h). */

/* A transport over PVM for member rank of tids[0..n-1]; instance tells
 * its control messages from those of other contexts (rank 0 draws it).
 * encoding: PvmDataDefault (XDR), PvmDataRaw (always copied),
 * PvmDataInPlace (in place, but a message that fits one PVM fragment is
 * copied: pvm_transport.c, one_fragment), or ECOI_ENC_INPLACE (always in
 * place, ECO_ENCODING=inplace). */
#define ECOI_ENC_INPLACE (PvmDataInPlace | 0x100)
ecoi_transport *ecoi_pvm_transport(int n, int rank, const int *tids,
                                   int pvmctx, int owner, int encoding,
                                   unsigned instance);
/* Ask PVM for the exit notices of the transport's other members. */
int ecoi_pvm_watch(ecoi_transport *t);
/* For the tests (tests/pvm_planted.c): the number of messages in the
 * transport's stash unread (taken aside while of a later call), or -1
 * when the count kept per member, the moved-on rule's answer from it,
 * the stash's tail or its floor (a tag at or before every stashed one's)
 * differs from a walk of the stash. */
int ecoi_pvm_stash_check(const ecoi_transport *t);

/* The process-wide exit watch: PVM is asked once per task (a watch is
 * never cancelled, since PVM 3.4 answers a cancel with a notice). */
int ecoi_pvm_watch_tids(int n, const int *tids);
/* ecoi_pvm_pump: eco_compat_iface.h. */
/* 1 when the exit notice of tid has arrived. */
int ecoi_pvm_gone(int tid);
/* A matcher of PVM's receives (pvm_recvf). */
typedef int (*ecoi_matcher)(int mid, int tid, int tag);
/* Install m as the matcher of PVM's receives (NULL: PVM's own) and
 * return the one it replaces, to be installed again after: the library's
 * receives use PVM's own, not one the program installed (one that
 * ignores contexts, or takes only the program's tags).  pvm3.h declares
 * pvm_recvf's result with the wrong type; this casts it. */
ecoi_matcher ecoi_pvm_set_matcher(ecoi_matcher m);
/* Wait for the message (tid, tag) in the current PVM context, under
 * PVM's own matching (not a matcher the program installed: one that
 * ignores contexts would take the program's messages), reading control
 * messages meanwhile: ECO_OK and *bid the message (the active receive
 * buffer, the caller's to free), ECO_ERR_PEER when tid exits first, or
 * ECO_ERR_PVM.  For eco_init's first messages, before any transport. */
int ecoi_pvm_recv_from(int tid, int tag, int *bid);
/* Record a failed PVM call's status (< 0) for eco_last_pvm_error(NULL)
 * in this thread; returns ECO_ERR_PVM. */
int ecoi_pvm_error(int pvm_status);
/* An unpredictable 32-bit number (never 0). */
unsigned ecoi_random32(void);

/* A grace before a wait gives up on a member that looks lost (gone, or
 * on to a later call): it starts at the first look that sees it so, and
 * runs out when both `seconds` have passed since and the waiter has
 * looked `looks` times more.  The clock alone would count the time a
 * program spends outside the library (a member that polls eco_test every
 * 15 s would fail at its second look); looks alone, a busy poll's pace.
 * All zero: not started. */
typedef struct ecoi_grace {
    double since;       /* the first look's time (seconds) */
    unsigned looks;     /* the looks since, that one included */
} ecoi_grace;
/* One look at time now: 1 when the grace has run out. */
int ecoi_grace_look(ecoi_grace *g, double now, double seconds, unsigned looks);
/* Not started: the next look starts it again. */
void ecoi_grace_reset(ecoi_grace *g);

/* ecoi_file_host, ecoi_load_subnet_file (lib/init.c): eco_compat_iface.h. */

#endif
