/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_subnet_file.c -- libFuzzer target for the subnet-file reader
 * (eco_map_read, lib/subnet_file.c; eco-subnets(5)).  Checks, besides
 * what the sanitizers see: all or nothing (a map exactly when ECO_OK),
 * one error line "FILE:LINE: reason" otherwise, and on success that the
 * map prints (eco_map_fprint) to text that reads back to the same text;
 * the accessors agree with the map, and a cost model (version 3) fits
 * the subnets.  Build and run: scripts/fuzz.sh.
 */
#include "fuzz_common.h"
#include "eco_map_impl.h" /* the cost model (version 3) */

static void check_map(const eco_map *map)
{
    int n = eco_map_nhosts(map), ns = eco_map_nsubnets(map), total = 0;

    for (int s = 0; s < ns; s++) {
        int size = eco_map_subnet_size(map, s), k = eco_map_degree(map, s);
        if (size < 1 || k < 1 || k > ECO_MAX_DEGREE)
            abort();
        for (int i = 0; i < size; i++)
            if (eco_map_subnet_of(map, eco_map_subnet_host(map, s, i)) != s)
                abort();
        total += size;
    }
    if (total != n)
        abort();
    /* a model fits its subnets: complete, finite, >= 0, symmetric */
    if (map->model && (map->model->nsubnets != ns || !ecoi_model_valid(map->model)))
        abort();
    for (int h = 0; h < n; h++) {
        if (eco_map_find_host(map, eco_map_host(map, h)) != h)
            abort();
        for (int g = 0; g < n; g++)
            if (eco_map_cost(map, h, g) != eco_map_cost(map, g, h) ||
                eco_map_hops(map, h, g) != eco_map_hops(map, g, h))
                abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    eco_map *map = fuzz_read(eco_map_read, data, size);

    if (!map)
        return 0;
    check_map(map);
    fuzz_round_trip(map);
    eco_map_free(map);
    return 0;
}
