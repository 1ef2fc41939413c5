/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * eco_log.h -- private: the library's messages (lib/log.c).  Everything
 * the library prints goes through ecoi_log, hence through the
 * application's hook (eco_set_log) and its threshold.
 */
#ifndef ECO_LOG_H
#define ECO_LOG_H

#include <stdarg.h>

/* A message at level ECO_LOG_* (printf format, no trailing newline).
 * The default hook prints "libeco: warning: MSG" at ECO_LOG_WARN. */
void ecoi_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same from another component (origin: e.g. "eco-pvm[t40001]"): the
 * default hook prints "ORIGIN: MSG" instead; a hook gets MSG alone. */
void ecoi_log_as(const char *origin, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void ecoi_vlog_as(const char *origin, int level, const char *fmt, va_list ap);
/* 1 when a message at this level would reach a hook (to skip costly
 * formatting, e.g. of a trace). */
int ecoi_log_enabled(int level);
/* Raise the threshold to level unless the application or $ECO_LOG_LEVEL
 * chose one (the compatibility layer's ECO_PVM_VERBOSE: ECO_LOG_INFO). */
void ecoi_log_raise(int level);

#endif
