/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * select.c -- which algorithm runs a collective: the candidates, what the
 * cost model predicts for each, and the choice.
 *
 * Choosing is kept apart from running.  For every collective a table
 * names its algorithms; each has a function that predicts its completion
 * time from the cost model (eco_map_impl.h: alpha + beta * bytes per
 * message, and the shared link of each subnet) for the members, the root
 * and the size at hand.  A call runs the algorithm with the least
 * predicted time.  The choice is made once per (collective, size class)
 * per context and kept; every member computes it from the same map, model
 * and arguments, so all members agree without a message.  A choice can be
 * forced by name (ECO_ALGORITHM, eco_set_pattern "OP=NAME"), and
 * eco-show --predict prints the table.
 *
 * The model (per message and per byte, per subnet and between subnets,
 * the per-byte cost of each subnet's shared link, and the least a
 * message costs while every member sends) comes from the subnet file
 * when eco-characterize measured it, else from the defaults below and
 * the file's costs.  Each host's own link has a rate: no faster than its
 * subnet's inside link nor its fastest measured pair inside the subnet
 * (host_rate); a message is no faster than either end's, and a member's
 * sends to (receives from) hosts of its subnet hold it at its own rate.
 * A barrier's message costs the busy cost in the share of members that
 * send at once (barrier_time).
 *
 * The predictions, with m the segment, s = ceil(bytes / m) segments:
 *   tree, chain:  the deepest root-to-leaf path for one segment (each
 *                 middle member on it adding the forward cost), plus
 *                 (s - 1) times the busiest resource per segment: a
 *                 member's sends (or receives and combines), a host's
 *                 traffic to other hosts, a subnet's shared link;
 *                 the segment is the m that minimises this; a link
 *                 between subnets with a burst (a token bucket) passes
 *                 the first segment's bytes up to the burst at once,
 *                 and what the bucket has left the next segments'
 *                 (burst_left);
 *   rsag:         the tree inside each subnet (reduce), a direct
 *                 reduce-scatter and gather-to-all among one leader per
 *                 subnet, the tree inside each subnet (broadcast), all
 *                 pipelined: one segment's way up, across and down, then
 *                 (s - 1) times the busiest resource when every stage
 *                 runs at once (the first segment's reduce-scatter
 *                 across idle links, their bursts at once); reduce-to-all
 *                 on one tree the same with nothing across;
 *   hier:         the blocks up the groups' trees, across among the
 *                 leaders and down the trees, all at once in units of
 *                 a block's segments, as long as the busiest resource or
 *                 the exchange's rounds, then the last unit's way down
 *                 (hier_pipe);
 *   ring:         n - 1 steps, each as long as the ring's slowest edge
 *                 with the lock-step step's cost added (ecoi_model_step);
 *   rdouble:      rounds (reduce-to-all: a fold, log2 p exchanges of
 *                 whole vectors, an unfold; scan: ceil(log2 n) rounds of
 *                 1, 2, 4, ... vectors, then n - 1 combines), each as
 *                 long as its slowest message (with the lock-step
 *                 step's cost) and combine, or as its
 *                 busiest resource when the round's messages share one;
 *   direct:       each member's n - 1 sends, each subnet's shared link
 *                 carrying all its members' blocks out and in;
 *   scatter:      the messages down the tree overlapping on the network
 *                 (sends do not wait for their receivers), each taking
 *                 the host, subnet and site links it crosses as they
 *                 come free, in the order they were sent (tree_scatter);
 *   gather:       the same up the tree, every member sending as soon as
 *                 its subtree is in (tree_gather_net).
 *
 * A link's queue holds LINK_QUEUE seconds at its rate.  A pipeline's
 * segment is cut so that its rounds fit every link's queue (best_segment).
 * An all-to-all candidate is "over" (ECOI_OVER_QUEUE) when the streams
 * it sends at once (direct: every member's to the next ECOI_A2A_CHUNK;
 * hier: each leader's message and the tail of its last one, the gather
 * and the scatter; hier-rounds: a round's messages) need more than some
 * link (a host's, a subnet's, a site's: those loads charge) queues, each
 * the window of a fast retransmit (FAST_RETRANSMIT segments) or its
 * whole message if shorter: a loss there waits for a timeout.  Its
 * leaders' exchange "floods" (ECOI_OVER_FLOOD) when its streams arrive
 * at some link faster than it drains them (loads_flood): losses that
 * fast retransmit recovers.  The choice (ecoi_choose) passes over a
 * candidate that is over or floods for the best that is neither, unless
 * that one is predicted more than QUEUE_SLACK slower, then for the best
 * that only floods, on the same terms.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "eco_coll.h"
#include "eco_log.h"

/* ------------------------------------------------------------------ */
/* Defaults, for maps whose file has no measured model                 */
/* ------------------------------------------------------------------ */

/* The file's costs are one-way times of probes of this many bytes
 * (eco-characterize's default --size). */
#define PROBE_BYTES 16384.0
/* PVM's cost per message between two hosts (a direct TCP route on a LAN)
 * and between two tasks of one host; per byte between tasks of a host;
 * and when nothing was measured, per byte between hosts (1 Gbit/s). */
#define ALPHA_HOSTS 40e-6
#define ALPHA_TASKS 25e-6
#define BETA_TASKS 0.5e-9
#define BETA_HOSTS 8e-9
/* Combining one byte of a reduction. */
#define GAMMA 0.5e-9
/* What a task's socket to another task takes before a send waits: PVM
 * sets 32 KiB send and receive buffers on direct routes (TTSOCKBUF in
 * lpvm.c; Linux shows 64 KiB with its own overhead).  A longer message
 * holds its sender until all but this much has left. */
#define SOCKET_BYTES 32768.0
/* The least cost of a message when every member is busy (packing,
 * system calls and the daemons' share of the CPUs), when the model has
 * no measured one (ecoi_model.busy 0: no model, one host, a file from
 * before eco-characterize measured it).  eco-characterize's alpha is a
 * quiet round trip's (about 10 us on one machine's namespaces), while a
 * barrier of 6 tasks on 2 cores spends 200 to 400 us per message; without
 * this floor the model cut 128 KiB into 1 KiB segments and lost a third
 * of the bandwidth to per-message costs.  Erring high only costs a
 * little pipelining; erring low costs bandwidth. */
#define DEFAULT_BUSY 150e-6

double ecoi_model_busy(const ecoi_model *m)
{
    return m && m->busy > 0.0 ? m->busy : DEFAULT_BUSY;
}

/*
 * What a message costs while `runnable` members are runnable at once,
 * when it costs `busy` while `members` are (eco-characterize's busy: one
 * probe per host, all sending and receiving) and every member runs on
 * `cores` shared cores.  Most of a message's cost on one machine is CPU
 * time (packing, system calls, the kernel's copies), and r processes on c
 * cores each get min(1, c / r) of one: a message's wall time is its CPU
 * time w times max(r, c) / c.  busy is w max(members, c) / c, so
 *
 *     cost(r) = busy x max(r, c) / max(members, c),
 *
 * at least `quiet` (a message alone).  cores <= 0: every member its own
 * CPU (separate machines): busy whatever runs.  netbed runs every
 * emulated host on one machine: on its 2 cores, switched8's 8 hosts
 * measured busy 87 us a message (135 in a run under more load), so a
 * member that sends while the others wait pays 22 us (34; the quiet
 * one-way alpha measured 12 to 15 us).  Its barrier (the root's 7
 * receives and 7 sends, then eco-bench's 7 acknowledgements, the others
 * mostly waiting) measured 0.34-0.41 ms (0.72-0.95), simulated 0.91
 * (1.42) at busy on every message, 0.28-0.31 (0.44-0.48) at this rule.
 * Where the busy round is bound by small messages on a slow link (5 and
 * 10 Mbit/s: uneven, eco-paper) busy is mostly wire time, not CPU, and
 * the rule charges too much: their barriers simulate at up to 1.53 and
 * 1.36 of the measured.
 */
/* A byte's copies cost w of a core; with r processes on c cores each
 * gets c / r of one, so a byte costs w r / c, w (r / c - 1) more than
 * quiet: stepbyte at r = members, so the excess at r is stepbyte x
 * (r - c) / (members - c), none while r <= c. */
double ecoi_step_share(double runnable, double members, double cores)
{
    const double c = cores > 0.0 ? cores : 1.0;

    return members > c ? fmin(1.0, fmax(0.0, (runnable - c) / (members - c))) : 0.0;
}

double ecoi_busy_at(double busy, double quiet, double runnable, double members, double cores)
{
    if (cores <= 0.0 || members <= 0.0)
        return busy;
    return fmax(quiet, busy * fmax(runnable, cores) / fmax(members, cores));
}

/* What a lock-step step, where every member sends one message and waits
 * for its own before the next (a ring's steps, recursive doubling's
 * rounds), costs beyond its message's quiet time (ecoi_model.step,
 * measured by eco-characterize; 0 when not measured: nothing added).
 * On switched8.topo (8 emulated hosts on 2 cores) a probe's step took
 * 111.6 us where its link's alpha and beta give 18 us, and busy says
 * 77 us a message (a stream's, a throughput). */
double ecoi_model_step(const ecoi_model *m)
{
    return m && m->step > 0.0 ? m->step : 0.0;
}

/* The cores the barrier's and the lock-step steps' share of the busy
 * cost counts (ecoi_busy_at, ecoi_step_share): the model's (found by
 * eco-characterize: the hosts share a machine's cores, netbed's 8
 * emulated hosts 2), else 1.  0 (each host its own CPUs, or not known:
 * no file says so before version 9) keeps one core, not each its own:
 * these two rules were fitted with one core on netbed, every host on one
 * machine, and own CPUs would charge a barrier's message all of busy
 * whatever runs (0.91 ms simulated on switched8, 0.34-0.41 measured).
 * The cores only change what fewer members than cores pay: switched8's
 * star barrier was predicted 0.48 ms on one core and 0.52 on its 2 (the
 * root's 7 releases at 2/8 of busy, not 1/8), measured 0.39-0.42 from
 * the barrier's release and 0.52-0.57 with eco-bench's agreed start; the
 * way up, the root's 7 receives at 7/8 of busy each, is most of it on
 * any count of cores. */
static double model_cores(const ecoi_model *m)
{
    return m && m->cores > 0.0 ? m->cores : 1.0;
}

static ecoi_cost cost_from_probe(double seconds)
{
    ecoi_cost c = { ALPHA_HOSTS, BETA_HOSTS };

    if (seconds > 0) {
        c.alpha = seconds < ALPHA_HOSTS ? seconds : ALPHA_HOSTS;
        c.beta = (seconds - c.alpha) / PROBE_BYTES;
    }
    return c;
}

ecoi_model *ecoi_model_default(const eco_map *m)
{
    int S = m && m->nsubnets > 0 ? m->nsubnets : 1;
    ecoi_model *out = ecoi_model_new(S);

    if (!out)
        return NULL;
    out->task.alpha = ALPHA_TASKS;
    out->task.beta = BETA_TASKS;
    /* the cheapest measured cost between a host of s and one of t (two
     * distinct hosts of s when s == t): one pass over the pairs */
    {
        double *best = malloc((size_t)S * (size_t)S * sizeof *best);
        if (!best) {
            ecoi_model_free(out);
            return NULL;
        }
        for (size_t i = 0; i < (size_t)S * (size_t)S; i++)
            best[i] = -1.0;
        for (int a = 0; m && m->subnet && m->nsubnets > 0 && a < m->nhosts; a++)
            for (int i = 0; i < m->adj[a].n; i++) { /* the measured pairs */
                int s = m->subnet[a], t = m->subnet[m->adj[a].link[i].to];
                double c = m->adj[a].link[i].cost;
                if (s < 0 || t < 0 || s >= S || t >= S || c <= 0)
                    continue;
                if (best[s * S + t] < 0 || c < best[s * S + t])
                    best[s * S + t] = best[t * S + s] = c;
            }
        for (int s = 0; s < S; s++)
            for (int t = 0; t < S; t++)
                out->link[s * S + t] = cost_from_probe(best[s * S + t]);
        free(best);
    }
    /* Without a measurement, a subnet's hosts share its link out: the
     * cheapest way out of it is as fast as that link. */
    for (int s = 0; s < S; s++) {
        double up = -1.0;
        for (int t = 0; t < S; t++)
            if (t != s && (up < 0 || out->link[s * S + t].beta < up))
                up = out->link[s * S + t].beta;
        out->uplink[s] = up > 0 ? up : 0.0;
    }
    return out;
}

/* ------------------------------------------------------------------ */
/* The candidates                                                      */
/* ------------------------------------------------------------------ */

#define FILE_K 0
static const ecoi_algorithm algorithms[] = {
    /* name         op                run               among subnets      hosts         tasks   level */
    { "tree",      ECOI_C_BCAST,     ECOI_RUN_TREE,  { ECOI_AMONG_TREE,  FILE_K,       FILE_K }, 0 },
    { "tree-k2",   ECOI_C_BCAST,     ECOI_RUN_TREE,  { ECOI_AMONG_TREE,  2,            2 }, 0 },
    { "tree-k3",   ECOI_C_BCAST,     ECOI_RUN_TREE,  { ECOI_AMONG_TREE,  3,            3 }, 0 },
    { "tree-k4",   ECOI_C_BCAST,     ECOI_RUN_TREE,  { ECOI_AMONG_TREE,  4,            4 }, 0 },
    { "chain",     ECOI_C_BCAST,     ECOI_RUN_TREE,  { ECOI_AMONG_CHAIN, FILE_K,       FILE_K }, 0 },
    { "chain-k2",  ECOI_C_BCAST,     ECOI_RUN_TREE,  { ECOI_AMONG_CHAIN, 2,            2 }, 0 },
    { "star",      ECOI_C_BCAST,     ECOI_RUN_TREE,  { ECOI_AMONG_TREE,  ECOI_K_STAR,  ECOI_K_STAR }, 0 },
    { "tree",      ECOI_C_REDUCE,    ECOI_RUN_TREE,  { ECOI_AMONG_TREE,  FILE_K,       FILE_K }, 0 },
    { "tree-k2",   ECOI_C_REDUCE,    ECOI_RUN_TREE,  { ECOI_AMONG_TREE,  2,            2 }, 0 },
    { "tree-k3",   ECOI_C_REDUCE,    ECOI_RUN_TREE,  { ECOI_AMONG_TREE,  3,            3 }, 0 },
    { "tree-k4",   ECOI_C_REDUCE,    ECOI_RUN_TREE,  { ECOI_AMONG_TREE,  4,            4 }, 0 },
    { "chain",     ECOI_C_REDUCE,    ECOI_RUN_TREE,  { ECOI_AMONG_CHAIN, FILE_K,       FILE_K }, 0 },
    { "chain-k2",  ECOI_C_REDUCE,    ECOI_RUN_TREE,  { ECOI_AMONG_CHAIN, 2,            2 }, 0 },
    { "star",      ECOI_C_REDUCE,    ECOI_RUN_TREE,  { ECOI_AMONG_TREE,  ECOI_K_STAR,  ECOI_K_STAR }, 0 },
    { "tree",      ECOI_C_ALLREDUCE, ECOI_RUN_TREE,  { ECOI_AMONG_TREE,  FILE_K,       FILE_K }, 0 },
    { "tree-k2",   ECOI_C_ALLREDUCE, ECOI_RUN_TREE,  { ECOI_AMONG_TREE,  2,            2 }, 0 },
    { "tree-k3",   ECOI_C_ALLREDUCE, ECOI_RUN_TREE,  { ECOI_AMONG_TREE,  3,            3 }, 0 },
    { "tree-k4",   ECOI_C_ALLREDUCE, ECOI_RUN_TREE,  { ECOI_AMONG_TREE,  4,            4 }, 0 },
    { "chain",     ECOI_C_ALLREDUCE, ECOI_RUN_TREE,  { ECOI_AMONG_CHAIN, FILE_K,       FILE_K }, 0 },
    { "chain-k2",  ECOI_C_ALLREDUCE, ECOI_RUN_TREE,  { ECOI_AMONG_CHAIN, 2,            2 }, 0 },
    { "star",      ECOI_C_ALLREDUCE, ECOI_RUN_TREE,  { ECOI_AMONG_TREE,  ECOI_K_STAR,  ECOI_K_STAR }, 0 },
    { "rsag",      ECOI_C_ALLREDUCE, ECOI_RUN_RSAG,  { ECOI_AMONG_TREE,  FILE_K,       FILE_K }, 0 },
    { "rsag-k2",   ECOI_C_ALLREDUCE, ECOI_RUN_RSAG,  { ECOI_AMONG_TREE,  2,            2 }, 0 },
    { "rsag-sites", ECOI_C_ALLREDUCE, ECOI_RUN_RSAG, { ECOI_AMONG_TREE,  FILE_K,       FILE_K },
      ECOI_LEVEL_SITES },
    { "rdouble",   ECOI_C_ALLREDUCE, ECOI_RUN_RDOUBLE, { ECOI_AMONG_TREE, FILE_K,      FILE_K }, 0 },
    { "ring",      ECOI_C_ALLREDUCE, ECOI_RUN_RING,  { ECOI_AMONG_TREE,  FILE_K,       FILE_K }, 0 },
    { "star",      ECOI_C_GATHER,    ECOI_RUN_TREE,  { ECOI_AMONG_TREE,  ECOI_K_STAR,  ECOI_K_STAR }, 0 },
    { "flat",      ECOI_C_GATHER,    ECOI_RUN_TREE,  { ECOI_AMONG_STAR,  ECOI_K_STAR,  ECOI_K_STAR }, 0 },
    { "paced",     ECOI_C_GATHER,    ECOI_RUN_PACED, { ECOI_AMONG_TREE,  ECOI_K_STAR,  ECOI_K_STAR }, 0 },
    { "star",      ECOI_C_SCATTER,   ECOI_RUN_TREE,  { ECOI_AMONG_TREE,  ECOI_K_STAR,  ECOI_K_STAR }, 0 },
    { "flat",      ECOI_C_SCATTER,   ECOI_RUN_TREE,  { ECOI_AMONG_STAR,  ECOI_K_STAR,  ECOI_K_STAR }, 0 },
    { "flat-far",  ECOI_C_SCATTER,   ECOI_RUN_TREE,  { ECOI_AMONG_STAR_FAR, ECOI_K_STAR, ECOI_K_STAR }, 0 },
    { "gather-bcast", ECOI_C_ALLGATHER, ECOI_RUN_TREE, { ECOI_AMONG_TREE, ECOI_K_STAR, ECOI_K_STAR }, 0 },
    { "flat-bcast", ECOI_C_ALLGATHER, ECOI_RUN_TREE, { ECOI_AMONG_STAR, ECOI_K_STAR, ECOI_K_STAR }, 0 },
    { "ring",      ECOI_C_ALLGATHER, ECOI_RUN_RING,  { ECOI_AMONG_TREE,  FILE_K,       FILE_K }, 0 },
    { "hier",      ECOI_C_ALLGATHER, ECOI_RUN_HIER,  { ECOI_AMONG_TREE,  ECOI_K_STAR,  ECOI_K_STAR }, 0 },
    { "hier-k2",   ECOI_C_ALLGATHER, ECOI_RUN_HIER,  { ECOI_AMONG_TREE,  2,            2 }, 0 },
    { "hier-sites", ECOI_C_ALLGATHER, ECOI_RUN_HIER, { ECOI_AMONG_TREE,  ECOI_K_STAR,  ECOI_K_STAR },
      ECOI_LEVEL_SITES },
    { "hier-chain", ECOI_C_ALLGATHER, ECOI_RUN_HIER, { ECOI_AMONG_CHAIN, ECOI_K_STAR,  ECOI_K_STAR },
      ECOI_LEVEL_SITES },
    { "hier-turns", ECOI_C_ALLGATHER, ECOI_RUN_TURNS, { ECOI_AMONG_TREE, ECOI_K_STAR,  ECOI_K_STAR }, 0 },
    { "tree",      ECOI_C_SCAN,      ECOI_RUN_TREE,  { ECOI_AMONG_TREE,  ECOI_K_STAR,  ECOI_K_STAR }, 0 },
    { "flat",      ECOI_C_SCAN,      ECOI_RUN_TREE,  { ECOI_AMONG_STAR,  ECOI_K_STAR,  ECOI_K_STAR }, 0 },
    { "chain",     ECOI_C_SCAN,      ECOI_RUN_CHAIN, { ECOI_AMONG_TREE,  FILE_K,       FILE_K }, 0 },
    { "rdouble",   ECOI_C_SCAN,      ECOI_RUN_RDOUBLE, { ECOI_AMONG_TREE, FILE_K,      FILE_K }, 0 },
    { "direct",    ECOI_C_ALLTOALL,  ECOI_RUN_DIRECT,{ ECOI_AMONG_TREE,  FILE_K,       FILE_K }, 0 },
    { "hier",      ECOI_C_ALLTOALL,  ECOI_RUN_HIER,  { ECOI_AMONG_TREE,  ECOI_K_STAR,  ECOI_K_STAR }, 0 },
    { "hier-rounds", ECOI_C_ALLTOALL, ECOI_RUN_ROUNDS, { ECOI_AMONG_TREE, ECOI_K_STAR,  ECOI_K_STAR }, 0 },
    { "hier-turns", ECOI_C_ALLTOALL, ECOI_RUN_TURNS, { ECOI_AMONG_TREE,  ECOI_K_STAR,  ECOI_K_STAR }, 0 },
    { "star",      ECOI_C_BARRIER,   ECOI_RUN_TREE,  { ECOI_AMONG_TREE,  ECOI_K_STAR,  ECOI_K_STAR }, 0 },
    { "flat",      ECOI_C_BARRIER,   ECOI_RUN_TREE,  { ECOI_AMONG_STAR,  ECOI_K_STAR,  ECOI_K_STAR }, 0 },
    /* the vector forms */
    { "star",      ECOI_C_GATHERV,   ECOI_RUN_TREE,  { ECOI_AMONG_TREE,  ECOI_K_STAR,  ECOI_K_STAR }, 0 },
    { "flat",      ECOI_C_GATHERV,   ECOI_RUN_TREE,  { ECOI_AMONG_STAR,  ECOI_K_STAR,  ECOI_K_STAR }, 0 },
    { "gather-bcast", ECOI_C_ALLGATHERV, ECOI_RUN_TREE, { ECOI_AMONG_TREE, ECOI_K_STAR, ECOI_K_STAR }, 0 },
    { "ring",      ECOI_C_ALLGATHERV, ECOI_RUN_RING, { ECOI_AMONG_TREE,  FILE_K,       FILE_K }, 0 },
    { "star",      ECOI_C_SCATTERV,  ECOI_RUN_TREE,  { ECOI_AMONG_TREE,  ECOI_K_STAR,  ECOI_K_STAR }, 0 },
    { "flat",      ECOI_C_SCATTERV,  ECOI_RUN_TREE,  { ECOI_AMONG_STAR,  ECOI_K_STAR,  ECOI_K_STAR }, 0 },
    { "direct",    ECOI_C_ALLTOALLV, ECOI_RUN_DIRECT,{ ECOI_AMONG_TREE,  FILE_K,       FILE_K }, 0 },
    { "tree",      ECOI_C_REDUCE_SCATTER, ECOI_RUN_TREE, { ECOI_AMONG_TREE, FILE_K,    FILE_K }, 0 },
    { "chain",     ECOI_C_REDUCE_SCATTER, ECOI_RUN_TREE, { ECOI_AMONG_CHAIN, FILE_K,   FILE_K }, 0 },
    { "tree",      ECOI_C_EXSCAN,    ECOI_RUN_TREE,  { ECOI_AMONG_TREE,  ECOI_K_STAR,  ECOI_K_STAR }, 0 },
    { "flat",      ECOI_C_EXSCAN,    ECOI_RUN_TREE,  { ECOI_AMONG_STAR,  ECOI_K_STAR,  ECOI_K_STAR }, 0 },
    { "chain",     ECOI_C_EXSCAN,    ECOI_RUN_CHAIN, { ECOI_AMONG_TREE,  FILE_K,       FILE_K }, 0 },
    { "rdouble",   ECOI_C_EXSCAN,    ECOI_RUN_RDOUBLE, { ECOI_AMONG_TREE, FILE_K,      FILE_K }, 0 },
};
#define NALG ((int)(sizeof algorithms / sizeof algorithms[0]))

static const char *const coll_names[ECOI_NCOLL] = {
    "bcast", "reduce", "allreduce", "gather", "allgather", "scatter",
    "alltoall", "scan", "barrier",
    "gatherv", "allgatherv", "scatterv", "alltoallv", "reduce_scatter", "exscan"
};

const char *ecoi_coll_name(int coll)
{
    return coll >= 0 && coll < ECOI_NCOLL ? coll_names[coll] : "?";
}

int ecoi_coll_from_name(const char *name)
{
    for (int c = 0; c < ECOI_NCOLL; c++)
        if (strcmp(name, coll_names[c]) == 0)
            return c;
    return -1;
}

const ecoi_algorithm *ecoi_algorithm_at(int i)
{
    return i >= 0 && i < NALG ? &algorithms[i] : NULL;
}

int ecoi_algorithm_find(int coll, const char *name, size_t len)
{
    for (int i = 0; i < NALG; i++)
        if (algorithms[i].coll == coll && strlen(algorithms[i].name) == len &&
            strncmp(algorithms[i].name, name, len) == 0)
            return i;
    return -1;
}

/* ------------------------------------------------------------------ */
/* Levels: subnets, and sites of subnets                               */
/* ------------------------------------------------------------------ */

/* The cost of a 16 KiB message between subnets s and t. */
static double link_cost(const ecoi_model *md, int s, int t)
{
    ecoi_cost c = md->link[s * md->nsubnets + t];
    return c.alpha + c.beta * PROBE_BYTES;
}

int ecoi_groups(const eco_map *map, const ecoi_model *model, int n, const int *mh,
                int level, int *group)
{
    ecoi_model *dflt = NULL;
    const ecoi_model *md = model;
    int S = map && map->nsubnets > 0 ? map->nsubnets : 0, ng = 0, rc = ECO_OK;
    int *site = NULL, *id = NULL, *hops = NULL;
    double *cost = NULL, th = map && map->threshold > 0 ? map->threshold : 0.2;

    if (S > 0 && (!md || md->nsubnets != S)) {
        if (!(dflt = ecoi_model_default(map)))
            return ECO_ERR_NOMEM;
        md = dflt;
    }
    site = malloc(((size_t)S + 1) * sizeof *site);
    id = malloc(((size_t)S + 1) * sizeof *id);
    if (!site || !id) {
        rc = ECO_ERR_NOMEM;
        goto out;
    }
    for (int s = 0; s < S; s++) {
        site[s] = s;
        id[s] = -1;
    }
    if (level == ECOI_LEVEL_SITES && S > 0) {
        if (!(cost = malloc((size_t)S * (size_t)S * sizeof *cost))) {
            rc = ECO_ERR_NOMEM;
            goto out;
        }
        for (int s = 0; s < S; s++)
            for (int t = 0; t < S; t++)
                cost[(size_t)s * (size_t)S + (size_t)t] = s == t ? 0.0 : link_cost(md, s, t);
        /* each subnet's first host stands for it in routers (id: scratch) */
        for (int h = map->nhosts - 1; h >= 0; h--)
            if (map->subnet && map->subnet[h] >= 0 && map->subnet[h] < S)
                id[map->subnet[h]] = h;
        if (!(hops = ecoi_sites_hops(map, S, id))) {
            rc = ECO_ERR_NOMEM;
            goto out;
        }
        for (int s = 0; s < S; s++)
            id[s] = -1;
        if ((rc = ecoi_sites(S, cost, th, hops, site)) < 0)
            goto out;
        rc = ECO_OK;
    }
    for (int m = 0; m < n; m++) {
        int h = mh[m], s = map && map->subnet && h >= 0 && h < map->nhosts
                             ? map->subnet[h] : -1;
        if (s < 0 || s >= S) {
            group[m] = S + m;     /* a subnet of its own */
            ng++;
            continue;
        }
        s = site[s];
        if (id[s] < 0)
            id[s] = ng++;
        group[m] = id[s];
    }
out:
    free(site);
    free(id);
    free(hops);
    free(cost);
    ecoi_model_free(dflt);
    return rc == ECO_OK ? ng : rc;
}

/* The context's model: its map's, else the defaults, made once. */
static const ecoi_model *ctx_model(eco_ctx *c)
{
    const eco_map *m = c->map;

    if (m && m->model && m->model->nsubnets == m->nsubnets)
        return m->model;
    if (!c->dflt_model)
        c->dflt_model = ecoi_model_default(m);
    return c->dflt_model;
}

int ecoi_ctx_groups(eco_ctx *c, int level, const int **group)
{
    if (c->share)
        return ecoi_ctx_groups(c->share, level, group);
    if (!c->groups[level]) {
        int *g = malloc((size_t)c->n * sizeof *g), rc;
        if (!g)
            return ECO_ERR_NOMEM;
        rc = ecoi_groups(c->map, ctx_model(c), c->n, c->member_host, level, g);
        if (rc < 0) {
            free(g);
            return rc;
        }
        c->groups[level] = g;
    }
    *group = c->groups[level];
    return ECO_OK;
}

int ecoi_forest_roots(const eco_tree *forest, int *lead)
{
    int S = 0;

    for (int i = 0; i < forest->n; i++)
        if (forest->parent[forest->order[i]] < 0)
            lead[S++] = forest->order[i];
    return S;
}

int ecoi_ctx_forest(eco_ctx *c, const ecoi_plan *plan, eco_tree **forest, int **lead,
                    int *nlead, int *me)
{
    const eco_tree *t = NULL;
    const int *group = NULL, *site = NULL;
    int rc = ecoi_ctx_shape(c, 0, plan->shape, &t);

    *forest = NULL;
    *lead = NULL;
    if (rc == ECO_OK)
        rc = ecoi_ctx_groups(c, ECOI_LEVEL_SUBNETS, &group);
    if (rc == ECO_OK && plan->level == ECOI_LEVEL_SITES)
        rc = ecoi_ctx_groups(c, ECOI_LEVEL_SITES, &site);
    if (rc == ECO_OK)
        rc = ecoi_tree_cut(t, group, site, forest);
    if (rc == ECO_OK && !(*lead = malloc((size_t)c->n * sizeof **lead)))
        rc = ECO_ERR_NOMEM;
    if (rc != ECO_OK) {
        eco_tree_free(forest);
        return rc;
    }
    *nlead = ecoi_forest_roots(*forest, *lead);
    *me = -1;
    for (int i = 0; i < *nlead; i++)
        if ((*lead)[i] == c->rank)
            *me = i;
    return ECO_OK;
}

/* ------------------------------------------------------------------ */
/* The model as predictions read it                                    */
/* ------------------------------------------------------------------ */

typedef struct pm {
    const eco_map *map;
    const ecoi_model *model;
    double busy;     /* seconds per message at the least (ecoi_model_busy) */
    double step;     /* seconds a lock-step step adds (ecoi_model_step) */
    double forward;  /* seconds a member that passes a message on adds to
                      * its hop (ecoi_model.forward; 0: not measured) */
    double stepbyte; /* seconds a byte of a lock-step step's message adds
                      * (ecoi_model.stepbyte; 0: not measured) */
    double cores;    /* the cores the members' runnable share is counted
                      * on (model_cores) */
    int n;
    const int *mh;   /* [n] member -> host, -1 unknown */
    int *sub;        /* [n] member -> subnet of the model, -1 own */
    int *site;       /* [n] member -> site, when sites group subnets, else NULL */
    double *hrate;   /* [n] seconds per byte of the member's host's own link,
                      * 0 when not known (host_rate) */
    double *ul;      /* [nsubnets] seconds per byte of each subnet's shared
                      * link (subnet_link), 0 when not known */
    double *ub;      /* [nsubnets] seconds that link passes at once (its
                      * burst at its rate; uplink_burst) */
    int nhosts;
} pm;

/* Seconds per byte of subnet s's link to the others: the measured uplink
 * when eco-characterize found one shared, else no faster than s's
 * fastest pair out.  uneven.topo's 10 Mbit/s segment was not found
 * shared (its second stream went to the 5 Mbit/s segment, which held
 * both streams alike), and a member there that took a segment from
 * each other subnet was charged both pairs' rates one after the other
 * (10 + 5 Mbit/s): reduce-to-all's tree was predicted 375 ms at 128 KB,
 * measured 255. */
static double subnet_link(const ecoi_model *m, int s)
{
    const int S = m->nsubnets;
    double best = 0.0;

    if (m->uplink[s] > 0)
        return m->uplink[s];
    for (int t = 0; t < S; t++)
        if (t != s && m->link[s * S + t].beta > 0 &&
            (best == 0.0 || m->link[s * S + t].beta < best))
            best = m->link[s * S + t].beta;
    return best;
}

/* Seconds per byte of host h's own link (h in subnet s): no faster than
 * its subnet's inside link, nor than its fastest measured pair inside the
 * subnet (the pair's 16 KiB cost less the subnet's alpha, per byte):
 * slowhosts.topo's 10 Mbit/s hosts on a 100 Mbit/s switch, whose subnet
 * link was measured between two fast hosts.  Only pairs inside the
 * subnet: a pair outside crosses the subnet's shared link.  0: not known
 * (no subnet). */
static double host_rate(const eco_map *map, const ecoi_model *model, int h, int s)
{
    const int S = model->nsubnets;
    double best = -1.0, alpha;

    if (s < 0 || s >= S)
        return 0.0;
    alpha = model->link[s * S + s].alpha;
    for (int i = 0; map->adj && i < map->adj[h].n; i++) {
        const ecoi_link *e = &map->adj[h].link[i];
        double b;
        if (e->cost <= 0 || e->to < 0 || e->to >= map->nhosts || map->subnet[e->to] != s)
            continue;
        b = (e->cost - fmin(alpha, e->cost)) / PROBE_BYTES;
        if (best < 0 || b < best)
            best = b;
    }
    return fmax(best, model->link[s * S + s].beta);
}

/* The bytes subnet s's shared link passes at once: the smallest burst
 * measured between s and another subnet (none measured: 0). */
static double uplink_burst(const ecoi_model *m, int s)
{
    double b = INFINITY;

    for (int t = 0; t < m->nsubnets; t++)
        if (t != s)
            b = fmin(b, ecoi_model_burst(m, s, t));
    return isfinite(b) ? b : 0.0;
}

static int pm_init(pm *p, const eco_map *map, const ecoi_model *model, int n,
                   const int *mh)
{
    p->map = map;
    p->model = model;
    p->busy = ecoi_model_busy(model);
    p->step = ecoi_model_step(model);
    p->forward = model->forward > 0.0 ? model->forward : 0.0;
    p->stepbyte = model->stepbyte > 0.0 ? model->stepbyte : 0.0;
    p->cores = model_cores(model);
    p->n = n;
    p->mh = mh;
    p->nhosts = map ? map->nhosts : 0;
    p->sub = malloc((size_t)n * sizeof *p->sub);
    if (!p->sub)
        return ECO_ERR_NOMEM;
    for (int r = 0; r < n; r++) {
        int h = mh[r], s = -1;
        if (map && map->subnet && h >= 0 && h < map->nhosts)
            s = map->subnet[h];
        p->sub[r] = s >= 0 && s < model->nsubnets ? s : -1;
    }
    p->hrate = calloc((size_t)n + 1, sizeof *p->hrate);
    p->ul = calloc((size_t)model->nsubnets + 1, sizeof *p->ul);
    p->ub = calloc((size_t)model->nsubnets + 1, sizeof *p->ub);
    if (!p->hrate || !p->ul || !p->ub)
        return ECO_ERR_NOMEM;
    for (int s = 0; s < model->nsubnets; s++) {
        p->ul[s] = subnet_link(model, s);
        p->ub[s] = p->ul[s] * uplink_burst(model, s);
    }
    for (int r = 0; r < n; r++)
        if (p->sub[r] >= 0 && mh[r] >= 0 && mh[r] < map->nhosts)
            p->hrate[r] = host_rate(map, model, mh[r], p->sub[r]);
    /* Sites that group several subnets share their link out too (the
     * same assumption as for a subnet's hosts). */
    p->site = malloc((size_t)n * sizeof *p->site);
    if (!p->site)
        return ECO_ERR_NOMEM;
    {
        int *tmp = malloc((size_t)n * sizeof *tmp), ns, nsub;
        if (!tmp)
            return ECO_ERR_NOMEM;
        ns = ecoi_groups(map, model, n, mh, ECOI_LEVEL_SITES, p->site);
        nsub = ecoi_groups(map, model, n, mh, ECOI_LEVEL_SUBNETS, tmp);
        free(tmp);
        if (ns < 0 || nsub < 0)
            return ns < 0 ? ns : nsub;
        if (ns < 2 || ns == nsub) {
            free(p->site);
            p->site = NULL;
        }
    }
    return ECO_OK;
}

/* The pair's cost on a quiet network: alpha a quiet round trip's, beta
 * no faster than the links it crosses. */
static ecoi_cost pair_cost_quiet(const pm *p, int a, int b)
{
    static const ecoi_cost lan = { ALPHA_HOSTS, BETA_HOSTS };
    int sa = p->sub[a], sb = p->sub[b];

    ecoi_cost c = p->mh[a] >= 0 && p->mh[a] == p->mh[b] ? p->model->task
                : sa < 0 || sb < 0 ? lan
                : p->model->link[sa * p->model->nsubnets + sb];

    /* no message leaves (or enters) a subnet faster than its shared link */
    if (sa >= 0 && sb >= 0 && sa != sb)
        c.beta = fmax(c.beta, fmax(p->ul[sa], p->ul[sb]));
    /* nor a host faster than its own link */
    if (p->mh[a] != p->mh[b])
        c.beta = fmax(c.beta, fmax(p->hrate[a], p->hrate[b]));
    return c;
}

static ecoi_cost pair_cost(const pm *p, int a, int b)
{
    ecoi_cost c = pair_cost_quiet(p, a, b);

    /* a quiet round trip's alpha is not what a message costs while all
     * members send: no message costs less than the busy one */
    c.alpha = fmax(c.alpha, p->busy);
    return c;
}

/* One message of `bytes` from a to b, alone on the network. */
static double msg(const pm *p, int a, int b, double bytes)
{
    ecoi_cost c = pair_cost(p, a, b);
    return c.alpha + c.beta * bytes;
}

/* The share of the stepbyte (measured with every member sending) that a
 * step pays when `senders` of the p->n members send at once
 * (ecoi_step_share on the model's cores, as the barrier's busy cost:
 * model_cores): 0 with as many senders as cores, all of it with every
 * member (all-to-all's leaders' rounds pay (S - 1) / (n - 1) of it on
 * one core). */
static double step_share(const pm *p, int senders)
{
    return ecoi_step_share(senders, p->n, p->cores);
}

/* One message of `bytes` from a to b in a lock-step step: every member
 * sends one and waits for its own before the next (a ring's steps,
 * recursive doubling's rounds), so that it costs its quiet time and the
 * step (ecoi_model_step), a latency under load, or the busy cost,
 * whichever is more; each byte its link's beta and what a byte adds
 * when every member sends a long one at once (ecoi_model.stepbyte: on
 * switched8.topo a round of recursive doubling's 16,000 bytes took ~2 ms
 * where the link's beta gives 1.3), in the share of it that `senders`
 * of the members sending at once pay (step_share). */
static double msg_step(const pm *p, int a, int b, double bytes, int senders)
{
    ecoi_cost q = pair_cost_quiet(p, a, b);
    return fmax(q.alpha + p->step, p->busy) +
           (q.beta + p->stepbyte * step_share(p, senders)) * bytes;
}

/* What a byte costs a member's host's own link: its rate (host_rate),
 * no more than the pair pays; else (not known) the pair's cost. */
static double host_beta(const pm *p, int m, double pair_beta)
{
    return p->hrate[m] > 0 ? fmin(p->hrate[m], pair_beta) : pair_beta;
}

/* Seconds per byte that a message between a and b holds a's end: a's
 * own link (a fast host sends to a slow one at its own rate, and to
 * another meanwhile), also out of its subnet when the subnet's shared
 * link is known (loads charge it there); else the pair's (the link that
 * a's other messages share). */
static double end_beta(const pm *p, int a, int b, double pair_beta)
{
    if (p->mh[a] == p->mh[b] || p->sub[a] < 0)
        return pair_beta;
    return p->sub[a] == p->sub[b] || p->ul[p->sub[a]] > 0 ? host_beta(p, a, pair_beta)
                                                            : pair_beta;
}

/* How long a's message of `bytes` to (or from) b holds a's next one, to
 * (from) c: a member sends to (or takes from) its children one after the
 * other, each at its own host's link's rate (host_beta), or at the pair's
 * when both leave a's subnet (its shared link, or what lies beyond it).
 * The per-message cost and the bytes' time on the link overlap (the next
 * message is packed while this one is on the wire): the longer of the
 * two, not their sum.  switched8.topo at 1,000 bytes: a star's root
 * sends 7 in 0.74-0.78 ms (7 x 89 us on the wire, 7 x 70 us busy: the
 * sum predicted 1.12).  Of its bytes, at_once (burst_left) pass at once
 * and hold it no longer than the per-message cost.  c_out: c is out of
 * a's subnet (what b's message holds depends on c only so). */
static double msg_before(const pm *p, int a, int b, int c_out, double bytes, double at_once)
{
    ecoi_cost k = pair_cost(p, a, b);
    int out = p->sub[a] >= 0 && p->sub[b] != p->sub[a] && c_out;

    bytes -= fmin(bytes, at_once);
    if (p->mh[a] == p->mh[b] || p->sub[a] < 0 || out)
        return fmax(k.alpha, k.beta * bytes);
    /* at a's own rate, but a send waits until all but what the socket
     * takes has left at the pair's: on slowhosts.topo a fast host's
     * whole 128 KB to a 10 Mbit/s host held it 80 ms before its next
     * child (the tree measured 166 ms whole, 111 in 32 KB segments) */
    return fmax(k.alpha, fmax(host_beta(p, a, k.beta) * bytes,
                              k.beta * fmax(0.0, bytes - SOCKET_BYTES)));
}

/* Per-resource loads of one round of messages: a member's own sends and
 * receives, a host's traffic to and from other hosts, each subnet's
 * shared link out and in.  The round lasts as long as its busiest
 * resource. */
typedef struct loads {
    double *node_out, *node_in;   /* [n] */
    double *host_out, *host_in;   /* [nhosts] */
    double *sub_out, *sub_in;     /* [nsubnets] */
    double *site_out, *site_in;   /* [n] by site number */
} loads;

static int loads_new(const pm *p, loads *l)
{
    size_t n = (size_t)p->n, h = (size_t)p->nhosts + 1, s = (size_t)p->model->nsubnets + 1;

    l->node_out = calloc(4 * n + 2 * h + 2 * s, sizeof(double));
    if (!l->node_out)
        return ECO_ERR_NOMEM;
    l->node_in = l->node_out + n;
    l->host_out = l->node_in + n;
    l->host_in = l->host_out + h;
    l->sub_out = l->host_in + h;
    l->sub_in = l->sub_out + s;
    l->site_out = l->sub_in + s;
    l->site_in = l->site_out + n;
    return ECO_OK;
}

static void loads_clear(const pm *p, loads *l)
{
    memset(l->node_out, 0, (4 * (size_t)p->n + 2 * ((size_t)p->nhosts + 1) +
                            2 * ((size_t)p->model->nsubnets + 1)) * sizeof(double));
}

/* Add v to *x, or (most) keep the larger of the two. */
static void put(double *x, double v, int most)
{
    *x = most ? fmax(*x, v) : *x + v;
}

/* Account msgs messages of `bytes` in all from a to b on the links they
 * cross (a host's, a subnet's shared link, a site's); most: each link
 * keeps the most, not the sum (a bucket's bytes: pipe_steady). */
static void loads_links(const pm *p, loads *l, int a, int b, double bytes, double msgs,
                        int most)
{
    ecoi_cost c = pair_cost(p, a, b);
    int ha = p->mh[a], hb = p->mh[b], sa = p->sub[a], sb = p->sub[b];
    double out = end_beta(p, a, b, c.beta), in = end_beta(p, b, a, c.beta);

    if (ha >= 0 && hb >= 0 && ha != hb && ha < p->nhosts && hb < p->nhosts) {
        put(&l->host_out[ha], out * bytes, most);
        put(&l->host_in[hb], in * bytes, most);
    }
    /* a shared link carries each message's headers too (ECOI_WIRE_HEADER),
     * and waits on its sender's CPU for each (the busy cost) */
    const double hdr = msgs * ECOI_WIRE_HEADER, cpu = msgs * p->busy;
    if (sa != sb) {
        if (sa >= 0 && p->ul[sa] > 0)
            put(&l->sub_out[sa], p->ul[sa] * (bytes + hdr) + cpu, most);
        if (sb >= 0 && p->ul[sb] > 0)
            put(&l->sub_in[sb], p->ul[sb] * (bytes + hdr) + cpu, most);
    }
    if (p->site && p->site[a] != p->site[b] && p->site[a] < p->n && p->site[b] < p->n) {
        put(&l->site_out[p->site[a]], c.beta * (bytes + hdr) + cpu, most);
        put(&l->site_in[p->site[b]], c.beta * (bytes + hdr) + cpu, most);
    }
}

/* Account msgs messages of `bytes` in all from a to b; combine: bytes
 * the receiver combines. */
static void loads_add_n(const pm *p, loads *l, int a, int b, double bytes, double msgs,
                        double combine)
{
    ecoi_cost c = pair_cost(p, a, b);
    double out = end_beta(p, a, b, c.beta), in = end_beta(p, b, a, c.beta);

    l->node_out[a] += msgs * c.alpha + out * bytes;
    l->node_in[b] += msgs * c.alpha + in * bytes + combine * GAMMA;
    loads_links(p, l, a, b, bytes, msgs, 0);
}

/* The data of a segment that leaves as one PVM fragment with libeco's
 * header (pvm_transport.c, one_fragment: PVM's fragment of 4,080 bytes
 * less PVM's 48 and libeco's 28), rounded down to 16 bytes so that it
 * holds whole elements of every datatype.  A segment of 4,096 bytes is
 * two fragments.  uneven.topo's broadcast of 16,000 bytes down the
 * chained subnets, 2026-11-26: 27.5 ms in segments of 4,000 bytes, 27.9
 * in 4,096, 28.4 in 2,048, 29.4 in 1,024. */
#define ONE_FRAGMENT 4000

/* The most data that a message carries copied, in one fragment with
 * libeco's header (pvm_transport.c, one_fragment: PVM's default fragment
 * of 4,080 bytes less its 48 and libeco's 28). */
#define COPIED_BYTES 4004.0

/* The messages that one of `bytes` costs, in its per-message costs at its
 * ends and on the shared links: a longer one than COPIED_BYTES goes out
 * in place, libeco's header a fragment of its own before the data, a
 * second write, packet and wake-up.  eco-paper.topo, a broadcast of
 * 131,072 bytes down the tree in segments of 4,000 bytes (copied, one
 * fragment) 115.0 and 115.2 ms, of 4,100 (in place) 120.6 and 120.7,
 * 0.17 ms more for each of 32 segments (busy measured 0.146); copied,
 * 4,100 took 117.4 and 117.6.  This is the default encoding's (in place,
 * short messages copied); with ECO_ENCODING=xdr or raw every message is
 * copied, with inplace none, which the model does not know. */
static double msgs_of(double bytes)
{
    return bytes > COPIED_BYTES ? 2.0 : 1.0;
}

/* The messages of a run of `run` bytes sent in segments of seg (the last
 * one shorter), each as msgs_of counts it. */
static double run_msgs(double run, double seg)
{
    double n;

    if (run <= 0 || seg <= 0 || seg >= run)
        return msgs_of(run);
    n = ceil(run / seg);
    return (n - 1) * msgs_of(seg) + msgs_of(run - (n - 1) * seg);
}

/* The segment of a message of len bytes cut in segments of m: m, or the
 * whole message when m is 0 or no shorter. */
static double seg_of(double m, double len)
{
    return m > 0 && m < len ? m : len;
}

/* One message of `bytes` from a to b. */
static void loads_add(const pm *p, loads *l, int a, int b, double bytes, double combine)
{
    loads_add_n(p, l, a, b, bytes, msgs_of(bytes), combine);
}

/* The busiest link's load: a host's, a subnet's or a site's. */
static double loads_link_max(const pm *p, const loads *l)
{
    double m = 0.0;

    for (int h = 0; h < p->nhosts; h++)
        m = fmax(m, fmax(l->host_out[h], l->host_in[h]));
    for (int s = 0; s < p->model->nsubnets; s++)
        m = fmax(m, fmax(l->sub_out[s], l->sub_in[s]));
    for (int s = 0; s < p->n && p->site; s++)
        m = fmax(m, fmax(l->site_out[s], l->site_in[s]));
    return m;
}

/* The busiest resource's load: a member's sends or receives, or a link. */
static double loads_max(const pm *p, const loads *l)
{
    double m = loads_link_max(p, l);

    for (int r = 0; r < p->n; r++)
        m = fmax(m, fmax(l->node_out[r], l->node_in[r]));
    return m;
}

/* The busiest resource's load in l when each link's load has what c
 * says its bucket passes at once taken off (burst_left). */
static double loads_max_less(const pm *p, const loads *l, const loads *c)
{
    double most = 0.0;

    for (int r = 0; r < p->n; r++)
        most = fmax(most, fmax(l->node_out[r], l->node_in[r]));
    for (int h = 0; h < p->nhosts; h++)
        most = fmax(most, fmax(l->host_out[h] - c->host_out[h], l->host_in[h] - c->host_in[h]));
    for (int x = 0; x < p->model->nsubnets; x++)
        most = fmax(most, fmax(l->sub_out[x] - c->sub_out[x], l->sub_in[x] - c->sub_in[x]));
    for (int x = 0; x < p->n && p->site; x++)
        most = fmax(most, fmax(l->site_out[x] - c->site_out[x], l->site_in[x] - c->site_in[x]));
    return most;
}

/* The bytes of a message of m bytes from a to b that the path's bucket
 * passes at once when k messages of m went through it before (k = 0: the
 * path has idled long enough for the bucket to fill).  A shaped link
 * (tbf, a policer; ecoi_model_burst: the file's burst, 0 where there is
 * none or it was not measured) passes min(burst, bytes) at once, then the
 * rest at its rate, so those bytes do not pay the pair's beta; what the
 * messages before took is spent.  Between two messages the bucket
 * refills at the link's rate for as long as the link waits on each (the
 * busy cost that loads_links charges a shared link: no bytes flow then).
 * A pipeline's first segment crosses every link of its path idle (its
 * fill: msg_idle); eco-paper's 2,807-byte bucket passes a 2,048-byte
 * segment, then 949 bytes of the next (759 left and 190 refilled in the
 * 161 us of busy at 10 Mbit/s), then nothing more (pipe_steady).
 * eco-paper.topo's broadcast of 16,000 bytes down the chain of its three
 * subnets in 2,048-byte segments measured 12.6 ms (doc/benchmarks.md,
 * run 16), under the 12.8 that 16,000 bytes take at 10 Mbit/s, and was
 * predicted 17.2 with every byte at the rate, 13.0 with the bucket.
 *
 * Nothing on a path through more than one router (the map's hops): on
 * multilevel.topo, whose sites are three routers apart, a broadcast of
 * 4,096 bytes across their 5 Mbit/s links took 5.76-5.80 ms (6.5 at
 * the rate, 2.9 predicted with the bursts) and reduce-to-all of 16,000
 * bytes by the tree 32.6-32.9 (26.4 with the bursts, rsag-sites 27.0).
 * Nothing on one host, nor between two hosts of one subnet: there the
 * wire time of a short message stands in for what the model does not
 * have, the cores that several senders share.  switched8.topo (one
 * subnet, 100 Mbit/s ports with 2,517-byte buckets, 8 hosts on 2 cores)
 * at 1,000 bytes: with its burst the binary tree's broadcast was
 * predicted 0.25 to 0.31 ms, measured 0.47 (0.48 without the burst),
 * the 3-ary 0.35 for 0.41 (0.48), though the chain 0.56 for 0.57
 * (1.16). */
static double burst_left(const pm *p, int a, int b, double m, double k)
{
    int sa = p->sub[a], sb = p->sub[b];
    double beta, refill = 0.0;

    if (!(m > 0.0) || sa < 0 || sb < 0 || sa == sb || p->mh[a] == p->mh[b] ||
        (p->mh[a] >= 0 && p->mh[b] >= 0 && ecoi_map_hops_ij(p->map, p->mh[a], p->mh[b]) > 1))
        return 0.0;
    if ((beta = pair_cost(p, a, b).beta) > 0.0)
        refill = msgs_of(m) * p->busy / beta;
    return fmin(m, fmax(0.0, ecoi_model_burst(p->model, sa, sb) - k * fmax(0.0, m - refill)));
}

/* The least time nseg steps of loads l take on the links between
 * subnets when each link's bucket passes its burst at once and the rest
 * at its rate (a token bucket's b + r t): the busiest such link's load
 * in all, less its burst's time (p->ub).  The fill of a
 * pipeline that crosses a link twice (reduce-to-all's way up and down)
 * takes its burst once, not on each way: eco-paper.topo's reduce-to-all
 * of 4,096 bytes up and down the chain of subnets in 2,048-byte segments
 * measured 5.92-5.97 ms (doc/benchmarks.md, run 17), was predicted 4.78
 * with a burst for each way, and its middle subnet's link carries 8 KB
 * and the headers of 8 messages, 5.2 ms at 10 Mbit/s beyond the burst.
 * Sites' links are left out (their buckets are not measured). */
static double bucket_floor(const pm *p, const loads *l, double nseg)
{
    double most = 0.0;

    for (int x = 0; x < p->model->nsubnets; x++)
        if (p->ul[x] > 0.0)
            most = fmax(most, nseg * fmax(l->sub_in[x], l->sub_out[x]) - p->ub[x]);
    return most;
}

/* One message of `bytes` from a to b, alone on the network, when k
 * messages as long went through its path's bucket before it since the
 * path idled (burst_left): a pipeline's first segment. */
static double msg_idle(const pm *p, int a, int b, double bytes, double k)
{
    return msg(p, a, b, bytes) - pair_cost(p, a, b).beta * burst_left(p, a, b, bytes, k);
}

/* Which of u's children before c spent the bucket of u's message to (from)
 * c by the time c's first segment goes (burst_left's k): those whose
 * message crosses the same bucket, off u's host and no faster than c's
 * (the bucket that counts is that of c's slowest link: multilevel's
 * 100 Mbit/s path to the site's other subnet does not cross the
 * 5 Mbit/s one between the sites), and either to c's subnet (the same
 * path), or out of u's subnet through its shared link, or out of u's
 * site when c is.  Only c out of u's subnet, off its host, has a bucket
 * (burst_left); for such c the three cases come to one class each:
 * u's subnet's link known, every child out of u's subnet; else c out of
 * u's site, every child out of it (c's subnet lies in c's site); else
 * c's subnet.  A count per class and rate (Fenwick trees over u's
 * children sorted by their rate, and by subnet and rate), so that a
 * member of d children costs d log d, not d^2 (a star of 10,000
 * members) -- what eco_tree's k-ary fan-outs and ECO's subnet level of
 * a hundred subnets need too. */
typedef struct kid {
    double beta;   /* seconds per byte of u's message to it */
    int sub, j;    /* its subnet; its place among u's children */
} kid;

static int kid_by_beta(const void *x, const void *y)
{
    const kid *a = x, *b = y;
    return a->beta > b->beta ? -1 : a->beta < b->beta ? 1 : a->j - b->j;
}

static int kid_by_sub(const void *x, const void *y)
{
    const kid *a = x, *b = y;
    return a->sub != b->sub ? (a->sub < b->sub ? -1 : 1) : kid_by_beta(x, y);
}

/* tree_pass's scratch for one member's children at a time */
typedef struct spent_scratch {
    kid *k;                  /* [n] */
    int *ra, *ea;            /* [n] by child: place by rate, last place as fast */
    int *rb, *eb, *b0;       /* [n] by child: place by subnet and rate, last place
                              * in its subnet as fast, first of its subnet */
    int *fo, *fs, *fb;       /* [n + 1] Fenwick counts: out of u's subnet, out
                              * of u's site, any (by subnet) */
} spent_scratch;

static void spent_scratch_free(spent_scratch *s)
{
    free(s->k);
    free(s->ra);
    free(s->fo);
}

static int spent_scratch_new(spent_scratch *s, int n)
{
    const size_t N = (size_t)n + 1;
    s->k = malloc(N * sizeof *s->k);
    s->ra = malloc(5 * N * sizeof *s->ra);
    s->fo = malloc(3 * N * sizeof *s->fo);
    if (!s->k || !s->ra || !s->fo) {
        spent_scratch_free(s);
        return ECO_ERR_NOMEM;
    }
    s->ea = s->ra + N;
    s->rb = s->ea + N;
    s->eb = s->rb + N;
    s->b0 = s->eb + N;
    s->fs = s->fo + N;
    s->fb = s->fs + N;
    return ECO_OK;
}

static void fen_add(int *f, int d, int i)
{
    for (i++; i <= d; i += i & -i)
        f[i]++;
}

/* how many were added at places 0 .. i */
static int fen_sum(const int *f, int i)
{
    int c = 0;
    for (i++; i > 0; i -= i & -i)
        c += f[i];
    return c;
}

/* Is c's message from u one with a bucket (burst_left's k counts). */
static int has_bucket(const pm *p, int u, int c)
{
    return p->sub[u] >= 0 && p->sub[c] >= 0 && p->sub[c] != p->sub[u] && p->mh[c] != p->mh[u];
}

/* spent[j]: what u's children before its j-th spent of that child's
 * bucket (above); 0 where the child has none. */
static void spent_of(const pm *p, const eco_tree *t, int u, spent_scratch *s, double *spent)
{
    const int base = t->child_off[u], d = t->child_off[u + 1] - base, su = p->sub[u];
    int any = 0;

    for (int j = 0; j < d; j++) {
        spent[j] = 0.0;
        any |= j > 0 && has_bucket(p, u, t->child[base + j]);
    }
    if (!any)
        return;
    for (int j = 0; j < d; j++) {
        const int c = t->child[base + j];
        s->k[j] = (kid){ pair_cost(p, u, c).beta, p->sub[c], j };
    }
    qsort(s->k, (size_t)d, sizeof *s->k, kid_by_beta);
    for (int i = d - 1; i >= 0; i--) {
        s->ra[s->k[i].j] = i;
        s->ea[s->k[i].j] = i == d - 1 || s->k[i + 1].beta < s->k[i].beta ? i : s->ea[s->k[i + 1].j];
    }
    qsort(s->k, (size_t)d, sizeof *s->k, kid_by_sub);
    for (int i = d - 1; i >= 0; i--) {
        const int last = i == d - 1 || s->k[i + 1].sub != s->k[i].sub;
        s->rb[s->k[i].j] = i;
        s->eb[s->k[i].j] = last || s->k[i + 1].beta < s->k[i].beta ? i : s->eb[s->k[i + 1].j];
    }
    for (int i = 0; i < d; i++)
        s->b0[s->k[i].j] = i == 0 || s->k[i - 1].sub != s->k[i].sub ? i : s->b0[s->k[i - 1].j];
    memset(s->fo, 0, ((size_t)d + 1) * sizeof *s->fo);
    memset(s->fs, 0, ((size_t)d + 1) * sizeof *s->fs);
    memset(s->fb, 0, ((size_t)d + 1) * sizeof *s->fb);
    for (int j = 0; j < d; j++) {
        const int c = t->child[base + j];
        const int out_site = p->site && p->site[c] != p->site[u];
        if (has_bucket(p, u, c))
            spent[j] = p->ul[su] > 0.0 ? fen_sum(s->fo, s->ea[j])
                     : out_site ? fen_sum(s->fs, s->ea[j])
                     : fen_sum(s->fb, s->eb[j]) - fen_sum(s->fb, s->b0[j] - 1);
        if (p->mh[c] == p->mh[u])
            continue;
        if (p->sub[c] != su)
            fen_add(s->fo, d, s->ra[j]);
        if (out_site)
            fen_add(s->fs, d, s->ra[j]);
        fen_add(s->fb, d, s->rb[j]);
    }
}

/* The steady state of a pipeline of nseg segments of m bytes whose one
 * segment's messages, from[i] -> to[i] (k of them), load l: the nseg - 1
 * segments behind the fill at the pace of the busiest resource, each as
 * long as the busiest resource with what the links' buckets still pass
 * at once taken off (burst_left; a link's bucket serves every message
 * that crosses it: the most of them, not their sum; each message's
 * bucket counted from its own first segment).  A burst of 2,807
 * bytes passes a 2,048-byte segment and 759 bytes of the next: that
 * second segment's turn is shorter by those bytes' time where the link
 * is the busiest resource, no shorter than the next busiest's.  c:
 * scratch loads. */
static double pipe_steady(const pm *p, const loads *l, loads *c, const int *from,
                          const int *to, int k, double m, double nseg)
{
    const double top = loads_max(p, l);
    double t = (nseg - 1) * top;

    for (double s = 1; s < nseg; s++) {
        int any = 0;
        loads_clear(p, c);
        for (int i = 0; i < k; i++) {
            double b = burst_left(p, from[i], to[i], m, s);
            if (b > 0.0) {
                loads_links(p, c, from[i], to[i], b, 0.0, 1);
                any = 1;
            }
        }
        if (!any)
            break;
        t -= top - loads_max_less(p, l, c);
    }
    return t;
}

/* ------------------------------------------------------------------ */
/* Predictions                                                         */
/* ------------------------------------------------------------------ */

/* What member u adds before it sends on tree t: the forward cost when
 * it passes on what it received (a middle member: it has a parent),
 * nothing at the root. */
static double relay(const pm *p, const eco_tree *t, int u)
{
    return t->parent[u] >= 0 ? p->forward : 0.0;
}

/* spent_of for every member of t, at each child's place in t->child:
 * it depends on the tree and the model, not on the segment, so it is
 * counted once per tree, not once per segment best_segment tries.  NULL
 * when out of memory; the caller frees it. */
static double *tree_spent(const pm *p, const eco_tree *t)
{
    double *spent = malloc(((size_t)t->child_off[t->n] + 1) * sizeof *spent);
    spent_scratch sp;

    if (!spent || spent_scratch_new(&sp, p->n) != ECO_OK) {
        free(spent);
        return NULL;
    }
    for (int u = 0; u < t->n; u++)
        spent_of(p, t, u, &sp, spent + t->child_off[u]);
    spent_scratch_free(&sp);
    return spent;
}

/* A pipelined pass down (or up, reduce) tree t of `bytes` in segments of
 * seg bytes (0: one message): the deepest path for one segment plus the
 * other segments at the rate of the busiest resource.  A path pays the
 * forward cost at each middle member (relay): on switched8.topo at
 * 1,000 bytes, without it, a hop (163 us) cost less than two siblings'
 * sends before it (85 us each), and k = 2, 3, 4 were predicted alike
 * (0.464 ms; 2 hops and 2 sends on each deepest path, 3 hops on k = 2's
 * other one), where the 3-ary tree measured 0.42 and the binary one
 * 0.43-0.47. */
static double tree_pass(const pm *p, const eco_tree *t, const double *spent, double bytes,
                        double seg, int reduce, loads *l)
{
    double m = seg_of(seg, bytes), nseg = ceil(bytes / m), steady;
    double *dist = malloc(3 * (size_t)p->n * sizeof *dist), deepest = 0.0;
    double *bef = dist + p->n, *idl = bef + p->n;
    int *from = malloc(2 * (size_t)p->n * sizeof *from), *to, k = 0;
    loads c = { 0 };

    if (!spent || !dist || !from || loads_new(p, &c) != ECO_OK) {
        free(dist);
        free(from);
        return INFINITY;
    }
    to = from + p->n;
    if (bytes <= 0)
        nseg = 1;
    /* A member sends to (or receives from) its children one by one: the
     * k-th waits for the k - 1 before it (bef), then its own first
     * segment goes (idl). */
    for (int u = 0; u < t->n; u++) {
        const int base = t->child_off[u], d = t->child_off[u + 1] - base;
        double in = 0.0, out = 0.0;
        for (int j = 0; j < d; j++) {
            const int v = t->child[base + j];
            const double at = burst_left(p, u, v, m, spent[base + j]);
            bef[v] = p->sub[v] != p->sub[u] ? out : in;
            idl[v] = msg_idle(p, u, v, m, spent[base + j]);
            in += msg_before(p, u, v, 0, m, at);
            out += msg_before(p, u, v, 1, m, at);
        }
    }
    loads_clear(p, l);
    /* Preorder: a parent before its children. */
    for (int i = 0; i < t->n; i++) {
        int v = t->order[i], u = t->parent[v];
        dist[v] = 0.0;
        if (u < 0)
            continue;
        dist[v] = dist[u] + relay(p, t, u) + bef[v] + idl[v] + (reduce ? m * GAMMA : 0.0);
        deepest = fmax(deepest, dist[v]);
        from[k] = reduce ? v : u;
        to[k++] = reduce ? u : v;
        loads_add(p, l, from[k - 1], to[k - 1], m, reduce ? m : 0.0);
    }
    steady = pipe_steady(p, l, &c, from, to, k, m, nseg);
    free(dist);
    free(from);
    free(c.node_out);
    return fmax(deepest + steady, bucket_floor(p, l, nseg));
}

/* A pipelined prediction as a function of its segment (0: whole): what
 * best_segment searches. */
typedef struct seg_pass {
    double (*time)(const struct seg_pass *q, double seg);
    const pm *p;
    const eco_tree *t;
    const int *leaders;   /* allreduce_pass, hier_pipe */
    int S, reduce;
    double bytes;
    loads *l;
    /* time leaves in l the loads of one step of the pipeline, every
     * stage at once, all of whose messages go out together: a step of
     * rounds that wait for each other (ecoi_sched_allreduce); 2: and a
     * whole message is such a step too (the paced gather's whole runs) */
    int step_loads;
    const double *spent;  /* tree_spent of t: tree_pass_seg, allreduce_seg */
    int a2a;              /* leaders_turns: all-to-all's messages (else
                           * gather-to-all's) */
} seg_pass;

/* A shorter segment is taken only when predicted this much faster: more
 * messages cost what the model does not see.  slowhosts.topo's
 * reduce-to-all of 16 KB: 1 KB segments predicted 0.4% faster than 2 KB,
 * measured 14% slower (18.4 ms against 16.1); multilevel's rsag-sites
 * of 16 KB: 8 KB predicted 0.7% faster than whole, measured 4% slower. */
#define SEGMENT_GAIN 0.01

/* What a round of a pipeline may put on one link, in seconds at its
 * rate.  A pipeline whose rounds wait for each other puts each round's
 * messages on a link at once; what the link's queue cannot take is lost,
 * and TCP's recovery stalls the rounds behind it.  netbed's links queue
 * 50 ms (tbf latency).  Reduce-to-all (rsag), TCP segments retransmitted
 * per run of 7 and median ms, 2026-11-26 (doc/benchmarks.md run 8):
 * multilevel, 128 KB: 32 KB segments (46 ms a round on the 5 Mbit/s link
 * between the sites) 60-87 and 279-405 ms, a timeout one run in three;
 * 16 KB (23 ms) 2-4 and 235 ms, though predicted only 0.3% faster.
 * eco-paper, 1 MB: 32 KB (35 ms a round into a 10 Mbit/s segment) 155-279
 * and 1265-1491 ms; 16 KB (17 ms) 1-14 and 1277.  Between the two. */
#define LINK_QUEUE 0.03
/* A segment whose rounds fit every link's queue is taken over a longer
 * one whose rounds do not, unless predicted this much slower. */
#define QUEUE_SLACK 0.05

/* ECOI_OVER_QUEUE when the loads in l put more on some link than it
 * queues (LINK_QUEUE). */
static int loads_over_queue(const pm *p, const loads *l)
{
    return loads_link_max(p, l) > LINK_QUEUE ? ECOI_OVER_QUEUE : ECOI_OVER_NONE;
}

/* 1 when the step q->time left in q->l puts more on some link than it
 * queues. */
static int over_queue(const seg_pass *q)
{
    return q->step_loads && loads_over_queue(q->p, q->l);
}


/* The search of best_segment: the best segment of all and the best of
 * those whose rounds fit the links' queues, so far. */
typedef struct seg_search {
    double best, fit;
    size_t seg, fitseg;
    int over;
} seg_search;

/* Try segment s, shorter than those tried before: taken when it gains
 * SEGMENT_GAIN. */
static void try_segment(const seg_pass *q, seg_search *x, size_t s)
{
    double b = q->time(q, (double)s);
    int o = over_queue(q);

    if (b < x->best * (1.0 - SEGMENT_GAIN)) {
        x->best = b;
        x->over = o;
        x->seg = s;
    }
    if (!o && b < x->fit * (1.0 - SEGMENT_GAIN)) {
        x->fit = b;
        x->fitseg = s;
    }
}

/* The best segment for q: forced, else 0 (whole), a power of two from
 * 1 KiB below upto or ONE_FRAGMENT, from the longest down, each shorter
 * one only when it gains SEGMENT_GAIN; if that one's rounds overflow a
 * link's queue, the best found the same way among those whose rounds
 * fit, when it loses less than QUEUE_SLACK to it. */
static double best_segment(const seg_pass *q, double upto, long forced, size_t *segment)
{
    seg_search x;
    size_t top = 1024;

    if (forced >= 0) {
        *segment = (size_t)forced;
        return q->time(q, (double)forced);
    }
    /* a whole message is one round: it fits, unless its rounds are
     * paced (step_loads 2: the paced gather's whole runs are a turn) */
    x.best = q->time(q, 0);
    x.seg = x.fitseg = 0;
    x.over = q->step_loads > 1 && over_queue(q);
    x.fit = x.over ? INFINITY : x.best;
    while ((double)(top * 2) < upto)
        top *= 2;
    for (size_t s = top; s >= 1024 && (double)s < upto; s /= 2) {
        if (ONE_FRAGMENT > s && ONE_FRAGMENT < 2 * s && (double)ONE_FRAGMENT < upto)
            try_segment(q, &x, ONE_FRAGMENT);
        try_segment(q, &x, s);
    }
    if (x.over && x.fit < x.best * (1.0 + QUEUE_SLACK)) {
        x.best = x.fit;
        x.seg = x.fitseg;
    }
    *segment = x.seg;
    return x.best;
}

static double tree_pass_seg(const seg_pass *q, double seg)
{
    return tree_pass(q->p, q->t, q->spent, q->bytes, seg, q->reduce, q->l);
}

/* The best segment for a pass down (or up) t. */
static double tree_pass_best(const pm *p, const eco_tree *t, double bytes, int reduce,
                             long forced, loads *l, size_t *segment)
{
    double *spent = tree_spent(p, t), best;
    const seg_pass q = { tree_pass_seg, p, t, NULL, 0, reduce, bytes, l, 0, spent, 0 };

    best = best_segment(&q, bytes, forced, segment);
    free(spent);
    return best;
}

/* A gather (or scatter) of `bytes` per member on tree t, one message per
 * edge carrying the child's whole subtree; a parent takes its children
 * one by one, and passes them on after the forward cost (relay). */
static double tree_gather(const pm *p, const eco_tree *t, double bytes)
{
    double *ready = calloc((size_t)p->n, sizeof *ready), out;

    if (!ready)
        return INFINITY;
    for (int i = t->n - 1; i >= 0; i--) {
        int u = t->order[i];
        double at = 0.0;
        for (int j = t->child_off[u]; j < t->child_off[u + 1]; j++) {
            int v = t->child[j];
            at = fmax(at, ready[v]) + msg(p, v, u, bytes * t->subtree[v]);
        }
        ready[u] = at + (t->child_off[u + 1] > t->child_off[u] ? relay(p, t, u) : 0.0);
    }
    out = 0.0;
    for (int m = 0; m < t->n; m++)   /* a forest has several roots */
        if (t->parent[m] < 0)
            out = fmax(out, ready[m]);
    free(ready);
    return out;
}

/* The first free time at or after `at` on a resource free from *free,
 * held for d seconds from then. */
static double take(double *free, double at, double d)
{
    double st = fmax(at, *free);

    *free = st + d;
    return st;
}

/* One message of b bytes from u to v sent at st, through the resources
 * (free times in r): the sender's host's link out, its subnet's and its
 * site's shared links out, the receiver's site's and subnet's links in
 * and its host's, each taken as it comes free (first come, first
 * served) from when the message started on the link before, each at its
 * own rate; it has arrived when the last has carried it. */
typedef struct netres {
    double *sub_out, *sub_in, *site_out, *site_in, *host_out, *host_in;
} netres;

static double net_send(const pm *p, netres *r, int u, int v, double st, double b)
{
    int su = p->sub[u], sv = p->sub[v], hu = p->mh[u], hv = p->mh[v];
    int hosts = hu >= 0 && hv >= 0 && hu != hv && hu < p->nhosts && hv < p->nhosts;
    ecoi_cost c = pair_cost(p, u, v);
    double end = st + c.beta * b, d;

    if (hosts) {
        d = host_beta(p, u, c.beta) * b;
        st = take(&r->host_out[hu], st, d);
        end = fmax(end, st + d);
    }
    if (su != sv && su >= 0 && p->ul[su] > 0) {
        st = take(&r->sub_out[su], st, p->ul[su] * b);
        end = fmax(end, r->sub_out[su]);
    }
    if (p->site && p->site[u] != p->site[v] && p->site[u] < p->n && p->site[v] < p->n) {
        st = take(&r->site_out[p->site[u]], st, c.beta * b);
        end = fmax(end, r->site_out[p->site[u]]);
        st = take(&r->site_in[p->site[v]], st, c.beta * b);
        end = fmax(end, r->site_in[p->site[v]]);
    }
    if (su != sv && sv >= 0 && p->ul[sv] > 0) {
        st = take(&r->sub_in[sv], st, p->ul[sv] * b);
        end = fmax(end, r->sub_in[sv]);
    }
    if (hosts) {
        d = host_beta(p, v, c.beta) * b;
        st = take(&r->host_in[hv], st, d);
        end = fmax(end, st + d);
    }
    return end;
}

/* Room for the resources' free times (zeroed); NULL when out of memory. */
static double *netres_new(const pm *p, netres *r)
{
    const size_t n = (size_t)p->n, S = (size_t)p->model->nsubnets + 1;
    const size_t H = (size_t)p->nhosts + 1;
    double *v = calloc(2 * S + 2 * n + 2 * H, sizeof *v);

    if (v) {
        r->sub_out = v;
        r->sub_in = v + S;
        r->site_out = r->sub_in + S;
        r->site_in = r->site_out + n;
        r->host_out = r->site_in + n;
        r->host_in = r->host_out + H;
    }
    return v;
}

/* Seconds per byte on the slowest link a message from u to v crosses
 * (what net_send charges). */
static double path_beta(const pm *p, int u, int v)
{
    int su = p->sub[u], sv = p->sub[v], hu = p->mh[u], hv = p->mh[v];
    double b = pair_cost(p, u, v).beta;

    if (hu >= 0 && hv >= 0 && hu != hv && hu < p->nhosts && hv < p->nhosts)
        b = fmax(b, fmax(host_beta(p, u, b), host_beta(p, v, b)));
    if (su != sv && su >= 0 && p->ul[su] > 0)
        b = fmax(b, p->ul[su]);
    if (su != sv && sv >= 0 && p->ul[sv] > 0)
        b = fmax(b, p->ul[sv]);
    return b;
}

/* A scatter of `bytes` per member down tree t in turns (sched.c's
 * ecoi_sched_scatter): the longest run of a member's children in
 * segments of seg bytes (0: whole), the others in as many, shorter.  The
 * messages overlap on the network (net_send), but a send holds its
 * sender (alpha, and until the receiver's socket has taken all but
 * SOCKET_BYTES of what was sent it): a whole run to a child behind a
 * slow link keeps the next child waiting.  A member passes its
 * children's runs on once its own has come, after the forward cost. */
static double tree_scatter(const pm *p, const eco_tree *t, double bytes, double seg)
{
    double *ready = calloc((size_t)p->n, sizeof *ready), *ends = NULL, out = 0.0;
    netres r;
    double *res = netres_new(p, &r);
    size_t room = 0;

    if (!ready || !res)
        goto fail;
    for (int i = 0; i < t->n; i++) {
        const int u = t->order[i], *kids = &t->child[t->child_off[u]];
        const int nk = t->child_off[u + 1] - t->child_off[u];
        double at = ready[u] + relay(p, t, u), most = 0.0, least = INFINITY;
        size_t turns, w;

        if (nk <= 0)
            continue;

        for (int j = 0; j < nk; j++) {
            most = fmax(most, bytes * t->subtree[kids[j]]);
            least = fmin(least, bytes * t->subtree[kids[j]]);
        }
        turns = seg > 0 && seg < most ? (size_t)ceil(most / seg) : 1;
        /* the hold looks back at most the socket's room: a window of
         * the last w segments a kid */
        w = least > 0 ? (size_t)ceil(SOCKET_BYTES / (least / (double)turns)) + 2 : 1;
        w = w < turns ? w : turns;
        if ((size_t)nk * w > room) {
            double *e = realloc(ends, (size_t)nk * w * sizeof *e);
            if (!e)
                goto fail;
            ends = e;
            room = (size_t)nk * w;
        }
#define END(j, k) ends[(size_t)(j) * w + (k) % w]
        /* END(j, k): when kid j's segment k is in */
        for (size_t k = 0; k < turns; k++)
            for (int j = 0; j < nk; j++) {
                const int v = kids[j];
                const double run = bytes * t->subtree[v], len = run / (double)turns;
                double target;
                at += pair_cost(p, u, v).alpha;
                END(j, k) = net_send(p, &r, u, v, at, len);
                ready[v] = END(j, k);
                out = fmax(out, ready[v]);
                /* held until all but the socket's room has left */
                target = (double)(k + 1) * len - SOCKET_BYTES;
                if (target > 0) {
                    size_t kk = (size_t)ceil(target / len) - 1;
                    double over = (double)(kk + 1) * len - target;
                    at = fmax(at, END(j, kk) - path_beta(p, u, v) * over);
                }
            }
#undef END
    }
    free(ends);
    free(ready);
    free(res);
    return out;
fail:
    free(ends);
    free(ready);
    free(res);
    return INFINITY;
}

static double tree_scatter_seg(const seg_pass *q, double seg)
{
    return tree_scatter(q->p, q->t, q->bytes, seg);
}

/* One parent u of tree t in a paced gather (sched.c's
 * ecoi_sched_gather_paced): the runs of its children from other subnets
 * in turns of segments (the longest such run's seg), each segment sent
 * when asked for and when its child has its subtree (ready[]) and is
 * done with the one before, the asks for turn k going out as u starts
 * turn k - ECOI_PACED_AHEAD (the first ones at once), alpha each; the
 * runs of its own subnet's children whole, at once.  A turn ends when
 * every segment of it is in, alpha each, and a lock-step step after
 * (ecoi_model_step: a turn waits for its slowest child; eco-paper.topo,
 * 16 turns of 16 KB, 7.6 ms more than the star where the turns' messages
 * alone cost 1.7).  Returns when u has them all;
 * adds to l what a turn puts on the links: a segment a paced child (the
 * one asked ahead leaves as the link takes the one before: uneven.topo's
 * gather of 128 KB took 449-451 ms in 16 KB segments, the two other
 * subnets' 26 ms at its root's 10 Mbit/s, and 485-487 in 32 KB, 52 ms,
 * more than the link queues: LINK_QUEUE), and each other child's run. */
static double paced_member(const pm *p, const eco_tree *t, int u, double bytes, double seg,
                           const double *ready, double *free_at, netres *r, loads *l)
{
    const int *kids = &t->child[t->child_off[u]], nk = t->child_off[u + 1] - t->child_off[u];
    double most = 0.0, at0 = 0.0, start[ECOI_PACED_AHEAD + 1], end = 0.0;
    size_t turns;

    /* sched.c's paced_kid: a child from another subnet comes paced.  Every
     * paced run in `turns` segments (the code's run_segments gives a run
     * shorter than the longest as many, but for runs of a few elements) */
#define PACED(v) (p->sub[v] != p->sub[u])
    for (int j = 0; j < nk; j++)
        if (PACED(kids[j]))
            most = fmax(most, bytes * t->subtree[kids[j]]);
    turns = seg > 0 && seg < most ? (size_t)ceil(most / seg) : 1;
    for (int j = 0; j < nk; j++) {
        const int v = kids[j];
        free_at[v] = ready[v];
        loads_add(p, l, v, u, bytes * t->subtree[v] / (PACED(v) ? (double)turns : 1.0), 0.0);
        for (size_t k = 0; PACED(v) && k < ECOI_PACED_AHEAD && k < turns; k++)
            at0 += pair_cost(p, u, v).alpha;
    }
    for (size_t k = 0; k < turns; k++) {
        double st = k == 0 ? at0 : end;
        for (int j = 0; j < nk && k + ECOI_PACED_AHEAD < turns; j++)
            if (PACED(kids[j]))
                st += pair_cost(p, u, kids[j]).alpha;
        /* the asks for turn k + AHEAD leave as turn k starts, after the
         * first asks (at0) in turn 0 */
        start[k % (ECOI_PACED_AHEAD + 1)] = k == 0 ? at0 : end;
        end = st;
        for (int j = 0; j < nk; j++) {
            const int v = kids[j];
            const double len = bytes * t->subtree[v] / (PACED(v) ? (double)turns : 1.0);
            const double asked = (k < ECOI_PACED_AHEAD ? 0.0
                                  : start[(k - ECOI_PACED_AHEAD) % (ECOI_PACED_AHEAD + 1)]) +
                                 msg(p, u, v, 0.0);
            double go, in;
            if (!PACED(v) && k > 0)
                continue;
            go = PACED(v) ? fmax(free_at[v], asked) : free_at[v];
            in = net_send(p, r, v, u, go, len);
            /* a send holds its sender until all but the socket's room left */
            free_at[v] = fmax(go + pair_cost(p, v, u).alpha,
                              in - path_beta(p, v, u) * SOCKET_BYTES);
            end = fmax(end, in) + pair_cost(p, v, u).alpha;
        }
        end += p->step;
    }
#undef PACED
    return end;
}

/* A paced gather of `bytes` per member up tree t in segments of seg
 * (0: whole runs): each member's children (paced_member) once its
 * children's subtrees are in, the leaves first.  Leaves in l one turn's
 * loads of every member at once (best_segment's over_queue). */
static double tree_paced(const pm *p, const eco_tree *t, double bytes, double seg, loads *l)
{
    double *ready = calloc(2 * (size_t)p->n, sizeof *ready), out = 0.0;
    netres r;
    double *res = netres_new(p, &r);

    if (!ready || !res) {
        free(ready);
        free(res);
        return INFINITY;
    }
    loads_clear(p, l);
    for (int i = t->n - 1; i >= 0; i--) {
        const int u = t->order[i];
        if (t->child_off[u + 1] == t->child_off[u])
            continue;
        ready[u] = paced_member(p, t, u, bytes, seg, ready, ready + p->n, &r, l);
        if (t->parent[u] < 0)
            out = ready[u];
        ready[u] += relay(p, t, u);
    }
    free(ready);
    free(res);
    return out;
}

static double tree_paced_seg(const seg_pass *q, double seg)
{
    return tree_paced(q->p, q->t, q->bytes, seg, q->l);
}

/* A gather of `bytes` per member up tree t with its messages overlapping
 * on the network: every member sends its subtree's run as soon as it has
 * it (the leaves at once), the messages take the links they cross in the
 * order they leave (net_send), and a parent takes its children's
 * messages one by one in its children's order, alpha each.  Events in
 * time order: a member leaves when its last child's message is in.
 * Which of the messages that leave at once goes first is not known: the
 * prediction lets those that go further (to a parent deeper in the tree,
 * which relays them) go last, the worse order. */
static double tree_gather_net(const pm *p, const eco_tree *t, double bytes)
{
    const int n = t->n;
    double *done = malloc((size_t)n * 2 * sizeof *done), *arrive, out = 0.0;
    int *heap = malloc((size_t)n * 3 * sizeof *heap), *left, *depth, len = 0;
    netres r;
    double *res = netres_new(p, &r);

    if (!done || !heap || !res) {
        free(done);
        free(heap);
        free(res);
        return INFINITY;
    }
    arrive = done + n;
    left = heap + n;
    depth = left + n;
    for (int i = 0; i < n; i++) {
        int m = t->order[i];
        depth[m] = t->parent[m] < 0 ? 0 : depth[t->parent[m]] + 1;
    }
    /* a min-heap of the members ready to send, by done[], then by depth */
#define HLESS(a, b) (done[heap[a]] < done[heap[b]] || \
                     (done[heap[a]] == done[heap[b]] && \
                      (depth[heap[a]] < depth[heap[b]] || \
                       (depth[heap[a]] == depth[heap[b]] && heap[a] < heap[b]))))
#define HSWAP(a, b) do { int x_ = heap[a]; heap[a] = heap[b]; heap[b] = x_; } while (0)
    for (int m = 0; m < n; m++) {
        left[m] = t->child_off[m + 1] - t->child_off[m];
        done[m] = 0.0;
        if (left[m] == 0 && t->parent[m] >= 0) {
            int i = len++;
            heap[i] = m;
            for (; i > 0 && HLESS(i, (i - 1) / 2); i = (i - 1) / 2)
                HSWAP(i, (i - 1) / 2);
        }
    }
    while (len > 0) {
        int v = heap[0], u = t->parent[v];
        heap[0] = heap[--len];
        for (int i = 0;;) {
            int l = 2 * i + 1, m = i;
            if (l < len && HLESS(l, m))
                m = l;
            if (l + 1 < len && HLESS(l + 1, m))
                m = l + 1;
            if (m == i)
                break;
            HSWAP(i, m);
            i = m;
        }
        arrive[v] = net_send(p, &r, v, u, done[v], bytes * t->subtree[v]);
        if (--left[u] == 0) {
            /* all of u's children are in: u takes them in its order */
            double at = 0.0;
            for (int j = t->child_off[u]; j < t->child_off[u + 1]; j++)
                at = fmax(at, arrive[t->child[j]]) + pair_cost(p, t->child[j], u).alpha;
            done[u] = at + relay(p, t, u);
            if (t->parent[u] < 0) {
                out = fmax(out, at);
            } else {
                int i = len++;
                heap[i] = u;
                for (; i > 0 && HLESS(i, (i - 1) / 2); i = (i - 1) / 2)
                    HSWAP(i, (i - 1) / 2);
            }
        }
    }
#undef HLESS
#undef HSWAP
    free(done);
    free(heap);
    free(res);
    return out;
}

/* hier (gather.c) with segments of m bytes (0: whole): its streams at
 * once, in units of a block's segments (whole blocks when m is 0 or no
 * shorter): up the groups' trees, across to the leader ahead, and the
 * group's run and the run of the leader behind down the trees; then
 * (S > 2) the later exchange rounds, whole runs in segments of m, each
 * going down as it comes.  It lasts
 *   - as long as the busiest resource under all of these, or as the
 *     exchange's rounds (paced by the slow links between groups: a
 *     member's load would count it at that pace as if it kept the member
 *     from sending down), whichever is longer;
 *   - or, when longer, as many rounds as the longest run has units, each
 *     as long as a unit's way up from a member and down again over the
 *     rounds the member has for it (a unit a member d levels down sends
 *     up in round r comes back in round r + 1 + d lag: 2 + d lag rounds;
 *     in lock step, lag 0, the whole way in two), or as a round's sends
 *     hold a member; or as a group's rounds, each as long as its slowest
 *     send down the group's tree (group_rounds);
 *   - then the last unit's way down, and 1 + lag times what a unit's
 *     send across holds its leader, fitted to the simulation when every
 *     leader read it lag rounds late (campus24.topo, hier-chain, 128 KB a
 *     member: 16 KB units 1328.9 ms, 32 KB 1335.9, 64 KB 1441.2, whole
 *     blocks 1612.1, where the rest of the model has 1291 to 1302 for the
 *     first three and 1488 for whole blocks).  Not 1 + xlag (a leader
 *     reads the leader behind xlag rounds late with S > 2, hier_lags):
 *     the simulation shows no such tail (campus24, hier with S = 6, 128
 *     KB in 64 KB units, lag 1 and xlag 7: simulated 3951.9 ms, predicted
 *     4105.2 with 1 + lag and 4272.0 with 1 + xlag); the other rounds
 *     hide it. */
/* The longest run among S leaders' groups, of `bytes` per member. */
static double longest_run(const eco_tree *forest, const int *leaders, int S, double bytes)
{
    double most = 0.0;

    for (int i = 0; i < S; i++)
        most = fmax(most, bytes * forest->subtree[leaders[i]]);
    return most;
}

/* Every member's group (its tree's root among the leaders) and its
 * depth below its leader (preorder: a parent before its children). */
static void forest_groups(const eco_tree *f, const int *leaders, int S, int *grp, int *dep)
{
    for (int i = 0; i < f->n; i++) {
        int v = f->order[i], u = f->parent[v];
        if (u >= 0) {
            grp[v] = grp[u];
            dep[v] = dep[u] + 1;
        } else {
            for (grp[v] = 0; grp[v] < S - 1 && leaders[grp[v]] != v; grp[v]++)
                ;
            dep[v] = 0;
        }
    }
}

/* The exchange's round k (1 .. S - 1), every leader to the one k ahead:
 * round 1 in units of `unit` bytes, the later ones whole runs in
 * segments of m. */
static void hier_exchange_loads(const pm *p, const eco_tree *f, const int *leaders, int S,
                                double bytes, double m, double unit, int k, loads *l)
{
    for (int i = 0; i < S; i++) {
        const double run = bytes * f->subtree[leaders[i]];
        const double msgs = k == 1 ? f->subtree[leaders[i]] * run_msgs(bytes, unit)
                                   : run_msgs(run, m);
        loads_add_n(p, l, leaders[i], leaders[(i + k) % S], run, msgs, 0);
    }
}

/* Every stream of hier at once: the exchange, and on each edge of the
 * trees the subtree's units up, the rest of the group's run down, the
 * run of the leader behind down (round 1, in units) and the later
 * rounds' runs down (in segments of m). */
static void hier_loads(const pm *p, const eco_tree *f, const int *leaders, int S,
                       const int *grp, double bytes, double m, double unit, loads *l)
{
    const double per = run_msgs(bytes, unit);   /* a block's messages */

    loads_clear(p, l);
    for (int k = 1; k < S; k++)
        hier_exchange_loads(p, f, leaders, S, bytes, m, unit, k, l);
    for (int v = 0; v < f->n; v++) {
        const int u = f->parent[v], g = grp[v];
        const double sub = f->subtree[v], rest = f->subtree[leaders[g]] - sub;
        if (u < 0)
            continue;
        loads_add_n(p, l, v, u, bytes * sub, sub * per, 0);
        loads_add_n(p, l, u, v, bytes * rest, rest * per, 0);
        for (int k = 1; k < S; k++) {
            const double blocks = f->subtree[leaders[(g - k + S) % S]], run = bytes * blocks;
            loads_add_n(p, l, u, v, run,
                        k == 1 ? blocks * per : run_msgs(run, m), 0);
        }
    }
}

/* How long a send of `bytes` from a to b holds a: until all but
 * SOCKET_BYTES of it has left, at the slowest link it crosses. */
static double send_hold(const pm *p, int a, int b, double bytes)
{
    return bytes > SOCKET_BYTES ? (bytes - SOCKET_BYTES) * path_beta(p, a, b) : 0.0;
}

/* The longest that member v's sends of one round hold it: a unit up (the
 * leader: across to the leader ahead, `ahead`), and to each child the
 * run of the leader behind's unit and, but in the rounds of the child's
 * own units, the group's. */
static double round_hold(const pm *p, const eco_tree *f, int v, int ahead, double group,
                         double unit)
{
    const int u = f->parent[v] >= 0 ? f->parent[v] : ahead;
    double h = u >= 0 ? send_hold(p, v, u, unit) : 0.0;

    for (int j = f->child_off[v]; j < f->child_off[v + 1]; j++) {
        const int c = f->child[j];
        h += send_hold(p, v, c, unit) * (1.0 + (group - f->subtree[c]) / group);
    }
    return h;
}

/* a's subtree holds c (preorder: a subtree is a run of positions). */
static int in_subtree(const eco_tree *f, int a, int c)
{
    return f->pos[c] >= f->pos[a] && f->pos[c] < f->pos[a] + f->subtree[a];
}

/* The rounds of the group of leader ld, each as long as its slowest send
 * down an edge of the group's tree (a send holds its sender until all
 * but SOCKET_BYTES of what it queued for that child has left, so that a
 * child behind a slow link paces the rounds, and the members keep in
 * step a round apart): every child gets a unit of the group's run in
 * each of the group's U rounds but those of its own subtree's units (u a
 * block), and a unit of the run of the leader behind in Ub rounds
 * besides.  In the rounds of the slowest edge's subtree, the slowest of
 * the edges into other subtrees: slowhosts.topo with 16 tasks, 256 KB a
 * member, simulated 3.51 s, where the slow hosts' links carry 2.73 s of
 * it and the rounds 3.35 s. */
static double group_rounds(const pm *p, const eco_tree *f, int ld, double Ub, double u,
                           double unit)
{
    double t1 = 0.0, t2 = 0.0;
    int slow = -1;

    for (int i = f->pos[ld] + 1; i < f->pos[ld] + f->subtree[ld]; i++) {
        const int c = f->order[i];
        const double t = unit * path_beta(p, f->parent[c], c);
        if (t > t1) {
            t1 = t;
            slow = c;
        }
    }
    for (int i = f->pos[ld] + 1; slow >= 0 && i < f->pos[ld] + f->subtree[ld]; i++) {
        const int c = f->order[i];
        if (!in_subtree(f, c, slow) && !in_subtree(f, slow, c))
            t2 = fmax(t2, unit * path_beta(p, f->parent[c], c));
    }
    if (slow < 0)
        return 0.0;
    return (f->subtree[ld] - f->subtree[slow]) * u * t1 + f->subtree[slow] * u * t2 + Ub * t1;
}

/*
 * hier's lags (ecoi_plan) for units of unit_bytes among S groups.
 *
 * lag, the rounds after its parent sent a unit that a member reads it: 1,
 * or 0 when flow control would stop a parent that ran ahead (a parent
 * sends a child two units a round at most, down and across, read lag
 * rounds later: 2 (lag + 1) unread, and a sender may run an epoch and a
 * message ahead of its receiver).
 *
 * xlag, the rounds after the leader behind sent a unit of its run that a
 * leader reads it: with two groups, lag (the two runs cross the same
 * links, at the same pace); with more, an epoch less one, the most that
 * flow control lets a ring of leaders run apart without stopping them all
 * (each a sender an epoch and a message ahead of the next), so that a
 * leader's run out is not held to the pace of the run coming in from
 * another group behind another link (uneven.topo, 21 tasks, 128 KB a
 * member, simulated: 3594 ms read a round late, 3292 fifteen rounds).
 * Never more: a ring of leaders each waiting for the next to read would
 * stop for ever.
 */
static void hier_lags(size_t unit_bytes, int S, size_t *lag, size_t *xlag)
{
    const size_t e = ecoi_flow_epoch_msgs(unit_bytes);   /* an epoch's units */

    *lag = e >= 3 ? 1 : 0;
    *xlag = S > 2 && e > *lag + 1 ? e - 1 : *lag;
}

static double hier_pipe(const pm *p, const eco_tree *forest, const int *leaders, int S,
                        double bytes, double m, loads *l)
{
    const eco_tree *f = forest;
    const double unit = seg_of(m, bytes);
    const double per = bytes > 0 ? ceil(bytes / unit) : 1.0;   /* a block's units */
    const double units = longest_run(f, leaders, S, 1.0) * per;
    size_t lag, xlag;   /* hier_lags */
    double ex = 0.0, both, cycle = 0.0, down = 0.0, hold = 0.0, across = 0.0, lock = 0.0;
    int *grp = malloc((size_t)p->n * 2 * sizeof *grp), *dep;
    double *way = malloc((size_t)p->n * 2 * sizeof *way), *up;

    if (!grp || !way) {
        free(grp);
        free(way);
        return INFINITY;
    }
    dep = grp + p->n;
    up = way + p->n;
    hier_lags((size_t)unit, S, &lag, &xlag);
    forest_groups(f, leaders, S, grp, dep);
    for (int k = 1; k < S; k++) {
        double lat = 0.0, ring = 0.0;
        loads_clear(p, l);
        hier_exchange_loads(p, f, leaders, S, bytes, m, unit, k, l);
        for (int i = 0; i < S; i++) {
            lat = fmax(lat, msg(p, leaders[i], leaders[(i + k) % S], 0));
            across = k == 1 ? fmax(across, send_hold(p, leaders[i], leaders[(i + 1) % S], unit))
                            : across;
            ring = fmax(ring, msg(p, leaders[i], leaders[(i + 1) % S], unit));
        }
        /* The ring of leaders (k = 1) moves in lock step: a leader whose
         * send to the leader ahead waits for a slower link stops reading
         * the one behind, whose send then waits too, so every stream
         * goes at the slowest one's pace for the longest run's units.
         * uneven.topo, 128 KB a member: the 5 Mbit/s subnet's leader's
         * stream to the 10 Mbit/s one's was receive-window-limited 55-62%
         * of its busy time (ss -ti), and hier took 1,252-1,342 ms where
         * its links' loads alone gave 1,122 (doc/benchmarks.md run 21) */
        ex += lat + (k == 1 ? fmax(loads_max(p, l), units * ring) : loads_max(p, l));
    }
    hier_loads(p, f, leaders, S, grp, bytes, m, unit, l);
    both = loads_max(p, l);
    /* a unit's way up from each member and down again (a member d
     * levels down takes it back 1 + d lag rounds after the one it sent
     * it up in: 2 + d lag rounds), and what a round's sends hold each
     * member */
    for (int i = 0; i < f->n; i++) {
        const int v = f->order[i], u = f->parent[v], g = grp[v];
        way[v] = u < 0 ? 0.0 : way[u] + msg(p, u, v, unit);
        up[v] = u < 0 ? 0.0 : up[u] + msg(p, v, u, unit);
        cycle = fmax(cycle, (way[v] + up[v]) / (2.0 + dep[v] * (double)lag));
        down = fmax(down, way[v]);
        hold = fmax(hold, round_hold(p, f, v, S > 1 ? leaders[(g + 1) % S] : -1,
                                     f->subtree[leaders[g]], unit));
    }
    for (int g = 0; g < S; g++)
        lock = fmax(lock, group_rounds(p, f, leaders[g],
                                       S > 1 ? f->subtree[leaders[(g - 1 + S) % S]] * per : 0.0,
                                       per, unit));
    free(grp);
    free(way);
    return fmax(fmax(fmax(ex, both), lock), units * fmax(cycle, hold)) +
           (1.0 + (double)lag) * across + down;
}

static double hier_seg(const seg_pass *q, double seg)
{
    return hier_pipe(q->p, q->t, q->leaders, q->S, q->bytes, seg, q->l);
}

/* hier: the segment that minimises hier_pipe, below the longest run. */
static double hier_time(const pm *p, const eco_tree *forest, const int *leaders, int S,
                        double bytes, long forced, loads *l, size_t *segment)
{
    const seg_pass q = { hier_seg, p, forest, leaders, S, 0, bytes, l, 0, NULL, 0 };

    return best_segment(&q, longest_run(forest, leaders, S, bytes), forced, segment);
}

/* A TCP segment's payload: a 1500-byte Ethernet frame's less IP's and
 * TCP's headers with timestamps (netbed's links, and most LANs). */
#define TCP_SEGMENT 1448.0
/* The segments a stream needs in flight to recover a lost one by fast
 * retransmit: the lost one and three behind it, whose duplicate ACKs
 * announce the loss; with fewer, only a retransmission timeout (200 ms
 * at least) does.  All-to-all of 16,000 bytes on uneven.topo
 * (doc/benchmarks.md, "All-to-all on uneven"): direct put 10 streams on
 * the 5 Mbit/s segment's link at once, whose queue (LINK_QUEUE: 18.75 KB)
 * left each 1.9 KB, and took 306-739 ms with 30-51 timeouts a run; hier
 * put 2 there (9.4 KB, 6.5 segments each) and took 326-331 ms with 1,
 * though the two were predicted tied (274.7 and 275.5 ms). */
#define FAST_RETRANSMIT 4

/* Add to l one of the streams that go out at once, of `bytes` from a to
 * b: on each link it crosses (those loads charge), the window it needs to
 * recover a loss by fast retransmit, in seconds at the link's rate; no
 * more than the message (a 1,000-byte block loses one segment at most). */
static void loads_add_window(const pm *p, loads *l, int a, int b, double bytes)
{
    loads_add_n(p, l, a, b, fmin(bytes, FAST_RETRANSMIT * TCP_SEGMENT), 0.0, 0.0);
}

/* Rates that differ by less than this are one rate: eco-characterize
 * measured eco-paper.topo's three 10 Mbit/s segments' links at 8.452e-7
 * to 8.473e-7 s/byte. */
#define RATE_SLACK 0.10

/* Seconds per byte at which a sends to b: the slowest of a's own links
 * the message leaves by (its host's, its subnet's shared link when it
 * leaves the subnet); where those are not known, the pair's, so that a
 * stream is taken to arrive no faster than its path takes it.  A member
 * on a host of no subnet (the pair's cost a LAN's default) is taken to
 * send no faster than b's subnet's link takes it. */
static double send_beta(const pm *p, int a, int b)
{
    double beta = end_beta(p, a, b, pair_cost(p, a, b).beta);

    if (p->sub[a] >= 0 && p->sub[a] != p->sub[b] && p->ul[p->sub[a]] > 0)
        beta = fmax(beta, p->ul[p->sub[a]]);
    if (p->sub[a] < 0 && p->sub[b] >= 0)
        beta = fmax(beta, p->ul[p->sub[b]]);
    return beta;
}

/* Add to l a stream of `bytes` from a to b that arrives with others at
 * once: on each link it crosses, the share of the link's rate that the
 * sender's rate (send_beta) asks of it.  A message that its path's queue
 * (LINK_QUEUE at the pair's rate) holds whole cannot flood it: none. */
static void loads_add_rate(const pm *p, loads *l, int a, int b, double bytes)
{
    const double beta = send_beta(p, a, b);

    if (beta > 0 && bytes * pair_cost(p, a, b).beta > LINK_QUEUE)
        loads_add_n(p, l, a, b, 1.0 / beta, 0.0, 0.0);
}

static int imax(int a, int b)
{
    return a > b ? a : b;
}

/* ECOI_OVER_FLOOD when the streams in l (loads_add_rate) arrive at some
 * link's way in faster than it takes them: its queue fills, however
 * long. */
static int loads_flood(const pm *p, const loads *l)
{
    double m = 0.0;

    for (int h = 0; h < p->nhosts; h++)
        m = fmax(m, l->host_in[h]);
    for (int s = 0; s < p->model->nsubnets; s++)
        m = fmax(m, l->sub_in[s]);
    for (int s = 0; s < p->n && p->site; s++)
        m = fmax(m, l->site_in[s]);
    return m > 1.0 + RATE_SLACK ? ECOI_OVER_FLOOD : ECOI_OVER_NONE;
}

/* ECOI_OVER_FLOOD when, in a reduce's pipeline up tree t (every edge a
 * stream at once, child to parent), two or more children from outside a
 * member's subnet send into its subnet's link together faster than it
 * takes them (their senders' rates, send_beta): one stream TCP fits to
 * the link, two together take it slower than its rate (not by loss:
 * doc/benchmarks.md run 20 counts no TCP timeout there).  uneven.topo's reduce of
 * 131,072 bytes (doc/benchmarks.md, run 19): by the tree, whose root's
 * 10 Mbit/s link takes the 20 and the 5 Mbit/s subnets' streams,
 * 270.0-270.4 ms, by the chain of subnets 240.3-240.5, predicted 231.3
 * and 232.9 (the broadcast, whose streams leave one host one after the
 * other, 228.5-228.6 and 224.1-224.4).  A message that its path's queue
 * holds whole (LINK_QUEUE) floods nothing.  runs: a gather's, each child
 * sending its subtree's run whole (bytes a member); else each sends
 * bytes (a reduce's pipeline). */
static int tree_converges(const pm *p, const eco_tree *t, double bytes, int runs)
{
    for (int u = 0; u < t->n; u++) {
        const int su = p->sub[u];
        double share = 0.0;
        int k = 0;
        if (su < 0 || !(p->ul[su] > 0.0))
            continue;
        for (int j = t->child_off[u]; j < t->child_off[u + 1]; j++) {
            const int v = t->child[j];
            const double beta = send_beta(p, v, u), len = runs ? bytes * t->subtree[v] : bytes;
            if (p->sub[v] == su || len * pair_cost(p, v, u).beta <= LINK_QUEUE || !(beta > 0.0))
                continue;
            share += p->ul[su] / beta;
            k++;
        }
        if (k >= 2 && share > 1.0 + RATE_SLACK)
            return ECOI_OVER_FLOOD;
    }
    return ECOI_OVER_NONE;
}

static double round_time(const pm *p, loads *l, const int *from, const int *to,
                         const double *len, int k, int combine);

/* The worse of what the k streams from[i] -> to[i] of len[i] bytes, sent
 * at once, do: need more than a link queues (loads_add_window,
 * loads_over_queue), or flood a link (loads_add_rate, loads_flood),
 * which counts as flood_grade (ECOI_OVER_FLOOD, or ECOI_OVER_QUEUE where
 * the flooded sender has nothing else to send meanwhile).  Clears l
 * first, and leaves it holding the rates. */
static int streams_over(const pm *p, loads *l, const int *from, const int *to,
                        const double *len, int k, int flood_grade)
{
    int over;

    loads_clear(p, l);
    for (int i = 0; i < k; i++)
        loads_add_window(p, l, from[i], to[i], len[i]);
    over = loads_over_queue(p, l);
    loads_clear(p, l);
    for (int i = 0; i < k; i++)
        loads_add_rate(p, l, from[i], to[i], len[i]);
    return imax(over, loads_flood(p, l) ? flood_grade : ECOI_OVER_NONE);
}

/* The leaders' exchange of all-to-all aggregated: leader i sends leader
 * j the blocks of i's subnet's members for j's. */
#define A2A_LEN(i, j) (bytes * forest->subtree[leaders[i]] * forest->subtree[leaders[j]])

/* The exchange in rounds (hier-rounds): in round k every leader sends to
 * the one k ahead and takes from the one k behind, and the round lasts
 * as long as its busiest resource.  *over as alltoall_hier_time's, for
 * each round's streams. */
static double a2a_rounds(const pm *p, const eco_tree *forest, const int *leaders, int S,
                         double bytes, loads *l, int *over)
{
    int *from = malloc(2 * (size_t)S * sizeof *from);
    double *len = malloc((size_t)S * sizeof *len), tm = 0.0;

    if (!from || !len) {
        free(from);
        free(len);
        return INFINITY;
    }
    for (int k = 1; k < S; k++) {
        int *to = from + S;
        for (int i = 0; i < S; i++) {
            from[i] = leaders[i];
            to[i] = leaders[(i + k) % S];
            len[i] = A2A_LEN(i, (i + k) % S);
        }
        tm += round_time(p, l, from, to, len, S, 0);
        /* a round that floods a link waits for its stream's recovery,
         * with nothing else to send meanwhile (at once, the others' go
         * on): as over as a queue too short.  multilevel.topo, where
         * every stream between the sites floods the 5 Mbit/s link, at
         * 131,072 bytes: in rounds 4107-4113 ms, at once 3800-3821
         * (both predicted 3567) */
        *over = imax(*over, streams_over(p, l, from, to, len, S, ECOI_OVER_QUEUE));
    }
    free(from);
    free(len);
    return tm;
}

/* The exchange at once (hier): every leader sends all its messages, to
 * the leader 1 ahead, 2 ahead, ..., then takes theirs; as long as the
 * busiest resource's load.  A send holds its leader until all but what
 * the socket takes (SOCKET_BYTES) has left, so the streams in flight at
 * once are each leader's message to the leader k ahead and the tail of
 * the one before, for every k: *over as alltoall_hier_time's, for each
 * such pair of them.  Each leader's way in then takes two senders'
 * streams together, each counted at its sender's whole rate, not a share
 * of it (a TCP stream's window leaves at the link's rate): on links of
 * one rate, at once floods wherever S >= 3 and the messages pass the
 * links' queues, which is what eco-paper.topo measured (at once 138-145
 * ms, in rounds 110.7; a share of its sender's rate each, the two would
 * fill the link exactly and not flood). */
static double a2a_at_once(const pm *p, const eco_tree *forest, const int *leaders, int S,
                          double bytes, loads *l, int *over)
{
    int *from = malloc(4 * (size_t)S * sizeof *from);
    double *len = malloc(2 * (size_t)S * sizeof *len), lat = 0.0, tm;

    if (!from || !len) {
        free(from);
        free(len);
        return INFINITY;
    }
    loads_clear(p, l);
    for (int i = 0; i < S; i++)
        for (int j = 0; j < S; j++)
            if (i != j) {
                loads_add(p, l, leaders[i], leaders[j], A2A_LEN(i, j), 0);
                lat = fmax(lat, msg(p, leaders[i], leaders[j], 0));
            }
    tm = lat + loads_max(p, l);
    for (int k = 1; k < S; k++) {
        const int last = k > 1 ? k - 1 : k;     /* k = 1: the first alone */
        int *to = from + 2 * S, m = 0;
        for (int i = 0; i < S; i++)     /* k ahead, then the one before's tail */
            for (int d = k; d >= last; d--) {
                from[m] = leaders[i];
                to[m] = leaders[(i + d) % S];
                len[m++] = A2A_LEN(i, (i + d) % S);
            }
        *over = imax(*over, streams_over(p, l, from, to, len, m, ECOI_OVER_FLOOD));
    }
    free(from);
    free(len);
    return tm;
}

/* The leaders' message i -> j of hier-turns: all-to-all's, the blocks
 * of i's subnet's members for j's; gather-to-all's, i's subnet's. */
static double turns_len(const seg_pass *q, int i, int j)
{
    return q->bytes * q->t->subtree[q->leaders[i]] * (q->a2a ? q->t->subtree[q->leaders[j]] : 1);
}

/* The leaders' exchange in turns of segments (hier-turns,
 * ecoi_sched_turns): every leader's message to every other in as many
 * segments as the longest takes in segments of seg bytes (0: whole, one
 * turn), and in each turn every leader sends one segment of each and
 * takes one of each before the next: a lock-step round of all S (S - 1)
 * segments at once (round_time), as many turns.  Leaves in l one turn's
 * loads (best_segment's over_queue: a segment from each other leader
 * into a link at once is what it must queue).  uneven.topo's all-to-all
 * of 131,072 bytes, doc/benchmarks.md run 21: at once (hier) 2627-2862
 * ms, its leaders' streams from the 10 and 20 Mbit/s subnets meeting on
 * the 5 Mbit/s link; in turns of 8 KB 2368-2384 (predicted 2336, bound
 * 2097). */
static double leaders_turns(const seg_pass *q, double seg)
{
    const pm *p = q->p;
    const int *leaders = q->leaders, S = q->S, k = S * (S - 1);
    int *from = malloc(2 * (size_t)k * sizeof *from), m = 0;
    double *len = malloc((size_t)k * sizeof *len), most = 0.0, turns, tm;

    if (!from || !len) {
        free(from);
        free(len);
        return INFINITY;
    }
    for (int i = 0; i < S; i++)
        for (int j = 0; j < S; j++)
            most = i != j ? fmax(most, turns_len(q, i, j)) : most;
    turns = seg > 0 && seg < most ? ceil(most / seg) : 1.0;
    for (int i = 0; i < S; i++)
        for (int j = 0; j < S; j++)
            if (i != j) {
                from[m] = leaders[i];
                from[k + m] = leaders[j];
                len[m++] = turns_len(q, i, j) / turns;
            }
    tm = turns * round_time(p, q->l, from, from + k, len, k, 0);
    free(from);
    free(len);
    return tm;
}

/* The best segment of leaders_turns (q's time) below its longest
 * message; *over: what its turn puts on the links. */
static double leaders_turns_best(const seg_pass *q, long forced, size_t *segment, int *over)
{
    double most = 0.0, tm;

    for (int i = 0; i < q->S; i++)
        for (int j = 0; j < q->S; j++)
            most = i != j ? fmax(most, turns_len(q, i, j)) : most;
    tm = best_segment(q, most, forced, segment);
    leaders_turns(q, (double)*segment);    /* its turn's loads in l */
    *over = loads_over_queue(q->p, q->l);
    return tm;
}

/* Gather-to-all in turns (hier-turns, gather.c): each subnet's tree
 * gathers its blocks whole, the leaders exchange their subnets' runs in
 * turns (leaders_turns), each subnet's tree takes the whole vector down
 * in one message an edge. */
static double allgather_turns_time(const pm *p, const eco_tree *forest, const int *leaders,
                                   int S, double bytes, long forced, loads *l, int *over,
                                   size_t *segment)
{
    const seg_pass q = { leaders_turns, p, forest, leaders, S, 0, bytes, l, 2, NULL, 0 };
    double *spent = tree_spent(p, forest), tm;

    if (!spent)
        return INFINITY;
    tm = tree_gather(p, forest, bytes) + leaders_turns_best(&q, forced, segment, over) +
         tree_pass(p, forest, spent, bytes * p->n, 0, 0, l);
    free(spent);
    return tm;
}

/* all-to-all aggregated: each subnet's tree gathers whole send buffers
 * (n blocks per member), leaders exchange one message per pair (at once,
 * or in rounds), each subnet's tree scatters.  *over: the streams of the
 * exchange (every leader's at once, or each round's), of the gather
 * (every member's to its parent, taken all at once: inner members send
 * once their subtree is in) or of the scatter need more than a link
 * queues (loads_over_queue: a loss there waits for a timeout), or the
 * exchange's arrive at some link faster than it drains (loads_flood).
 * eco-paper.topo (3 segments at 10 Mbit/s), 16,000 bytes a block,
 * 2026-11-26: at once, two streams of 10 Mbit/s into each segment's link
 * at every change of sender, 138-145 ms; in rounds 110.7-110.9 (bound
 * 102.4, predicted 110.6 and 110.5).  uneven.topo, where each round also has
 * 20 or 10 Mbit/s streams into the 5 Mbit/s link: at once 298-324, in
 * rounds 403-442 (predicted 275 and 331). */
static double alltoall_hier_time(const pm *p, const eco_tree *forest, const int *leaders,
                                 int S, double bytes, int run, long forced, loads *l,
                                 int *over, size_t *segment)
{
    double g = tree_gather(p, forest, bytes * p->n), ex;

    /* not a candidate where a message would pass what one PVM message
     * holds (INT_MAX elements; bytes bound them) */
    for (int i = 0; i < S; i++)
        if (bytes * p->n * forest->subtree[leaders[i]] > (double)INT_MAX)
            return INFINITY;
    *over = 0;
    if (run == ECOI_RUN_TURNS) {
        const seg_pass q = { leaders_turns, p, forest, leaders, S, 0, bytes, l, 2, NULL, 1 };
        ex = leaders_turns_best(&q, forced, segment, over);
    } else {
        ex = run == ECOI_RUN_ROUNDS ? a2a_rounds(p, forest, leaders, S, bytes, l, over)
                                    : a2a_at_once(p, forest, leaders, S, bytes, l, over);
    }
    for (int up = 0; up < 2; up++) {
        loads_clear(p, l);
        for (int v = 0; v < forest->n; v++)
            if (forest->parent[v] >= 0)
                loads_add_window(p, l, up ? v : forest->parent[v], up ? forest->parent[v] : v,
                                 bytes * p->n * forest->subtree[v]);
        *over = imax(*over, loads_over_queue(p, l));
    }
    return g + ex + g;
}
#undef A2A_LEN

/* Add one segment of m bytes on every edge of t to l: up (the parent
 * combines it) or down. */
static void tree_loads(const pm *p, const eco_tree *t, double m, int up, loads *l)
{
    for (int v = 0; v < t->n; v++)
        if (t->parent[v] >= 0) {
            if (up)
                loads_add(p, l, v, t->parent[v], m, m);
            else
                loads_add(p, l, t->parent[v], v, m, 0.0);
        }
}

/* rsag's exchange among S leaders of a chunk of m bytes: the time of its
 * reduce-scatter and gather-to-all rounds alone; with add, their loads
 * added to l instead. */
static double rsag_exchange(const pm *p, const int *leaders, int S, double m, loads *l,
                            int add)
{
    double piece = m / S, t = 0.0;
    loads c;

    if (!add && loads_new(p, &c) != ECO_OK)
        return INFINITY;
    for (int phase = 0; phase < 2; phase++) {
        double lat = 0.0;
        if (!add) {
            loads_clear(p, l);
            loads_clear(p, &c);
        }
        for (int i = 0; i < S; i++)
            for (int j = 0; j < S; j++)
                if (i != j) {
                    loads_add(p, l, leaders[i], leaders[j], piece, phase == 0 ? piece : 0.0);
                    lat = fmax(lat, msg(p, leaders[i], leaders[j], 0));
                    /* the first segment's reduce-scatter crosses idle
                     * links (burst_left); its gather-to-all crosses
                     * them again, the buckets spent */
                    if (!add && phase == 0)
                        loads_links(p, &c, leaders[i], leaders[j],
                                    burst_left(p, leaders[i], leaders[j], piece, 0), 0.0, 1);
                }
        if (!add)
            t += lat + loads_max_less(p, l, &c);
    }
    if (!add)
        free(c.node_out);
    return t;
}

/* Reduce-to-all up tree (or forest) t and down again, pipelined in
 * segments of seg bytes (ecoi_sched_allreduce), with rsag's exchange
 * among S leaders in the middle (S 0: a plain tree): one segment's way
 * up, across and down, then the others at the pace of the busiest
 * resource when every stage runs at once. */
static double allreduce_pass(const pm *p, const eco_tree *t, const double *spent,
                             const int *leaders, int S, double bytes, double seg, loads *l)
{
    double m = seg_of(seg, bytes), nseg = bytes > 0 ? ceil(bytes / m) : 1;
    double fill = tree_pass(p, t, spent, m, 0, 1, l) + tree_pass(p, t, spent, m, 0, 0, l);
    double least;

    if (S > 1)
        fill += rsag_exchange(p, leaders, S, m, l, 0);
    /* the loads of one step, left in l for best_segment (over_queue);
     * none for one segment, whose messages no later round waits behind */
    loads_clear(p, l);
    tree_loads(p, t, m, 1, l);
    tree_loads(p, t, m, 0, l);
    if (S > 1)
        rsag_exchange(p, leaders, S, m, l, 1);
    least = bucket_floor(p, l, nseg);
    if (nseg <= 1) {
        loads_clear(p, l);
        return fmax(fill, least);
    }
    return fmax(fill + (nseg - 1) * loads_max(p, l), least);
}

static double allreduce_seg(const seg_pass *q, double seg)
{
    return allreduce_pass(q->p, q->t, q->spent, q->leaders, q->S, q->bytes, seg, q->l);
}

/* The best segment for allreduce_pass. */
static double allreduce_time(const pm *p, const eco_tree *t, const int *leaders, int S,
                             double bytes, long forced, loads *l, size_t *segment)
{
    double *spent = tree_spent(p, t), best;
    const seg_pass q = { allreduce_seg, p, t, leaders, S, 0, bytes, l, 1, spent, 0 };

    best = best_segment(&q, bytes, forced, segment);
    free(spent);
    return best;
}

static double ring_time(const pm *p, const int *ring, double bytes)
{
    double step = 0.0;

    for (int i = 0; i < p->n && p->n > 1; i++)
        step = fmax(step, msg_step(p, ring[i], ring[(i + 1) % p->n], bytes, p->n));
    return (p->n - 1) * step;
}

/* Reduce-to-all around the ring (ring_reduce.c): the reduce-scatter's
 * n - 1 steps and the gather-to-all's n - 1, each a block of bytes / n,
 * and the combining of n - 1 blocks on the way. */
static double ring_allreduce_time(const pm *p, const int *ring, double bytes)
{
    const double block = bytes / p->n;

    return 2 * ring_time(p, ring, block) + (p->n - 1) * block * GAMMA;
}

/* One round of k messages from[i] -> to[i] of len[i] bytes, all at once,
 * combined on arrival when combine: as long as its slowest message or its
 * busiest resource (the messages that cross a subnet's shared link take
 * their turns on it), whichever is longer. */
static double round_time(const pm *p, loads *l, const int *from, const int *to,
                         const double *len, int k, int combine)
{
    double lat = 0.0;

    loads_clear(p, l);
    for (int i = 0; i < k; i++) {
        double g = combine ? len[i] : 0.0;
        loads_add(p, l, from[i], to[i], len[i], g);
        lat = fmax(lat, msg_step(p, from[i], to[i], len[i], k) + g * GAMMA);
    }
    return k > 0 ? fmax(lat, loads_max(p, l)) : 0.0;
}

/* Recursive doubling (rdouble.c).  Reduce-to-all, among the members in
 * ring order: the folds into the next position, the exchanges of whole
 * vectors at distance 1, 2, 4, ... among the p numbered positions, the
 * results back to the folded ones.  Scan (ring NULL): rank r sends rank
 * r + d the min(d, r + 1) vectors it holds, for d = 1, 2, 4, ... < n;
 * then rank n - 1 combines n vectors. */
static double rdouble_time(const pm *p, const int *ring, double bytes, loads *l, int *rc)
{
    const int n = p->n, pw = ecoi_rd_pow2(n);
    int *from = malloc(2 * (size_t)n * sizeof *from), *to = NULL, k;
    double *len = malloc((size_t)n * sizeof *len), tm = 0.0;

    if (!from || !len) {
        free(from);
        free(len);
        *rc = ECO_ERR_NOMEM;
        return INFINITY;
    }
    to = from + n;
    if (!ring) {
        for (int d = 1; d < n; d *= 2) {
            for (k = 0; k + d < n; k++) {
                from[k] = k;
                to[k] = k + d;
                len[k] = (k + 1 < d ? k + 1 : d) * bytes;
            }
            tm += round_time(p, l, from, to, len, k, 0);
        }
        tm += (n - 1) * bytes * GAMMA;
    } else {
        k = 0;
        for (int pos = 0; pos + 1 < n; pos++)
            if (ecoi_rd_number(n, pos) < 0) {
                from[k] = ring[pos];
                to[k] = ring[pos + 1];
                len[k++] = bytes;
            }
        /* the fold, and the unfold the other way */
        tm += round_time(p, l, from, to, len, k, 1) + round_time(p, l, to, from, len, k, 0);
        for (int d = 1; d < pw; d *= 2) {
            for (k = 0; k < pw; k++) {
                from[k] = ring[ecoi_rd_position(n, k)];
                to[k] = ring[ecoi_rd_position(n, k ^ d)];
                len[k] = bytes;
            }
            tm += round_time(p, l, from, to, len, k, 1);
        }
    }
    free(from);
    free(len);
    return tm;
}

/* Every member sends every other its block: its own sends one after the
 * other, each host and shared link carrying its members' blocks.  *over:
 * the streams of the first round (every member's to the next
 * ECOI_A2A_CHUNK members, at once) need more than a link queues
 * (loads_over_queue: a loss there waits for a timeout). */
static double direct_time(const pm *p, double bytes, loads *l, int *over)
{
    double lat = 0.0, tm;

    loads_clear(p, l);
    for (int a = 0; a < p->n; a++)
        for (int b = 0; b < p->n; b++)
            if (a != b) {
                loads_add(p, l, a, b, bytes, 0.0);
                lat = fmax(lat, msg(p, a, b, 0));
            }
    tm = lat + loads_max(p, l);
    loads_clear(p, l);
    for (int a = 0; a < p->n; a++)
        for (int k = 1; k < p->n && k <= ECOI_A2A_CHUNK; k++)
            loads_add_window(p, l, a, (a + k) % p->n, bytes);
    *over = loads_over_queue(p, l);
    return tm;
}

/* The chain in rank order, pipelined (scan), in segments of seg bytes
 * (0: whole). */
static double rank_chain_seg(const seg_pass *q, double seg)
{
    const pm *p = q->p;
    double m = seg > 0 && seg < q->bytes ? seg : q->bytes;
    double nseg = q->bytes > 0 ? ceil(q->bytes / m) : 1, lat = 0.0;
    int *from = malloc(2 * (size_t)p->n * sizeof *from), *to;
    loads c;

    if (!from || loads_new(p, &c) != ECO_OK) {
        free(from);
        return INFINITY;
    }
    to = from + p->n;
    loads_clear(p, q->l);
    for (int r = 0; r + 1 < p->n; r++) {
        /* every rank but the first passes on what it received */
        lat += (r > 0 ? p->forward : 0.0) + msg_idle(p, r, r + 1, m, 0) + m * GAMMA;
        loads_add(p, q->l, r, r + 1, m, m);
        from[r] = r;
        to[r] = r + 1;
    }
    lat += pipe_steady(p, q->l, &c, from, to, p->n - 1, m, nseg);
    free(from);
    free(c.node_out);
    return lat;
}

static double rank_chain_time(const pm *p, double bytes, long forced, size_t *segment,
                              loads *l)
{
    const seg_pass q = { rank_chain_seg, p, NULL, NULL, 0, 0, bytes, l, 0, NULL, 0 };

    return best_segment(&q, bytes, forced, segment);
}

/* A barrier: empty messages up tree t, then down it.  The busy cost is
 * what a message costs while every member sends; here only some do at
 * once: the leaves on the way up, the members with children on the way
 * down.  A message costs the busy cost at that many runnable members
 * (ecoi_busy_at) on the model's cores (model_cores: 1 when the file
 * does not say), their share of it (at least the pair's alpha).
 * Measured on the six shipped topologies (doc/scale.md), a barrier's
 * message took 0.25 to 0.85 of the busy cost, not all of it. */
static double barrier_time(const pm *p, const eco_tree *t)
{
    pm q = *p;
    int inner = 0;
    double up, down;

    for (int m = 0; m < t->n; m++)
        inner += t->child_off[m + 1] > t->child_off[m];
    if (t->n < 2 || inner == 0)
        return 0.0;
    q.busy = ecoi_busy_at(p->busy, 0.0, t->n - inner, t->n, p->cores);
    up = tree_gather(&q, t, 0);
    q.busy = ecoi_busy_at(p->busy, 0.0, inner, t->n, p->cores);
    down = tree_gather(&q, t, 0);
    return up + down;
}

/* ------------------------------------------------------------------ */
/* Predicting every candidate                                          */
/* ------------------------------------------------------------------ */

/* Trees for a prediction: the context's cache when there is one. */
typedef struct treesrc {
    eco_ctx *ctx;
    const eco_map *map;
    int n;
    const int *mh;
    int pattern_k;
    eco_tree *own[16];  /* built here when there is no context */
    int nown;
} treesrc;

static int get_tree(treesrc *ts, ecoi_shape shape, int root, const eco_tree **t)
{
    eco_tree *tr = NULL;
    int rc;

    if (ts->ctx)
        return ecoi_ctx_shape(ts->ctx, root, shape, t);
    if (ts->nown == 16)
        return ECO_ERR_NOMEM;
    rc = ts->pattern_k ? ecoi_tree_kary(ts->n, root, ts->pattern_k, &tr)
                       : ecoi_tree_build_shape(ts->map, ts->n, ts->mh, root, shape, &tr);
    if (rc != ECO_OK)
        return rc;
    ts->own[ts->nown++] = tr;
    *t = tr;
    return ECO_OK;
}

static void treesrc_free(treesrc *ts)
{
    for (int i = 0; i < ts->nown; i++)
        eco_tree_free(&ts->own[i]);
    ts->nown = 0;
}

/* The groups and lags of gather-to-all hier's plan (ecoi_plan) for
 * blocks of `bytes` among S groups: its units are the plan's segments,
 * or whole blocks (gather.c; a forced segment that is no whole number of
 * elements makes them a little shorter, whose epochs these lags fit all
 * the more).  The same in every member: the map, the members' hosts,
 * the model and the segment are. */
static void hier_plan(int coll, int run, int S, size_t segment, size_t bytes, int *groups,
                      size_t *lag, size_t *xlag)
{
    *groups = 0;
    *lag = *xlag = 0;
    if (coll != ECOI_C_ALLGATHER || run != ECOI_RUN_HIER)
        return;
    *groups = S;
    hier_lags((size_t)seg_of((double)segment, (double)bytes), S, lag, xlag);
}

/* rsag, hier and hier-rounds over t cut into its groups' trees, as the
 * context cuts it (ecoi_ctx_forest: by subnets, and with a's level
 * sites, by sites); INFINITY with fewer than two groups, or sites that
 * do not group subnets (p->site NULL: hier-sites would be hier). */
static double forest_predict(const pm *p, const eco_tree *t, const ecoi_algorithm *a,
                             double bytes, long forced, loads *l, ecoi_prediction *out,
                             int *rc)
{
    eco_tree *forest = NULL;
    const int sites = a->level == ECOI_LEVEL_SITES;
    int *leaders = malloc((size_t)p->n * sizeof *leaders), S = 0, ng = 0;
    int *grp = malloc((size_t)p->n * 2 * sizeof *grp), *site = p->site;
    double tm = INFINITY;

    if (!leaders || !grp)
        *rc = ECO_ERR_NOMEM;
    else if ((ng = ecoi_groups(p->map, p->model, p->n, p->mh, ECOI_LEVEL_SUBNETS, grp)) < 0)
        *rc = ng;
    /* the context's sites, also where p->site has none */
    if (*rc == ECO_OK && ng > 1 && sites && !site) {
        const int ns = ecoi_groups(p->map, p->model, p->n, p->mh, ECOI_LEVEL_SITES,
                                   site = grp + p->n);
        *rc = ns < 0 ? ns : ECO_OK;
    }
    if (*rc == ECO_OK && ng > 1 &&
        (*rc = ecoi_tree_cut(t, grp, sites ? site : NULL, &forest)) == ECO_OK) {
        S = ecoi_forest_roots(forest, leaders);
        tm = S < 2 || (sites && !p->site) ? INFINITY
           : a->coll == ECOI_C_ALLTOALL
           ? alltoall_hier_time(p, forest, leaders, S, bytes, a->run, forced, l, &out->over,
                                &out->segment)
           : a->run == ECOI_RUN_TURNS
           ? allgather_turns_time(p, forest, leaders, S, bytes, forced, l, &out->over,
                                  &out->segment)
           : a->run == ECOI_RUN_RSAG
           ? allreduce_time(p, forest, leaders, S, bytes, forced, l, &out->segment)
           : hier_time(p, forest, leaders, S, bytes, forced, l, &out->segment);
    }
    if (*rc == ECO_OK)
        hier_plan(a->coll, a->run, ng == 1 ? 1 : S, out->segment, (size_t)bytes, &out->groups,
                  &out->lag, &out->xlag);
    eco_tree_free(&forest);
    free(leaders);
    free(grp);
    return tm;
}

/* Predict out->algorithm: its seconds; its segment, over (set by the
 * all-to-all's and reduce's predictions) and hier's groups and lags in
 * *out. */
static double predict_one(const pm *p, treesrc *ts, const ecoi_algorithm *a, int root,
                          double bytes, long forced, loads *l, ecoi_prediction *out, int *rc)
{
    const eco_tree *t = NULL, *tb = NULL;
    double tm = INFINITY;
    int top = root < 0 ? 0 : root;
    size_t s2 = 0, *segment = &out->segment;
    int *over = &out->over;

    *segment = 0;
    *over = 0;
    out->groups = 0;
    out->lag = out->xlag = 0;
    *rc = ECO_OK;
    if (a->run == ECOI_RUN_RING || a->run == ECOI_RUN_CHAIN || a->run == ECOI_RUN_DIRECT ||
        a->run == ECOI_RUN_RDOUBLE) {
        if (a->run == ECOI_RUN_DIRECT)
            return direct_time(p, bytes, l, over);
        if (a->run == ECOI_RUN_CHAIN)
            return rank_chain_time(p, bytes, forced, segment, l);
        if (a->run == ECOI_RUN_RDOUBLE && (a->coll == ECOI_C_SCAN || a->coll == ECOI_C_EXSCAN))
            return rdouble_time(p, NULL, bytes, l, rc);   /* in rank order */
        {
            int *ring = malloc((size_t)p->n * sizeof *ring);
            if (!ring || (*rc = ecoi_ring_order(p->map, p->n, p->mh, ring)) != ECO_OK) {
                free(ring);
                if (*rc == ECO_OK)
                    *rc = ECO_ERR_NOMEM;
                return INFINITY;
            }
            if (a->run == ECOI_RUN_RING && a->coll == ECOI_C_ALLREDUCE)
                tm = ring_allreduce_time(p, ring, bytes);
            else
                tm = a->run == ECOI_RUN_RING ? ring_time(p, ring, bytes)
                                             : rdouble_time(p, ring, bytes, l, rc);
            free(ring);
            return tm;
        }
    }
    if ((*rc = get_tree(ts, a->shape, top, &t)) != ECO_OK)
        return INFINITY;
    switch (a->coll) {
    case ECOI_C_BCAST:
        return tree_pass_best(p, t, bytes, 0, forced, l, segment);
    case ECOI_C_REDUCE:
        *over = tree_converges(p, t, bytes, 0);
        return tree_pass_best(p, t, bytes, 1, forced, l, segment);
    case ECOI_C_ALLREDUCE:
    case ECOI_C_ALLGATHER:
    case ECOI_C_ALLTOALL:
        if (a->run == ECOI_RUN_RSAG || a->run == ECOI_RUN_HIER || a->run == ECOI_RUN_ROUNDS ||
            a->run == ECOI_RUN_TURNS)
            return forest_predict(p, t, a, bytes, forced, l, out, rc);
        if (a->coll == ECOI_C_ALLREDUCE)
            return allreduce_time(p, t, NULL, 0, bytes, forced, l, segment);
        break;
    case ECOI_C_GATHER:
        if (a->run == ECOI_RUN_PACED) {
            /* its whole runs are one turn: they may flood too; and asks
             * make no gather faster than the same tree's unasked */
            const seg_pass q = { tree_paced_seg, p, t, NULL, 0, 0, bytes, l, 2, NULL, 0 };
            return fmax(best_segment(&q, bytes * (t->n - 1), forced, segment),
                        tree_gather_net(p, t, bytes));
        }
        *over = tree_converges(p, t, bytes, 1);
        return tree_gather_net(p, t, bytes);
    case ECOI_C_SCATTER: {
        const seg_pass q = { tree_scatter_seg, p, t, NULL, 0, 0, bytes, l, 0, NULL, 0 };
        return best_segment(&q, bytes * (t->n - 1), forced, segment);
    }
    case ECOI_C_SCAN:
    case ECOI_C_EXSCAN:
        return 2 * tree_gather(p, t, bytes);
    case ECOI_C_GATHERV:
    case ECOI_C_SCATTERV:
        /* the counts (an int per member), then the blocks */
        return tree_gather(p, t, sizeof(int)) + tree_gather(p, t, bytes);
    case ECOI_C_REDUCE_SCATTER:
        /* bytes: the whole vector, reduced at rank 0, scattered */
        return tree_pass_best(p, t, bytes, 1, forced, l, segment) +
               tree_gather(p, t, bytes / p->n);
    case ECOI_C_BARRIER:
        return barrier_time(p, t);
    default:
        break;
    }
    if (a->coll == ECOI_C_ALLGATHER || a->coll == ECOI_C_ALLGATHERV) {
        /* gathered at rank 0, then broadcast down the best bcast tree */
        double g = tree_gather(p, t, bytes), best = INFINITY;
        for (int i = 0; i < NALG; i++)
            if (algorithms[i].coll == ECOI_C_BCAST) {
                double b;
                if ((*rc = get_tree(ts, algorithms[i].shape, 0, &tb)) != ECO_OK)
                    return INFINITY;
                b = tree_pass_best(p, tb, bytes * p->n, 0, forced, l, &s2);
                if (b < best) {
                    best = b;
                    *segment = s2;
                }
            }
        return g + best;
    }
    return INFINITY;
}

static int first_tree(int coll)
{
    for (int i = 0; i < NALG; i++)
        if (algorithms[i].coll == coll && algorithms[i].run == ECOI_RUN_TREE)
            return i;
    return -1;
}

int ecoi_predict(const eco_map *map, const ecoi_model *model, int n, const int *member_host,
                 eco_ctx *ctx, int coll, int root, size_t bytes, long segment,
                 ecoi_prediction *out, int max)
{
    ecoi_model *dflt = NULL;
    const ecoi_model *mdl = model;
    treesrc ts = { ctx, map, n, member_host, ctx ? ctx->pattern_k : 0, { NULL }, 0 };
    loads l = { NULL };
    pm p = { NULL };
    int k = 0, rc = ECO_OK;

    if (!mdl || (map && mdl->nsubnets != map->nsubnets)) {
        if (!(dflt = ecoi_model_default(map)))
            return ECO_ERR_NOMEM;
        mdl = dflt;
    }
    rc = pm_init(&p, map, mdl, n, member_host);
    if (rc == ECO_OK)
        rc = loads_new(&p, &l);
    for (int i = 0; i < NALG && rc == ECO_OK && k < max; i++) {
        const ecoi_algorithm *a = &algorithms[i];
        if (a->coll != coll)
            continue;
        /* The comparison patterns (eco_set_pattern) are single trees:
         * the first tree algorithm of the operation, if it has one. */
        if (ts.pattern_k && first_tree(coll) >= 0 && first_tree(coll) != i)
            continue;
        out[k].algorithm = i;
        out[k].seconds = predict_one(&p, &ts, a, root, (double)bytes, segment, &l, &out[k],
                                     &rc);
        treesrc_free(&ts);
        k++;
    }
    treesrc_free(&ts);
    free(l.node_out);
    free(p.sub);
    free(p.site);
    free(p.hrate);
    free(p.ul);
    free(p.ub);
    ecoi_model_free(dflt);
    return rc == ECO_OK ? k : rc;
}

/* ------------------------------------------------------------------ */
/* The choice                                                          */
/* ------------------------------------------------------------------ */

/* Size classes: powers of two. */
static int size_class(size_t bytes)
{
    int c = 0;

    while (bytes > 1 && c < ECOI_SIZE_CLASSES - 1) {
        bytes >>= 1;
        c++;
    }
    return c;
}

int ecoi_parse_forced(const char *spec, int *forced, char *err, size_t errlen)
{
    const char *s = spec;

    for (int c = 0; c < ECOI_NCOLL; c++)
        forced[c] = -1;
    while (s && *s) {
        const char *eq = strchr(s, '='), *end = strchr(s, ',');
        char op[32];
        int coll, alg;
        if (!end)
            end = s + strlen(s);
        if (!eq || eq > end || (size_t)(eq - s) >= sizeof op) {
            ecoi_set_err(err, errlen, "'%.*s': expected OP=ALGORITHM", (int)(end - s), s);
            return ECO_ERR_ARG;
        }
        memcpy(op, s, (size_t)(eq - s));
        op[eq - s] = '\0';
        if ((coll = ecoi_coll_from_name(op)) < 0) {
            ecoi_set_err(err, errlen, "'%s': no such operation", op);
            return ECO_ERR_ARG;
        }
        if ((alg = ecoi_algorithm_find(coll, eq + 1, (size_t)(end - eq - 1))) < 0) {
            ecoi_set_err(err, errlen, "'%.*s': no such algorithm for %s",
                         (int)(end - eq - 1), eq + 1, op);
            return ECO_ERR_ARG;
        }
        forced[coll] = alg;
        s = *end ? end + 1 : end;
    }
    return ECO_OK;
}

/* 1 when prediction x may run under flags: a call that must not cut its
 * vector (ECOI_CALL_WHOLE: the legacy layer's user functions take whole
 * vectors) cannot split it among subnets (rsag). */
static int may_run(const ecoi_prediction *x, unsigned flags)
{
    return !(flags & ECOI_CALL_WHOLE) || algorithms[x->algorithm].run != ECOI_RUN_RSAG;
}

/* The least predicted that may run (may_run).  A candidate that is over
 * is like a segment whose rounds overflow a link's queue (best_segment):
 * its losses cost what the prediction does not see.  The least over
 * whose best is within QUEUE_SLACK of the best of all runs: not over,
 * else flooding, else the best. */
int ecoi_choose(const ecoi_prediction *pr, int k, unsigned flags)
{
    int best = -1, fit[ECOI_OVER_QUEUE + 1] = { -1, -1, -1 };

    for (int i = 0; i < k; i++) {
        if (!may_run(&pr[i], flags))
            continue;
        if (best < 0 || pr[i].seconds < pr[best].seconds)
            best = i;
        for (int o = pr[i].over < 0 ? 0 : pr[i].over; o <= ECOI_OVER_QUEUE; o++)
            if (fit[o] < 0 || pr[i].seconds < pr[fit[o]].seconds)
                fit[o] = i;
    }
    for (int o = 0; o < ECOI_OVER_QUEUE && best >= 0 && pr[best].over > o; o++)
        if (fit[o] >= 0 && pr[fit[o]].seconds < pr[best].seconds * (1.0 + QUEUE_SLACK))
            return fit[o];
    return best;
}

/* ", groups S, lag L, xlag X" for gather-to-all hier's plan, else "";
 * buf has room for any values. */
#define LAGS_TEXT_LEN (sizeof ", groups , lag , xlag " + ECOI_DEC_LEN(int) + \
                       2 * ECOI_DEC_LEN(size_t))
static const char *plan_lags_text(const ecoi_plan *plan, char buf[LAGS_TEXT_LEN])
{
    buf[0] = '\0';
    if (plan->groups > 0)
        snprintf(buf, LAGS_TEXT_LEN, ", groups %d, lag %zu, xlag %zu", plan->groups,
                 plan->lag, plan->xlag);
    return buf;
}

int ecoi_select(eco_ctx *c, int coll, int root, size_t bytes, ecoi_plan *plan)
{
    return ecoi_select_flags(c, coll, root, bytes, 0, plan);
}

int ecoi_select_flags(eco_ctx *c, int coll, int root, size_t bytes, unsigned flags,
                      ecoi_plan *plan)
{
    ecoi_plan spare = { .algorithm = -1 }, *slot;
    ecoi_prediction pr[16];
    long seg = c->segment_auto ? -1 : (long)c->segment;
    const int whole = (flags & ECOI_CALL_WHOLE) != 0;
    char lags[LAGS_TEXT_LEN];
    int k, best = -1;

    if (c->share)
        return ecoi_select_flags(c->share, coll, root, bytes, flags, plan);
    if (!(slot = ecoi_ctx_plan_slot(c, coll, size_class(bytes))))
        slot = &spare;   /* out of memory: chosen again next time */
    if (!whole && slot->algorithm >= 0 && slot->root == root &&
        slot->pattern_k == c->pattern_k) {
        *plan = *slot;
        /* the size class's plan, with the lags of this call's blocks */
        hier_plan(coll, plan->run, plan->groups, plan->segment, bytes, &plan->groups,
                  &plan->lag, &plan->xlag);
        return ECO_OK;
    }
    if (whole)
        seg = 0;
    k = ecoi_predict(c->map, ctx_model(c), c->n, c->member_host, c,
                     coll, root, bytes, seg, pr, 16);
    if (k < 0)
        return k;
    /* The forced algorithm if there is one and it may run, else
     * ecoi_choose's. */
    for (int i = 0; i < k && !c->pattern_k; i++)
        if (pr[i].algorithm == c->forced[coll] && may_run(&pr[i], flags))
            best = i;
    if (best < 0)
        best = ecoi_choose(pr, k, flags);
    if (best < 0)
        return ECO_ERR_ARG;
    plan->algorithm = pr[best].algorithm;
    plan->segment = pr[best].segment;
    plan->seconds = pr[best].seconds;
    plan->root = root;
    plan->pattern_k = c->pattern_k;
    plan->shape = algorithms[plan->algorithm].shape;
    plan->run = algorithms[plan->algorithm].run;
    plan->level = algorithms[plan->algorithm].level;
    plan->groups = pr[best].groups;
    plan->lag = pr[best].lag;
    plan->xlag = pr[best].xlag;
    if (!whole)
        *slot = *plan;
    if (ecoi_log_enabled(ECO_LOG_TRACE))
        ecoi_log(ECO_LOG_TRACE,
                 "%s of %zu bytes, root %d: %s, segment %zu%s, predicted %.3f ms",
                 ecoi_coll_name(coll), bytes, root, algorithms[plan->algorithm].name,
                 plan->segment, plan_lags_text(plan, lags), plan->seconds * 1e3);
    return ECO_OK;
}

size_t ecoi_plan_step(const ecoi_plan *plan, size_t size)
{
    return plan->segment == 0 ? 0 : plan->segment < size ? 1 : plan->segment / size;
}

size_t ecoi_plan_elems(const ecoi_plan *plan, size_t count, size_t size)
{
    size_t e;

    if (plan->segment == 0 || count == 0)
        return count ? count : 1;
    e = plan->segment / size;
    return e == 0 ? 1 : e > count ? count : e;
}
