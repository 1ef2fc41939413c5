/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * proc_status.h -- what the memory tests read of a process's own
 * /proc/self/status (tests/pvm_tests.c, tests/soak.c).
 */
#ifndef ECO_PROC_STATUS_H
#define ECO_PROC_STATUS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A line of /proc/self/status in KB ("VmRSS", "VmHWM"); -1 if absent. */
static inline long proc_status_kb(const char *key)
{
    char line[256];
    long v = -1;
    size_t n = strlen(key);
    FILE *f = fopen("/proc/self/status", "r");

    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, key, n) == 0 && line[n] == ':')
            v = atol(line + n + 1);
    if (f)
        fclose(f);
    return v;
}

#endif
