// SPDX-License-Identifier: GPL-2.0-only
/* fuzz_explain.c - libFuzzer harness: a recorded event (the JSON that
 * `watch --json` writes, as replay reads it) through the whole explanation:
 * record_raw_from_json, record_explain, the fixes, record_report_json and the
 * text; and, for a line `mrtrace explain` reads (record_read), the round
 * trip of what explain --json writes:
 *
 *   - it is valid UTF-8 and valid JSON (json-c's strict parser, to the end);
 *   - it reads back (record_read accepts every number and string it wrote);
 *   - explained again it is written the same, byte for byte.  A string the
 *     input held as bytes that are not UTF-8 is written once as \\xNN and
 *     may then no longer fit its field: such an input must reach that same
 *     fixed point one pass later. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "core/escape.h"
#include "verdict/explain.h"
#include "record/record.h"

static struct record_in in;
static struct report r;

/* explain --json's line for a record: NULL when record_read refuses it */
static char *explain_line(struct json_object *o)
{
	char err[256];

	if (record_read(o, &in, err, sizeof(err)))
		return NULL;
	record_explain(&r, &in.ev, record_in_uev(&in), in.have_ctx ? &in.ctx : NULL,
		       in.have_nccl ? &in.nccl : NULL, in.have_gates ? &in.gates : NULL);
	r.ua = in.ua;
	record_in_keep(&r, &in);
	struct json_object *out = record_report_json(&r);
	record_envelope_put(out, &in.env);
	char *line = json_utf8_fix(json_object_to_json_string_ext(out, JSON_C_TO_STRING_PLAIN));
	json_object_put(out);
	if (!line)
		abort();
	return line;
}

static void valid_utf8(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);

	for (size_t i = 0; i < n;) {
		int l = utf8_seq(p + i, n - i);
		if (l <= 0) {
			fprintf(stderr, "explain wrote invalid UTF-8 at byte %zu: %s\n", i, s);
			abort();
		}
		i += (size_t)l;
	}
}

static struct json_object *parse_strict(const char *s)
{
	json_tokener *tok = json_tokener_new();

	if (!tok)
		abort();
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	struct json_object *o = json_tokener_parse_ex(tok, s, (int)strlen(s));
	if (!o || json_tokener_get_error(tok) != json_tokener_success ||
	    json_tokener_get_parse_end(tok) != strlen(s)) {
		fprintf(stderr, "explain wrote invalid JSON: %s\n", s);
		abort();
	}
	json_tokener_free(tok);
	return o;
}

/* explain's line for o read back and explained again */
static char *again(const char *line)
{
	valid_utf8(line);
	struct json_object *o = parse_strict(line);
	char *next = explain_line(o);
	if (!next) {
		fprintf(stderr, "explain's own line is refused: %s\n", line);
		abort();
	}
	json_object_put(o);
	return next;
}

static void round_trip(struct json_object *o)
{
	const char *event;

	if (!record_kind_readable(record_kind_of_json(o, &event)))
		return;
	char *l1 = explain_line(o);
	if (!l1)
		return;
	char *l2 = again(l1);
	if (strcmp(l1, l2)) {
		/* once more: normalised by the first pass, now a fixed point */
		char *l3 = again(l2);
		if (strcmp(l2, l3)) {
			fprintf(stderr, "explain's line changes as it is read back:\n%s\n%s\n", l2, l3);
			abort();
		}
		free(l3);
	}
	free(l1);
	free(l2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	if (!devnull && !(devnull = fopen("/dev/null", "w")))
		abort();
	json_tokener *tok = json_tokener_new();
	if (!tok)
		return 0;
	json_object *o = json_tokener_parse_ex(tok, (const char *)data, (int)size);
	json_tokener_free(tok);
	if (!o)
		return 0;
	static struct mrt_event ev;
	char err[256];
	if (record_raw_from_json(o, &ev, err, sizeof(err)) == 0) {
		static struct proc_context ctx;
		proc_context_init(&ctx, (int)ev.pid);
		record_explain(&r, &ev, NULL, &ctx, NULL, NULL);
		json_object *out = record_report_json(&r);
		json_object_put(out);
		report_print_text(devnull, &r, true);
	}
	round_trip(o);
	json_object_put(o);
	return 0;
}
