// SPDX-License-Identifier: GPL-2.0-only
/* library.c - the library_attached record (library.h).  Its text is
 * watch's line on stderr, not a record. */
#include "record/library.h"
#include "record/kind.h"
#include "record/json_util.h"

static struct json_object *library_to_json(const struct record *rec)
{
	const struct record_library *l = rec->data;
	struct json_object *o = json_object_new_object();

	jput_str(o, "event", rec->kind->event);
	jput_str(o, "path", l->path);
	jput_i64(o, "entry_points", l->entry_points);
	return o;
}

const struct record_kind record_kind_library = {
	.name = "library attached",
	.event = "library_attached",
	.to_json = library_to_json,
	/* text: on stderr (watch/watch.c); not read back */
};
