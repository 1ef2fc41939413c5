/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * eco_coll.h -- private: the context, the transport interface and the
 * datatype helpers shared by the collectives.  Not installed.
 *
 * Layers: the collectives (bcast.c, gather.c, ...) see a tree (tree.c) and
 * a transport (pvm_transport.c for real runs, local_transport.c for the
 * in-process unit tests); they never call PVM themselves.
 * Internal symbols use the ecoi_ prefix and are not exported.
 */
#ifndef ECO_COLL_H
#define ECO_COLL_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include "eco.h"
#include "eco_map_impl.h"
#include "eco_compat_iface.h"  /* what lib/compat/ uses: ecoi_type_size, ... */

/* ------------------------------------------------------------------ */
/* Datatypes and ops                                                   */
/* ------------------------------------------------------------------ */

/* ecoi_type_size: eco_compat_iface.h. */
/* ECO_OK when op can be applied to datatype, else ECO_ERR_DATATYPE. */
int ecoi_op_check(eco_op op, int datatype);
/* acc = acc op in, count elements; ECO_OK or the op's error. */
int ecoi_op_apply(eco_op op, int datatype, void *acc, const void *in, size_t count);

/* Identity of a built-in op (1..4), ECOI_OP_USER for any other, 0 none. */
#define ECOI_OP_USER 15
int ecoi_op_id(eco_op op);
/* Called by ecoi_op_apply with the bytes it combines, when set: the
 * simulated transport charges compute time (sim_transport.c). */
extern void (*ecoi_combine_hook)(size_t bytes);

/* ------------------------------------------------------------------ */
/* Transport: typed messages between members, matched by (source, tag). */
/* ------------------------------------------------------------------ */
typedef struct ecoi_transport ecoi_transport;

/*
 * The signature of a collective call: what every member must agree on.
 * Every message carries its sender's; a receiver whose own differs fails
 * with ECO_ERR_MISMATCH (and ecoi_end spreads the error), so members that
 * disagree on the operation, count, datatype, root or op fail instead of
 * hanging or succeeding with wrong data.
 */
typedef struct ecoi_sig {
    int kind;      /* ECOI_KIND_* */
    int root;      /* a rank, or ECO_ALL */
    int count;     /* elements per member, as passed */
    int datatype;
    int op;        /* ecoi_op_id, 0 when the call has no op */
} ecoi_sig;

static inline int ecoi_sig_equal(const ecoi_sig *a, const ecoi_sig *b)
{
    return a->kind == b->kind && a->root == b->root && a->count == b->count &&
           a->datatype == b->datatype && a->op == b->op;
}

enum {
    ECOI_KIND_BCAST = 1, ECOI_KIND_REDUCE, ECOI_KIND_GATHER, ECOI_KIND_SCATTER,
    ECOI_KIND_ALLTOALL, ECOI_KIND_SCAN, ECOI_KIND_BARRIER,
    ECOI_KIND_GATHERV, ECOI_KIND_SCATTERV, ECOI_KIND_ALLTOALLV, ECOI_KIND_REDUCE_SCATTER,
    ECOI_KIND_EXSCAN
};

struct ecoi_transport {
    /* The signature of the collective under way (set by ecoi_begin):
     * sent with every message and compared with every message received. */
    ecoi_sig sig;
    int call_tag;   /* the first tag of the call under way */
    /* Called on entry to / exit from every collective (PVM: switch to the
     * library's message context, save and restore the caller's buffers). */
    void (*enter)(ecoi_transport *t);
    void (*leave)(ecoi_transport *t);
    /* Send count elements of datatype at buf to member dest. */
    int (*send)(ecoi_transport *t, int dest, int tag, const void *buf,
                size_t count, int datatype);
    /* Receive exactly count elements from member src into buf; before
     * unpacking, pass the same message on to members fwd[0..nfwd-1]. */
    int (*recv)(ecoi_transport *t, int src, int tag, void *buf,
                size_t count, int datatype, const int *fwd, int nfwd);
    /* The same as recv when the message (src, tag) is there now; else
     * ECOI_AGAIN, having read and sent nothing of it.  Fails as recv does
     * when src is gone (after the same grace) or gave up. */
    int (*try_recv)(ecoi_transport *t, int src, int tag, void *buf,
                    size_t count, int datatype, const int *fwd, int nfwd);
    /* Optional: the caller polls and has nothing to do (eco_test): let
     * one polling period pass (the simulation's virtual time). */
    void (*idle)(ecoi_transport *t);
    /* The head of this member's list of contexts with requests under way
     * (request.c), or NULL: the calling thread's (a member is a thread,
     * but for the simulation's fibers). */
    struct eco_ctx **busy;
    /* 1 from the start of a call (ecoi_begin, or a request's turn) to its
     * end, whether or not the member is inside the library: peers that
     * wait on this member compare their call with this one. */
    int active;
    /* At the start of every collective: the error a member that gave up
     * sent with its abort (ECO_ERR_PEER, ECO_ERR_MISMATCH, ...), else ECO_OK.  Reads the exit notices that have
     * arrived, so that a send to a member known to be gone fails. */
    int (*poll)(ecoi_transport *t);
    /* Optional: at the end of a call that went well, before it returns:
     * ECO_ERR_MISMATCH when a message of this call or of one of the
     * ECOI_STALE_CALLS before it is still unread here (in agreement a
     * call ends only when it has read every message it was sent), else
     * ECO_OK.  A message that comes after the call's last look is found
     * by the next call's. */
    int (*finish)(ecoi_transport *t);
    /* Tell peers that this member gave up, with the error it returns. */
    void (*abort)(ecoi_transport *t, const int *peers, int npeers, int status);
    void (*destroy)(ecoi_transport *t);
};

