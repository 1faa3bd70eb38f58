/* SPDX-License-Identifier: GPL-2.0-only */
/* sink.h - where `watch`'s records go: every output is a sink with the
 * same four moments, and knows nothing of the others.
 *
 *   start   the sites are armed, before the start record (metrics' site
 *           gauges, systemd's READY=1)
 *   record  each record, of any kind (record/kind.h): the start and stop
 *           records, every explained failure, the rest
 *   tick    each round of the loop (about every 100 ms)
 *   stop    after the stop record (final metrics, STOPPING=1)
 *
 * NULL callbacks: nothing at that moment.  A sink keeps its state in
 * `state` (malloc'd by start, freed with the sink).  The list is sinks.c: adding a
 * sink is its unit and one line there. */
#ifndef MRTRACE_WATCH_SINK_H
#define MRTRACE_WATCH_SINK_H

#include <stdbool.h>
#include <stddef.h>

/* the sinks see watch (watch.h, which their units include); this header
 * names it only, so that watch.c can include it without a loop */
struct watch;
struct record;
struct json_object;
struct watch_sink;

struct watch_sink_ops {
	const char *name;
	/* whether this run wants it (the options say) */
	bool (*wanted)(const struct watch *w);
	void (*start)(struct watch_sink *s, struct watch *w);
	void (*record)(struct watch_sink *s, struct watch *w, const struct record *rec);
	void (*tick)(struct watch_sink *s, struct watch *w);
	void (*stop)(struct watch_sink *s, struct watch *w);
};

struct watch_sink {
	const struct watch_sink_ops *ops;
	void *state;
};

extern const struct watch_sink_ops sink_metrics, sink_journal, sink_notify, sink_json, sink_text;

/* The sinks this run wants, in their order, into w->sinks.  0, or -1 out
 * of memory. */
int watch_sinks_open(struct watch *w);
void watch_sinks_start(struct watch *w);
void watch_sinks_tick(struct watch *w);
void watch_sinks_stop(struct watch *w);
/* Frees them (after stop, or when the run ends before start). */
void watch_sinks_close(struct watch *w);

/* ---- what the stream sinks share (sink_json.c) ------------------------------- */

/* Writes one record (a line or lines) to w->out in one write. */
void watch_write_record(struct watch *w, const char *text, size_t len);
/* The JSON line of a record as `watch --json` writes it: the record's
 * object with the envelope every line carries (schema, mrtrace_version,
 * time, host; docs/json.md).  The caller owns it. */
struct json_object *watch_json_line(const struct record *rec);

#endif
