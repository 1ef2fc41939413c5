/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * atomic_file.c -- replace a file atomically (eco_atomic.h): a temporary
 * file next to the target, fsync, rename, fsync of the directory.  The
 * one writer behind the subnet file, the cost matrix, ecod's pid file
 * and eco-show's pictures; and the clean-up of the temporary files that
 * a killed writer leaves behind.
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "eco_atomic.h"
#include "eco_map_impl.h" /* ecoi_set_err */

/* ------------------------------------------------------------------ */
/* The temporary file                                                  */
/* ------------------------------------------------------------------ */

int ecoi_atomic_open(ecoi_atomic *a, const char *path, int flags, mode_t mode,
                     char *err, size_t errlen)
{
    const char *slash = strrchr(path, '/');
    int dirlen = slash ? (int)(slash - path) + 1 : 0, n;
    struct stat st;

    a->path = path;
    a->tmp[0] = '\0';
    a->fd = -1;
    a->fp = NULL;
    if (flags & ECOI_ATOMIC_CLEAN)
        ecoi_remove_stale_temps(path);
    if ((flags & ECOI_ATOMIC_KEEP_MODE) && stat(path, &st) == 0 && S_ISREG(st.st_mode))
        mode = st.st_mode & 07777; /* an existing file keeps its mode */
    if (flags & ECOI_ATOMIC_HIDDEN)
        n = snprintf(a->tmp, sizeof a->tmp, "%.*s.%s.XXXXXX", dirlen, path, path + dirlen);
    else
        n = snprintf(a->tmp, sizeof a->tmp, "%s.tmp.XXXXXX", path);
    if (n < 0 || (size_t)n >= sizeof a->tmp)
        errno = ENAMETOOLONG;
    else
        a->fd = mkstemp(a->tmp);
    if (a->fd < 0) {
        a->tmp[0] = '\0';
        ecoi_set_err(err, errlen, "%s: cannot create a temporary file: %s", path,
                     strerror(errno));
        return -1;
    }
    if (fchmod(a->fd, mode) != 0) {
        ecoi_set_err(err, errlen, "%s: %s", path, strerror(errno));
        ecoi_atomic_abort(a);
        return -1;
    }
    return 0;
}

FILE *ecoi_atomic_stream(ecoi_atomic *a)
{
    if (!a->fp && a->fd >= 0)
        a->fp = fdopen(a->fd, "w");
    else if (a->fd < 0)
        errno = EBADF;
    return a->fp;
}

void ecoi_atomic_abort(ecoi_atomic *a)
{
    int saved = errno;

    if (a->fp)
        fclose(a->fp);
    else if (a->fd >= 0)
        close(a->fd);
    a->fp = NULL;
    a->fd = -1;
    if (a->tmp[0])
        unlink(a->tmp);
    a->tmp[0] = '\0';
    errno = saved;
}

int ecoi_atomic_sync(ecoi_atomic *a, char *err, size_t errlen)
{
    int bad, saved;

    if (a->fd < 0) {
        errno = EBADF;
        bad = 1;
    } else {
        errno = 0;
        bad = a->fp && (fflush(a->fp) != 0 || ferror(a->fp));
        bad = bad || fsync(a->fd) != 0;
    }
    saved = errno;
    if (a->fp ? fclose(a->fp) != 0 : a->fd >= 0 && close(a->fd) != 0) {
        if (!bad)
            saved = errno;
        bad = 1;
    }
    a->fp = NULL;
    a->fd = -1;
    if (bad) {
        ecoi_set_err(err, errlen, "%s: %s", a->path, strerror(saved ? saved : EIO));
        ecoi_atomic_abort(a);
        errno = saved ? saved : EIO;
        return -1;
    }
    return 0;
}

/* Best effort: make the rename itself durable. */
static void sync_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, (size_t)(slash - path) + 1) : strdup(".");
    int fd = dir ? open(dir, O_RDONLY) : -1;

    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
    free(dir);
}

