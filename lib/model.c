/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * model.c -- the measured cost model (eco_map_impl.h, ecoi_model): make,
 * copy, free, check, and follow the map's subnets when they are
 * renumbered (ecoi_map_canonicalize_subnets) or restricted to the
 * members' subnets (eco_init).  Stored in the subnet file (version 3,
 * lib/subnet_file.c), measured by eco-characterize, used by lib/select.c.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "eco_map_impl.h"

ecoi_model *ecoi_model_new(int nsubnets)
{
    ecoi_model *m;
    size_t n = (size_t)nsubnets;

    if (nsubnets < 0 || (nsubnets > 0 && n > SIZE_MAX / sizeof(ecoi_cost) / n))
        return NULL;
    if (!(m = calloc(1, sizeof *m)))
        return NULL;
    m->nsubnets = nsubnets;
    m->link = calloc(n * n + 1, sizeof *m->link);
    m->uplink = calloc(n + 1, sizeof *m->uplink);
    m->burst = calloc(n * n + 1, sizeof *m->burst);
    if (!m->link || !m->uplink || !m->burst) {
        ecoi_model_free(m);
        return NULL;
    }
    return m;
}

void ecoi_model_free(ecoi_model *m)
{
    if (!m)
        return;
    free(m->link);
    free(m->uplink);
    free(m->burst);
    free(m);
}

ecoi_model *ecoi_model_copy(const ecoi_model *m)
{
    ecoi_model *c;
    size_t n;

    if (!m || !(c = ecoi_model_new(m->nsubnets)))
        return NULL;
    n = (size_t)m->nsubnets;
    c->task = m->task;
    c->busy = m->busy;
    c->step = m->step;
    c->forward = m->forward;
    c->stepbyte = m->stepbyte;
    c->cores = m->cores;
    memcpy(c->link, m->link, n * n * sizeof *c->link);
    memcpy(c->uplink, m->uplink, n * sizeof *c->uplink);
    memcpy(c->burst, m->burst, n * n * sizeof *c->burst);
    return c;
}

static int cost_ok(ecoi_cost c)
{
    return isfinite(c.alpha) && isfinite(c.beta) && c.alpha >= 0.0 && c.beta >= 0.0;
}

int ecoi_model_valid(const ecoi_model *m)
{
    int n;

    if (!m || m->nsubnets < 0 || !m->link || !m->uplink || !m->burst || !cost_ok(m->task) ||
        !isfinite(m->busy) || m->busy < 0.0 || !isfinite(m->step) || m->step < 0.0 ||
        !isfinite(m->forward) || m->forward < 0.0 || !isfinite(m->stepbyte) ||
        m->stepbyte < 0.0 || !isfinite(m->cores) || m->cores < 0.0)
        return 0;
    n = m->nsubnets;
    for (int s = 0; s < n; s++) {
        if (!isfinite(m->uplink[s]) || m->uplink[s] < 0.0)
            return 0;
        for (int t = 0; t < n; t++) {
            ecoi_cost a = m->link[(size_t)s * n + t], b = m->link[(size_t)t * n + s];
            double u = m->burst[(size_t)s * n + t];
            if (!cost_ok(a) || a.alpha != b.alpha || a.beta != b.beta)
                return 0;
            if (!isfinite(u) || u < 0.0 || u != m->burst[(size_t)t * n + s])
                return 0;
        }
    }
    return 1;
}

double ecoi_model_burst(const ecoi_model *m, int s, int t)
{
    double u;

    if (!m || !m->burst || s < 0 || t < 0 || s >= m->nsubnets || t >= m->nsubnets)
        return 0.0;
    u = m->burst[(size_t)s * m->nsubnets + t];
    return u > 0.0 ? u : 0.0;
}

ecoi_model *ecoi_model_restrict(const ecoi_model *m, const int *old_of, int nnew)
{
    ecoi_model *r;

    if (!m || nnew < 0 || (nnew > 0 && !old_of))
        return NULL;
    for (int i = 0; i < nnew; i++)
        if (old_of[i] < 0 || old_of[i] >= m->nsubnets)
            return NULL;
    if (!(r = ecoi_model_new(nnew)))
        return NULL;
    r->task = m->task;
    r->busy = m->busy; /* of every host at once: no subnet of its own */
    r->step = m->step;
    r->forward = m->forward;
    r->stepbyte = m->stepbyte;
    r->cores = m->cores; /* of the file's hosts, as busy */
    for (int i = 0; i < nnew; i++) {
        size_t oi = (size_t)old_of[i];
        r->uplink[i] = m->uplink[oi];
        for (int j = 0; j < nnew; j++) {
            size_t from = oi * m->nsubnets + (size_t)old_of[j];
            r->link[(size_t)i * nnew + j] = m->link[from];
            r->burst[(size_t)i * nnew + j] = m->burst[from];
        }
    }
    return r;
}

int ecoi_model_renumber(ecoi_model *m, const int *new_of)
{
    int n, *old_of;
    ecoi_model *r;

    if (!m || (m->nsubnets > 0 && !new_of))
        return ECO_ERR_ARG;
    n = m->nsubnets;
    if (!(old_of = malloc(((size_t)n + 1) * sizeof *old_of)))
        return ECO_ERR_NOMEM;
    for (int s = 0; s < n; s++)
        old_of[s] = -1;
    for (int s = 0; s < n; s++) {
        if (new_of[s] < 0 || new_of[s] >= n || old_of[new_of[s]] >= 0) {
            free(old_of); /* not a permutation */
            return ECO_ERR_ARG;
        }
        old_of[new_of[s]] = s;
    }
    r = ecoi_model_restrict(m, old_of, n);
    free(old_of);
    if (!r)
        return ECO_ERR_NOMEM;
    /* swap the arrays in: the caller's pointer stays valid */
    free(m->link);
    free(m->uplink);
    free(m->burst);
    m->link = r->link;
    m->uplink = r->uplink;
    m->burst = r->burst;
    free(r);
    return ECO_OK;
}
