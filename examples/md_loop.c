/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * md_loop.c -- the communication pattern of a molecular-dynamics code
 * (CHARMM's, which the ECO paper measured): each task computes the forces
 * from its own share of the atoms on every atom, the partial forces are
 * summed on all tasks with reduce-to-all, each task moves its own atoms,
 * and the new positions are shared with gather-to-all.
 *
 *   ./md_loop 8 [ATOMS_PER_TASK] [STEPS]
 * Every task ends with the same positions; task 0 prints a checksum.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pvm3.h>
#include <eco.h>

/* Toy pair force on a line: attraction 1/(d^2+1) toward each other atom. */
static void partial_forces(const double *x, int natoms, int first, int mine, double *f)
{
    memset(f, 0, (size_t)natoms * sizeof *f);
    for (int i = first; i < first + mine; i++)
        for (int j = 0; j < natoms; j++) {
            double d = x[j] - x[i];
            if (j == i)
                continue;
            f[i] += d / (d * d + 1.0);
            f[j] -= d / (d * d + 1.0);
        }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4;
    int per = argc > 2 ? atoi(argv[2]) : 64, steps = argc > 3 ? atoi(argv[3]) : 50, rc = 0;
    eco_ctx *ctx;
    double *x, *f, *fsum, *mine, sum = 0;

    if (per < 1 || steps < 1)
        return 1;
    if ((rc = eco_init_spawn(NULL, argv + 1, n, NULL, &ctx)) != ECO_OK) {
        fprintf(stderr, "md_loop: %s\n", eco_strerror(rc));
        return 1;
    }
    n = eco_size(ctx);
    int natoms = per * n, me = eco_rank(ctx);
    x = malloc((size_t)natoms * sizeof *x);
    f = malloc((size_t)natoms * sizeof *f);
    fsum = malloc((size_t)natoms * sizeof *fsum);
    mine = malloc((size_t)per * sizeof *mine);
    for (int i = 0; i < natoms; i++)
        x[i] = sin(i * 1.3) * natoms;
    for (int s = 0; s < steps && rc == 0; s++) {
        partial_forces(x, natoms, me * per, per, f);
        rc = eco_reduce(ctx, f, fsum, natoms, PVM_DOUBLE, ECO_SUM, ECO_ALL);
        for (int i = 0; i < per; i++)
            mine[i] = x[me * per + i] + 0.01 * fsum[me * per + i];
        if (rc == 0)
            rc = eco_gather(ctx, mine, x, per, PVM_DOUBLE, ECO_ALL);
    }
    for (int i = 0; i < natoms; i++)
        sum += x[i] * (i + 1);
    /* Every task must hold the same positions: compare checksums. */
    double lo = sum, hi = sum;
    if (rc == 0)
        rc = eco_reduce(ctx, &sum, &lo, 1, PVM_DOUBLE, ECO_MIN, ECO_ALL);
    if (rc == 0)
        rc = eco_reduce(ctx, &sum, &hi, 1, PVM_DOUBLE, ECO_MAX, ECO_ALL);
    if (me == 0)
        printf("md_loop: %d tasks, %d atoms, %d steps: checksum %.12g, tasks %s\n",
               n, natoms, steps, sum, rc == 0 && lo == hi ? "agree" : "DISAGREE");
    fflush(stdout);
    eco_finalize(ctx);
    free(x); free(f); free(fsum); free(mine);
    pvm_exit();
    return rc == 0 && lo == hi ? 0 : 1;
}
