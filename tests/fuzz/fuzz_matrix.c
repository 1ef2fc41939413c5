/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_matrix.c -- libFuzzer target for the cost-matrix reader
 * (eco_map_read_costs, lib/costs.c: "HOST_A HOST_B SECONDS [hops=N]").
 * Then what eco-partition does with a matrix: partition it and print
 * the subnet file, which must read back (eco_map_read) to the same text.
 * Checks all or nothing and the one-line "FILE:LINE: reason" error.
 * Build and run: scripts/fuzz.sh.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    eco_map *map = fuzz_read(eco_map_read_costs, data, size);
    int n;

    if (!map)
        return 0;
    n = eco_map_nhosts(map);
    for (int h = 0; h < n; h++)
        for (int g = 0; g < n; g++)
            if (eco_map_cost(map, h, g) != eco_map_cost(map, g, h) ||
                (h != g && eco_map_cost(map, h, g) == 0.0))
                abort();
    /* a threshold from the input's first byte: 0% .. 255% */
    if (eco_map_partition(map, size ? data[0] / 100.0 : 0.2) != ECO_OK)
        abort();
    fuzz_round_trip(map);
    eco_map_free(map);
    return 0;
}
