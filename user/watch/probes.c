// SPDX-License-Identifier: GPL-2.0-only
/* probes.c - the site report of `mrtrace watch` (probes.h), read from the
 * tracer through its accessors. */
#include "watch/probes.h"

#include "tracer/tracer.h"

void watch_print_sites(const struct tracer *t, FILE *out)
{
	fprintf(out, "%-16s %-10s %-10s %-10s %s\n", "SITE", "ARMED", "MODULE", "BTF",
		"FUNCTION / NOTE");
	for (int i = 0; i < tracer_site_count(t); i++) {
		const struct tracer_site *s = tracer_site(t, i);
		fprintf(out, "%-16s %-10s %-10s %-10s %s%s%s\n", s->name,
			s->mech == MECH_NONE ? "no" : tracer_mech_name(s->mech),
			s->module[0] ? s->module : "-", s->btf[0] ? s->btf : "-", s->func,
			s->note[0] ? ": " : "", s->note);
	}
}

struct json_object *watch_sites_json(const struct tracer *t)
{
	struct json_object *a = json_object_new_array();

	for (int i = 0; i < tracer_site_count(t); i++) {
		const struct tracer_site *s = tracer_site(t, i);
		struct json_object *o = json_object_new_object();
		json_object_object_add(o, "site", json_object_new_string(s->name));
		json_object_object_add(o, "function", json_object_new_string(s->func));
		json_object_object_add(o, "module",
				       s->module[0] ? json_object_new_string(s->module) : NULL);
		json_object_object_add(o, "armed", json_object_new_boolean(s->mech != MECH_NONE));
		json_object_object_add(o, "mechanism",
				       json_object_new_string(tracer_mech_name(s->mech)));
		json_object_object_add(o, "btf", s->btf[0] ? json_object_new_string(s->btf) : NULL);
		json_object_object_add(o, "gives", json_object_new_string(s->gives));
		if (s->note[0])
			json_object_object_add(o, "note", json_object_new_string(s->note));
		json_object_array_add(a, o);
	}
	return a;
}

void watch_print_consequences(const struct tracer *t, FILE *out)
{
	if (!tracer_armed_count(t, true)) {
		fprintf(out,
			"mrtrace: no kernel registration site is armed on %s: failed MR "
			"registrations will NOT be seen from the kernel here.\n",
			tracer_kernel(t));
		if (tracer_site_armed(t, "sys_mlock"))
			fprintf(out, "mrtrace: armed instead: mlock/setrlimit syscall tracepoints "
				     "(the same RLIMIT_MEMLOCK; verdicts from them are about mlock, "
				     "not proof about a registration).\n");
		return;
	}
	/* the verdict-critical roles no candidate function could serve */
	for (int i = 0; i < tracer_site_count(t); i++) {
		const struct tracer_site *s = tracer_site(t, i);
		if (s->critical && s->mech == MECH_NONE)
			fprintf(out, "mrtrace: %s unavailable on this kernel (%s: %s): %s.\n",
				s->critical, s->name, s->note, s->without);
	}
	if (tracer_btf_file(t))
		fprintf(out, "mrtrace: this kernel's modules carry no BTF: their structures are "
			     "typed by %s (BTF column \"file\").\n", tracer_btf_file(t));
}
