// SPDX-License-Identifier: GPL-2.0-only
/* probes.c - the site report of `mrtrace watch`, read from the tracer
 * through its accessors: the table for people (stderr, --list-probes), the
 * sites in words for the start record (record/start.h), what the unarmed
 * sites mean for the verdicts, and the armed sites by mechanism. */
#include "watch/watch.h"

#include <stdlib.h>
#include <string.h>

/* The SITE column is 18 wide: the longest name, bnxt_re_dmabuf_reg
 * (test_drivers checks every name fits). */
void watch_print_sites(const struct tracer *t, FILE *out)
{
	fprintf(out, "%-18s %-10s %-10s %-10s %s\n", "SITE", "ARMED", "MODULE", "BTF",
		"FUNCTION / NOTE");
	for (int i = 0; i < tracer_site_count(t); i++) {
		const struct tracer_site *s = tracer_site(t, i);
		fprintf(out, "%-18s %-10s %-10s %-10s %s%s%s\n", s->name,
			s->mech == MECH_NONE ? "no" : tracer_mech_name(s->mech),
			s->module[0] ? s->module : "-", s->btf[0] ? s->btf : "-", s->func,
			s->note[0] ? ": " : "", s->note);
	}
}

int watch_sites_read(struct watch *w)
{
	int n = tracer_site_count(w->t);

	free(w->sites);
	w->nsites = 0;
	if (!(w->sites = calloc((size_t)(n > 0 ? n : 0) + 1, sizeof(*w->sites))))
		return -1;
	for (int i = 0; i < n; i++) {
		const struct tracer_site *s = tracer_site(w->t, i);
		w->sites[i] = (struct record_site){
			.site = s->name,
			.function = s->func,
			.module = s->module[0] ? s->module : NULL,
			.armed = s->mech != MECH_NONE,
			.mechanism = tracer_mech_name(s->mech),
			.btf = s->btf[0] ? s->btf : NULL,
			.gives = s->gives,
			.note = s->note[0] ? s->note : NULL,
			.refused_err = s->mech == MECH_NONE ? s->err : 0,
			.uprobe_multi = s->uprobe_multi,
		};
	}
	w->nsites = n;
	/* user space; where the async_event site is armed its events are the
	 * source of port state changes, and this the fallback (ports.h) */
	if (w->ports)
		w->sites[w->nsites++] = (struct record_site){
			.site = "port_events",
			.function = "ports/N/state, gids, lid (sysfs); RTMGRP_LINK, RTMGRP_IPV*_IFADDR",
			.module = "user",
			.armed = true,
			.mechanism = ports_netlink_armed(w->ports) ? "netlink" : "sysfs",
			.gives = "port_change records: ports down and back (down_ms), GID entries "
				 "that vanish, LID/SM changes, with the processes holding QPs",
			.note = ports_source(w->ports),
		};
	return 0;
}

void watch_print_own_sites(const struct watch *w, FILE *out)
{
	for (int i = tracer_site_count(w->t); i < w->nsites; i++) {
		const struct record_site *s = &w->sites[i];
		fprintf(out, "%-18s %-10s %-10s %-10s %s%s%s\n", s->site, s->armed ? s->mechanism : "no",
			s->module ? s->module : "-", "-", s->function, s->note ? ": " : "",
			s->note ? s->note : "");
	}
}

const char *const watch_mech_names[WATCH_MECHS] = { "fentry", "kprobe", "tracepoint", "uprobe" };

void watch_sites_by_mech(const struct watch *w, int armed[WATCH_MECHS])
{
	memset(armed, 0, WATCH_MECHS * sizeof(armed[0]));
	for (int i = 0; i < w->nsites; i++)
		for (int k = 0; k < WATCH_MECHS; k++)
			if (!strcmp(w->sites[i].mechanism, watch_mech_names[k]))
				armed[k]++;
}

int watch_armed_sites(const struct watch *w)
{
	int n = 0;
	for (int i = 0; i < w->nsites; i++)
		n += w->sites[i].armed;
	return n;
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
