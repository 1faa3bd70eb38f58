// SPDX-License-Identifier: GPL-2.0-only
/* sink_journal.c - `watch --journal`: one journald entry per explained
 * failure (journal.h), the first send error said once.  With
 * --journal=auto, only when the journal's socket is there at start.
 * A journal that does not read costs its entries, counted in
 * mrtrace_watch_output_errors_total{output="journal"}, never the loop:
 * the records still reach the other outputs. */
#include "watch/sink.h"
#include "watch/watch.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/kind.h"
#include "watch/journal.h"
#include "watch/metrics.h"

struct journal_state {
	bool on, warned;
};

static bool journal_wanted(const struct watch *w)
{
	return w->a.svc.journal != JOURNAL_NO;
}

static const char *socket_of(const struct watch *w)
{
	return w->a.svc.journal_socket ? w->a.svc.journal_socket : JOURNAL_SOCKET;
}

static void journal_start(struct watch_sink *s, struct watch *w)
{
	struct journal_state *j = calloc(1, sizeof(*j));

	if (j)
		j->on = w->a.svc.journal == JOURNAL_YES || !access(socket_of(w), W_OK);
	s->state = j;
}

static void journal_record(struct watch_sink *s, struct watch *w, const struct record *rec)
{
	struct journal_state *j = s->state;

	if (!j || !j->on || !(rec->kind->flags & RECORD_EXPLAINED))
		return;
	int rc = journal_report(w->a.svc.journal_socket, rec);
	if (rc)
		metrics_output_error("journal");
	if (rc && !j->warned) {
		if (rc == -EAGAIN)
			fprintf(stderr, "mrtrace: the journal (%s) is not reading: its entries are "
					"dropped while its queue is full (counted in "
					"mrtrace_watch_output_errors_total{output=\"journal\"})\n",
				socket_of(w));
		else
			fprintf(stderr, "mrtrace: cannot send to the journal (%s): %s\n", socket_of(w),
				strerror(-rc));
		j->warned = true;
	}
}

const struct watch_sink_ops sink_journal = {
	.name = "journal",
	.wanted = journal_wanted,
	.start = journal_start,
	.record = journal_record,
};
