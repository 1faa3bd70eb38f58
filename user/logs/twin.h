/* SPDX-License-Identifier: GPL-2.0-only */
/* twin.h - a second thread for the log reader (internal to user/logs):
 * one batch of lines is classified by two threads, each its half, while
 * the reader hands out the events in order (reader.c).  Classification
 * reads no state another line changes (the input's memory, its counts and
 * the version and job it carries are kept by the reader as it hands the
 * events out), so the halves need no lock but the hand-over. */
#ifndef MRTRACE_LOGS_TWIN_H
#define MRTRACE_LOGS_TWIN_H

#include <stdbool.h>

struct log_twin;

/* A started worker, or NULL: one CPU to run on, turned off
 * (log_reader_parallel), or a thread that could not start; the caller
 * then does all the work itself, the same work.  The caller builds what
 * the work reads lazily before (log_parts_prepare). */
struct log_twin *log_twin_start(void);
/* fn(here) on the calling thread and fn(there) on the worker; returns when
 * both are done */
void log_twin_run(struct log_twin *t, void (*fn)(void *), void *here, void *there);
void log_twin_stop(struct log_twin *t);

#endif
