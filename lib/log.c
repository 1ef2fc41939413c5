/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * log.c -- every message the library prints goes through here: the
 * application's hook (eco_set_log) or the default, which writes
 * "libeco: warning: ..." lines to stderr; levels above the threshold
 * (eco_set_log_level, else $ECO_LOG_LEVEL, else ECO_LOG_WARN) are dropped
 * before they are formatted.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "eco.h"
#include "eco_log.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static eco_log_fn hook = eco_log_stderr;
static void *hook_arg;
static int level = -2;        /* -2: not yet read from $ECO_LOG_LEVEL */
static int level_set;         /* set by eco_set_log_level: the environment yields */

/* "none", "error", "warn", "info", "trace" or a number; -2 when unset or bad. */
static int level_of(const char *s)
{
    static const char *const names[] = { "error", "warn", "info", "trace" };
    char *end;
    long v;

    if (!s || !*s)
        return -2;
    if (strcasecmp(s, "none") == 0 || strcasecmp(s, "off") == 0)
        return -1;
    if (strcasecmp(s, "warning") == 0)
        return ECO_LOG_WARN;
    for (int i = 0; i < 4; i++)
        if (strcasecmp(s, names[i]) == 0)
            return i;
    v = strtol(s, &end, 10);
    if (*end || v < -1)
        return -2;
    return v > ECO_LOG_TRACE ? ECO_LOG_TRACE : (int)v;
}

/* The threshold; the lock is held. */
static int threshold(void)
{
    if (level == -2) {
        int env = level_of(getenv("ECO_LOG_LEVEL"));
        level = env == -2 ? ECO_LOG_WARN : env;
    }
    return level;
}

void eco_log_stderr(int lvl, const char *msg, void *arg)
{
    static const char *const tags[] = { "", "warning: ", "", "trace: " };

    (void)arg;
    fprintf(stderr, "libeco: %s%s\n", lvl >= 0 && lvl <= ECO_LOG_TRACE ? tags[lvl] : "",
            msg);
}

void eco_set_log(eco_log_fn fn, void *arg)
{
    pthread_mutex_lock(&lock);
    hook = fn;
    hook_arg = arg;
    pthread_mutex_unlock(&lock);
}

int eco_set_log_level(int lvl)
{
    int old;

    if (lvl < -1 || lvl > ECO_LOG_TRACE)
        return ECO_ERR_ARG;
    pthread_mutex_lock(&lock);
    old = threshold();
    level = lvl;
    level_set = 1;
    pthread_mutex_unlock(&lock);
    return old;
}

int ecoi_log_enabled(int lvl)
{
    int on;

    pthread_mutex_lock(&lock);
    on = hook && lvl <= threshold();
    pthread_mutex_unlock(&lock);
    return on;
}

void ecoi_log_raise(int lvl)
{
    pthread_mutex_lock(&lock);
    if (!level_set && getenv("ECO_LOG_LEVEL") == NULL && threshold() < lvl)
        level = lvl;
    pthread_mutex_unlock(&lock);
}

void ecoi_vlog_as(const char *origin, int lvl, const char *fmt, va_list ap)
{
    char msg[1024];
    eco_log_fn fn;
    void *arg;

    pthread_mutex_lock(&lock);
    fn = lvl <= threshold() ? hook : NULL;
    arg = hook_arg;
    pthread_mutex_unlock(&lock);
    if (!fn)
        return;
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (origin && fn == eco_log_stderr)    /* another component's own prefix */
        fprintf(stderr, "%s: %s%s\n", origin, lvl == ECO_LOG_WARN ? "warning: " : "", msg);
    else
        fn(lvl, msg, arg);
}

void ecoi_log(int lvl, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    ecoi_vlog_as(NULL, lvl, fmt, ap);
    va_end(ap);
}

void ecoi_log_as(const char *origin, int lvl, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    ecoi_vlog_as(origin, lvl, fmt, ap);
    va_end(ap);
}
