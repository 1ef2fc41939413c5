/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * eco_atomic.h -- private: replacing a file atomically (lib/atomic_file.c),
 * for every writer of the library and the tools: the subnet file
 * (eco_map_write), the cost matrix and ecod's pid file (eco_char.h),
 * eco-show's pictures.  Not installed; not libeco API.
 *
 * A temporary file next to the target (mkstemp: its name cannot be
 * guessed, O_EXCL never follows a planted link), written, fsync'ed, then
 * renamed over the target, then the directory fsync'ed (best effort).
 * On failure the temporary file is removed and the old file is intact;
 * the writers block signals or remove the temporary file in their
 * handlers (ecoi_atomic.tmp is a plain array for that).
 */
#ifndef ECO_ATOMIC_H
#define ECO_ATOMIC_H

#include <stdio.h>
#include <sys/types.h>

/* ecoi_atomic_open's flags. */
#define ECOI_ATOMIC_HIDDEN 1    /* temporary file DIR/.BASE.XXXXXX (eco_map_write);
                                 * else PATH.tmp.XXXXXX */
#define ECOI_ATOMIC_KEEP_MODE 2 /* an existing regular file keeps its mode */
#define ECOI_ATOMIC_CLEAN 4     /* first remove stale temporary files of the
                                 * target (ecoi_remove_stale_temps) */

typedef struct ecoi_atomic {
    const char *path;  /* the target, as given to ecoi_atomic_open */
    char tmp[4200];    /* the temporary file, "" when there is none */
    int fd;            /* open on tmp, or -1 */
    FILE *fp;          /* ecoi_atomic_stream's stream on fd, or NULL */
} ecoi_atomic;

/*
 * Create the temporary file for path, mode `mode` (or the old file's,
 * with ECOI_ATOMIC_KEEP_MODE): 0 with a->fd open for writing, or -1
 * with err = "PATH: cannot create a temporary file: REASON" (errno set).
 * path must outlive a.
 */
int ecoi_atomic_open(ecoi_atomic *a, const char *path, int flags, mode_t mode,
                     char *err, size_t errlen);
/* A stdio stream on a->fd (the sync closes it), or NULL with errno. */
FILE *ecoi_atomic_stream(ecoi_atomic *a);
/* Flush, fsync and close the temporary file, which stays for
 * ecoi_atomic_commit: 0, or -1 with err = "PATH: REASON" and the
 * temporary file removed. */
int ecoi_atomic_sync(ecoi_atomic *a, char *err, size_t errlen);
/* Sync (when ecoi_atomic_sync was not called), rename the temporary file
 * over the target, fsync its directory: 0, or -1 with err = "PATH:
 * REASON" and the temporary file removed. */
int ecoi_atomic_commit(ecoi_atomic *a, char *err, size_t errlen);
/* Close and remove the temporary file, keeping errno (any time; again
 * is harmless). */
void ecoi_atomic_abort(ecoi_atomic *a);

/*
 * All of it at once: print(out, arg) writes the contents and returns 0
 * (ECO_OK) or an ECO_ERR_* code.  ECO_OK; the printer's code, or
 * ECO_ERR_IO, with err = "PATH: REASON" and the old file intact.
 */
int ecoi_atomic_write(const char *path, int flags, mode_t mode,
                      int (*print)(FILE *out, const void *arg), const void *arg,
                      char *err, size_t errlen);

/* Remove the temporary files that killed writes of path left behind:
 * PATH.tmp.XXXXXX and .PATH.XXXXXX, in path's directory, plain files of
 * this user last modified at least ECOI_STALE_TEMP_AGE seconds ago (not a
 * write in progress).  The number removed. */
#define ECOI_STALE_TEMP_AGE 60
int ecoi_remove_stale_temps(const char *path);

/* mkdir -p of the directory part of path (mode 0755 less the umask):
 * 0, or -1 with err. */
int ecoi_make_parent(const char *path, char *err, size_t errlen);

#endif /* ECO_ATOMIC_H */
