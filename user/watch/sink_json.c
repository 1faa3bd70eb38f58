// SPDX-License-Identifier: GPL-2.0-only
/* sink_json.c - `watch --json`: every record as one JSON line (docs/json.md)
 * on standard output or -o FILE, each in one write(2) (core/outfile.h): a
 * failed write stops the run (the loop checks outfile_failed). */
#include "watch/sink.h"
#include "watch/watch.h"

#include <stdlib.h>
#include <string.h>

#include "core/outfile.h"
#include "core/schema.h"
#include "core/version.h"
#include "watch/stamp.h"

void watch_write_record(struct watch *w, const char *text, size_t len)
{
	outfile_record(w->out, text, len);
}

struct json_object *watch_json_line(const struct record *rec)
{
	struct json_object *o = record_to_json(rec);

	mrt_version_stamp(o, SCHEMA_WATCH);
	stamp_json(o);
	return o;
}

static bool json_wanted(const struct watch *w)
{
	return w->a.json;
}

static void json_record(struct watch_sink *s, struct watch *w, const struct record *rec)
{
	struct json_object *o = watch_json_line(rec);
	const char *text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	size_t n = strlen(text);
	char *line = malloc(n + 1);

	(void)s;
	if (!line) {
		fprintf(stderr, "mrtrace watch: out of memory: a record is lost\n");
	} else {
		memcpy(line, text, n);
		line[n] = '\n';
		watch_write_record(w, line, n + 1);
		free(line);
	}
	json_object_put(o);
}

const struct watch_sink_ops sink_json = {
	.name = "json",
	.wanted = json_wanted,
	.record = json_record,
};
