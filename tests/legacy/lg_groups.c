/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lg_groups.c -- a legacy PVM program on several groups at once, with a
 * member that leaves (a hole in the instance numbers) and comes back, and
 * a frozen group.
 *
 *   "all"  master and workers      "odd"  the odd workers
 *   "evn"  master and even workers "frz"  everybody, frozen
 */
#include "lg_common.h"

#define TAG_LEFT 7300
#define TAG_BACK 7301

static int tag_seq = 400;

/* Every member must use the same tags: a fresh range per phase. */
static void new_tags(void)
{
    tag_seq = 1000 + 100 * lg_phase;
}

/* Sum of (instance + 1) * 10 + j over the group, reported by the root. */
static void reduce_line(const char *group, int inst, int root, const char *phase)
{
    int v[3], rc;

    for (int j = 0; j < 3; j++)
        v[j] = (inst + 1) * 10 + j;
    rc = pvm_reduce(PvmSum, v, 3, PVM_INT, tag_seq++, (char *)group, root);
    if (inst == root)
        lg_line("%s: reduce %s root=%d rc=%d: %d %d %d", phase, group, root, rc,
                v[0], v[1], v[2]);
    else if (rc < 0)
        lg_line("%s: reduce %s root=%d member %d rc=%d", phase, group, root, inst, rc);
}

/* Gather of instance numbers, reported by the root. */
static void gather_line(const char *group, int inst, int n, int root, const char *phase)
{
    int mine = inst * 100, all[64], rc;
    char text[512];
    size_t at = 0;

    memset(all, 0xff, sizeof all);
    rc = pvm_gather(inst == root ? all : NULL, &mine, 1, PVM_INT, tag_seq++, (char *)group,
                    root);
    text[0] = '\0';
    for (int i = 0; inst == root && rc >= 0 && i < n; i++)
        at += snprintf(text + at, sizeof text - at, " %d", all[i]);
    if (inst == root)
        lg_line("%s: gather %s root=%d rc=%d:%s", phase, group, root, rc, text);
    else if (rc < 0)
        lg_line("%s: gather %s root=%d member %d rc=%d", phase, group, root, inst, rc);
}

int main(int argc, char **argv)
{
    int n, w, all = -1, sub = -1, odd, frz, rc, leaver = 0;

    /* The master is instance 0 of "all": it joins before spawning. */
    if (argc < 2 || strcmp(argv[1], "worker") != 0)
        all = pvm_joingroup("all");
    lg_start(argc, argv);
    n = lg_ntask + 1;
    w = lg_worker_index(pvm_mytid());
    odd = !lg_is_master && w % 2 == 1;
    if (!lg_is_master)
        all = pvm_joingroup("all");
    if (odd)
        sub = pvm_joingroup("odd");
    else
        sub = pvm_joingroup("evn");
    lg_wait_size("all", n);
    pvm_barrier("all", n);

    /* Two groups at once: each reduces and gathers on its own. */
    new_tags();
    {
        const char *g = odd ? "odd" : "evn";
        int size = odd ? lg_ntask / 2 : n - lg_ntask / 2;
        pvm_barrier((char *)g, size);
        for (int root = 0; root < size; root++) {
            reduce_line(g, sub, root, "two groups");
            gather_line(g, sub, size, root, "two groups");
        }
        lg_flush("two groups");
    }
    pvm_barrier("all", n);

    /* Instance 2 (a worker) leaves "all": a hole.  The master waits for
     * it to be gone before the others' barrier can open (else the group
     * server may not have struck it off when they look at the group). */
    new_tags();
    if (all == 2) {
        lg_line("hole: instance 2 left, rc=%d", pvm_lvgroup("all"));
        pvm_initsend(PvmDataDefault);
        pvm_send(pvm_parent(), TAG_LEFT);
    } else {
        if (lg_is_master) {
            int bytes, tag;
            pvm_bufinfo(pvm_recv(-1, TAG_LEFT), &bytes, &tag, &leaver);
        }
        rc = pvm_barrier("all", n - 1);
        lg_line("hole: barrier member %d rc=%d", all, rc);
        /* PVM's gather refuses a group with holes (at the root); its
         * reduce waits for the member that left (the layer's does not:
         * not tested). */
        gather_line("all", all, n, 0, "hole");
        pvm_barrier("all", n - 1);
    }
    lg_flush("hole");

    /* It comes back when the others are done, and gets instance 2 again. */
    new_tags();
    if (lg_is_master) {
        pvm_initsend(PvmDataDefault);
        pvm_send(leaver, TAG_BACK);
    }
    if (all == 2) {
        pvm_recv(pvm_parent(), TAG_BACK);
        all = pvm_joingroup("all");
    }
    rc = pvm_barrier("all", n);
    lg_line("back: member %d barrier rc=%d", all, rc);
    for (int root = 0; root < n; root += 2) {
        reduce_line("all", all, root, "back");
        gather_line("all", all, n, root, "back");
    }
    lg_flush("back");

    /* A frozen group. */
    new_tags();
    frz = pvm_joingroup("frz");
    lg_wait_size("frz", n);
    rc = pvm_freezegroup("frz", n);
    lg_line("frozen: member %d freeze rc=%d", frz, rc >= 0 ? 0 : rc);
    pvm_barrier("frz", n);
    for (int root = 0; root < n; root++) {
        int part = -1;
        int src[64];
        for (int i = 0; i < n; i++)
            src[i] = root * 1000 + i;
        reduce_line("frz", frz, root, "frozen");
        gather_line("frz", frz, n, root, "frozen");
        rc = pvm_scatter(&part, frz == root ? src : NULL, 1, PVM_INT, tag_seq++, "frz", root);
        lg_line("frozen: scatter root=%d member %d rc=%d got %d", root, frz, rc, part);
    }
    pvm_barrier("frz", n);
    lg_flush("frozen");
    pvm_barrier("all", n);
    pvm_lvgroup("frz");
    pvm_lvgroup(odd ? "odd" : "evn");
    pvm_lvgroup("all");
    return lg_end();
}