/* Not an error: a receive whose message has not come (try_recv), a
 * schedule or request that cannot go on before one does. */
#define ECOI_AGAIN 1

/* ------------------------------------------------------------------ */
/* Schedules (sched.c): a collective as steps in rounds                */
/* ------------------------------------------------------------------ */
enum { ECOI_STEP_SEND, ECOI_STEP_RECV, ECOI_STEP_COPY, ECOI_STEP_UNPACK, ECOI_STEP_PACK,
       ECOI_STEP_OP, ECOI_STEP_CALL, ECOI_STEP_MORE };
struct ecoi_sched;
typedef struct ecoi_step {
    unsigned char kind, done;
    unsigned char left;     /* RECV into acc, OP: acc = in op acc */
    int round;
    int peer, tag;
    char *buf;              /* SEND: from; RECV: into (acc NULL); COPY, (UN)PACK: from;
                             * OP: the operand in; CALL: its argument */
    char *acc;              /* RECV, OP: combined into; COPY, (UN)PACK: to */
    size_t count;           /* elements; (UN)PACK: blocks */
    const int *order;       /* UNPACK: block i goes to place order[i]; PACK: comes from */
    size_t unit;            /* (UN)PACK: bytes a block */
    int (*fn)(void *arg);   /* CALL: local work, ECO_OK or an error */
    /* MORE: appends the rounds that follow (buf: its argument) */
    int (*more)(struct ecoi_sched *s, void *arg);
    int fwd, nfwd;          /* RECV: passed on to sched.fwd[fwd .. fwd + nfwd - 1] */
} ecoi_step;

/* Memory a schedule frees with itself, and how. */
typedef struct ecoi_owned {
    void *p;
    void (*drop)(void *p);
} ecoi_owned;

typedef struct ecoi_sched {
    eco_ctx *c;
    int datatype;
    eco_op op;
    ecoi_step *steps;
    int nsteps, cap, nrounds;
    int *fwd, nfwd;
    char *in;               /* the combining receives' buffer */
    size_t inbytes;
    ecoi_owned *owned;      /* what is freed with the schedule */
    int nowned;
    int cur, started;       /* the round under way: its first step, sent */
    int rc;                 /* the first error (building or running) */
} ecoi_sched;

void ecoi_sched_init(ecoi_sched *s, eco_ctx *c, int datatype, eco_op op);
void ecoi_sched_free(ecoi_sched *s);
/* The steps after it start a new round. */
void ecoi_sched_fence(ecoi_sched *s);
/* A buffer of the schedule's own (NULL, and s->rc, without memory). */
void *ecoi_sched_alloc(ecoi_sched *s, size_t bytes);
void ecoi_sched_send(ecoi_sched *s, int peer, int tag, const void *buf, size_t count);
void ecoi_sched_recv(ecoi_sched *s, int peer, int tag, void *buf, size_t count);
void ecoi_sched_recv_fwd(ecoi_sched *s, int peer, int tag, void *buf, size_t count,
                         const int *fwd, int nfwd);
/* Receive and combine into acc: acc = acc op in, or (left) in op acc. */
void ecoi_sched_recv_op(ecoi_sched *s, int peer, int tag, void *acc, size_t count, int left);
/* Local steps, run when their round starts, in order with its sends.
 * copy: the ranges may overlap (memmove).  op: acc = acc op in, or
 * (left) in op acc.  call: fn(arg), arg the schedule's to free. */
void ecoi_sched_copy(ecoi_sched *s, void *to, const void *from, size_t count);
void ecoi_sched_op(ecoi_sched *s, void *acc, const void *in, size_t count, int left);
void ecoi_sched_call(ecoi_sched *s, int (*fn)(void *arg), void *arg);
/* p (malloc'd) is freed with the schedule; at once, and s->rc set,
 * without memory to note it. */
void ecoi_sched_own(ecoi_sched *s, void *p);
/* The same for a tree (eco_tree_free). */
void ecoi_sched_own_tree(ecoi_sched *s, eco_tree *t);
/* A round of its own that, when it starts, drops the steps done and
 * calls more(s, arg) to append what follows (perhaps another of these):
 * a long schedule (the ring's n - 1 rounds) made a few rounds at a time,
 * so that it holds O(1) steps, not O(n). */
void ecoi_sched_more(ecoi_sched *s, int (*more)(ecoi_sched *s, void *arg), void *arg);
/* In a round of its own: t's preorder blocks of `unit` bytes at pre to
 * rank order at ranks (ecoi_preorder_to_ranks, when the round starts). */
void ecoi_sched_unpack(ecoi_sched *s, const eco_tree *t, const void *pre, void *ranks,
                       size_t unit);
/* The other way: rank order at ranks to t's preorder at pre. */
void ecoi_sched_pack(ecoi_sched *s, const eco_tree *t, const void *ranks, void *pre,
                     size_t unit);
/* Run as far as the arrived messages allow (ECOI_AGAIN when more is
 * left), or with wait to the end.  ECO_OK when done, or the error. */
