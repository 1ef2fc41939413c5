/*
 * eco-bench-mpi -- the MPI side of eco-bench: the same operations, sizes
 * and timing (root start to the last member's acknowledgement, a barrier
 * between iterations, warm-up not counted) with the MPI library's own
 * collectives, so eco-bench can put Open MPI in the same table.
 *
 *   mpirun -np N eco-bench-mpi --op OP --sizes LIST [--root R]
 *                               [--iters N] [--warmup N]
 * Prints op,bytes,pattern,median_seconds,min_seconds rows (pattern openmpi).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAG_ACK 77

static const char *ops[] = { "bcast", "reduce", "allreduce", "gather", "allgather",
                             "scatter", "alltoall", "barrier", "scan" };

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One operation; bytes per member; doubles for the reductions. */
static void run(int op, char *a, char *b, int bytes, int root)
{
    int nd = bytes / 8;

    switch (op) {
    case 0: MPI_Bcast(a, bytes, MPI_BYTE, root, MPI_COMM_WORLD); break;
    case 1: MPI_Reduce(a, b, nd, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD); break;
    case 2: MPI_Allreduce(a, b, nd, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); break;
    case 3: MPI_Gather(a, bytes, MPI_BYTE, b, bytes, MPI_BYTE, root, MPI_COMM_WORLD); break;
    case 4: MPI_Allgather(a, bytes, MPI_BYTE, b, bytes, MPI_BYTE, MPI_COMM_WORLD); break;
    case 5: MPI_Scatter(b, bytes, MPI_BYTE, a, bytes, MPI_BYTE, root, MPI_COMM_WORLD); break;
    case 6: MPI_Alltoall(b, bytes, MPI_BYTE, a, bytes, MPI_BYTE, MPI_COMM_WORLD); break;
    case 7: MPI_Barrier(MPI_COMM_WORLD); break;
    default: MPI_Scan(a, b, nd, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); break;
    }
}

int main(int argc, char **argv)
{
    int op = 0, root = 0, iters = 30, warmup = 3, nsizes = 0, sizes[64], me, n;
    char *list = "1000,16000,262144";

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--op") == 0) {
            for (int k = 0; k < 9; k++)
                if (strcmp(argv[i + 1], ops[k]) == 0)
                    op = k;
        } else if (strcmp(argv[i], "--sizes") == 0) {
            list = argv[i + 1];
        } else if (strcmp(argv[i], "--root") == 0) {
            root = atoi(argv[i + 1]);
        } else if (strcmp(argv[i], "--iters") == 0) {
            iters = atoi(argv[i + 1]);
        } else if (strcmp(argv[i], "--warmup") == 0) {
            warmup = atoi(argv[i + 1]);
        }
    }
    for (char *s = strtok(list, ","); s && nsizes < 64; s = strtok(NULL, ","))
        sizes[nsizes++] = atoi(s);
    if (iters < 1 || root < 0 || root >= n) {
        if (me == 0)
            fprintf(stderr, "eco-bench-mpi: bad --iters or --root\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double *t = malloc((size_t)iters * sizeof *t);
    if (me == root)
        printf("op,bytes,pattern,median_seconds,min_seconds\n");
    for (int s = 0; s < nsizes; s++) {
        int bytes = op == 1 || op == 2 || op == 8 ? sizes[s] / 8 * 8 : sizes[s];
        char *a = calloc(1, (size_t)bytes * (size_t)n + 8), *b = calloc(1, (size_t)bytes * (size_t)n + 8);
        for (int k = 0; k < warmup + iters; k++) {
            double t0 = 0;
            MPI_Barrier(MPI_COMM_WORLD);
            if (me == root)
                t0 = MPI_Wtime();
            run(op, a, b, bytes, root);
            if (me != root) {
                MPI_Send(NULL, 0, MPI_BYTE, root, TAG_ACK, MPI_COMM_WORLD);
            } else {
                for (int i = 1; i < n; i++)
                    MPI_Recv(NULL, 0, MPI_BYTE, MPI_ANY_SOURCE, TAG_ACK, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE);
                if (k >= warmup)
                    t[k - warmup] = MPI_Wtime() - t0;
            }
        }
        if (me == root) {
            qsort(t, (size_t)iters, sizeof *t, cmp_double);
            printf("%s,%d,openmpi,%.9f,%.9f\n", ops[op], bytes,
                   iters % 2 ? t[iters / 2] : (t[iters / 2 - 1] + t[iters / 2]) / 2, t[0]);
        }
        free(a);
        free(b);
    }
    free(t);
    MPI_Finalize();
    return 0;
}
