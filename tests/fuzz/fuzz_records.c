// SPDX-License-Identifier: GPL-2.0-only
/* fuzz_records.c - libFuzzer harness for the readers of the records other
 * nodes wrote, which `mrtrace explain` takes in bulk:
 *
 *   - a port_change line read back (port_change_from_json), written again
 *     (its to_json and its text), read again and written the same: the
 *     round trip is a fixed point;
 *   - every line of the input taken by `explain --jobs` (jobs_add), then the
 *     jobs written as text and as JSON, each JSON line valid JSON.
 *
 * Built with -fsanitize=fuzzer,address,undefined (make fuzz-smoke): a
 * signed overflow in a reader (a crafted affected count, down_ms) stops it. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "explain/jobs.h"
#include "record/kind.h"
#include "record/port_change.h"

static struct record_port_change pc1, pc2;

static char *port_line(const struct record_port_change *c)
{
	struct record rec = { .kind = &record_kind_port_change, .data = c };
	struct json_object *o = record_kind_port_change.to_json(&rec);
	char *s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	if (!s)
		abort();
	return s;
}

static void port_round_trip(struct json_object *o, FILE *devnull)
{
	char err[256];

	memset(&pc1, 0, sizeof(pc1));
	if (port_change_from_json(o, &pc1, err, sizeof(err)))
		return;
	struct record rec = { .kind = &record_kind_port_change, .data = &pc1 };
	if (record_kind_port_change.to_text)
		record_kind_port_change.to_text(devnull, &rec, true, "12:00:00");
	char *l1 = port_line(&pc1);
	struct json_object *back = json_tokener_parse(l1);
	memset(&pc2, 0, sizeof(pc2));
	if (!back || port_change_from_json(back, &pc2, err, sizeof(err))) {
		fprintf(stderr, "port_change's own line is refused (%s): %s\n", err, l1);
		abort();
	}
	char *l2 = port_line(&pc2);
	if (strcmp(l1, l2)) {
		fprintf(stderr, "port_change's line changes as it is read back:\n%s\n%s\n", l1, l2);
		abort();
	}
	json_object_put(back);
	free(l1);
	free(l2);
}

/* every line explain --jobs --json writes is one valid JSON object */
static void jobs_json_valid(char *text)
{
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		struct json_object *o = json_tokener_parse(line);
		if (!o || !json_object_is_type(o, json_type_object)) {
			fprintf(stderr, "explain --jobs wrote invalid JSON: %s\n", line);
			abort();
		}
		json_object_put(o);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	if (!devnull && !(devnull = fopen("/dev/null", "w")))
		abort();
	struct jobs *j = jobs_new();
	json_tokener *tok = json_tokener_new();
	if (!j || !tok)
		abort();
	/* the input as lines, each one record */
	for (size_t at = 0; at < size;) {
		const uint8_t *nl = memchr(data + at, '\n', size - at);
		size_t len = nl ? (size_t)(nl - (data + at)) : size - at;
		json_tokener_reset(tok);
		struct json_object *o = json_tokener_parse_ex(tok, (const char *)data + at, (int)len);
		if (o) {
			port_round_trip(o, devnull);
			jobs_add(j, o);
			json_object_put(o);
		}
		at += len + 1;
	}
	json_tokener_free(tok);
	jobs_print(j, false, devnull);
	char *text = NULL;
	size_t tlen = 0;
	FILE *mem = open_memstream(&text, &tlen);
	if (!mem)
		abort();
	jobs_print(j, true, mem);
	fclose(mem);
	jobs_json_valid(text);
	free(text);
	jobs_free(j);
	return 0;
}
