// SPDX-License-Identifier: GPL-2.0-only
/* sinks.c - the list of sinks (sink.h) and their four moments, in order:
 * the service's outputs first (a failure is counted and journaled before
 * its line is written, READY=1 goes out before the start record), the
 * stream last. */
#include "watch/sink.h"
#include "watch/watch.h"

#include <stdlib.h>

static const struct watch_sink_ops *const all[] = {
	&sink_metrics, &sink_journal, &sink_notify, &sink_json, &sink_text,
};

int watch_sinks_open(struct watch *w)
{
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		if (all[i]->wanted && !all[i]->wanted(w))
			continue;
		struct watch_sink *s = calloc(1, sizeof(*s));
		if (!s || w->nsinks == WATCH_SINKS_MAX) {
			free(s);
			return -1;
		}
		s->ops = all[i];
		w->sinks[w->nsinks++] = s;
	}
	return 0;
}

void watch_sinks_start(struct watch *w)
{
	for (int i = 0; i < w->nsinks; i++)
		if (w->sinks[i]->ops->start)
			w->sinks[i]->ops->start(w->sinks[i], w);
}

void watch_emit(struct watch *w, const struct record *rec)
{
	for (int i = 0; i < w->nsinks; i++)
		if (w->sinks[i]->ops->record)
			w->sinks[i]->ops->record(w->sinks[i], w, rec);
}

void watch_sinks_tick(struct watch *w)
{
	for (int i = 0; i < w->nsinks; i++)
		if (w->sinks[i]->ops->tick)
			w->sinks[i]->ops->tick(w->sinks[i], w);
}

void watch_sinks_stop(struct watch *w)
{
	for (int i = 0; i < w->nsinks; i++)
		if (w->sinks[i]->ops->stop)
			w->sinks[i]->ops->stop(w->sinks[i], w);
}

void watch_sinks_close(struct watch *w)
{
	for (int i = 0; i < w->nsinks; i++) {
		free(w->sinks[i]->state);
		free(w->sinks[i]);
	}
	w->nsinks = 0;
}