int ecoi_sched_advance(ecoi_sched *s, int wait);
/* Run to the end and free: a walker inside a call. */
int ecoi_sched_run(ecoi_sched *s);
/* Broadcast down t from its root, step elements a segment (0: whole). */
void ecoi_sched_bcast(ecoi_sched *s, const eco_tree *t, int tag, void *buf, size_t count,
                      size_t step);
/* Reduce up t: result (the root's) = the op of every member's mine. */
void ecoi_sched_reduce(ecoi_sched *s, const eco_tree *t, int tag, const void *mine,
                       void *result, size_t count, size_t step);
/* Reduce-to-all up t and down again, pipelined in chunks of step
 * elements; at t's roots, nmid middle stages between up and down: for
 * stage k = 1 .. nmid of the chunk at element off (len elements),
 * mid(s, arg, k, off, len) appends its steps to the current round. */
typedef void (*ecoi_mid_fn)(ecoi_sched *s, void *arg, int stage, size_t off, size_t len);
void ecoi_sched_allreduce(ecoi_sched *s, const eco_tree *t, int tup, int tdown,
                          const void *mine, void *result, size_t count, size_t step,
                          int nmid, ecoi_mid_fn mid, void *arg);
/* Gather up t: the root's block gets every member's count elements in
 * t's preorder (a member's subtree is one run). */
void ecoi_sched_gather(ecoi_sched *s, const eco_tree *t, int tag, const void *mine,
                       void *block, size_t count);
/* Gather up t as ecoi_sched_gather does, each of a member's children's
 * runs in turns as ecoi_sched_scatter cuts them (step elements: the
 * longest run's segment, 0: whole), each segment asked for by the
 * parent (an empty message), ECOI_PACED_AHEAD asked for ahead. */
void ecoi_sched_gather_paced(ecoi_sched *s, const eco_tree *t, int tag, const void *mine,
                             void *block, size_t count, size_t step);
/* Segments a parent asks each child for ahead (ecoi_sched_gather_paced;
 * lib/select.c counts them on the links). */
#define ECOI_PACED_AHEAD 2
/* Scatter down t from the root's block (preorder); mine NULL: keep none.
 * Runs go in segments of step elements, each child's in turn (0: whole). */
void ecoi_sched_scatter(ecoi_sched *s, const eco_tree *t, int tag, const void *block,
                        void *mine, size_t count, size_t step);
/* A run of len elements in `turns` turns: segments of *seg elements,
 * how many (one message even for an empty run); segment k's length. */
size_t ecoi_run_segments(size_t len, size_t turns, size_t *seg);
size_t ecoi_run_piece(size_t len, size_t seg, size_t k);
/* The turns of a run of `most` elements in segments of step (0: whole,
 * one turn). */
size_t ecoi_turns_of(size_t most, size_t step);
/* An exchange in turns: sbuf[i] (slen[i] elements) to to[i], rlen[i]
 * from from[i] into rbuf[i] (i < n), every message in `turns` segments,
 * segment k of each in turn k, a turn after the one before. */
void ecoi_sched_turns(ecoi_sched *s, int tag, int n, const int *to, char *const *sbuf,
                      const size_t *slen, const int *from, char *const *rbuf,
                      const size_t *rlen, size_t turns);
/* Broadcast from rank 0 down the tree select.c picks for the whole vector. */
void ecoi_sched_bcast_from0(ecoi_sched *s, void *buf, size_t count);

/* ------------------------------------------------------------------ */
/* Requests (request.c): schedules queued on a context                 */
/* ------------------------------------------------------------------ */
/*
 * A collective call is a request: its signature, its call number (its
 * tags) and its schedule, made when the call starts.  A context runs its
 * requests one after the other, in the order they started (the same in
 * every member); a blocking call is a request waited on at once.  The
 * call's local work (unpack a gather, ...) is steps of its schedule.
 */
struct eco_request {
    eco_ctx *ctx;           /* NULL when done */
    ecoi_sig sig;
    unsigned call;          /* its number: its tags */
    ecoi_sched sched;
    int status;             /* ECOI_AGAIN until done */
    int begun;
    eco_request *next;      /* in the context's queue */
};

/* A new request on c for a call with the signature's fields: checks that
 * c is not broken, takes the next call number and sets c->seq to its
 * tags, so that the builder that follows uses them.  NULL: *rc says why. */
eco_request *ecoi_request_new(eco_ctx *c, int kind, int count, int datatype, eco_op op,
                              int root, int *rc);
/* Queue r (built) and run it as far as it goes now.  On a build error
 * (r->sched.rc) the request fails, and the context with it. */
int ecoi_request_start(eco_request *r, eco_request **out);
/* Start and wait: the blocking calls. */
int ecoi_request_run(eco_request *r);
/* Finish every request queued on c (ecoi_begin, eco_finalize). */
int ecoi_ctx_drain(eco_ctx *c);

/* ------------------------------------------------------------------ */
/* Algorithms and their selection (select.c)                           */
/* ------------------------------------------------------------------ */

