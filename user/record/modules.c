// SPDX-License-Identifier: GPL-2.0-only
/* modules.c - the modules_changed record (modules.h).  Its text is the
 * tracer's note on stderr, not a record. */
#include "record/modules.h"
#include "record/kind.h"
#include "record/json_util.h"

#include <stdio.h>
#include <string.h>

/* "ib_core, ib_uverbs" as ["ib_core","ib_uverbs"] */
static struct json_object *names(const char *list)
{
	struct json_object *a = json_object_new_array();
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", list ? list : "");
	for (char *m = strtok_r(buf, ", ", &save); m; m = strtok_r(NULL, ", ", &save))
		json_object_array_add(a, json_object_new_string(m));
	return a;
}

static struct json_object *sites(const struct record_module_site *s, int n)
{
	struct json_object *a = json_object_new_array();

	for (int j = 0; j < n; j++) {
		struct json_object *e = json_object_new_object();
		jput_str(e, "site", s[j].site);
		jput_str(e, "mechanism", s[j].mechanism);
		jput_str(e, "module", s[j].module);
		json_object_array_add(a, e);
	}
	return a;
}

static struct json_object *modules_to_json(const struct record *rec)
{
	const struct record_modules *c = rec->data;
	struct json_object *o = json_object_new_object();

	jput_str(o, "event", rec->kind->event);
	json_object_object_add(o, "loaded", names(c->loaded));
	json_object_object_add(o, "unloaded", names(c->unloaded));
	json_object_object_add(o, "armed", sites(c->armed, c->narmed));
	json_object_object_add(o, "detached", sites(c->detached, c->ndetached));
	jput_i64(o, "armed_sites", c->armed_sites);
	jput_double(o, "rearm_s", c->rearm_s);
	jput_double(o, "facts_s", c->facts_s);
	return o;
}

const struct record_kind record_kind_modules = {
	.name = "modules changed",
	.event = "modules_changed",
	.to_json = modules_to_json,
	/* text: the tracer's note on stderr; not read back */
};
