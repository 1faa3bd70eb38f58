// SPDX-License-Identifier: GPL-2.0-only
/* fuzz_explain.c - libFuzzer harness: a recorded event (the JSON that
 * `watch --json` writes, as replay reads it) through the whole explanation:
 * record_raw_from_json, record_explain, the fixes, record_report_json and the
 * text. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "explain/explain.h"
#include "record/record.h"

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
	static struct report r;
	char err[256];
	if (record_raw_from_json(o, &ev, err, sizeof(err)) == 0) {
		static struct proc_context ctx;
		proc_context_init(&ctx, (int)ev.pid);
		record_explain(&r, &ev, NULL, &ctx, NULL, NULL);
		json_object *out = record_report_json(&r);
		json_object_put(out);
		report_print_text(devnull, &r, true);
	}
	json_object_put(o);
	return 0;
}