/* The collectives, as the selection knows them. */
enum {
    ECOI_C_BCAST, ECOI_C_REDUCE, ECOI_C_ALLREDUCE, ECOI_C_GATHER, ECOI_C_ALLGATHER,
    ECOI_C_SCATTER, ECOI_C_ALLTOALL, ECOI_C_SCAN, ECOI_C_BARRIER,
    /* the vector forms (vector.c, alltoall.c, scan.c) */
    ECOI_C_GATHERV, ECOI_C_ALLGATHERV, ECOI_C_SCATTERV, ECOI_C_ALLTOALLV,
    ECOI_C_REDUCE_SCATTER, ECOI_C_EXSCAN, ECOI_NCOLL
};
/* How an algorithm runs. */
enum {
    ECOI_RUN_TREE,    /* walks a tree of the given shape (the rooted ones) */
    ECOI_RUN_RSAG,    /* reduce-to-all: subnet trees, then reduce-scatter and
                       * gather-to-all among the subnets' leaders */
    ECOI_RUN_RING,    /* gather-to-all, reduce-to-all around eco_ring's ring */
    ECOI_RUN_HIER,    /* gather-to-all: subnet trees, exchange among leaders */
    ECOI_RUN_CHAIN,   /* scan down a pipelined chain of ranks */
    ECOI_RUN_DIRECT,  /* all-to-all, pairwise */
    ECOI_RUN_RDOUBLE, /* reduce-to-all, scan: exchanges at distance 1, 2, 4, ... */
    ECOI_RUN_ROUNDS,  /* all-to-all: subnet trees, leaders exchange in rounds */
    ECOI_RUN_PACED,   /* gather up a tree, each segment asked for by the parent */
    ECOI_RUN_TURNS    /* all-to-all: subnet trees, leaders exchange in turns of
                       * segments, every message a segment a turn */
};
/* ECOI_RUN_DIRECT's sends a round (alltoall.c; select.c counts the
 * streams of one round). */
#define ECOI_A2A_CHUNK 64

/* A tree's shape, level by level: among subnets, ECO's tree, a chain or a
 * star from the root's subnet (cheapest subnet first, or dearest first:
 * STAR_FAR, for scatter, so that the slowest link starts first);
 * the degree k among a subnet's hosts and among a host's tasks (0: the
 * subnet file's k; ECOI_K_STAR: a star). */
enum { ECOI_AMONG_TREE = 0, ECOI_AMONG_CHAIN = 1, ECOI_AMONG_STAR = 2, ECOI_AMONG_STAR_FAR = 3 };
#define ECOI_K_STAR 65536
typedef struct ecoi_shape {
    int subnets;
    int khosts;
    int ktasks;
} ecoi_shape;
static inline int ecoi_shape_equal(ecoi_shape a, ecoi_shape b)
{
    return a.subnets == b.subnets && a.khosts == b.khosts && a.ktasks == b.ktasks;
}

/* The level rsag and hier exchange at: among subnets, or among sites. */
enum { ECOI_LEVEL_SUBNETS = 0, ECOI_LEVEL_SITES = 1, ECOI_LEVELS = 2 };

typedef struct ecoi_algorithm {
    const char *name;
    int coll;          /* ECOI_C_* */
    int run;           /* ECOI_RUN_* */
    ecoi_shape shape;  /* of its tree(s) */
    int level;         /* rsag, hier: ECOI_LEVEL_* */
} ecoi_algorithm;

/* What a call runs: decided by ecoi_select, the same in every member. */
typedef struct ecoi_plan {
    int algorithm;     /* index in the table; -1: not chosen yet */
    int run;
    ecoi_shape shape;
    int level;
    size_t segment;    /* pipelining segment in bytes, 0: none */
    double seconds;    /* the predicted time */
    int root, pattern_k;  /* what it was chosen for */
    /* gather-to-all hier (gather.c), for the call's block (0 otherwise):
     * its groups, the rounds after its parent sent a unit that a member a
     * level down reads it, and those after the leader behind sent one
     * that a leader reads it (select.c, hier_lags) */
    int groups;
    size_t lag, xlag;
} ecoi_plan;
#define ECOI_SIZE_CLASSES 40   /* powers of two of bytes */

typedef struct ecoi_prediction {
    int algorithm;
    size_t segment;
    double seconds;
    int over;          /* ECOI_OVER_*: what the streams it runs at once do
                        * to the links' queues; 0 also when not known */
    int groups;        /* gather-to-all hier: as ecoi_plan's, 0 otherwise */
    size_t lag, xlag;
} ecoi_prediction;

/* Room for any value of an integer type in decimal, sign included: 3
 * digits for each 10 bits, and 2 (log10(2) is a little more than 0.3)
 * (the groups and lags in text: lib/select.c's trace, eco-show). */
#define ECOI_DEC_LEN(type) (sizeof(type) * CHAR_BIT * 3 / 10 + 2)
/* ecoi_prediction.over, the worse the higher (select.c): the streams
 * arrive at some link faster than it drains them (its queue fills and
 * drops; fast retransmit recovers), or leave its queue too short for a
 * fast retransmit each (FAST_RETRANSMIT; a loss waits for a timeout). */
enum { ECOI_OVER_NONE = 0, ECOI_OVER_FLOOD = 1, ECOI_OVER_QUEUE = 2 };

const char *ecoi_coll_name(int coll);
int ecoi_coll_from_name(const char *name);   /* -1 when unknown */
const ecoi_algorithm *ecoi_algorithm_at(int i);  /* NULL past the table */
/* The table's index of coll's algorithm name[0..len-1], or -1. */
int ecoi_algorithm_find(int coll, const char *name, size_t len);
/* "OP=NAME,OP=NAME": forced[coll] = index, -1 for the others. */
int ecoi_parse_forced(const char *spec, int *forced, char *err, size_t errlen);

/* The model of a map without a measured one: the defaults of select.c
 * with the file's costs; free with ecoi_model_free (NULL: no memory). */
