/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_common.h -- shared by the libFuzzer harnesses (scripts/fuzz.sh):
 * the readers take a path, so every input is written to one memfd and
 * read back through /proc/self/fd/N; no file on disk per input.
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create, open_memstream */
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "eco.h"

/* The path of a file that holds exactly data[0..size-1]. */
static const char *fuzz_file(const uint8_t *data, size_t size)
{
    static int fd = -1;
    static char path[64];

    if (fd < 0) {
        fd = memfd_create("eco-fuzz", 0);
        if (fd < 0) {
            perror("memfd_create");
            abort();
        }
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size) {
        perror("fuzz_file");
        abort();
    }
    return path;
}

/* The subnet-file text of a map (eco_map_fprint), malloc'd, or NULL
 * when the map cannot be written. */
static char *fuzz_print(const eco_map *map, size_t *len)
{
    char *text = NULL;
    FILE *out = open_memstream(&text, len);

    if (!out)
        abort();
    if (eco_map_fprint(map, out) != ECO_OK) {
        fclose(out);
        free(text);
        return NULL;
    }
    if (fclose(out) != 0)
        abort();
    return text;
}

/* An error message is one NUL-terminated line naming the file. */
static void fuzz_check_err(const char *err, size_t errlen, const char *path)
{
    size_t n = strnlen(err, errlen);

    if (n == errlen || n == 0 || strchr(err, '\n') != NULL ||
        strncmp(err, path, strlen(path)) != 0) {
        fprintf(stderr, "bad error message: '%.*s'\n", (int)n, err);
        abort();
    }
}

/*
 * One input through a reader (eco_map_read or eco_map_read_costs): all
 * or nothing, and on failure one located error line.  The map, or NULL
 * when the input was (rightly) refused.
 */
static eco_map *fuzz_read(int (*reader)(const char *, eco_map **, char *, size_t),
                          const uint8_t *data, size_t size)
{
    char err[300];
    const char *path = fuzz_file(data, size);
    eco_map *map = (eco_map *)&err; /* must be set to NULL on error */
    int rc;

    memset(err, 'x', sizeof err);
    rc = reader(path, &map, err, sizeof err);
    if (rc != ECO_OK) {
        if (map != NULL || (rc != ECO_ERR_FORMAT && rc != ECO_ERR_NOMEM))
            abort();
        fuzz_check_err(err, sizeof err, path);
        return NULL;
    }
    if (!map)
        abort();
    return map;
}

/*
 * The writer is canonical: a map read from a subnet file prints as text
 * that reads back to a map that prints the same text again.
 */
static void fuzz_round_trip(const eco_map *map)
{
    size_t len1 = 0, len2 = 0;
    char *t1 = fuzz_print(map, &len1), *t2, err[512] = "";
    eco_map *again = NULL;
    const char *path;
    int rc;

    if (!t1)
        return;
    path = fuzz_file((const uint8_t *)t1, len1);
    rc = eco_map_read(path, &again, err, sizeof err);
    if (rc != ECO_OK) {
        fprintf(stderr, "the printed map does not read back: %s\n---\n%s---\n", err, t1);
        abort();
    }
    t2 = fuzz_print(again, &len2);
    if (!t2 || len1 != len2 || memcmp(t1, t2, len1) != 0) {
        fprintf(stderr, "printing is not canonical:\n---\n%s---\n%s---\n", t1,
                t2 ? t2 : "(cannot print)\n");
        abort();
    }
    free(t1);
    free(t2);
    eco_map_free(again);
}

#endif
