/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * init.c -- eco_init over PVM: agree on the members' map and context.
 *
 * Rank 0 alone reads the subnet file, finds every member's host
 * (pvm_tidtohost, pvm_config), makes a new PVM message context and sends
 * every other member, in one boot message, the map restricted to the
 * members' hosts.  All members then build the same map, so they build the
 * same trees, even when their hosts hold different files or none.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pvm3.h>
#include "eco_coll.h"
#include "eco_pvm.h"
#include "eco_log.h"

/* What rank 0 sends and every member builds its context from. */
typedef struct boot {
    int status;
    int n;
    int hash;
    int pvmctx, encoding, segment;
    int forced[ECOI_NCOLL];  /* $ECO_ALGORITHM at rank 0 (select.c) */
    unsigned instance;  /* names the context in control messages */
    int nh, nsub;
    char **names;       /* [nh] sorted */
    int *member_host;   /* [n] */
    int *host_subnet;   /* [nh] */
    int *degree;        /* [nsub] */
    int npairs;         /* the measured pairs among the members' hosts: */
    int *pair;          /* [2 * npairs] hosts a < b, ascending by (a, b) */
    double *pcost;      /* [npairs] their costs, > 0 */
    double threshold;   /* the file's, for fastest-node-first (tree.c) */
    ecoi_model *model;  /* the file's cost model over the nsub subnets,
                         * NULL: none (lib/select.c's defaults) */
    ecoi_hops_part hops;  /* the file's hops among the nh hosts */
} boot;

static void boot_free(boot *b)
{
    for (int i = 0; b->names && i < b->nh; i++)
        free(b->names[i]);
    free(b->names);
    free(b->member_host);
    free(b->host_subnet);
    free(b->degree);
    free(b->pair);
    free(b->pcost);
    ecoi_model_free(b->model);
    ecoi_hops_part_free(&b->hops);
    memset(b, 0, sizeof *b);
}

/* A 24-bit hash of the task list: tags the boot message, checks agreement. */
static int list_hash(int n, const int *tids)
{
    uint32_t h = 2166136261u;

    for (int i = 0; i < n; i++) {
        h ^= (uint32_t)tids[i];
        h *= 16777619u;
    }
    return (int)(h & 0xffffff);
}

/* ------------------------------------------------------------------ */
/* Rank 0: the subnet file and the members' hosts                      */
/* ------------------------------------------------------------------ */

static void warn_once(const char *msg)
{
    static int said;
    if (!said)
        ecoi_log(ECO_LOG_WARN, "%s", msg);
    said = 1;
}

/* Find and read the subnet file; *map stays NULL when there is none. */
int ecoi_load_subnet_file(const char *file, eco_map **map)
{
    char err[512], path[4096], msg[4600];
    const char *env = getenv("ECO_SUBNET_FILE"), *home = getenv("HOME");
    int rc;

    *map = NULL;
    if (!file && env && *env)
        file = env;
    if (!file && home && *home) {
        snprintf(path, sizeof path, "%s/.eco/subnets", home);
        if (access(path, F_OK) == 0)
            file = path;
    }
    if (!file && access(ECO_SYSTEM_SUBNET_FILE, F_OK) == 0)
        file = ECO_SYSTEM_SUBNET_FILE;
    if (!file) {
        warn_once("no subnet file (ECO_SUBNET_FILE, ~/.eco/subnets, "
                  ECO_SYSTEM_SUBNET_FILE "); every host is its own subnet");
        return ECO_OK;
    }
    rc = eco_map_read(file, map, err, sizeof err);
    if (rc != ECO_OK) {
        snprintf(msg, sizeof msg, "%s", err);
        ecoi_log(ECO_LOG_ERROR, "%s", msg);
    }
    return rc;
}

/* The name of the host a task runs on, from the virtual machine's config. */
static const char *host_of(int tid, int nhost, const struct pvmhostinfo *hi, int *dsig)
{
    int dtid = pvm_tidtohost(tid);

    for (int h = 0; h < nhost; h++)
        if (hi[h].hi_tid == dtid) {
            *dsig = hi[h].hi_dsig;
            return hi[h].hi_name;
        }
    return NULL;
}