ecoi_model *ecoi_model_default(const eco_map *m);
/* The bytes a message takes on a link beyond its data (lib/select.c): PVM's message
 * and fragment headers, TCP/IP's and Ethernet's.  eco-characterize's
 * ring of 64-byte messages across links between subnets (before it
 * measured busy inside them) took 161 us a message through eco-paper's
 * 10 Mbit/s links, 190 bytes' time, and 310 us through multilevel's
 * 5 Mbit/s, 194 bytes': 126 and 130 beyond the data.  A link between
 * subnets is charged these bytes and the busy cost for each message (a
 * segment of 4,100 bytes, two messages, took 0.17 ms longer than one of
 * 4,000 on eco-paper, doc/benchmarks.md run 10: 108 us of headers and
 * the 52 us of busy measured inside its subnets).  When busy was
 * measured across those links it held their wire time: the floor of
 * every message (pair_cost) was 161 us there, a short message's
 * prediction on eco-paper 3 to 10 times what it took. */
#define ECOI_WIRE_HEADER 128.0

/* The least seconds a message costs while every member is busy: m's
 * measured busy, else (NULL, or 0: not measured) select.c's default. */
double ecoi_model_busy(const ecoi_model *m);
/* What a message costs while `runnable` members run at once, when it
 * costs busy while `members` do, all on `cores` shared cores (<= 0: each
 * its own CPU: busy): busy x max(runnable, cores) / max(members, cores),
 * at least quiet (select.c). */
double ecoi_busy_at(double busy, double quiet, double runnable, double members,
                    double cores);
/* The share of the stepbyte (ecoi_model.stepbyte: what a byte of a long
 * message adds while `members` run, measured) that a byte pays while
 * `runnable` run on `cores` shared cores (<= 0: not known, taken as 1):
 * (runnable - cores) / (members - cores), 0 to 1 (select.c). */
double ecoi_step_share(double runnable, double members, double cores);
/* The seconds a lock-step step (every member sends one message and waits
 * for its own) costs beyond its message's quiet time: m's measured step,
 * else 0. */
double ecoi_model_step(const ecoi_model *m);

/* Predict every candidate of coll for n members on map (model NULL: the
 * defaults), root (ECO_ALL: 0's trees), bytes per member, segment >= 0 a
 * forced one.  ctx, when not NULL, lends its trees and pattern.  Returns
 * the number of predictions written (at most max), or an error. */
int ecoi_predict(const eco_map *map, const ecoi_model *model, int n, const int *member_host,
                 eco_ctx *ctx, int coll, int root, size_t bytes, long segment,
                 ecoi_prediction *out, int max);
/* Which of k predictions of one operation runs, unforced: the least
 * predicted time (the first on a tie), unless it is over and one less
 * over is predicted within select.c's QUEUE_SLACK of it; flags
 * (ECOI_CALL_*): ECOI_CALL_WHOLE passes over rsag.  -1: none. */
int ecoi_choose(const ecoi_prediction *pr, int k, unsigned flags);
/* The plan for a call: the least predicted time (or the forced one). */
int ecoi_select(eco_ctx *c, int coll, int root, size_t bytes, ecoi_plan *plan);
/* The same for a call with flags (ECOI_CALL_*, eco_compat_iface.h):
 * ECOI_CALL_WHOLE plans no segments and no rsag, and is not kept. */
int ecoi_select_flags(eco_ctx *c, int coll, int root, size_t bytes, unsigned flags,
                      ecoi_plan *plan);
/* The plan's segment in elements of `size` bytes: 1 to count. */
size_t ecoi_plan_elems(const ecoi_plan *plan, size_t count, size_t size);
/* The same with no count to cap it: 0 (whole) when the plan has none,
 * else at least 1 (the turns of hier-turns' longest message). */
size_t ecoi_plan_step(const ecoi_plan *plan, size_t size);

/* ------------------------------------------------------------------ */
/* The context                                                         */
/* ------------------------------------------------------------------ */
struct eco_ctx {
    int n;                 /* members */
    int rank;              /* this member */
    eco_map *map;          /* the member hosts only (identical in all members) */
    int *member_host;      /* [n] index into map */
    struct ecoi_shape_cache *shapes; /* trees per shape and root, built on
                            * first use, the last few kept (ecoi_ctx_shape) */
    ecoi_transport *tp;
    unsigned seq;          /* the next tag's number */
    unsigned calls;        /* collectives started: gives each its tags */
    int broken;            /* 0, or the error every later call returns */
    size_t segment;        /* a forced pipelining segment in bytes (0: none) */
    int segment_auto;      /* 1: the model picks the segment (select.c) */
    int forced[ECOI_NCOLL];/* an algorithm forced by name, or -1 */
    ecoi_plan *plans[ECOI_NCOLL]; /* choices made: ECOI_SIZE_CLASSES per
                            * collective, allocated on its first call (a
                            * shared context has none: it uses share's) */
    ecoi_plan *pattern_plans[ECOI_NCOLL]; /* the same under a pattern
                            * (pattern_k): apart, so that ECO's choices
                            * outlive a turn of another pattern */
    int pattern_k;         /* 0: ECO's trees; else a k-ary tree over ranks */
    int *groups[ECOI_LEVELS]; /* [n] ecoi_ctx_groups, made on first use */
    ecoi_model *dflt_model; /* the defaults when the map has no model,
                             * made when first needed */
    int *ring;             /* [n] eco_ring's order, made on first use */
    eco_request *queue, *queue_tail; /* requests not done, in call order */
    eco_ctx *busy_next;    /* in this thread's list of contexts with requests */
    eco_ctx *share;        /* NULL, or a context of the same members, map
                            * and settings whose trees, groups, ring and
                            * plans this one uses, and whose map and
                            * member_host it borrows (ecoi_ctx_create_shared:
                            * the simulation's members share one) */
};

