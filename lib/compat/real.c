/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * real.c -- the compatibility layer's plumbing: PVM's own functions, the
 * run-time switches, the verbose log, group member lists, and the hosts
 * of tasks in the subnet file's map.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ecopvm.h"
#include "eco_log.h"

extern int pvm_errno;

ecopvm_config ecopvm;

/* libgpvm3's one-query member list (not in pvm3.h; NULL when absent). */
typedef int (*ecopvm_tidlist_fn)(char *, int, int *, int **, int);
static ecopvm_tidlist_fn tidlist_fn;
static ecopvm_op_fn sum_fn, product_fn, max_fn, min_fn;

#ifdef ECOPVM_WRAP
/* Weak: a PVM without them still links, and the layer asks pvm_gettid. */
extern int gs_get_tidlist(char *, int, int *, int **, int) __attribute__((weak));

static int resolve(void)
{
    tidlist_fn = gs_get_tidlist;
    sum_fn = PvmSum;
    product_fn = PvmProduct;
    max_fn = PvmMax;
    min_fn = PvmMin;
    return 1;
}
#else
struct ecopvm_real_fns ecopvm_real;

/* PVM's functions are the next definitions after this library's. */
static int resolve(void)
{
    int ok = 1;

#define ECOPVM_RESOLVE(ret, name, args)                         \
    *(void **)&ecopvm_real.name = dlsym(RTLD_NEXT, #name);      \
    ok &= ecopvm_real.name != NULL;
    ECOPVM_FUNCS(ECOPVM_RESOLVE)
#undef ECOPVM_RESOLVE
    *(void **)&tidlist_fn = dlsym(RTLD_NEXT, "gs_get_tidlist");
    *(void **)&sum_fn = dlsym(RTLD_NEXT, "PvmSum");
    *(void **)&product_fn = dlsym(RTLD_NEXT, "PvmProduct");
    *(void **)&max_fn = dlsym(RTLD_NEXT, "PvmMax");
    *(void **)&min_fn = dlsym(RTLD_NEXT, "PvmMin");
    return ok;
}
#endif

static int env_flag(const char *name, int dflt)
{
    const char *v = getenv(name);

    if (!v || !*v)
        return dflt;
    return strcmp(v, "0") != 0 && strcmp(v, "no") != 0;
}

void ecopvm_setup(void)
{
    const char *min = getenv("ECO_PVM_BCAST_MIN");

    if (ecopvm.ready)
        return;
    ecopvm.ready = 1;
    ecopvm.verbose = env_flag("ECO_PVM_VERBOSE", 0);
    if (ecopvm.verbose)     /* its lines are at ECO_LOG_INFO (ecopvm_log) */
        ecoi_log_raise(ECO_LOG_INFO);
    ecopvm.bcast = env_flag("ECO_PVM_BCAST", 1);
    ecopvm.bcast_min = min && *min ? strtol(min, NULL, 10) : 0;
    ecopvm.disabled = env_flag("ECO_PVM_DISABLE", 0);
    /* The group server, the console and the daemon (which inherit the
     * preload through PVM_EXPORT or the shell) are PVM's own. */
    if (strcmp(program_invocation_short_name, "pvmgs") == 0 ||
        strcmp(program_invocation_short_name, "pvm") == 0 ||
        strcmp(program_invocation_short_name, "pvmd") == 0 ||
        strcmp(program_invocation_short_name, "pvmd3") == 0)
        ecopvm.disabled = 1;
    if (!resolve()) {
        ecoi_log_as("eco-pvm", ECO_LOG_WARN, "PVM's own functions not found "
                    "(is the program linked to libpvm3.so and libgpvm3.so?)");
        ecopvm.disabled = 1;
    }
}

void ecopvm_log(const char *call, const char *group, const char *rootfmt,
                int root, const char *how, const char *why)
{
    char rootbuf[64] = "", origin[32];

    if (!ecopvm.verbose || !ecoi_log_enabled(ECO_LOG_INFO))
        return;
    if (rootfmt)
        snprintf(rootbuf, sizeof rootbuf, rootfmt, root);
    snprintf(origin, sizeof origin, "eco-pvm[t%x]", pvm_mytid());
    ecoi_log_as(origin, ECO_LOG_INFO, "%s group=\"%s\"%s%s: %s%s%s%s",
                call, group ? group : "(null)", rootbuf[0] ? " " : "", rootbuf, how,
                why ? " (" : "", why ? why : "", why ? ")" : "");
}

ecopvm_op_fn ecopvm_pvm_sum(void)
{
    return sum_fn;
}

ecopvm_op_fn ecopvm_pvm_product(void)
{
    return product_fn;
}

int ecopvm_pvm_builtin(ecopvm_op_fn f)
{
    return f && (f == sum_fn || f == product_fn || f == max_fn || f == min_fn);
}

/* ------------------------------------------------------------------ */
/* Member lists                                                        */
/* ------------------------------------------------------------------ */

/* Without gs_get_tidlist: instances 0.. from pvm_gettid, one query each. */
static int tidlist_by_gettid(const char *group, int no_holes, int *n, int **tids)
{
    int size = pvm_gsize((char *)group), found = 0, *t;

    if (size < 0)
        return size;
    if (size == 0)
        return PvmNoInst;
    t = malloc((size_t)size * sizeof *t);
    if (!t)
        return PvmNoMem;
    /* Holes: stop after a generous run of missing instances. */
    for (int i = 0, misses = 0; found < size && misses < 4096; i++) {
        int tid = pvm_gettid((char *)group, i);
        if (tid > 0) {
            t[found++] = tid;
            misses = 0;
        } else {
            if (no_holes) {
                free(t);
                return PvmNoInst;
            }
            misses++;
        }
    }
    if (found < size) {
        free(t);
        return PvmNoInst;
    }
    *n = found;
    *tids = t;
    return PvmOk;
}

int ecopvm_tidlist(const char *group, int no_holes, int *n, int **tids)
{
    int rc, nt = 0, *t = NULL;

    *n = 0;
    *tids = NULL;
    if (!group || !*group)
        return PvmNullGroup;
    if (!tidlist_fn)
        return tidlist_by_gettid(group, no_holes, n, tids);
    rc = tidlist_fn((char *)group, 0, &nt, &t, no_holes);
    if (rc < 0 || nt <= 0) {
        free(t);
        return rc < 0 ? rc : (nt < 0 ? nt : PvmNoInst);
    }
    *n = nt;
    *tids = t;
    return PvmOk;
}

/* ------------------------------------------------------------------ */
/* Saving the caller's state                                           */
/* ------------------------------------------------------------------ */

void ecopvm_save(ecopvm_saved *s, int ctx)
{
    s->err = pvm_errno;
    s->autoerr = pvm_setopt(PvmAutoErr, 0);
    s->ctx = pvm_setcontext(ctx);
    s->sbuf = pvm_setsbuf(0);
    s->rbuf = pvm_setrbuf(0);
}

void ecopvm_restore(const ecopvm_saved *s)
{
    pvm_setrbuf(s->rbuf > 0 ? s->rbuf : 0);
    pvm_setsbuf(s->sbuf > 0 ? s->sbuf : 0);
    pvm_setcontext(s->ctx);
    pvm_setopt(PvmAutoErr, s->autoerr);
    pvm_errno = s->err;
}

/* ------------------------------------------------------------------ */
/* Hosts of tasks                                                      */
/* ------------------------------------------------------------------ */

static eco_map *file_map;       /* the subnet file's map, or NULL */
static int file_state;          /* 0 unread, 1 read (maybe no file), -1 bad */

/* The host names of the virtual machine, by pvmd tid. */
typedef struct vm_host {
    int dtid;
    char *name;
} vm_host;
static vm_host *vm_hosts;
static int vm_nhosts;

static int load_config(void)
{
    struct pvmhostinfo *hi;
    int nhost, narch;

    if (pvm_config(&nhost, &narch, &hi) < 0)
        return -1;
    for (int h = 0; h < vm_nhosts; h++)
        free(vm_hosts[h].name);
    free(vm_hosts);
    vm_nhosts = 0;
    vm_hosts = calloc((size_t)nhost + 1, sizeof *vm_hosts);
    if (!vm_hosts)
        return -1;
    for (int h = 0; h < nhost; h++) {
        vm_hosts[vm_nhosts].dtid = hi[h].hi_tid;
        vm_hosts[vm_nhosts].name = strdup(hi[h].hi_name);
        if (vm_hosts[vm_nhosts].name)
            vm_nhosts++;
    }
    return 0;
}

static const char *host_name(int tid)
{
    int dtid = pvm_tidtohost(tid);

    for (int pass = 0; pass < 2; pass++) {
        for (int h = 0; h < vm_nhosts; h++)
            if (vm_hosts[h].dtid == dtid)
                return vm_hosts[h].name;
        /* A host added since: read the configuration again, once. */
        if (pass == 0 && load_config() < 0)
            return NULL;
    }
    return NULL;
}

/* The subnets and degrees of the map's hosts, taken from the file; a host
 * the file does not list forms a subnet of its own (as in eco_init). */
static int set_subnets(eco_map *m)
{
    int nh = eco_map_nhosts(m), nfs = file_map ? eco_map_nsubnets(file_map) : 0;
    int *seen = malloc(((size_t)nfs + 1) * sizeof *seen), nsub = 0, rc;
    int *subnet = malloc(((size_t)nh + 1) * sizeof *subnet);
    int *degree = malloc(((size_t)nh + 1) * sizeof *degree);

    if (!seen || !subnet || !degree) {
        free(seen);
        free(subnet);
        free(degree);
        return ECO_ERR_NOMEM;
    }
    for (int s = 0; s < nfs; s++)
        seen[s] = -1;
    for (int h = 0; h < nh; h++) {
        int fh = ecoi_file_host(file_map, eco_map_host(m, h));
        int fs = fh >= 0 ? eco_map_subnet_of(file_map, fh) : -1;
        if (fs >= 0 && seen[fs] >= 0) {
            subnet[h] = seen[fs];
            continue;
        }
        degree[nsub] = fs >= 0 ? eco_map_degree(file_map, fs) : ECO_DEFAULT_DEGREE;
        if (fs >= 0)
            seen[fs] = nsub;
        subnet[h] = nsub++;
    }
    rc = ecoi_map_set_subnets(m, nsub, subnet, degree);
    free(seen);
    free(subnet);
    free(degree);
    return rc < 0 ? rc : ECO_OK;
}

/* Costs between the map's hosts, from the file. */
static int set_costs(eco_map *m)
{
    int nh = eco_map_nhosts(m), rc = ECO_OK;

    for (int a = 0; a < nh && rc == ECO_OK; a++)
        for (int b = a + 1; b < nh && rc == ECO_OK; b++) {
            int fa = ecoi_file_host(file_map, eco_map_host(m, a));
            int fb = ecoi_file_host(file_map, eco_map_host(m, b));
            double c = fa >= 0 && fb >= 0 ? eco_map_cost(file_map, fa, fb) : -1.0;
            if (c > 0)
                rc = eco_map_add_cost(m, eco_map_host(m, a), eco_map_host(m, b), c);
        }
    return rc < 0 ? rc : ECO_OK;
}

int ecopvm_member_hosts(int n, const int *tids, eco_map **map, int *host)
{
    const char **names = malloc((size_t)n * sizeof *names);
    eco_map *m = NULL;
    int rc = names ? ECO_OK : ECO_ERR_NOMEM;

    *map = NULL;
    if (file_state == 0)
        file_state = ecoi_load_subnet_file(NULL, &file_map) == ECO_OK ? 1 : -1;
    if (rc == ECO_OK && file_state < 0)
        rc = ECO_ERR_FORMAT;
    for (int i = 0; i < n && rc == ECO_OK; i++)
        if (!(names[i] = host_name(tids[i])))
            rc = ECO_ERR_NOTFOUND;
    if (rc == ECO_OK && !(m = eco_map_new()))
        rc = ECO_ERR_NOMEM;
    for (int i = 0; i < n && rc == ECO_OK; i++)
        if ((rc = eco_map_add_host(m, names[i])) >= 0)
            rc = ECO_OK;
    for (int i = 0; i < n && rc == ECO_OK; i++)
        host[i] = eco_map_find_host(m, names[i]);
    if (rc == ECO_OK)
        rc = set_costs(m);
    if (rc == ECO_OK)
        rc = set_subnets(m);
    free(names);
    if (rc != ECO_OK) {
        eco_map_free(m);
        return rc;
    }
    *map = m;
    return ECO_OK;
}
