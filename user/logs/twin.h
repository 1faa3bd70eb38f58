/* SPDX-License-Identifier: GPL-2.0-only */
/* twin.h - a second thread for the log reader (internal to user/logs):
 * one batch of lines is classified by two threads, each taking the next
 * few lines until none is left, while the reader hands out the events in
 * order (reader.c).  Classification reads no state another line changes
 * (the input's memory, its counts and the version and job it carries are
 * kept by the reader as it hands the events out), so the threads share
 * only the count of lines taken. */
#ifndef MRTRACE_LOGS_TWIN_H
#define MRTRACE_LOGS_TWIN_H

#include <stdbool.h>
#include <stddef.h>

struct log_twin;

/* A started worker, or NULL: one CPU to run on, turned off
 * (log_reader_parallel), or a thread that could not start; the caller
 * then does all the work itself, the same work.  The caller builds what
 * the work reads lazily before (log_parts_prepare). */
struct log_twin *log_twin_start(void);
/* fn(ctx, from, to) over [0, n) in pieces of `piece`, on the calling
 * thread and on the worker, each taking the next piece; returns when every
 * piece is done.  A worker that is not running (a busy CPU) takes nothing:
 * the caller does it all and waits only for a piece the worker holds. */
void log_twin_run(struct log_twin *t, void (*fn)(void *ctx, size_t from, size_t to), void *ctx,
		  size_t n, size_t piece);
/* the pieces the worker took since it started (tests) */
unsigned long log_twin_worker_pieces(const struct log_twin *t);
void log_twin_stop(struct log_twin *t);

#endif