/* Flow control (pvm_transport.c and local_transport.c count alike with
 * ecoi_flow_count; lib/select.c's lags plan with ecoi_flow_epoch_msgs):
 * a sender's messages to one member count in epochs of this many, or of
 * ECOI_FLOW_BYTES, whichever comes first, and it starts an epoch only
 * when its receiver has read all but the one before.  A schedule must
 * read in the order its peers send. */
#define ECOI_FLOW_MSGS 16
#define ECOI_FLOW_BYTES (512 * 1024)

/* One end's count of the messages from one member to another. */
typedef struct ecoi_flow {
    unsigned epoch;             /* epochs closed (sent, or read) */
    unsigned msgs;              /* messages in the open epoch */
    size_t bytes;               /* their payload bytes */
} ecoi_flow;

/* Count one message of `bytes` payload; 1 when it closes an epoch. */
static inline int ecoi_flow_count(ecoi_flow *f, size_t bytes)
{
    f->msgs++;
    f->bytes += bytes;
    if (f->msgs < ECOI_FLOW_MSGS && f->bytes < ECOI_FLOW_BYTES)
        return 0;
    f->epoch++;
    f->msgs = 0;
    f->bytes = 0;
    return 1;
}

/* The messages of `bytes` each that ecoi_flow_count closes an epoch with:
 * the schedule's view of the same rule (lib/select.c's lags). */
static inline size_t ecoi_flow_epoch_msgs(size_t bytes)
{
    size_t e = bytes ? (ECOI_FLOW_BYTES + bytes - 1) / bytes : ECOI_FLOW_MSGS;

    return e < ECOI_FLOW_MSGS ? e : ECOI_FLOW_MSGS;
}

/* Tags: every call gets a block of ECOI_CALL_TAGS tags from its call
 * number (ecoi_begin), whatever the operation, so that members stay in
 * step even when they disagree on the operation; ecoi_next_tag hands out
 * the block's tags in turn. */
#define ECOI_TAG_BASE 0x45000000
#define ECOI_TAG_MASK 0x00ffffff
#define ECOI_CALL_TAGS 4
static inline int ecoi_next_tag(eco_ctx *c)
{
    return ECOI_TAG_BASE | (int)(c->seq++ & ECOI_TAG_MASK);
}
/* A message still unread from one of the last ECOI_STALE_CALLS calls,
 * when the next call starts, was sent by a member that disagreed: in
 * agreement, a call ends only when it has read every message it is sent. */
#define ECOI_STALE_CALLS 2
/* a - b for two tags, modulo the tag space: < 0 when a comes before b. */
static inline int ecoi_tag_diff(int a, int b)
{
    return (int)(((unsigned)a - (unsigned)b) << 8) >> 8;
}

/* 1 when tag is of one of the ECOI_STALE_CALLS calls before the call
 * whose first tag is call_tag, or (this_too) of that call itself. */
static inline int ecoi_tag_stale(int tag, int call_tag, int this_too)
{
    int d = ecoi_tag_diff(tag, call_tag);

    return d >= -ECOI_STALE_CALLS * ECOI_CALL_TAGS && d < (this_too ? ECOI_CALL_TAGS : 0);
}

/* Keep in *last the latest tag sent to a member (0: none yet).  Sends to
 * one member need not come in tag order (hier sends its own run on a
 * later tag than the runs it passes on, interleaved), and a WAIT for a
 * tag at or before it must not be taken for one never sent. */
static inline void ecoi_note_sent(int *last, int tag)
{
    if (!*last || ecoi_tag_diff(tag, *last) > 0)
        *last = tag;
}

/* The pipelining segment in bytes from $ECO_SEGMENT_SIZE, or -1 (when
 * unset): chosen per call by the model (select.c). */
long ecoi_segment_from_env(void);
int ecoi_tree_build_shape(const eco_map *map, int n, const int *member_host,
                          int root, ecoi_shape shape, eco_tree **tree);
/* A tree of some shape for a root, built on first use and cached (the
 * comparison patterns' k-ary tree whatever the shape).  Valid until the
 * next collective begins: the cache keeps the last few trees (ctx.c). */
int ecoi_ctx_shape(eco_ctx *c, int root, ecoi_shape shape, const eco_tree **tree);
/* The plan kept for coll's calls of size class z (select.c), the class's
 * table allocated on first use; NULL when out of memory or for a shared
 * context (whose choices are its share's). */
ecoi_plan *ecoi_ctx_plan_slot(eco_ctx *c, int coll, int z);
/* The number of trees the context holds (the unit tests bound it). */
int ecoi_ctx_trees(const eco_ctx *c);
/* The tree made of t's edges inside subnets only (subnet[member]): one
 * tree per subnet, rooted at the member t enters the subnet by; with site
 * not NULL, one tree per site (its subnets' trees hang from its first). */
