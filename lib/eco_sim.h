/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * eco_sim.h -- private: the simulated transport (sim_transport.c).  The
 * library's own collectives run on simulated hosts in virtual time: every
 * member is a fiber (or a thread), only one runs at a time (cooperative scheduling),
 * and the one resumed is always the member whose next event is the
 * earliest, so that the network's links are reserved in nondecreasing
 * virtual time: a sequential discrete-event simulation, deterministic.
 * Not installed; eco-sim(1) and the unit tests use it.
 *
 * The network: every link of the topology (eco_topo.h), each direction a
 * FIFO resource of its rate; a host's own link at its rate, else at the
 * NIC rate below.  A message from host a to host b reserves, in order,
 * a's link out, the links up to the routers a and b share, the links
 * down to b and b's link in; it starts on each as soon as that link is
 * free and the message has started on the link before (cut-through), and
 * arrives when its slowest link is through.  A link may pass a burst at
 * once, as a token bucket (netbed's tbf) does: B bytes of bucket let
 * every bit leave as soon as it has come and the link at its rate would
 * have sent the bit B bytes before it (sim_transport.c: cross).  A link
 * may carry headers too (frame_bytes per packet of ECOI_SIM_MSS bytes of
 * the message), and the bucket and store and forward's packets count
 * them.  Per
 * message, the sender spends half of alpha before the message leaves and
 * the receiver the other half when it takes it; combining a reduction's
 * operands costs gamma per byte.  A send between hosts may hold its
 * sender as PVM's does (socket_bytes: pvm_send returns when the rest fits
 * in the task's socket buffer): until all but socket_bytes of the message,
 * and of the messages before it to the same member, are through the
 * path, at the pace the path gives it.  Members on one host exchange through
 * memory.
 */
#ifndef ECO_SIM_H
#define ECO_SIM_H

#include <stddef.h>
#include "eco_coll.h"
#include "eco_topo.h"

typedef struct ecoi_sim_costs {
    double alpha_hosts;   /* seconds per message between hosts */
    double alpha_tasks;   /* seconds per message between tasks of a host */
    double beta_tasks;    /* seconds per byte between tasks of a host */
    double nic_rate;      /* bits per second of a host link without a rate */
    double gamma;         /* seconds per byte combined */
    double burst_bytes;   /* a link's token bucket: at least these bytes, */
    double burst_seconds; /* and at least this long at its rate (0, 0: a
                           * plain wire) */
    double socket_bytes;  /* a send between hosts returns when all but this
                           * much of what the sender queued for that
                           * destination is through (0: when it leaves) */
    double mtu_bytes;     /* a link passes on whole packets of this many
                           * bytes, store and forward (0: every bit at once) */
    double frame_bytes;   /* header bytes a link carries per packet of
                           * ECOI_SIM_MSS bytes of a message (0: only the
                           * message's bytes) */
    double busy_members;  /* alpha_hosts is what a message costs while
                           * this many members run (a measured busy
                           * cost), and less while fewer do (ecoi_busy_at
                           * on cores); 0: alpha_hosts always */
    double cores;         /* the cores every host's members share (netbed:
                           * the machine's); 0: each host its own */
    double alpha_quiet;   /* the least a message between hosts costs (one
                           * member running); 0: no floor */
    double stepbyte;      /* what a byte of a message between hosts adds
                           * while busy_members run (a measured
                           * ecoi_model.stepbyte), in the share
                           * ecoi_step_share gives while fewer do, half at
                           * each end; 0: nothing */
} ecoi_sim_costs;

/* PVM's socket buffer on a direct route (TTSOCKBUF; select.c's
 * SOCKET_BYTES). */
#define ECOI_SIM_SOCKET_BYTES 32768.0

/* A message's bytes per packet on a link between hosts: TCP's MSS on an
 * Ethernet MTU of 1500 with timestamps (1500 - 20 IP - 32 TCP). */
#define ECOI_SIM_MSS 1448.0

/* The headers per packet at layer 2, which netbed's tbf counts (as an
 * Ethernet link carries them): Ethernet 14 + IP 20 + TCP 32, 1514 bytes
 * on the link per 1448 of payload. */
#define ECOI_SIM_FRAME_BYTES 66.0

/* netbed's tbf (tests/netbed/netbed: shape): two full frames at any rate. */
#define ECOI_SIM_NETBED_BURST_BYTES 3028.0
#define ECOI_SIM_NETBED_BURST_SECONDS 0.0

/* The cost model's defaults (lib/select.c: ecoi_model_default). */
void ecoi_sim_costs_default(ecoi_sim_costs *c);

typedef struct ecoi_sim ecoi_sim;
/* n members; member r on host node host_of[r] of topo.  topo NULL: a
 * flat network, member r alone on host r with only its own link.  data 0:
 * only sizes travel (receive buffers are left as they are). */
ecoi_sim *ecoi_sim_new(int n, const ecoi_topo *topo, const int *host_of,
                       const ecoi_sim_costs *costs, int data);
void ecoi_sim_free(ecoi_sim *s);
/* Member rank's transport; the simulation must outlive it. */
ecoi_transport *ecoi_sim_transport(ecoi_sim *s, int rank);
/* Run body(rank, arg) in every member, each a fiber (sim_transport.c; a
 * thread without them) of stack_bytes (0:
 * 128 KiB), to the end of all of them: ECO_OK, or ECO_ERR_NOMEM (no
 * fiber or thread could be made: nothing ran). */
int ecoi_sim_run(ecoi_sim *s, void (*body)(int rank, void *arg), void *arg,
                 size_t stack_bytes);
/* Member rank's virtual clock, seconds. */
double ecoi_sim_clock(const ecoi_sim *s, int rank);
/* Messages sent so far. */
long ecoi_sim_messages(const ecoi_sim *s);

#endif /* ECO_SIM_H */
