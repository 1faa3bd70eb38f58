// SPDX-License-Identifier: GPL-2.0-only
/* envelope.c - what every `watch --json` line carries besides its kind's
 * members (docs/json.md): "schema", "mrtrace_version", "time", "host"; read
 * from a recorded line and written back by `mrtrace explain` as they were
 * (issue 24 row 2: explain dropped them, so a replayed record no longer
 * said when, where or by which build it was recorded). */
#include "record/record.h"

#include <stdio.h>
#include <string.h>

#include "core/schema.h"
#include "core/version.h"

static int get_string(struct json_object *o, const char *k, const char **v, char *err,
		      size_t errlen)
{
	struct json_object *x;

	*v = NULL;
	if (!json_object_object_get_ex(o, k, &x) || !x)
		return 0;
	if (!json_object_is_type(x, json_type_string)) {
		snprintf(err, errlen, "%s: not a string", k);
		return -1;
	}
	*v = json_object_get_string(x);
	return 0;
}

int record_envelope_from_json(struct json_object *o, struct record_envelope *e, char *err,
			      size_t errlen)
{
	if (get_string(o, "schema", &e->schema, err, errlen) ||
	    get_string(o, "mrtrace_version", &e->version, err, errlen) ||
	    get_string(o, "time", &e->time, err, errlen) ||
	    get_string(o, "host", &e->host, err, errlen))
		return -1;
	return 0;
}

void record_envelope_put(struct json_object *o, const struct record_envelope *e)
{
	json_object_object_add(o, "schema", json_object_new_string(e->schema ? e->schema : SCHEMA_WATCH));
	json_object_object_add(o, "mrtrace_version",
			       json_object_new_string(e->version ? e->version : mrt_version()));
	if (e->time)
		json_object_object_add(o, "time", json_object_new_string(e->time));
	if (e->host)
		json_object_object_add(o, "host", json_object_new_string(e->host));
}