int ecoi_tree_cut(const eco_tree *t, const int *subnet, const int *site, eco_tree **forest);
/* Sites: the 20% rule one level up.  Subnets s and t share a site when
 * cost[s*S+t] is within threshold of the cheapest cost either has to any
 * other subnet (and transitively), unless the routers between them
 * (hops[s*S+t], NULL or -1: not known) are as many as between either and
 * the farthest other subnet in routers: a site's subnets are nearer each
 * other than the rest, in routers too (uneven.topo's subnets, one router
 * apart, behind links of 10, 20 and 5 Mbit/s, are no sites though the
 * slow one costs twice the others).  site[s] = its site, numbered in
 * order of first subnet; returns the number of sites or ECO_ERR_NOMEM. */
int ecoi_sites(int S, const double *cost, double threshold, const int *hops, int *site);
/* The routers between map's subnets rep[s] and rep[t] (hosts, -1: none)
 * as hops[s*S+t] for ecoi_sites: -1 where not known.  NULL without
 * memory; the caller frees it. */
int *ecoi_sites_hops(const eco_map *map, int S, const int *rep);
/* The members' groups at a level (ECOI_LEVEL_SUBNETS: their subnets;
 * ECOI_LEVEL_SITES: sites, subnets grouped by the 20% rule on the
 * model's costs between them): group[m] for every member.  Returns the
 * number of groups, or an error. */
int ecoi_groups(const eco_map *map, const ecoi_model *model, int n, const int *member_host,
                int level, int *group);
/* The same for a context, computed once. */
int ecoi_ctx_groups(eco_ctx *c, int level, const int **group);
/* The roots of a forest (ecoi_tree_cut) in its preorder: lead[0..S-1],
 * returns S. */
int ecoi_forest_roots(const eco_tree *forest, int *lead);
/* rsag's and hier's forest for a plan: rank 0's tree of the plan's shape
 * cut into subnet (or site) trees; *lead[0..*nlead-1] their roots, *me
 * this member's index among them or -1.  Free *forest and *lead. */
int ecoi_ctx_forest(eco_ctx *c, const ecoi_plan *plan, eco_tree **forest, int **lead,
                    int *nlead, int *me);
/* eco_ring's order for n members on map. */
int ecoi_ring_order(const eco_map *map, int n, const int *member_host, int *order);

/* Recursive doubling (rdouble.c) among n positions: p, the largest power
 * of two <= n, exchange at distance 1, 2, 4, ...; the first 2 (n - p)
 * positions pair up (2i, 2i + 1) and 2i folds into 2i + 1.  A position's
 * number among the p that exchange, -1 for a folding one; and back. */
static inline int ecoi_rd_pow2(int n)
{
    int p = 1;

    while (p <= n / 2)
        p *= 2;
    return p;
}
static inline int ecoi_rd_number(int n, int pos)
{
    int e = n - ecoi_rd_pow2(n);

    return pos >= 2 * e ? pos - e : pos % 2 ? pos / 2 : -1;
}
static inline int ecoi_rd_position(int n, int num)
{
    int e = n - ecoi_rd_pow2(n);

    return num < e ? 2 * num + 1 : num + e;
}
/* The inclusive (or exclusive) scan in rank order (the operands doubled,
 * combined left to right), by recursive doubling, as a schedule. */
void ecoi_sched_rdouble_scan(ecoi_sched *s, const void *mine, void *result, size_t count,
                             int exclusive);

/* Make a context over an agreed map; takes ownership of map and tp. */
int ecoi_ctx_create(int n, int rank, eco_map *map, const int *member_host,
                    ecoi_transport *tp, eco_ctx **out);
/* A context for member rank that borrows share's map and member list
 * and uses its trees, groups, ring and plans (share must outlive it and
 * be used by one thread at a time); takes ownership of tp. */
int ecoi_ctx_create_shared(eco_ctx *share, int rank, ecoi_transport *tp, eco_ctx **out);
void ecoi_ctx_destroy(eco_ctx *c);

/* Entry and exit of every collective: checks the context, switches the
 * transport in and out; ecoi_begin also sets the call's signature.  ecoi_end returns status; on an error (which,
 * past the argument checks, happened mid-collective) it marks the context
 * broken and tells every other member, so nobody waits on this one. */
int ecoi_begin(eco_ctx *c, int kind, int count, int datatype, eco_op op, int root);
int ecoi_end(eco_ctx *c, int status);
/* ecoi_end's failure: mark c broken with status (not ECO_OK) and tell
 * every other member, once. */
void ecoi_ctx_fail(eco_ctx *c, int status);
/* A failure of this member's own (no memory) before ecoi_begin, where the
 * others may have begun the call and wait on this member: enters the
 * call and ends it with status, so that ecoi_end tells them (the context
 * is broken, as after any failure mid-collective).  The call's signature
 * (kind, count, datatype, op, root) must be the one ecoi_begin would
 * have had: a member that waits on this one while it is in the call
 * would take another for a disagreement (ECO_ERR_MISMATCH) before the
 * status reaches it.  Returns status, or the error the context already
 * had.  An argument error is not one of these: it is the caller's, and
 * sends nothing. */
int ecoi_fail_call(eco_ctx *c, int kind, int count, int datatype, eco_op op, int root,
                   int status);

/* The barrier's exchange of empty messages: a barrier, and what every
 * collective does with count 0 (so that members that disagree about the
 * count still meet, and the signatures tell). */
int ecoi_empty(eco_ctx *c);
/* The same as a schedule (the nonblocking calls). */
void ecoi_sched_empty(ecoi_sched *s);
/* Reduce-to-all by recursive doubling (rdouble.c), as a schedule. */
void ecoi_sched_rdouble(ecoi_sched *s, const void *mine, void *result, size_t count);
/* Reduce-to-all around eco_ring's ring (ring_reduce.c), as a schedule. */
void ecoi_sched_ring_allreduce(ecoi_sched *s, const void *mine, void *result, size_t count);

