/* SPDX-License-Identifier: GPL-2.0-only */
/* logs.h - `mrtrace explain` on the logs a job left (issue 32): the reader's
 * failure events (logs/logline.h) grouped by what failed, the first in time
 * leading each group and the others counted with their hosts; each group
 * judged (verdict/inferred.h) with the facts of the node it came from when
 * mrtrace has them, and written as an inferred_failure record.
 *
 * Bounded memory whatever the input: at most EXPLAIN_LOG_GROUPS groups
 * (about 9 KiB each: the leading event's record, 256 hashes of the ranks
 * and 256 of the hosts seen), so under 600 KiB; failures of further kinds
 * are counted and said, not judged. */
#ifndef MRTRACE_EXPLAIN_LOGS_H
#define MRTRACE_EXPLAIN_LOGS_H
#include <stdbool.h>
#include <stdio.h>

#include "logs/logline.h"
#include "verdict/inferred.h"

#define EXPLAIN_LOG_GROUPS 64

struct explain_logs_opts {
	enum inferred_setting setting; /* INF_SET_UNKNOWN: from the log, else shell */
	const char *unit;              /* --unit */
	int pid;                       /* -p: judge by that process's limit */
	const char *facts_file;        /* --facts: another node's check --json */
	const char *host;              /* --host: the node the lines naming none came from */
	bool verbose, json;
};

struct explain_logs;

struct explain_logs *explain_logs_new(const struct explain_logs_opts *o);
void explain_logs_free(struct explain_logs *l);

/* One event of the reader, in input order. */
void explain_logs_event(struct explain_logs *l, const struct log_event *ev);
/* A failure a watch record among the inputs proved (explain's record path):
 * compared with the group of the same host and pid, and of the same job
 * when both name one (job: "slurm job 12345" as the reader writes it, or
 * NULL). */
void explain_logs_watch(struct explain_logs *l, const char *host, long pid, const char *job,
			const char *cause);
/* Judges every group and writes it to out (one piece each, through
 * write_piece).  Returns the number of groups; -1 when the facts could not
 * be read (err). */
int explain_logs_finish(struct explain_logs *l, void (*write_piece)(void *arg, const char *s, size_t n),
			void *arg, char *err, size_t errlen);
/* The closing count line's part: "3 failures in 1 group, ..." */
void explain_logs_tally(const struct explain_logs *l, FILE *err);

#endif