int ecoi_atomic_commit(ecoi_atomic *a, char *err, size_t errlen)
{
    if (a->fd >= 0 && ecoi_atomic_sync(a, err, errlen) != 0)
        return -1;
    if (!a->tmp[0] || rename(a->tmp, a->path) != 0) {
        ecoi_set_err(err, errlen, "%s: %s", a->path, strerror(a->tmp[0] ? errno : EBADF));
        ecoi_atomic_abort(a);
        return -1;
    }
    a->tmp[0] = '\0';
    sync_dir(a->path);
    return 0;
}

int ecoi_atomic_write(const char *path, int flags, mode_t mode,
                      int (*print)(FILE *out, const void *arg), const void *arg,
                      char *err, size_t errlen)
{
    ecoi_atomic a;
    FILE *out;
    int rc, saved;

    if (ecoi_atomic_open(&a, path, flags, mode, err, errlen) != 0)
        return ECO_ERR_IO;
    out = ecoi_atomic_stream(&a);
    rc = out ? print(out, arg) : ECO_ERR_IO;
    if (rc != ECO_OK) {
        saved = errno;
        ecoi_atomic_abort(&a);
        ecoi_set_err(err, errlen, "%s: %s", path,
                     rc == ECO_ERR_IO && saved ? strerror(saved) : eco_strerror(rc));
        return rc;
    }
    return ecoi_atomic_commit(&a, err, errlen) == 0 ? ECO_OK : ECO_ERR_IO;
}

/* ------------------------------------------------------------------ */
/* Stale temporary files, directories                                  */
/* ------------------------------------------------------------------ */

/* Is name a temporary file of a write of the file named base in the
 * same directory: BASE.tmp.XXXXXX or .BASE.XXXXXX (ECOI_ATOMIC_HIDDEN),
 * XXXXXX as mkstemp makes it? */
static int is_temp_of(const char *name, const char *base)
{
    size_t b = strlen(base);
    const char *x;

    if (strncmp(name, base, b) == 0 && strncmp(name + b, ".tmp.", 5) == 0)
        x = name + b + 5;
    else if (name[0] == '.' && strncmp(name + 1, base, b) == 0 && name[b + 1] == '.')
        x = name + b + 2;
    else
        return 0;
    if (strlen(x) != 6)
        return 0;
    for (int i = 0; i < 6; i++)
        if (!isalnum((unsigned char)x[i]))
            return 0;
    return 1;
}

int ecoi_remove_stale_temps(const char *path)
{
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
    char dir[4096];
    struct dirent *e;
    time_t now = time(NULL);
    int removed = 0;
    DIR *d;

    snprintf(dir, sizeof dir, "%.*s", slash ? (slash == path ? 1 : (int)(slash - path)) : 1,
             slash ? path : ".");
    if (!*base || !(d = opendir(dir)))
        return 0;
    while ((e = readdir(d))) {
        struct stat st;
        if (!is_temp_of(e->d_name, base) ||
            fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        /* ours, a plain file, and too old to belong to a write in progress */
        if (S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
            now - st.st_mtime >= ECOI_STALE_TEMP_AGE && unlinkat(dirfd(d), e->d_name, 0) == 0)
            removed++;
    }
    closedir(d);
    return removed;
}

int ecoi_make_parent(const char *path, char *err, size_t errlen)
{
    char dir[4096];
    char *slash;

    snprintf(dir, sizeof dir, "%s", path);
    if (!(slash = strrchr(dir, '/')) || slash == dir)
        return 0;
    *slash = '\0';
    for (char *p = dir + 1; ; p++) {
        if (*p == '/' || *p == '\0') {
            char c = *p;
            *p = '\0';
            if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
                snprintf(err, errlen, "cannot create directory %s: %s", dir, strerror(errno));
                return -1;
            }
            *p = c;
            if (!c)
                break;
        }
    }
    return 0;
}