/* eco_ring's order of the members, made on first use and kept. */
int ecoi_ctx_ring(eco_ctx *c, const int **ring);

/* A k-ary heap over the ranks from root on (topology-unaware). */
int ecoi_tree_kary(int n, int root, int k, eco_tree **tree);

/* Argument checks of the rooted collectives: buf must be non-NULL when
 * count > 0; root in range, or ECO_ALL when allow_all. */
int ecoi_check_rooted(const eco_ctx *ctx, const void *buf, int count,
                      int datatype, int root, int allow_all);
/* 1 when the byte ranges [a, a + alen) and [b, b + blen) meet. */
static inline int ecoi_overlap(const void *a, size_t alen, const void *b, size_t blen)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return alen && blen && x < y + blen && y < x + alen;
}

/* Tree-walking building blocks, shared by several collectives.  bcast
 * and reduce pipeline segments of `step` elements (ecoi_plan_elems). */
int ecoi_tree_bcast(eco_ctx *c, const eco_tree *t, int tag, void *buf,
                    size_t count, int datatype, size_t step);
int ecoi_tree_gather(eco_ctx *c, const eco_tree *t, int tag, const void *mine,
                     void *block, size_t count, int datatype);
int ecoi_tree_reduce(eco_ctx *c, const eco_tree *t, int tag, const void *mine,
                     void *result, size_t count, int datatype, eco_op op, size_t step);

/* Gather-to-all around eco_ring's ring: block q of recvbuf holds counts[q]
 * elements at displs[q] (counts NULL: count elements at q * count). */
int ecoi_ring_allgather(eco_ctx *c, const void *sendbuf, void *recvbuf, const int *counts,
                        const int *displs, size_t count, int datatype);
/* Broadcast count elements from rank 0 down the tree select.c picks. */
int ecoi_bcast_from0(eco_ctx *c, void *buf, size_t count, int datatype);

/*
 * The vector forms (vector.c).  A run is the blocks of a run of members
 * in a tree's preorder, packed: the block of member t->order[i] is
 * elements off[i] to off[i + 1] (off: n + 1 entries, significant over
 * the member's subtree, pos to pos + subtree).  run holds this member's
 * subtree: element 0 is off[t->pos[me]].  Empty messages are not sent.
 */
int ecoi_tree_gatherv(eco_ctx *c, const eco_tree *t, int tag, const void *mine,
                      void *run, const size_t *off, int datatype);
int ecoi_tree_scatterv(eco_ctx *c, const eco_tree *t, int tag, void *run,
                       const size_t *off, int datatype);
/* off[0..n] from counts per rank (NULL: n ints each; then off[i] = i),
 * in t's preorder. */
void ecoi_preorder_offsets(const eco_tree *t, const int *counts, size_t *off);
/* The blocks of counts[q] elements at element displs[q] of buf:
 * ECO_ERR_ARG for NULL arrays, a negative count or displacement, buf NULL
 * when some count > 0, or two blocks that share an element; *total the
 * sum of the counts. */
int ecoi_check_blocks(int n, const int *counts, const int *displs, const void *buf,
                      size_t *total);
/* The same for a send and a receive layout (alltoallv), and no send
 * block shares a byte with a receive block; size bytes per element.
 * O(n log n).  ECO_ERR_NOMEM when the room to sort them is not there:
 * the caller fails the call with ecoi_fail_call. */
int ecoi_check_two_layouts(int n, const int *scounts, const int *sdispls, const void *sbuf,
                           size_t *stotal, const int *rcounts, const int *rdispls,
                           const void *rbuf, size_t *rtotal, size_t size);
/* Tests: the next allocation of those checks in this thread fails; and
 * ecoi_fail_call stays that many microseconds inside the call it fails
 * (the window in which a peer sees this member in it). */
extern __thread int ecoi_fail_block_alloc;
extern __thread unsigned ecoi_fail_call_pause;
/* 1 when [p, p + len) meets one of the blocks. */
int ecoi_overlap_blocks(int n, const int *counts, const int *displs, size_t size,
                        const void *buf, const void *p, size_t len);
/* What the signature carries for counts every member passes: a hash. */
int ecoi_counts_sig(int n, const int *counts);

/* Rank order <-> the preorder of a tree, unit bytes per member. */
void ecoi_preorder_to_ranks(const eco_tree *t, const void *pre, void *ranks, size_t unit);
void ecoi_ranks_to_preorder(const eco_tree *t, const void *ranks, void *pre, size_t unit);

/* In-process transport (threads), for unit tests and simulation. */
typedef struct ecoi_local_world ecoi_local_world;
ecoi_local_world *ecoi_local_world_new(int n, double timeout_seconds);
void ecoi_local_world_free(ecoi_local_world *w);
/* The transport of member rank; the world must outlive it. */
ecoi_transport *ecoi_local_transport(ecoi_local_world *w, int rank);
/* Make member rank exit: its peers see ECO_ERR_PEER when waiting on it. */
void ecoi_local_kill(ecoi_local_world *w, int rank);
/* Messages posted in the world so far (abort notices excluded). */
long ecoi_local_world_posted(ecoi_local_world *w);

#endif /* ECO_COLL_H */
