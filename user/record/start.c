// SPDX-License-Identifier: GPL-2.0-only
/* start.c - the start record (start.h): written first, exactly once.  Its
 * text is watch's site table on stderr (watch/probes.c), not a record. */
#include "record/start.h"
#include "record/kind.h"
#include "record/json_util.h"

struct json_object *record_sites_json(const struct record_site *sites, int n)
{
	struct json_object *a = json_object_new_array();

	for (int i = 0; i < n; i++) {
		const struct record_site *s = &sites[i];
		struct json_object *o = json_object_new_object();
		jput_str(o, "site", s->site);
		jput_str(o, "function", s->function);
		jput_str(o, "module", s->module);
		jput_bool(o, "armed", s->armed);
		jput_str(o, "mechanism", s->mechanism);
		jput_str(o, "btf", s->btf);
		jput_str(o, "gives", s->gives);
		if (s->note)
			jput_str(o, "note", s->note);
		json_object_array_add(a, o);
	}
	return a;
}

static struct json_object *strings(const char *const *v, int n)
{
	struct json_object *a = json_object_new_array();

	for (int i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_string(v[i]));
	return a;
}

static struct json_object *start_to_json(const struct record *rec)
{
	const struct record_start *s = rec->data;
	struct json_object *o = json_object_new_object();

	jput_str(o, "event", rec->kind->event);
	jput_str(o, "kernel", s->kernel);
	jput_i64(o, "armed_sites", s->armed_sites);
	jput_bool(o, "registration_path_armed", s->registration_path_armed);
	jput_bool(o, "waiting_for_rdma", s->waiting_for_rdma);
	if (s->pid)
		jput_i64(o, "pid", s->pid);
	if (s->command_pid > 0)
		jput_i64(o, "command_pid", s->command_pid);
	json_object_object_add(o, "sites", record_sites_json(s->sites, s->nsites));
	json_object_object_add(o, "missing_capabilities",
			       strings(s->missing_capabilities, s->nmissing));
	json_object_object_add(o, "privilege_notes", strings(s->privilege_notes, s->nnotes));
	if (s->host_root)
		jput_str(o, "host_root", s->host_root);
	return o;
}

const struct record_kind record_kind_start = {
	.name = "start",
	.event = "start",
	.to_json = start_to_json,
	/* text: the site table and what it means, on stderr (watch/probes.c);
	 * not read back */
};
