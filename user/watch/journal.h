/* SPDX-License-Identifier: GPL-2.0-only */
/* journal.h - one journald entry per explained failure, with fields a
 * person or a collector can filter on (journalctl MRTRACE_CAUSE=memlock_limit),
 * sent with journald's native protocol: no libsystemd, one datagram per
 * entry, so a multi-line explanation stays one entry instead of one per
 * line as on stderr.
 *
 * Fields: MESSAGE (the full text explanation), PRIORITY (3 a failed
 * registration or another refusal, 4 a failed mlock, 7 a harmless one),
 * MESSAGE_ID (per event kind), SYSLOG_IDENTIFIER=mrtrace, MRTRACE_EVENT, MRTRACE_CAUSE,
 * MRTRACE_OP, MRTRACE_ERRNO, MRTRACE_PID, MRTRACE_TID, MRTRACE_COMM,
 * MRTRACE_UID, MRTRACE_CERTAINTY, MRTRACE_SUMMARY, MRTRACE_VERSION, and when
 * known MRTRACE_SLURM_JOB with MRTRACE_SLURM_JOB_SOURCE (and
 * MRTRACE_SLURM_JOB_CLAIMED, a contradicting claim), MRTRACE_SYSTEMD_UNIT, MRTRACE_CONTAINER_ID,
 * MRTRACE_K8S_NAMESPACE, MRTRACE_K8S_POD, MRTRACE_K8S_CONTAINER. */
#ifndef MRTRACE_WATCH_JOURNAL_H
#define MRTRACE_WATCH_JOURNAL_H

#include <stddef.h>

#include "record/record.h"

#define JOURNAL_SOCKET "/run/systemd/journal/socket"

/* An entry being built: fields in the native format. */
struct journal_entry {
	char *buf;
	size_t len, cap;
	int oom;
};

/* Appends NAME=value; values with a newline use the length-prefixed form. */
void journal_add(struct journal_entry *e, const char *name, const char *value);
void journal_addf(struct journal_entry *e, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Sends the entry to the socket (NULL: JOURNAL_SOCKET) and frees it,
 * without waiting: when the journal's queue is full (a journald that
 * stopped reading) the entry is not sent and -EAGAIN returned.  Entries
 * too large for one datagram go through a sealed memfd, as journald
 * accepts.  0, or -errno. */
int journal_send(struct journal_entry *e, const char *socket);

/* The entry for one explained failure record (record/kind.h,
 * RECORD_EXPLAINED): its kind says MRTRACE_EVENT, the priority and the
 * MESSAGE_ID; the report's node names (Kubernetes, Slurm) are added when
 * it has them. */
int journal_report(const char *socket, const struct record *rec);

#endif
