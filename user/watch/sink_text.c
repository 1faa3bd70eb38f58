// SPDX-License-Identifier: GPL-2.0-only
/* sink_text.c - `watch` without --json: every record that has a text
 * (record/kind.h) as people read it, with when and where, on standard
 * output or -o FILE; formatted in memory, then written at once.  A repeat
 * of a process's cause is one line (the correlator counts them). */
#include "watch/sink.h"
#include "watch/watch.h"

#include <stdlib.h>

#include "record/kind.h"
#include "watch/stamp.h"

static bool text_wanted(const struct watch *w)
{
	return !w->a.json;
}

static void text_record(struct watch_sink *s, struct watch *w, const struct record *rec)
{
	char when[400], t[64];
	char *text = NULL;
	size_t len = 0;
	FILE *m;

	(void)s;
	if (!rec->kind->to_text)
		return;
	if (!(m = open_memstream(&text, &len))) {
		fprintf(stderr, "mrtrace watch: out of memory: a record is lost\n");
		return;
	}
	stamp_time(record_ts_ns(rec), t, sizeof(t));
	snprintf(when, sizeof(when), "%s on %s", t, stamp_host());
	record_print_text(m, rec, w->a.verbose, when);
	fclose(m);
	watch_write_record(w, text, len);
	free(text);
}

const struct watch_sink_ops sink_text = {
	.name = "text",
	.wanted = text_wanted,
	.record = text_record,
};