/* The file's index of a host (eco_pvm.h). */
int ecoi_file_host(const eco_map *map, const char *name)
{
    size_t ln = strcspn(name, ".");
    int h;

    if (!map)
        return -1;
    if ((h = eco_map_find_host(map, name)) >= 0)
        return h;
    for (h = 0; h < eco_map_nhosts(map); h++) {
        const char *f = eco_map_host(map, h);
        if (strcspn(f, ".") == ln && strncmp(f, name, ln) == 0)
            return h;
    }
    return -1;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The members' distinct host names, sorted; member_host[] indexes them. */
static int collect_hosts(boot *b, const int *tids, int *uniform)
{
    struct pvmhostinfo *hi;
    int nhost, narch, dsig0 = 0, dsig, rc;
    char **all = NULL;

    if ((rc = pvm_config(&nhost, &narch, &hi)) < 0) {
        ecoi_pvm_error(rc);     /* (ECO_ERR_PVM, said plainly for the compiler) */
        return ECO_ERR_PVM;
    }
    all = calloc((size_t)b->n, sizeof *all);
    b->names = calloc((size_t)b->n, sizeof *b->names);
    b->member_host = malloc((size_t)b->n * sizeof *b->member_host);
    if (!all || !b->names || !b->member_host) {
        free(all);
        return ECO_ERR_NOMEM;
    }
    *uniform = 1;
    for (int m = 0; m < b->n; m++) {
        const char *name = host_of(tids[m], nhost, hi, &dsig);
        if (!name) {
            free(all);
            return ECO_ERR_PVM;
        }
        if (m == 0)
            dsig0 = dsig;
        *uniform &= dsig == dsig0;
        all[m] = (char *)name;
    }
    memcpy(b->names, all, (size_t)b->n * sizeof *all);
    qsort(b->names, (size_t)b->n, sizeof *b->names, cmp_str);
    b->nh = 0;
    for (int m = 0; m < b->n; m++)
        if (b->nh == 0 || strcmp(b->names[b->nh - 1], b->names[m]) != 0)
            b->names[b->nh++] = b->names[m];
    for (int m = 0; m < b->n; m++) {
        char **at = bsearch(&all[m], b->names, (size_t)b->nh, sizeof *b->names, cmp_str);
        b->member_host[m] = (int)(at - b->names); /* found: all[m] is one of them */
    }
    for (int h = 0; h < b->nh; h++)
        b->names[h] = strdup(b->names[h]);
    for (int h = b->nh; h < b->n; h++)
        b->names[h] = NULL;
    free(all);
    for (int h = 0; h < b->nh; h++)
        if (!b->names[h])
            return ECO_ERR_NOMEM;
    return ECO_OK;
}

/* The file's cost model over the members' subnets (fh[h]: host h's
 * index in the file, -1 when not there).  A member's host missing from
 * the file makes a subnet the model does not know: then no model, and
 * select.c's defaults for every subnet (a stale file: measure again). */
static void restrict_model(boot *b, const eco_map *file, const int *fh, const char *fname)
{
    int *old_of;

    if (!file || !file->model)
        return;
    if (!(old_of = malloc(((size_t)b->nsub + 1) * sizeof *old_of)))
        return; /* no model: the defaults */
    for (int h = 0; h < b->nh; h++)
        old_of[b->host_subnet[h]] = fh[h] >= 0 ? eco_map_subnet_of(file, fh[h]) : -1;
    b->model = ecoi_model_restrict(file->model, old_of, b->nsub);
    free(old_of);
    if (!b->model)
        ecoi_log(ECO_LOG_WARN, "the cost model of %s is not used: a member's host is not "
                 "in it (the defaults of the library apply)", fname);
}

/*
 * The measured pairs among the members' hosts (fh[h]: host h's index in
 * the file, -1 when not there; mine: its inverse): a list, not a matrix, so that the boot
 * message is as long as what was measured.  Walked from the file's lists
 * of the members' hosts, ascending, so the list is in (a, b) order.
 */
static int restrict_pairs(boot *b, const eco_map *file, const int *fh, const int *mine)
{
    int np = 0;
    size_t cap = 0;

    for (int a = 0; a < b->nh; a++)
        for (int i = 0; fh[a] >= 0 && i < file->adj[fh[a]].n; i++) {
            const ecoi_link *l = &file->adj[fh[a]].link[i];
            int c = mine[l->to];
            if (c <= a || l->cost <= 0.0)
                continue;
            if ((size_t)np == cap) {
                size_t ncap = cap ? 2 * cap : 64;
                int *p = realloc(b->pair, 2 * ncap * sizeof *p);
                double *pc = p ? realloc(b->pcost, ncap * sizeof *pc) : NULL;
                if (p)
                    b->pair = p;
                if (pc)
                    b->pcost = pc;
                if (!p || !pc)
                    return ECO_ERR_NOMEM;
                cap = ncap;
            }
            b->pair[2 * np] = a;
            b->pair[2 * np + 1] = c;
            b->pcost[np++] = l->cost;
        }
    b->npairs = np;
    return ECO_OK;
}

/* Subnets, degrees and costs of the members' hosts, from the file. */
static int restrict_map(boot *b, const eco_map *file, const char *fname)
{
    int *fh = malloc((size_t)b->nh * sizeof *fh);
    int *seen = NULL, *mine, nfs = file ? eco_map_nsubnets(file) : 0, rc;

    b->host_subnet = malloc((size_t)b->nh * sizeof *b->host_subnet);
    b->degree = malloc((size_t)b->nh * sizeof *b->degree);
    seen = malloc(((size_t)nfs + 1) * sizeof *seen);
    if (!fh || !b->host_subnet || !b->degree || !seen) {
        free(fh);
        free(seen);
        return ECO_ERR_NOMEM;
    }
    for (int s = 0; s < nfs; s++)
        seen[s] = -1;
    b->threshold = file ? eco_map_threshold(file) : ECO_DEFAULT_THRESHOLD;
    b->nsub = 0;
    for (int h = 0; h < b->nh; h++) {
        int fs;
        fh[h] = ecoi_file_host(file, b->names[h]);
        fs = fh[h] >= 0 ? eco_map_subnet_of(file, fh[h]) : -1;
        if (file && fh[h] < 0) {
            char msg[600];
            snprintf(msg, sizeof msg, "host %s is not in %s: it forms a subnet of its own",
                     b->names[h], fname);
            ecoi_log(ECO_LOG_WARN, "%s", msg);
        }
        if (fs >= 0 && seen[fs] >= 0) {
            b->host_subnet[h] = seen[fs];
            continue;
        }
        b->degree[b->nsub] = fs >= 0 ? eco_map_degree(file, fs) : ECO_DEFAULT_DEGREE;
        if (fs >= 0)
            seen[fs] = b->nsub;
        b->host_subnet[h] = b->nsub++;
    }
    /* hosts have distinct file indexes: names are */
    mine = file ? ecoi_file_members(file, fh, b->nh) : NULL;
    rc = file && !mine ? ECO_ERR_NOMEM : ECO_OK;
    if (rc == ECO_OK && file)
        rc = restrict_pairs(b, file, fh, mine);
    b->hops.nh = b->nh;
    if (rc == ECO_OK && file)
        rc = ecoi_hops_part_of(file, fh, mine, b->nh, &b->hops);
    if (rc == ECO_OK)
        restrict_model(b, file, fh, fname);
    free(mine);
    free(fh);
    free(seen);
    return rc;
}

static int env_encoding(int uniform)
{
    const char *e = getenv("ECO_ENCODING");

    /* In place: PVM reads the caller's memory at pvm_send, no copy
     * (but short messages are copied: pvm_transport.c, one_fragment). */
    if (e && strcmp(e, "xdr") == 0)
        return PvmDataDefault;
    if (e && strcmp(e, "raw") == 0)
        return uniform ? PvmDataRaw : PvmDataDefault;
    if (e && strcmp(e, "inplace") == 0)
        return uniform ? ECOI_ENC_INPLACE : PvmDataDefault;
    return uniform ? PvmDataInPlace : PvmDataDefault;
}

static int make_boot(boot *b, const char *file, const int *tids)
{
    eco_map *fmap = NULL;
    const char *fname = file;
    int uniform, rc = ecoi_load_subnet_file(file, &fmap);

    if (rc == ECO_OK)
        rc = collect_hosts(b, tids, &uniform);
    if (rc == ECO_OK) {
        if (!fname)
            fname = getenv("ECO_SUBNET_FILE") && *getenv("ECO_SUBNET_FILE")
                ? getenv("ECO_SUBNET_FILE") : "the subnet file";
        rc = restrict_map(b, fmap, fname);
    }
    if (rc == ECO_OK) {
        b->encoding = env_encoding(uniform);
        b->pvmctx = pvm_newcontext();
        b->instance = ecoi_random32();
        if (b->pvmctx < 0)
            rc = ecoi_pvm_error(b->pvmctx);
    }
    b->segment = (int)ecoi_segment_from_env();
    if (rc == ECO_OK) {
        char why[300];
        if (ecoi_parse_forced(getenv("ECO_ALGORITHM"), b->forced, why, sizeof why) != ECO_OK) {
            ecoi_log(ECO_LOG_ERROR, "ECO_ALGORITHM: %s", why);
            rc = ECO_ERR_ARG;
        }
    }
    eco_map_free(fmap);
    return rc;
}

/* ------------------------------------------------------------------ */
/* The boot message                                                    */
/* ------------------------------------------------------------------ */

/* The cost model: 0 (none) or 1, then the task's alpha and beta, alpha
 * and beta of every link (row-major), every uplink, busy, step, forward,
 * stepbyte and cores (boot format 2), and every link's burst (row-major) (0: not measured;
 * always packed, so that every member unpacks what rank 0 packed and all
 * choose alike).  An
 * ecoi_cost is two doubles, packed as such. */
_Static_assert(sizeof(ecoi_cost) == 2 * sizeof(double), "ecoi_cost: alpha, beta");
static int pack_model(const ecoi_model *mo, int nsub)
{
    int has = mo != NULL, rc;
    size_t nl = (size_t)nsub * (size_t)nsub;

    if ((rc = pvm_pkint(&has, 1, 1)) < 0 || !has)
        return rc;
    rc |= pvm_pkdouble((double *)&mo->task.alpha, 2, 1);
    rc |= pvm_pkdouble(&mo->link[0].alpha, (int)(2 * nl), 1);
    rc |= pvm_pkdouble(mo->uplink, nsub, 1);
    rc |= pvm_pkdouble((double *)&mo->busy, 1, 1);
    rc |= pvm_pkdouble((double *)&mo->step, 1, 1);
    rc |= pvm_pkdouble((double *)&mo->forward, 1, 1);
    rc |= pvm_pkdouble((double *)&mo->stepbyte, 1, 1);
    rc |= pvm_pkdouble((double *)&mo->cores, 1, 1);
    rc |= pvm_pkdouble(mo->burst, (int)nl, 1);
    return rc;
}

/* Checked like the rest: every number finite, >= 0, links and bursts
 * symmetric. */
static int unpack_model(ecoi_model **out, int nsub)
{
    int has = -1, rc = 0;
    size_t nl = (size_t)nsub * (size_t)nsub;
    ecoi_model *mo;

    if (pvm_upkint(&has, 1, 1) < 0 || (has != 0 && has != 1))
        return ECO_ERR_MISMATCH;
    if (!has)
        return ECO_OK;
    if (!(mo = ecoi_model_new(nsub)))
        return ECO_ERR_NOMEM;
    rc |= pvm_upkdouble(&mo->task.alpha, 2, 1);
    rc |= pvm_upkdouble(&mo->link[0].alpha, (int)(2 * nl), 1);
    rc |= pvm_upkdouble(mo->uplink, nsub, 1);
    rc |= pvm_upkdouble(&mo->busy, 1, 1);
    rc |= pvm_upkdouble(&mo->step, 1, 1);
    rc |= pvm_upkdouble(&mo->forward, 1, 1);
    rc |= pvm_upkdouble(&mo->stepbyte, 1, 1);
    rc |= pvm_upkdouble(&mo->cores, 1, 1);
    rc |= pvm_upkdouble(mo->burst, (int)nl, 1);
    if (rc < 0 || !ecoi_model_valid(mo)) {
        ecoi_model_free(mo);
        return ECO_ERR_MISMATCH;
    }
    *out = mo;
    return ECO_OK;
}

/* The hops (ecoi_hops_part, boot format 3): the count of classes, each
 * host's class and the table when there are classes, the count of
 * exceptions and their triples. */
static int pack_hops(const ecoi_hops_part *h)
{
    int rc = pvm_pkint((int *)&h->ncls, 1, 1);

    if (h->ncls > 0) {
        rc |= pvm_pkint(h->cls, h->nh, 1);
        rc |= pvm_pkint(h->table, h->ncls * (h->ncls + 1) / 2, 1);
    }
    rc |= pvm_pkint((int *)&h->nexc, 1, 1);
    if (h->nexc > 0)
        rc |= pvm_pkint(h->exc, 3 * h->nexc, 1);
    return rc;
}

/* Checked before anything is allocated: no more classes than hosts,
 * no more exceptions than pairs or than the message holds (12 bytes
 * each); then every index and hops in range. */
static int unpack_hops(ecoi_hops_part *h, int nh)
{
    int bytes = 0, cells;

    memset(h, 0, sizeof *h);
    h->nh = nh;
    if (pvm_upkint(&h->ncls, 1, 1) < 0 || h->ncls < 0 || h->ncls > nh ||
        h->ncls > ECOI_HOPS_MAX_CLASSES ||
        pvm_bufinfo(pvm_getrbuf(), &bytes, NULL, NULL) < 0)
        return -1;
    cells = h->ncls * (h->ncls + 1) / 2;
    if (h->ncls > 0 && (long long)nh + cells > (long long)bytes / 4)
        return -1;
    if (h->ncls > 0) {
        h->cls = malloc((size_t)nh * sizeof *h->cls);
        h->table = malloc((size_t)cells * sizeof *h->table);
        if (!h->cls || !h->table || pvm_upkint(h->cls, nh, 1) < 0 ||
            pvm_upkint(h->table, cells, 1) < 0)
            return -1;
    }
    if (pvm_upkint(&h->nexc, 1, 1) < 0 || h->nexc < 0 ||
        (long long)h->nexc > (long long)nh * (nh - 1) / 2 || (long long)h->nexc * 12 > bytes)
        return -1;
    if (h->nexc > 0 && (!(h->exc = malloc(3 * (size_t)h->nexc * sizeof *h->exc)) ||
                        pvm_upkint(h->exc, 3 * h->nexc, 1) < 0))
        return -1;
    return ecoi_hops_part_valid(h) ? 0 : -1;
}

/* ECOI_BOOT_WORD first (eco_pvm.h: a change to what follows is a new
 * ECOI_BOOT_FORMAT), then rank 0's status, the count and the list's
 * hash; the rest only when the status is ECO_OK. */
static int pack_boot(boot *b)
{
    int rc = 0, word = ECOI_BOOT_WORD;

    rc |= pvm_pkint(&word, 1, 1);
    rc |= pvm_pkint(&b->status, 1, 1);
    rc |= pvm_pkint(&b->n, 1, 1);
    rc |= pvm_pkint(&b->hash, 1, 1);
    if (b->status != ECO_OK)
        return rc < 0 ? ECO_ERR_PVM : ECO_OK;
    rc |= pvm_pkint(&b->pvmctx, 1, 1);
    rc |= pvm_pkuint(&b->instance, 1, 1);
    rc |= pvm_pkint(&b->encoding, 1, 1);
    rc |= pvm_pkint(&b->segment, 1, 1);
    rc |= pvm_pkint(b->forced, ECOI_NCOLL, 1);
    rc |= pvm_pkint(&b->nh, 1, 1);
    rc |= pvm_pkint(&b->nsub, 1, 1);
    for (int h = 0; h < b->nh; h++) {
        int len = (int)strlen(b->names[h]);
        rc |= pvm_pkint(&len, 1, 1);
        rc |= pvm_pkbyte(b->names[h], len, 1);
    }
    rc |= pvm_pkint(b->member_host, b->n, 1);
    rc |= pvm_pkint(b->host_subnet, b->nh, 1);
    rc |= pvm_pkint(b->degree, b->nsub, 1);
    rc |= pvm_pkint(&b->npairs, 1, 1);
    if (b->npairs > 0) {
        rc |= pvm_pkint(b->pair, 2 * b->npairs, 1);
        rc |= pvm_pkdouble(b->pcost, b->npairs, 1);
    }
    rc |= pvm_pkdouble(&b->threshold, 1, 1);
    rc |= pack_model(b->model, b->nsub);
    rc |= pack_hops(&b->hops);
    return rc < 0 ? ECO_ERR_PVM : ECO_OK;
}

/* The measured pairs: a count, then the pairs (a < b, both below nh)
 * and their costs; < 0 on any doubt.  The count is checked before the
 * allocation: at most every pair of the nh hosts. */
static int unpack_pairs(boot *b)
{
    int bytes = 0;

    /* no more pairs than the hosts make, nor than the message can hold
     * (12 bytes each at least: no allocation for a forged count) */
    if (pvm_upkint(&b->npairs, 1, 1) < 0 || b->npairs < 0 || b->npairs > INT_MAX / 2 ||
        (long long)b->npairs > (long long)b->nh * (b->nh - 1) / 2 ||
        pvm_bufinfo(pvm_getrbuf(), &bytes, NULL, NULL) < 0 ||
        (long long)b->npairs * 12 > (long long)bytes)
        return -1;
    if (b->npairs == 0)
        return 0;
    b->pair = malloc(2 * (size_t)b->npairs * sizeof *b->pair);
    b->pcost = malloc((size_t)b->npairs * sizeof *b->pcost);
    if (!b->pair || !b->pcost || pvm_upkint(b->pair, 2 * b->npairs, 1) < 0 ||
        pvm_upkdouble(b->pcost, b->npairs, 1) < 0)
        return -1;
    for (int i = 0; i < b->npairs; i++)
        if (b->pair[2 * i] < 0 || b->pair[2 * i] >= b->pair[2 * i + 1] ||
            b->pair[2 * i + 1] >= b->nh || !isfinite(b->pcost[i]) || b->pcost[i] <= 0.0)
            return -1;
    return 0;
}

/* Rank 0's boot message; n is this member's count (checked before any
 * allocation), every length is checked before anything is unpacked. */
static int unpack_boot(boot *b, int n)
{
    char name[ECO_MAX_HOSTNAME + 1];
    int rc = 0;

    if (pvm_upkint(&b->status, 1, 1) < 0 || pvm_upkint(&b->n, 1, 1) < 0 ||
        pvm_upkint(&b->hash, 1, 1) < 0)
        return ECO_ERR_MISMATCH;
    if (b->status != ECO_OK)
        return b->status > 0 ? ECO_ERR_MISMATCH : b->status;
    if (b->n != n)
        return ECO_ERR_MISMATCH;
    rc |= pvm_upkint(&b->pvmctx, 1, 1);
    rc |= pvm_upkuint(&b->instance, 1, 1);
    rc |= pvm_upkint(&b->encoding, 1, 1);
    rc |= pvm_upkint(&b->segment, 1, 1);
    rc |= pvm_upkint(b->forced, ECOI_NCOLL, 1);
    rc |= pvm_upkint(&b->nh, 1, 1);
    rc |= pvm_upkint(&b->nsub, 1, 1);
    if (rc < 0 || b->nh < 1 || b->nh > b->n || b->nsub < 1 || b->nsub > b->nh)
        return ECO_ERR_MISMATCH;
    for (int k = 0; k < ECOI_NCOLL; k++) {
        const ecoi_algorithm *a = ecoi_algorithm_at(b->forced[k]);
        if (b->forced[k] != -1 && (!a || a->coll != k))
            return ECO_ERR_MISMATCH;
    }
    b->names = calloc((size_t)b->nh, sizeof *b->names);
    b->member_host = malloc((size_t)b->n * sizeof *b->member_host);
    b->host_subnet = malloc((size_t)b->nh * sizeof *b->host_subnet);
    b->degree = malloc((size_t)b->nsub * sizeof *b->degree);
    if (!b->names || !b->member_host || !b->host_subnet || !b->degree)
        return ECO_ERR_NOMEM;
    for (int h = 0; h < b->nh; h++) {
        int len = -1;
        if (pvm_upkint(&len, 1, 1) < 0 || len < 1 || len > ECO_MAX_HOSTNAME ||
            pvm_upkbyte(name, len, 1) < 0)
            return ECO_ERR_MISMATCH;
        name[len] = '\0';
        if (strlen(name) != (size_t)len)
            return ECO_ERR_MISMATCH;
        if (!(b->names[h] = strdup(name)))
            return ECO_ERR_NOMEM;
        if (h > 0 && strcmp(b->names[h - 1], b->names[h]) >= 0)
            return ECO_ERR_MISMATCH; /* sorted and distinct, or not ours */
    }
    rc |= pvm_upkint(b->member_host, b->n, 1);
    rc |= pvm_upkint(b->host_subnet, b->nh, 1);
    rc |= pvm_upkint(b->degree, b->nsub, 1);
    rc |= unpack_pairs(b);
    rc |= pvm_upkdouble(&b->threshold, 1, 1);
    if (rc < 0)
        return ECO_ERR_MISMATCH;
    /* every index in range, or not ours (the ring and the trees index
     * arrays with them) */
    for (int m = 0; m < b->n; m++)
        if (b->member_host[m] < 0 || b->member_host[m] >= b->nh)
            return ECO_ERR_MISMATCH;
    for (int h = 0; h < b->nh; h++)
        if (b->host_subnet[h] < 0 || b->host_subnet[h] >= b->nsub)
            return ECO_ERR_MISMATCH;
    for (int s = 0; s < b->nsub; s++)
        if (b->degree[s] < 1 || b->degree[s] > ECO_MAX_DEGREE)
            return ECO_ERR_MISMATCH;
    if ((rc = unpack_model(&b->model, b->nsub)) != ECO_OK)
        return rc;
    return unpack_hops(&b->hops, b->nh) < 0 ? ECO_ERR_MISMATCH : ECO_OK;
}

/* The same map, built the same way in every member. */
static int build_map(const boot *b, eco_map **out)
{
    eco_map *m = ecoi_map_new_hosts((const char *const *)b->names, b->nh);
    ecoi_pair *p = malloc(((size_t)b->npairs + 1) * sizeof *p);
    int rc = m && p ? ECO_OK : ECO_ERR_NOMEM;

    for (int i = 0; i < b->npairs && rc == ECO_OK; i++)
        p[i] = (ecoi_pair){ b->pair[2 * i], b->pair[2 * i + 1], -1, b->pcost[i] };
    if (rc == ECO_OK)
        rc = ecoi_map_add_pairs(m, p, (size_t)b->npairs);
    free(p);
    if (rc == ECO_OK)
        rc = ecoi_map_put_hops(m, &b->hops);
    if (rc == ECO_OK)
        rc = ecoi_map_set_subnets(m, b->nsub, b->host_subnet, b->degree);
    if (rc == ECO_OK) {
        m->threshold = b->threshold;
        if (b->model && !(m->model = ecoi_model_copy(b->model)))
            rc = ECO_ERR_NOMEM;
    }
    if (rc != ECO_OK) {
        eco_map_free(m);
        m = NULL;
    }
    *out = m;
    return rc;
}

/* The boot message's first word: ECO_OK when it is of this build's
 * format, else ECO_ERR_MISMATCH, logged with both formats. */
static int check_format(int tid0)
{
    int word = 0;

    if (pvm_upkint(&word, 1, 1) < 0)
        return ECO_ERR_MISMATCH;
    if (word == ECOI_BOOT_WORD)
        return ECO_OK;
    if ((word & ~0xffff) == ECOI_BOOT_MAGIC)
        ecoi_log(ECO_LOG_ERROR, "eco_init: rank 0 (t%x) sent a boot message of format %d, "
                 "this libeco reads format %d: members of different builds",
                 (unsigned)tid0, word & 0xffff, ECOI_BOOT_FORMAT);
    else
        ecoi_log(ECO_LOG_ERROR, "eco_init: rank 0 (t%x) sent a boot message without a "
                 "format word (a libeco before boot format 1), this libeco reads format %d",
                 (unsigned)tid0, ECOI_BOOT_FORMAT);
    return ECO_ERR_MISMATCH;
}

/* Wait for rank 0's boot message; fail if rank 0 exits first. */
static int recv_boot(int tid0, int tag, int n, boot *b)
{
    int rc, bid;

    if ((rc = ecoi_pvm_recv_from(tid0, tag, &bid)) != ECO_OK)
        return rc;
    if ((rc = check_format(tid0)) == ECO_OK)
        rc = unpack_boot(b, n);
    pvm_freebuf(bid);
    return rc;
}

static int send_boot(boot *b, int n, const int *tids, int tag)
{
    int bid = pvm_mkbuf(PvmDataDefault), rc;

    if (bid < 0)
        return ecoi_pvm_error(bid);
    pvm_setsbuf(bid);
    rc = pack_boot(b);
    for (int m = 1; m < n && rc == ECO_OK; m++)
        if ((rc = pvm_send(tids[m], tag)) < 0)
            rc = ecoi_pvm_error(rc);
    pvm_setsbuf(0);
    pvm_freebuf(bid);
    return rc;
}

/* ------------------------------------------------------------------ */
/* eco_init                                                            */
/* ------------------------------------------------------------------ */

static int check_tids(int n, const int *tids, int *rank)
{
    int me = pvm_mytid();

    *rank = -1;
    if (me < 0)
        return ecoi_pvm_error(me);
    for (int i = 0; i < n; i++) {
        if (tids[i] <= 0)
            return ECO_ERR_ARG;
        for (int j = 0; j < i; j++)
            if (tids[j] == tids[i])
                return ECO_ERR_ARG;
        if (tids[i] == me)
            *rank = i;
    }
    return *rank < 0 ? ECO_ERR_NOTMEMBER : ECO_OK;
}

/* Agree on the boot data: rank 0 makes and sends it, the others receive. */
static int agree(const char *file, int n, const int *tids, int rank, boot *b)
{
    /* One boot tag for every list: a member whose list differs from rank
     * 0's still gets rank 0's message, and the hash tells it apart. */
    int tag = ECOI_TAG_BOOT, rc;

    b->n = n;
    b->hash = list_hash(n, tids);
    if (rank == 0) {
        b->status = make_boot(b, file, tids);
        rc = send_boot(b, n, tids, tag);
        return b->status != ECO_OK ? b->status : rc;
    }
    rc = recv_boot(tids[0], tag, n, b);
    if (rc == ECO_OK && (b->n != n || b->hash != list_hash(n, tids)))
        rc = ECO_ERR_MISMATCH;
    return rc;
}

static int make_ctx(const boot *b, int n, const int *tids, int rank, eco_ctx **ctx)
{
    eco_map *map = NULL;
    ecoi_transport *tp;
    int rc = build_map(b, &map);

    if (rc != ECO_OK)
        return rc;
    tp = ecoi_pvm_transport(n, rank, tids, b->pvmctx, rank == 0, b->encoding,
                             b->instance);
    if (!tp) {
        eco_map_free(map);
        return ECO_ERR_NOMEM;
    }
    rc = ecoi_ctx_create(n, rank, map, b->member_host, tp, ctx);
    if (rc != ECO_OK) {
        eco_map_free(map);
        tp->destroy(tp);
        return rc;
    }
    /* Rank 0's settings, so that every member cuts and routes alike. */
    (*ctx)->segment_auto = b->segment < 0;
    (*ctx)->segment = b->segment < 0 ? 0 : (size_t)b->segment;
    for (int k = 0; k < ECOI_NCOLL; k++)   /* checked at unpack */
        (*ctx)->forced[k] = b->forced[k];
    rc = ecoi_pvm_watch(tp);
    if (rc != ECO_OK) {
        ecoi_ctx_destroy(*ctx);
        *ctx = NULL;
    }
    return rc;
}

int eco_init(const char *subnet_file, int ntasks, const int *tids, eco_ctx **ctx)
{
    int rank, rc, oldctx, olds, oldr;
    const char *route = getenv("ECO_ROUTE");
    boot b;

    if (!ctx)
        return ECO_ERR_ARG;
    *ctx = NULL;
    if (ntasks < 1 || !tids)
        return ECO_ERR_ARG;
    if ((rc = check_tids(ntasks, tids, &rank)) != ECO_OK)
        return rc;
    if (!route || strcmp(route, "default") != 0)
        pvm_setopt(PvmRoute, PvmRouteDirect);
    memset(&b, 0, sizeof b);
    oldctx = pvm_setcontext(ECOI_BOOT_CONTEXT);
    olds = pvm_setsbuf(0);
    oldr = pvm_setrbuf(0);
    rc = agree(subnet_file, ntasks, tids, rank, &b);
    pvm_setsbuf(olds > 0 ? olds : 0);
    pvm_setrbuf(oldr > 0 ? oldr : 0);
    pvm_setcontext(oldctx);
    if (rc == ECO_OK)
        rc = make_ctx(&b, ntasks, tids, rank, ctx);
    if (rc != ECO_OK && rank == 0 && b.pvmctx > 0)
        pvm_freecontext(b.pvmctx);
    boot_free(&b);
    return rc;
}
